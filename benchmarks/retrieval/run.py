"""Retrieval quality benchmark: our own multilingual gold notes and queries.

    python benchmarks/retrieval/run.py --sizes 1000,10000 [--split test|dev|all]
        [--workdir /tmp/mnemo-retrieval] [--json out.json]

For each size a vault is assembled from the gold notes (``gold/<lang>/<zone>/<file>``
is placed at ``<zone>/<file>``) plus deterministic synthetic distractors from
``benchmarks/footprint/generate.py`` (seeded), so the vault holds ``size`` notes in
all. Distractors are generated once per size under ``--workdir`` and reused; the gold
notes are re-synced on every run (the index refresh is incremental).

Every query of the chosen split (``split.json``; tune on ``dev``, report ``test``) is
sent to the lexical engine in its default configuration with a fixed clock
(``NOW``), ``limit=10``. Figures, per language × kind × size:

* **MRR@10**: 1 / rank of the first expected note among ``hits`` (or, when the
  verdict is no-strong-match, among ``best_weak``), 0 past rank 10;
* **hit@1**: the first result is an expected note;
* **recall@5**: share of the expected notes found in the first five results;
* **false absence**: share of answerable queries answered with ``no_strong_match``;
* **absence accuracy**: share of absence queries answered with ``no_strong_match``;
* **p50 / p95 ms**: wall time of each ``search_response`` call, warm.

``compare.py A.json B.json`` prints the per-slice differences of two runs.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
GOLD = HERE / "gold"
QUERIES = HERE / "queries.jsonl"
SPLIT = HERE / "split.json"
SPLIT_HASH = HERE / "SPLIT.sha256"
LANGS = ("en", "ko", "ja", "zh", "es", "de")
KINDS = ("exact", "paraphrase", "code-switched", "identifier", "state", "absence")
VOICES = ("terse", "conversational")
# The clock every run searches with, so the recency factor never drifts with the date
# a run happens to be made on (the newest gold note is dated 2026-04).
NOW = dt.datetime(2026, 4, 20, 12, 0, tzinfo=dt.timezone.utc).timestamp()
LIMIT = 10
SEED = 11  # distractor seed; differs from the footprint default so vaults differ
GOLD_MANIFEST = ".gold-manifest.json"

sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks" / "footprint"))

from generate import generate_vault  # noqa: E402

from birkin_mnemosyne import Mnemosyne  # noqa: E402

# ----------------------------------------------------------------------- data


def gold_notes() -> dict[str, Path]:
    """Vault path -> gold file, for every gold note (the language folder dropped)."""
    notes: dict[str, Path] = {}
    for lang in LANGS:
        for file in sorted((GOLD / lang).rglob("*.md")):
            vault_path = file.relative_to(GOLD / lang).as_posix()
            if vault_path in notes:
                raise SystemExit(f"two gold notes map to {vault_path}; rename one")
            notes[vault_path] = file
    return notes


def gold_language(path: str, notes: dict[str, Path]) -> str:
    return notes[path].relative_to(GOLD).parts[0]


def load_queries() -> list[dict]:
    with QUERIES.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def split_digest() -> str:
    """sha256 over the query file and the split file, as pinned in SPLIT.sha256."""
    digest = hashlib.sha256()
    digest.update(QUERIES.read_bytes())
    digest.update(b"\0")
    digest.update(SPLIT.read_bytes())
    return digest.hexdigest()


def check_split() -> dict[str, str]:
    """Query id -> split, after checking the pinned hash (a changed split is an error)."""
    pinned = SPLIT_HASH.read_text(encoding="utf-8").split()[0]
    if split_digest() != pinned:
        raise SystemExit(
            "queries.jsonl or split.json changed since the split was frozen "
            f"(SPLIT.sha256 pins {pinned[:12]}…): results would not be comparable. "
            "Add queries only with a new, dated freeze noted in RESULTS.md."
        )
    split = json.loads(SPLIT.read_text(encoding="utf-8"))
    return {qid: name for name in ("dev", "test") for qid in split[name]}


# ---------------------------------------------------------------------- vault


def build_vault(workdir: Path, size: int, notes: dict[str, Path]) -> Path:
    """Distractors (generated once, cached) plus the current gold notes."""
    distractors = size - len(notes)
    if distractors < 0:
        raise SystemExit(f"size {size} is below the {len(notes)} gold notes")
    vault = workdir / f"vault-{size}"
    ready = vault / ".distractors-ready"
    if not ready.exists():
        if vault.exists():
            shutil.rmtree(vault)
        vault.mkdir(parents=True)
        if distractors:
            print(f"generating {distractors:,} distractors in {vault} ...", file=sys.stderr)
            generate_vault(vault, distractors, seed=SEED)
        ready.write_text("ok\n", encoding="utf-8")
    manifest = vault / GOLD_MANIFEST
    previous = json.loads(manifest.read_text(encoding="utf-8")) if manifest.exists() else {}
    for path in previous:
        if path not in notes:
            (vault / path).unlink(missing_ok=True)
    current = {}
    for path, file in notes.items():
        target = vault / path
        data = file.read_bytes()
        if path not in previous and target.exists():
            raise SystemExit(f"gold note {path} collides with a distractor; rename it")
        if not target.exists() or target.read_bytes() != data:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        current[path] = hashlib.sha256(data).hexdigest()
    manifest.write_text(json.dumps(current, indent=1) + "\n", encoding="utf-8")
    return vault


# -------------------------------------------------------------------- measure


def run_queries(
    vault: Path, queries: list[dict], semantic: str | None = None, fusion=None
) -> tuple[list[dict], dict]:
    if semantic:
        from birkin_mnemosyne import semantic as semantic_module

        record = semantic_module.prepared_model(vault)
        if record is None or record.get("source") != str(Path(semantic).resolve()):
            semantic_module.prepare(vault, semantic)
    engine = Mnemosyne(vault, refresh_interval=1e9, clock=lambda: NOW, semantic=bool(semantic))
    engine.fusion = fusion
    started = time.perf_counter()
    info = engine.refresh()
    info["refresh_s"] = round(time.perf_counter() - started, 2)
    if semantic:
        started = time.perf_counter()
        engine.search_response("warm up the vectors", LIMIT)  # embeds new sections
        info["vectors_s"] = round(time.perf_counter() - started, 2)
    for query in queries[:5]:  # warm-up: load postings blocks, fill caches
        engine.search_response(query["q"], LIMIT)
    outcomes = []
    for query in queries:
        t0 = time.perf_counter()
        response = engine.search_response(query["q"], LIMIT)
        elapsed = (time.perf_counter() - t0) * 1000
        weak = response["no_strong_match"]
        ranked = [hit["path"] for hit in (response["best_weak"] if weak else response["hits"])]
        outcomes.append({**query, "ranked": ranked[:LIMIT], "weak": weak, "ms": elapsed})
    engine.close()
    return outcomes, info


def _max_rss_mb() -> float | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024 if sys.platform == "darwin" else 1024), 1)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def score(outcome: dict) -> dict:
    """Per-query figures; an absence query only has ``absent_ok``."""
    if not outcome["expect"]:
        return {"absent_ok": 1.0 if outcome["weak"] else 0.0}
    expected = set(outcome["expect"])
    ranked = outcome["ranked"]
    rank = next((i for i, path in enumerate(ranked, 1) if path in expected), None)
    return {
        "mrr": 1.0 / rank if rank else 0.0,
        "hit1": 1.0 if rank == 1 else 0.0,
        "recall5": len(expected & set(ranked[:5])) / len(expected),
        "false_absence": 1.0 if outcome["weak"] else 0.0,
    }


def summarize(outcomes: list[dict]) -> dict:
    sums: dict[str, float] = defaultdict(float)
    answerable = absent = 0
    for outcome in outcomes:
        for name, value in score(outcome).items():
            sums[name] += value
        if outcome["expect"]:
            answerable += 1
        else:
            absent += 1
    row: dict = {"queries": len(outcomes)}
    if answerable:
        for name in ("mrr", "hit1", "recall5", "false_absence"):
            row[name] = round(sums[name] / answerable, 3)
    if absent:
        row["absence_accuracy"] = round(sums["absent_ok"] / absent, 3)
    return row


def slices(outcomes: list[dict]) -> dict[str, dict]:
    """Summaries keyed ``all``, ``lang=xx``, ``kind=k``, ``voice=v``, ``lang=xx/kind=k``."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for outcome in outcomes:
        groups["all"].append(outcome)
        groups[f"lang={outcome['lang']}"].append(outcome)
        groups[f"kind={outcome['kind']}"].append(outcome)
        groups[f"voice={outcome['voice']}"].append(outcome)
        groups[f"lang={outcome['lang']}/kind={outcome['kind']}"].append(outcome)
    return {name: summarize(group) for name, group in sorted(groups.items())}


