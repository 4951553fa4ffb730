"""A search process's view of a team index: the local ``Index``, fed from PostgreSQL.

``load_index(conn)`` reads the note rows and the section columns in one snapshot and
returns an ``Index`` whose posting maps (``RemotePostings``) fetch a term's postings
from the database the first time a search scores it. Ranking, the verdict, freshness
of sections and snippets then run the same code as on a local vault, over the same
numbers: the team index and a local one holding the same notes rank alike.

Ids are the database's (a removed note leaves a hole, as a tombstone does locally).
"""

from __future__ import annotations

from array import array

from ..index import _STORED_FIELDS, Index, IndexCorruptError
from ..index_columns import NoteRows

__all__ = ["RemotePostings", "RemoteTerms", "current_seq", "load_index"]

# Postings fetched in one round trip at most (a query's terms and their glossary forms).
_BATCH = 64


def current_seq(conn) -> int:
    """The change counter: it moves with every change a writer commits."""
    row = conn.execute("SELECT value::text::bigint FROM meta WHERE key = 'seq'").fetchone()
    return int(row[0]) if row else 0


class RemoteTerms:
    """Fetches terms' postings from both tables in one round trip, for both maps."""

    def __init__(self, conn, note_limit: int, note_first: array) -> None:
        self._conn = conn
        self._note_first = note_first
        # notes from this id on came after the snapshot the index was loaded from
        self._limit = note_limit
        self.sections = RemotePostings(self, "section_postings")
        self.fields = RemotePostings(self, "field_postings")

    def prefetch(self, terms) -> None:
        """Fetch the postings of ``terms`` not yet held, a batch per round trip."""
        held = self.sections._cache
        wanted = [t for t in dict.fromkeys(terms) if t not in held]
        for i in range(0, len(wanted), _BATCH):
            self._fetch(wanted[i : i + _BATCH])

    def _fetch(self, terms: list[str]) -> None:
        rows = self._conn.execute(
            "SELECT 0, term, nid, sections, codes FROM section_postings "
            "WHERE term = ANY(%(terms)s) AND nid < %(limit)s "
            "UNION ALL SELECT 1, term, nid, NULL, ARRAY[code] FROM field_postings "
            "WHERE term = ANY(%(terms)s) AND nid < %(limit)s ORDER BY 1, 2, 3",
            {"terms": terms, "limit": self._limit},
        ).fetchall()
        found: tuple[dict, dict] = ({}, {})
        first = self._note_first
        for table, term, nid, places, codes in rows:
            slot = found[table].get(term)
            if slot is None:
                slot = found[table][term] = (array("I"), array("H"))
            if places is None:  # a title/tags posting: the note's id
                slot[0].append(nid)
            else:  # a section's place in its note -> its id
                slot[0].extend(map(first[nid].__add__, places))
            slot[1].extend(codes)
        for term in terms:
            self.sections._cache[term] = found[0].get(term)
            self.fields._cache[term] = found[1].get(term)

    def holds(self, term: str) -> bool:
        """Whether ``term``'s postings (or their absence) are already fetched."""
        return term in self.sections._cache

    def has(self, term: str) -> bool:
        """Whether a fetched ``term`` is in the index (``Index.has_term``)."""
        return self.sections._cache[term] is not None or self.fields._cache[term] is not None

    def count(self, table: str) -> int:
        return self._conn.execute(f"SELECT count(DISTINCT term) FROM {table}").fetchone()[0]

    def terms(self, table: str) -> set[str]:
        return {row[0] for row in self._conn.execute(f"SELECT DISTINCT term FROM {table}")}


class RemotePostings:
    """term -> (ids ascending, codes) of one postings table, fetched on first use.

    ``section_postings`` (ids = section ids, from the per-note id arrays) or
    ``field_postings`` (ids = note ids). What ``Index`` asks of a posting map: ``get``,
    ``in``, ``count``, ``terms``, and ``pending`` (always empty here: a search process
    never adds notes, ingest does).
    """

    def __init__(self, source: RemoteTerms, table: str) -> None:
        self._source = source
        self._table = table
        self._cache: dict[str, tuple[array, array] | None] = {}
        self.pending: dict = {}

    def get(self, term: str):
        if term not in self._cache:
            self._source.prefetch([term])
        return self._cache[term]

    def __contains__(self, term: str) -> bool:
        return self.get(term) is not None

    def count(self) -> int:
        return self._source.count(self._table)

    def terms(self) -> set[str]:
        return self._source.terms(self._table)


def load_index(conn) -> tuple[Index, int]:
    """(the index as the database holds it now, the change counter it is of).

    One REPEATABLE READ snapshot: a writer committing meanwhile is seen whole or not at
    all. The posting maps read later through ``conn``; the caller reloads when the
    counter moves (``current_seq``), so they never mix two states for long.
    """
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        seq = current_seq(conn)
        notes = conn.execute(
            "SELECT nid, meta, first_sid, section_count, tlen, glen FROM notes ORDER BY nid"
        ).fetchall()
        sections = conn.execute(
            "SELECT sid, nid, heading, start_char, end_char, line, body_len, heading_len, "
            "stale FROM sections ORDER BY sid"
        ).fetchall()
    index = Index()
    size = notes[-1][0] + 1 if notes else 0
    count = sections[-1][0] + 1 if sections else 0
    rows: list = [None] * size
    note_first = array("i", bytes(4 * size))
    note_count = array("i", bytes(4 * size))
    note_tlen = array("i", bytes(4 * size))
    note_glen = array("i", bytes(4 * size))
    sums = {"blen": 0, "hlen": 0, "tlen": 0, "glen": 0}
    live_sections = 0
    for nid, meta, first, n, tlen, glen in notes:
        if set(meta) != set(_STORED_FIELDS):
            raise IndexCorruptError(f"team index note {nid} has other fields than expected")
        rows[nid] = meta
        note_first[nid], note_count[nid] = first, n
        note_tlen[nid], note_glen[nid] = tlen, glen
        sums["tlen"] += tlen * n
        sums["glen"] += glen * n
        live_sections += n
    sec_note = array("i", [-1]) * count
    columns = {
        name: array("i", bytes(4 * count)) for name in ("start", "end", "line", "blen", "hlen")
    }
    stale = bytearray(count)
    headings = [""] * count
    for sid, nid, heading, start, end, line, blen, hlen, is_stale in sections:
        sec_note[sid] = nid
        columns["start"][sid], columns["end"][sid] = start, end
        columns["line"][sid] = line
        columns["blen"][sid], columns["hlen"][sid] = blen, hlen
        stale[sid] = 1 if is_stale else 0
        headings[sid] = heading
        sums["blen"] += blen
        sums["hlen"] += hlen
    if len(sections) != live_sections:
        raise IndexCorruptError("team index sections do not match their notes' counts")
    index.notes = NoteRows()
    for row in rows:
        index.notes.append(row)
    index.by_path = {meta["path"]: nid for nid, meta, *_ in notes}
    index.note_first, index.note_count = note_first, note_count
    index.note_tlen, index.note_glen = note_tlen, note_glen
    index.sec_note = sec_note
    index.sec_start, index.sec_end = columns["start"], columns["end"]
    index.sec_line = columns["line"]
    index.sec_blen, index.sec_hlen = columns["blen"], columns["hlen"]
    index.sec_stale = stale
    index.sec_heading = headings
    remote = RemoteTerms(conn, size, note_first)
    index.sections, index.note_fields = remote.sections, remote.fields
    index.derived["remote_terms"] = remote
    index._sum = sums
    index.live_sections = live_sections
    index.live_notes = len(notes)
    return index, seq
