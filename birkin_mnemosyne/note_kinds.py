"""What kind of record a note is, and when each of its sections was written.

Ranking prefers the records an agent acts on (a host record, a runbook, a lesson)
over the running commentary of journals and index pages, and a state question
prefers the newest dated section; ``state_queries`` lists a host's history. All three
need the same two facts about a note, worked out here from what the index keeps.

**Kind** (``note_kind``): the note's ``type:`` when it names a known kind, else its
folders (``runbooks/``, ``hosts/``, ``journal/``, ...), else its file name (a dated
name is a journal entry; ``INDEX.md``, ``MEMORY.md`` and ``index.md`` are index
pages); ``""`` when nothing says.

**Stamp** (``SectionStamps``): ``markdown.section_stamp`` of a section's heading chain
and its note's date. The index keeps only each section's own heading, so the chain is
rebuilt as (note title, the nearest earlier heading of the same note that names a full
day, the section's own heading): right for journals ("## 2026-06-03" then "### 14:20");
a section after a dated *sibling* takes that sibling's day.
"""

from __future__ import annotations

import posixpath
import re

from .index import Index
from .markdown import section_stamp

__all__ = [
    "KINDS",
    "SectionStamps",
    "is_host",
    "is_journal",
    "kind_of",
    "newest_date",
    "note_kind",
    "section_stamps",
]

# kind -> the ``type:`` values and folder names that mean it
KINDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "host": (frozenset({"host", "server", "machine"}), frozenset({"hosts", "host", "servers"})),
    "journal": (
        frozenset({"journal", "log", "daily", "diary"}),
        frozenset({"journal", "journals", "daily", "log", "logs", "diary"}),
    ),
    "runbook": (
        frozenset({"runbook", "playbook", "procedure", "howto", "how-to", "sop"}),
        frozenset({"runbooks", "runbook", "playbooks", "procedures", "howto", "how-to"}),
    ),
    "lesson": (
        frozenset({"lesson", "postmortem", "post-mortem", "retro", "learning"}),
        frozenset({"lessons", "postmortems", "post-mortems", "retros", "learnings"}),
    ),
    "decision": (
        frozenset({"decision", "adr"}),
        frozenset({"decisions", "adr", "adrs"}),
    ),
    "index": (frozenset({"index", "moc", "toc"}), frozenset()),
}
_DATED_NAME = re.compile(r"^\d{4}-\d{2}(?:-\d{2})?(?!\d)")
# An agent's always-loaded pages, by their conventional upper-case names (a project's
# own "index.md" is its main page, not an index).
_INDEX_NAMES = frozenset({"INDEX.md", "MEMORY.md"})
# Checked in this order: a journal folder's dated runbook-like entry is still a journal.
_ORDER = ("journal", "host", "runbook", "lesson", "decision", "index")


def note_kind(meta: dict) -> str:
    """The kind of record note ``meta`` (an ``Index.notes`` entry) is; ``""`` if unknown."""
    declared = str(meta.get("note_type") or "").strip().casefold()
    for kind in _ORDER:
        if declared in KINDS[kind][0]:
            return kind
    folders = {part.casefold() for part in str(meta.get("zone") or "").split("/") if part}
    for kind in _ORDER:
        if folders & KINDS[kind][1]:
            return kind
    name = posixpath.basename(str(meta.get("path") or ""))
    if _DATED_NAME.match(name):
        return "journal"
    if name in _INDEX_NAMES:
        return "index"
    return ""


def is_host(meta: dict) -> bool:
    """A live host record (``type: host`` or a note in a ``hosts/`` folder)."""
    return not meta["archived"] and note_kind(meta) == "host"


def is_journal(meta: dict) -> bool:
    """A journal entry: ``type: journal``, a ``journal/`` folder or a dated file name."""
    return note_kind(meta) == "journal"


class SectionStamps:
    """When each section was written (``section_stamp``), worked out a note at a time
    and remembered for the life of one index."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self._by_note: dict[int, list[str | None]] = {}

    def of(self, sid: int) -> str | None:
        index = self.index
        nid = index.sec_note[sid]
        stamps = self._by_note.get(nid)
        if stamps is None:
            stamps = self._by_note[nid] = self._note(nid)
        return stamps[sid - index.note_first[nid]]

    def _note(self, nid: int) -> list[str | None]:
        index = self.index
        meta = index.notes[nid]
        title, date = str(meta["title"] or ""), meta["date"]
        out: list[str | None] = []
        dated: str | None = None  # the nearest earlier heading naming a full day
        for sid in index.note_sections(nid):
            heading = index.sec_heading[sid]
            names_day = bool(heading) and section_stamp((heading,), None) is not None
            chain = [title]
            if dated is not None and not names_day:
                chain.append(dated)
            if heading:
                chain.append(heading)
            out.append(section_stamp(chain, date))
            if names_day:
                dated = heading
        return out


def kind_of(index: Index, nid: int) -> str:
    """``note_kind`` of note ``nid``, remembered by the index (a fact of that id)."""
    kinds = index.derived.get("kinds")
    if kinds is None:
        kinds = index.derived["kinds"] = {}
    kind = kinds.get(nid)
    if kind is None:
        kind = kinds[nid] = note_kind(index.notes[nid])
    return kind


def newest_date(index: Index) -> str | None:
    """The newest date of a live, unarchived note (``YYYY-MM-DD``; ``index.note_day``),
    remembered by the index with how many notes have it (``Index._add`` and ``remove``
    keep both up to date as notes come and go)."""
    found = index.derived.get("newest")
    if found is None:
        # From the columns, as ``note_day`` reads a row: building every note's row
        # would cost a cold start dear (the base's rows are read on first use).
        rows = zip(
            index.note_column("path"), index.note_column("date"), index.note_column("archived")
        )
        days = [
            str(date)[:10] for path, date, gone in rows if path is not None and date and not gone
        ]
        newest = max(days, default=None)
        found = index.derived["newest"] = (newest, days.count(newest) if newest else 0)
    return found[0]


def section_stamps(index: Index) -> SectionStamps:
    """The index's ``SectionStamps`` (facts of note ids: kept while the ids stand)."""
    stamps = index.derived.get("stamps")
    if stamps is None:
        stamps = index.derived["stamps"] = SectionStamps(index)
    return stamps
