"""The mechanical catalog a curator reads: notes, zones, stale and duplicate candidates.

Built from a snapshot with no model involved. Titles and paths are the only note text
in it (no bodies), and every entry says whether the note is protected, so a curator
can see up front what the gate will refuse.
"""

from __future__ import annotations

from collections import Counter

from ..frontmatter import parse_frontmatter
from ..notes_io import term_set
from ..similarity import similar_pairs
from .gate import archive_cap
from .snapshot import Snapshot

__all__ = ["CATALOG_FORMAT", "MAX_CATALOG_NOTES", "build_catalog", "duplicate_pairs"]

CATALOG_FORMAT = "mnemosyne-curation-catalog/1"
# Enough for a model's context window; the rest is counted, not listed.
MAX_CATALOG_NOTES = 400
MAX_PAIRS = 50
DUPLICATE_JACCARD = 0.5


def _body_terms(snapshot: Snapshot) -> dict[str, set[str]]:
    terms = {}
    for path, info in snapshot.notes.items():
        if info.text is not None:
            terms[path] = term_set(info.title, parse_frontmatter(info.text).body)
    return terms


def duplicate_pairs(
    snapshot: Snapshot, threshold: float = DUPLICATE_JACCARD, limit: int = MAX_PAIRS
) -> list[dict]:
    """The ``limit`` most similar note pairs whose term sets overlap by at least
    ``threshold`` (Jaccard), best first: every such pair is considered
    (``similarity.similar_pairs``, an exact join), not only those sharing a rare term."""
    terms = _body_terms(snapshot)
    return [
        {
            "a": a,
            "b": b,
            "similarity": round(similarity, 3),
            "shared_terms": sorted(terms[a] & terms[b])[:12],
        }
        for a, b, similarity in similar_pairs(terms, threshold, on_progress=snapshot.on_progress)[
            :limit
        ]
    ]


def build_catalog(snapshot: Snapshot, stale_paths: list[str]) -> dict:
    notes = sorted(snapshot.notes.values(), key=lambda n: (n.zone, n.path))
    zones = Counter(n.zone for n in notes)
    return {
        "format": CATALOG_FORMAT,
        "active_notes": len(notes),
        "archive_cap": archive_cap(len(notes)),
        "zones": [{"zone": z, "notes": c} for z, c in sorted(zones.items())],
        "notes": [
            {
                "key": n.key,
                "path": n.path,
                "zone": n.zone,
                "title": n.title[:120],
                "type": n.note_type,
                "bytes": len(n.data),
                "links_in": len(n.backlinks),
                "links_out": len(n.links),
                "superseded_by": n.superseded_by,
                "activation": round(n.activation, 3),
                "protected": n.protected,
            }
            for n in notes[:MAX_CATALOG_NOTES]
        ],
        "notes_truncated": max(0, len(notes) - MAX_CATALOG_NOTES),
        "stale": stale_paths[:MAX_CATALOG_NOTES],
        "duplicates": duplicate_pairs(snapshot),
    }
