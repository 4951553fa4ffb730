"""Put the Hermes Agent memory provider in place: ``$HERMES_HOME/plugins/<name>/``.

Hermes Agent loads one external memory provider from a folder
``$HERMES_HOME/plugins/<name>/`` holding ``__init__.py`` (with ``register(ctx)``) and
``plugin.yaml``; ``memory.provider: <name>`` in its ``config.yaml`` selects it. Both
files ship in this package (``birkin_mnemosyne/hermes_plugin/``); the installed
``__init__.py`` imports the provider from the library, so birkin-mnemosyne must be
installed in the Python environment that runs Hermes. Standard library only: Hermes
itself need not be importable here.

What ``install_plugin`` does with the folder it finds:

======================================  ==================================================
the folder                              result (``state``)
======================================  ==================================================
missing                                 both files written: ``installed``
holds exactly these two files' bytes    nothing written: ``unchanged``
an earlier birkin-mnemosyne plugin      both files rewritten: ``updated``
anything else (another plugin, a file)  refused (``WriteRefusedError``); with ``force``
                                        it is moved aside to
                                        ``plugins/.<name>.replaced-<UTC time>`` (Hermes
                                        skips dot folders), then ``replaced``
======================================  ==================================================
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from .atomic import atomic_write_bytes
from .errors import InvalidInputError, WriteRefusedError

__all__ = [
    "BUNDLED_PROVIDERS",
    "DEFAULT_NAME",
    "PLUGIN_FILES",
    "default_hermes_home",
    "hermes_python",
    "install_plugin",
    "plugin_files",
]

DEFAULT_NAME = "mnemosyne"
PLUGIN_SOURCE = Path(__file__).resolve().parent / "hermes_plugin"
PLUGIN_FILES = ("__init__.py", "plugin.yaml")
# Text only a birkin-mnemosyne plugin's __init__.py holds: an earlier install of ours.
MARKER = "birkin_mnemosyne.hermes_plugin"
# Providers bundled with hermes-agent 0.19.0 (plugins/memory/): a bundled provider wins
# over a user plugin of the same name, so installing under one of these would be ignored.
BUNDLED_PROVIDERS = frozenset(
    {
        "builtin",
        "byterover",
        "hindsight",
        "holographic",
        "honcho",
        "mem0",
        "openviking",
        "retaindb",
        "supermemory",
    }
)
# Hermes skips plugin folders starting with "_" or "."; keep names plain.
_NAME_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}")
_YAML_NAME_RE = re.compile(r"^name: .*$", re.MULTILINE)


def default_hermes_home() -> Path:
    """``$HERMES_HOME``, else Hermes's platform default (``~/.hermes``;
    ``%LOCALAPPDATA%\\hermes`` on Windows), as ``hermes_constants.get_hermes_home``."""
    raw = os.environ.get("HERMES_HOME", "").strip()
    if raw:
        return Path(os.path.expanduser(raw))
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA", "").strip()
        return (Path(local) if local else Path.home() / "AppData" / "Local") / "hermes"
    return Path.home() / ".hermes"


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise InvalidInputError(
            f"plugin name must be 1-64 lowercase letters, digits, '-' or '_', starting with "
            f"a letter or digit, got {name!r}"
        )
    if name in BUNDLED_PROVIDERS:
        raise InvalidInputError(
            f"{name!r} is a memory provider bundled with Hermes, which would win over this "
            f"plugin — choose another name (the default is {DEFAULT_NAME!r}); taken: "
            f"{', '.join(sorted(BUNDLED_PROVIDERS))}"
        )
    return name


def plugin_files(name: str = DEFAULT_NAME) -> dict[str, bytes]:
    """The plugin folder's files as installed under ``name``: file name -> bytes."""
    name = _check_name(name)
    files = {}
    for file_name in PLUGIN_FILES:
        data = (PLUGIN_SOURCE / file_name).read_bytes()
        if file_name == "plugin.yaml":
            text = _YAML_NAME_RE.sub(f"name: {name}", data.decode("utf-8"), count=1)
            data = text.encode("utf-8")
        files[file_name] = data
    return files


