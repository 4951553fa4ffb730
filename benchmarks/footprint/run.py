"""Footprint benchmark: index build, cache size, cold start, warm latency, peak RSS,
one-note edits, searching while notes change.

    python benchmarks/footprint/run.py --sizes 1000,10000 [--workdir /tmp/mnemo-bench]
        [--runs 5] [--edits 10] [--watch 30] [--json out.json]

For each size a deterministic synthetic vault is generated (``generate.py``, seeded),
then, each in a fresh child process so timings and memory do not leak between steps:

* **build**: ``Mnemosyne(vault).refresh(full=True)`` from no cache (wall seconds,
  peak RSS);
* **cache**: bytes of ``.mnemosyne/cache/search-index.*`` (base and log);
* **cold start**: a new process doing import + cache load + stat pass + first query,
  timed from outside (median of ``--runs``, a different query each run);
* **warm**: one process answers the fixed query set once to warm up, then again
  timed per query: p50 / p95 in milliseconds, plus its peak RSS;
* **edit**: one process, index loaded and warm, appends a line to one note at a time
  (``--edits`` notes, spread over the vault) and times ``refresh(paths=[note])`` (what
  a write through the library does), then the first search after it (of a query the
  process answered before the edit: what the edit costs the next search); then a few
  edits each followed by ``refresh()`` (a stat pass of every file). Each note gets its
  bytes and mtime back afterwards, so the vault is the same for the next run;
* **watch**: one process with the default ``refresh_interval`` (2 s) searches back to
  back through the query set for ``--watch`` seconds while, every 3 s (once the last
  edit was found), a line naming a new word is appended to a note from outside (as an
  editor would): search latency (p50 of the query set; p99 and max of every search,
  the one-word searches for the edits' words included, since any search may be the one
  that pays for a pass: to hold against the warm step's, which has no stat passes),
  and per edit how long until a search for its word (one after each query) finds it:
  the staleness window, observed; with the engine's own stat-pass cost and reported
  window. The JSON keeps every latency.

Figures drift on a shared machine: compare runs made side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from bytecode import ensure_compiled  # noqa: E402
from generate import benchmark_queries, generate_vault  # noqa: E402

BUILD = """
import json, resource, sys, time
t0 = time.perf_counter()
from birkin_mnemosyne import Mnemosyne
engine = Mnemosyne(sys.argv[1])
result = engine.refresh(full=True)
elapsed = time.perf_counter() - t0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "rss_kb": rss, "notes": result["notes"]}))
"""

COLD = """
import sys
from birkin_mnemosyne import Mnemosyne
Mnemosyne(sys.argv[1]).search(sys.argv[2])
"""

WARM = """
import json, resource, sys, time
from birkin_mnemosyne import Mnemosyne
engine = Mnemosyne(sys.argv[1], refresh_interval=1e9)
queries = json.loads(open(sys.argv[2], encoding="utf-8").read())
for q in queries:
    engine.search(q)
times = []
for q in queries:
    t0 = time.perf_counter()
    engine.search(q)
    times.append((time.perf_counter() - t0) * 1000)
times.sort()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"p50": times[len(times) // 2], "p95": times[int(len(times) * 0.95)],
                  "p99": times[int(len(times) * 0.99)],
                  "max": times[-1], "rss_kb": rss, "queries": len(times)}))
"""


EDIT = """
import json, os, statistics, sys, time
from birkin_mnemosyne import Mnemosyne
vault, edits = sys.argv[1], int(sys.argv[2])
queries = json.loads(open(sys.argv[3], encoding="utf-8").read())
engine = Mnemosyne(vault, refresh_interval=1e9)
for query in queries[:edits]:
    engine.search(query)  # each query searched after an edit was asked before it
paths = sorted(engine.note_paths())
picked = [paths[(i * 7919) % len(paths)] for i in range(edits + 3)]
saved = {}
for rel in picked:
    full = os.path.join(vault, rel)
    saved[rel] = (open(full, "rb").read(), os.stat(full).st_mtime_ns)

def edit(rel, i):
    with open(os.path.join(vault, rel), "a", encoding="utf-8") as handle:
        handle.write(f"\\nbenchedit{i} one more line\\n")

