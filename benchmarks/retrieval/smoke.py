"""Smoke benchmark: the demo vault's obvious questions must put the obvious note first.

    python benchmarks/retrieval/smoke.py [--vault examples/vault]
        [--queries benchmarks/retrieval/smoke_queries.json] [--json out.json]

Each question of ``smoke_queries.json`` (``{"q", "expect"}``: the vault path of the
note that answers it, or ``null`` when the vault has no answer) goes to our engine in
its default configuration, ``search_response(q, limit=10)``, over a copy of the vault
(the bundled folder is never indexed in place). It prints the rank of the expected note
per question and exits 1 when any is not first, or when a question without an answer
gets hits without the no-strong-match verdict: a check CI can run. A note the verdict
hid (found only in ``best_weak``) fails, and the table says so.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
QUERIES = HERE / "smoke_queries.json"
VAULT = ROOT / "examples" / "vault"
LIMIT = 10

sys.path.insert(0, str(ROOT))

from birkin_mnemosyne import Mnemosyne  # noqa: E402


def _nfc(path: str) -> str:
    return unicodedata.normalize("NFC", path)


def check(query: dict, response: dict) -> dict:
    """The outcome of one question: rank of the expected note, and whether it passed."""
    hits = [_nfc(hit["path"]) for hit in response["hits"]]
    weak = [_nfc(hit["path"]) for hit in response.get("best_weak") or []]
    verdict = bool(response["no_strong_match"])
    expect = query["expect"]
    outcome = {"q": query["q"], "expect": expect, "top": (hits or weak)[:3], "weak": verdict}
    if expect is None:
        outcome["passed"] = verdict or not hits
        outcome["result"] = "absent" if outcome["passed"] else f"answered: {hits[0]}"
        return outcome
    expect = _nfc(expect)
    rank = hits.index(expect) + 1 if expect in hits else None
    outcome["rank"] = rank
    outcome["passed"] = rank == 1
    if rank:
        outcome["result"] = f"rank {rank}"
    elif expect in weak:
        outcome["result"] = f"hidden by the verdict (rank {weak.index(expect) + 1} in best_weak)"
    else:
        outcome["result"] = f"not in the top {LIMIT}"
    return outcome


def run(vault: Path, queries: list[dict]) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="mnemo-smoke-") as tmp:
        copy = Path(tmp) / "vault"
        shutil.copytree(vault, copy, ignore=shutil.ignore_patterns(".mnemosyne"))
        engine = Mnemosyne(copy)
        outcomes = [
            check(query, engine.search_response(query["q"], limit=LIMIT)) for query in queries
        ]
        engine.close()
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python benchmarks/retrieval/smoke.py",
    )
    parser.add_argument("--vault", default=str(VAULT), help=f"the vault (default {VAULT})")
    parser.add_argument("--queries", default=str(QUERIES), help=f"default {QUERIES}")
    parser.add_argument("--json", dest="json_out", help="write every outcome as JSON here")
    args = parser.parse_args(argv)
    queries = json.loads(Path(args.queries).read_text(encoding="utf-8"))["queries"]
    outcomes = run(Path(args.vault), queries)
    print("| | question | expected | result | top 3 |")
    print("|---|---|---|---|---|")
    for outcome in outcomes:
        mark = "ok" if outcome["passed"] else "FAIL"
        print(
            f"| {mark} | {outcome['q']} | {outcome['expect'] or '(no answer)'} "
            f"| {outcome['result']} | {', '.join(outcome['top'])} |"
        )
    failed = [outcome for outcome in outcomes if not outcome["passed"]]
    print(f"\n{len(outcomes) - len(failed)} of {len(outcomes)} passed")
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps(outcomes, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
