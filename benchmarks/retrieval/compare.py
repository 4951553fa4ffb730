"""Diff two retrieval benchmark runs slice by slice.

    python benchmarks/retrieval/compare.py before.json after.json [--all] [--min-delta 0.01]

Both files come from ``run.py --json``. For every size and slice present in both, the
MRR@10, hit@1, recall@5, false-absence and absence-accuracy deltas (after − before)
are printed; by default only slices where some figure moved by at least
``--min-delta``. Latency p50 / p95 are compared per size. Runs on different splits or
split freezes are refused: their figures are not comparable.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

FIGURES = ("mrr", "hit1", "recall5", "false_absence", "absence_accuracy")
LABELS = {
    "mrr": "MRR@10",
    "hit1": "hit@1",
    "recall5": "recall@5",
    "false_absence": "false abs.",
    "absence_accuracy": "absence acc.",
}


def load(path: str) -> dict:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("format") != "mnemosyne-retrieval-bench/1":
        raise SystemExit(f"{path} is not a retrieval benchmark result (run.py --json)")
    return data


def compare(
    before: dict, after: dict, *, min_delta: float = 0.01, show_all: bool = False
) -> list[str]:
    """Lines of the comparison report (also used by the tests)."""
    lines = []
    if before["split"] != after["split"] or before["split_sha256"] != after["split_sha256"]:
        raise SystemExit(
            "the two runs used different splits or split freezes "
            f"({before['split']} {before['split_sha256'][:12]} vs "
            f"{after['split']} {after['split_sha256'][:12]}); compare like with like"
        )
    for size in sorted(set(before["sizes"]) & set(after["sizes"]), key=int):
        old, new = before["sizes"][size], after["sizes"][size]
        lat_old, lat_new = old["latency_ms"], new["latency_ms"]
        lines.append(
            f"## {int(size):,} notes — p50 {lat_old['p50']} → {lat_new['p50']} ms, "
            f"p95 {lat_old['p95']} → {lat_new['p95']} ms"
        )
        lines.append("| slice | n | " + " | ".join(LABELS[f] for f in FIGURES) + " |")
        lines.append("|---|---|" + "---|" * len(FIGURES))
        shown = 0
        for name in sorted(set(old["slices"]) & set(new["slices"])):
            a, b = old["slices"][name], new["slices"][name]
            cells, moved = [], False
            for figure in FIGURES:
                if figure in a and figure in b:
                    delta = b[figure] - a[figure]
                    moved = moved or abs(delta) >= min_delta
                    cells.append(f"{b[figure]:.3f} ({delta:+.3f})")
                else:
                    cells.append("–")
            if moved or show_all:
                shown += 1
                lines.append(f"| {name} | {b['queries']} | " + " | ".join(cells) + " |")
        if not shown:
            lines.append(f"| (no slice moved by {min_delta} or more) |")
        fixed = {m["id"] for m in old.get("misses", [])} - {m["id"] for m in new.get("misses", [])}
        broken = {m["id"] for m in new.get("misses", [])} - {m["id"] for m in old.get("misses", [])}
        lines.append(f"now right: {', '.join(sorted(fixed)) or 'none'}")
        lines.append(f"now wrong: {', '.join(sorted(broken)) or 'none'}")
        lines.append("")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/retrieval/compare.py base.json tuned.json",
    )
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--all", action="store_true", help="print every slice, moved or not")
    parser.add_argument("--min-delta", type=float, default=0.01, help="smallest change shown")
    args = parser.parse_args(argv)
    lines = compare(
        load(args.before), load(args.after), min_delta=args.min_delta, show_all=args.all
    )
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
