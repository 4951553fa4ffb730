"""The inverted index: compact postings and BM25F scoring over sections.

Retrieval unit
    A *section* (a ``##``/``###`` chunk of a note, see ``markdown.py``). A note's
    score is built from its sections' scores in ``ranking.py``.

Fields (BM25F, Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25
and Beyond", 2009, eq. 3.13-3.15)
    ``title`` and ``tags`` (tags + aliases) belong to the note and are inherited by
    every section of it; ``headings`` (the section's heading chain below the H1) and
    ``body`` belong to the section. For a term *t* and a section *s*::

        tf~(t,s) = sum_f  w_f * tf_f(t,s) / (1 - b_f + b_f * len_f(s) / avglen_f)
        score(t,s) = idf(t) * tf~ * (k1 + 1) / (k1 + tf~)
        idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))       # Lucene's non-negative idf

    where N is the number of live sections and df the number of live sections that
    contain *t* in any field (a title term counts for every section of its note).
    The per-field saturation is combined *before* the k1 saturation, which is what
    distinguishes BM25F from summing per-field BM25 scores.

Storage
    Section postings: term -> (section ids ascending, body tf, heading tf);
    note postings (title/tags): term -> (note ids ascending, title tf, tags tf).
    Held as ``array`` objects, and on disk as base64 of the arrays' bytes (ids
    delta-encoded) inside the zlib-compressed JSON cache, decoded lazily per term on
    first use. Removing a note tombstones its ids; new notes append ids, so postings
    stay sorted without rewriting; ``compact()`` drops tombstones when they pile up.
"""

from __future__ import annotations

import base64
import itertools
import math
import operator
import sys
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .document import NoteDoc

__all__ = ["BM25FParams", "Index", "IndexCorruptError", "QueryScores", "TermScores"]


class IndexCorruptError(ValueError):
    """Stored postings cannot be decoded or point outside the index (rebuild it)."""


_LITTLE = sys.byteorder == "little"


@dataclass(frozen=True)
class BM25FParams:
    """Field weights and length normalisation. Defaults: see benchmarks/retrieval."""

    k1: float = 1.2
    w_title: float = 3.0
    w_tags: float = 2.0
    w_headings: float = 2.0
    w_body: float = 1.0
    b_title: float = 0.5
    b_tags: float = 0.3
    b_headings: float = 0.5
    b_body: float = 0.75

    @classmethod
    def from_overrides(cls, overrides: dict | None) -> BM25FParams:
        if not overrides:
            return cls()
        valid = cls.__dataclass_fields__
        return cls(**{k: float(v) for k, v in overrides.items() if k in valid})


# Upper bound on cached per-term scores (sum of their section counts), about 100 MB.
_TERM_CACHE_POSTINGS = 1_000_000


@dataclass
class TermScores:
    """One term's scores: per section, best per note, and its df / idf."""

    contrib: dict[int, float]  # section id -> BM25F score of the term there
    note_best: dict[int, float]  # note id -> best section score of the term
    df: int
    idf: float


@dataclass
class QueryScores:
    """Per-section results of scoring a set of weighted terms."""

    scores: dict[int, float]  # section id -> summed BM25F score
    masks: dict[int, int]  # section id -> bitmask of matched term indexes
    df: list[int]  # per term: live sections containing it (any field)
    idf: list[float]


# -- postings encoding --------------------------------------------------------------
#
# A posting is (id, code) with ``code = tf_a | tf_b << 8`` (each tf capped at 255).
# Stored postings are text over the 64 URL-safe base64 letters (JSON needs no
# escaping), laid out in the spirit of PFor (Zukowski et al., "Super-Scalar RAM-CPU
# Cache Compression", ICDE 2006): the count, then one symbol per number holding
# ``min(value, 31)``, then the values >= 31 ("exceptions") as varints in order. The
# numbers are: first id, its code, then (id delta, code) per further posting; a code
# becomes a small value (0-31 when ``tf_a < 16`` and ``tf_b <= 1``, else 32 + code).
# The main block is built and read with C-level bytes operations; Python touches
# only the exceptions. zlib then compresses the small alphabet well.
#
# Varint symbols: 5 payload bits and a continuation bit, little-endian groups.

_ALPHABET = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_TO_VALUE = bytes.maketrans(_ALPHABET, bytes(range(64)))
_TO_SYMBOL = bytes.maketrans(bytes(range(64)), _ALPHABET)
_ESCAPE = 31
# one-symbol code values 0-31 -> code
_SMALL_CODES = tuple(range(16)) + tuple(256 + b for b in range(16))


