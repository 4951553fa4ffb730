"""Smoke tests of benchmarks/web on tiny inputs (the browser's tests skip without it)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="the web benchmarks need Playwright")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_web_browser import BROWSER  # noqa: E402

pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium (see test_web_browser)")
WEB = Path(__file__).resolve().parent.parent / "benchmarks" / "web"


def _load(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"web_bench_{name}", WEB / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_web_runner_measures_every_view_on_a_small_vault(tmp_path, capsys):
    out = tmp_path / "web.json"
    code = _load("run").main(
        ["--notes", "60", "--workdir", str(tmp_path), "--runs", "1", "--json", str(out),
         "--chromium", BROWSER]
    )  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["views"]) >= {"search", "graph", "timeline", "status"}
    for view in result["views"].values():
        assert view["ready_ms"] > 0 and view["bytes"] > 0
    assert result["page_bytes"] == sum(result["page_files_bytes"].values()) > 10_000
    assert "| search |" in capsys.readouterr().out


def test_the_screenshots_script_photographs_every_view(tmp_path):
    code = _load("screenshots").main(["--out", str(tmp_path), "--chromium", BROWSER])
    assert code == 0
    shots = sorted(p.name for p in tmp_path.glob("web-*.png"))
    assert len(shots) == 8 and "web-search-phone.png" in shots
    assert all((tmp_path / name).stat().st_size > 5_000 for name in shots)
