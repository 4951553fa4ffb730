"""The retrieval benchmark: frozen split, consistent data, and a tiny end-to-end run."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
RETRIEVAL = ROOT / "benchmarks" / "retrieval"


def test_split_is_frozen_and_covers_every_query():
    run = load_script("retrieval_run", RETRIEVAL / "run.py")
    pinned = (RETRIEVAL / "SPLIT.sha256").read_text(encoding="utf-8").split()[0]
    assert run.split_digest() == pinned, "queries.jsonl or split.json changed: refreeze knowingly"
    assignment = run.check_split()
    ids = [query["id"] for query in run.load_queries()]
    assert len(ids) == len(set(ids)) == len(assignment)
    assert set(assignment) == set(ids)
    freeze = load_script("retrieval_freeze", RETRIEVAL / "freeze.py")
    assert all(freeze.split_of(qid) == name for qid, name in assignment.items())


def test_queries_point_at_gold_notes():
    run = load_script("retrieval_run", RETRIEVAL / "run.py")
    notes = run.gold_notes()
    queries = run.load_queries()
    assert {run.gold_language(path, notes) for path in notes} == set(run.LANGS)
    for query in queries:
        assert query["kind"] in run.KINDS and query["voice"] in run.VOICES, query["id"]
        assert query["lang"] in run.LANGS, query["id"]
        assert (query["kind"] == "absence") == (not query["expect"]), query["id"]
        for path in query["expect"]:
            assert path in notes, f"{query['id']} expects {path}, which is not a gold note"
    absent = [q for q in queries if q["kind"] == "absence"]
    assert len(absent) >= 30


def test_runner_and_compare_smoke(tmp_path, capsys):
    run = load_script("retrieval_run", RETRIEVAL / "run.py")
    compare = load_script("retrieval_compare", RETRIEVAL / "compare.py")
    size = len(run.gold_notes()) + 20
    out = tmp_path / "out.json"
    args = ["--sizes", str(size), "--split", "dev", "--max-queries", "20"]
    assert run.main([*args, "--workdir", str(tmp_path), "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    row = result["sizes"][str(size)]
    assert row["notes"] == size and row["slices"]["all"]["queries"] == 20
    assert 0.0 <= row["slices"]["all"]["mrr"] <= 1.0
    assert f"## {size} notes" in capsys.readouterr().out
    lines = compare.compare(result, result, show_all=True)
    assert any(line.startswith("| all |") and "(+0.000)" in line for line in lines)