def _small(code: int) -> int:
    """code -> value: 0-31 for the common small codes, else 32 + code."""
    if code < 16:
        return code
    if 256 <= code < 272:
        return code - 240
    return 32 + code


def _value_code(value: int) -> int:
    return _SMALL_CODES[value] if value < 32 else value - 32


def _put(out: bytearray, value: int) -> None:
    while value >= 32:
        out.append(_ALPHABET[32 | (value & 31)])
        value >>= 5
    out.append(_ALPHABET[value])


def _varints(values: bytes, start: int) -> tuple[list[int], int]:
    """Read varints from symbol values until the end; returns (numbers, end)."""
    numbers, value, shift = [], 0, 0
    for symbol in values[start:]:
        value |= (symbol & 31) << shift
        if symbol & 32:
            shift += 5
            continue
        numbers.append(value)
        value = shift = 0
    if shift:
        raise ValueError("postings text ends inside a number")
    return numbers, len(values)


def encode_postings(ids, codes) -> str:
    """Postings (ids ascending, codes) -> text."""
    n = len(ids)
    if not n:
        return ""
    ids = list(ids)
    values = [0] * (2 * n)
    values[0] = ids[0]
    values[2::2] = map(operator.sub, ids[1:], ids[:-1])
    values[1::2] = [c if c < 16 else _small(c) for c in codes]
    out = bytearray()
    _put(out, n)
    out += bytes(map(min, values, itertools.repeat(_ESCAPE))).translate(_TO_SYMBOL)
    for value in values:
        if value >= _ESCAPE:
            _put(out, value)
    return out.decode("ascii")


def decode_postings(blob: str) -> tuple[array, array]:
    """Text -> (ids as array('I'), codes as array('H'))."""
    raw = blob.encode("ascii")
    if raw.translate(None, _ALPHABET):
        raise ValueError("postings text holds a symbol outside the alphabet")
    symbols = raw.translate(_TO_VALUE)
    if not symbols:
        return array("I"), array("H")
    n = shift = position = 0
    for position, symbol in enumerate(symbols):  # noqa: B007 - used after the loop
        n |= (symbol & 31) << shift
        shift += 5
        if not symbol & 32:
            break
    start = position + 1
    main = symbols[start : start + 2 * n]
    if len(main) != 2 * n or max(main) > _ESCAPE:
        raise ValueError("postings text is shorter than its count")
    exceptions, _ = _varints(symbols, start + 2 * n)
    if len(exceptions) != main.count(_ESCAPE):
        raise ValueError("postings text has the wrong number of exceptions")
    if exceptions:
        values = list(main)
        at = -1
        for value in exceptions:
            at = main.index(_ESCAPE, at + 1)
            values[at] = value
    else:
        values = main
    ids = array("I", itertools.accumulate(values[0::2]))
    small = values[1::2]
    if not exceptions or max(small) < 32:
        codes = array("H", map(_SMALL_CODES.__getitem__, small))
    else:
        codes = array("H", map(_value_code, small))
    return ids, codes


def _encode_ints(values: Iterable[int], code: str = "i") -> str:
    return base64.b64encode(_to_bytes(array(code, values))).decode("ascii")


def _decode_ints(blob: str, code: str = "i") -> array:
    return _from_bytes(code, base64.b64decode(blob))


def _to_bytes(values: array) -> bytes:
    if not _LITTLE:
        values = array(values.typecode, values)
        values.byteswap()
    return values.tobytes()


def _from_bytes(typecode: str, data: bytes) -> array:
    values = array(typecode)
    values.frombytes(data)
    if not _LITTLE:
        values.byteswap()
    return values


