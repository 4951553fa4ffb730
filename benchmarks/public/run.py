"""Public retrieval benchmarks (BEIR format): nDCG@10, MRR@10, recall@100 of our engine.

    python benchmarks/public/run.py --data /work/shared/datasets/scifact \\
        --data /work/shared/datasets/locomo [--workdir /tmp/mnemo-public] [--json out.json]

Each dataset is written as a vault (one note per document: ``# title`` then the text;
file names from the document ids, see ``beir.py``) into a temporary folder, indexed from
no cache, and every judged query is run in lexical mode with ``limit=100``.

The absence verdict must not hide results here: a benchmark ranks every document, and
an engine that says "nothing matched well" still ranks. The engine runs with the
ranking override ``absent_name_share=1`` (``VERDICT_OFF``: no query word counts as missing), under
which the verdict is weak only when nothing matched at all, so ``hits`` always holds the
full ranking. (``best_weak`` holds only three results, too few for recall@100.)

The data are never copied into the repository; the vault goes to ``--workdir`` or a
temporary folder that is deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from beir import commit, load_beir, machine, score_run, write_vault  # noqa: E402

LIMIT = 100
VERDICT_OFF = {"absent_name_share": 1.0}


def run_ours(
    vault: Path, paths: dict[str, str], queries: dict[str, str], model: str | None = None
) -> tuple[dict, dict]:
    """Index ``vault`` from scratch and answer every query; returns (run, timings).

    With ``model`` (a local model2vec folder) the search is hybrid: the model is
    prepared into the vault and the vectors built before the clock for queries starts."""
    from birkin_mnemosyne import Mnemosyne

    started = time.perf_counter()
    engine = Mnemosyne(vault, ranking=VERDICT_OFF, refresh_interval=1e9, semantic=bool(model))
    engine.refresh(full=True)
    if model:
        from birkin_mnemosyne import semantic

        semantic.prepare(vault, model)
        engine.search(next(iter(queries.values())), 1)  # builds the vectors
        if engine.mode != "hybrid":
            raise SystemExit(f"hybrid search did not start: {engine.stats()['degraded_reason']}")
    build = time.perf_counter() - started
    run = {}
    started = time.perf_counter()
    for qid, text in queries.items():
        hits = engine.search(text, LIMIT)
        run[qid] = [paths[h["path"]] for h in hits if h["path"] in paths]
    answer = time.perf_counter() - started
    engine.close()
    return run, {"build_s": round(build, 2), "queries_s": round(answer, 2)}


def bench_dataset(data: Path, workdir: Path, split: str, model: str | None = None) -> dict:
    corpus, queries, qrels = load_beir(data, split)
    vault = workdir / f"vault-{data.name}"
    print(f"[{data.name}] writing {len(corpus):,} notes to {vault} ...", file=sys.stderr)
    paths = write_vault(corpus, vault)
    print(f"[{data.name}] indexing and running {len(queries):,} queries ...", file=sys.stderr)
    run, timings = run_ours(vault, paths, queries, model)
    return {
        "dataset": data.name,
        "mode": "hybrid" if model else "lexical",
        "documents": len(corpus),
        **score_run(run, qrels),
        **timings,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", action="append", required=True, metavar="FOLDER", help="a BEIR folder"
    )
    parser.add_argument("--split", default="test", help="qrels split (default test)")
    parser.add_argument("--workdir", help="where the vaults are written (default: a temp folder)")
    parser.add_argument("--json", dest="json_out", help="write the results as JSON here")
    parser.add_argument(
        "--semantic",
        metavar="MODEL",
        help="a local model2vec folder: each dataset runs lexical, then hybrid with it",
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mnemo-public-") as tmp:
        workdir = Path(args.workdir) if args.workdir else Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        rows = []
        for d in args.data:
            rows.append(bench_dataset(Path(d), workdir, args.split))
            if args.semantic:
                rows.append(bench_dataset(Path(d), workdir / "hybrid", args.split, args.semantic))
    results = {
        "date": time.strftime("%Y-%m-%d"),
        "commit": commit(),
        "machine": machine(),
        "rows": rows,
    }
    print(
        "| dataset | mode | docs | queries | nDCG@10 | MRR@10 | recall@100 | index s | queries s |"
    )
    print("|" + "---|" * 9)
    for r in rows:
        print(
            f"| {r['dataset']} | {r['mode']} | {r['documents']:,} | {r['queries']:,} | {r['ndcg@10']:.3f} | "
            f"{r['mrr@10']:.3f} | {r['recall@100']:.3f} | {r['build_s']} | {r['queries_s']} |"
        )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
