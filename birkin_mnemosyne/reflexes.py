"""Reflexes: triggers a note declares, matched exactly at the moment of action.

A lesson that names an error, a host or a file should surface the moment an agent hits
that error, touches that host or edits that file, without the agent thinking to search.
A note declares its triggers in a ``## Reflexes`` section::

    ## Reflexes
    - error: no space left on device
    - target: db1.internal
    - file: deploy/*.yaml

or in its frontmatter (a list of the same lines, or a mapping of kind to values)::

    reflexes:
      error: [ENOSPC, no space left on device]
      file: deploy/*.yaml

The index keeps each note's triggers (``NoteDoc.reflexes``, redacted like every other
text it holds); ``matching_reflexes`` finds the ones an event meets. Matching is exact,
never ranked, because a reflex fires without a question being asked:

* ``error``: the trigger occurs in the error text, case and runs of white space aside.
* ``target``: an address-like trigger (a host name with a digit, a dot, a colon or an
  ``@``; an IP address; ``host:port``) occurs in a command as a whole token. A plain word
  ("prod", "backup") is no target: it would fire on every command that says it.
* ``file``: a path or glob pattern matches the file's path relative to the project (a
  pattern without ``/`` matches the file name, as in ``.gitignore``; ``**`` crosses
  folders), or the file's absolute path ends with the path.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterable, Mapping

__all__ = [
    "MAX_REFLEXES",
    "REFLEX_HEADINGS",
    "REFLEX_KINDS",
    "is_address_like",
    "matches_error",
    "matches_file",
    "matches_target",
    "reflexes_of",
]

REFLEX_KINDS = ("error", "target", "file")
# Headings of a reflex section (casefolded).
REFLEX_HEADINGS = frozenset({"reflexes", "reflex"})
# A note declares at most this many triggers; longer values are cut off, shorter ones
# than ``_MIN_CHARS`` ignored (a two-letter error string fires on everything).
MAX_REFLEXES = 50
_MAX_CHARS = 300
_MIN_CHARS = 3

_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?P<kind>[A-Za-z]+)\s*:\s*(?P<value>.+?)\s*$")
_SPACE = re.compile(r"\s+")
_IPV4 = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?$")
_ADDRESS = re.compile(r"^[\w][\w.:@/\-\[\]%]*$")
# What may stand next to a target inside a command without making it another word.
_TOKEN_CHAR = r"[\w.\-]"


def _clean(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "`'\"":
        value = value[1:-1].strip()
    return value[:_MAX_CHARS]


def _from_lines(lines: Iterable[str]) -> list[tuple[str, str]]:
    found = []
    for line in lines:
        match = _LINE.match(line)
        if not match:
            continue
        kind = match["kind"].casefold()
        if kind in REFLEX_KINDS:
            found.append((kind, _clean(match["value"])))
    return found


def _from_frontmatter(value) -> list[tuple[str, str]]:
    if isinstance(value, str):
        return _from_lines([value])
    if isinstance(value, list):
        return _from_lines(item for item in value if isinstance(item, str))
    if isinstance(value, Mapping):
        found = []
        for kind, values in value.items():
            kind = str(kind).strip().casefold()
            if kind not in REFLEX_KINDS:
                continue
            for item in values if isinstance(values, list) else [values]:
                if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                    found.append((kind, _clean(str(item))))
        return found
    return []


def reflexes_of(frontmatter_value, sections: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """A note's triggers as ``(kind, value)`` pairs, in the order declared, without
    duplicates: from its frontmatter ``reflexes`` value, then from the lines of every
    section headed ``Reflexes`` (``sections`` holds ``(heading, text)`` pairs)."""
    pairs = _from_frontmatter(frontmatter_value)
    for heading, text in sections:
        if heading.casefold() in REFLEX_HEADINGS:
            pairs.extend(_from_lines(text.splitlines()))
    out, seen = [], set()
    for kind, value in pairs:
        if len(value) < _MIN_CHARS or (kind, value) in seen:
            continue
        seen.add((kind, value))
        out.append((kind, value))
        if len(out) == MAX_REFLEXES:
            break
    return out


def _fold(text: str) -> str:
    return _SPACE.sub(" ", text.casefold()).strip()


def matches_error(trigger: str, error_text: str) -> bool:
    """Whether the error text holds the trigger (case and runs of white space aside)."""
    needle = _fold(trigger)
    return bool(needle) and needle in _fold(error_text)


def is_address_like(trigger: str) -> bool:
    """A host name, address or ``host:port``: no spaces, and a digit, dot, colon or ``@``."""
    trigger = trigger.strip()
    if not trigger or not _ADDRESS.match(trigger):
        return False
    return (
        bool(_IPV4.match(trigger))
        or any(c in trigger for c in ".:@")
        or any(c.isdigit() for c in trigger)
    )


def matches_target(trigger: str, command: str) -> bool:
    """Whether an address-like trigger occurs in ``command`` as a whole token
    ("db1.internal" in ``ssh db1.internal``, ``psql -h db1.internal``; not in
    ``xdb1.internal`` nor ``db1.internal.old``)."""
    if not is_address_like(trigger):
        return False
    pattern = rf"(?<!{_TOKEN_CHAR}){re.escape(trigger)}(?!{_TOKEN_CHAR}*\w)"
    return re.search(pattern, command, re.IGNORECASE) is not None


def _glob(pattern: str, path: str) -> bool:
    """``fnmatch`` where ``*`` stays within a folder and ``**/`` spans any number."""
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex += r"(?:.*/)?"
            i += 3
        elif pattern.startswith("**", i):
            regex += r".*"
            i += 2
        elif pattern[i] == "*":
            regex += r"[^/]*"
            i += 1
        elif pattern[i] == "?":
            regex += r"[^/]"
            i += 1
        else:
            regex += re.escape(pattern[i])
            i += 1
    return re.fullmatch(regex, path) is not None


def matches_file(trigger: str, path: str, project_dir: str | None = None) -> bool:
    """Whether a file trigger (a path or glob) names ``path`` (absolute or relative)."""
    trigger = trigger.strip().replace("\\", "/").removeprefix("./")
    path = path.replace("\\", "/")
    if not trigger:
        return False
    relative = path
    if project_dir and posixpath.isabs(path):
        root = project_dir.replace("\\", "/").rstrip("/") + "/"
        if path.startswith(root):
            relative = path[len(root) :]
    has_magic = any(c in trigger for c in "*?[")
    if "/" not in trigger.rstrip("/"):
        name = posixpath.basename(relative)
        return fnmatch.fnmatchcase(name, trigger) if has_magic else name == trigger
    if has_magic:
        return _glob(trigger.lstrip("/"), relative.lstrip("/"))
    return relative == trigger or path.endswith("/" + trigger.lstrip("/"))