def hermes_python(which: Callable[[str], str | None] = shutil.which) -> str | None:
    """The Python interpreter named by the ``#!`` line of the ``hermes`` command on PATH,
    or None (no such command, or a launcher such as ``/usr/bin/env`` that hides it)."""
    command = which("hermes")
    if not command:
        return None
    try:
        with open(command, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words or "python" not in Path(words[0]).name:
        return None
    return words[0]


def _python_warning(which: Callable[[str], str | None]) -> str | None:
    """A warning when the Python that runs Hermes cannot import this library."""
    python = hermes_python(which)
    if python is None:
        return None
    try:
        probe = subprocess.run(
            [python, "-c", "import birkin_mnemosyne.hermes_install"],
            capture_output=True,
            timeout=60,
            check=False,
        )
        ok = probe.returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if ok:
        return None
    return (
        f"the `hermes` command runs {python}, which cannot import birkin_mnemosyne: install "
        f"it there too ({python} -m pip install -e <this checkout>), or Hermes cannot load "
        "the provider"
    )


def _state_of(target: Path, files: dict[str, bytes]) -> str:
    """``missing``, ``same``, ``ours`` (an earlier install) or ``foreign``."""
    if not os.path.lexists(target):
        return "missing"
    if target.is_symlink() or not target.is_dir():
        return "foreign"
    try:
        current = {name: (target / name).read_bytes() for name in files}
    except OSError:
        current = {}
    if current == files:
        return "same"
    try:
        init = (target / "__init__.py").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "foreign"
    return "ours" if MARKER in init else "foreign"


def _aside(plugins: Path, name: str, now: dt.datetime) -> Path:
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    backup = plugins / f".{name}.replaced-{stamp}"
    number = 1
    while os.path.lexists(backup):
        number += 1
        backup = plugins / f".{name}.replaced-{stamp}-{number}"
    return backup


def install_plugin(
    hermes_home: str | os.PathLike | None = None,
    *,
    name: str = DEFAULT_NAME,
    force: bool = False,
    check_python: bool = True,
    which: Callable[[str], str | None] = shutil.which,
    now: dt.datetime | None = None,
) -> dict:
    """Copy the plugin into ``<hermes_home>/plugins/<name>/`` (see the module docstring).

    ``hermes_home`` defaults to ``default_hermes_home()`` and must exist. Returns
    ``{"name", "hermes_home", "plugin_dir", "state", "files", "backup", "warnings",
    "next_steps"}``. ``check_python`` runs the ``hermes`` command's Python once to see
    that it can import this library (a warning, never an error).
    """
    name = _check_name(name)
    home = Path(os.path.expanduser(hermes_home)) if hermes_home else default_hermes_home()
    if not home.is_dir():
        raise InvalidInputError(
            f"no Hermes home folder at {home} — run `hermes` once to create it, or pass "
            "--hermes-home DIR (or set HERMES_HOME) to the one Hermes uses"
        )
    plugins = home / "plugins"
    target = plugins / name
    files = plugin_files(name)
    found = _state_of(target, files)
    backup: Path | None = None
    if found == "foreign":
        if not force:
            raise WriteRefusedError(
                f"{target} already holds something else (another plugin?) — nothing was "
                f"changed; pick another --name, or pass --force to move it aside to "
                f"{plugins}/.{name}.replaced-<time> and install there"
            )
        backup = _aside(plugins, name, now or dt.datetime.now(dt.timezone.utc))
        try:
            os.replace(target, backup)
        except OSError as exc:
            raise WriteRefusedError(
                f"could not move {target} aside: {exc.strerror or exc} — nothing was changed"
            ) from exc
    if found != "same":
        try:
            for file_name, data in files.items():
                atomic_write_bytes(target / file_name, data, root=home)
        except OSError as exc:
            raise WriteRefusedError(
                f"could not write the plugin into {target}: {exc.strerror or exc}"
            ) from exc
    state = {"missing": "installed", "same": "unchanged", "ours": "updated"}.get(found, "replaced")
    warnings = []
    if check_python:
        warning = _python_warning(which)
        if warning:
            warnings.append(warning)
    prefix = "" if home == default_hermes_home() else f"HERMES_HOME={home} "
    return {
        "name": name,
        "hermes_home": str(home),
        "plugin_dir": str(target),
        "state": state,
        "files": list(files),
        "backup": str(backup) if backup else None,
        "warnings": warnings,
        "next_steps": [
            f"{prefix}hermes config set memory.provider {name}",
            f"{prefix}hermes memory status",
        ],
    }
