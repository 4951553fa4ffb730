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
    Held as ``array`` objects, and on disk as postings text in zlib blocks (the
    base's blocks plus tails, ``_PostingMap``; docs/reference/index-format.md), decoded
    lazily per term on first use. Removing a note tombstones its ids; new notes append
    ids, so postings stay sorted without rewriting; ``compact()`` drops tombstones when
    they pile up. ``note_record`` / ``add_record`` carry a note through the index log.
"""

from __future__ import annotations

import base64
import bisect
import itertools
import math
import operator
import random
import sys
import zlib
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .index_columns import (
    ChunkedList,
    IndexCorruptError,
    NoteRows,
    of_types,
    read_chunks,
    write_chunks,
)

if TYPE_CHECKING:
    from .document import NoteDoc

__all__ = [
    "BM25FParams",
    "Index",
    "IndexCorruptError",
    "QueryScores",
    "SortedMap",
    "TermScores",
    "note_record",
]


_LITTLE = sys.byteorder == "little"


@dataclass(frozen=True)
class BM25FParams:
    """Field weights and length normalisation.

    First choices (title and headings weigh more than body, as in most BM25F setups),
    checked on the retrieval benchmark's dev split (2026-11-30): changing any one of
    k1, w_title, w_headings, w_tags, b_body, b_headings up or down moved MRR@10 by at
    most 0.007 at 1,000 and 10,000 notes, in no consistent direction, so they stay.
    Re-checked on the Tessellate dev vault (2026-12-02, MRR 0.825): w_title 2 / 5,
    w_headings 1 / 3, w_tags 1 / 3, k1 0.9 / 1.6 and b_body 0.5 / 0.9 gave 0.816-0.826.
    """

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


def _field_norms(params: BM25FParams, avg: dict[str, float]) -> tuple[tuple[float, ...], ...]:
    """Per field (body, headings, title, tags): (weight, 1 - b, b / average length), so
    ``w * tf / (base + slope * len)`` is its BM25F part. One place for ``term_scores``
    and ``_patched``, which must compute the same floats."""
    return tuple(
        (getattr(params, f"w_{name}"), 1 - b, b / avg[length])
        for name, length in (
            ("body", "blen"),
            ("headings", "hlen"),
            ("title", "tlen"),
            ("tags", "glen"),
        )
        for b in (getattr(params, f"b_{name}"),)
    )


def _cut(keys: array, values: array, cuts: list[tuple[int, int]]) -> tuple[array, array]:
    """Copies of two parallel arrays without the positions ``[lo, hi)`` of ``cuts``
    (ascending, not overlapping): slices, so C speed whatever their length."""
    out_keys, out_values = array(keys.typecode), array(values.typecode)
    start = 0
    for lo, hi in cuts:
        out_keys.extend(keys[start:lo])
        out_values.extend(values[start:lo])
        start = hi
    out_keys.extend(keys[start:])
    out_values.extend(values[start:])
    return out_keys, out_values


def note_day(meta: dict) -> str | None:
    """The day (``YYYY-MM-DD``) a live, unarchived note is dated, else None."""
    if meta.get("archived") or not meta.get("date"):
        return None
    return str(meta["date"])[:10]


# A cached term's scores are patched for at most this many notes that left or came
# since they were computed (``Index._term_changed``); past it, they are dropped.
_MAX_TERM_CHANGES = 64

# Collection statistics keep this many leading bits (``_coarse``).
_STAT_BITS = 8


def _coarse(value: int) -> int:
    """``value`` with all but its ``_STAT_BITS`` leading bits cleared: at most 1/128 below
    it. Scores are computed with coarse counts and lengths, so that one note more or
    less seldom moves them and the cached scores of the terms it does not hold stay
    valid (``Index.term_scores``); BM25's normalisation does not need more precision."""
    shift = value.bit_length() - _STAT_BITS
    return value if shift <= 0 else (value >> shift) << shift


# Upper bound on cached per-term scores (sum of their section counts). Held as arrays
# (an estimated ~35 bytes a section posting with its notes' share, so ~400 MB at most;
# the dicts held before took several times that a posting and were capped at 3
# million). The footprint benchmark's 200 queries at 100k notes touched ~9.8 million
# before the glossary; with it, more than the cap (2026-12-02, 104k vault: ~1,200 terms,
# ~1,020 of them cached at the cap), hence random victims (``term_scores``).
_TERM_CACHE_POSTINGS = 12_000_000


class SortedMap:
    """A read-only int -> number mapping over two parallel arrays, keys ascending.

    What ``TermScores`` holds instead of dicts: 12-16 bytes an entry rather than ~100,
    so the term cache keeps several times more terms in the same memory. Lookups are
    a ``bisect``; iteration is in key order.
    """

    __slots__ = ("_keys", "_values")

    def __init__(self, keys: array, values: array) -> None:
        if len(keys) != len(values):
            raise ValueError("a SortedMap needs as many values as keys")
        self._keys = keys
        self._values = values

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        keys = self._keys
        i = bisect.bisect_left(keys, key)
        return i < len(keys) and keys[i] == key

    def get(self, key: int, default=None):
        keys = self._keys
        i = bisect.bisect_left(keys, key)
        if i < len(keys) and keys[i] == key:
            return self._values[i]
        return default

    def __getitem__(self, key: int):
        keys = self._keys
        i = bisect.bisect_left(keys, key)
        if i < len(keys) and keys[i] == key:
            return self._values[i]
        raise KeyError(key)

    def keys(self) -> array:
        return self._keys

    def values(self) -> array:
        return self._values

    def items(self) -> Iterator[tuple[int, float]]:
        return zip(self._keys, self._values)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SortedMap):
            return self._keys == other._keys and self._values == other._values
        if isinstance(other, dict):
            return dict(self.items()) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SortedMap({dict(self.items())!r})"


@dataclass
class TermScores:
    """One term's scores: per section, best per note, and its df / idf.

    The maps are ``SortedMap``s (arrays, ids ascending): the term cache holds them.
    """

    contrib: SortedMap  # section id -> BM25F score of the term there
    note_best: SortedMap  # note id -> best section score of the term
    note_best_sid: SortedMap  # note id -> the section holding it
    note_second: SortedMap  # note id -> second-best (notes with 2+ such sections)
    df: int
    idf: float
    second_all: array  # second-best score per note of ``note_best``, 0.0 = one section
    # per note of ``note_best``: the term's BM25F score in the note read as one document
    # (its sections' term counts summed, normalised by the note's length)
    whole: array = field(default_factory=lambda: array("d"))
    _bounds: tuple[tuple[float, float], SortedMap, float] | None = None

    def note_bounds(self, second_weight: float, whole_weight: float = 0.0) -> SortedMap:
        """note id -> best + second_weight x second-best section score + whole_weight x
        the whole-note score (cached)."""
        key = (second_weight, whole_weight)
        if self._bounds is None or self._bounds[0] != key:
            best = self.note_best.values()
            second = self.second_all
            # best + sw * 0.0 == best: a note with one section keeps its best exactly.
            bounds = array(
                "d",
                map(operator.add, best, map(operator.mul, itertools.repeat(second_weight), second)),
            )
            if whole_weight:
                bounds = array(
                    "d",
                    map(
                        operator.add,
                        bounds,
                        map(operator.mul, itertools.repeat(whole_weight), self.whole),
                    ),
                )
            self._bounds = (key, SortedMap(self.note_best.keys(), bounds), max(bounds, default=0.0))
        return self._bounds[1]

    def bound_max(self, second_weight: float, whole_weight: float = 0.0) -> float:
        """The largest of ``note_bounds`` (cached with them)."""
        self.note_bounds(second_weight, whole_weight)
        return self._bounds[2]

    def whole_of(self, nid: int) -> float:
        """The whole-note score of note ``nid`` (0.0 when the note lacks the term)."""
        keys = self.note_best.keys()
        i = bisect.bisect_left(keys, nid)
        return self.whole[i] if i < len(keys) and keys[i] == nid else 0.0


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


