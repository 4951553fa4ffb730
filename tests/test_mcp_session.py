"""The session-memory MCP tools and the mnemosyne://index resource."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install -e ".[mcp]"')

import anyio  # noqa: E402  (comes with mcp)
from mcp import Client  # noqa: E402

from birkin_mnemosyne.mcp_server import build_server, tool_names  # noqa: E402
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402
from birkin_mnemosyne.memory_index import MemoryIndex  # noqa: E402


@pytest.fixture
def ops(vault):
    vault.write("runbooks/postgres-restore.md", "# Postgres restore\n\nUse pg_restore.\n")
    vault.write("ops/handbook.md", "# Handbook\n\n## One\n\nA.\n\n## Two\n\nB.\n")
    return vault


def run(memory, body, read_only=False):
    async def main():
        with anyio.fail_after(60):
            async with Client(build_server(memory, read_only=read_only, tools="full")) as client:
                return await body(client)

    return anyio.run(main)


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def test_index_tools_and_resource(ops):
    with VaultMemory(ops.root) as memory:

        async def body(client):
            registered = ok(
                await client.call_tool(
                    "memory_index_register",
                    {"trigger": "restoring the database", "path": "runbooks/postgres-restore.md"},
                )
            )
            read = ok(await client.call_tool("memory_index_read", {}))
            opened = ok(
                await client.call_tool("memory_open_trigger", {"trigger": "restoring the database"})
            )
            check = ok(await client.call_tool("memory_index_check", {}))
            split = ok(await client.call_tool("memory_index_split", {"path": "ops/handbook.md"}))
            return registered, read, opened, check, split

        registered, read, opened, check, split = run(memory, body)
    assert registered["created"]
    assert "restoring the database" in read["text"]
    assert opened["documents"][0]["path"] == "runbooks/postgres-restore.md"
    assert check["orphans"] == ["ops/handbook.md"]
    assert split["mode"] == "preview" and len(split["coverage"]) == 3

    with VaultMemory(ops.root) as memory:

        async def resource(client):
            listed = await client.list_resources()
            text = await client.read_resource("mnemosyne://index")
            return [str(r.uri) for r in listed.resources], text

        uris, text = run(memory, resource)
    assert "mnemosyne://index" in uris
    assert "restoring the database" in text.contents[0].text


def test_startup_and_handoff_tools(ops):
    MemoryIndex(ops.root).register("restoring the database", "runbooks/postgres-restore.md")
    with VaultMemory(ops.root) as memory:

        async def body(client):
            first = ok(
                await client.call_tool(
                    "memory_handoff_capture",
                    {"project_key": "atlas", "next_step": "deploy", "capture_id": "c1"},
                )
            )
            retry = ok(
                await client.call_tool(
                    "memory_handoff_capture",
                    {"project_key": "atlas", "next_step": "deploy", "capture_id": "c1"},
                )
            )
            reused = await client.call_tool(
                "memory_handoff_capture",
                {"project_key": "atlas", "next_step": "other", "capture_id": "c1"},
            )
            read = ok(await client.call_tool("memory_handoff_read", {"project_key": "atlas"}))
            bundle = ok(
                await client.call_tool(
                    "memory_startup_read",
                    {"task": "restoring the database", "project_key": "atlas"},
                )
            )
            verified = ok(await client.call_tool("memory_startup_verify", {"bundle": bundle}))
            fold = ok(
                await client.call_tool("memory_handoff_fold", {"project_key": "atlas", "keep": 0})
            )
            return first, retry, reused, read, bundle, verified, fold

        first, retry, reused, read, bundle, verified, fold = run(memory, body)
    assert not first["replayed"] and retry["replayed"]
    assert reused.is_error and "already used" in reused.content[0].text
    assert read["latest"]["capture_id"] == "c1"
    assert bundle["handoff"]["capture_id"] == "c1"
    assert bundle["files"][0]["path"] == "runbooks/postgres-restore.md"
    assert verified["exact"]
    assert fold["mode"] == "preview" and fold["folded_ids"] == ["c1"]


def test_the_session_tool_delivers_a_route_for_a_task_worded_otherwise(ops):
    MemoryIndex(ops.root).register("restoring the database", "runbooks/postgres-restore.md")
    with VaultMemory(ops.root) as memory:

        async def body(client):
            return [
                ok(await client.call_tool("memory_session", {"action": "start", "task": task}))
                for task in ("We have to restore the databases", "check the restored cache")
            ]

        inflected, negative = run(memory, body)
    assert [f["path"] for f in inflected["files"]] == ["runbooks/postgres-restore.md"]
    assert negative["files"] == []


def test_read_only_server_offers_only_the_read_tools(ops):
    with VaultMemory(ops.root) as memory:

        async def body(client):
            return [t.name for t in (await client.list_tools()).tools]

        names = run(memory, body, read_only=True)
    assert names == list(tool_names("full", read_only=True))
    assert "memory_startup_read" in names and "memory_handoff_capture" not in names