refresh_ms, after_ms, full_ms = [], [], []
try:
    for i, rel in enumerate(picked[:edits]):
        edit(rel, i)
        t0 = time.perf_counter()
        engine.refresh(paths=[rel])
        refresh_ms.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        engine.search(queries[i % len(queries)])
        after_ms.append((time.perf_counter() - t0) * 1000)
    for i, rel in enumerate(picked[edits:]):
        edit(rel, edits + i)
        t0 = time.perf_counter()
        engine.refresh()
        full_ms.append((time.perf_counter() - t0) * 1000)
finally:
    for rel, (data, mtime) in saved.items():
        full = os.path.join(vault, rel)
        open(full, "wb").write(data)
        os.utime(full, ns=(mtime, mtime))
    engine.refresh(paths=list(saved))
print(json.dumps({"refresh_ms": statistics.median(refresh_ms), "refresh_max_ms": max(refresh_ms),
                  "after_ms": statistics.median(after_ms),
                  "full_ms": statistics.median(full_ms)}))
"""

WATCH = """
import json, os, statistics, sys, time
from birkin_mnemosyne import Mnemosyne
vault, seconds = sys.argv[1], float(sys.argv[2])
queries = json.loads(open(sys.argv[3], encoding="utf-8").read())
engine = Mnemosyne(vault)
for q in queries:
    engine.search(q)
paths = sorted(engine.note_paths())
saved, latencies, probes, seen = {}, [], [], []
pending = None  # (word, time written)
started = time.monotonic()
next_edit = started
i = 0
try:
    while time.monotonic() - started < seconds:
        now = time.monotonic()
        if pending is None and now >= next_edit:
            rel = paths[(len(saved) * 104729) % len(paths)]
            full = os.path.join(vault, rel)
            saved.setdefault(rel, (open(full, "rb").read(), os.stat(full).st_mtime_ns))
            word = f"watchword{len(saved)}x"
            with open(full, "a", encoding="utf-8") as handle:
                handle.write(f"\\n{word}\\n")
            pending = (word, time.monotonic())
            next_edit = pending[1] + 3.0
        t0 = time.perf_counter()
        engine.search(queries[i % len(queries)])
        latencies.append((time.perf_counter() - t0) * 1000)
        i += 1
        if pending is not None:
            t0 = time.perf_counter()
            found = engine.search(pending[0], limit=1)
            probes.append((time.perf_counter() - t0) * 1000)
            if found:
                seen.append(time.monotonic() - pending[1])
                pending = None
finally:
    for rel, (data, mtime) in saved.items():
        full = os.path.join(vault, rel)
        open(full, "wb").write(data)
        os.utime(full, ns=(mtime, mtime))
    engine.refresh(paths=list(saved))
