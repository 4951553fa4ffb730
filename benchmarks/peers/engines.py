"""One engine, one child process: build, answer every query twice, report JSON.

    python engines.py ENGINE VAULT QUERIES.json OUT.json [--nested] [--limit N]
        [--clock EPOCH] [--verdict]

Run by ``run.py`` and ``own.py`` (never imported by them) so each engine's timings and
peak memory are its own. Standard library at the top: the ``mnemosyne-0.7.2`` engine
runs under the Python of a separate virtual environment that has only that package
installed.

Every engine indexes the same files: the notes of VAULT, each read whole, identified
by file name (public datasets: one flat folder) or, with ``--nested``, by their
vault-relative POSIX path (every visible ``.md`` below VAULT; hidden parts,
``node_modules`` and ``__pycache__`` skipped, as our discovery does). The first pass over
the queries warms up and gives the ranking; the second is timed query by query.

``--clock`` fixes the time the engines that have one search at (ours: ``clock=``,
0.7.2: ``now=``). ``--verdict`` runs ours in its default configuration (absence verdict
on) and records it per query: the ranking is then ``best_weak`` when the verdict is
no-strong-match, as ``retrieval/run.py`` scores it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path

LIMIT = 100
NESTED = False  # --nested: every visible note below the vault, ids = relative paths
CLOCK: float | None = None  # --clock: the fixed search time (epoch seconds)
VERDICT = False  # --verdict: ours keeps its absence verdict and reports it
SKIPPED_DIRS = {"node_modules", "__pycache__"}


def _documents(vault: Path) -> tuple[list[str], list[str]]:
    if NESTED:
        names = sorted(
            rel
            for rel in (p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
            if not any(part.startswith(".") or part in SKIPPED_DIRS for part in rel.split("/"))
        )
    else:
        names = sorted(p.name for p in vault.glob("*.md"))
    return names, [(vault / n).read_text(encoding="utf-8") for n in names]


def ours(vault: Path):
    from birkin_mnemosyne import Mnemosyne

    options = {"refresh_interval": 1e9}  # no stat pass between timed queries
    if CLOCK is not None:
        options["clock"] = lambda: CLOCK
    if not VERDICT:
        # absent_name_share = 1: the absence verdict never empties `hits`
        # (see public/run.py).
        options["ranking"] = {"absent_name_share": 1.0}
    engine = Mnemosyne(vault, **options)
    engine.refresh(full=True)

    def search(query: str) -> list[str]:
        return [h["path"] for h in engine.search(query, LIMIT)]

    def search_with_verdict(query: str) -> tuple[list[str], bool]:
        # exactly as retrieval/run.py scores it
        response = engine.search_response(query, LIMIT)
        weak = response["no_strong_match"]
        hits = response["best_weak"] if weak else response["hits"]
        return [h["path"] for h in hits], weak

    return search_with_verdict if VERDICT else search


def open_072(vault: Path):
    """0.7.2's engine over VAULT, indexed, and the ``now=`` its searches take.

    Its API: ``Mnemosyne(vault, semantic=False)``, ``rebuild()``, then
    ``search(query, limit=, now=)`` returns a list of hit dicts (``rel``, ``title``,
    ``summary``, ``score``, ...) with no absence verdict. Also used by
    ``retrieval/tessellate_engine.py``, which keeps the whole hits.
    """
    from datetime import datetime, timezone

    import birkin_mnemosyne.mnemosyne as module

    # 0.7.2 re-stats the whole vault every SCAN_TTL (2 s) inside search(); the files
    # do not change during the run, so the rescan is switched off as it is for ours.
    module.SCAN_TTL = 1e9
    engine = module.Mnemosyne(vault, semantic=False)
    engine.rebuild()
    now = datetime.fromtimestamp(CLOCK, timezone.utc) if CLOCK is not None else None
    return engine, now


def mnemosyne_072(vault: Path):
    engine, now = open_072(vault)

    def search(query: str) -> list[str]:
        # `rel` is the vault-relative POSIX path (`runbooks/x.md`), nested or not
        return [h["rel"] for h in engine.search(query, limit=LIMIT, now=now)]

    return search


def bm25s_engine(vault: Path):
    import bm25s

    names, texts = _documents(vault)
    try:
        import Stemmer

        stemmer = Stemmer.Stemmer("english")
    except ImportError:
        stemmer = None
    corpus_tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(corpus_tokens, show_progress=False)
    k = min(LIMIT, len(names))

    def search(query: str) -> list[str]:
        tokens = bm25s.tokenize([query], stopwords="en", stemmer=stemmer, show_progress=False)
        if not tokens.vocab:
            return []
        docs, _scores = retriever.retrieve(tokens, k=k, show_progress=False)
        return [names[int(i)] for i in docs[0]]

    return search


def tantivy_engine(vault: Path):
    import tantivy

    names, texts = _documents(vault)
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("name", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
    schema = builder.build()
    index = tantivy.Index(schema)  # in memory
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    for name, text in zip(names, texts):
        writer.add_document(tantivy.Document(name=name, body=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()

    def search(query: str) -> list[str]:
        # Lenient parsing: claims and questions hold ':' '(' '"' that the strict
        # query language would reject.
        parsed, _errors = index.parse_query_lenient(query, ["body"])
        hits = searcher.search(parsed, LIMIT).hits
        return [searcher.doc(address)["name"][0] for _score, address in hits]

    return search


ENGINES = {
    "ours": ours,
    "bm25s": bm25s_engine,
    "tantivy": tantivy_engine,
    "mnemosyne-0.7.2": mnemosyne_072,
}


def _peak_rss_mb() -> float:
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        # Linux keeps ru_maxrss across execve, so a child started by a big parent
        # reports at least the parent's peak; VmHWM is this process image's own.
        status = Path("/proc/self/status").read_text(encoding="ascii").splitlines()
        own = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    except (OSError, StopIteration, ValueError):
        pass
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # parse workers
    return round(max(own, children) * scale / 2**20, 1)


def main(argv: list[str]) -> int:
    global LIMIT, NESTED, CLOCK, VERDICT
    parser = argparse.ArgumentParser()
    for positional in ("name", "vault", "queries_file", "out"):
        parser.add_argument(positional)
    parser.add_argument("--nested", action="store_true")
    parser.add_argument("--limit", type=int, default=LIMIT)
    parser.add_argument("--clock", type=float)
    parser.add_argument("--verdict", action="store_true")
    args = parser.parse_args(argv)
    LIMIT, NESTED, CLOCK, VERDICT = args.limit, args.nested, args.clock, args.verdict
    name, vault, queries_file, out = args.name, args.vault, args.queries_file, args.out
    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    started = time.perf_counter()
    search = ENGINES[name](Path(vault))
    build = time.perf_counter() - started
    run, weak = {}, {}
    for qid, text in queries.items():
        answer = search(text)
        if isinstance(answer, tuple):  # ours with --verdict: (ranking, no_strong_match)
            answer, weak[qid] = answer
        run[qid] = answer
    times = []
    for text in queries.values():
        t0 = time.perf_counter()
        search(text)
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    result = {
        "engine": name,
        "build_s": build,
        "p50_ms": times[len(times) // 2] if times else 0.0,
        "p95_ms": times[min(len(times) - 1, int(len(times) * 0.95))] if times else 0.0,
        "rss_mb": _peak_rss_mb(),
        "pid": os.getpid(),
        "run": run,
    }
    if weak:
        result["weak"] = weak
    Path(out).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