class _PostingMap:
    """term -> postings: stored text, decoded on first use, plus pending appends.

    Appends (new notes get ids above every existing one) go to a flat per-term list
    ``[id, code, id, code, ...]``, the cheapest thing Python can grow; they are merged
    into the decoded arrays when the term is next read or the map is dumped.
    """

    def __init__(self, stored: dict[str, str] | None = None) -> None:
        self._stored: dict[str, str] = dict(stored or {})
        self._decoded: dict[str, tuple[array, array]] = {}
        self.pending: dict[str, list[int]] = {}  # Index.add appends here directly
        self._dirty: set[str] = set()  # decoded forms newer than their stored text

    def get(self, term: str) -> tuple[array, array] | None:
        postings = self._decoded.get(term)
        if postings is None:
            blob = self._stored.get(term)
            if blob is not None:
                try:
                    postings = decode_postings(blob)
                except (ValueError, TypeError, UnicodeError, IndexError) as exc:
                    raise IndexCorruptError(f"postings of {term!r} cannot be decoded") from exc
                self._decoded[term] = postings
        extra = self.pending.pop(term, None)
        if extra:
            if postings is None:
                postings = (array("I"), array("H"))
            postings[0].extend(extra[0::2])
            postings[1].extend(extra[1::2])
            self._decoded[term] = postings
            self._dirty.add(term)
        return postings

    def __contains__(self, term: str) -> bool:
        return term in self._stored or term in self._decoded or term in self.pending

    def terms(self) -> set[str]:
        return self._stored.keys() | self._decoded.keys() | self.pending.keys()

    def dump(self) -> dict[str, str]:
        for term in list(self.pending):
            self.get(term)
        for term in self._dirty:
            ids, codes = self._decoded[term]
            if ids:
                self._stored[term] = encode_postings(ids, codes)
            else:
                self._stored.pop(term, None)
        self._dirty.clear()
        return self._stored

    def remap(self, mapping: array) -> None:
        """Rewrite ids through ``mapping`` (old id -> new id, -1 = dropped)."""
        fresh: dict[str, tuple[array, array]] = {}
        for term in list(self.terms()):
            ids, codes = self.get(term)
            new_ids, new_codes = array("I"), array("H")
            for doc_id, code in zip(ids, codes):
                new_id = mapping[doc_id]
                if new_id >= 0:
                    new_ids.append(new_id)
                    new_codes.append(code)
            if new_ids:
                fresh[term] = (new_ids, new_codes)
        self._stored = {}
        self._decoded = fresh
        self.pending = {}
        self._dirty = set(fresh)


# -- the index ----------------------------------------------------------------------

_NOTE_FIELDS = (
    "path",
    "mtime_ns",
    "size",
    "version",
    "title",
    "zone",
    "archived",
    "note_type",
    "tags",
    "labels",
    "date",
    "created",
    "updated",
    "stale",
    "superseded_by",
    "links",
    "indexed",
    "body_offset",
)