# Target size of one postings block before compression (characters of postings text).
BLOCK_CHARS = 32_768
# Decompressed blocks kept in memory per run of blocks (the base's, the tails').
BLOCK_CACHE = 64
# A merge rewrites every block once the tails hold this share of the blocks' characters.
# Measured (2026-12-02, footprint vault, 10k notes, 200 notes changed): a merge that
# copies the blocks and writes tails took 0.51 s, a full rewrite 2.4 s; the median cold
# query was 23-25 ms either way (two decodes a term instead of one is in the noise).
TAIL_SHARE = 0.25


def _write_blocks(items: Iterable[tuple[str, str]], offset: int) -> tuple[list, list, int, int]:
    """(term, text) pairs in term order -> (entries, compressed blocks, characters, terms).

    Each block holds about ``BLOCK_CHARS`` characters of postings text: its terms
    joined by newlines, the base64 offsets of each term's text, the texts, tab-separated.
    """
    entries: list[list] = []
    blocks: list[bytes] = []
    chunk_terms: list[str] = []
    chunk_texts: list[str] = []
    chunk_chars = total = count = 0

    def flush() -> None:
        nonlocal chunk_terms, chunk_texts, chunk_chars, offset
        offsets = list(itertools.accumulate((len(t) for t in chunk_texts[:-1]), initial=0))
        payload = "\t".join(("\n".join(chunk_terms), _encode_ints(offsets), "".join(chunk_texts)))
        text = payload.encode("utf-8")
        data = zlib.compress(text, 6)
        blocks.append(data)
        entries.append([chunk_terms[0], offset, len(data), len(text)])
        offset += len(data)
        chunk_terms, chunk_texts, chunk_chars = [], [], 0

    for term, text in items:
        if not text:
            continue
        if chunk_chars and chunk_chars + len(text) > BLOCK_CHARS:
            flush()
        chunk_terms.append(term)
        chunk_texts.append(text)
        chunk_chars += len(text)
        total += len(text)
        count += 1
    if chunk_terms:
        flush()
    return entries, blocks, total, count


class _BlockRun:
    """Sorted terms cut into blocks of one file: lookups decompress one block (cached)."""

    def __init__(self, entries: list, reader) -> None:
        self.entries: list[list] = [list(b) for b in entries]
        if any(len(b) != 4 for b in self.entries):
            raise ValueError("postings blocks without their sizes")
        if self.entries and reader is None:
            raise ValueError("postings blocks without a block file")
        self._first_terms = [b[0] for b in self.entries]
        if any(map(operator.ge, self._first_terms, self._first_terms[1:])):
            raise ValueError("postings blocks out of term order")
        self.reader = reader
        self._cache: dict[int, tuple[list[str], array, str]] = {}

    def _block(self, b: int) -> tuple[list[str], array, str]:
        """Block ``b`` as (terms, offsets, postings text)."""
        cached = self._cache.get(b)
        if cached is None:
            # [first term, offset, compressed length, decompressed length]
            _, offset, length, size = self.entries[b]
            try:
                parts = self.reader.block(offset, length, size).split("\t")
                terms_text, offsets_text, text = parts
                terms = terms_text.split("\n")
                offsets = _decode_ints(offsets_text)
            except (ValueError, TypeError, UnicodeError, IndexError) as exc:
                raise IndexCorruptError(f"a postings block cannot be read ({exc})") from exc
            if len(offsets) != len(terms):
                raise IndexCorruptError("a postings block's offsets do not match its terms")
            cached = (terms, offsets, text)
            if len(self._cache) >= BLOCK_CACHE:
                self._cache.pop(next(iter(self._cache)))
            self._cache[b] = cached
        return cached

    def text(self, term: str) -> str | None:
        b = bisect.bisect_right(self._first_terms, term) - 1
        if b < 0:
            return None
        terms, offsets, text = self._block(b)
        i = bisect.bisect_left(terms, term)
        if i == len(terms) or terms[i] != term:
            return None
        end = offsets[i + 1] if i + 1 < len(terms) else len(text)
        return text[offsets[i] : end]

    def items(self) -> Iterator[tuple[str, str]]:
        """(term, text) of every term, in term order (reads every block)."""
        for b in range(len(self.entries)):
            terms, offsets, text = self._block(b)
            for i, term in enumerate(terms):
                end = offsets[i + 1] if i + 1 < len(terms) else len(text)
                yield term, text[offsets[i] : end]

    def copy(self, offset: int) -> tuple[list, list[bytes]]:
        """(entries, compressed blocks) for a new file whose run starts at ``offset``."""
        entries, blocks = [], []
        for first, old_offset, length, size in self.entries:
            blocks.append(self.reader.raw_block(old_offset, length))
            entries.append([first, offset, length, size])
            offset += length
        return entries, blocks


