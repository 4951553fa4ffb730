r"""A small YAML subset: the language of frontmatter (and of eval case files).

Parsing never executes anything and never raises on bad input at the public entry
point (``parse_yaml_subset`` returns diagnostics); the writer emits the same subset
back, quoting strings only when they would otherwise read as something else.


=================  ====================================  =================================
Construct          Example                               Read as
=================  ====================================  =================================
plain scalar       ``title: Weekly sync``                ``str``
integer            ``count: -12``                        ``int`` (decimal only)
float              ``0.5``, ``1e3``, ``.inf``, ``.nan``  ``float``
boolean            ``true``, ``False``, ``TRUE``         ``bool`` (``yes``/``no`` stay text)
null               ``null``, ``~``, an empty value       ``None``
date               ``created: 2026-03-02``               ``datetime.date``
date-time          ``at: 2026-03-02T10:00:00Z``          ``str``, exactly as written
single-quoted      ``'it''s'``                           ``str`` (``''`` is one quote)
double-quoted      ``"tab\there \u00e9"``                ``str`` with YAML escapes
flow collection    ``[a, "b, c", 3]``, ``{k: v}``        ``list`` / ``dict`` (may nest)
block list         ``tags:`` then ``- a`` lines          ``list``
nested mapping     ``db:`` then indented ``k: v``        ``dict`` (nesting up to 64 deep)
list of mappings   ``- q: text`` then ``  expect: ...``  ``list`` of ``dict``
block scalar       ``note: |`` or ``note: >-``           ``str`` (literal or folded)
comment            ``# ...`` or ``value  # ...``         ignored
=================  ====================================  =================================

Decisions where YAML leaves room or where this subset differs from full YAML:

* Keys are always strings: ``1: x`` gives ``{"1": "x"}``. A duplicate key is a
  ``duplicate_key`` warning and the last value wins.
* Date-times are kept as the original string: time zones and precision survive, and
  callers never meet a mix of naive and aware ``datetime`` objects. Bare dates become
  ``datetime.date``.
* Indenting with a tab is an error (as in YAML); tabs inside values are fine.
* Anchors, aliases and tags (``&a``, ``*a``, ``!tag``) are not interpreted: such a plain
  value is read as its text. A plain value containing ``": "`` is kept as text, as many
  Markdown tools do, rather than rejected.
* Multi-line plain, quoted and flow values are folded as in YAML (one line break becomes
  a space, a blank line becomes ``\n``).

``render_frontmatter`` writes the same subset back (strings are quoted only when they
would otherwise read as something else), and ``set_frontmatter_key`` edits one key while
keeping every other byte of the file.
"""

from __future__ import annotations

import datetime as dt
import math
import re

from .diagnostics import Diagnostic
from .errors import InvalidInputError

__all__ = ["parse_yaml_subset"]

_BOM = "\ufeff"
# Deeper nesting is refused with a diagnostic instead of recursing without bound.
_MAX_DEPTH = 64

