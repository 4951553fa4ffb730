"""Choose the fusion constants on the retrieval benchmark's dev split.

    python benchmarks/semantic/tune.py --model /work/shared/models/m2v-minilm-256 [--size 1000]

Builds (or reuses) the retrieval benchmark's vault, prepares the model into it, then
scores every grid point of ``FusionParams`` (RRF k, semantic weight, relevance floor,
strong threshold) on the **dev** queries only and prints them best first next to the
lexical baseline. The test split is never read here.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "retrieval"))

import run as retrieval  # noqa: E402

from birkin_mnemosyne.fusion import FusionParams  # noqa: E402

GRID = {
    "method": ("convex",),
    "semantic_weight": (0.1, 0.2, 0.3, 0.5),
    "floor": (0.6, 0.75, 0.9),
    "strong": (0.97, 1.01),  # 1.01: the semantic signal never overturns "no strong match"
}


def summary(outcomes: list[dict]) -> dict:
    table = retrieval.slices(outcomes)
    return {name: table[name] for name in table}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a local model2vec folder")
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument(
        "--workdir", default=str(Path(tempfile.gettempdir()) / "mnemo-retrieval-bench")
    )
    args = parser.parse_args(argv)
    assignment = retrieval.check_split()
    notes = retrieval.gold_notes()
    dev = [q for q in retrieval.load_queries() if assignment[q["id"]] == "dev"]
    vault = retrieval.build_vault(Path(args.workdir), args.size, notes)
    base, _ = retrieval.run_queries(vault, dev)
    rows = [("lexical", summary(base))]
    for values in itertools.product(*GRID.values()):
        params = FusionParams(**dict(zip(GRID, values)))
        outcomes, _ = retrieval.run_queries(vault, dev, args.model, params)
        rows.append((params, summary(outcomes)))
    kinds = [f"kind={k}" for k in retrieval.KINDS] + [f"lang={lang}" for lang in retrieval.LANGS]

    def cell(table, name, field):
        value = table.get(name, {}).get(field)
        return "-" if value is None else f"{value:.3f}"

    rows.sort(key=lambda row: -(row[1]["all"]["mrr"] + row[1]["all"].get("absence_accuracy", 0)))
    print("| config | MRR all | absence acc | " + " | ".join(kinds) + " |")
    for params, table in rows:
        name = (
            params
            if isinstance(params, str)
            else (
                f"{params.method} k={params.k:g} w={params.semantic_weight:g} floor={params.floor:g} "
                f"strong={params.strong:g}"
            )
        )
        cells = [
            cell(table, k, "absence_accuracy" if k == "kind=absence" else "mrr") for k in kinds
        ]
        print(
            f"| {name} | {cell(table, 'all', 'mrr')} | {cell(table, 'all', 'absence_accuracy')} | "
            + " | ".join(cells)
            + " |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
