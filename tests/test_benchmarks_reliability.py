"""Smoke test: the reliability harnesses run on tiny vaults, and meet their targets."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from conftest import load_script

REPO = Path(__file__).resolve().parent.parent
PROCESSES = REPO / "benchmarks" / "reliability" / "processes.py"


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="the harness needs SIGKILL")
def test_reliability_processes_smoke(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(
        "PYTHONPATH", os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)
    )
    run = load_script("reliability_processes", PROCESSES)
    out = tmp_path / "out.json"
    argv = ["--notes", "24", "--race-notes", "16", "--searches", "20", "--kills", "1"]
    argv += ["--max-delay", "0", "--workdir", str(tmp_path), "--json", str(out)]
    assert run.main(argv) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    kills, races = result["kills"], result["races"]
    assert kills["writes"]["torn"] == 0 and kills["writes"]["lost"] == 0
    assert kills["forget_undo"]["damaged"] == 0
    assert kills["writes"]["temp_files_after_cleanup"] == 0
    assert kills["forget_undo"]["temp_files_after_cleanup"] == 0
    assert kills["builds"]["workers_started"] >= 1 and kills["builds"]["orphans"] == 0
    assert races["searches"] == 20 and races["others"] == races["writer_others"] == 0
    assert races["damaged"] == 0
    for how in ("file", "stdin"):
        script = result["scripts"][how]
        assert (script["exit"], script["top_level_runs"], script["notes"]) == (0, 1, 24)
    assert "| races | searches (2 processes) | 20 |" in capsys.readouterr().out
