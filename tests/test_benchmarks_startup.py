"""Smoke test: the startup benchmark runner still runs on a tiny vault (no figures checked)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parent.parent / "benchmarks" / "startup" / "run.py"


def _load():
    spec = importlib.util.spec_from_file_location("startup_run", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_startup_runner_smoke(tmp_path, capsys):
    path_before = list(sys.path)
    run = _load()
    sys.path[:] = path_before
    out = tmp_path / "out.json"
    assert run.main(["--notes", "30", "--workdir", str(tmp_path), "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["notes"] == 30 and result["routes"] == 30
    assert result["index_tokens"] > 0 and result["full_read_tokens"] > 0
    assert result["tasks"] and all(task["files"] >= 1 for task in result["tasks"])
    assert result["matching_ms_median"] >= 0
    task_set = result["task_set"]
    total = task_set["total"]
    assert (
        total["tasks"]
        == len(task_set["tasks"])
        == sum(k["tasks"] for k in task_set["kinds"].values())
    )
    assert total["delivered"] + total["missed"] == total["expected"]
    out = capsys.readouterr().out
    assert "| 30 | 30 |" in out and "| **all** |" in out


def test_the_task_set_is_well_formed():
    spec = json.loads((RUNNER.parent / "tasks.json").read_text(encoding="utf-8"))
    ids = [r["id"] for r in spec["routes"]]
    assert len(ids) == len(set(ids)) and len({r["path"] for r in spec["routes"]}) == len(ids)
    kinds = {"exact", "inflected", "paraphrase", "de", "ko", "ja", "zh", "negative"}
    for case in spec["tasks"]:
        assert case["kind"] in kinds and set(case["expect"]) <= set(ids), case
        assert (case["kind"] == "negative") == (case["expect"] == []), case
