"""Edits inside a note's text: prepend, find-and-replace, replace one section, and
retargeting the wikilinks a move would break.

Pure functions over ``str`` (no I/O, no clock: ``now`` is passed in), like the building
and editing functions of ``notes_io``: ``VaultMemory`` reads the bytes, calls one of these
and writes the result through its journaled, locked, atomic path.

Each edit works on the body only (the frontmatter block is never searched or cut), keeps
the line-ending style of the note's first line break, and then updates the frontmatter as
``append`` does: ``updated`` set (when the note has a frontmatter block), ``sources``
merged. The rules, for users, are in docs/reference/notes.md ("Edit operations").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from .errors import AmbiguousSectionError, InvalidInputError, MatchCountError, SectionNotFoundError
from .frontmatter import parse_frontmatter
from .markdown import Heading, WikiLink, parse_markdown, wikilink_spans
from .notes_io import _field_updates, _newline_of, _set_fields, _with_newline, heading_span
from .redact import MARK_RE

__all__ = [
    "find_replace_in_note",
    "find_section",
    "prepend_to_note",
    "replace_note_section",
    "retarget_links",
]

# Headings listed in a "no such section" message (and its candidates).
MAX_LISTED_HEADINGS = 30
_LEVEL_RE = re.compile(r"(#{1,6})[ \t]+(.*)")


def _finish(text: str, fm, now: float, sources: list[str], warnings: list[str]) -> str:
    fields = _field_updates(
        fm, now=now, note_type=None, tags=None, labels=None, sources=sources, merge=True
    )
    return _set_fields(text, fields, warnings)


def prepend_to_note(
    text: str, content: str, *, now: float, sources: list[str], warnings: list[str]
) -> str:
    """``content`` as the first lines of the body, right after the frontmatter block,
    followed by a blank line and the body as it was."""
    block = content.strip("\n")
    if not block.strip():
        raise InvalidInputError("nothing to prepend: the text is empty")
    fm = parse_frontmatter(text)
    newline = _newline_of(text)
    head, body = text[: fm.body_offset], text[fm.body_offset :]
    rest = body.lstrip("\r\n")
    lead = newline if fm.present else ""  # the blank line after a frontmatter block
    new = _with_newline(block + "\n", newline)
    if rest:
        new += newline + rest
    return _finish(head + lead + new, fm, now, sources, warnings)


def find_replace_in_note(
    text: str,
    find: str,
    replacement: str,
    *,
    expected_count: int,
    now: float,
    sources: list[str],
    warnings: list[str],
    where: str,
) -> str:
    """Every occurrence of ``find`` in the body replaced by ``replacement``, exactly
    matched (case and line breaks included, occurrences not overlapping).

    Refused with ``MatchCountError`` when the body holds ``find`` some number of times
    other than ``expected_count``; ``where`` names the note in the message.
    """
    if not find:
        raise InvalidInputError("{:find_replace} needs the text to find; {=find} is empty")
    fm = parse_frontmatter(text)
    newline = _newline_of(text)
    needle, new = _with_newline(find, newline), _with_newline(replacement, newline)
    body = fm.body
    found = body.count(needle)
    if found != expected_count:
        problem = (
            f"{{:find_replace}} in {where}: found {found} match{'es' if found != 1 else ''} of "
            f"the text, expected {expected_count}; nothing was changed"
        )
        if found == 0 and MARK_RE.search(find):
            fix = (
                "the text holds a [REDACTED] mark, but the file holds the secret it stands "
                "for, never the mark: find the text around it instead"
            )
        elif found == 0:
            fix = (
                "the text must match the note exactly, line breaks included: read it again "
                "with {get_note}"
            )
        elif found > expected_count:
            fix = (
                "add surrounding text until it matches only where you mean, or pass the "
                "number found as {=expected_count} to replace every one"
            )
        else:
            fix = (
                "pass the number found as {=expected_count}, or read the note again with "
                "{get_note}: it changed"
            )
        raise MatchCountError(problem, fix=fix, found=found, expected=expected_count)
    return _finish(text[: fm.body_offset] + body.replace(needle, new), fm, now, sources, warnings)


def find_section(
    headings: tuple[Heading, ...], name: str, redact: Callable[[str], str], where: str
) -> int:
    """The index in ``headings`` of the one heading named ``name``.

    Compared case-insensitively (NFC) with the heading's text, as written or redacted.
    A name may start with its level (``"## Notes"``) to choose among headings that share
    the text. Raises ``SectionNotFoundError`` listing the headings, or
    ``AmbiguousSectionError`` listing the matching ones with their lines.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidInputError("give the heading of the section, e.g. 'Verify' or '## Verify'")
    wanted = unicodedata.normalize("NFC", name).strip()
    level = None
    marked = _LEVEL_RE.fullmatch(wanted)
    if marked:
        level, wanted = len(marked.group(1)), marked.group(2).strip()
    folded = wanted.casefold()
    matches = [
        i
        for i, heading in enumerate(headings)
        if (level is None or heading.level == level)
        and folded in (heading.text.casefold(), redact(heading.text).casefold())
    ]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        names = [redact(h.text) for h in headings][:MAX_LISTED_HEADINGS]
        listing = ", ".join(repr(n) for n in names) if names else "it has no headings"
        raise SectionNotFoundError(
            f"no section {name.strip()!r} in {where} — headings: {listing}", candidates=names
        )
    found = [
        f"{'#' * headings[i].level} {redact(headings[i].text)} (line {headings[i].line})"
        for i in matches
    ]
    levels = {headings[i].level for i in matches}
    first = headings[matches[0]]
    fix = (
        "name it with its level, e.g. " + repr(f"{'#' * first.level} {redact(first.text)}")
        if len(levels) > 1 and level is None
        else "rename one of them first, or change the text with {:find_replace}"
    )
    raise AmbiguousSectionError(
        f"{name.strip()!r} names {len(matches)} sections of {where}: {', '.join(found)} — {fix}",
        candidates=found,
    )


