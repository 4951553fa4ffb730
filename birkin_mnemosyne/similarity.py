"""Near-duplicate pairs: every pair of term sets whose Jaccard similarity reaches a threshold.

``similar_pairs(sets, threshold)`` is an exact all-pairs similarity join. It returns the
pairs that comparing every pair with ``jaccard(a, b) = |a & b| / |a | b|`` would return
— the same pairs, the same similarity floats, the same order — without comparing the
pairs one at a time. ``init`` reports near-duplicate notes with it, and curation finds
its duplicate and conflict candidates with it.

How
===

1. The sets are taken in size order and each is compared with all the sets before it
   (which are never larger). A smaller set ``y`` can only reach ``t`` when
   ``|y| >= t*|x|`` (the similarity is at most ``|y|/|x|``) and the overlap is at least
   ``ceil(t*|x|)`` (``|x & y| >= t*|x | y| >= t*|x|``); both bounds are applied to all
   earlier sets at once.
2. The overlaps of ``x`` with *every* earlier set are counted together, as binary
   numbers held in bit-sliced form: plane ``k`` is a Python int whose bit ``j`` is bit
   ``k`` of ``|x & set_j|``. Each term of ``x`` contributes the bit vector of the earlier
   sets that hold it, and the vectors are summed with carry-save adders (a Wallace
   tree: a full adder turns three vectors of one weight into their sum and their carry,
   five ``&``/``^``/``|`` operations). One such operation on Python ints handles 64
   pairs per machine word, in C.
3. A term held by one set only is never shared and is skipped. A term held by fewer than
   ``DENSE_MIN_SETS`` sets keeps the list of the sets that hold it rather than a bit
   vector (a vector costs ``n/8`` bytes however rare its term); the counts from those
   lists are gathered in a ``Counter`` and enter the sum as one vector per count value.
4. The planes are compared with ``ceil(t*|x|)`` (most significant plane first), the
   overlap of each set that passes is read back from the planes, and its similarity is
   ``overlap / (|x| + |y| - overlap)`` — exactly the division ``jaccard`` makes, so the
   threshold test gives the same answer to the last bit.

Cost and why this design
========================

The work is about ``n**2 * m / 128`` machine-word operations for ``n`` sets of ``m``
distinct terms (each set meets half the others on average) plus one Python step per
(set, shared rare term) pair; memory is the rare terms' lists plus ``n/8`` bytes per
common term. That is quadratic in ``n``, but in words of 64 pairs: measured figures are in
``benchmarks/onboarding/RESULTS.md``.

The sub-quadratic joins were measured first and rejected because they do not find the
same pairs on real text, and a near-duplicate report that silently drops pairs is not
one we can explain:

* *Candidates from shared rare terms* (pairs sharing a term held by at most ``c`` sets,
  then verified) miss every pair whose shared terms are all common words: on the 5,882
  dialogue turns of LoCoMo (short real messages) a cut-off of 50 finds 1,156 of the
  1,467 pairs at 0.5; on the footprint benchmark's 5,000 notes it finds 14,135 of the
  19,971 pairs at 0.35 (curation's threshold).
* *Prefix filtering* (Chaudhuri et al., ICDE 2006; Bayardo et al., WWW 2007; with the
  positional filter of PPJoin, Xiao et al., WWW 2008) is exact, but at a threshold of
  0.5 the prefix is half of each set, which in real text reaches terms held by hundreds
  of notes: its candidate scan grows with ``n**2`` all the same, one Python step per
  posting (4-10x slower than this module at 5,000 notes).
* *MinHash LSH* misses a pair at the threshold with probability ``(1 - t**r)**b``; to
  keep that below 1e-6 at 0.5 while not flagging most pairs at the 0.1-0.2 similarity
  typical of notes in one language takes several hundred hash functions per set, each
  a Python step per term — slower than counting exactly.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping
from itertools import chain

from .errors import InvalidInputError
from .progress import ProgressCallback, phase

__all__ = ["DENSE_MIN_SETS", "similar_pairs"]

# A term held by at least this many sets gets a bit vector; rarer terms keep a list of
# their sets. Measured on the footprint vault at 20,000 notes (CPU seconds of the join):
# 16: 8.6, 32: 8.7, 64: 8.8, 128: 9.9, 256: 12.2 — below 64 the vectors only cost
# memory (n/8 bytes each), above it the per-posting Python steps of the lists dominate.
DENSE_MIN_SETS = 64
# Guards the ceilings against float rounding (0.35 * 20 = 7.000000000000001): a bound
# one lower than exact only lets one more candidate through to the exact test.
_EPSILON = 1e-9
# Shift the bit vectors once this many sets (and a quarter of the window) fell out of reach.
_REBASE_MIN = 64


def _sum_vectors(columns: list[list[int]]) -> list[int]:
    """Add bit vectors with carry-save adders: ``columns[k]`` holds vectors of weight
    ``2**k``; returns the planes of the sum, least significant first."""
    planes: list[int] = []
    k = 0
    while k < len(columns):
        column = columns[k]
        carries: list[int] = []
        while len(column) > 2:
            whole = len(column) - len(column) % 3
            triples = iter(column[:whole])
            sums = []
            for a, b, c in zip(triples, triples, triples):  # full adders
                ab = a ^ b
                sums.append(ab ^ c)
                carries.append((a & b) | (ab & c))
            column = sums + column[whole:]
        if len(column) == 2:  # a half adder
            a, b = column
            column = [a ^ b]
            carries.append(a & b)
        carries = [carry for carry in carries if carry]
        if carries:
            if k + 1 == len(columns):
                columns.append([])
            columns[k + 1].extend(carries)
        planes.append(column[0] if column else 0)
        k += 1
    return planes


def _at_least(planes: list[int], bound: int, among: int) -> int:
    """The bits of ``among`` whose number in ``planes`` is at least ``bound``."""
    if bound.bit_length() > len(planes):
        return 0
    equal, greater = among, 0
    for k in range(len(planes) - 1, -1, -1):
        if not equal:
            break
        plane = planes[k]
        if (bound >> k) & 1:
            equal &= plane
        else:
            greater |= equal & plane
            equal &= ~plane
    return greater | equal


def _count_vectors(counts: Counter, base: int, low: int, below: int) -> list[tuple[int, int]]:
    """``(count, vector)`` for the per-set counts of the rare terms, one vector per
    count value, holding the sets at positions ``low <= j < below`` (bit ``j - base``)."""
    rows: dict[int, bytearray] = {}
    size = ((below - base) >> 3) + 1
    for position, count in counts.items():
        if position < low:
            continue
        row = rows.get(count)
        if row is None:
            row = rows[count] = bytearray(size)
        bit = position - base
        row[bit >> 3] |= 1 << (bit & 7)
    return [(count, int.from_bytes(row, "little")) for count, row in rows.items()]


def similar_pairs(
    sets: Mapping[str, Iterable[Hashable]],
    threshold: float,
    *,
    on_progress: ProgressCallback | None = None,
) -> list[tuple[str, str, float]]:
    """Every pair of keys whose sets have Jaccard similarity >= ``threshold`` (0 < t <= 1).

    Returns ``(a, b, similarity)`` with ``a < b``, most similar first (ties by ``a``,
    then ``b``). Empty sets are never similar to anything. ``on_progress`` receives the
    ``duplicates`` phase, one step per set compared (``progress``).
    """
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float))
        or not 0 < threshold <= 1
    ):
        raise InvalidInputError(
            f"a similarity threshold is a number above 0 and at most 1, got {threshold!r}"
        )
    frozen = {key: frozenset(terms) for key, terms in sets.items()}
    keys = sorted(
        (key for key, terms in frozen.items() if terms), key=lambda k: (len(frozen[k]), k)
    )
    frequency = Counter(term for key in keys for term in frozen[key])
    sizes = [len(frozen[key]) for key in keys]
    vectors: dict[Hashable, int] = {
        term: 0 for term, held in frequency.items() if held >= DENSE_MIN_SETS
    }
    holders: dict[Hashable, list[int]] = {}
    pairs: list[tuple[str, str, float]] = []
    # Bit j of a vector stands for the set at position base + j. Sizes only grow, so
    # the sets below `low` are never needed again: shifting them out keeps every
    # operation as short as the window of sets still in reach.
    base = 0
    report = phase(on_progress, "duplicates", len(keys))
    for position, key in enumerate(keys):
        terms = frozen[key]
        size = len(terms)
        low = bisect_left(sizes, threshold * size - _EPSILON, 0, position)
        if low - base >= _REBASE_MIN and 4 * (low - base) >= position - base:
            shift, base = low - base, low
            for term, vector in vectors.items():
                vectors[term] = vector >> shift
        dense = [term for term in terms if term in vectors]
        rare = [term for term in terms if term not in vectors and frequency[term] > 1]
        if low < position:
            column = [vector for vector in map(vectors.__getitem__, dense) if vector]
            columns = [column]
            counts = Counter(chain.from_iterable(holders.get(term, ()) for term in rare))
            for count, vector in _count_vectors(counts, base, low, position):
                weight = 0
                while count:
                    if count & 1:
                        while len(columns) <= weight:
                            columns.append([])
                        columns[weight].append(vector)
                    count >>= 1
                    weight += 1
            planes = _sum_vectors(columns)
            window = ((1 << (position - base)) - 1) >> (low - base) << (low - base)
            bound = math.ceil(threshold * size - _EPSILON)
            found = _at_least(planes, bound, window)
            while found:
                bit = found.bit_length() - 1
                found ^= 1 << bit
                overlap = 0
                for k, plane in enumerate(planes):
                    overlap |= ((plane >> bit) & 1) << k
                other = base + bit
                similarity = overlap / (size + sizes[other] - overlap)
                if similarity >= threshold:
                    a, b = sorted((key, keys[other]))
                    pairs.append((a, b, similarity))
        bit = 1 << (position - base)
        for term in dense:
            vectors[term] |= bit
        for term in rare:
            holders.setdefault(term, []).append(position)
        report.advance()
    report.finish()
    pairs.sort(key=lambda pair: (-pair[2], pair[0], pair[1]))
    return pairs
