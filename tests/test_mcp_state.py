"""``memory_latest`` and ``memory_host_history`` through the SDK's in-process client."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install -e ".[mcp]"')

import anyio  # noqa: E402  (comes with mcp)
from mcp import Client  # noqa: E402

from birkin_mnemosyne.mcp_server import build_server, tool_names  # noqa: E402
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402

NOW = 1_780_000_000.0


@pytest.fixture
def memory(state_vault):
    with VaultMemory(state_vault.root, clock=lambda: NOW) as memory:
        yield memory


def session(server, body):
    async def main():
        with anyio.fail_after(60):
            async with Client(server) as client:
                return await body(client)

    return anyio.run(main)


def call(server, name: str, arguments: dict):
    async def body(client):
        return await client.call_tool(name, arguments)

    return session(server, body)


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def without_index(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "index"}


def test_the_state_tools_are_read_tools_and_search_points_to_them(memory):
    assert {"memory_latest", "memory_host_history"} <= set(tool_names("full", read_only=True))
    assert "memory_latest" in tool_names("default", read_only=True)

    async def body(client):
        return {tool.name: tool for tool in (await client.list_tools()).tools}, client.instructions

    tools, instructions = session(build_server(memory, read_only=True, tools="full"), body)
    latest, history = tools["memory_latest"], tools["memory_host_history"]
    assert latest.annotations.read_only_hint and history.annotations.read_only_hint
    assert set(latest.input_schema["properties"]) == {"query", "limit", "zone"}
    assert latest.input_schema["required"] == ["query"]
    assert set(history.input_schema["properties"]) == {"host", "topic", "limit"}
    assert {"hits", "dropped_terms", "matched_terms"} <= set(latest.output_schema["properties"])
    assert {"host", "host_note", "aliases", "entries"} <= set(history.output_schema["properties"])
    description = tools["memory_search"].description
    assert "memory_latest" in description and "memory_host_history" in description
    assert "memory_latest" in instructions


def test_memory_latest_returns_the_library_shape(memory):
    data = ok(call(build_server(memory), "memory_latest", {"query": "retention kafka"}))
    assert without_index(data) == without_index(memory.latest("retention kafka"))
    assert data["dropped_terms"] == ["kafka"]
    assert data["hits"][0]["date"] == "2026-06-19T08:40"


def test_memory_host_history_returns_the_library_shape(memory):
    arguments = {"host": "pg-main", "topic": "disk", "limit": 5}
    data = ok(call(build_server(memory, tools="full"), "memory_host_history", arguments))
    assert without_index(data) == without_index(memory.host_history("pg-main", "disk", 5))
    assert data["host"] == "db1"
    assert [entry["kind"] for entry in data["entries"]] == ["host_record", "journal", "host_record"]


def test_an_unknown_host_is_a_tool_error_naming_close_hosts(memory):
    result = call(build_server(memory, tools="full"), "memory_host_history", {"host": "db2"})
    assert result.is_error
    assert "did you mean: db1?" in result.content[0].text
    assert result.structured_content["error_type"] == "NoteNotFoundError"
    assert result.structured_content["candidates"] == ["db1"]
