"""Choose the fusion constants on the retrieval benchmark's dev split.

    python benchmarks/semantic/tune.py --model /work/shared/models/m2v-minilm-256 \\
        [--sizes 1000,10000] [--workdir DIR]

For each size it builds (or reuses) the retrieval benchmark's vault, prepares the model
into it and sends every **dev** query once to the hybrid engine, recording what the
engine hands to ``fusion.fuse`` (lexical candidates, semantic neighbours, candidate
cosines, query coverage) and its verdict. Every grid point of ``FusionParams`` is then
replayed through ``fuse`` (pure, so the replay equals a real run; checked against the
engine's own answers at the default constants) and scored like ``run.py`` does.

Rows are printed best first: configurations with no language or kind slice below
lexical at any size come first, then by the summed MRR. The test split is never read.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "retrieval"))

import run as retrieval  # noqa: E402

from birkin_mnemosyne import fusion  # noqa: E402
from birkin_mnemosyne.fusion import FusionParams  # noqa: E402

GRID = {
    "semantic_weight": (0.1, 0.2, 0.3, 0.5),
    "min_coverage": (0.0, 0.25, 0.5, 0.75),
    "rerank_band": (0.05, 0.1, 0.15, 0.25),
    "floor": (0.75, 0.9),
}
SLICES = [f"lang={lang}" for lang in retrieval.LANGS] + [
    f"kind={kind}" for kind in retrieval.KINDS if kind != "absence"
]


def capture(vault: Path, queries: list[dict], model: str) -> tuple[list[dict], dict]:
    """Run the dev queries once through the hybrid engine, recording the fusion inputs."""
    calls: list[dict] = []
    real = fusion.fuse

    def recording(lexical, semantic, **kwargs):
        calls.append({"lexical": lexical, "semantic": semantic, **kwargs})
        return real(lexical, semantic, **kwargs)

    fusion.fuse = recording
    try:
        outcomes, _ = retrieval.run_queries(vault, queries, model)
    finally:
        fusion.fuse = real
    calls = calls[-len(queries) :]  # drop the warm-up searches
    from birkin_mnemosyne import Mnemosyne

    engine = Mnemosyne(vault, refresh_interval=1e9)
    paths = {nid: meta["path"] for nid, meta in enumerate(engine.index.notes) if meta}
    engine.close()
    return [{**o, "call": c} for o, c in zip(outcomes, calls)], paths


def replay(captured: list[dict], paths: dict, params: FusionParams) -> list[dict]:
    out = []
    for item in captured:
        call = dict(item["call"])
        call["params"] = params
        ranked = [
            paths[note.nid]
            for note in fusion.fuse(call.pop("lexical"), call.pop("semantic"), **call)
        ]
        ranked = ranked[:3] if item["weak"] else ranked[: retrieval.LIMIT]
        out.append({**item, "ranked": ranked})
    return out


def lexical_only(captured: list[dict], paths: dict) -> list[dict]:
    out = []
    for item in captured:
        ranked = [paths[nid] for nid, _, _ in item["call"]["lexical"]]
        ranked = ranked[:3] if item["weak"] else ranked[: retrieval.LIMIT]
        out.append({**item, "ranked": ranked})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a local model2vec folder")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument(
        "--workdir", default=str(Path(tempfile.gettempdir()) / "mnemo-retrieval-bench")
    )
    parser.add_argument("--rows", type=int, default=25, help="configurations printed")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    assignment = retrieval.check_split()
    notes = retrieval.gold_notes()
    dev = [q for q in retrieval.load_queries() if assignment[q["id"]] == "dev"]
    runs = {}
    for size in sizes:
        vault = retrieval.build_vault(Path(args.workdir), size, notes)
        captured, paths = capture(vault, dev, args.model)
        check = replay(captured, paths, captured[0]["call"]["params"])
        mismatched = sum(1 for a, b in zip(captured, check) if a["ranked"] != b["ranked"])
        if mismatched:
            raise SystemExit(f"{size}: the replay differs from the engine on {mismatched} queries")
        base = retrieval.slices(lexical_only(captured, paths))
        runs[size] = (captured, paths, base)

    rows = []
    for values in itertools.product(*GRID.values()):
        params = replace(FusionParams(), **dict(zip(GRID, values)))
        tables = {size: retrieval.slices(replay(c, p, params)) for size, (c, p, _) in runs.items()}
        worst = min(
            tables[size].get(name, {}).get("mrr", 0.0) - base.get(name, {}).get("mrr", 0.0)
            for size, (_, _, base) in runs.items()
            for name in SLICES
        )
        total = sum(table["all"]["mrr"] for table in tables.values())
        rows.append((worst >= -1e-9, total, params, tables))
    rows.sort(key=lambda row: (not row[0], -row[1]))

    kinds = [f"kind={k}" for k in retrieval.KINDS] + [f"lang={lang}" for lang in retrieval.LANGS]

    def cell(table, name, field):
        value = table.get(name, {}).get(field)
        return "-" if value is None else f"{value:.3f}"

    def line(label, table):
        cells = [
            cell(table, k, "absence_accuracy" if k == "kind=absence" else "mrr") for k in kinds
        ]
        return (
            f"| {label} | {cell(table, 'all', 'mrr')} | "
            f"{cell(table, 'all', 'absence_accuracy')} | " + " | ".join(cells) + " |"
        )

    print(
        "| size | config | no slice below lexical | MRR all | absence acc | "
        + " | ".join(kinds)
        + " |"
    )
    for size, (_, _, base) in runs.items():
        print(line(f"{size} | lexical | -", base))
    for ok, _, params, tables in rows[: args.rows]:
        name = (
            f"w={params.semantic_weight:g} cov>={params.min_coverage:g} "
            f"band={params.rerank_band:g} floor={params.floor:g}"
        )
        for size, table in tables.items():
            print(line(f"{size} | {name} | {'yes' if ok else 'no'}", table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
