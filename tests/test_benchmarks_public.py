"""Smoke tests of benchmarks/public and benchmarks/peers on a tiny BEIR-shaped dataset.

The metrics are pinned by hand on small rankings; the runners only have to run.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "benchmarks" / "public"
PEERS = ROOT / "benchmarks" / "peers"


@pytest.fixture
def dataset(tmp_path) -> Path:
    """3 documents, 2 judged queries (one graded), ids that are not file names."""
    folder = tmp_path / "tiny"
    (folder / "qrels").mkdir(parents=True)
    docs = [
        {"_id": "conv-1#D1:1", "title": "Zebra crossings", "text": "Zebras cross the road."},
        {"_id": "d2", "title": "Penguins", "text": "Penguins swim in cold water."},
        {"_id": "d3", "title": "", "text": "A zebra and a penguin met at the zoo."},
    ]
    queries = [
        {"_id": "q1", "text": "where do zebras cross?"},
        {"_id": "q2", "text": "penguins swim"},
        {"_id": "q3", "text": "an unjudged query"},
    ]
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8"
    )
    (folder / "queries.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in queries), encoding="utf-8"
    )
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\tconv-1#D1:1\t2\nq1\td3\t1\nq2\td2\t1\n",
        encoding="utf-8",
    )
    return folder


def test_metrics_by_hand():
    beir = load_script("beir", PUBLIC / "beir.py", PUBLIC)
    judged = {"a": 2, "b": 1, "z": 0}
    ideal = 2 + 1 / math.log2(3)
    assert beir.ndcg_at(["a", "b"], judged) == pytest.approx(1.0)
    assert beir.ndcg_at(["x", "b", "a"], judged) == pytest.approx(
        (1 / math.log2(3) + 2 / math.log2(4)) / ideal
    )
    assert beir.mrr_at(["z", "x", "b"], judged) == pytest.approx(1 / 3)
    assert beir.mrr_at(["x"] * 10 + ["a"], judged) == 0.0
    assert beir.recall_at(["a", "x"], judged) == 0.5
    scores = beir.score_run({"q": ["a", "b"]}, {"q": judged, "r": {"c": 1}})
    assert scores["queries"] == 2 and scores["ndcg@10"] == 0.5 and scores["recall@100"] == 0.5


def test_dataset_loading_and_vault_writing(dataset, tmp_path):
    beir = load_script("beir", PUBLIC / "beir.py", PUBLIC)
    corpus, queries, qrels = beir.load_beir(dataset)
    assert set(queries) == {"q1", "q2"} and qrels["q1"] == {"conv-1#D1:1": 2, "d3": 1}
    paths = beir.write_vault(corpus, tmp_path / "vault")
    assert paths == {"conv-1_D1_1.md": "conv-1#D1:1", "d2.md": "d2", "d3.md": "d3"}
    text = (tmp_path / "vault" / "conv-1_D1_1.md").read_text(encoding="utf-8")
    assert text == "# Zebra crossings\n\nZebras cross the road.\n"
    assert beir.note_name("d2", {"d2.md"}) == "d2-2.md"


def test_public_runner_smoke(dataset, tmp_path, capsys):
    run = load_script("public_run", PUBLIC / "run.py", PUBLIC)
    out = tmp_path / "out.json"
    assert (
        run.main(["--data", str(dataset), "--workdir", str(tmp_path / "w"), "--json", str(out)])
        == 0
    )
    row = json.loads(out.read_text(encoding="utf-8"))["rows"][0]
    assert row["dataset"] == "tiny" and row["queries"] == 2 and row["documents"] == 3
    assert row["mrr@10"] == 1.0 and row["recall@100"] == 1.0
    assert "| tiny | lexical | 3 | 2 |" in capsys.readouterr().out


def test_public_runner_runs_hybrid_beside_lexical_with_a_local_model(dataset, tmp_path, capsys):
    pytest.importorskip("model2vec", reason="the 'semantic' extra is not installed")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_semantic import build_model

    model = build_model(tmp_path / "tiny-model")
    run = load_script("public_run", PUBLIC / "run.py", PUBLIC)
    out = tmp_path / "out.json"
    argv = ["--data", str(dataset), "--workdir", str(tmp_path / "w"), "--json", str(out)]
    assert run.main([*argv, "--semantic", str(model)]) == 0
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert [row["mode"] for row in rows] == ["lexical", "hybrid"]
    assert all(row["queries"] == 2 and row["documents"] == 3 for row in rows)
    assert "| tiny | hybrid | 3 | 2 |" in capsys.readouterr().out


def test_peers_runner_smoke(dataset, tmp_path, capsys):
    run = load_script("peers_run", PEERS / "run.py", PUBLIC)
    engines = ["ours", "bm25s", "tantivy", "mnemosyne-0.7.2"]
    out = tmp_path / "out.json"
    argv = ["--data", str(dataset), "--engines", ",".join(engines), "--json", str(out)]
    # No network in tests: the 0.7.2 venv is looked for, never created.
    argv += ["--peer-venv", str(tmp_path / "no-venv"), "--no-install"]
    assert run.main([*argv, "--workdir", str(tmp_path / "w")]) == 0
    rows = {
        r["engine"]: r for r in json.loads(out.read_text(encoding="utf-8"))["datasets"][0]["rows"]
    }
    assert set(rows) == set(engines)
    assert rows["ours"]["mrr@10"] == 1.0 and rows["ours"]["build_ratio"] == 1.0
    assert "no birkin-mnemosyne==0.7.2 venv" in rows["mnemosyne-0.7.2"]["skipped"]
    for peer in ("bm25s", "tantivy"):
        if importlib.util.find_spec(peer) is None:
            assert "not installed" in rows[peer]["skipped"]
        else:
            assert rows[peer]["recall@100"] == 1.0, rows[peer]
    assert "| ours |" in capsys.readouterr().out


def test_peers_runner_scale_test_copies_documents_and_scores_each_once(dataset, tmp_path):
    run = load_script("peers_run", PEERS / "run.py", PUBLIC)
    out = tmp_path / "out.json"
    argv = ["--data", str(dataset), "--engines", "ours", "--json", str(out)]
    argv += ["--copies", "3", "--limit", "2", "--workdir", str(tmp_path / "w")]
    assert run.main([*argv, "--no-install"]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))["datasets"][0]
    assert result["documents"] == 9 and result["limit"] == 2
    assert len(list((tmp_path / "w" / "tiny" / "ours" / "vault").glob("*.md"))) == 9
    # three copies of the one document q2 judges: found once, at rank 1
    assert result["rows"][0]["mrr@10"] == 1.0
    with pytest.raises(SystemExit):
        run.main(["--data", str(dataset), "--copies", "0"])


def test_peers_runner_refuses_unknown_engines(dataset):
    run = load_script("peers_run", PEERS / "run.py", PUBLIC)
    with pytest.raises(SystemExit):
        run.main(["--data", str(dataset), "--engines", "ours,lucene"])


def test_peers_runner_runs_the_published_package(dataset, tmp_path):
    venv = os.environ.get("MNEMOSYNE_PEER_VENV")
    if not venv or not Path(venv).is_dir():
        pytest.skip("set MNEMOSYNE_PEER_VENV to a venv holding birkin-mnemosyne==0.7.2")
    run = load_script("peers_run", PEERS / "run.py", PUBLIC)
    out = tmp_path / "out.json"
    argv = ["--data", str(dataset), "--engines", "mnemosyne-0.7.2", "--json", str(out)]
    assert run.main([*argv, "--peer-venv", venv, "--no-install", "--workdir", str(tmp_path)]) == 0
    row = json.loads(out.read_text(encoding="utf-8"))["datasets"][0]["rows"][0]
    assert "skipped" not in row, row
    assert row["mrr@10"] == 1.0  # (no stemming in 0.7.2: "zebras" misses "zebra")
