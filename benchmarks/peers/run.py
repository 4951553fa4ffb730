"""Peers side by side: the same documents and queries through our engine, bm25s, tantivy
and the published birkin-mnemosyne 0.7.2, in one run.

    python benchmarks/peers/run.py --data /work/shared/datasets/scifact \\
        [--engines ours,bm25s,tantivy,mnemosyne-0.7.2] [--peer-venv /tmp/peer-venv]
        [--no-install] [--workdir DIR] [--json out.json] [--copies N] [--limit N]

``--copies 10`` writes every document ten times under unique names (SciFact: 51,830
notes), the scale test of issue #16; a document found in several copies counts once
for quality, where it first ranks. ``--limit 10`` asks for ten hits, as an agent does.

The dataset is written as a vault (``public/beir.py``: one note per document), one copy
per engine (engines that keep an index inside the vault must not see each other's).
Each engine then runs in its own child process (``engines.py``): build the index, answer
every judged query once (the ranking that is scored, ``limit=100``), then again timed
query by query (warm p50 / p95), and report its peak RSS.

Quality is nDCG@10, MRR@10 and recall@100 (``public/beir.py``); speed is also given as a
ratio to ours (above 1 = slower than ours, below 1 = faster).

bm25s and tantivy come from the ``bench`` extra (``pip install bm25s tantivy``); an
engine that is not installed is skipped and the table says so. The old
``birkin-mnemosyne==0.7.2`` shares our distribution name, so it never enters this
environment: it lives in its own virtual environment (``--peer-venv``), created on
first use with ``python -m venv`` and ``pip install birkin-mnemosyne==0.7.2`` unless
``--no-install`` is given.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "public"))

from beir import commit, load_beir, machine, score_run, write_vault  # noqa: E402

ENGINES = ("ours", "bm25s", "tantivy", "mnemosyne-0.7.2")
OLD_PACKAGE = "birkin-mnemosyne==0.7.2"
DEFAULT_VENV = Path(tempfile.gettempdir()) / "mnemosyne-peer-venv"


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def old_package_python(venv: Path, install: bool) -> tuple[Path | None, str]:
    """The Python of the 0.7.2 venv (created on demand), or None and the reason."""
    python = _venv_python(venv)
    check = [str(python), "-c", "import birkin_mnemosyne.mnemosyne"]
    # cwd, and no PYTHONPATH: from a checkout (or with PYTHONPATH naming one) the check
    # would find this project's package instead, fail, and reinstall 0.7.2 every run
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    found = python.exists() and subprocess.run(check, capture_output=True, cwd=venv, env=env)
    if found and found.returncode == 0:
        return python, ""
    if not install:
        return None, f"no {OLD_PACKAGE} venv at {venv} (run without --no-install to create it)"
    print(f"creating {venv} with {OLD_PACKAGE} ...", file=sys.stderr)
    steps = [
        [sys.executable, "-m", "venv", str(venv)],
        [str(python), "-m", "pip", "install", "--quiet", OLD_PACKAGE],
    ]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["?"]
            return None, f"could not install {OLD_PACKAGE}: {tail[0]}"
    return python, ""


def _available(name: str, venv: Path, install: bool) -> tuple[list[str] | None, dict, str]:
    """(command prefix, environment, reason when unavailable) for one engine."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if name == "mnemosyne-0.7.2":
        python, reason = old_package_python(venv, install)
        # the child must import the old package, never this checkout
        return ([str(python)] if python else None), env, reason
    if name in ("bm25s", "tantivy") and importlib.util.find_spec(name) is None:
        return None, env, f"not installed (pip install {name})"
    env["PYTHONPATH"] = str(ROOT)
    return [sys.executable], env, ""