class _PostingMap:
    """term -> postings: stored text, decoded on first use, plus pending appends.

    Stored form, two runs of blocks in the base file (``_BlockRun``): terms sorted, cut
    into zlib blocks of about ``BLOCK_CHARS`` characters of postings text, each block
    holding its own terms, offsets and postings; the header keeps only each block's
    first term (a two-level dictionary), so a cold start parses a few kilobytes and a
    query decompresses just the blocks of its terms.

    * the *blocks*: every term's postings of the ids below ``limit`` — the ids there
      were when they were last written whole;
    * the *tails*: per term, its postings of ids from ``limit`` on.

    Ids only grow (a removed note is tombstoned, a changed one re-added under a new id),
    so a term's postings are its block text followed by its tail. A save copies the
    blocks byte for byte and writes the tails anew, which costs what was added since
    the blocks were written, not the whole index; once the tails outgrow
    ``TAIL_SHARE`` of the blocks, or ids are renumbered (``remap``), everything is
    rewritten (a log-structured merge in miniature).

    Appends (new notes get ids above every existing one) go to a flat per-term list
    ``[id, code, id, code, ...]``, the cheapest thing Python can grow; they are merged
    into the decoded arrays when the term is next read or the map is packed.
    """

    def __init__(self, packed: dict | None = None, reader=None) -> None:
        self._decoded: dict[str, tuple[array, array]] = {}
        # Index.add appends here directly: per term, its ids and codes interleaved in
        # one array (8 bytes a posting; a list held ~60, most of a build's memory)
        self.pending: dict[str, array] = {}
        self._dirty: set[str] = set()  # decoded forms newer than their stored text
        self._new: set[str] = set()  # terms with postings that nothing stored holds
        self.adopt(packed, reader)

    def adopt(self, packed: dict | None, reader) -> None:
        """Take ``packed`` (as ``pack`` made it and it was written to ``reader``'s file)
        as the stored state, pending appends included."""
        if packed:
            self._base = _BlockRun(packed["blocks"], reader)
            self._tail = _BlockRun(packed["tails"], reader)
            self._limit = int(packed["limit"])
            self._terms = int(packed["terms"])
            self._base_chars = int(packed["base_chars"])
            if self._limit < 0 or self._terms < 0:
                raise ValueError("postings map with a negative count")
        else:
            self._base, self._tail = _BlockRun([], None), _BlockRun([], None)
            self._limit = self._terms = self._base_chars = 0
        self._dirty.clear()
        self._new.clear()
        # What was pending is in what was written (``pack`` put it in the tails).
        self.pending.clear()

    def _stored(self, term: str) -> tuple[array, array] | None:
        """The stored postings of ``term`` (blocks then tail), decoded; None if none."""
        base = self._base.text(term)
        tail = self._tail.text(term)
        if base is None and tail is None:
            return None
        ids, codes = decode_postings(base) if base else (array("I"), array("H"))
        if ids and ids[-1] >= self._limit:
            raise ValueError("block postings at or past the map's limit")
        if tail:
            tail_ids, tail_codes = decode_postings(tail)
            if tail_ids and tail_ids[0] < self._limit:
                raise ValueError("tail postings below the map's limit")
            ids.extend(tail_ids)
            codes.extend(tail_codes)
        return ids, codes

    def get(self, term: str) -> tuple[array, array] | None:
        postings = self._decoded.get(term)
        if postings is None:
            try:
                postings = self._stored(term)
            except (ValueError, TypeError, UnicodeError, IndexError) as exc:
                raise IndexCorruptError(f"postings of {term!r} cannot be read") from exc
            if postings is not None:
                self._decoded[term] = postings
        extra = self.pending.pop(term, None)
        if extra:
            if postings is None:
                postings = (array("I"), array("H"))
                self._new.add(term)
            postings[0].extend(extra[0::2])
            postings[1].fromlist(extra[1::2].tolist())
            self._decoded[term] = postings
            self._dirty.add(term)
        return postings

    def __contains__(self, term: str) -> bool:
        if term in self._decoded or term in self.pending:
            return True
        try:
            return self._base.text(term) is not None or self._tail.text(term) is not None
        except (ValueError, TypeError, UnicodeError, IndexError) as exc:
            raise IndexCorruptError(f"postings of {term!r} cannot be read") from exc

    def _is_stored(self, term: str) -> bool:
        """Whether the blocks or the tails hold ``term`` (one block read, no decoding)."""
        try:
            return self._base.text(term) is not None or self._tail.text(term) is not None
        except (ValueError, TypeError, UnicodeError, IndexError) as exc:
            raise IndexCorruptError(f"postings of {term!r} cannot be read") from exc

    def _pending_only(self) -> list[str]:
        """Terms with appends not yet merged and not decoded, in term order."""
        decoded = self._decoded
        return sorted(term for term in self.pending if term not in decoded)

    def count(self) -> int:
        """Number of terms; reads only the blocks of terms added since the last save."""
        # In term order, so each block is read once; no postings are decoded.
        fresh = sum(1 for term in self._pending_only() if not self._is_stored(term))
        return self._terms + len(self._new) + fresh

    def terms(self) -> set[str]:
        found = {term for term, _ in self._base.items()}
        found.update(term for term, _ in self._tail.items())
        return found | self._decoded.keys() | self.pending.keys()

    def pack(self, base_offset: int, limit: int) -> tuple[dict, list[bytes]]:
        """The stored form to write (blocks start at ``base_offset``).

        ``limit`` is the number of ids there are now (what a full rewrite stores). It
        changes nothing a reader sees; once the file is written, ``adopt`` takes it.
        """
        if self._base.entries:
            # Appends to terms already decoded are merged (cheap). Those of any other
            # term are ids from ``limit`` on: its tail is its old tail plus them, and
            # its block postings are never decoded (at 100k notes, decoding the whole
            # postings of every changed term made a merge take 20 s).
            for term in [t for t in self.pending if t in self._decoded]:
                self.get(term)
            tails = dict(self._tail.items())
            for term in self._dirty:
                ids, codes = self._decoded[term]
                i = bisect.bisect_left(ids, self._limit)
                if i < len(ids):
                    tails[term] = encode_postings(ids[i:], codes[i:])
            fresh = 0
            for term in self._pending_only():
                extra = self.pending[term]
                old = tails.get(term)
                if old is None and not self._is_stored(term):
                    fresh += 1
                try:
                    ids, codes = decode_postings(old) if old else (array("I"), array("H"))
                except ValueError as exc:
                    raise IndexCorruptError(f"postings of {term!r} cannot be read") from exc
                ids.extend(extra[0::2])
                codes.fromlist(extra[1::2].tolist())
                tails[term] = encode_postings(ids, codes)
            if sum(map(len, tails.values())) <= TAIL_SHARE * max(self._base_chars, 1):
                entries, blocks = self._base.copy(base_offset)
                offset = base_offset + sum(map(len, blocks))
                tail_entries, tail_blocks, _, _ = _write_blocks(sorted(tails.items()), offset)
                packed = {
                    "blocks": entries,
                    "tails": tail_entries,
                    "limit": self._limit,
                    "terms": self._terms + len(self._new) + fresh,
                    "base_chars": self._base_chars,
                }
                return packed, blocks + tail_blocks
        for term in list(self.pending):
            self.get(term)

        # Full rewrite: every term's whole postings in the blocks, no tails.
        def whole() -> Iterator[tuple[str, str]]:
            tail_terms = {term for term, _ in self._tail.items()}
            base = dict(self._base.items())
            for term in sorted(base.keys() | tail_terms | self._decoded.keys()):
                if term in self._dirty or term in tail_terms:
                    postings = self._decoded.get(term) or self._stored(term)
                    yield term, encode_postings(*postings) if postings[0] else ""
                elif term in base:
                    yield term, base[term]
                else:
                    ids, codes = self._decoded[term]
                    yield term, encode_postings(ids, codes) if ids else ""

        entries, blocks, chars, count = _write_blocks(whole(), base_offset)
        packed = {
            "blocks": entries,
            "tails": [],
            "limit": limit,
            "terms": count,
            "base_chars": chars,
        }
        return packed, blocks

    def remap(self, mapping: array) -> None:
        """Rewrite ids through ``mapping`` (old id -> new id, -1 = dropped)."""
        fresh: dict[str, tuple[array, array]] = {}
        for term in sorted(self.terms()):
            postings = self.get(term)
            if postings is None:
                continue
            ids, codes = postings
            new_ids, new_codes = array("I"), array("H")
            for doc_id, code in zip(ids, codes):
                new_id = mapping[doc_id]
                if new_id >= 0:
                    new_ids.append(new_id)
                    new_codes.append(code)
            if new_ids:
                fresh[term] = (new_ids, new_codes)
        # Everything now lives in decoded form; the next pack rewrites the blocks.
        self.adopt(None, None)
        self._decoded = fresh
        self.pending = {}
        self._dirty = set(fresh)
        self._new = set(fresh)


# -- the index ----------------------------------------------------------------------