# ---------------------------------------------------------------------- print


def _cell(row: dict, name: str) -> str:
    return f"{row[name]:.3f}" if name in row else "–"


def print_size(size: int, result: dict) -> None:
    table = result["slices"]
    print(f"\n## {size:,} notes — split {result['split']}, {table['all']['queries']} queries")
    print(
        f"latency p50 {result['latency_ms']['p50']} ms, p95 {result['latency_ms']['p95']} ms; "
        f"absence accuracy {_cell(table['all'], 'absence_accuracy')}, "
        f"false absence {_cell(table['all'], 'false_absence')}\n"
    )
    print("| slice | n | MRR@10 | hit@1 | recall@5 | false absence | absence acc. |")
    print("|---|---|---|---|---|---|---|")
    order = ["all"]
    order += [f"lang={lang}" for lang in LANGS] + [f"kind={kind}" for kind in KINDS]
    order += [f"voice={voice}" for voice in VOICES]
    order += sorted(name for name in table if "/" in name)
    for name in order:
        if name not in table:
            continue
        row = table[name]
        print(
            f"| {name} | {row['queries']} | {_cell(row, 'mrr')} | {_cell(row, 'hit1')} | "
            f"{_cell(row, 'recall5')} | {_cell(row, 'false_absence')} | "
            f"{_cell(row, 'absence_accuracy')} |"
        )


