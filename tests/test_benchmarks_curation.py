"""Smoke test: the curation safety matrix runs on a tiny vault and holds its invariants."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parent.parent / "benchmarks" / "curation" / "run.py"


def _load():
    spec = importlib.util.spec_from_file_location("curation_run", RUNNER)
    module = importlib.util.module_from_spec(spec)
    sys.modules["curation_run"] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.modules.pop("curation_run", None)
    return module


def test_safety_matrix_smoke(tmp_path):
    run = _load()
    result = run.run_matrix(notes=15, randoms=3, seed=1, workdir=tmp_path)
    assert result["plans"] == 14
    assert result["notes_lost"] == 0
    assert result["protected_touched"] == 0
    assert result["undo_fidelity_percent"] == 100.0
    assert result["passed"] is True
