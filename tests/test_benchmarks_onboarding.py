"""Smoke test: the init scale benchmark runs on a tiny vault and checks old == new."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "onboarding" / "init_scale.py"


def test_init_scale_runs_and_compares_two_codes(tmp_path, capsys):
    bench = load_script("init_scale", SCRIPT)
    out = tmp_path / "out.json"
    # The same checkout as "before": the comparison path runs and must agree.
    argv = ["--sizes", "80", "--workdir", str(tmp_path), "--runs", "1", "--before", str(ROOT)]
    assert bench.main([*argv, "--json", str(out)]) == 0
    [row] = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert row["same_output"] is True
    assert row["after"]["preview"]["notes"] >= 80 * 0.95
    assert row["after"]["preview"]["duplicates"] >= 1  # the planted copies are found
    assert row["after"]["applied"]["changes"] == row["after"]["preview"]["changes"]
    assert "| notes | duplicates |" in capsys.readouterr().out


def test_planting_is_deterministic(tmp_path):
    bench = load_script("init_scale", SCRIPT)
    a, b = bench.make_vault(tmp_path / "a", 60), bench.make_vault(tmp_path / "b", 60)
    files = sorted(p.relative_to(a) for p in a.rglob("*.md"))
    assert files == sorted(p.relative_to(b) for p in b.rglob("*.md"))
    assert any("-copy-" in p.name for p in files) and any("standup" in p.name for p in files)
    assert all((a / p).read_bytes() == (b / p).read_bytes() for p in files)
