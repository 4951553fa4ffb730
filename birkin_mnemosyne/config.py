"""The optional vault configuration file, ``<vault>/.mnemosyne/config.json``.

JSON, so the standard library reads it on every supported Python. Every key is
optional; an unknown key is an error naming the valid ones, so a typo never silently
does nothing. Defaults live here; docs/reference/configuration.md documents them.

=====================  ========  =========  =============================================
key                    type      default    meaning
=====================  ========  =========  =============================================
``format``             int       1          file format version
``redaction``          object    {}         ``disabled``: families to turn off (e.g.
                                            ``["hex"]``); ``secret_hashes``: path (vault-
                                            relative or absolute) of a salted-hash file
``type_rules``         object    {}         path glob -> note type (``"runbooks/**":
                                            "runbook"``); frontmatter ``type`` wins
``ranking``            object    {}         ranking constant overrides (see ranking.py)
``evidence_required``  bool      false      writes must name a ``source``
``max_file_bytes``     int       8 MiB      larger notes are skipped with a warning
``budgets``            object    {}         token/size budgets used by later features
=====================  ========  =========  =============================================
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigError

__all__ = ["CONFIG_NAME", "VaultConfig", "load_config"]

CONFIG_NAME = "config.json"
DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024

_VALID_KEYS = (
    "budgets",
    "evidence_required",
    "format",
    "max_file_bytes",
    "ranking",
    "redaction",
    "repos",
    "type_rules",
)
_VALID_REDACTION_KEYS = ("disabled", "secret_hashes")


@dataclass(frozen=True)
class VaultConfig:
    redaction_disabled: tuple[str, ...] = ()
    secret_hashes: Path | None = None
    type_rules: tuple[tuple[str, str], ...] = ()
    ranking: dict = field(default_factory=dict)
    evidence_required: bool = False
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    budgets: dict = field(default_factory=dict)
    # a team corpus's git repositories (``team``): (name, absolute path), in order
    repos: tuple[tuple[str, Path], ...] = ()
    source: Path | None = None  # the file it came from, None for defaults

    def type_for(self, path: str) -> str | None:
        """The note type ``type_rules`` give a vault path (first matching glob), if any.

        ``dir/**`` also matches files directly in ``dir``.
        """
        for pattern, name in self.type_rules:
            if fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(
                path, pattern.replace("**/", "")
            ):
                return name
        return None


def _expect(condition: bool, path: Path, message: str, valid_choices=None) -> None:
    if not condition:
        raise ConfigError(f"{path}: {message}", valid_choices=valid_choices)


def load_config(vault: str | os.PathLike) -> VaultConfig:
    """Read ``.mnemosyne/config.json``; a missing file gives the defaults."""
    path = Path(vault) / ".mnemosyne" / CONFIG_NAME
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return VaultConfig()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"{path}: cannot read the configuration ({exc}) — fix or remove the file"
        ) from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path}: not valid JSON at line {exc.lineno} column {exc.colno} ({exc.msg}) — "
            "fix the file or remove it to use the defaults"
        ) from None
    _expect(isinstance(data, dict), path, "the configuration must be a JSON object")
    unknown = sorted(set(data) - set(_VALID_KEYS))
    _expect(
        not unknown,
        path,
        f"unknown key(s) {', '.join(unknown)} — valid keys: {', '.join(_VALID_KEYS)}",
        _VALID_KEYS,
    )
    _expect(data.get("format", 1) == 1, path, "unsupported format; this version reads format 1")

    redaction = data.get("redaction", {})
    _expect(isinstance(redaction, dict), path, "'redaction' must be an object")
    unknown = sorted(set(redaction) - set(_VALID_REDACTION_KEYS))
    _expect(
        not unknown,
        path,
        f"unknown redaction key(s) {', '.join(unknown)} — valid: {', '.join(_VALID_REDACTION_KEYS)}",
        _VALID_REDACTION_KEYS,
    )
    disabled = redaction.get("disabled", [])
    _expect(
        isinstance(disabled, list) and all(isinstance(x, str) for x in disabled),
        path,
        "'redaction.disabled' must be a list of family names",
    )
    hashes = redaction.get("secret_hashes")
    _expect(
        hashes is None or isinstance(hashes, str), path, "'redaction.secret_hashes' must be a path"
    )
    hashes_path = None
    if hashes:
        hashes_path = Path(os.path.expanduser(hashes))
        if not hashes_path.is_absolute():
            hashes_path = Path(vault) / hashes_path

    rules = data.get("type_rules", {})
    _expect(
        isinstance(rules, dict) and all(isinstance(v, str) for v in rules.values()),
        path,
        "'type_rules' must map path globs to type names",
    )
    ranking = data.get("ranking", {})
    _expect(isinstance(ranking, dict), path, "'ranking' must be an object")
    evidence = data.get("evidence_required", False)
    _expect(isinstance(evidence, bool), path, "'evidence_required' must be true or false")
    max_bytes = data.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES)
    _expect(
        isinstance(max_bytes, int) and not isinstance(max_bytes, bool) and max_bytes > 0,
        path,
        "'max_file_bytes' must be a positive integer",
    )
    budgets = data.get("budgets", {})
    _expect(isinstance(budgets, dict), path, "'budgets' must be an object")
    repos = _repos(data.get("repos", []), Path(vault), path)
    return VaultConfig(
        redaction_disabled=tuple(disabled),
        secret_hashes=hashes_path,
        type_rules=tuple(rules.items()),
        ranking=dict(ranking),
        evidence_required=evidence,
        max_file_bytes=max_bytes,
        budgets=dict(budgets),
        repos=repos,
        source=path,
    )


_REPO_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


def _repos(value, vault: Path, path: Path) -> tuple[tuple[str, Path], ...]:
    """``"repos": [{"name": "platform", "path": "../platform-notes"}, ...]``: the git
    repositories a team index holds (a relative path is from the vault)."""
    _expect(isinstance(value, list), path, "'repos' must be a list of {name, path} objects")
    out: list[tuple[str, Path]] = []
    for entry in value:
        _expect(
            isinstance(entry, dict)
            and set(entry) == {"name", "path"}
            and isinstance(entry["name"], str)
            and isinstance(entry["path"], str)
            and entry["path"].strip() != "",
            path,
            "each entry of 'repos' must be an object with exactly a 'name' and a 'path'",
        )
        name = entry["name"]
        _expect(
            bool(_REPO_NAME.match(name)) and name not in (".", ".."),
            path,
            f"repository name {name!r} must be letters, digits, '.', '_' or '-' "
            "(it begins every note path of that repository)",
        )
        _expect(name not in {n for n, _ in out}, path, f"repository name {name!r} is given twice")
        folder = Path(os.path.expanduser(entry["path"]))
        if not folder.is_absolute():
            folder = vault / folder
        out.append((name, folder))
    return tuple(out)
