"""Smoke tests: every benchmark runner still runs on a tiny input (no figures checked)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
FOOTPRINT = ROOT / "benchmarks" / "footprint"


def test_generator_is_deterministic(tmp_path):
    generate = load_script("generate", FOOTPRINT / "generate.py")
    a = generate.generate_vault(tmp_path / "a", 40, seed=3)
    b = generate.generate_vault(tmp_path / "b", 40, seed=3)
    assert a["notes"] == b["notes"] == 40
    files_a = sorted(p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*.md"))
    files_b = sorted(p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*.md"))
    assert files_a == files_b and len(files_a) == 40
    for rel in files_a[:10]:
        assert (tmp_path / "a" / rel).read_bytes() == (tmp_path / "b" / rel).read_bytes()
    assert len(generate.benchmark_queries()) >= 100


def test_footprint_runner_smoke(tmp_path, capsys):
    run = load_script("footprint_run", FOOTPRINT / "run.py")
    out = tmp_path / "out.json"
    assert (
        run.main(
            ["--sizes", "30", "--workdir", str(tmp_path), "--runs", "1", "--edits", "2"]
            + ["--watch", "1", "--json", str(out)]
        )
        == 0
    )
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert rows[0]["notes"] == 30 and rows[0]["cache_mb"] > 0
    assert rows[0]["edit_refresh_ms"] > 0 and rows[0]["watch_searches"] > 0
    assert "| 30 |" in capsys.readouterr().out
