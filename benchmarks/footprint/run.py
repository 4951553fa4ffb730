"""Footprint benchmark: index build, cache size, cold start, warm latency, peak RSS.

    python benchmarks/footprint/run.py --sizes 1000,10000 [--workdir /tmp/mnemo-bench]
        [--runs 5] [--json out.json]

For each size a deterministic synthetic vault is generated (``generate.py``, seeded),
then, each in a fresh child process so timings and memory do not leak between steps:

* **build**: ``Mnemosyne(vault).refresh(full=True)`` from no cache (wall seconds,
  peak RSS);
* **cache**: bytes of ``.mnemosyne/cache/index.json.z``;
* **cold start**: a new process doing import + cache load + stat pass + first query,
  timed from outside (median of ``--runs``, a different query each run);
* **warm**: one process answers the fixed query set once to warm up, then again
  timed per query: p50 / p95 in milliseconds, plus its peak RSS.

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
                  "max": times[-1], "rss_kb": rss, "queries": len(times)}))
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


def bench_size(size: int, workdir: Path, runs: int, queries: list[str]) -> dict:
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
    return {
        "notes": build["notes"],
        "build_s": round(build["seconds"], 2),
        "build_rss_mb": round(build["rss_kb"] / 1024, 1),
        "cache_mb": round(cache.stat().st_size / 2**20, 2),
        "cold_ms": round(cold_ms, 1),
        "warm_p50_ms": round(warm["p50"], 2),
        "warm_p95_ms": round(warm["p95"], 2),
        "warm_rss_mb": round(warm["rss_kb"] / 1024, 1),
        "queries": warm["queries"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument("--workdir", help="where vaults are generated (reused when present)")
    parser.add_argument("--runs", type=int, default=5, help="cold-start runs (median)")
    parser.add_argument("--json", dest="json_out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="mnemo-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    queries = benchmark_queries()
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    }
    rows = []
    for size in sizes:
        row = bench_size(size, workdir, args.runs, queries)
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
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
