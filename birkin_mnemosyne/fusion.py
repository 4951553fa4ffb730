"""Fusion of the lexical and semantic results (pure maths, standard library only).

Two fusion functions, chosen by ``FusionParams.method``:

* ``convex`` (the default): one pool, the lexical candidates and the semantic-only
  neighbours whose cosine reaches ``floor`` (the relevance floor). A lexical candidate
  scores ``(1 - w) * level / best level``, its *level* being its lexical score capped by
  the scores of the candidates ranked above it (``_lexical_levels``: the ranking's own
  moves, a successor above a superseded note, a state question's newest journal entry
  first, stand). Every candidate within ``rerank_band`` of the best level, and every
  semantic-only one, also gets ``w * clamp((cosine - median) / (max - median), 0, 1)``,
  median and max over the pool's cosines: static-model cosines are high across one
  domain, so only the spread within the candidates carries information; a candidate
  held below a note it outscores gets nothing. ``w = semantic_weight * clamp((coverage
  - min_coverage) / (1 - min_coverage), 0, 1)``, with ``coverage`` the share of the
  query's words the model knows as whole tokens (``SemanticIndex.query_coverage``): an
  English model reading a Korean query sees only pieces and ``[UNK]``, and its weight
  falls to zero. A convex combination keeps the lexical margin (Bruch, Gai & Ingber,
  "An Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023);
* ``rrf``, reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009):
  ``sum(weight / (k + rank))`` over the orders a note appears in. Kept for comparison:
  on Tessellate it lowered every slice (code-switched questions 0.825 to 0.58).

Notes whose lexical match covers every query unit (``full``) stay ahead of every other
note, so a semantic neighbour never displaces an exact answer, and with ``w`` at zero no
semantic-only note enters.

The constants (``FusionParams``) were chosen on the Tessellate dev vault with the local
English model by ``benchmarks/semantic/tessellate_fusion.py``; see
``benchmarks/semantic/RESULTS.md`` and ``docs/explanation/semantic.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FusedNote", "FusionParams", "fuse", "semantic_share"]


@dataclass(frozen=True)
class FusionParams:
    method: str = "convex"
    # RRF's k (the paper's 60); used by method "rrf" only.
    k: float = 60.0
    lexical_weight: float = 1.0  # rrf only
    # The constants below were chosen on the Tessellate dev vault with the local English
    # model m2v-minilm-256 by benchmarks/semantic/tessellate_fusion.py: its grid of
    # weight x band x coverage gate, the floor calibrated for each (not searched), and
    # the rule fixed before the run: no kind or language slice more than 0.01 MRR below
    # lexical and absence no worse, then the highest paraphrase MRR, then the more
    # cautious. Chosen: paraphrase 0.717 against lexical 0.707, no slice lower.
    #
    # Share of the semantic signal for a query the model fully understands. 0.3 beat
    # 0.2 (0.710) and 0.1 (0.707); 0.5 lowered a slice by more than 0.01.
    semantic_weight: float = 0.3
    # Query coverage (share of words that are whole in-vocabulary tokens of the model)
    # at or below which the semantic weight is zero; it reaches ``semantic_weight`` at
    # full coverage. 0.9: with 0.5 or 0.75 code-switched questions (an English model
    # reading "pgbouncer 재시작 how") lost up to 0.06. Every Korean, Chinese and
    # Japanese-script question has coverage 0 with the English model.
    min_coverage: float = 0.9
    # Lexical candidates scoring at least (1 - rerank_band) of the best get a semantic
    # gain. 1.0 (all of them) beat 0.3 (0.713) and 0.0 (0.707); on the older random-word
    # benchmark a band of 0.1 had been chosen, where it now loses nothing and gains
    # nothing.
    rerank_band: float = 1.0
    # Minimum cosine for a semantic-only candidate: just above the best cosine any
    # unanswerable Tessellate question the model speaks to reaches (coverage above the
    # gate): 0.661 + 0.005 with m2v-minilm-256. A cosine scale belongs to one model: for
    # another, read its calibration from tessellate_fusion.py (the table of absent
    # maxima) and pass ``FusionParams(floor=...)``.
    floor: float = 0.666
    # A semantic best at or above this turns a lexical "no strong match" into an
    # answer; None = never. Dev split: 0.95-0.97 cut absence accuracy from 0.75 to
    # 0.50-0.56 for no MRR gain, so it is off by default.
    strong: float | None = None


@dataclass(frozen=True)
class FusedNote:
    nid: int
    score: float
    provenance: str  # "keyword", "semantic" or "both"
    full: bool


def semantic_share(coverage: float, params: FusionParams = FusionParams()) -> float:
    """The semantic weight of a query whose model coverage is ``coverage`` (0..1)."""
    low = params.min_coverage
    if low >= 1.0:
        return 0.0
    gate = min(1.0, max(0.0, (coverage - low) / (1.0 - low)))
    return params.semantic_weight * gate


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def fuse(
    lexical: list[tuple[int, bool, float]],
    semantic: list[tuple[int, float]],
    *,
    limit: int,
    params: FusionParams = FusionParams(),
    candidates: dict[int, float] | None = None,
    coverage: float = 1.0,
) -> list[FusedNote]:
    """Fuse ``lexical`` (nid, full coverage, score), best first, with ``semantic``
    (nid, cosine), sorted by decreasing similarity.

    ``candidates`` maps lexical candidates to their cosine similarity (those missing
    are looked up in ``semantic``; a note with neither gets no semantic gain).
    ``coverage`` is the share of the query the model understands (see
    ``semantic_share``). Ties break on the lexical rank, then the note id, so the
    result is deterministic. A note is ``both`` when it is in both orders.
    """
    lexical_rank = {nid: rank for rank, (nid, _, _) in enumerate(lexical, 1)}
    full = {nid for nid, is_full, _ in lexical if is_full}
    in_semantic = {nid for nid, _ in semantic}
    provenance = {nid: "both" if nid in in_semantic else "keyword" for nid in lexical_rank}
    if params.method == "convex":
        scores = _convex(lexical, semantic, params, candidates, coverage)
    else:
        scores = _rrf(lexical_rank, semantic, params)
    for nid in scores:
        provenance.setdefault(nid, "semantic")
    order = sorted(
        scores,
        key=lambda nid: (
            nid not in full,
            -scores[nid],
            lexical_rank.get(nid, len(lexical_rank) + 1),
            nid,
        ),
    )
    return [FusedNote(nid, scores[nid], provenance[nid], nid in full) for nid in order[:limit]]


def _lexical_levels(lexical) -> tuple[dict[int, float], set[int]]:
    """Each lexical candidate's score, capped by the scores of those ranked above it, and
    the candidates so capped.

    The lexical order is more than its scores: the ranking moves a superseded note below
    its successor and a current-state question's newest journal section up
    (``ranking._reordered``) without changing a score. Fusion takes the order as given:
    a note ranked below one it outscores gets that one's level, ties keep the lexical
    order, and the semantic leg gives such a held note nothing (the ranking's decision
    stands). With no semantic gain the fused order is the lexical one."""
    levels: dict[int, float] = {}
    held: set[int] = set()
    level = float("inf")
    for nid, _, score in lexical:
        if score > level:
            held.add(nid)
        level = min(level, score)
        levels[nid] = level
    return levels, held


def _convex(lexical, semantic, params, candidates, coverage) -> dict[int, float]:
    weight = semantic_share(coverage, params)
    levels, held = _lexical_levels(lexical)
    top = max(levels.values(), default=0.0) or 1.0
    similarity = dict(semantic)
    if candidates:
        similarity.update(candidates)
    scores = {nid: (1.0 - weight) * level / top for nid, level in levels.items()}
    if weight <= 0.0:
        return scores
    # Semantic-only candidates enter above the relevance floor, with no lexical part.
    for nid, cosine in semantic:
        if nid not in scores and cosine >= params.floor:
            scores[nid] = 0.0
    reference = [similarity[nid] for nid in scores if nid in similarity]
    if not reference:
        return scores
    high, middle = max(reference), _median(reference)
    if high <= middle:
        return scores
    band = (1.0 - params.rerank_band) * top
    for nid in scores:
        level = levels.get(nid)
        if nid in similarity and nid not in held and (level is None or level >= band):
            relative = (similarity[nid] - middle) / (high - middle)
            scores[nid] += weight * min(1.0, max(0.0, relative))
    return scores


def _rrf(lexical_rank, semantic, params) -> dict[int, float]:
    k = params.k
    scores = {nid: params.lexical_weight / (k + rank) for nid, rank in lexical_rank.items()}
    for rank, (nid, similarity) in enumerate(semantic, 1):
        if nid not in lexical_rank and similarity < params.floor:
            continue
        scores[nid] = scores.get(nid, 0.0) + params.semantic_weight / (k + rank)
    return scores