_NOTE_FIELDS = (
    "path",
    "mtime_ns",
    "size",
    "title",
    "zone",
    "archived",
    "note_type",
    "labels",
    "date",
    "created",
    "updated",
    "stale",
    "superseded_by",
    "links",
    "indexed",
    "body_offset",
    "aliases",
    "reflexes",
)
# The columns of a stored note row, in the order they are written.
_STORED_FIELDS = (*_NOTE_FIELDS, "warnings")
# The int columns of the base, one block each (``sec_stale``: one byte a section).
_ARRAYS = (
    "note_first",
    "note_count",
    "note_tlen",
    "note_glen",
    "sec_note",
    "sec_start",
    "sec_end",
    "sec_line",
    "sec_blen",
    "sec_hlen",
    "sec_stale",
)


def _stored_headings(packed: dict, reader, count: int) -> ChunkedList:
    return read_chunks("sec_heading", packed, reader, count, _HEADING_CHECK)


def _blocks_of(packed: dict) -> list:
    return [*packed["blocks"], *packed["tails"]]


# What a stored column's values must be (None in every column of a removed note); a
# chunk holding anything else is damaged. The other columns hold any JSON value.
_NONE = type(None)
_FIELD_CHECKS = {
    "path": of_types(str, _NONE, empty=""),
    "mtime_ns": of_types(int, _NONE),
    "size": of_types(int, _NONE),
    "body_offset": of_types(int, _NONE),
    "archived": of_types(bool, _NONE),
    "labels": of_types(list, _NONE),
    "links": of_types(list, _NONE),
    "aliases": of_types(list, _NONE),
    "warnings": of_types(list, _NONE),
}
_HEADING_CHECK = of_types(str)


# -- a note as the index log records it ---------------------------------------------
#
# ``note_record(doc)`` is what ``Index.add`` reads from a parsed note, as JSON values:
#   [meta (the _NOTE_FIELDS, in order), warnings, title tf, tags tf, sections]
# with a section as [heading, start, end, line, body length, heading length, stale,
# body tf, heading tf]. Replaying records with ``add_record`` builds the same index
# as adding the notes did.


class _Section:
    """The parts of a ``SectionDoc`` that ``Index.add`` reads (a logged section)."""

    __slots__ = (
        "heading",
        "start",
        "end",
        "line",
        "body_len",
        "heading_len",
        "stale",
        "body_tf",
        "heading_tf",
    )

    def __init__(self, row: list) -> None:
        (
            self.heading,
            self.start,
            self.end,
            self.line,
            self.body_len,
            self.heading_len,
            self.stale,
            self.body_tf,
            self.heading_tf,
        ) = row


def note_record(doc: NoteDoc) -> list:
    """The log's form of a parsed note (``Index.add_record`` reads it back)."""
    sections = doc.sections if doc.indexed else []
    return [
        [getattr(doc, name) for name in _NOTE_FIELDS],
        [w.to_dict() for w in doc.warnings],
        dict(doc.title_tf),
        dict(doc.tags_tf),
        [
            [
                sec.heading,
                sec.start,
                sec.end,
                sec.line,
                sec.body_len,
                sec.heading_len,
                bool(sec.stale),
                dict(sec.body_tf),
                dict(sec.heading_tf),
            ]
            for sec in sections
        ],
    ]


def _is_count(value) -> bool:
    return type(value) is int and 0 <= value < 2**31


def _check_tf(tf) -> dict:
    if not isinstance(tf, dict) or not all(
        isinstance(term, str) and type(n) is int and 0 < n < 2**31 for term, n in tf.items()
    ):
        raise ValueError("a logged note has malformed term counts")
    return tf


def _read_record(record) -> tuple[dict, dict, dict, list[_Section]]:
    """(meta, title tf, tags tf, sections) of a ``note_record``; ValueError if malformed."""
    if not isinstance(record, list) or len(record) != 5:
        raise ValueError("a logged note is not a five-part record")
    values, warnings, title_tf, tags_tf, rows = record
    if not isinstance(values, list) or len(values) != len(_NOTE_FIELDS):
        raise ValueError("a logged note has other fields than this version writes")
    meta = dict(zip(_NOTE_FIELDS, values))
    if not isinstance(meta["path"], str) or not meta["path"]:
        raise ValueError("a logged note has no path")
    if not all(type(meta[k]) is int for k in ("mtime_ns", "size", "body_offset")):
        raise ValueError("a logged note has a malformed stat")
    if not isinstance(warnings, list) or not all(isinstance(w, dict) for w in warnings):
        raise ValueError("a logged note has malformed warnings")
    meta["warnings"] = warnings
    if not isinstance(rows, list):
        raise ValueError("a logged note has malformed sections")
    sections = []
    for row in rows:
        if (
            not isinstance(row, list)
            or len(row) != 9
            or not isinstance(row[0], str)
            or not all(map(_is_count, row[1:6]))
            or not isinstance(row[6], bool)
        ):
            raise ValueError("a logged note has a malformed section")
        _check_tf(row[7])
        _check_tf(row[8])
        sections.append(_Section(row))
    return meta, _check_tf(title_tf), _check_tf(tags_tf), sections