def run_engine(
    name: str, vault: Path, queries_file: Path, venv: Path, install: bool, options=()
) -> dict:
    """One engine in its own child process (``engines.py``, ``options`` appended)."""
    prefix, env, reason = _available(name, venv, install)
    if prefix is None:
        return {"engine": name, "skipped": reason}
    out = vault.parent / f"{name}.json"
    print(f"[{name}] build + 2 passes over the queries ...", file=sys.stderr)
    proc = subprocess.run(
        [
            *prefix,
            str(HERE / "engines.py"),
            name,
            str(vault),
            str(queries_file),
            str(out),
            *options,
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(vault.parent),
    )
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        return {"engine": name, "skipped": f"failed: {tail[0]}"}
    return json.loads(out.read_text(encoding="utf-8"))


def copied(corpus: dict, copies: int) -> dict:
    """The corpus ``copies`` times over, each copy's ids prefixed ``c<k>-`` (a scale
    test: ``--copies 10`` makes SciFact's 5,183 documents 51,830)."""
    if copies <= 1:
        return corpus
    return {f"c{k}-{doc_id}": doc for k in range(copies) for doc_id, doc in corpus.items()}


def original_id(doc_id: str, copies: int) -> str:
    return doc_id.split("-", 1)[1] if copies > 1 else doc_id


def bench(
    data: Path,
    engines: list[str],
    workdir: Path,
    venv: Path,
    install: bool,
    copies: int = 1,
    limit: int | None = None,
) -> dict:
    corpus, queries, qrels = load_beir(data)
    documents = copied(corpus, copies)
    queries_file = workdir / "queries.json"
    queries_file.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    options = ("--limit", str(limit)) if limit else ()
    rows = []
    for name in engines:
        vault = workdir / name / "vault"
        if vault.exists():
            shutil.rmtree(vault)
        paths = write_vault(documents, vault)
        result = run_engine(name, vault, queries_file, venv, install, options)
        if "skipped" not in result:
            # a document found in several copies counts once, where it first ranks
            run = {
                q: list(dict.fromkeys(original_id(paths[p], copies) for p in ranked if p in paths))
                for q, ranked in result["run"].items()
            }
            result.update(score_run(run, qrels))
            del result["run"]
        rows.append(result)
    add_speed_ratios(rows)
    return {
        "dataset": data.name + (f" x{copies}" if copies > 1 else ""),
        "documents": len(documents),
        "queries": len(queries),
        "limit": limit or 100,
        "rows": rows,
    }


def add_speed_ratios(rows: list[dict]) -> None:
    """``build_ratio``, ``p50_ratio``, ``p95_ratio``, ``rss_ratio``: engine / ours."""
    ours = next((r for r in rows if r["engine"] == "ours" and "skipped" not in r), None)
    for row in rows:
        if ours is None or "skipped" in row:
            continue
        for field in ("build_s", "p50_ms", "p95_ms", "rss_mb"):
            row[field.split("_")[0] + "_ratio"] = (
                round(row[field] / ours[field], 2) if ours[field] else None
            )


SPEED_HEADER = (
    "build s (x ours) | warm p50 ms (x ours) | warm p95 ms (x ours) | peak RSS MB (x ours)"
)


def speed_cells(r: dict) -> str:
    """The four speed cells of one row, each ``value (ratio to ours)``."""

    def pair(value, ratio, digits=2):
        return f"{value:.{digits}f} ({ratio if ratio is not None else '-'})"

    return (
        f"{pair(r['build_s'], r.get('build_ratio'))} "
        f"| {pair(r['p50_ms'], r.get('p50_ratio'))} "
        f"| {pair(r['p95_ms'], r.get('p95_ratio'))} "
        f"| {pair(r['rss_mb'], r.get('rss_ratio'), 1)}"
    )


def _table(result: dict) -> list[str]:
    lines = [
        f"{result['dataset']}: {result['documents']:,} documents, {result['queries']:,} "
        f"queries, limit {result.get('limit', 100)}",
        "",
        f"| engine | nDCG@10 | MRR@10 | recall@100 | {SPEED_HEADER} |",
        "|" + "---|" * 8,
    ]
    for r in result["rows"]:
        if "skipped" in r:
            lines.append(f"| {r['engine']} | {r['skipped']} |" + " |" * 6)
            continue
        lines.append(
            f"| {r['engine']} | {r['ndcg@10']:.3f} | {r['mrr@10']:.3f} | {r['recall@100']:.3f} "
            f"| {speed_cells(r)} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", action="append", required=True, metavar="FOLDER", help="a BEIR folder"
    )
    parser.add_argument(
        "--engines", default=",".join(ENGINES), help=f"comma-separated, from {', '.join(ENGINES)}"
    )
    parser.add_argument(
        "--peer-venv",
        default=str(DEFAULT_VENV),
        help=f"virtual environment holding {OLD_PACKAGE} (default {DEFAULT_VENV})",
    )
    parser.add_argument(
        "--no-install", action="store_true", help=f"never create the {OLD_PACKAGE} venv"
    )
    parser.add_argument("--workdir", help="where the vaults are written (default: a temp folder)")
    parser.add_argument("--json", dest="json_out", help="write the results as JSON here")
    parser.add_argument(
        "--copies",
        type=int,
        default=1,
        help="a scale test: every document this many times, under unique names (default 1)",
    )
    parser.add_argument(
        "--limit", type=int, help="hits asked for per query (default 100; issue #16 uses 10)"
    )
    args = parser.parse_args(argv)
    if args.copies < 1 or (args.limit is not None and args.limit < 1):
        parser.error("--copies and --limit are whole numbers of at least 1")
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = sorted(set(engines) - set(ENGINES))
    if unknown:
        parser.error(f"unknown engine(s) {', '.join(unknown)} — valid: {', '.join(ENGINES)}")
    results = {"date": time.strftime("%Y-%m-%d"), "commit": commit(), "machine": machine()}
    datasets = []
    with tempfile.TemporaryDirectory(prefix="mnemo-peers-") as tmp:
        for data in args.data:
            workdir = Path(args.workdir or tmp) / Path(data).name
            workdir.mkdir(parents=True, exist_ok=True)
            datasets.append(
                bench(
                    Path(data),
                    engines,
                    workdir,
                    Path(args.peer_venv),
                    not args.no_install,
                    args.copies,
                    args.limit,
                )
            )
    results["datasets"] = datasets
    for result in datasets:
        print("\n".join(_table(result)) + "\n")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
