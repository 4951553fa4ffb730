"""Peers side by side on our own multilingual retrieval benchmark.

    python benchmarks/peers/own.py [--sizes 10000] [--split test]
        [--engines ours,bm25s,tantivy,mnemosyne-0.7.2] [--peer-venv /tmp/peer-venv]
        [--no-install] [--workdir /tmp/mnemo-retrieval-bench] [--json out.json]

The vault is the one ``retrieval/run.py`` builds (gold notes plus seeded distractors,
nested folders, frontmatter; reused from ``--workdir`` when present), the queries its
frozen split. Each engine gets its own copy of the vault's notes (hidden files such as
our cache left out, modification times kept) and runs in its own child process
(``engines.py --nested``: ids are vault-relative paths, ``limit=10``, every engine that
has a clock searches at the benchmark's fixed time, ``retrieval.NOW``).

Ours runs in its default configuration and is scored exactly as ``retrieval/run.py``
scores it (the ranking is ``best_weak`` when the verdict is no-strong-match). The peers
have no absence verdict: their MRR@10, hit@1 and recall@5 are over the answerable
queries (as ours are), and absence accuracy is given for ours only. Speed as in
``run.py``: build from no cache, warm p50 / p95 per query, peak RSS, also as a ratio
to ours.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    # by path, under distinct names: both scripts are called run.py
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


peers = _load("peers_run", HERE / "run.py")  # child processes, speed ratios
retrieval = _load("retrieval_run", HERE.parent / "retrieval" / "run.py")  # vault, split, scores

QUALITY = ("mrr", "hit1", "recall5")
VERDICT_FIELDS = ("false_absence", "absence_accuracy")


def _slice_names(query: dict) -> list[str]:
    return ["all", f"lang={query['lang']}", f"kind={query['kind']}", f"voice={query['voice']}"]


def bench_size(
    size: int, queries: list[dict], engines: list[str], workdir: Path, venv: Path, install: bool
) -> dict:
    notes = retrieval.gold_notes()
    vault = retrieval.build_vault(workdir, size, notes)
    base = workdir / "peers" / str(size)
    base.mkdir(parents=True, exist_ok=True)
    queries_file = base / "queries.json"
    queries_file.write_text(
        json.dumps({q["id"]: q["q"] for q in queries}, ensure_ascii=False), encoding="utf-8"
    )
    options = ["--nested", "--limit", str(retrieval.LIMIT), "--clock", repr(retrieval.NOW)]
    rows = []
    for name in engines:
        copy = base / name / "vault"
        if copy.exists():
            shutil.rmtree(copy)
        shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".*"))  # no cache
        verdict = ["--verdict"] if name == "ours" else []
        result = peers.run_engine(name, copy, queries_file, venv, install, [*options, *verdict])
        shutil.rmtree(copy.parent)
        if "skipped" not in result:
            weak = result.pop("weak", {})
            outcomes = [
                {
                    **q,
                    "ranked": result["run"][q["id"]][: retrieval.LIMIT],
                    "weak": weak.get(q["id"], False),
                }
                for q in queries
            ]
            del result["run"]
            result["slices"] = retrieval.slices(outcomes)
            if name != "ours":  # no verdict: nothing to say about absence
                for row in result["slices"].values():
                    for field in VERDICT_FIELDS:
                        row.pop(field, None)
                outcomes = [o for o in outcomes if o["expect"]]
            result["misses"] = retrieval.failures(outcomes)  # --json only
        rows.append(result)
    peers.add_speed_ratios(rows)
    answerable: dict[str, int] = defaultdict(int)
    for query in queries:
        if query["expect"]:
            for name in _slice_names(query):
                answerable[name] += 1
    return {"notes": size, "queries": len(queries), "answerable": dict(answerable), "rows": rows}


def _label(engine: str) -> str:
    return engine.replace("mnemosyne-", "mnemosyne ")


def tables(size: int, split: str, result: dict) -> list[str]:
    rows = result["rows"]
    ran = [r for r in rows if "skipped" not in r]
    absent = result["queries"] - result["answerable"].get("all", 0)
    lines = [
        f"## {size:,} notes — split {split}, {result['queries']} queries "
        f"({result['answerable'].get('all', 0)} answerable, {absent} absence)",
        "",
        f"| engine | MRR@10 | hit@1 | recall@5 | absence acc. | {peers.SPEED_HEADER} |",
        "|" + "---|" * 9,
    ]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {_label(r['engine'])} | {r['skipped']} |" + " |" * 7)
            continue
        top = r["slices"]["all"]
        quality = " | ".join(f"{top[f]:.3f}" if f in top else "–" for f in QUALITY)
        absence = f"{top['absence_accuracy']:.3f}" if "absence_accuracy" in top else "–"
        lines.append(f"| {_label(r['engine'])} | {quality} | {absence} | {peers.speed_cells(r)} |")
    lines += [
        "",
        "MRR@10 / hit@1 / recall@5 over the answerable queries of each slice:",
        "",
        "| slice | n | " + " | ".join(_label(r["engine"]) for r in ran) + " |",
        "|" + "---|" * (2 + len(ran)),
    ]
    order = ["all"]
    order += [f"lang={lang}" for lang in retrieval.LANGS]
    order += [f"kind={kind}" for kind in retrieval.KINDS if kind != "absence"]
    order += [f"voice={voice}" for voice in retrieval.VOICES]
    for name in order:
        n = result["answerable"].get(name, 0)
        if not n:
            continue
        cells = []
        for r in ran:
            row = r["slices"].get(name, {})
            cells.append(" / ".join(f"{row[f]:.3f}" if f in row else "–" for f in QUALITY))
        lines.append(f"| {name} | {n} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000", help="comma-separated vault sizes")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument(
        "--engines",
        default=",".join(peers.ENGINES),
        help=f"comma-separated, from {', '.join(peers.ENGINES)}",
    )
    parser.add_argument(
        "--peer-venv",
        default=str(peers.DEFAULT_VENV),
        help=f"virtual environment holding {peers.OLD_PACKAGE} (default {peers.DEFAULT_VENV})",
    )
    parser.add_argument(
        "--no-install", action="store_true", help=f"never create the {peers.OLD_PACKAGE} venv"
    )
    parser.add_argument(
        "--workdir",
        default=str(Path(tempfile.gettempdir()) / "mnemo-retrieval-bench"),
        help="where the vaults are built, as retrieval/run.py's (reused when present)",
    )
    parser.add_argument(
        "--max-queries", type=int, help="only the first N queries of the split (smoke tests)"
    )
    parser.add_argument("--json", dest="json_out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = sorted(set(engines) - set(peers.ENGINES))
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)} — valid: {', '.join(peers.ENGINES)}")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    assignment = retrieval.check_split()
    queries = [
        q
        for q in retrieval.load_queries()
        if args.split == "all" or assignment[q["id"]] == args.split
    ]
    if args.max_queries is not None:
        queries = queries[: args.max_queries]
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    results: dict = {
        "format": "mnemosyne-peers-own/1",
        "date": time.strftime("%Y-%m-%d"),
        "commit": peers.commit(),
        "machine": peers.machine(),
        "split": args.split,
        "split_sha256": retrieval.split_digest(),
        "sizes": {},
    }
    for size in sizes:
        result = bench_size(
            size, queries, engines, workdir, Path(args.peer_venv), not args.no_install
        )
        results["sizes"][str(size)] = result
        print("\n".join(tables(size, args.split, result)) + "\n")
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
