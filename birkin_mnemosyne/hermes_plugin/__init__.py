"""Hermes Agent memory provider plugin for birkin-mnemosyne (a local Markdown vault).

This file doubles as the plugin folder's ``__init__.py``: ``mnemosyne hermes install``
copies it, with ``plugin.yaml``, to ``$HERMES_HOME/plugins/<name>/``, where Hermes finds
it (it names ``MemoryProvider`` and calls ``register_memory_provider``) and calls
``register(ctx)``. The ``hermes_agent.memory_providers`` entry point of newer Hermes
versions loads this package the same way. The provider itself,
``MnemosyneMemoryProvider``, stays in the installed library, so upgrading
birkin-mnemosyne upgrades the plugin without reinstalling it.

Imports are absolute: Hermes loads this file under a module name of its own
(``_hermes_user_memory.<name>``), where a relative import would find nothing.
"""

from __future__ import annotations

import logging
from pathlib import Path

try:
    from birkin_mnemosyne.hermes_plugin import provider as _provider
except ModuleNotFoundError as exc:
    missing = (exc.name or "").split(".")[0]
    if missing == "birkin_mnemosyne":
        # Hermes reports a plugin that fails to import only in its debug log.
        logging.getLogger(__name__).warning(
            "the Mnemosyne memory provider cannot load: birkin-mnemosyne is not installed "
            "in the Python that runs Hermes — install it there from its checkout: "
            "<that python> -m pip install -e <checkout>"
        )
    if missing == "agent":
        raise ModuleNotFoundError(
            "the Mnemosyne memory provider runs inside Hermes Agent, which is not installed "
            'here — from the birkin-mnemosyne checkout: pip install -e ".[hermes]"',
            name=exc.name,
        ) from exc
    raise

MnemosyneMemoryProvider = _provider.MnemosyneMemoryProvider

__all__ = ["MnemosyneMemoryProvider", "register"]


def _provider_name() -> str:
    """What ``memory.provider`` selects: the plugin folder's name, or inside the package
    itself (loaded through the entry point) the default name."""
    here = Path(__file__).resolve().parent
    if here == Path(_provider.__file__).resolve().parent:
        return _provider.DEFAULT_NAME
    return here.name


def register(ctx) -> None:
    """Hermes's plugin hook: hand it one provider."""
    ctx.register_memory_provider(MnemosyneMemoryProvider(name=_provider_name()))