class Index:
    """Notes, sections and postings of one vault (no I/O; see ``engine`` for that)."""

    def __init__(self) -> None:
        self.notes: list[dict | None] = []  # note id -> metadata (None = removed)
        self.by_path: dict[str, int] = {}
        self.note_first = array("i")  # first section id of the note
        self.note_count = array("i")  # number of sections
        self.note_tlen = array("i")  # title length (terms)
        self.note_glen = array("i")  # tags length (terms)
        self.sec_note = array("i")  # section id -> note id (-1 = removed)
        self.sec_start = array("i")
        self.sec_end = array("i")
        self.sec_line = array("i")
        self.sec_blen = array("i")
        self.sec_hlen = array("i")
        self.sec_stale = bytearray()
        self.sec_heading: list[str] = []
        self.sec_chain: list[list[str]] = []
        self.sections = _PostingMap()  # body tf / heading tf
        self.note_fields = _PostingMap()  # title tf / tags tf
        self.live_sections = 0
        self.live_notes = 0
        self._sum = {"blen": 0, "hlen": 0, "tlen": 0, "glen": 0}  # over live sections
        self._norms: tuple | None = None  # cached per-id normalisers, see _normalisers
        self._term_cache: dict[str, TermScores] = {}
        self._term_params: BM25FParams | None = None
        self._term_cached_postings = 0

    # -- building --------------------------------------------------------------------

    def add(self, doc: NoteDoc) -> int:
        """Add a parsed note (replacing any note at the same path). Returns its id."""
        if doc.path in self.by_path:
            self.remove(doc.path)
        nid = len(self.notes)
        meta = {name: getattr(doc, name) for name in _NOTE_FIELDS}
        meta["warnings"] = [w.to_dict() for w in doc.warnings]
        self.notes.append(meta)
        self.by_path[doc.path] = nid
        first = len(self.sec_note)
        tlen = sum(doc.title_tf.values())
        glen = sum(doc.tags_tf.values())
        sections = doc.sections if doc.indexed else []
        self.note_first.append(first)
        self.note_count.append(len(sections))
        self.note_tlen.append(tlen)
        self.note_glen.append(glen)
        pending = self.sections.pending
        for offset, sec in enumerate(sections):
            sid = first + offset
            self.sec_note.append(nid)
            self.sec_start.append(sec.start)
            self.sec_end.append(sec.end)
            self.sec_line.append(sec.line)
            self.sec_blen.append(sec.body_len)
            self.sec_hlen.append(sec.heading_len)
            self.sec_stale.append(1 if sec.stale else 0)
            self.sec_heading.append(sec.heading)
            self.sec_chain.append(list(sec.chain))
            heading_tf = sec.heading_tf
            # The hot loop of indexing: one dict lookup and two appends per posting.
            for term, tf in sec.body_tf.items():
                code = (tf if tf < 255 else 255) | (
                    min(heading_tf[term], 255) << 8 if term in heading_tf else 0
                )
                slot = pending.get(term)
                if slot is None:
                    pending[term] = [sid, code]
                else:
                    slot.append(sid)
                    slot.append(code)
            for term, tf in heading_tf.items():
                if term not in sec.body_tf:
                    slot = pending.get(term)
                    if slot is None:
                        pending[term] = [sid, min(tf, 255) << 8]
                    else:
                        slot.append(sid)
                        slot.append(min(tf, 255) << 8)
            self._sum["blen"] += sec.body_len
            self._sum["hlen"] += sec.heading_len
        if sections:
            fields = self.note_fields.pending
            for term in doc.title_tf.keys() | doc.tags_tf.keys():
                code = min(doc.title_tf.get(term, 0), 255) | (
                    min(doc.tags_tf.get(term, 0), 255) << 8
                )
                slot = fields.get(term)
                if slot is None:
                    fields[term] = [nid, code]
                else:
                    slot.append(nid)
                    slot.append(code)
        self._sum["tlen"] += tlen * len(sections)
        self._sum["glen"] += glen * len(sections)
        self.live_sections += len(sections)
        self.live_notes += 1
        self._invalidate()
        return nid

    def remove(self, path: str) -> bool:
        """Tombstone the note at ``path`` and its sections."""
        nid = self.by_path.pop(path, None)
        if nid is None:
            return False
        first, count = self.note_first[nid], self.note_count[nid]
        for sid in range(first, first + count):
            self.sec_note[sid] = -1
            self._sum["blen"] -= self.sec_blen[sid]
            self._sum["hlen"] -= self.sec_hlen[sid]
        self._sum["tlen"] -= self.note_tlen[nid] * count
        self._sum["glen"] -= self.note_glen[nid] * count
        self.live_sections -= count
        self.live_notes -= 1
        self.notes[nid] = None
        self._invalidate()
        return True

    def _invalidate(self) -> None:
        self._norms = None
        if self._term_cache:
            self._term_cache.clear()
            self._term_cached_postings = 0

    @property
    def dead_fraction(self) -> float:
        total = len(self.sec_note) + len(self.notes)
        return 0.0 if not total else 1 - (self.live_sections + self.live_notes) / total

    def compact(self) -> None:
        """Drop tombstoned notes and sections, renumbering ids (order is kept)."""
        note_map = array("i", [-1]) * len(self.notes)
        sec_map = array("i", [-1]) * len(self.sec_note)
        fresh = Index()
        for nid, meta in enumerate(self.notes):
            if meta is None:
                continue
            new_nid = len(fresh.notes)
            note_map[nid] = new_nid
            fresh.notes.append(meta)
            fresh.by_path[meta["path"]] = new_nid
            first, count = self.note_first[nid], self.note_count[nid]
            fresh.note_first.append(len(fresh.sec_note))
            fresh.note_count.append(count)
            fresh.note_tlen.append(self.note_tlen[nid])
            fresh.note_glen.append(self.note_glen[nid])
            for sid in range(first, first + count):
                sec_map[sid] = len(fresh.sec_note)
                fresh.sec_note.append(new_nid)
                fresh.sec_start.append(self.sec_start[sid])
                fresh.sec_end.append(self.sec_end[sid])
                fresh.sec_line.append(self.sec_line[sid])
                fresh.sec_blen.append(self.sec_blen[sid])
                fresh.sec_hlen.append(self.sec_hlen[sid])
                fresh.sec_stale.append(self.sec_stale[sid])
                fresh.sec_heading.append(self.sec_heading[sid])
                fresh.sec_chain.append(self.sec_chain[sid])
        self.sections.remap(sec_map)
        self.note_fields.remap(note_map)
        fresh.sections, fresh.note_fields = self.sections, self.note_fields
        fresh.live_sections, fresh.live_notes = self.live_sections, self.live_notes
        fresh._sum = dict(self._sum)
        self.__dict__.update(fresh.__dict__)
        self._invalidate()

    # -- lookups ---------------------------------------------------------------------

    def note(self, nid: int) -> dict:
        return self.notes[nid]

    def live_note_ids(self) -> Iterator[int]:
        return (nid for nid, meta in enumerate(self.notes) if meta is not None)

    def note_sections(self, nid: int) -> range:
        first = self.note_first[nid]
        return range(first, first + self.note_count[nid])

    def has_term(self, term: str) -> bool:
        return term in self.sections or term in self.note_fields

    def vocabulary_size(self) -> int:
        return len(self.sections.terms() | self.note_fields.terms())

    # -- scoring ---------------------------------------------------------------------

    def _normalisers(self, params: BM25FParams) -> tuple:
        """Per-section and per-note ``w_f / (1 - b_f + b_f * len / avglen)`` columns."""
        if self._norms is not None and self._norms[0] == params:
            return self._norms
        n = max(self.live_sections, 1)
        avg = {k: (v / n) or 1.0 for k, v in self._sum.items()}

        def column(lengths: array, w: float, b: float, avglen: float) -> array:
            inv = b / avglen
            base = 1.0 - b
            return array("d", (w / (base + inv * x) for x in lengths))

        norms = (
            params,
            column(self.sec_blen, params.w_body, params.b_body, avg["blen"]),
            column(self.sec_hlen, params.w_headings, params.b_headings, avg["hlen"]),
            column(self.note_tlen, params.w_title, params.b_title, avg["tlen"]),
            column(self.note_glen, params.w_tags, params.b_tags, avg["glen"]),
        )
        self._norms = norms
        return norms

    def term_scores(self, term: str, params: BM25FParams | None = None) -> TermScores:
        """BM25F score of ``term`` in every live section that contains it (cached).

        The cache holds the scores of recently queried terms; any change to the index
        clears it (N, df and average lengths move), so a warm query costs only
        dictionary lookups.
        """
        params = params or BM25FParams()
        if self._term_params != params:
            self._term_cache.clear()
            self._term_params = params
        cached = self._term_cache.get(term)
        if cached is not None:
            return cached
        _, bnorm, hnorm, tnorm, gnorm = self._normalisers(params)
        sec_note = self.sec_note
        tf_tilde: dict[int, float] = {}
        postings = self.sections.get(term)
        if postings is not None:
            ids, codes = postings
            if ids and ids[-1] >= len(sec_note):
                raise IndexCorruptError(f"postings of {term!r} point past the last section")
            for sid, code in zip(ids, codes):
                if sec_note[sid] >= 0:
                    if code < 256:
                        tf_tilde[sid] = code * bnorm[sid]
                    else:
                        tf_tilde[sid] = (code & 255) * bnorm[sid] + (code >> 8) * hnorm[sid]
        field_postings = self.note_fields.get(term)
        if field_postings is not None:
            notes = self.notes
            ids, codes = field_postings
            if ids and ids[-1] >= len(notes):
                raise IndexCorruptError(f"postings of {term!r} point past the last note")
            for nid, code in zip(ids, codes):
                if notes[nid] is None:
                    continue
                extra = (code & 255) * tnorm[nid] + (code >> 8) * gnorm[nid]
                first = self.note_first[nid]
                for sid in range(first, first + self.note_count[nid]):
                    tf_tilde[sid] = tf_tilde.get(sid, 0.0) + extra
        df = len(tf_tilde)
        n_live = self.live_sections
        idf = math.log(1.0 + (n_live - df + 0.5) / (df + 0.5)) if df else 0.0
        k1 = params.k1
        factor = idf * (k1 + 1.0)
        contrib = {sid: factor * x / (k1 + x) for sid, x in tf_tilde.items()}
        note_best: dict[int, float] = {}
        for sid, value in contrib.items():
            nid = sec_note[sid]
            if value > note_best.get(nid, 0.0):
                note_best[nid] = value
        result = TermScores(contrib, note_best, df, idf)
        self._term_cache[term] = result
        self._term_cached_postings += df
        while self._term_cached_postings > _TERM_CACHE_POSTINGS and len(self._term_cache) > 1:
            oldest = next(iter(self._term_cache))
            self._term_cached_postings -= self._term_cache.pop(oldest).df
        return result

    def score_terms(self, terms: list[str], params: BM25FParams | None = None) -> QueryScores:
        """Summed BM25F scores of every live section for ``terms`` (used by tests/tools)."""
        scores: dict[int, float] = {}
        masks: dict[int, int] = {}
        dfs, idfs = [], []
        for index, term in enumerate(terms):
            ts = self.term_scores(term, params)
            dfs.append(ts.df)
            idfs.append(ts.idf)
            for sid, value in ts.contrib.items():
                scores[sid] = scores.get(sid, 0.0) + value
                masks[sid] = masks.get(sid, 0) | (1 << index)
        return QueryScores(scores, masks, dfs, idfs)

    def sections_with_all(self, terms: list[str]) -> set[int] | None:
        """Live section ids whose body or headings contain every term (None = no terms)."""
        result: set[int] | None = None
        for term in terms:
            postings = self.sections.get(term)
            found = set() if postings is None else set(postings[0])
            result = found if result is None else result & found
            if not result:
                return set()
        if result is None:
            return None
        return {sid for sid in result if self.sec_note[sid] >= 0}

    # -- serialisation ---------------------------------------------------------------

    def to_json(self) -> dict:
        notes = []
        for meta in self.notes:
            notes.append(
                None if meta is None else [meta.get(k) for k in (*_NOTE_FIELDS, "warnings")]
            )
        return {
            "note_fields_order": [*_NOTE_FIELDS, "warnings"],
            "notes": notes,
            "note_first": _encode_ints(self.note_first),
            "note_count": _encode_ints(self.note_count),
            "note_tlen": _encode_ints(self.note_tlen),
            "note_glen": _encode_ints(self.note_glen),
            "sec_note": _encode_ints(self.sec_note),
            "sec_start": _encode_ints(self.sec_start),
            "sec_end": _encode_ints(self.sec_end),
            "sec_line": _encode_ints(self.sec_line),
            "sec_blen": _encode_ints(self.sec_blen),
            "sec_hlen": _encode_ints(self.sec_hlen),
            "sec_stale": base64.b64encode(bytes(self.sec_stale)).decode("ascii"),
            "sec_heading": self.sec_heading,
            "sec_chain": self.sec_chain,
            "sections": self.sections.dump(),
            "note_fields": self.note_fields.dump(),
            "sums": self._sum,
            "live_sections": self.live_sections,
            "live_notes": self.live_notes,
        }

    @classmethod
    def from_json(cls, data: dict) -> Index:
        index = cls()
        order = data["note_fields_order"]
        for nid, row in enumerate(data["notes"]):
            if row is None:
                index.notes.append(None)
                continue
            meta = dict(zip(order, row))
            index.notes.append(meta)
            index.by_path[meta["path"]] = nid
        index.note_first = _decode_ints(data["note_first"])
        index.note_count = _decode_ints(data["note_count"])
        index.note_tlen = _decode_ints(data["note_tlen"])
        index.note_glen = _decode_ints(data["note_glen"])
        index.sec_note = _decode_ints(data["sec_note"])
        index.sec_start = _decode_ints(data["sec_start"])
        index.sec_end = _decode_ints(data["sec_end"])
        index.sec_line = _decode_ints(data["sec_line"])
        index.sec_blen = _decode_ints(data["sec_blen"])
        index.sec_hlen = _decode_ints(data["sec_hlen"])
        index.sec_stale = bytearray(base64.b64decode(data["sec_stale"]))
        index.sec_heading = list(data["sec_heading"])
        index.sec_chain = list(data["sec_chain"])
        index.sections = _PostingMap(data["sections"])
        index.note_fields = _PostingMap(data["note_fields"])
        index._sum = {k: int(v) for k, v in data["sums"].items()}
        index.live_sections = int(data["live_sections"])
        index.live_notes = int(data["live_notes"])
        lengths = {len(index.notes), len(index.note_first), len(index.note_count)}
        sec_lengths = {len(index.sec_note), len(index.sec_start), len(index.sec_heading)}
        if len(lengths) != 1 or len(sec_lengths) != 1:
            raise ValueError("index columns have different lengths")
        return index
