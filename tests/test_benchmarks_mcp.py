"""Smoke test: the tools/list size runner still runs (no figures checked but its own)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_script

pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install -e ".[mcp]"')

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "mcp" / "tool_list_size.py"


def test_tool_list_size_measures_a_real_server(capsys):
    from birkin_mnemosyne.mcp_server import tool_names

    size = load_script("tool_list_size", SCRIPT)
    assert size.main(["--config", "read-only=--read-only", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["read-only"]
    assert row["names"] == list(tool_names(read_only=True))
    assert row["tools"] == len(row["names"]) and row["tokens"] == row["bytes"] // 4
