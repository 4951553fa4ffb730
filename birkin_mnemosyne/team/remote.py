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

__all__ = ["RemotePostings", "RemoteTerms", "current_seq", "follow_index", "load_index"]

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


_NOTE_COLUMNS = "nid, meta, first_sid, section_count, tlen, glen"
_SECTION_COLUMNS = "sid, nid, heading, start_char, end_char, line, body_len, heading_len, stale"


def load_index(conn) -> tuple[Index, int]:
    """(the index as the database holds it now, the change counter it is of).

    One REPEATABLE READ snapshot: a writer committing meanwhile is seen whole or not at
    all. The posting maps read later through ``conn`` and ignore notes newer than the
    snapshot; the caller follows the counter (``follow_index``).
    """
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        seq = current_seq(conn)
        notes = conn.execute(f"SELECT {_NOTE_COLUMNS} FROM notes ORDER BY nid").fetchall()
        sections = conn.execute(f"SELECT {_SECTION_COLUMNS} FROM sections ORDER BY sid").fetchall()
    index = Index()
    index.notes = NoteRows()
    index.sec_heading = []
    _place(index, notes, sections)
    _attach_postings(index, conn)
    return index, seq


def follow_index(index: Index, conn, since: int) -> int:
    """Apply to ``index`` (loaded or followed to change ``since``) the changes committed
    after it: the notes removed leave (tombstoned, as a local index does), the notes
    stored come in under their ids. Returns the change counter it is now of. The
    postings fetched so far are dropped (the changed notes' terms are among them); the
    notes' rows, section columns and texts are kept, so a change of a few notes costs
    reading those notes, not the whole index again."""
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        seq = current_seq(conn)
        gone = [r[0] for r in conn.execute("SELECT nid FROM removed WHERE seq > %s", [since])]
        notes = conn.execute(
            f"SELECT {_NOTE_COLUMNS} FROM notes WHERE seq > %s ORDER BY nid", [since]
        ).fetchall()
        nids = [row[0] for row in notes]
        sections = conn.execute(
            f"SELECT {_SECTION_COLUMNS} FROM sections WHERE nid = ANY(%s) ORDER BY sid", [nids]
        ).fetchall()
    for nid in gone:
        if nid < len(index.notes) and index.notes[nid] is not None:
            _tombstone(index, nid)
    if notes and notes[0][0] < len(index.notes):
        raise IndexCorruptError("team index notes came back under ids already held")
    _place(index, notes, sections)
    index._term_cache.clear()
    index._term_changes.clear()
    index._term_cached_postings = 0
    index._norms = None
    index.derived.clear()  # kinds and stamps are of ids; "newest" may have moved
    _attach_postings(index, conn)
    return seq


def _tombstone(index: Index, nid: int) -> None:
    first, count = index.note_first[nid], index.note_count[nid]
    for sid in range(first, first + count):
        index.sec_note[sid] = -1
        index._sum["blen"] -= index.sec_blen[sid]
        index._sum["hlen"] -= index.sec_hlen[sid]
    index._sum["tlen"] -= index.note_tlen[nid] * count
    index._sum["glen"] -= index.note_glen[nid] * count
    index.live_sections -= count
    index.live_notes -= 1
    index.by_path.pop(index.notes[nid]["path"], None)
    index.notes[nid] = None


def _grow(values: array, size: int, fill: int = 0) -> None:
    if len(values) < size:
        values.extend(array(values.typecode, [fill]) * (size - len(values)))


def _place(index: Index, notes: list, sections: list) -> None:
    """Put ``notes`` (ascending ids, all above those held) and their ``sections`` into
    ``index``, growing its columns; a gap of ids is removed notes."""
    if notes:
        size = notes[-1][0] + 1
        for name in ("note_first", "note_count", "note_tlen", "note_glen"):
            _grow(getattr(index, name), size)
        rows = index.notes
        sums = index._sum
        for nid, meta, first, n, tlen, glen in notes:
            if set(meta) != set(_STORED_FIELDS):
                raise IndexCorruptError(f"team index note {nid} has other fields than expected")
            while len(rows) < nid:
                rows.append(None)
            rows.append(meta)
            index.by_path[meta["path"]] = nid
            index.note_first[nid], index.note_count[nid] = first, n
            index.note_tlen[nid], index.note_glen[nid] = tlen, glen
            sums["tlen"] += tlen * n
            sums["glen"] += glen * n
            index.live_sections += n
            index.live_notes += 1
    if sections:
        count = sections[-1][0] + 1
        _grow(index.sec_note, count, -1)
        for name in ("sec_start", "sec_end", "sec_line", "sec_blen", "sec_hlen"):
            _grow(getattr(index, name), count)
        if len(index.sec_stale) < count:
            index.sec_stale.extend(bytes(count - len(index.sec_stale)))
        headings = index.sec_heading
        if len(headings) < count:
            headings.extend([""] * (count - len(headings)))
        sums = index._sum
        for sid, nid, heading, start, end, line, blen, hlen, is_stale in sections:
            index.sec_note[sid] = nid
            index.sec_start[sid], index.sec_end[sid] = start, end
            index.sec_line[sid] = line
            index.sec_blen[sid], index.sec_hlen[sid] = blen, hlen
            index.sec_stale[sid] = 1 if is_stale else 0
            headings[sid] = heading
            sums["blen"] += blen
            sums["hlen"] += hlen
    if len(sections) != sum(row[3] for row in notes):
        raise IndexCorruptError("team index sections do not match their notes' counts")


def _attach_postings(index: Index, conn) -> None:
    remote = RemoteTerms(conn, len(index.notes), index.note_first)
    index.sections, index.note_fields = remote.sections, remote.fields
    index.derived["remote_terms"] = remote