status = engine.freshness()
every = sorted(latencies + probes)  # any search may be the one that pays for a pass
queries_only = sorted(latencies)
print(json.dumps({"p50": queries_only[len(queries_only) // 2],
                  "p99": every[min(len(every) - 1, int(len(every) * 0.99))],
                  "max": every[-1], "searches": len(every), "probes": len(probes),
                  "latencies": [round(x, 2) for x in latencies],
                  "probe_latencies": [round(x, 2) for x in probes],
                  "seen_median_s": statistics.median(seen) if seen else None,
                  "seen_max_s": max(seen) if seen else None, "edits": len(saved),
                  "unseen": int(pending is not None),
                  "pass_s": getattr(engine, "_scan_cost", None),
                  "window_s": status.get("staleness_window_s")}))
"""


def _child(code: str, *args: str) -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise SystemExit(f"benchmark child failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cold(vault: Path, queries: list[str], runs: int) -> float:
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", COLD, str(vault), queries[i % len(queries)]],
            check=True,
            capture_output=True,
        )
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def bench_size(
    size: int, workdir: Path, runs: int, queries: list[str], edits: int = 10, watch: float = 30.0
) -> dict:
    vault = workdir / f"vault-{size}"
    if not (vault / "queries.json").exists():
        print(f"generating {size:,} notes in {vault} ...", file=sys.stderr)
        generate_vault(vault, size)
    qfile = workdir / "queries.json"
    qfile.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    print(f"[{size:,}] full build ...", file=sys.stderr)
    build = _child(BUILD, str(vault))
    cache = vault / ".mnemosyne" / "cache" / "search-index.blocks"
    print(f"[{size:,}] cold start x{runs} ...", file=sys.stderr)
    cold_ms = _cold(vault, queries, runs)
    print(f"[{size:,}] warm queries ...", file=sys.stderr)
    warm = _child(WARM, str(vault), str(qfile))
    cache_bytes = sum(p.stat().st_size for p in cache.parent.glob("search-index.*"))
    print(f"[{size:,}] one-note edits x{edits} ...", file=sys.stderr)
    edit = _child(EDIT, str(vault), str(edits), str(qfile))
    print(f"[{size:,}] searching for {watch:g} s while notes change ...", file=sys.stderr)
    stale = _child(WATCH, str(vault), str(watch), str(qfile))
    return {
        "notes": build["notes"],
        "build_s": round(build["seconds"], 2),
        "build_rss_mb": round(build["rss_kb"] / 1024, 1),
        "cache_mb": round(cache_bytes / 2**20, 2),
        "cold_ms": round(cold_ms, 1),
        "warm_p50_ms": round(warm["p50"], 2),
        "warm_p95_ms": round(warm["p95"], 2),
        "warm_p99_ms": round(warm["p99"], 2),
        "warm_rss_mb": round(warm["rss_kb"] / 1024, 1),
        "queries": warm["queries"],
        "edit_refresh_ms": round(edit["refresh_ms"], 1),
        "edit_refresh_max_ms": round(edit["refresh_max_ms"], 1),
        "search_after_edit_ms": round(edit["after_ms"], 1),
        "edit_full_refresh_ms": round(edit["full_ms"], 1),
        "watch_p50_ms": round(stale["p50"], 2),
        "watch_p99_ms": round(stale["p99"], 1),
        "watch_max_ms": round(stale["max"], 1),
        "watch_searches": stale["searches"],
        "watch_probes": stale["probes"],
        "watch_latencies_ms": stale["latencies"],
        "watch_probe_latencies_ms": stale["probe_latencies"],
        "seen_median_s": None
        if stale["seen_median_s"] is None
        else round(stale["seen_median_s"], 2),
        "seen_max_s": None if stale["seen_max_s"] is None else round(stale["seen_max_s"], 2),
        "watch_edits": stale["edits"],
        "watch_unseen": stale["unseen"],
        "stat_pass_s": None if stale["pass_s"] is None else round(stale["pass_s"], 3),
        "reported_window_s": stale["window_s"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument("--workdir", help="where vaults are generated (reused when present)")
    parser.add_argument("--runs", type=int, default=5, help="cold-start runs (median)")
    parser.add_argument("--edits", type=int, default=10, help="one-note edits timed")
    parser.add_argument(
        "--watch", type=float, default=30.0, help="seconds of searching while notes change"
    )
    parser.add_argument("--json", dest="json_out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="mnemo-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    queries = benchmark_queries()
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "bytecode": ensure_compiled(),
    }
    print(results["bytecode"], file=sys.stderr)
    rows = []
    for size in sizes:
        row = bench_size(size, workdir, args.runs, queries, args.edits, args.watch)
        rows.append(row)
    results["rows"] = rows
    header = "| notes | build s | build RSS MB | cache MB | cold start ms | warm p50 ms | warm p95 ms | warm RSS MB |"
    print(header)
    print("|" + "---|" * 8)
    for r in rows:
        print(
            f"| {r['notes']:,} | {r['build_s']} | {r['build_rss_mb']} | {r['cache_mb']} | "
            f"{r['cold_ms']} | {r['warm_p50_ms']} | {r['warm_p95_ms']} | {r['warm_rss_mb']} |"
        )
    print()
    print(
        "| notes | edit+refresh(paths) ms (max) | search after edit ms | edit+refresh() ms "
        "| warm p99 ms | watch p50 (queries) / p99 / max (all) ms | edit seen after s (median / max) "
        "| stat pass s | reported window s |"
    )
    print("|" + "---|" * 9)
    for r in rows:
        print(
            f"| {r['notes']:,} | {r['edit_refresh_ms']} ({r['edit_refresh_max_ms']}) | "
            f"{r['search_after_edit_ms']} | {r['edit_full_refresh_ms']} | {r['warm_p99_ms']} | "
            f"{r['watch_p50_ms']} / {r['watch_p99_ms']} / {r['watch_max_ms']} | "
            f"{r['seen_median_s']} / {r['seen_max_s']} ({r['watch_edits']} edits, "
            f"{r['watch_unseen']} unseen) | {r['stat_pass_s']} | {r['reported_window_s']} |"
        )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