_NULLS = frozenset({"null", "Null", "NULL", "~"})
_TRUES = frozenset({"true", "True", "TRUE"})
_FALSES = frozenset({"false", "False", "FALSE"})
_POSITIVE_INFINITIES = frozenset({".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})
_NEGATIVE_INFINITIES = frozenset({"-.inf", "-.Inf", "-.INF"})
_NANS = frozenset({".nan", ".NaN", ".NAN"})
# YAML 1.2 core schema forms (https://yaml.org/spec/1.2.2/#1032-tag-resolution).
_INT_RE = re.compile(r"[-+]?[0-9]+")
_FLOAT_RE = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_DATE_RE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
# Words and numbers that YAML 1.1 readers (PyYAML, many editors) would not read as text;
# the writer quotes them so other tools agree with us.
_YAML11_WORDS = frozenset({"yes", "no", "on", "off"})
_NUMBER_LIKE_RE = re.compile(
    r"[-+]?(?:0[xXoObB][0-9a-fA-F_]+|[0-9][0-9_:]*(?:\.[0-9_]*)?(?:[eE][-+]?[0-9]+)?"
    r"|\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?)"
)
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")

_KEY_COLON_RE = re.compile(r":(?=[ \t]|$)")
_COMMENT_RE = re.compile(r"[ \t]#")
_BLOCK_HEADER_RE = re.compile(r"([|>])(?:([1-9])([+-]?)|([+-])([1-9]?))?[ \t]*(?:#.*)?")
_SINGLE_RUN_RE = re.compile(r"[^'\n]+")
_DOUBLE_RUN_RE = re.compile(r'[^"\\\n]+')
_HEX_RE = re.compile(r"[0-9a-fA-F]+")

_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_WIDTHS = {"x": 2, "u": 4, "U": 8}
_WRITE_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


class _YamlError(Exception):
    """A problem that makes the whole document invalid, at a 1-based line."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


class _ScanError(Exception):
    """A problem inside one quoted scalar or flow collection, at an offset of its text."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


# --------------------------------------------------------------------------- scalars


def _resolve_plain(text: str) -> object:
    """Type an unquoted scalar: null, bool, int, float, date, or the text itself."""
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    first = text[:1]
    if first.isdigit() or first in "+-.":
        if _INT_RE.fullmatch(text):
            try:
                return int(text)
            except ValueError:  # longer than sys.get_int_max_str_digits()
                return text
        if _FLOAT_RE.fullmatch(text):
            return float(text)
        if text in _POSITIVE_INFINITIES:
            return math.inf
        if text in _NEGATIVE_INFINITIES:
            return -math.inf
        if text in _NANS:
            return math.nan
        match = _DATE_RE.fullmatch(text)
        if match:
            try:
                return dt.date(*(int(part) for part in match.groups()))
            except ValueError:  # 2026-13-45 stays text
                return text
    return text


def _fold_break(s: str, i: int) -> tuple[int, int]:
    """Skip the line break at ``s[i]`` and any blank lines after it.

    Returns the offset of the next line's first non-blank character and the number of
    blank lines skipped (YAML line folding: 0 means "a space", n means n newlines).
    """
    n = len(s)
    i += 1
    blank_lines = 0
    while True:
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == "\n":
            blank_lines += 1
            i += 1
            continue
        return i, blank_lines


def _scan_quoted(s: str, start: int) -> tuple[str, int]:
    """Read the quoted scalar opening at ``s[start]``; return it and the offset after it."""
    quote = s[start]
    run_re = _SINGLE_RUN_RE if quote == "'" else _DOUBLE_RUN_RE
    pieces: list[str] = []
    last_is_run = False  # may the last piece lose trailing blanks at a line break?
    i = start + 1
    n = len(s)
    while i < n:
        match = run_re.match(s, i)
        if match:
            pieces.append(match.group())
            last_is_run = True
            i = match.end()
            if i >= n:
                break
        char = s[i]
        if char == quote:
            if quote == "'" and s.startswith("''", i):
                pieces.append("'")
                last_is_run = False
                i += 2
                continue
            return "".join(pieces), i + 1
        if char == "\n":
            if last_is_run:
                pieces[-1] = pieces[-1].rstrip(" \t")
            i, blank_lines = _fold_break(s, i)
            pieces.append("\n" * blank_lines if blank_lines else " ")
            last_is_run = False
            continue
        # A backslash in a double-quoted scalar.
        code = s[i + 1 : i + 2]
        if code == "\n":  # an escaped line break joins the lines without a space
            i, blank_lines = _fold_break(s, i + 1)
            pieces.append("\n" * blank_lines)
        elif code in _ESCAPES:
            pieces.append(_ESCAPES[code])
            i += 2
        elif code in _HEX_WIDTHS:
            width = _HEX_WIDTHS[code]
            digits = s[i + 2 : i + 2 + width]
            if len(digits) != width or not _HEX_RE.fullmatch(digits):
                raise _ScanError(f"'\\{code}' needs {width} hex digits", i)
            codepoint = int(digits, 16)
            if codepoint > 0x10FFFF:
                raise _ScanError(f"'\\{code}{digits}' is not a Unicode code point", i)
            pieces.append(chr(codepoint))
            i += 2 + width
        elif not code:
            break
        else:
            raise _ScanError(
                f"unknown escape '\\{code}' in a double-quoted string "
                "(write '\\\\' for a backslash, or use single quotes)",
                i,
            )
        last_is_run = False
    kind = "single" if quote == "'" else "double"
    raise _ScanError(f"unterminated {kind}-quoted string: add the closing {quote}", start)


def _fold_plain(raw: str) -> str:
    """Strip a plain scalar and fold its line breaks the YAML way."""
    if "\n" not in raw:
        return raw.strip(" \t")
    pieces: list[str] = []
    blank_lines = 0
    for part in raw.split("\n"):
        part = part.strip(" \t")
        if not part:
            blank_lines += 1
            continue
        if pieces:
            pieces.append("\n" * blank_lines if blank_lines else " ")
        pieces.append(part)
        blank_lines = 0
    return "".join(pieces)


def _strip_comment(text: str) -> tuple[str, bool]:
    """Drop a trailing ``  # comment`` from a plain scalar; say whether there was one."""
    match = _COMMENT_RE.search(text)
    if match:
        return text[: match.start()].rstrip(" \t"), True
    return text.rstrip(" \t"), False


# ------------------------------------------------------------------ flow collections


def _skip_flow_space(s: str, i: int) -> int:
    """Skip blanks, line breaks and ``#`` comments."""
    n = len(s)
    while i < n:
        char = s[i]
        if char in " \t\n":
            i += 1
        elif char == "#" and (i == 0 or s[i - 1] in " \t\n"):
            end = s.find("\n", i)
            i = n if end == -1 else end
        else:
            break
    return i


def _scan_flow_plain(s: str, i: int, *, key: bool) -> tuple[str, int]:
    """Read a plain scalar inside ``[...]`` or ``{...}``; keys also stop at ``': '``."""
    n = len(s)
    j = i
    while j < n:
        char = s[j]
        if char in ",[]{}":
            break
        if char == "#" and j > i and s[j - 1] in " \t\n":
            break
        if key and char == ":" and (j + 1 >= n or s[j + 1] in " \t\n,[]{}"):
            break
        j += 1
    text = _fold_plain(s[i:j])
    if not text:
        raise _ScanError("empty entry in a flow collection (two commas in a row?)", i)
    return text, j


def _parse_flow_node(s: str, i: int, depth: int) -> tuple[object, int]:
    char = s[i]
    if char in "[{":
        return _parse_flow(s, i, depth + 1)
    if char in "\"'":
        return _scan_quoted(s, i)
    text, end = _scan_flow_plain(s, i, key=False)
    return _resolve_plain(text), end


def _parse_flow(s: str, start: int, depth: int) -> tuple[object, int]:
    """Read the flow list or mapping opening at ``s[start]``."""
    opening = s[start]
    closing = "]" if opening == "[" else "}"
    kind = "list" if opening == "[" else "mapping"
    if depth > _MAX_DEPTH:
        raise _ScanError(f"flow collections are nested more than {_MAX_DEPTH} levels", start)
    items: list = []
    mapping: dict = {}
    n = len(s)
    i = start + 1
    while True:
        i = _skip_flow_space(s, i)
        if i >= n:
            break
        if s[i] == closing:
            return (items if opening == "[" else mapping), i + 1
        if opening == "[":
            value, i = _parse_flow_node(s, i, depth)
            items.append(value)
        else:
            if s[i] in "\"'":
                key, i = _scan_quoted(s, i)
            else:
                key, i = _scan_flow_plain(s, i, key=True)
            i = _skip_flow_space(s, i)
            value = None
            if i < n and s[i] == ":":
                i = _skip_flow_space(s, i + 1)
                if i < n and s[i] not in ",}":
                    value, i = _parse_flow_node(s, i, depth)
            mapping[key] = value
        i = _skip_flow_space(s, i)
        if i < n and s[i] == ",":
            i += 1
        elif i < n and s[i] == closing:
            return (items if opening == "[" else mapping), i + 1
        elif i < n:
            raise _ScanError(f"expected ',' or '{closing}' in a flow {kind}, found {s[i]!r}", i)
    raise _ScanError(f"unclosed flow {kind}: add the closing '{closing}'", start)


# -------------------------------------------------------------------- block structure


def _is_item(content: str) -> bool:
    """Is this (de-indented) line a block list item ``- ...``?"""
    return content == "-" or content.startswith(("- ", "-\t"))


def _is_ignorable(raw: str) -> bool:
    stripped = raw.strip(" \t")
    return not stripped or stripped[0] == "#"


def _indent_of(raw: str) -> int:
    return len(raw) - len(raw.lstrip(" "))


def _split_key(content: str) -> tuple[str, str] | None:
    """Split ``key: rest`` (plain or quoted key); None when the line is not a key line."""
    if not content:
        return None
    first = content[0]
    if first in "\"'":
        try:
            key, end = _scan_quoted(content, 0)
        except _ScanError:
            return None
        rest = content[end:].lstrip(" \t")
        if rest[:1] == ":" and (len(rest) == 1 or rest[1] in " \t"):
            return key, rest[1:]
        return None
    if first in "[{#" or _is_item(content):
        return None
    match = _KEY_COLON_RE.search(content)
    if match is None:
        return None
    key = content[: match.start()].rstrip(" \t")
    if not key or _COMMENT_RE.search(key):
        return None
    return key, content[match.end() :]


def _excerpt(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


class _BlockParser:
    """Recursive descent over indented lines (``lines`` hold no line-break characters).

    ``pos`` is the index of the next unread line. A list item that opens a mapping or a
    nested list on its own line (``- key: v``, ``- - x``) is rewritten in place as the
    same content indented to its column, so the ordinary rules read it.
    """

    def __init__(self, lines: list[str], first_line: int) -> None:
        self.lines = lines
        self.first_line = first_line
        self.pos = 0
        self.warnings: list[Diagnostic] = []

    def fail(self, message: str, index: int) -> _YamlError:
        return _YamlError(message, self.first_line + index)

    def peek(self) -> int | None:
        """Skip blank and comment lines; return the next line's indent, None at the end."""
        lines = self.lines
        while self.pos < len(lines) and _is_ignorable(lines[self.pos]):
            self.pos += 1
        if self.pos >= len(lines):
            return None
        raw = lines[self.pos]
        indent = _indent_of(raw)
        if raw[indent] == "\t":
            raise self.fail("a tab is used for indentation; indent with spaces", self.pos)
        return indent

    def document(self) -> dict:
        indent = self.peek()
        if indent is None:
            return {}
        if _is_item(self.lines[self.pos][indent:]):
            raise self.fail("the top level is a '- ' list; it must be 'key: value' lines", self.pos)
        data = self.mapping(indent, 0)
        if self.peek() is not None:
            raise self.fail(
                "this line is indented less than the first key; align top-level keys",
                self.pos,
            )
        return data

    def mapping(self, indent: int, depth: int) -> dict:
        if depth > _MAX_DEPTH:
            raise self.fail(f"the data is nested more than {_MAX_DEPTH} levels", self.pos)
        result: dict = {}
        key_lines: dict[str, int] = {}
        while True:
            line_indent = self.peek()
            if line_indent is None or line_indent < indent:
                return result
            index = self.pos
            content = self.lines[index][line_indent:]
            if line_indent > indent:
                raise self.fail(
                    "unexpected indentation: this line is indented deeper than the keys above it",
                    index,
                )
            if _is_item(content):
                raise self.fail(
                    "a '- ' list item where a 'key: value' line was expected; put list "
                    "items under a key that ends in ':'",
                    index,
                )
            key, rest = self.key(content, index)
            self.pos += 1
            value = self.value(rest, indent, index, depth, compact_list=True)
            if key in key_lines:
                self.warnings.append(
                    Diagnostic(
                        code="duplicate_key",
                        message=(
                            f"duplicate key {key!r} (first on line "
                            f"{self.first_line + key_lines[key]}); the last value wins"
                        ),
                        line=self.first_line + index,
                    )
                )
            key_lines[key] = index
            result[key] = value

    def key(self, content: str, index: int) -> tuple[str, str]:
        split = _split_key(content)
        if split is not None:
            return split
        if ":" in content and content[0] not in "\"'[{":
            problem = f"expected 'key: value', found {_excerpt(content)}; put a space after ':'"
        else:
            problem = f"expected 'key: value', found {_excerpt(content)}"
        raise self.fail(problem, index)

    def value(self, rest: str, parent: int, index: int, depth: int, *, compact_list: bool):
        """Read the value that starts after ``key:`` or ``- `` on line ``index``.

        ``parent`` is the indent of that key or dash: continuation lines must be deeper.
        """
        rest = rest.strip(" \t")
        if not rest or rest[0] == "#":
            indent = self.peek()
            if indent is None:
                return None
            if indent > parent:
                return self.block(parent, depth + 1)
            if compact_list and indent == parent and _is_item(self.lines[self.pos][indent:]):
                return self.sequence(indent, depth + 1)  # "key:" then "- a" at the same indent
            return None
        first = rest[0]
        if first in "|>":
            return self.block_scalar(rest, parent, index)
        if first in "[{\"'":
            return self.flow_or_quoted(rest, parent, index, depth)
        return self.plain(rest, parent, index)

    def block(self, parent: int, depth: int):
        """Read the nested node starting on the next line (indented deeper than parent)."""
        indent = self.peek()
        assert indent is not None
        index = self.pos
        content = self.lines[index][indent:]
        if _is_item(content):
            return self.sequence(indent, depth)
        if _split_key(content) is not None:
            return self.mapping(indent, depth)
        self.pos += 1  # a lone scalar on its own line, e.g. "key:" then "  some text"
        return self.value(content, parent, index, depth, compact_list=False)

    def sequence(self, indent: int, depth: int) -> list:
        if depth > _MAX_DEPTH:
            raise self.fail(f"the data is nested more than {_MAX_DEPTH} levels", self.pos)
        items: list = []
        while True:
            line_indent = self.peek()
            if line_indent is None or line_indent < indent:
                return items
            index = self.pos
            content = self.lines[index][line_indent:]
            if line_indent > indent:
                raise self.fail(
                    "unexpected indentation: this line is indented deeper than the list "
                    "items above it",
                    index,
                )
            if not _is_item(content):
                return items
            after = content[1:]
            body = after.lstrip(" \t")
            if not body or body[0] == "#":
                self.pos += 1
                following = self.peek()
                nested = following is not None and following > indent
                items.append(self.block(indent, depth + 1) if nested else None)
                continue
            if _is_item(body) or _split_key(body) is not None:
                column = line_indent + 1 + len(after) - len(body)
                self.lines[index] = " " * column + body
                items.append(self.block(indent, depth + 1))
                continue
            self.pos += 1
            items.append(self.value(body, indent, index, depth, compact_list=False))

    def plain(self, rest: str, parent: int, index: int):
        text, had_comment = _strip_comment(rest)
        pieces = [text]
        lines = self.lines
        j = self.pos
        blank_lines = 0
        while not had_comment and j < len(lines):
            stripped = lines[j].strip(" \t")
            if not stripped:
                blank_lines += 1
                j += 1
                continue
            if _indent_of(lines[j]) <= parent or stripped[0] == "#":
                break
            if _KEY_COLON_RE.search(stripped):  # YAML forbids ': ' in a continuation line
                raise self.fail(
                    "a 'key: value' line is indented under a key that already has a value; "
                    "to nest keys leave the parent's value empty ('key:')",
                    j,
                )
            part, had_comment = _strip_comment(stripped)
            pieces.append("\n" * blank_lines if blank_lines else " ")
            pieces.append(part)
            blank_lines = 0
            j += 1
            self.pos = j
        return _resolve_plain("".join(pieces))

    def flow_or_quoted(self, rest: str, parent: int, index: int, depth: int):
        # Every following line indented deeper than the parent can only continue this
        # value (or be an error), so scan them together as one string.
        lines = self.lines
        last = index
        j = index + 1
        while j < len(lines):
            raw = lines[j]
            if raw.strip(" \t"):
                if _indent_of(raw) <= parent:
                    break
                last = j
            j += 1
        text = rest if last == index else "\n".join([rest, *lines[index + 1 : last + 1]])
        try:
            if rest[0] in "[{":
                value, end = _parse_flow(text, 0, depth + 1)
            else:
                value, end = _scan_quoted(text, 0)
            end = _skip_flow_space(text, end)
            if end < len(text):
                raise _ScanError(f"unexpected text after the value: {_excerpt(text[end:])}", end)
        except _ScanError as exc:
            raise self.fail(exc.message, index + text.count("\n", 0, exc.offset)) from None
        self.pos = last + 1
        return value

    def block_scalar(self, header: str, parent: int, index: int) -> str:
        match = _BLOCK_HEADER_RE.fullmatch(header)
        if match is None:
            raise self.fail(
                f"invalid block scalar header {_excerpt(header)}; use '|' or '>', optionally "
                "followed by '-' or '+' and an indentation digit",
                index,
            )
        style, digit_a, chomp_a, chomp_b, digit_b = match.groups()
        digit = digit_a or digit_b
        chomp = chomp_a or chomp_b or ""
        lines = self.lines
        j = index + 1
        content_indent: int | None = None
        if digit:
            content_indent = parent + int(digit)
        else:
            k = j
            while k < len(lines) and not lines[k].strip(" "):
                k += 1
            if k < len(lines) and _indent_of(lines[k]) > parent:
                content_indent = _indent_of(lines[k])
        texts: list[str] = []
        while j < len(lines):
            raw = lines[j]
            if not raw.strip(" "):
                texts.append(raw[content_indent or 0 :])
            elif content_indent is not None and _indent_of(raw) >= content_indent:
                texts.append(raw[content_indent:])
            else:
                break
            j += 1
        self.pos = j
        return _fold_block_scalar(texts, folded=style == ">", chomp=chomp)


def _fold_block_scalar(texts: list[str], *, folded: bool, chomp: str) -> str:
    end = len(texts)
    while end and not texts[end - 1].strip(" "):
        end -= 1
    trailing_blank = len(texts) - end
    body_lines = texts[:end]
    if not body_lines:
        return "\n" * trailing_blank if chomp == "+" else ""
    if not folded:
        body = "\n".join(body_lines)
    else:
        pieces: list[str] = []
        previous = ""
        blank_lines = 0
        for line in body_lines:
            if not line.strip(" "):
                blank_lines += 1
                continue
            if not previous:
                pieces.append("\n" * blank_lines)
            elif previous[0] in " \t" or line[0] in " \t":  # more-indented lines keep breaks
                pieces.append("\n" * (blank_lines + 1))
            else:
                pieces.append("\n" * blank_lines if blank_lines else " ")
            pieces.append(line)
            previous = line
            blank_lines = 0
        body = "".join(pieces)
    if chomp == "-":
        return body
    if chomp == "+":
        return body + "\n" * (trailing_blank + 1)
    return body + "\n"


def _split_lines(text: str) -> list[str]:
    """Split on ``\\n`` only (never on other Unicode breaks) and drop a ``\\r`` before it."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def _parse_lines(lines: list[str], first_line: int) -> tuple[dict, list[Diagnostic]]:
    """Parse YAML lines; raises ``_YamlError`` when the document is invalid."""
    parser = _BlockParser(lines, first_line)
    data = parser.document()
    return data, parser.warnings


def parse_yaml_subset(text: str) -> tuple[dict, list[Diagnostic]]:
    """Parse a small YAML document (the subset described in this module) into a dict.

    Never raises. Returns ``(data, diagnostics)``: when the document is invalid,
    ``data`` is ``{}`` and the diagnostics hold one ``invalid_yaml`` entry with the
    1-based line; otherwise they hold only warnings (``duplicate_key``). A leading
    ``---`` line is allowed; a second document after ``---``/``...`` is an error.
    """
    if text.startswith(_BOM):
        text = text[1:]
    lines = _split_lines(text)
    index = 0
    while index < len(lines) and _is_ignorable(lines[index]):
        index += 1
    if index < len(lines) and lines[index].rstrip(" \t") == "---":
        lines[index] = ""  # blank it out so line numbers stay those of the file
    for end in range(index + 1, len(lines)):
        if lines[end].rstrip(" \t") in ("---", "..."):
            extra = next(
                (k for k in range(end + 1, len(lines)) if not _is_ignorable(lines[k])), None
            )
            if extra is not None:
                message = "only one YAML document is supported; remove the '---' or '...' line"
                return {}, [Diagnostic(code="invalid_yaml", message=message, line=end + 1)]
            lines = lines[:end]
            break
    try:
        return _parse_lines(lines, 1)
    except _YamlError as exc:
        return {}, [Diagnostic(code="invalid_yaml", message=exc.message, line=exc.line)]


# -------------------------------------------------------------------------- writing


def _quote(text: str) -> str:
    pieces = ['"']
    for char in text:
        escaped = _WRITE_ESCAPES.get(char)
        if escaped is not None:
            pieces.append(escaped)
        elif char.isprintable():
            pieces.append(char)
        else:
            codepoint = ord(char)
            if codepoint <= 0xFF:
                pieces.append(f"\\x{codepoint:02x}")
            elif codepoint <= 0xFFFF:
                pieces.append(f"\\u{codepoint:04x}")
            else:
                pieces.append(f"\\U{codepoint:08x}")
    pieces.append('"')
    return "".join(pieces)


def _plain_is_safe(text: str) -> bool:
    """Would ``text`` written unquoted read back as the same string, here and in YAML 1.1?"""
    if not text or text.strip() != text or not text.isprintable():
        return False
    if text[0] in _INDICATORS or text.endswith(":"):
        return False
    if ": " in text or " #" in text:
        return False
    if text.lower() in _YAML11_WORDS or _NUMBER_LIKE_RE.fullmatch(text):
        return False
    return _resolve_plain(text) is text


def _render_string(text: str) -> str:
    return text if _plain_is_safe(text) else _quote(text)


def _render_key(key: object) -> str:
    if not isinstance(key, str):
        raise InvalidInputError(
            f"frontmatter keys must be strings, got {type(key).__name__} {key!r}; use str({key!r})"
        )
    if _plain_is_safe(key) and ":" not in key and "#" not in key:
        return key
    return _quote(key)


def _render_scalar(value: object) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return repr(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(float(value))
    if isinstance(value, dt.datetime):  # read back as the same ISO string, not a datetime
        return _render_string(value.isoformat())
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        return _render_string(value)
    raise InvalidInputError(
        f"cannot write a {type(value).__name__} to frontmatter; use str, int, float, bool, "
        "None, datetime.date, list or dict"
    )


def _render_entry(prefix: str, value: object, indent: int, out: list[str], depth: int) -> None:
    """Append ``prefix`` (``key:``) with ``value`` as lines at ``indent``."""
    if depth > _MAX_DEPTH:
        raise InvalidInputError(f"frontmatter data is nested more than {_MAX_DEPTH} levels")
    if isinstance(value, dict):
        if not value:
            out.append(prefix + " {}")
        else:
            out.append(prefix)
            _render_mapping(value, indent + 2, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        if not value:
            out.append(prefix + " []")
        else:
            out.append(prefix)
            _render_sequence(value, indent + 2, out, depth + 1)
    else:
        out.append(prefix + " " + _render_scalar(value))


def _render_mapping(mapping: dict, indent: int, out: list[str], depth: int) -> None:
    pad = " " * indent
    for key, value in mapping.items():
        _render_entry(pad + _render_key(key) + ":", value, indent, out, depth)


def _render_sequence(items, indent: int, out: list[str], depth: int) -> None:
    pad = " " * indent
    for item in items:
        if isinstance(item, (dict, list, tuple)) and item:
            # Write the nested block two columns deeper, then put the dash on its first line.
            nested: list[str] = []
            if isinstance(item, dict):
                _render_mapping(item, indent + 2, nested, depth + 1)
            else:
                _render_sequence(item, indent + 2, nested, depth + 1)
            nested[0] = pad + "- " + nested[0][indent + 2 :]
            out.extend(nested)
        elif isinstance(item, dict):
            out.append(pad + "- {}")
        elif isinstance(item, (list, tuple)):
            out.append(pad + "- []")
        else:
            out.append(pad + "- " + _render_scalar(item))
