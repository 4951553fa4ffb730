"""One engine, one child process: build, answer every query twice, report JSON.

    python engines.py ENGINE VAULT QUERIES.json OUT.json

Run by ``run.py`` (never imported by it) so each engine's timings and peak memory are
its own. Standard library at the top: the ``mnemosyne-0.7.2`` engine runs under the
Python of a separate virtual environment that has only that package installed.

Every engine indexes the same files: the notes of VAULT, each read whole (``# title``
then the text), identified by file name. The first pass over the queries warms up and
gives the ranking; the second is timed query by query.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

LIMIT = 100


def _documents(vault: Path) -> tuple[list[str], list[str]]:
    names = sorted(p.name for p in vault.glob("*.md"))
    return names, [(vault / n).read_text(encoding="utf-8") for n in names]


def ours(vault: Path):
    from birkin_mnemosyne import Mnemosyne

    # weak_coverage = weak_ratio = 0: the absence verdict never empties `hits`
    # (see public/run.py); refresh_interval: no stat pass between timed queries.
    engine = Mnemosyne(
        vault, ranking={"weak_coverage": 0.0, "weak_ratio": 0.0}, refresh_interval=1e9
    )
    engine.refresh(full=True)

    def search(query: str) -> list[str]:
        return [h["path"] for h in engine.search(query, LIMIT)]

    return search


def mnemosyne_072(vault: Path):
    import birkin_mnemosyne.mnemosyne as module

    # 0.7.2 re-stats the whole vault every SCAN_TTL (2 s) inside search(); the files
    # do not change during the run, so the rescan is switched off as it is for ours.
    module.SCAN_TTL = 1e9
    engine = module.Mnemosyne(vault, semantic=False)
    engine.rebuild()

    def search(query: str) -> list[str]:
        return [h["rel"] for h in engine.search(query, limit=LIMIT)]

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
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # parse workers
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return round(max(own, children) * scale / 2**20, 1)


def main(argv: list[str]) -> int:
    name, vault, queries_file, out = argv
    queries = json.loads(Path(queries_file).read_text(encoding="utf-8"))
    started = time.perf_counter()
    search = ENGINES[name](Path(vault))
    build = time.perf_counter() - started
    run = {qid: search(text) for qid, text in queries.items()}
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
    Path(out).write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
