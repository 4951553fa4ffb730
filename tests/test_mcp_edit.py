"""The MCP door of issue 17's edits and listings: memory_edit, memory_move, memory_recent,
memory_get_note with a list of keys and memory_list since/until."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install -e ".[mcp]"')

import anyio  # noqa: E402  (comes with mcp)
from mcp import Client  # noqa: E402

from birkin_mnemosyne.mcp_server import (  # noqa: E402
    DEFAULT_TOOLS,
    FULL_ONLY_TOOLS,
    build_server,
    tool_names,
)
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402

NOW = 1_772_445_600.0  # 2026-03-02T10:00:00Z
RUNBOOK = (
    "---\ntitle: Reload nginx\n---\n# Reload nginx\n\n## Check\n\nRun nginx -t.\n\n"
    "## Reload\n\nsystemctl reload nginx\n"
)


@pytest.fixture
def notes(vault):
    vault.write("ops/nginx-reload.md", RUNBOOK)
    vault.write("hosts/web1.md", "# web1\n\nReload: [[nginx-reload#Reload]].\n")
    for name in ("nginx-reload", "web1"):
        folder = "ops" if name == "nginx-reload" else "hosts"
        os.utime(vault.root / folder / f"{name}.md", (NOW - 86_400, NOW - 86_400))
    return vault


@pytest.fixture
def server(notes):
    """A server offering every tool (``mnemosyne-mcp --tools full``)."""
    with VaultMemory(notes.root, clock=lambda: NOW) as memory:
        yield build_server(memory, tools="full")


def run(server, *calls):
    """Make the ``(tool, arguments)`` calls in one session; return their results."""

    async def main():
        with anyio.fail_after(60):
            async with Client(server) as client:
                return [await client.call_tool(name, args) for name, args in calls]

    return anyio.run(main)


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def failure(result) -> dict:
    """The structured content of a library error (the shared error shape)."""
    assert result.is_error, result.structured_content
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


def error(result) -> str:
    assert result.is_error, result.structured_content
    return result.content[0].text


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mnemosyne" not in p.relative_to(root).parts
    }


def listed(server) -> dict:
    async def main():
        async with Client(server) as client:
            return {tool.name: tool for tool in (await client.list_tools()).tools}

    return anyio.run(main)


def test_edit_is_in_the_default_set_move_and_recent_in_full(notes):
    assert "memory_edit" in DEFAULT_TOOLS
    assert {"memory_move", "memory_recent"} <= set(FULL_ONLY_TOOLS)
    assert "memory_recent" in tool_names("full", read_only=True)
    assert "memory_edit" not in tool_names("default", read_only=True)
    with VaultMemory(notes.root, clock=lambda: NOW) as memory:
        compact = listed(build_server(memory))
    assert "memory_edit" in compact and "memory_move" not in compact
    assert compact["memory_edit"].output_schema is None  # the default set: inputs only


def test_the_new_tools_are_listed_with_their_hints(server):
    tools = listed(server)
    edit = tools["memory_edit"]
    assert edit.annotations.destructive_hint is True and edit.annotations.idempotent_hint is False
    assert edit.input_schema["properties"]["operation"]["enum"] == [
        "prepend",
        "find_replace",
        "replace_section",
        "append",
        "replace",
    ]
    assert tools["memory_recent"].annotations.read_only_hint is True
    assert tools["memory_move"].output_schema["type"] == "object"
    assert "since" in tools["memory_list"].input_schema["properties"]


def test_memory_edit_find_replace_and_undo(server, notes):
    [done, wrong, undone] = run(
        server,
        ("memory_edit", {"key": "nginx-reload", "operation": "find_replace", "find": "nginx -t", "content": "nginx -T"}),
        ("memory_edit", {"key": "nginx-reload", "operation": "find_replace", "find": "nginx", "content": "x"}),
        ("memory_undo", {"last": True, "kind": "edit"}),
    )  # fmt: skip
    data = ok(done)
    assert data["mode"] == "find_replace" and data["transaction_id"]
    assert {"key", "path", "version", "created", "near_duplicates", "warnings"} <= set(data)
    wrong = failure(wrong)
    assert wrong["error_type"] == "MatchCountError"
    assert (wrong["found"], wrong["expected"]) == (3, 1)  # the body only
    assert "found 3 matches of the text, expected 1" in wrong["message"]
    assert ok(undone)["state"] == "undone"
    assert (notes.root / "ops/nginx-reload.md").read_text() == RUNBOOK


def test_memory_edit_find_replace_takes_the_expected_count(server, notes):
    [short, done] = run(
        server,
        ("memory_edit", {"key": "nginx-reload", "operation": "find_replace", "find": "nginx", "content": "angie", "expected_count": 2}),
        ("memory_edit", {"key": "nginx-reload", "operation": "find_replace", "find": "nginx", "content": "angie", "expected_count": 3}),
    )  # fmt: skip
    short = failure(short)
    assert short["error_type"] == "MatchCountError"
    assert (short["found"], short["expected"]) == (3, 2)
    # named as the tool's own argument, neither "expected_count=" nor "--expected-count"
    assert "as expected_count to replace every one" in short["message"]
    assert ok(done)["mode"] == "find_replace"
    text = (notes.root / "ops/nginx-reload.md").read_text()
    assert text.startswith("---\ntitle: Reload nginx\n")  # the frontmatter is not the body
    assert text.split("---\n", 2)[2] == (
        "# Reload angie\n\n## Check\n\nRun angie -t.\n\n## Reload\n\nsystemctl reload angie\n"
    )


def test_memory_edit_replace_section_checks_heading_and_version(server, notes):
    [read] = run(server, ("memory_get_note", {"key": "nginx-reload"}))
    version = ok(read)["version"]
    [missing, stale, done] = run(
        server,
        ("memory_edit", {"key": "nginx-reload", "operation": "replace_section", "section": "Deploy", "content": "x", "expected_version": version}),
        ("memory_edit", {"key": "nginx-reload", "operation": "replace_section", "section": "check", "content": "x", "expected_version": "0" * 64}),
        ("memory_edit", {"key": "nginx-reload", "operation": "replace_section", "section": "check", "content": "Run nginx -t twice.", "expected_version": version}),
    )  # fmt: skip
    missing = failure(missing)
    assert missing["error_type"] == "SectionNotFoundError"
    assert missing["candidates"] == ["Reload nginx", "Check", "Reload"]
    stale = failure(stale)
    assert stale["current_version"] == version and "memory_get_note" in stale["hint"]
    ok(done)
    assert "## Check\n\nRun nginx -t twice.\n\n## Reload" in (
        (notes.root / "ops/nginx-reload.md").read_text()
    )


def test_memory_move_previews_applies_and_undoes(server, notes):
    original = snapshot(notes.root)
    [preview] = run(server, ("memory_move", {"key": "nginx-reload", "to": "web/reload"}))
    plan = ok(preview)
    assert plan["mode"] == "preview" and snapshot(notes.root) == original
    assert plan["changes"] == [
        {
            "key": "web1",
            "path": "hosts/web1.md",
            "links": [{"line": 3, "from": "[[nginx-reload#Reload]]", "to": "[[reload#Reload]]"}],
        }
    ]
    [stale, applied] = run(
        server,
        ("memory_move", {"key": "nginx-reload", "to": "web/reload", "confirm": True, "plan_id": "0" * 16}),
        ("memory_move", {"key": "nginx-reload", "to": "web/reload", "confirm": True, "plan_id": plan["plan_id"]}),
    )  # fmt: skip
    stale = failure(stale)
    assert (
        stale["error_type"] == "VersionConflictError"
        and "changed since preview" in stale["message"]
    )
    assert stale["operations"] == ["memory_move"] and stale["current_version"] == plan["plan_id"]
    done = ok(applied)
    assert done["path"] == "web/reload.md" and done["previous_path"] == "ops/nginx-reload.md"
    assert "[[reload#Reload]]" in (notes.root / "hosts/web1.md").read_text()
    [undone, taken] = run(
        server,
        ("memory_undo", {"transaction_id": done["transaction_id"]}),
        ("memory_move", {"key": "nginx-reload", "to": "hosts/web1", "confirm": True}),
    )
    assert ok(undone)["state"] == "undone" and snapshot(notes.root) == original
    assert failure(taken)["error_type"] == "NoteExistsError"


def test_memory_recent_and_list_since(server, notes):
    [written, recent, listed, bad] = run(
        server,
        ("memory_remember", {"title": "Fresh", "body": "new"}),
        ("memory_recent", {"limit": 5}),
        ("memory_list", {"until": "2026-03-01"}),
        ("memory_list", {"since": "soon"}),
    )
    ok(written)
    rows = ok(recent)["changes"]
    assert rows[0]["path"] == "fresh.md" and rows[0]["change"] == "created"
    assert {row["path"] for row in rows[1:]} == {"ops/nginx-reload.md", "hosts/web1.md"}
    assert all(row["change"] == "modified" and row["source"] == "file" for row in rows[1:])
    assert [row["path"] for row in ok(listed)["notes"]] == ["hosts/web1.md", "ops/nginx-reload.md"]
    assert "since must be a date" in failure(bad)["message"]


def test_memory_get_note_with_a_list_of_keys(server):
    [many, one] = run(
        server,
        ("memory_get_note", {"key": ["web1", "ghost", "nginx-reload"], "max_chars": 20}),
        ("memory_get_note", {"key": "web1"}),
    )
    data = ok(many)
    assert [note["path"] for note in data["notes"]] == ["hosts/web1.md", "ops/nginx-reload.md"]
    assert all(note["returned_chars"] <= 20 for note in data["notes"])
    assert data["errors"][0]["key"] == "ghost" and "no note 'ghost'" in data["errors"][0]["message"]
    single = ok(one)
    assert single["path"] == "hosts/web1.md" and "notes" not in single


def test_read_only_offers_recent_but_not_edit_or_move(notes):
    with VaultMemory(notes.root, clock=lambda: NOW) as memory:
        server = build_server(memory, read_only=True, tools="full")
        [recent, edit] = run(
            server,
            ("memory_recent", {}),
            ("memory_edit", {"key": "web1", "operation": "prepend", "content": "x"}),
        )
        ok(recent)
        assert "Unknown tool" in error(edit)