class Index:
    """Notes, sections and postings of one vault (no I/O; see ``engine`` for that)."""

    def __init__(self) -> None:
        # note id -> metadata (None = removed); stored rows are read on demand
        self.notes = NoteRows()
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
        self.sec_heading: list[str] | ChunkedList = []
        self.sections = _PostingMap()  # body tf / heading tf
        self.note_fields = _PostingMap()  # title tf / tags tf
        self.live_sections = 0
        self.live_notes = 0
        self._sum = {"blen": 0, "hlen": 0, "tlen": 0, "glen": 0}  # over live sections
        self._norms: dict[str, float] | None = None  # cached average field lengths
        self._term_cache: dict[str, TermScores] = {}
        # Facts derived from the notes by other modules (note kinds, section dates), each
        # of one note id, so they stand while the ids do (a changed note comes back under
        # a new id): until ``compact`` renumbers them. The one fact of the whole vault,
        # "newest" (``note_kinds.newest_date``), is kept up to date by ``_add``/``remove``.
        self.derived: dict[str, object] = {}
        self._term_params: BM25FParams | None = None
        self._term_stats: dict[str, float] | None = None  # ``_averages`` the cache is of
        # cached term -> (note ids removed, note ids added) since it was scored: applied
        # to its scores on its next use (``_patched``)
        self._term_changes: dict[str, tuple[set[int], set[int]]] = {}
        # which cached terms go when the cache is full (seeded: a run is reproducible)
        self._term_evictions = random.Random(0)
        self._term_cached_postings = 0

    # -- building --------------------------------------------------------------------

    def add(self, doc: NoteDoc) -> int:
        """Add a parsed note (replacing any note at the same path). Returns its id."""
        meta = {name: getattr(doc, name) for name in _NOTE_FIELDS}
        meta["warnings"] = [w.to_dict() for w in doc.warnings]
        return self._add(meta, doc.title_tf, doc.tags_tf, doc.sections if doc.indexed else [])

    def add_record(self, record: list) -> int:
        """Add a note from its ``note_record`` (as read back from the index log).

        ValueError when the record is malformed; the index is then unchanged.
        """
        meta, title_tf, tags_tf, sections = _read_record(record)
        return self._add(meta, title_tf, tags_tf, sections)

    def apply_change(self, removed: list, records: list) -> list[str]:
        """Remove the notes at ``removed``, then add ``records`` (``note_record``s), in order.

        What one save logged. Everything is checked first: ValueError when any part is
        malformed, and the index is then unchanged. Returns the paths touched.
        """
        if not isinstance(removed, list) or not all(isinstance(p, str) for p in removed):
            raise ValueError("a logged change names its removed notes malformed")
        if not isinstance(records, list):
            raise ValueError("a logged change holds its notes malformed")
        parsed = [_read_record(record) for record in records]
        for path in removed:
            self.remove(path)
        for meta, title_tf, tags_tf, sections in parsed:
            self._add(meta, title_tf, tags_tf, sections)
        return [*removed, *(meta["path"] for meta, *_ in parsed)]

    def _add(self, meta: dict, title_tf, tags_tf, sections) -> int:
        path = meta["path"]
        if path in self.by_path:
            self.remove(path)
        nid = len(self.notes)
        self.notes.append(meta)
        self.by_path[path] = nid
        first = len(self.sec_note)
        tlen = sum(title_tf.values())
        glen = sum(tags_tf.values())
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
            heading_tf = sec.heading_tf
            # The hot loop of indexing: one dict lookup and two appends per posting.
            for term, tf in sec.body_tf.items():
                code = (tf if tf < 255 else 255) | (
                    min(heading_tf[term], 255) << 8 if term in heading_tf else 0
                )
                slot = pending.get(term)
                if slot is None:
                    pending[term] = array("I", (sid, code))
                else:
                    slot.append(sid)
                    slot.append(code)
            for term, tf in heading_tf.items():
                if term not in sec.body_tf:
                    slot = pending.get(term)
                    if slot is None:
                        pending[term] = array("I", (sid, min(tf, 255) << 8))
                    else:
                        slot.append(sid)
                        slot.append(min(tf, 255) << 8)
            self._sum["blen"] += sec.body_len
            self._sum["hlen"] += sec.heading_len
        if sections:
            fields = self.note_fields.pending
            for term in title_tf.keys() | tags_tf.keys():
                code = min(title_tf.get(term, 0), 255) | (min(tags_tf.get(term, 0), 255) << 8)
                slot = fields.get(term)
                if slot is None:
                    fields[term] = array("I", (nid, code))
                else:
                    slot.append(nid)
                    slot.append(code)
        self._sum["tlen"] += tlen * len(sections)
        self._sum["glen"] += glen * len(sections)
        self.live_sections += len(sections)
        self.live_notes += 1
        self._invalidate()
        if "newest" in self.derived:
            day, (newest, count) = note_day(meta), self.derived["newest"]
            if day is not None and (newest is None or day > newest):
                self.derived["newest"] = (day, 1)
            elif day is not None and day == newest:
                self.derived["newest"] = (newest, count + 1)
        if self._term_cache:
            # The terms of the new note have new postings; every other term's stand.
            terms = set(title_tf) | set(tags_tf) if sections else set()
            for sec in sections:
                terms.update(sec.body_tf)
                terms.update(sec.heading_tf)
            for term in terms & self._term_cache.keys():
                self._term_changed(term, 1, nid)
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
        gone = self.notes[nid]
        self.notes[nid] = None
        self._invalidate()
        if "newest" in self.derived:
            newest, count = self.derived["newest"]
            if newest is not None and note_day(gone) == newest:
                if count > 1:
                    self.derived["newest"] = (newest, count - 1)
                else:
                    del self.derived["newest"]  # the last of that day: worked out again
        if self._term_cache:
            # The terms the note held lose its postings: those whose scores name it.
            for term in [t for t, ts in self._term_cache.items() if nid in ts.note_best]:
                self._term_changed(term, 0, nid)
        return True

    def _term_changed(self, term: str, side: int, nid: int) -> None:
        """Note ``nid`` left (``side`` 0) or came (1) among the notes holding cached
        ``term``: recorded for ``_patched``, or the term dropped when its record of
        changes grows long (a term no search asks for again must not hoard them)."""
        change = self._term_changes.setdefault(term, (set(), set()))
        change[side].add(nid)
        if len(change[0]) + len(change[1]) > _MAX_TERM_CHANGES:
            del self._term_changes[term]
            self._term_cached_postings -= self._term_cache.pop(term).df

    def _invalidate(self) -> None:
        """After a change: the statistics are worked out again. Cached term scores are
        dropped by the change itself for the terms it touched (``_add``, ``remove``),
        and all at once when the coarse statistics they were computed with move
        (``term_scores``); derived facts are of note ids and stand (``derived``)."""
        self._norms = None

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
            fresh.notes.append(dict(meta))  # not a row read from the old file
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

    def note_column(self, name: str) -> list:
        """Field ``name`` of every note by id (None for a removed note), rows not built."""
        return self.notes.column(name)

    def note_stats(self) -> dict[str, tuple[int, int]]:
        """path -> (mtime_ns, size) of every indexed note: what a stat pass compares."""
        notes = self.notes
        stats = dict(zip(notes.column("path"), zip(notes.column("mtime_ns"), notes.column("size"))))
        stats.pop(None, None)  # removed notes
        return stats

    def live_note_ids(self) -> Iterator[int]:
        return (nid for nid, meta in enumerate(self.notes) if meta is not None)

    def note_sections(self, nid: int) -> range:
        first = self.note_first[nid]
        return range(first, first + self.note_count[nid])

    def has_term(self, term: str) -> bool:
        return term in self.sections or term in self.note_fields

    def vocabulary_size(self) -> int:
        """Posting lists over both maps (a term in titles and bodies counts twice)."""
        return self.sections.count() + self.note_fields.count()

    # -- scoring ---------------------------------------------------------------------

    def _averages(self) -> dict[str, float]:
        """The collection statistics scores are computed with (``_coarse`` of each):
        average field lengths over live sections (1.0 for an empty field), over live
        notes (``note_blen``, ``note_hlen``), and the counts (``sections``, ``notes``)."""
        if self._norms is None:
            n = _coarse(max(self.live_sections, 1))
            notes = _coarse(max(self.live_notes, 1))
            sums = {k: _coarse(v) for k, v in self._sum.items()}
            norms = {k: (v / n) or 1.0 for k, v in sums.items()}
            norms["note_blen"] = (sums["blen"] / notes) or 1.0
            norms["note_hlen"] = (sums["hlen"] / notes) or 1.0
            norms["sections"], norms["notes"] = float(n), float(notes)
            self._norms = norms
        return self._norms

    def term_scores(self, term: str, params: BM25FParams | None = None) -> TermScores:
        """BM25F score of ``term`` in every live section that contains it (cached).

        The cache holds the scores of recently queried terms, so a warm query costs
        only dictionary lookups. A change drops the terms it touched; the others keep
        their scores while the collection statistics, taken coarsely (``_coarse``: to
        within 1/128), stay the same. So the first search after a one-note edit is as
        fast as the one before it, and two indexes holding the same notes score alike
        whatever their history.
        """
        params = params or BM25FParams()
        avg = self._averages()
        if avg is not self._term_stats or params is not self._term_params:
            # (the same objects until a change or another caller: then compared by value)
            if self._term_params != params or self._term_stats != avg:
                self._term_cache.clear()
                self._term_changes.clear()
                self._term_cached_postings = 0
            self._term_params = params
            self._term_stats = avg
        cached = self._term_cache.get(term)
        if cached is not None:
            change = self._term_changes.pop(term, None)
            if change is None:
                return cached
            patched = self._patched(term, cached, *change, params, avg)
            if patched is not None:
                self._term_cache[term] = patched
                return patched
            self._term_cached_postings -= self._term_cache.pop(term).df
        result = self._score_term(term, params, avg)
        cache = self._term_cache
        cache[term] = result
        self._term_cached_postings += result.df
        if self._term_cached_postings > _TERM_CACHE_POSTINGS and len(cache) > 1:
            # Random victims, not the oldest: a set of queries asked in turn whose terms
            # hold more postings than the cap found none of them cached with the oldest
            # out first (104k footprint vault: 1,197 of 1,197 terms missed per pass);
            # at random, about the share of them the cap holds stays.
            victims = [t for t in cache if t != term]
            pick = self._term_evictions.randrange
            while self._term_cached_postings > _TERM_CACHE_POSTINGS and victims:
                i = pick(len(victims))
                victims[i], victims[-1] = victims[-1], victims[i]
                victim = victims.pop()
                self._term_cached_postings -= cache.pop(victim).df
                self._term_changes.pop(victim, None)
        return result

    def _score_term(self, term: str, params: BM25FParams, avg: dict[str, float]) -> TermScores:
        """``term_scores`` computed: one pass over the term's section postings, then
        the notes matched by title or tags, then the saturation by idf.

        Per section, tf~ = (tf_body * w_b) / (base_b + slope_b * blen), plus for a
        posting with heading tf (code >= 256) (tf_head * w_h) / (base_h + slope_h *
        hlen), plus the note's title and tags part; its score is idf * (k1 + 1) * tf~ /
        (k1 + tf~). Sections are numbered in note order, so a note's postings are
        adjacent: the pass keeps each note's best and second-best tf~ and its raw body
        and heading counts (for the note read as one document) as it goes. The score
        rises with tf~, so the best tf~ is the best score; the first section wins a tie.
        """
        # w_f / (1 - b_f + b_f * len / avglen) = w_f / (base_f + slope_f * len)
        body, heads, title, tags = _field_norms(params, avg)
        (w_b, base_b, slope_b), (w_h, base_h, slope_h) = body, heads
        (w_t, base_t, slope_t), (w_g, base_g, slope_g) = title, tags
        blen, hlen, sec_note = self.sec_blen, self.sec_hlen, self.sec_note
        sids: list[int] = []
        xs: list[float] = []  # tf~ per section of ``sids``
        # per note holding a posting, ascending: where its sections start in ``sids``,
        # its best tf~, that section, its second-best tf~ (0.0: one section), raw counts
        order: list[int] = []
        starts: list[int] = []
        best: list[float] = []
        best_sid: list[int] = []
        second: list[float] = []
        counts: list[tuple[int, int]] = []
        postings = self.sections.get(term)
        if postings is not None:
            ids, codes = postings
            if ids and ids[-1] >= len(sec_note):
                raise IndexCorruptError(f"postings of {term!r} point past the last section")
            cur = -1
            top = runner = 0.0
            top_sid = n_body = n_head = 0
            for sid, code in zip(ids, codes):
                nid = sec_note[sid]
                if nid < 0:
                    continue  # a removed note's section
                x = (code & 255) * w_b / (base_b + slope_b * blen[sid])
                if code >= 256:
                    x += (code >> 8) * w_h / (base_h + slope_h * hlen[sid])
                if nid != cur:
                    if cur >= 0:
                        best.append(top)
                        best_sid.append(top_sid)
                        second.append(runner)
                        counts.append((n_body, n_head))
                    order.append(nid)
                    starts.append(len(sids))
                    cur, top, top_sid, runner = nid, x, sid, 0.0
                    n_body, n_head = code & 255, code >> 8
                else:
                    if x > top:
                        runner, top, top_sid = top, x, sid
                    elif x > runner:
                        runner = x
                    n_body += code & 255
                    n_head += code >> 8
                sids.append(sid)
                xs.append(x)
            if cur >= 0:
                best.append(top)
                best_sid.append(top_sid)
                second.append(runner)
                counts.append((n_body, n_head))
            if any(map(operator.ge, order, itertools.islice(order, 1, None))):
                raise IndexCorruptError(f"postings of {term!r} are out of note order")
        note_counts = dict(zip(order, counts))
        note_extra: dict[int, float] = {}  # note id -> title and tags part
        fields = self.note_fields.get(term)
        if fields is not None:
            notes = self.notes
            ids, codes = fields
            if ids and ids[-1] >= len(notes):
                raise IndexCorruptError(f"postings of {term!r} point past the last note")
            for nid, code in zip(ids, codes):
                if notes[nid] is not None:
                    note_extra[nid] = (code & 255) * w_t / (
                        base_t + slope_t * self.note_tlen[nid]
                    ) + (code >> 8) * w_g / (base_g + slope_g * self.note_glen[nid])
        if note_extra:
            sids, xs, order, best, best_sid, second = self._with_extras(
                note_extra, sids, xs, order, starts, best, best_sid, second
            )
        df = len(sids)
        n_live = avg["sections"]
        idf = math.log(1.0 + (n_live - df + 0.5) / (df + 0.5)) if df else 0.0
        k1 = params.k1
        factor = idf * (k1 + 1.0)
        repeat = itertools.repeat

        def saturated(values: list[float]) -> array:
            # factor * x / (k1 + x) per value, with C-level map()s
            return array(
                "d",
                map(
                    operator.truediv,
                    map(operator.mul, repeat(factor), values),
                    map(operator.add, repeat(k1), values),
                ),
            )

        note_ids = array("I", order)
        second_all = saturated(second)  # 0.0 stays 0.0
        has_second = list(map((0.0).__lt__, second))
        return TermScores(
            SortedMap(array("I", sids), saturated(xs)),
            SortedMap(note_ids, saturated(best)),
            SortedMap(note_ids, array("I", best_sid)),
            SortedMap(
                array("I", itertools.compress(order, has_second)),
                array("d", itertools.compress(second_all, has_second)),
            ),
            df,
            idf,
            second_all,
            self._whole_scores(order, note_counts, note_extra, params),
        )

    def _with_extras(self, note_extra, sids, xs, order, starts, best, best_sid, second):
        """The sections and per-note lists of ``_score_term`` with the title and tags
        part added to every section of the notes of ``note_extra`` (a section holding
        no posting of the term gets that part alone), those notes' best and second-best
        taken again; the notes matched only by title or tags join in note order. Runs
        of notes without such a part are copied as slices."""
        out_sids: list[int] = []
        out_xs: list[float] = []
        out_order: list[int] = []
        out_best: list[float] = []
        out_sid: list[int] = []
        out_second: list[float] = []
        note_first, note_count = self.note_first, self.note_count
        done = 0  # notes of ``order`` copied or consumed so far
        n = len(order)
        for nid in sorted(note_extra):
            at = bisect.bisect_left(order, nid, done)
            if at > done:  # the notes before it, as they are
                lo, hi = starts[done], starts[at] if at < n else len(sids)
                out_sids += sids[lo:hi]
                out_xs += xs[lo:hi]
                out_order += order[done:at]
                out_best += best[done:at]
                out_sid += best_sid[done:at]
                out_second += second[done:at]
            own: dict[int, float] = {}
            if at < n and order[at] == nid:
                lo, hi = starts[at], starts[at + 1] if at + 1 < n else len(sids)
                own = dict(zip(sids[lo:hi], xs[lo:hi]))
                at += 1
            done = at
            extra = note_extra[nid]
            top = runner = 0.0
            top_sid = -1
            first = note_first[nid]
            for sid in range(first, first + note_count[nid]):
                x = own.get(sid, 0.0) + extra
                out_sids.append(sid)
                out_xs.append(x)
                if top_sid < 0:
                    top, top_sid = x, sid
                elif x > top:
                    runner, top, top_sid = top, x, sid
                elif x > runner:
                    runner = x
            out_order.append(nid)
            out_best.append(top)
            out_sid.append(top_sid)
            out_second.append(runner)
        if done < n:
            lo = starts[done]
            out_sids += sids[lo:]
            out_xs += xs[lo:]
            out_order += order[done:]
            out_best += best[done:]
            out_sid += best_sid[done:]
            out_second += second[done:]
        return out_sids, out_xs, out_order, out_best, out_sid, out_second

    def _patched(
        self,
        term: str,
        ts: TermScores,
        removed: set[int],
        added: set[int],
        params: BM25FParams,
        avg: dict[str, float],
    ) -> TermScores | None:
        """``ts`` with the notes ``removed`` taken out and the live notes ``added`` put in,
        or None when that changes the term's df (then its idf, so every score, moves and
        it is scored again in full). The same operations in the same order as
        ``term_scores``, so the same floats: a one-note edit costs the next search the
        edited note's sections and a copy of the term's arrays, not a new scoring of
        every posting."""
        notes = self.notes
        added = {nid for nid in added if notes[nid] is not None}
        old_notes = ts.note_best.keys()
        if added and old_notes and min(added) <= old_notes[-1]:
            return None  # only notes newer than every scored one can be appended
        new_sections, note_counts, note_extra = self._note_postings(
            term, sorted(added), params, avg
        )
        old_sids = ts.contrib.keys()
        cuts = []  # (from, to) positions of the removed notes' sections in ``contrib``
        for nid in sorted(removed):
            first = self.note_first[nid]
            lo = bisect.bisect_left(old_sids, first)
            cuts.append((lo, bisect.bisect_left(old_sids, first + self.note_count[nid], lo)))
        if sum(hi - lo for lo, hi in cuts) != len(new_sections):
            return None  # df moves
        k1 = params.k1
        factor = ts.idf * (k1 + 1.0)
        sids, vals = _cut(old_sids, ts.contrib.values(), cuts)
        sec_note = self.sec_note
        best: dict[int, float] = {}
        best_sid: dict[int, int] = {}
        second: dict[int, float] = {}
        for sid, x in new_sections:
            value = factor * x / (k1 + x)
            sids.append(sid)
            vals.append(value)
            nid = sec_note[sid]
            top = best.get(nid)
            if top is None:
                best[nid], best_sid[nid] = value, sid
            elif value > top:
                best[nid], best_sid[nid], second[nid] = value, sid, top
            elif value > second.get(nid, 0.0):
                second[nid] = value
        order = sorted(best)
        note_cuts = [
            (i, i + 1)
            for i in (bisect.bisect_left(old_notes, nid) for nid in sorted(removed))
            if i < len(old_notes) and old_notes[i] in removed
        ]
        if len(note_cuts) != len(order):
            return None  # the notes' df moves: so does every whole-note score
        whole_new = self._whole_scores(order, note_counts, note_extra, params, len(old_notes))
        note_ids, best_vals = _cut(old_notes, ts.note_best.values(), note_cuts)
        _, best_sids = _cut(old_notes, ts.note_best_sid.values(), note_cuts)
        _, second_all = _cut(old_notes, ts.second_all, note_cuts)
        _, whole = _cut(old_notes, ts.whole, note_cuts)
        old_second = ts.note_second.keys()
        second_cuts = [
            (i, i + 1)
            for i in (bisect.bisect_left(old_second, nid) for nid in sorted(removed))
            if i < len(old_second) and old_second[i] in removed
        ]
        second_ids, second_vals = _cut(old_second, ts.note_second.values(), second_cuts)
        for i, nid in enumerate(order):
            note_ids.append(nid)
            best_vals.append(best[nid])
            best_sids.append(best_sid[nid])
            second_all.append(second.get(nid, 0.0))
            whole.append(whole_new[i])
            if nid in second:
                second_ids.append(nid)
                second_vals.append(second[nid])
        return TermScores(
            SortedMap(sids, vals),
            SortedMap(note_ids, best_vals),
            SortedMap(note_ids, best_sids),
            SortedMap(second_ids, second_vals),
            ts.df,
            ts.idf,
            second_all,
            whole,
        )

    def _note_postings(self, term: str, nids: list[int], params: BM25FParams, avg: dict):
        """For the notes ``nids`` (ascending): the (section, tf~) of ``term`` in them, in
        section order, and per note its raw (body, heading) counts and title/tags part,
        computed as ``term_scores`` computes them for every posting."""
        body, heads, title, tags = _field_norms(params, avg)
        (w_b, base_b, slope_b), (w_h, base_h, slope_h) = body, heads
        (w_t, base_t, slope_t), (w_g, base_g, slope_g) = title, tags
        blen, hlen = self.sec_blen, self.sec_hlen
        postings = self.sections.get(term) if nids else None
        fields = self.note_fields.get(term) if nids else None
        out: list[tuple[int, float]] = []
        note_counts: dict[int, list[int]] = {}
        note_extra: dict[int, float] = {}
        for nid in nids:
            first, count = self.note_first[nid], self.note_count[nid]
            tf_tilde: dict[int, float] = {}
            if postings is not None:
                ids, codes = postings
                lo = bisect.bisect_left(ids, first)
                for i in range(lo, bisect.bisect_left(ids, first + count, lo)):
                    sid, code = ids[i], codes[i]
                    value = (code & 255) * w_b / (base_b + slope_b * blen[sid])
                    if code >= 256:
                        value += (code >> 8) * w_h / (base_h + slope_h * hlen[sid])
                    tf_tilde[sid] = value
                    counts = note_counts.get(nid)
                    if counts is None:
                        note_counts[nid] = [code & 255, code >> 8]
                    else:
                        counts[0] += code & 255
                        counts[1] += code >> 8
            if fields is not None:
                ids, codes = fields
                i = bisect.bisect_left(ids, nid)
                if i < len(ids) and ids[i] == nid:
                    code = codes[i]
                    extra = (code & 255) * w_t / (base_t + slope_t * self.note_tlen[nid]) + (
                        code >> 8
                    ) * w_g / (base_g + slope_g * self.note_glen[nid])
                    note_extra[nid] = extra
                    for sid in range(first, first + count):
                        tf_tilde[sid] = tf_tilde.get(sid, 0.0) + extra
            out.extend(sorted(tf_tilde.items()))
        return out, note_counts, note_extra

    def _whole_scores(
        self,
        order: list[int],
        note_counts: dict[int, list[int]],
        note_extra: dict[int, float],
        params: BM25FParams,
        df: int | None = None,
    ) -> array:
        """Per note of ``order``: BM25F of the term in the note read as one document.

        The body and heading counts of its sections are summed and normalised by the
        note's own lengths against the average note's (the ``b`` of each field), the
        title and tags part is the sections' own, and idf is over notes (``df``: the
        notes holding the term, ``order`` unless given). A paraphrase spreads its words
        over a note's sections; no one section holds them all.
        """
        avg = self._averages()
        notes = avg["notes"]
        df = len(order) if df is None else df
        idf = math.log(1.0 + (notes - df + 0.5) / (df + 0.5)) if df else 0.0
        avg_b, avg_h = avg["note_blen"], avg["note_hlen"]
        base_b, slope_b = 1 - params.b_body, params.b_body / avg_b
        base_h, slope_h = 1 - params.b_headings, params.b_headings / avg_h
        w_b, w_h, k1 = params.w_body, params.w_headings, params.k1
        factor = idf * (k1 + 1.0)
        lengths_b, lengths_h = self._note_lengths()
        no_counts = (0, 0)
        out = []
        append = out.append
        for nid in order:
            body, head = note_counts.get(nid, no_counts)
            x = note_extra.get(nid, 0.0)
            if body or head:
                x += body * w_b / (base_b + slope_b * lengths_b[nid])
                if head:
                    x += head * w_h / (base_h + slope_h * lengths_h[nid])
            append(factor * x / (k1 + x) if x > 0 else 0.0)
        return array("d", out)

    def _note_lengths(self) -> tuple[list[int], list[int]]:
        """Per note id: its body and headings lengths, its sections' summed. Worked out
        for every note at once, with prefix sums (C-level passes), then for the notes
        added since; a note's sections never change (a changed note comes back under a
        new id), and ``compact`` starts ``derived`` anew."""
        found = self.derived.get("note_lengths")
        if found is None:
            found = self.derived["note_lengths"] = ([], [])
        lengths_b, lengths_h = found
        done, total = len(lengths_b), len(self.note_first)
        if done < total:
            firsts = self.note_first[done:]
            ends = list(map(operator.add, firsts, self.note_count[done:]))
            lo = firsts[0]
            for lengths, column in ((lengths_b, self.sec_blen), (lengths_h, self.sec_hlen)):
                sums = list(itertools.accumulate(column[lo : max(ends)], initial=0))
                lengths += map(
                    operator.sub,
                    map(sums.__getitem__, map((-lo).__add__, ends)),
                    map(sums.__getitem__, map((-lo).__add__, firsts)),
                )
        return found

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

    def to_store(self) -> tuple[dict, list[bytes]]:
        """(header part, compressed blocks) to write; changes nothing.

        The blocks are the postings (sections', then note fields'), the int columns
        (one block each, little-endian bytes), the note columns and the headings
        (``index_columns``): the header holds where each one is, not the data.
        """
        section_packed, blocks = self.sections.pack(0, len(self.sec_note))
        offset = sum(len(b) for b in blocks)
        field_packed, field_blocks = self.note_fields.pack(offset, len(self.notes))
        blocks += field_blocks
        offset += sum(len(b) for b in field_blocks)
        arrays = {}
        for name in _ARRAYS:
            values = getattr(self, name)
            raw = bytes(values) if name == "sec_stale" else _to_bytes(values)
            data = zlib.compress(raw, 1)
            arrays[name] = [offset, len(data), len(raw)]
            blocks.append(data)
            offset += len(data)
        notes_packed, note_blocks = self.notes.pack(_STORED_FIELDS, offset)
        blocks += note_blocks
        offset += sum(len(b) for b in note_blocks)
        headings, heading_blocks = write_chunks(list(self.sec_heading), offset)
        blocks += heading_blocks
        header = {
            "notes": notes_packed,
            "sections_count": len(self.sec_note),
            "arrays": arrays,
            "sec_heading": headings,
            "sections": section_packed,
            "note_fields": field_packed,
            "sums": self._sum,
            "live_sections": self.live_sections,
            "live_notes": self.live_notes,
        }
        return header, blocks

    def adopt(self, header: dict, reader) -> None:
        """After ``header`` was written with its blocks to ``reader``'s file: read from it."""
        self.sections.adopt(header["sections"], reader)
        self.note_fields.adopt(header["note_fields"], reader)
        self.notes.adopt(_STORED_FIELDS, header["notes"], reader, _FIELD_CHECKS)
        self.sec_heading = _stored_headings(header["sec_heading"], reader, len(self.sec_note))

    @classmethod
    def from_store(cls, data: dict, reader=None) -> Index:
        """The index of a base's ``index`` header (``to_store``'s form) in ``reader``'s file.

        The int columns are read here; note rows and headings when first used.
        ValueError (or KeyError, TypeError) when the header is malformed.
        """
        index = cls()
        notes = NoteRows.stored(_STORED_FIELDS, data["notes"], reader, _FIELD_CHECKS)
        index.notes = notes
        # In C (dict of zip): a loop over 104k paths took a tenth of an opening.
        paths = notes.take_stored_paths()
        index.by_path = dict(zip(paths, range(len(paths))))
        index.by_path.pop(None, None)  # removed notes
        if len(index.by_path) != len(paths) - paths.count(None):
            raise ValueError("index notes hold one path twice")
        sections = data["sections_count"]
        if type(sections) is not int or sections < 0:
            raise ValueError("index sections with a malformed count")
        arrays = data["arrays"]
        for name in _ARRAYS:
            offset, length, size = arrays[name]
            raw = reader.block_bytes(offset, length, size)
            if name == "sec_stale":
                values = bytearray(raw)
            else:
                values = _from_bytes("i", raw)
            expected = len(notes) if name.startswith("note_") else sections
            if len(values) != expected:
                raise ValueError(f"index column {name} has {len(values)} values, not {expected}")
            setattr(index, name, values)
        index.sec_heading = _stored_headings(data["sec_heading"], reader, sections)
        index.sections = _PostingMap(data["sections"], reader)
        index.note_fields = _PostingMap(data["note_fields"], reader)
        # A file cut short is found now, not when a search reads its last chunk.
        spans = [(offset, length) for offset, length, _ in arrays.values()]
        spans += [
            (b[1], b[2]) for m in (data["sections"], data["note_fields"]) for b in _blocks_of(m)
        ]
        spans += [*notes.spans(), *index.sec_heading.spans()]
        stored = getattr(reader, "blocks_size", None)
        if spans and stored is not None and max(o + n for o, n in spans) > stored:
            raise ValueError("the base file is truncated")
        index._sum = {k: int(data["sums"][k]) for k in ("blen", "hlen", "tlen", "glen")}
        index.live_sections = int(data["live_sections"])
        index.live_notes = int(data["live_notes"])
        lengths = {len(index.notes), len(index.note_first), len(index.note_count)}
        sec_lengths = {len(index.sec_note), len(index.sec_start), len(index.sec_heading)}
        if len(lengths) != 1 or len(sec_lengths) != 1:
            raise ValueError("index columns have different lengths")
        return index
