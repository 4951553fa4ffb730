"""One engine over a Tessellate vault copy, in its own process: whole responses as JSON.

    python tessellate_engine.py ENGINE VAULT QUERIES.json OUT.json [--clock EPOCH] [--limit N]
        [--no-verdict] [--semantic MODEL]

Run by ``tessellate.py`` (never imported by it). Unlike ``peers/engines.py``, which
keeps only the ranked paths, this keeps every response whole: the scoring needs the
absence verdict, the headings, and every string the response carries (the leak scan).
Standard library at the top: the ``mnemosyne-0.7.2`` engine runs under the Python of a
separate virtual environment that has only that package installed, and it is opened
exactly as ``peers/engines.py`` opens it (``open_072``).

Ours runs in its default configuration (``Mnemosyne(vault).search_response(q,
limit=10)``) except that the periodic stat pass is off (the files do not change during
the run; 0.7.2's rescan is switched off the same way). ``--no-verdict`` switches our
absence verdict off in this child process (no query word counts as missing, and the
"nothing holds them together" floors are 0), so ``hits`` holds the whole top ``limit``:
``best_weak`` holds only the first three. The
first pass over the queries gives the responses that are scored; the second is timed
query by query.

OUT holds ``{"engine", "path_key", "build_s", "p50_ms", "p95_ms", "rss_mb",
"responses": {query id: response}}``. ``ours-hybrid`` is ours with the model at
``--semantic`` prepared into the vault copy and ``semantic=True``. A 0.7.2 response is ``{"hits": [...]}``, its hits
as 0.7.2 returns them (``path_key`` names the field that holds the vault path).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

PEERS = Path(__file__).resolve().parent.parent / "peers"
sys.path.insert(0, str(PEERS))

import engines  # noqa: E402  (peers/engines.py: the 0.7.2 driver and the RSS probe)


def ours(
    vault: Path, clock: float | None, limit: int, verdict: bool = True, model: str | None = None
):
    from birkin_mnemosyne import Mnemosyne

    options: dict = {"refresh_interval": 1e9}
    if model is not None:
        from birkin_mnemosyne import semantic

        semantic.prepare(vault, model)
        options["semantic"] = True
    if clock is not None:
        options["clock"] = lambda: clock
    if not verdict:
        from birkin_mnemosyne import ranking

        options["ranking"] = {"absent_coverage": 0.0, "absent_ratio": 0.0}
        ranking.missing_names = lambda *args: []  # a diagnostic run: the ranking alone
    engine = Mnemosyne(vault, **options)
    engine.refresh()
    if model is not None and engine.mode != "hybrid":
        raise SystemExit(f"hybrid search did not start: {engine.stats()['degraded_reason']}")

    def search(query: str) -> dict:
        return engine.search_response(query, limit=limit)

    return search, "path"


def ours_hybrid(vault: Path, clock: float | None, limit: int, verdict: bool = True, model=None):
    if model is None:
        raise SystemExit("ours-hybrid needs --semantic MODEL")
    return ours(vault, clock, limit, verdict, model)


def mnemosyne_072(
    vault: Path, clock: float | None, limit: int, verdict: bool = True, model: str | None = None
):
    engines.CLOCK = clock
    engine, now = engines.open_072(vault)

    def search(query: str) -> dict:
        return {"hits": engine.search(query, limit=limit, now=now)}

    return search, "rel"


ENGINES = {"ours": ours, "ours-hybrid": ours_hybrid, "mnemosyne-0.7.2": mnemosyne_072}


def _percentile(ordered: list[float], share: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))] if ordered else 0.0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("name", choices=sorted(ENGINES))
    for positional in ("vault", "queries_file", "out"):
        parser.add_argument(positional)
    parser.add_argument("--clock", type=float)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--no-verdict", action="store_true")
    parser.add_argument("--semantic", help="the model folder (ours-hybrid)")
    args = parser.parse_args(argv)
    queries = json.loads(Path(args.queries_file).read_text(encoding="utf-8"))
    started = time.perf_counter()
    search, path_key = ENGINES[args.name](
        Path(args.vault), args.clock, args.limit, not args.no_verdict, args.semantic
    )
    build = time.perf_counter() - started
    responses = {query["id"]: search(query["q"]) for query in queries}
    times = []
    for query in queries:
        t0 = time.perf_counter()
        search(query["q"])
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    result = {
        "engine": args.name,
        "path_key": path_key,
        "build_s": round(build, 3),
        "p50_ms": round(_percentile(times, 0.5), 2),
        "p95_ms": round(_percentile(times, 0.95), 2),
        "rss_mb": engines._peak_rss_mb(),
        "responses": responses,
    }
    # default=str: 0.7.2 hits may carry dates or other non-JSON values
    Path(args.out).write_text(json.dumps(result, ensure_ascii=False, default=str), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
