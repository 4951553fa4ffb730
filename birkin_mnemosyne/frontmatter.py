r"""Frontmatter: the YAML block at the top of a note, read with a small YAML subset.

A note may open with a block of YAML between two marker lines::

    ---
    title: Restore PostgreSQL from last night's dump
    tags: [postgres, "backup, restore"]
    created: 2026-01-14
    ---
    # The body starts here

The opening line must be the first line of the file and exactly ``---`` (trailing
spaces allowed; a UTF-8 byte-order mark may come before it). The block closes at the
next line that is ``---`` or ``...``. Lines may end in ``\n`` or ``\r\n``.

Reading never raises. A block that is unclosed or is not valid in the YAML subset is
treated as no frontmatter at all (``present=False``, ``data={}``, the body is the whole
text) and reported as one ``Diagnostic(code="invalid_frontmatter")`` naming the
problem and its 1-based line in the file.

The YAML inside the block is read and written by ``yaml_subset`` (its docstring lists
the subset and the decisions where it differs from full YAML).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .diagnostics import Diagnostic
from .errors import InvalidInputError

# Package-internal pieces of the YAML subset that block detection and key editing
# build on (line classification, parsing a block's lines, rendering one entry).
from .yaml_subset import (
    _BOM,
    _indent_of,
    _is_ignorable,
    _is_item,
    _parse_lines,
    _render_entry,
    _render_key,
    _render_mapping,
    _split_key,
    _YamlError,
    parse_yaml_subset,
)

__all__ = [
    "Frontmatter",
    "parse_frontmatter",
    "parse_yaml_subset",
    "render_frontmatter",
    "set_frontmatter_key",
]


@dataclass(frozen=True)
class Frontmatter:
    """The result of ``parse_frontmatter``.

    ``text[body_offset:] == body`` always holds for the ``text`` that was parsed.
    """

    data: dict
    body: str
    body_offset: int
    present: bool
    warnings: tuple[Diagnostic, ...] = ()


# ----------------------------------------------------------------------- frontmatter


@dataclass(frozen=True)
class _Block:
    """Where a frontmatter block sits in a text: (offset, raw line) pairs and the closer."""

    bom: int
    opening_end: int
    newline: str
    lines: list[tuple[int, str]]
    closing: tuple[int, int] | None  # (start, end) offsets of the closing line, if any


_CLOSING_LINE_RE = re.compile(r"^(?:---|\.\.\.)[ \t\r]*$", re.MULTILINE)


def _find_block(text: str) -> _Block | None:
    """Locate the lines of a frontmatter block, or None when line 1 is not ``---``."""
    bom = 1 if text.startswith(_BOM) else 0
    first_end = text.find("\n", bom)
    first = text[bom:] if first_end == -1 else text[bom:first_end]
    if first.rstrip(" \t\r") != "---":
        return None
    if first_end == -1:
        return _Block(bom, len(text), "\n", [], None)
    newline = "\r\n" if first.endswith("\r") else "\n"
    closing = _CLOSING_LINE_RE.search(text, first_end + 1)
    if closing is None:
        return _Block(bom, first_end + 1, newline, [], None)
    lines: list[tuple[int, str]] = []
    pos = first_end + 1
    while pos < closing.start():
        line_end = text.index("\n", pos) + 1
        lines.append((pos, text[pos:line_end]))
        pos = line_end
    closing_end = min(closing.end() + 1, len(text))
    return _Block(bom, first_end + 1, newline, lines, (closing.start(), closing_end))


def _line_content(raw: str) -> str:
    if raw.endswith("\n"):
        raw = raw[:-1]
    return raw[:-1] if raw.endswith("\r") else raw


def parse_frontmatter(text: str) -> Frontmatter:
    """Split a note into its frontmatter mapping and its body. Never raises.

    Without a valid block, ``data`` is ``{}``, ``present`` is False and ``body`` is the
    whole text (minus a byte-order mark); an unclosed or invalid block adds one
    ``invalid_frontmatter`` diagnostic. Warnings such as ``duplicate_key`` keep the block.
    """
    block = _find_block(text)
    bom = 1 if text.startswith(_BOM) else 0
    if block is None:
        return Frontmatter(data={}, body=text[bom:], body_offset=bom, present=False)
    if block.closing is None:
        problem = Diagnostic(
            code="invalid_frontmatter",
            message=(
                "the frontmatter opened by '---' on line 1 is never closed; add a '---' "
                "line after the last key (the block is ignored)"
            ),
            line=1,
        )
        return Frontmatter({}, text[bom:], bom, False, (problem,))
    lines = [_line_content(raw) for _, raw in block.lines]
    try:
        data, warnings = _parse_lines(lines, 2)
    except _YamlError as exc:
        problem = Diagnostic(
            code="invalid_frontmatter",
            message=f"invalid frontmatter: {exc.message} (the block is ignored)",
            line=exc.line,
        )
        return Frontmatter({}, text[bom:], bom, False, (problem,))
    body_offset = block.closing[1]
    return Frontmatter(data, text[body_offset:], body_offset, True, tuple(warnings))


def render_frontmatter(data: dict) -> str:
    """Write ``data`` as a frontmatter block ``"---\\n...\\n---\\n"``.

    Accepts str keys and values of type str, int, float, bool, None, ``datetime.date``,
    list/tuple and dict (nested to any depth up to 64). ``parse_frontmatter`` reads the
    result back equal to ``data`` -- except that tuples come back as lists and
    ``datetime.datetime`` values come back as their ISO string. Raises
    ``InvalidInputError`` for anything else.
    """
    if not isinstance(data, dict):
        raise InvalidInputError(f"frontmatter must be a dict, got {type(data).__name__}")
    lines: list[str] = []
    _render_mapping(data, 0, lines, 0)
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n"


def _entry_spans(block: _Block, key: str) -> list[tuple[int, int]]:
    """Offsets ``(start, end)`` of every top-level entry of ``key``, line breaks included.

    An entry is its key line plus the lines that belong to its value: deeper-indented
    lines, and ``- `` items at the key's own indent after an empty value. Blank and
    comment lines at the key's indent belong only when more of the value follows.
    """
    contents = [_line_content(raw) for _, raw in block.lines]
    top = next((_indent_of(c) for c in contents if not _is_ignorable(c)), 0)
    spans: list[tuple[int, int]] = []
    for i, content in enumerate(contents):
        if _is_ignorable(content) or _indent_of(content) != top:
            continue
        split = _split_key(content[top:])
        if split is None or split[0] != key:
            continue
        rest = split[1].strip(" \t")
        compact_list = not rest or rest[0] == "#"
        last = i
        for j in range(i + 1, len(contents)):
            line = contents[j]
            if not line.strip(" \t"):
                continue
            indent = _indent_of(line)
            if indent > top or (compact_list and indent == top and _is_item(line[top:])):
                last = j
            elif not _is_ignorable(line):
                break
        start = block.lines[i][0]
        end_offset, end_raw = block.lines[last]
        spans.append((start, end_offset + len(end_raw)))
    return spans


def set_frontmatter_key(text: str, key: str, value: object) -> str:
    """Return ``text`` with frontmatter key ``key`` set to ``value`` (``None`` deletes it).

    Only the key's own line(s) change; every other byte (other keys, comments, order,
    CRLF line breaks, a byte-order mark, the body) is kept. An existing key is rewritten
    in place (the last occurrence, if it is duplicated); a new key goes before the
    closing ``---``; a file without frontmatter gets a new block prepended. Deleting
    removes every occurrence. Raises ``InvalidInputError`` if the existing frontmatter is
    invalid (fix it first) or the value cannot be written.
    """
    if not isinstance(key, str):
        raise InvalidInputError(f"frontmatter keys must be strings, got {type(key).__name__}")
    block = _find_block(text)
    if block is not None and block.closing is not None:
        parsed = parse_frontmatter(text)
        if not parsed.present:
            problem = parsed.warnings[0]
            raise InvalidInputError(
                f"cannot set {key!r}: {problem.message} at line {problem.line}; fix the "
                "frontmatter first"
            )
    elif block is not None:
        raise InvalidInputError(
            f"cannot set {key!r}: the frontmatter opened by '---' on line 1 is never "
            "closed; add the closing '---' line (or remove the opening one) first"
        )

    if block is None:
        if value is None:
            return text
        bom = 1 if text.startswith(_BOM) else 0
        first_break = text.find("\n")
        newline = "\r\n" if first_break > 0 and text[first_break - 1] == "\r" else "\n"
        lines: list[str] = []
        _render_entry(_render_key(key) + ":", value, 0, lines, 0)
        new_block = "---" + newline + "".join(line + newline for line in lines)
        return text[:bom] + new_block + "---" + newline + text[bom:]

    spans = _entry_spans(block, key)
    if value is None:
        for start, end in reversed(spans):
            text = text[:start] + text[end:]
        return text
    contents = [_line_content(raw) for _, raw in block.lines]
    top = next((_indent_of(c) for c in contents if not _is_ignorable(c)), 0)
    lines = []
    _render_entry(" " * top + _render_key(key) + ":", value, top, lines, 0)
    rendered = "".join(line + block.newline for line in lines)
    if spans:
        start, end = spans[-1]
        return text[:start] + rendered + text[end:]
    assert block.closing is not None
    closing_start = block.closing[0]
    return text[:closing_start] + rendered + text[closing_start:]
