"""Smoke tests: every benchmark runner still runs on a tiny input (no figures checked)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOOTPRINT = ROOT / "benchmarks" / "footprint"


def _load(name: str, path: Path):
    sys.path.insert(0, str(path.parent))
    try:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path.remove(str(path.parent))


def test_generator_is_deterministic(tmp_path):
    generate = _load("generate", FOOTPRINT / "generate.py")
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
    run = _load("footprint_run", FOOTPRINT / "run.py")
    out = tmp_path / "out.json"
    assert (
        run.main(["--sizes", "30", "--workdir", str(tmp_path), "--runs", "1", "--json", str(out)])
        == 0
    )
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert rows[0]["notes"] == 30 and rows[0]["cache_mb"] > 0
    assert "| 30 |" in capsys.readouterr().out
