"""Freeze the dev/test split of ``queries.jsonl`` and pin it in ``SPLIT.sha256``.

    python benchmarks/retrieval/freeze.py

A query's split is decided by its id alone — the first byte of ``sha256(id)``, even
for dev and odd for test — so adding a query never moves an existing one. Run this
only when queries are added (never to move a query that ranked badly), and note the
new freeze in RESULTS.md: figures from two freezes are not comparable.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import QUERIES, SPLIT, SPLIT_HASH, load_queries, split_digest  # noqa: E402


def split_of(query_id: str) -> str:
    return "dev" if hashlib.sha256(query_id.encode("utf-8")).digest()[0] % 2 == 0 else "test"


def main() -> int:
    ids = [query["id"] for query in load_queries()]
    if len(set(ids)) != len(ids):
        raise SystemExit(f"{QUERIES.name} has duplicate ids")
    split = {"format": "mnemosyne-retrieval-split/1", "dev": [], "test": []}
    for query_id in ids:
        split[split_of(query_id)].append(query_id)
    SPLIT.write_text(json.dumps(split, indent=1) + "\n", encoding="utf-8")
    SPLIT_HASH.write_text(f"{split_digest()}  queries.jsonl+split.json\n", encoding="utf-8")
    print(f"dev {len(split['dev'])}, test {len(split['test'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
