"""Smoke tests of benchmarks/peers/own.py: the peers on our own retrieval benchmark.

A tiny vault (the gold notes plus a few distractors) and a handful of queries; the
figures only have to be there and in range.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
PEERS = ROOT / "benchmarks" / "peers"
PUBLIC = ROOT / "benchmarks" / "public"


def _run_own(tmp_path: Path, engines: list[str], *extra: str) -> dict:
    own = load_script("peers_own", PEERS / "own.py", PUBLIC)
    size = len(own.retrieval.gold_notes()) + 4
    out = tmp_path / "out.json"
    argv = ["--sizes", str(size), "--split", "test", "--max-queries", "8"]
    argv += ["--engines", ",".join(engines), "--workdir", str(tmp_path / "w")]
    assert own.main([*argv, *extra, "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))["sizes"][str(size)]
    assert result["queries"] == 8
    return {row["engine"]: row for row in result["rows"]}


def test_documents_of_a_nested_vault(tmp_path):
    engines = load_script("peers_engines", PEERS / "engines.py")
    for rel in ("top.md", "runbooks/db/failover.md", ".mnemosyne/x.md", "node_modules/y.md"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(f"# {rel}\n", encoding="utf-8")
    assert engines._documents(tmp_path)[0] == ["top.md"]  # flat, as for SciFact
    engines.NESTED = True
    try:
        names, texts = engines._documents(tmp_path)
    finally:
        engines.NESTED = False
    assert names == ["runbooks/db/failover.md", "top.md"]
    assert texts[0] == "# runbooks/db/failover.md\n"


@pytest.mark.parametrize("peer", ["bm25s", "tantivy", "mnemosyne-0.7.2"])
def test_own_runner_smoke(peer, tmp_path, capsys):
    extra: list[str] = []
    if peer == "mnemosyne-0.7.2":
        venv = os.environ.get("MNEMOSYNE_PEER_VENV")
        if not venv or not Path(venv).is_dir():
            pytest.skip("set MNEMOSYNE_PEER_VENV to a venv holding birkin-mnemosyne==0.7.2")
        extra = ["--peer-venv", venv, "--no-install"]
    elif importlib.util.find_spec(peer) is None:
        pytest.skip(f"{peer} is not installed (pip install {peer})")
    rows = _run_own(tmp_path, ["ours", peer], *extra)
    assert set(rows) == {"ours", peer}
    assert "skipped" not in rows[peer], rows[peer]
    assert rows["ours"]["build_ratio"] == 1.0 and rows[peer]["p50_ratio"] is not None
    for row in rows.values():
        top = row["slices"]["all"]
        assert 0.0 < top["mrr"] <= 1.0 and 0.0 <= top["recall5"] <= 1.0
    assert "false_absence" in rows["ours"]["slices"]["all"]
    assert "false_absence" not in rows[peer]["slices"]["all"]  # no verdict, nothing said
    out = capsys.readouterr().out
    assert "| ours |" in out and "| slice | n | ours |" in out


def test_own_runner_reports_a_missing_peer(tmp_path):
    rows = _run_own(
        tmp_path,
        ["ours", "mnemosyne-0.7.2"],
        "--peer-venv",
        str(tmp_path / "no-venv"),
        "--no-install",
    )
    assert "no birkin-mnemosyne==0.7.2 venv" in rows["mnemosyne-0.7.2"]["skipped"]
    assert rows["ours"]["slices"]["all"]["mrr"] > 0.0