def failures(outcomes: list[dict]) -> list[dict]:
    """Queries that missed: expected note not first, or a wrong absence verdict."""
    missed = []
    for outcome in outcomes:
        figures = score(outcome)
        if figures.get("hit1", 1.0) < 1.0 or figures.get("absent_ok", 1.0) < 1.0:
            missed.append(
                {
                    key: outcome[key]
                    for key in ("id", "lang", "kind", "voice", "q", "expect", "weak")
                }
                | {"top": outcome["ranked"][:3]}
            )
    return missed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/retrieval/run.py --sizes 1000,10000 --split test",
    )
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated vault sizes")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="test")
    parser.add_argument("--workdir", help="where vaults are built (reused when present)")
    parser.add_argument("--json", dest="json_out", help="write results (and misses) as JSON")
    parser.add_argument(
        "--max-queries", type=int, help="only the first N queries of the split (smoke tests)"
    )
    parser.add_argument("--show-misses", type=int, default=0, help="print N missed queries")
    parser.add_argument(
        "--semantic",
        metavar="MODEL_PATH",
        help="run hybrid retrieval with this model2vec model (prepared into each vault)",
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    workdir = Path(args.workdir or Path(tempfile.gettempdir()) / "mnemo-retrieval-bench")
    workdir.mkdir(parents=True, exist_ok=True)
    assignment = check_split()
    notes = gold_notes()
    queries = load_queries()
    for query in queries:
        missing = [path for path in query["expect"] if path not in notes]
        if missing:
            raise SystemExit(f"query {query['id']} expects unknown gold note(s) {missing}")
    chosen = [q for q in queries if args.split == "all" or assignment[q["id"]] == args.split]
    if args.max_queries is not None:
        chosen = chosen[: args.max_queries]
    results: dict = {
        "format": "mnemosyne-retrieval-bench/1",
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "split": args.split,
        "split_sha256": split_digest(),
        "gold_notes": len(notes),
        "sizes": {},
    }
    for size in sizes:
        vault = build_vault(workdir, size, notes)
        outcomes, info = run_queries(vault, chosen, args.semantic)
        times = [outcome["ms"] for outcome in outcomes]
        result = {
            "split": args.split,
            "notes": info["notes"],
            "refresh_s": info["refresh_s"],
            "vectors_s": info.get("vectors_s"),
            "latency_ms": {
                "p50": round(_percentile(times, 0.5), 2),
                "p95": round(_percentile(times, 0.95), 2),
            },
            "mode": "hybrid" if args.semantic else "lexical",
            "max_rss_mb": _max_rss_mb(),
            "slices": slices(outcomes),
            "misses": failures(outcomes),
        }
        results["sizes"][str(size)] = result
        print_size(size, result)
        for miss in result["misses"][: args.show_misses]:
            print(f"  miss {miss['id']}: {miss['q']!r} -> {miss['top']} (weak={miss['weak']})")
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps(results, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
