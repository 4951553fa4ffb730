"""BEIR-format datasets as vaults, and the standard ranking metrics.

Shared by ``public/run.py`` and ``peers/run.py``. A BEIR folder holds ``corpus.jsonl``
(``_id``, ``title``, ``text``), ``queries.jsonl`` (``_id``, ``text``) and
``qrels/<split>.tsv`` (``query-id``, ``corpus-id``, ``score``, with a header line).

Metrics follow the definitions of trec_eval / pytrec_eval as BEIR reports them:

* nDCG@10: gain = the graded relevance from the qrels, discount ``1 / log2(rank + 1)``,
  normalised by the ideal ordering of the query's judged documents (Järvelin and
  Kekäläinen, 2002);
* MRR@10: ``1 / rank`` of the first document with relevance > 0 in the top 10, else 0;
* recall@100: the share of a query's relevant documents (relevance > 0) in the top 100.

Each is averaged over the queries that have judgements; queries without any are not run.
"""

from __future__ import annotations

import json
import math
import os
import platform
import re
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent


def load_beir(folder: str | Path, split: str = "test") -> tuple[dict, dict, dict]:
    """``(corpus, queries, qrels)``: id -> (title, text), id -> text, qid -> {doc id: grade}."""
    folder = Path(folder)
    corpus = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                corpus[str(row["_id"])] = (row.get("title") or "", row.get("text") or "")
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / f"{split}.tsv", encoding="utf-8") as f:
        for number, line in enumerate(f):
            parts = line.rstrip("\n").split("\t")
            if number == 0 and parts[-1] == "score":
                continue
            if len(parts) >= 3:
                qrels.setdefault(parts[0], {})[parts[1]] = int(parts[2])
    queries = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                if str(row["_id"]) in qrels:
                    queries[str(row["_id"])] = row["text"]
    qrels = {q: judged for q, judged in qrels.items() if q in queries}
    return corpus, queries, qrels


def note_name(doc_id: str, taken: set[str]) -> str:
    """A portable file name for a document id (``conv-26#D1:3`` -> ``conv-26_D1_3.md``)."""
    stem = re.sub(r"[^A-Za-z0-9._-]+", "_", doc_id).strip("._") or "doc"
    name, n = f"{stem}.md", 1
    while name.casefold() in taken:
        n += 1
        name = f"{stem}-{n}.md"
    taken.add(name.casefold())
    return name


def write_vault(corpus: dict, folder: str | Path) -> dict[str, str]:
    """One note per document (``# title`` then the text); returns note path -> doc id."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    taken: set[str] = set()
    paths = {}
    for doc_id, (title, text) in corpus.items():
        name = note_name(doc_id, taken)
        body = (f"# {title.strip()}\n\n" if title.strip() else "") + text.strip() + "\n"
        (folder / name).write_text(body, encoding="utf-8")
        paths[name] = doc_id
    return paths


def ndcg_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    dcg = sum(judged.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((g for g in judged.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def mrr_at(ranked: list[str], judged: dict[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if judged.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def recall_at(ranked: list[str], judged: dict[str, int], k: int = 100) -> float:
    relevant = {d for d, g in judged.items() if g > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def score_run(run: dict[str, list[str]], qrels: dict[str, dict[str, int]]) -> dict:
    """Mean nDCG@10, MRR@10 and recall@100 over the judged queries (a missing run = [])."""
    n = len(qrels) or 1
    return {
        "ndcg@10": round(sum(ndcg_at(run.get(q, []), j) for q, j in qrels.items()) / n, 4),
        "mrr@10": round(sum(mrr_at(run.get(q, []), j) for q, j in qrels.items()) / n, 4),
        "recall@100": round(sum(recall_at(run.get(q, []), j) for q, j in qrels.items()) / n, 4),
        "queries": len(qrels),
    }


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=HERE,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
