"""A search process's view of a team index: the local ``Index``, fed from PostgreSQL.

``load_index(conn)`` reads the note rows and the section columns in one snapshot and
returns an ``Index`` whose posting maps (``RemotePostings``) fetch a term's postings
from the database the first time a search scores it. Ranking, the verdict, freshness
of sections and snippets then run the same code as on a local vault, over the same
numbers: the team index and a local one holding the same notes rank alike.

Ids are the database's (a removed note leaves a hole, as a tombstone does locally).
"""

from __future__ import annotations

import itertools
import operator
import sys
from array import array

from ..index import _STORED_FIELDS, Index, IndexCorruptError
from ..index_columns import NoteRows

__all__ = ["RemotePostings", "RemoteTerms", "current_seq", "follow_index", "load_index"]

_LITTLE = sys.byteorder == "little"
# Postings fetched in one round trip at most (a query's terms and their glossary forms).
_BATCH = 64


def _unpack(typecode: str, data: bytes) -> array:
    """Big-endian 4-byte integers (``int4send``) as an array."""
    values = array(typecode)
    values.frombytes(bytes(data))
    if _LITTLE:
        values.byteswap()
    return values


def current_seq(conn) -> int:
    """The change counter: it moves with every change a writer commits."""
    row = conn.execute("SELECT value::text::bigint FROM meta WHERE key = 'seq'").fetchone()
    return int(row[0]) if row else 0


class RemoteTerms:
    """What a search asks of the postings tables: whether terms exist (index probes
    only) and their postings (fetched for the terms scored), a batch per round trip,
    for both maps."""

    def __init__(self, conn, note_limit: int, note_first: array) -> None:
        self._conn = conn
        # notes from this id on came after the snapshot the index was loaded from
        self._limit = note_limit
        self._note_first = note_first
        self._exists: dict[str, bool] = {}
        self.sections = RemotePostings(self, "section_postings")
        self.fields = RemotePostings(self, "field_postings")

    def check(self, terms) -> None:
        """Learn which of ``terms`` each table holds (index probes, no postings read)."""
        wanted = [t for t in dict.fromkeys(terms) if t not in self._exists]
        for i in range(0, len(wanted), _BATCH):
            batch = wanted[i : i + _BATCH]
            found = {
                term: (in_sections, in_fields)
                for term, in_sections, in_fields in self._conn.execute(
                    "SELECT t, EXISTS (SELECT 1 FROM section_postings WHERE term = t "
                    "AND nid < %(limit)s), EXISTS (SELECT 1 FROM field_postings "
                    "WHERE term = t AND nid < %(limit)s) FROM unnest(%(terms)s::text[]) AS t",
                    {"terms": batch, "limit": self._limit},
                )
            }
            for term in batch:
                self._exists[term] = found.get(term, (False, False))

    def holds(self, term: str) -> bool:
        """Whether it is known if the index holds ``term``."""
        return term in self._exists

    def has(self, term: str) -> bool:
        """Whether the index holds ``term`` (``Index.has_term``); ``check`` it first."""
        return any(self._exists[term])

    def in_table(self, term: str, table: str) -> bool:
        if term not in self._exists:
            self.check([term])
        return self._exists[term][0 if table == "section_postings" else 1]

    def prefetch(self, terms) -> None:
        """Fetch the postings of ``terms`` not yet held, a batch per round trip."""
        held = self.sections._cache
        wanted = []
        for term in dict.fromkeys(terms):
            if term in held:
                continue
            if term in self._exists and not any(self._exists[term]):
                self.sections._cache[term] = self.fields._cache[term] = None
            else:
                wanted.append(term)
        for i in range(0, len(wanted), _BATCH):
            self._fetch(wanted[i : i + _BATCH])

    def _fetch(self, terms: list[str]) -> None:
        # One row per term and table, as packed 4-byte integers (int4send: big-endian)
        # the server assembles and this process unpacks in C: for sections, each
        # note's (id, number of its sections holding the term), then per such section
        # its place in its note and its code; the id is the note's first section id
        # plus the place. Rows of a term sit together once the table is clustered.
        rows = self._conn.execute(
            "SELECT 0, p.term, string_agg(int4send(p.nid) || int4send(cardinality(p.sections)), "
            "''::bytea ORDER BY p.nid) FILTER (WHERE u.o = 1), "
            "string_agg(int4send(u.place), ''::bytea ORDER BY p.nid, u.o), "
            "string_agg(int4send(u.code), ''::bytea ORDER BY p.nid, u.o) "
            "FROM section_postings p "
            "CROSS JOIN LATERAL unnest(p.sections, p.codes) WITH ORDINALITY AS u(place, code, o) "
            "WHERE p.term = ANY(%(terms)s) AND p.nid < %(limit)s GROUP BY p.term "
            "UNION ALL SELECT 1, term, NULL, string_agg(int4send(nid), ''::bytea ORDER BY nid), "
            "string_agg(int4send(code), ''::bytea ORDER BY nid) FROM field_postings "
            "WHERE term = ANY(%(terms)s) AND nid < %(limit)s GROUP BY term",
            {"terms": terms, "limit": self._limit},
        ).fetchall()
        found: tuple[dict, dict] = ({}, {})
        first = self._note_first
        for table, term, pairs, values, codes in rows:
            if pairs is None:  # title/tags: note ids
                ids = _unpack("I", values)
            else:
                heads = _unpack("i", pairs)
                starts = map(first.__getitem__, heads[0::2])
                bases = itertools.chain.from_iterable(map(itertools.repeat, starts, heads[1::2]))
                ids = array("I", map(operator.add, bases, _unpack("i", values)))
            found[table][term] = (ids, array("H", _unpack("I", codes)))
        for term in terms:
            self.sections._cache[term] = found[0].get(term)
            self.fields._cache[term] = found[1].get(term)
            self._exists[term] = (term in found[0], term in found[1])

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
        if term in self._cache:
            return self._cache[term] is not None
        return self._source.in_table(term, self._table)

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
    # every cached score goes (the fetched postings do): the removals have none to patch
    index._term_cache.clear()
    index._term_changes.clear()
    index._term_cached_postings = 0
    for nid in gone:
        if nid < len(index.notes) and index.notes[nid] is not None:
            index.remove(index.notes[nid]["path"])  # tombstoned, as a local index does
    if notes and notes[0][0] < len(index.notes):
        raise IndexCorruptError("team index notes came back under ids already held")
    _place(index, notes, sections)
    index._norms = None
    index.derived.clear()  # kinds and stamps are of ids; "newest" may have moved
    _attach_postings(index, conn)
    return seq


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
