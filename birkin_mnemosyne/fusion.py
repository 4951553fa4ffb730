"""Fusion of the lexical and semantic results (pure maths, standard library only).

Two fusion functions, chosen by ``FusionParams.method``:

* ``rrf``, reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009): a note's
  fused score is ``sum(weight / (k + rank))`` over the orders it appears in;
* ``convex`` (the default), a convex combination of the normalised scores (Bruch, Gai &
  Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023):
  ``(1 - w) * lexical / best_lexical + w * max(0, cosine - floor) / (1 - floor)``.
  Unlike RRF it keeps the lexical margin: on the dev split RRF reordered confident
  lexical answers after near-ties in the semantic order and lowered every slice.

Two rules sit on top of either:

* notes whose lexical match covers every query unit (``full``) stay ahead of every
  other note, so a semantic neighbour never displaces an exact answer;
* a note found only by the semantic order enters only when its cosine similarity
  reaches ``floor`` (the relevance floor), so an off-topic query can still end in
  "no strong match" instead of the least-bad neighbour.

The constants were chosen on the dev split of ``benchmarks/retrieval`` with the local
English model (``benchmarks/semantic/run.py``; see its RESULTS.md).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FusedNote", "FusionParams", "fuse"]


@dataclass(frozen=True)
class FusionParams:
    method: str = "convex"
    # RRF's k (the paper's 60); used by method "rrf" only.
    k: float = 60.0
    lexical_weight: float = 1.0  # rrf only
    # Share of the semantic signal. Dev split, local English model (benchmarks/semantic/
    # tune.py): 0.2 and 0.3 tie at MRR 0.817 (lexical 0.816); 0.5 hurts zh/es; RRF with
    # any weight from 0.1 to 1 lowered MRR to 0.64-0.76.
    semantic_weight: float = 0.2
    # Minimum cosine similarity for a semantic-only candidate, and the point where the
    # semantic gain starts. Dev split: 0.9 beat 0.75 on paraphrase (0.811 vs 0.807) and
    # 0.6 (0.794); static-model cosines are high across one domain (absence queries:
    # median best 0.62, p90 0.975).
    floor: float = 0.9
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


def fuse(
    lexical: list[tuple[int, bool, float]],
    semantic: list[tuple[int, float]],
    *,
    limit: int,
    params: FusionParams = FusionParams(),
) -> list[FusedNote]:
    """Fuse ``lexical`` (nid, full coverage, score), best first, with ``semantic``
    (nid, cosine).

    ``semantic`` must be sorted by decreasing similarity. Ties break on the lexical rank,
    then the note id, so the result is deterministic.
    """
    k = params.k
    lexical_rank = {nid: rank for rank, (nid, _, _) in enumerate(lexical, 1)}
    full = {nid for nid, is_full, _ in lexical if is_full}
    convex = params.method == "convex"
    top = max((score for _, _, score in lexical), default=0.0) or 1.0
    weight = params.semantic_weight
    if convex:
        scores = {nid: (1.0 - weight) * score / top for nid, _, score in lexical}
    else:
        scores = {nid: params.lexical_weight / (k + rank) for nid, rank in lexical_rank.items()}
    provenance = {nid: "keyword" for nid in lexical_rank}
    for rank, (nid, similarity) in enumerate(semantic, 1):
        if nid not in lexical_rank and similarity < params.floor:
            continue
        if convex:
            gain = weight * max(0.0, similarity - params.floor) / max(1e-9, 1.0 - params.floor)
        else:
            gain = weight / (k + rank)
        scores[nid] = scores.get(nid, 0.0) + gain
        provenance[nid] = "both" if nid in lexical_rank else "semantic"
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
