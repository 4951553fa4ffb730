"""The Hermes provider's ``mnemosyne_latest`` and ``mnemosyne_host_history`` tools."""

from __future__ import annotations

import json

import pytest

pytest.importorskip(
    "agent.memory_provider",
    reason='hermes-agent is not installed: pip install -e ".[hermes]"',
)

from birkin_mnemosyne.hermes_plugin import MnemosyneMemoryProvider  # noqa: E402
from birkin_mnemosyne.hermes_plugin.tool_schemas import TOOL_NAMES  # noqa: E402
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402


@pytest.fixture
def provider(tmp_path, monkeypatch, state_vault):
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    provider = MnemosyneMemoryProvider(config={"vault": str(state_vault.root)})
    provider.initialize("session-1", hermes_home=str(home), agent_context="primary")
    yield provider
    provider.shutdown()


def call(provider, tool: str, **args) -> dict:
    result = provider.handle_tool_call(tool, args)
    assert isinstance(result, str)
    return json.loads(result)


def without_index(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "index"}


def test_the_tools_are_offered_and_taught(provider):
    assert {"mnemosyne_latest", "mnemosyne_host_history"} <= set(TOOL_NAMES)
    names = [schema["name"] for schema in provider.get_tool_schemas()]
    assert "mnemosyne_latest" in names and "mnemosyne_host_history" in names
    block = provider.system_prompt_block()
    assert "mnemosyne_latest" in block and "mnemosyne_host_history" in block


def test_latest_returns_the_library_shape(provider, state_vault):
    result = call(provider, "mnemosyne_latest", query="backup retention", limit="2")
    with VaultMemory(state_vault.root) as memory:
        expected = memory.latest("backup retention", 2)
    assert without_index(result) == without_index(expected)
    assert [hit["date"] for hit in result["hits"]] == ["2026-06-19T08:40", "2026-04-07T10:00"]
    # What the tool found counts as recalled: the compression summary keeps the keys.
    assert "[2026-06-19]" in provider.on_pre_compress([])


def test_host_history_returns_the_library_shape(provider, state_vault):
    result = call(provider, "mnemosyne_host_history", host="db-primary", topic="retention")
    with VaultMemory(state_vault.root) as memory:
        expected = memory.host_history("db-primary", "retention", 10)
    assert without_index(result) == without_index(expected)
    assert result["host_note"]["path"] == "hosts/db1.md"
    assert [entry["kind"] for entry in result["entries"]] == ["journal"] * 3


def test_host_history_errors_are_json_with_candidates(provider):
    result = call(provider, "mnemosyne_host_history", host="db2")
    assert result["error_type"] == "NoteNotFoundError" and result["candidates"] == ["db1"]
    missing = call(provider, "mnemosyne_host_history", topic="disk")
    assert missing["error_type"] == "InvalidInputError" and "missing host" in missing["error"]