def replace_note_section(
    text: str,
    section: str,
    content: str,
    *,
    now: float,
    sources: list[str],
    warnings: list[str],
    redact: Callable[[str], str],
    where: str,
) -> str:
    """The section under heading ``section`` with its text replaced by ``content``.

    The heading line stays; what is replaced runs from the line after it to the next
    heading of the same or a higher level (so its subsections go too), as ``get_note``'s
    ``section=`` reads it. A blank line separates the new text from the heading and from
    the next one. Headings are matched by ``find_section``.
    """
    fm = parse_frontmatter(text)
    body = fm.body
    headings = parse_markdown(body).headings
    start, end = heading_span(body, headings, find_section(headings, section, redact, where))
    after_heading = body.find("\n", start)
    after_heading = len(body) if after_heading == -1 else after_heading + 1
    newline = _newline_of(text)
    head_line = body[start:after_heading]
    if not head_line.endswith("\n"):
        head_line += newline
    block = content.strip("\n")
    new = newline + _with_newline(block, newline) + newline if block else ""
    if end < len(body):
        new += newline  # a blank line before the next heading
    new_body = body[:start] + head_line + new + body[end:]
    return _finish(text[: fm.body_offset] + new_body, fm, now, sources, warnings)


def _retarget(inner: str, new_target: str) -> str:
    """The inside of ``[[...]]`` with its target replaced; ``#section`` and ``|alias``
    kept as written (a table's escaped ``\\|`` too)."""
    cut = len(inner)
    for mark in "#|":
        at = inner.find(mark)
        if at != -1:
            cut = min(cut, at)
    if cut < len(inner) and inner[cut] == "|" and cut and inner[cut - 1] == "\\":
        cut -= 1
    return new_target + inner[cut:]


def retarget_links(
    text: str, decide: Callable[[WikiLink], str | None], *, line_shift: int = 0
) -> tuple[str, list[tuple[int, str, str]]]:
    """``text`` with the target of every wikilink for which ``decide`` returns a new one
    replaced, and ``(line, old link, new link)`` for each (lines 1-based plus
    ``line_shift``). Links in code fences and code spans are left alone, as
    ``parse_markdown`` does not read them."""
    parts: list[str] = []
    changes: list[tuple[int, str, str]] = []
    last = 0
    for start, end, link in wikilink_spans(text):
        new_target = decide(link)
        if new_target is None:
            continue
        old = text[start:end]
        opening = old.index("[[") + 2
        new = old[:opening] + _retarget(old[opening:-2], new_target) + "]]"
        if new == old:
            continue
        parts += [text[last:start], new]
        last = end
        changes.append((link.line + line_shift, old, new))
    if not changes:
        return text, []
    parts.append(text[last:])
    return "".join(parts), changes
