"""The PostgreSQL team index: ingest time, query latency under concurrent clients, and
agreement with the local engine.

    python benchmarks/team/run.py --tessellate /work/shared/datasets/tessellate \\
        [--synthetic 100000] [--clients 1,4,16] [--workdir /tmp/mnemo-team] \\
        [--url postgresql://...] [--json out.json]

Without ``--url`` a scratch PostgreSQL is started for the run (``team.scratch``: the
distribution's ``initdb`` + ``pg_ctl`` on a free loopback port) and removed after.

Per corpus (the Tessellate dev vault; with ``--synthetic N`` also the footprint
generator's N-note vault, its 200 queries):

* the corpus is copied into ``--workdir`` as a git repository with one commit (the
  shared folder is never touched);
* **ingest s**: a first ``ingest`` into an empty index, then again with nothing
  committed (**no-op s**), then after a commit changing ten notes (**10 changed s**);
* **agreement** (Tessellate): every query through the local engine and through the
  team index, ``limit=10``, the same clock: overlap@10 (shared paths / the local
  engine's hit count), the share of identical verdicts (``no_strong_match`` and
  ``confidence``), the share of identical ordered top 10;
* **p50 / p95 ms at C clients**: C client processes, each with its own connection,
  answer the query set once (warm-up), wait for each other, then answer it again
  timed query by query (each client its own shuffled order); percentiles over every
  timed query of every client, and queries per second over the timed window. The
  local engine's warm p50 / p95 over the same queries (one process) is the reference.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE.parent / "footprint"))

from bytecode import ensure_compiled  # noqa: E402

LIMIT = 10
CLOCK = 1_783_000_000.0  # a fixed "now" (2026-07-02), the same for both engines


def _git(repo: Path, *args: str) -> None:
    identity = ["-c", "user.email=bench@example.org", "-c", "user.name=bench"]
    subprocess.run(["git", "-C", str(repo), *identity, *args], check=True, capture_output=True)


def make_repo(source: Path, target: Path) -> Path:
    """``source``'s notes copied to ``target`` as a git repository with one commit."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(".mnemosyne", ".git"))
    _git(target, "init", "-q")
    _git(target, "add", "-A")
    _git(target, "commit", "-qm", "c")
    return target


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def _ingest(url: str, name: str, repo: Path) -> tuple[float, dict]:
    from birkin_mnemosyne.config import load_config
    from birkin_mnemosyne.team.ingest import ingest

    started = time.perf_counter()
    report = ingest(url, [(name, repo)], config=load_config(repo))
    seconds = time.perf_counter() - started
    if not report.ok:
        raise SystemExit(f"ingest failed: {report.to_dict()}")
    return seconds, report.repos[0].to_dict()


