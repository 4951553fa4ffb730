"""Markdown reading: headings, wikilinks and the sections a note is indexed by.

``parse_markdown`` does one pass over the text, driven by regular-expression searches
for the few lines that matter (ATX headings and code-fence markers) and for ``[[``, so
its cost is linear in the text: a 50 MB note or one with 100,000 headings takes seconds.
It never raises; problems are returned as ``Diagnostic`` warnings.

Rules
=====

* **Headings** are ATX only: up to 3 spaces, 1-6 ``#``, then a space, a tab or the end
  of the line. A closing run of ``#`` (after a space) is dropped, the text is stripped.
  Setext (underlined) headings are not recognised.
* **Code fences** open with 3 or more backticks or tildes (up to 3 spaces before; a
  backtick fence's info string may not contain a backtick) and close only with the same
  character, at least as many of them, and nothing but spaces after. Inside a fence
  nothing is a heading or a link. An **unclosed fence** is reported as
  ``unclosed_fence`` (at the opening line) and ends just before the next heading that
  lies outside any properly closed fence, or at the end of the text.
* **Wikilinks** are ``[[target#section|alias]]`` on one line, and embeds ``![[...]]``;
  not inside fences or inline code spans (code spans are matched within a line).
  ``[[#Heading]]`` links to the same note: its target is ``""``.
* **Sections** tile the text: ``sections[0].start == 0``, each ``start`` is the previous
  ``end`` and the last ``end`` is ``len(text)`` (empty text has no sections). The text
  is cut before every ``##`` and ``###`` heading. The lead before the first cut has
  ``heading=""``, ``level=0`` and ``chain=(h1,)`` when the first H1 is in the lead (it is
  the document title) -- the lead is omitted when the text starts with a cut. Any later
  H1 also cuts, as a level-1 section, and becomes the first element of the chains after
  it. H4-H6 never cut. The chain of a ``###`` is (title, enclosing ``##``, itself),
  skipping the parts that do not exist.
* **Long sections** (``estimate_tokens`` above ``max_section_tokens``) are split at
  paragraph boundaries (blank lines) outside code fences, greedily into parts of at most
  that size where the boundaries allow; a fence larger than the limit stays whole in one
  part. Parts are numbered ``part=1, 2, ...`` and share the heading and chain; an
  unsplit section has ``part=0``. ``max_section_tokens < 1`` disables splitting.

Offsets are indexes into the ``str`` passed in (lines may end in ``\\n`` or ``\\r\\n``);
line numbers are 1-based.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from .diagnostics import Diagnostic

__all__ = [
    "Heading",
    "ParsedMarkdown",
    "Section",
    "WikiLink",
    "estimate_tokens",
    "parse_markdown",
    "section_stamp",
    "strip_markup",
    "wikilink_spans",
]

# A heading (checked further in Python) or a code-fence marker line; group 2 is the rest.
_MARKER_LINE_RE = re.compile(r"^ {0,3}(#{1,6}|`{3,}|~{3,})([^\n]*)", re.MULTILINE)
_LINK_RE = re.compile(r"(!?)\[\[([^\[\]\n]+)\]\]")
_BACKTICKS_RE = re.compile(r"`+")
# One or more blank lines: a long section may be cut after them if a non-blank line
# follows. (No lookahead for that line: it would backtrack quadratically on a long run
# of blank lines at the end of a section.)
_PARAGRAPH_BREAK_RE = re.compile(r"\n(?:[ \t]*\r?\n)+")


# Dates and times written in headings: journal entries ("### 14:20 — Harbor upgrade",
# "### 03-02 09:40 — danube is back", "## 2026-06-03 — game day", "2026年6月3日",
# "2026년 6월 3일"). A day alone (MM-DD) or a time alone takes the rest from the
# enclosing headings, then from the note's date.
_STAMP_FULL_RE = re.compile(
    r"(?<!\d)(\d{4})(?:-|/|\.|年|년\s*)(\d{1,2})(?:-|/|\.|月|월\s*)(\d{1,2})(?:日|일)?(?!\d)"
)
_STAMP_DAY_RE = re.compile(r"^(?:[^\w]*)(\d{2})-(\d{2})(?!\d)")
_STAMP_TIME_RE = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")


def section_stamp(chain: tuple[str, ...] | list[str], note_date: str | None) -> str | None:
    """When a section was written, from its heading chain and its note's date.

    Returns ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM`` (sortable as text), or None when
    neither the headings nor the note carry a date. The innermost heading that names a
    day wins; a time is taken from the section's own heading only.
    """
    year = month = day = None
    if note_date and len(note_date) >= 10 and note_date[4] == "-":
        year, month, day = note_date[:4], note_date[5:7], note_date[8:10]
    for heading in chain:
        full = _STAMP_FULL_RE.search(heading)
        if full and 1 <= int(full.group(2)) <= 12 and 1 <= int(full.group(3)) <= 31:
            year = full.group(1)
            month, day = f"{int(full.group(2)):02d}", f"{int(full.group(3)):02d}"
            continue
        short = _STAMP_DAY_RE.match(heading)
        if short and year and 1 <= int(short.group(1)) <= 12 and 1 <= int(short.group(2)) <= 31:
            month, day = short.group(1), short.group(2)
    if year is None or month is None or day is None:
        return None
    stamp = f"{year}-{month}-{day}"
    own = chain[-1] if chain else ""
    if own and not _STAMP_FULL_RE.search(own):
        rest = own[_STAMP_DAY_RE.match(own).end() :] if _STAMP_DAY_RE.match(own) else own
        time_match = _STAMP_TIME_RE.search(rest[:24])
        if time_match:
            stamp += f"T{int(time_match.group(1)):02d}:{time_match.group(2)}"
    return stamp


@dataclass(frozen=True)
class Heading:
    """An ATX heading: its level (1-6), stripped text and 1-based line."""

    level: int
    text: str
    line: int


@dataclass(frozen=True)
class WikiLink:
    """``[[target#section|alias]]`` (or an embed ``![[...]]``) on a 1-based line."""

    target: str
    section: str | None
    alias: str | None
    line: int


@dataclass(frozen=True)
class Section:
    """A slice ``text[start:end]`` of a note, under one heading (see module docstring)."""

    heading: str
    chain: tuple[str, ...]
    level: int
    start: int
    end: int
    line: int
    part: int = 0


@dataclass(frozen=True)
class ParsedMarkdown:
    """Everything ``parse_markdown`` reads from one text; ``h1`` is the first H1's text."""

    h1: str | None
    headings: tuple[Heading, ...]
    sections: tuple[Section, ...]
    links: tuple[WikiLink, ...]
    warnings: tuple[Diagnostic, ...]


def _utf8_length(text: str) -> int:
    if text.isascii():
        return len(text)
    # surrogatepass: a str with lone surrogates is still measured instead of raising.
    return len(text.encode("utf-8", "surrogatepass"))


def estimate_tokens(text: str) -> int:
    """Estimate a token count as the UTF-8 byte length divided by 4, rounded up.

    Four bytes per token is the usual rule of thumb for English with BPE tokenizers; for
    CJK text (3 bytes a character) it errs towards more tokens, which is the safe side
    for a size limit.
    """
    return (_utf8_length(text) + 3) // 4


class _Fence:
    """A code-fence marker line."""

    __slots__ = ("end", "char", "length", "can_open", "can_close")

    def __init__(self, end: int, char: str, length: int, can_open: bool, can_close: bool):
        self.end = end  # start of the next line (or len(text))
        self.char = char
        self.length = length
        self.can_open = can_open
        self.can_close = can_close


# The first pass yields (offset of the line, line number, level, payload): a heading has
# level 1-6 and its text as payload; a fence marker has level 0 and a _Fence. Plain
# tuples, because a note may hold 100,000 headings.
_Marker = tuple  # tuple[int, int, int, str | _Fence]


def _heading_text(rest: str) -> str:
    if rest.endswith("\r"):
        rest = rest[:-1]
    text = rest.strip(" \t")
    without_hashes = text.rstrip("#")
    if not without_hashes:
        return ""
    if without_hashes[-1] in " \t":  # a closing sequence needs a space before it
        return without_hashes.rstrip(" \t")
    return text


def _find_markers(text: str) -> list[_Marker]:
    markers: list[_Marker] = []
    line = 1
    counted_to = 0
    for match in _MARKER_LINE_RE.finditer(text):
        run, rest = match.groups()
        offset = match.start()
        line += text.count("\n", counted_to, offset)
        counted_to = offset
        char = run[0]
        if char == "#":
            if not rest or rest[0] in " \t" or rest == "\r":  # "\r" alone: a CRLF line end
                markers.append((offset, line, len(run), _heading_text(rest)))
            continue
        if rest.endswith("\r"):
            rest = rest[:-1]
        can_open = not (char == "`" and "`" in rest)
        can_close = not rest.strip(" \t")
        if can_open or can_close:
            end = min(match.end() + 1, len(text))
            markers.append((offset, line, 0, _Fence(end, char, len(run), can_open, can_close)))
    return markers


def _scan_blocks(
    text: str, markers: list[_Marker]
) -> tuple[list[_Marker], list[tuple[int, int]], list[Diagnostic]]:
    """Pair fences; return the headings outside fences, the fence spans and warnings."""
    if all(marker[2] for marker in markers):  # no fence markers at all
        return markers, [], []
    # longest_closer[c][k]: the longest closing run of char c among markers[k:], so an
    # opener knows in O(1) whether it is ever closed (keeps unclosed fences linear).
    count = len(markers)
    longest_closer = {"`": [0] * (count + 1), "~": [0] * (count + 1)}
    backticks, tildes = longest_closer["`"], longest_closer["~"]
    for k in range(count - 1, -1, -1):
        backticks[k], tildes[k] = backticks[k + 1], tildes[k + 1]
        level, fence = markers[k][2:]
        if not level and fence.can_close:
            table = longest_closer[fence.char]
            table[k] = max(table[k], fence.length)

    headings: list[_Marker] = []
    fences: list[tuple[int, int]] = []
    warnings: list[Diagnostic] = []
    recovering: _Marker | None = None  # the unclosed fence we are inside, if any
    k = 0
    while k < count:
        marker = markers[k]
        offset, line, level, fence = marker
        k += 1
        if level:
            if recovering is not None:
                fences.append((recovering[0], offset))
                recovering = None
            headings.append(marker)
            continue
        if not fence.can_open:
            continue
        if longest_closer[fence.char][k] >= fence.length:
            while True:  # the closer exists: find it, skipping everything in between
                closer = markers[k][3]
                k += 1
                if (
                    not markers[k - 1][2]
                    and closer.can_close
                    and closer.char == fence.char
                    and closer.length >= fence.length
                ):
                    break
            if recovering is None:
                fences.append((offset, closer.end))
            continue
        if recovering is None:
            recovering = marker
            run = fence.char * fence.length
            warnings.append(
                Diagnostic(
                    code="unclosed_fence",
                    message=(
                        f"the code fence {run} opened on line {line} is never closed; it "
                        f"is read as ending at the next heading (add a closing {run} line)"
                    ),
                    line=line,
                )
            )
    if recovering is not None:
        fences.append((recovering[0], len(text)))
    return headings, fences, warnings


def _code_spans(line: str) -> list[tuple[int, int]]:
    """Inline code spans of one line: a backtick run up to the next run of equal length."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS_RE.finditer(line)]
    if len(runs) < 2:
        return []
    next_same = [-1] * len(runs)
    last_by_length: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        next_same[index] = last_by_length.get(length, -1)
        last_by_length[length] = index
    spans = []
    index = 0
    while index < len(runs):
        partner = next_same[index]
        if partner == -1:
            index += 1
            continue
        spans.append((runs[index][0], runs[partner][1]))
        index = partner + 1
    return spans


def _make_link(inner: str, line: int) -> WikiLink | None:
    if "|" not in inner and "#" not in inner and inner.strip() == inner:
        return WikiLink(inner, None, None, line)
    target, bar, alias = inner.partition("|")
    if bar and target.endswith("\\"):  # "[[a\|b]]" inside a Markdown table
        target = target[:-1]
    target, hash_mark, section = target.partition("#")
    target = target.strip()
    section_text = section.strip() if hash_mark else ""
    alias_text = alias.strip() if bar else ""
    if not target and not section_text:
        return None
    return WikiLink(target, section_text or None, alias_text or None, line)


def _find_links(text: str, fences: list[tuple[int, int]]) -> list[tuple[int, int, WikiLink]]:
    """Every wikilink outside fences and code spans, with the span of its ``[[...]]``
    (an embed's ``!`` included)."""
    links: list[tuple[int, int, WikiLink]] = []
    fence_index = 0
    fence_count = len(fences)
    has_backticks = "`" in text
    line = 1
    counted_to = 0  # text[:counted_to] holds line - 1 line breaks
    line_start = 0
    spans: list[tuple[int, int]] = []
    spans_line = 0  # the line ``spans`` was computed for
    for match in _LINK_RE.finditer(text):
        offset = match.start()
        while fence_index < fence_count and fences[fence_index][1] <= offset:
            fence_index += 1
        if fence_index < fence_count and fences[fence_index][0] <= offset:
            continue
        breaks = text.count("\n", counted_to, offset)
        if breaks:
            line += breaks
            line_start = text.rfind("\n", counted_to, offset) + 1
        counted_to = offset
        if has_backticks:
            if line != spans_line:
                line_end = text.find("\n", offset)
                if line_end == -1:
                    line_end = len(text)
                has_code = text.find("`", line_start, line_end) != -1
                spans = _code_spans(text[line_start:line_end]) if has_code else []
                spans_line = line
            if spans:
                column = offset - line_start
                index = bisect_right(spans, (column, len(text))) - 1
                if index >= 0 and spans[index][0] <= column < spans[index][1]:
                    continue
        link = _make_link(match.group(2), line)
        if link is not None:
            links.append((offset, match.end(), link))
    return links


def wikilink_spans(text: str) -> list[tuple[int, int, WikiLink]]:
    """``(start, end, link)`` of every wikilink ``parse_markdown`` finds, where
    ``text[start:end]`` is the whole ``[[...]]`` (or ``![[...]]``): what a rewrite of
    link targets replaces. Same rules as ``parse_markdown``; never raises."""
    if "[[" not in text:
        return []
    _, fences, _ = _scan_blocks(text, _find_markers(text))
    return _find_links(text, fences)


def _cuts(headings: list[_Marker]) -> tuple[str | None, list[tuple[_Marker, tuple[str, ...]]]]:
    """Choose the lead's title and the headings that start sections, with their chains."""
    lead_title: str | None = None
    title: str | None = None  # the H1 in force
    current_h2: str | None = None
    cuts: list[tuple[_Marker, tuple[str, ...]]] = []
    for marker in headings:
        level, text = marker[2], marker[3]
        if level == 2:
            current_h2 = text
            cuts.append((marker, (text,) if title is None else (title, text)))
        elif level == 3:
            if title is None:
                chain = (text,) if current_h2 is None else (current_h2, text)
            else:
                chain = (title, text) if current_h2 is None else (title, current_h2, text)
            cuts.append((marker, chain))
        elif level == 1:
            if title is None and not cuts:
                lead_title = title = text
                continue
            title, current_h2 = text, None
            cuts.append((marker, (text,)))
    return lead_title, cuts


def _split_points(
    text: str, start: int, end: int, fences: list[tuple[int, int]], fence_starts: list[int]
) -> list[int]:
    """Offsets inside (start, end) where a part may begin: after blank lines, not in a fence."""
    points = []
    for match in _PARAGRAPH_BREAK_RE.finditer(text, start, end):
        point = match.end()
        if point >= end:
            continue
        line_end = text.find("\n", point, end)
        if not text[point : end if line_end == -1 else line_end].strip(" \t\r"):
            continue  # only blank text follows (the regex took every complete blank line)
        index = bisect_right(fence_starts, point) - 1
        if index >= 0 and fences[index][0] < point < fences[index][1]:
            continue
        points.append(point)
    return points


def _split_section(
    text: str,
    section: Section,
    limit: int,
    fences: list[tuple[int, int]],
    fence_starts: list[int],
) -> list[Section]:
    points = _split_points(text, section.start, section.end, fences, fence_starts)
    if not points:
        return [section]
    bounds = [section.start, *points, section.end]
    # Byte size of each stretch between consecutive possible cuts, then greedy packing.
    sizes = [_utf8_length(text[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    max_bytes = limit * 4
    cut_indexes = []
    used = 0
    for index, size in enumerate(sizes):
        if index and used and used + size > max_bytes:
            cut_indexes.append(index)
            used = 0
        used += size
    if not cut_indexes:
        return [section]
    starts = [section.start] + [bounds[index] for index in cut_indexes]
    ends = starts[1:] + [section.end]
    parts = []
    line = section.line
    previous = section.start
    for number, (part_start, part_end) in enumerate(zip(starts, ends, strict=True), start=1):
        line += text.count("\n", previous, part_start)
        previous = part_start
        parts.append(
            Section(
                section.heading,
                section.chain,
                section.level,
                part_start,
                part_end,
                line,
                number,
            )
        )
    return parts


def parse_markdown(text: str, *, max_section_tokens: int = 1500) -> ParsedMarkdown:
    """Read headings, wikilinks and sections from a Markdown text. Never raises.

    See the module docstring for the rules and for which choices were made.
    """
    markers = _find_markers(text)
    heading_markers, fences, warnings = _scan_blocks(text, markers)
    links = [link for _, _, link in _find_links(text, fences)] if "[[" in text else []
    headings = tuple([Heading(level, name, line) for _, line, level, name in heading_markers])
    h1 = next((heading.text for heading in headings if heading.level == 1), None)
    title, cuts = _cuts(heading_markers)

    sections: list[Section] = []
    if text:
        first_cut = cuts[0][0][0] if cuts else len(text)
        if first_cut > 0:
            lead_chain = (title,) if title is not None else ()
            sections.append(Section("", lead_chain, 0, 0, first_cut, 1))
        ends = [marker[0] for marker, _ in cuts[1:]]
        if cuts:
            ends.append(len(text))
        for ((start, line, level, heading_text), chain), end in zip(cuts, ends, strict=True):
            sections.append(Section(heading_text, chain, level, start, end, line))

    if max_section_tokens >= 1:
        fence_starts = [start for start, _ in fences]
        max_bytes = max_section_tokens * 4
        split: list[Section] = []
        for section in sections:
            # Cheap length check first: a str never has more characters than UTF-8 bytes
            # and at most 4 bytes a character.
            length = section.end - section.start
            if length * 4 <= max_bytes or (
                length <= max_bytes and _utf8_length(text[section.start : section.end]) <= max_bytes
            ):
                split.append(section)
            else:
                split.extend(
                    _split_section(text, section, max_section_tokens, fences, fence_starts)
                )
        sections = split

    return ParsedMarkdown(
        h1=h1,
        headings=headings,
        sections=tuple(sections),
        links=tuple(links),
        warnings=tuple(warnings),
    )


_STRIP_FENCE_RE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})[^\n]*\n?", re.MULTILINE)
_STRIP_HEADING_RE = re.compile(r"^ {0,3}#{1,6}(?=[ \t\r]|$)([^\n]*)", re.MULTILINE)
_STRIP_QUOTE_RE = re.compile(r"^ {0,3}>[ \t]?", re.MULTILINE)
_STRIP_IMAGE_OR_LINK_RE = re.compile(r"!?\[([^\[\]\n]*)\]\([^()\n]*\)")
_STRIP_WIKILINK_RE = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")
_STRIP_EMPHASIS_RE = re.compile(r"\*\*|__|~~|==|`+|(?<!\w)[*_]+(?=\S)|(?<=\S)[*_]+(?!\w)")


def _heading_label(match: re.Match) -> str:
    rest = match.group(1)
    return _heading_text(rest) + ("\r" if rest.endswith("\r") else "")


def _wikilink_label(match: re.Match) -> str:
    target, _, alias = match.group(1).partition("|")
    if alias.strip():
        return alias.strip()
    target, _, section = target.partition("#")
    return target.strip() or section.strip()


def strip_markup(text: str) -> str:
    """Make Markdown readable as plain text for a snippet (simple, not a full renderer).

    Drops fence marker lines, heading ``#`` runs, blockquote ``>``, link and wikilink
    brackets (keeping the alias or target), inline-code backticks and emphasis markers.
    """
    text = _STRIP_FENCE_RE.sub("", text)
    text = _STRIP_HEADING_RE.sub(_heading_label, text)
    text = _STRIP_QUOTE_RE.sub("", text)
    text = _STRIP_WIKILINK_RE.sub(_wikilink_label, text)
    text = _STRIP_IMAGE_OR_LINK_RE.sub(r"\1", text)
    return _STRIP_EMPHASIS_RE.sub("", text)
