"""The Hermes provider's settings: ``memory.<name>`` in ``$HERMES_HOME/config.yaml``.

``hermes memory setup`` stores what it asks as strings and ``hermes config set`` turns
``3``/``true`` into numbers and booleans: both are accepted. Unknown keys and invalid
values raise ``ConfigError`` naming the valid choices.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from birkin_mnemosyne.errors import ConfigError, MnemosyneError
from birkin_mnemosyne.vault_paths import check_zone

__all__ = [
    "DEFAULT_NAME",
    "FALSE_WORDS",
    "SETTINGS",
    "TRUE_WORDS",
    "default_hermes_home",
    "parse_settings",
    "read_hermes_config",
]

DEFAULT_NAME = "mnemosyne"
# setting -> (default, meaning); read from ``memory.<name>`` in $HERMES_HOME/config.yaml.
SETTINGS: dict[str, tuple[Any, str]] = {
    "vault": (
        "",
        "vault folder ($HERMES_HOME and ~ expanded); empty: $MNEMOSYNE_VAULT, else "
        "$HERMES_HOME/<name>/vault",
    ),
    "index": (
        "",
        "a team index to search, postgresql://user@host/db (empty: $MNEMOSYNE_INDEX, "
        "else the vault's own index); writes are refused while it is set",
    ),
    "prefetch_limit": (3, "notes recalled before each turn (0 turns recall off)"),
    "prefetch_budget": (400, "tokens the recalled notes may use (UTF-8 bytes / 4)"),
    "digest_budget": (300, "tokens of vault digest in the system prompt (0 leaves it out)"),
    # session memory (issue 6)
    "project_key": (
        "",
        "bind a project: recall adds the memory INDEX and its latest handoff (empty: "
        "$MNEMOSYNE_PROJECT_KEY; unset: neither)",
    ),
    "capture_handoffs": (
        False,
        "capture a handoff for the bound project at session end and before compression",
    ),
    "zone": ("hermes", "vault folder for notes mirrored from Hermes's built-in memory"),
    "mirror_builtin": (True, "copy the built-in memory tool's writes into the vault"),
}
# Spellings of yes and no a setting (or a model's tool argument) may use.
TRUE_WORDS = frozenset({"true", "yes", "on", "1"})
FALSE_WORDS = frozenset({"false", "no", "off", "0"})


def default_hermes_home() -> Path:
    """Hermes's own answer (profiles, overrides), else what it falls back to."""
    try:
        from hermes_constants import get_hermes_home
    except ImportError:
        raw = os.environ.get("HERMES_HOME", "").strip()
        return Path(raw) if raw else Path.home() / ".hermes"
    return Path(get_hermes_home())


def read_hermes_config(hermes_home: Path) -> dict:
    """``$HERMES_HOME/config.yaml`` as a dict ({} when it is missing)."""
    path = hermes_home / "config.yaml"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from None
    import yaml  # a dependency of hermes-agent, the only place this module runs

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML: {exc}") from None
    return data if isinstance(data, dict) else {}


def parse_settings(raw: object, *, where: str = "memory.mnemosyne") -> dict:
    """Defaults overlaid with ``raw``; values as `hermes memory setup` stores them (strings)
    are accepted too. Unknown keys and invalid values raise ``ConfigError``."""
    settings = {key: default for key, (default, _) in SETTINGS.items()}
    if raw is None:
        return settings
    if not isinstance(raw, dict):
        raise ConfigError(
            f"{where} must be a mapping of settings, got {type(raw).__name__} — valid "
            f"settings: {', '.join(SETTINGS)}"
        )
    unknown = sorted(str(key) for key in raw if key not in SETTINGS)
    if unknown:
        raise ConfigError(
            f"unknown setting(s) {', '.join(unknown)} in {where} — valid settings: "
            f"{', '.join(SETTINGS)}"
        )
    for key, value in raw.items():
        if value is None or value == "":
            continue
        default = SETTINGS[key][0]
        if isinstance(default, bool):
            settings[key] = _parse_bool(value, f"{where}.{key}")
        elif isinstance(default, int):
            settings[key] = _parse_count(value, f"{where}.{key}")
        elif not isinstance(value, str):
            raise ConfigError(f"{where}.{key} must be text, got {value!r}")
        else:
            settings[key] = value.strip()
    if settings["zone"]:
        try:
            settings["zone"] = check_zone(settings["zone"])
        except MnemosyneError as exc:
            raise ConfigError(f"{where}.zone: {exc}") from None
    return settings


def _parse_bool(value: object, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE_WORDS | FALSE_WORDS:
        return value.strip().lower() in TRUE_WORDS
    raise ConfigError(f"{name} must be true or false, got {value!r}")


def _parse_count(value: object, name: str) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"{name} must be a whole number >= 0, got {value!r}")
    return value