def ingest_times(url: str, name: str, repo: Path) -> dict:
    first, report = _ingest(url, name, repo)
    noop, _ = _ingest(url, name, repo)
    notes = sorted(p for p in repo.rglob("*.md") if ".git" not in p.parts)
    step = max(1, len(notes) // 10)
    for path in notes[::step][:10]:
        with path.open("a", encoding="utf-8") as handle:
            handle.write("\nA line added for the incremental ingest step.\n")
    _git(repo, "commit", "-qam", "ten notes changed")
    changed, again = _ingest(url, name, repo)
    return {
        "notes": report["added"],
        "ingest_s": round(first, 2),
        "noop_s": round(noop, 3),
        "changed10_s": round(changed, 3),
        "changed": again["changed"],
    }


def agreement(url: str, name: str, repo: Path, queries: list[str]) -> dict:
    from birkin_mnemosyne import Mnemosyne

    options = {"refresh_interval": 1e9, "clock": lambda: CLOCK}
    prefix = f"{name}/"
    overlap, verdicts, identical = [], 0, 0
    with Mnemosyne(repo, **options) as local, Mnemosyne(repo, index=url, **options) as team:
        local.refresh()
        for query in queries:
            a = local.search_response(query, limit=LIMIT)
            b = team.search_response(query, limit=LIMIT)
            ours = [h["path"] for h in a["hits"]]
            theirs = [h["path"].removeprefix(prefix) for h in b["hits"]]
            if ours:
                overlap.append(len(set(ours) & set(theirs)) / len(ours))
            elif not theirs:
                overlap.append(1.0)
            else:
                overlap.append(0.0)
            same = (a["no_strong_match"], a["confidence"]) == (
                b["no_strong_match"],
                b["confidence"],
            )
            verdicts += same
            identical += ours == theirs
    n = len(queries)
    return {
        "queries": n,
        "overlap_at_10": round(statistics.fmean(overlap), 4) if overlap else None,
        "same_verdict": round(verdicts / n, 4),
        "same_top10": round(identical / n, 4),
    }


def local_latency(repo: Path, queries: list[str]) -> dict:
    from birkin_mnemosyne import Mnemosyne

    with Mnemosyne(repo, refresh_interval=1e9, clock=lambda: CLOCK) as engine:
        engine.refresh()
        for query in queries:
            engine.search_response(query, limit=LIMIT)
        times = []
        for query in queries:
            t0 = time.perf_counter()
            engine.search_response(query, limit=LIMIT)
            times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    return {
        "p50_ms": round(_percentile(times, 0.5), 2),
        "p95_ms": round(_percentile(times, 0.95), 2),
    }


CLIENT = r"""
import json, random, sys, time
from pathlib import Path
from birkin_mnemosyne import Mnemosyne
url, repo, queries_file, out, seed, start_file, clock = sys.argv[1:8]
queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
random.Random(int(seed)).shuffle(queries)
clock = float(clock)
with Mnemosyne(repo, index=url, refresh_interval=1e9, clock=lambda: clock) as engine:
    for q in queries:
        engine.search_response(q, limit=10)
    Path(out + ".ready").touch()
    while not Path(start_file).exists():
        time.sleep(0.005)
    times = []
    begun = time.perf_counter()
    for q in queries:
        t0 = time.perf_counter()
        engine.search_response(q, limit=10)
        times.append((time.perf_counter() - t0) * 1000)
    window = time.perf_counter() - begun
Path(out).write_text(json.dumps({"times": times, "window": window}))
"""


def concurrent(url: str, repo: Path, queries: list[str], clients: int, work: Path) -> dict:
    run = Path(tempfile.mkdtemp(dir=work, prefix=f"clients-{clients}-"))
    queries_file = run / "queries.json"
    queries_file.write_text(json.dumps(queries, ensure_ascii=False), encoding="utf-8")
    start = run / "start"
    procs, outs = [], []
    for i in range(clients):
        out = run / f"client-{i}.json"
        outs.append(out)
        argv = [sys.executable, "-c", CLIENT, url, str(repo), str(queries_file), str(out)]
        procs.append(subprocess.Popen([*argv, str(i), str(start), str(CLOCK)]))
    while not all(Path(f"{o}.ready").exists() for o in outs):
        if any(p.poll() not in (None, 0) for p in procs):
            raise SystemExit("a client failed")
        time.sleep(0.01)
    start.touch()
    for proc in procs:
        if proc.wait() != 0:
            raise SystemExit("a client failed")
    times, windows = [], []
    for out in outs:
        data = json.loads(out.read_text())
        times += data["times"]
        windows.append(data["window"])
    times.sort()
    shutil.rmtree(run, ignore_errors=True)
    return {
        "clients": clients,
        "p50_ms": round(_percentile(times, 0.5), 2),
        "p95_ms": round(_percentile(times, 0.95), 2),
        "qps": round(len(times) / max(windows), 1),
    }


def corpus(url, name, repo, queries, clients, work, *, agree: bool) -> dict:
    print(f"[{name}] ingest ...", file=sys.stderr)
    result = {"corpus": name, **ingest_times(url, name, repo)}
    if agree:
        print(f"[{name}] agreement with the local engine ...", file=sys.stderr)
        result["agreement"] = agreement(url, name, repo, queries)
    print(f"[{name}] local engine latency ...", file=sys.stderr)
    result["local"] = local_latency(repo, queries)
    result["team"] = []
    for count in clients:
        print(f"[{name}] {count} client(s) ...", file=sys.stderr)
        result["team"].append(concurrent(url, repo, queries, count, work))
    return result


def table(results: list[dict]) -> list[str]:
    lines = [
        "| corpus | notes | ingest s | no-op s | 10 changed s | local p50 / p95 ms | "
        + " | ".join(f"{t['clients']} client(s) p50 / p95 ms (q/s)" for t in results[0]["team"])
        + " |",
        "|---|---:|---:|---:|---:|---:|" + "---:|" * len(results[0]["team"]),
    ]
    for r in results:
        cells = [
            r["corpus"],
            f"{r['notes']:,}",
            f"{r['ingest_s']}",
            f"{r['noop_s']}",
            f"{r['changed10_s']}",
            f"{r['local']['p50_ms']} / {r['local']['p95_ms']}",
        ]
        cells += [f"{t['p50_ms']} / {t['p95_ms']} ({t['qps']})" for t in r["team"]]
        lines.append("| " + " | ".join(cells) + " |")
    for r in results:
        if "agreement" in r:
            a = r["agreement"]
            lines.append("")
            lines.append(
                f"agreement with the local engine on {r['corpus']} ({a['queries']} queries, top "
                f"{LIMIT}): overlap@10 {a['overlap_at_10']}, same verdict {a['same_verdict']}, "
                f"same ordered top 10 {a['same_top10']}"
            )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tessellate", type=Path, help="the Tessellate dataset folder")
    parser.add_argument("--synthetic", type=int, default=0, help="also an N-note generated vault")
    parser.add_argument("--clients", default="1,4,16", help="concurrent clients (default 1,4,16)")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/mnemo-team"))
    parser.add_argument("--url", help="an existing PostgreSQL (default: a scratch server)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not args.tessellate and not args.synthetic:
        parser.error("give --tessellate DIR and/or --synthetic N")
    clients = [int(c) for c in args.clients.split(",") if c.strip()]
    ensure_compiled()
    args.workdir.mkdir(parents=True, exist_ok=True)
    from birkin_mnemosyne.team.scratch import ScratchPostgres

    server = None
    url = args.url
    if url is None:
        server = ScratchPostgres().start()
        url = server.url
    results = []
    try:
        if args.tessellate:
            queries = [
                q["q"]
                for q in json.loads((args.tessellate / "queries.json").read_text(encoding="utf-8"))
            ]
            repo = make_repo(args.tessellate / "vault", args.workdir / "tessellate")
            tess_url = f"{url}{'&' if '?' in url else '?'}schema=bench_tessellate"
            results.append(
                corpus(tess_url, "tessellate", repo, queries, clients, args.workdir, agree=True)
            )
        if args.synthetic:
            from generate import benchmark_queries, generate_vault

            source = args.workdir / f"generated-{args.synthetic}"
            if not (source / "queries.json").exists():
                print(f"generating {args.synthetic:,} notes ...", file=sys.stderr)
                shutil.rmtree(source, ignore_errors=True)
                generate_vault(source, args.synthetic)
            repo = make_repo(source, args.workdir / f"synthetic-{args.synthetic}")
            (repo / "queries.json").unlink(missing_ok=True)
            syn_url = f"{url}{'&' if '?' in url else '?'}schema=bench_synthetic"
            name = f"synthetic-{args.synthetic}"
            results.append(
                corpus(syn_url, name, repo, benchmark_queries(), clients, args.workdir, agree=True)
            )
    finally:
        if server is not None:
            server.stop()
    print("\n".join(table(results)))
    if args.json:
        meta = {"date": time.strftime("%Y-%m-%d"), "cpus": os.cpu_count()}
        args.json.write_text(json.dumps({**meta, "results": results}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    random.seed(0)
    sys.exit(main())
