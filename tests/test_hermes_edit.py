"""The Hermes provider's tools for issue 17: mnemosyne_edit, mnemosyne_move,
mnemosyne_recent and mnemosyne_get with several keys. Needs hermes-agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip(
    "agent.memory_provider",
    reason='hermes-agent is not installed: pip install -e ".[hermes]"',
)

from birkin_mnemosyne.hermes_plugin import MnemosyneMemoryProvider  # noqa: E402

RESTORE = """\
---
title: Restore PostgreSQL
---
# Restore PostgreSQL

## Verify

Check the row counts.
"""
DB1 = "# db1\n\nRestore runbook: [[postgres-restore#Verify]].\n"


@pytest.fixture(autouse=True)
def _hermes_env(monkeypatch, tmp_path):
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))


@pytest.fixture
def notes(vault):
    vault.write("runbooks/postgres-restore.md", RESTORE)
    vault.write("hosts/db1.md", DB1)
    return vault


def start(tmp_path, vault, context="primary") -> MnemosyneMemoryProvider:
    provider = MnemosyneMemoryProvider(config={"vault": str(vault.root)})
    provider.initialize(
        "session-1", hermes_home=str(tmp_path / "hermes-home"), agent_context=context
    )
    return provider


def call(provider, tool: str, **args) -> dict:
    return json.loads(provider.handle_tool_call(tool, args))


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mnemosyne" not in p.relative_to(root).parts
    }


def test_edit_counts_matches_and_defaults_the_source_to_the_session(tmp_path, notes):
    provider = start(tmp_path, notes)
    done = call(
        provider,
        "mnemosyne_edit",
        key="postgres-restore",
        operation="find_replace",
        find="row counts",
        content="row counts per table",
    )
    assert done["mode"] == "find_replace" and done["transaction_id"]
    text = (notes.root / "runbooks/postgres-restore.md").read_text()
    assert "row counts per table" in text and "hermes session session-1" in text
    wrong = call(
        provider, "mnemosyne_edit", key="postgres-restore", operation="find_replace",
        find="e", content="E",
    )  # fmt: skip
    assert wrong["error_type"] == "MatchCountError" and "expected 1" in wrong["error"]
    missing = call(
        provider, "mnemosyne_edit", key="postgres-restore", operation="replace_section",
        section="Rollback", content="x", expected_version=done["version"],
    )  # fmt: skip
    assert missing["error_type"] == "SectionNotFoundError"
    assert missing["candidates"] == ["Restore PostgreSQL", "Verify"]
    assert "postgres-restore" in provider.on_pre_compress([])  # it was written this session
    provider.shutdown()


def test_prepend_counted_find_replace_and_section_edits_are_each_undone(tmp_path, notes):
    original = snapshot(notes.root)
    provider = start(tmp_path, notes)
    first = call(
        provider, "mnemosyne_edit", key="postgres-restore", operation="prepend",
        content="Restore drill: yearly.",
    )  # fmt: skip
    assert first["mode"] == "prepend"
    body = (notes.root / "runbooks/postgres-restore.md").read_text().split("---\n", 2)[2]
    assert body.startswith("\nRestore drill: yearly.\n\n# Restore PostgreSQL\n")
    short = call(
        provider, "mnemosyne_edit", key="postgres-restore", operation="find_replace",
        find="Restore", content="Recover",
    )  # fmt: skip
    assert short["error_type"] == "MatchCountError"
    assert (short["found"], short["expected"]) == (2, 1)
    assert "as expected_count to replace every one" in short["error"]
    both = call(
        provider, "mnemosyne_edit", key="postgres-restore", operation="find_replace",
        find="Restore", content="Recover", expected_count="2",
    )  # fmt: skip
    assert both["mode"] == "find_replace"
    section = call(
        provider, "mnemosyne_edit", key="postgres-restore", operation="replace_section",
        section="verify", content="Compare the row counts with yesterday's.",
        expected_version=both["version"],
    )  # fmt: skip
    assert section["mode"] == "replace_section"
    body = (notes.root / "runbooks/postgres-restore.md").read_text().split("---\n", 2)[2]
    assert body == (
        "\nRecover drill: yearly.\n\n# Recover PostgreSQL\n\n## Verify\n\n"
        "Compare the row counts with yesterday's.\n"
    )
    for _ in range(3):  # each edit is its own journaled change
        assert provider.memory.undo(last=True, kind="edit")["state"] == "undone"
    assert snapshot(notes.root) == original
    provider.shutdown()


def test_move_previews_applies_and_is_refused_outside_the_primary_agent(tmp_path, notes):
    original = snapshot(notes.root)
    provider = start(tmp_path, notes)
    plan = call(provider, "mnemosyne_move", key="postgres-restore", to="ops/pg-restore")
    assert plan["mode"] == "preview" and snapshot(notes.root) == original
    assert plan["changes"][0]["links"] == [
        {"line": 3, "from": "[[postgres-restore#Verify]]", "to": "[[pg-restore#Verify]]"}
    ]
    sub = start(tmp_path, notes, context="subagent")
    assert call(sub, "mnemosyne_move", key="postgres-restore", to="ops/pg-restore")["plan_id"]
    refused = call(sub, "mnemosyne_move", key="postgres-restore", to="ops/pg-restore", confirm=True)
    assert refused["error_type"] == "WriteRefusedError"
    assert (
        call(sub, "mnemosyne_edit", key="db1", operation="prepend", content="x")["error_type"]
        == "WriteRefusedError"
    )
    assert snapshot(notes.root) == original
    sub.shutdown()

    call(provider, "mnemosyne_get", key="postgres-restore")
    done = call(
        provider, "mnemosyne_move", key="postgres-restore", to="ops/pg-restore",
        confirm="true", plan_id=plan["plan_id"],
    )  # fmt: skip
    assert done["mode"] == "applied" and done["path"] == "ops/pg-restore.md"
    assert "[[pg-restore#Verify]]" in (notes.root / "hosts/db1.md").read_text()
    provider.sync_turn("q", "done")  # the read note is recorded at its new path
    assert provider.memory.usage_of("pg-restore")["accesses"] == 1
    assert "ops/pg-restore.md" in provider.on_pre_compress([])
    provider.memory.undo(done["transaction_id"])
    assert snapshot(notes.root) == original
    provider.shutdown()


def test_get_several_keys_and_recent(tmp_path, notes):
    provider = start(tmp_path, notes)
    both = call(provider, "mnemosyne_get", keys=["db1", "ghost", "postgres-restore"])
    assert [n["key"] for n in both["notes"]] == ["db1", "postgres-restore"]
    assert both["errors"][0]["key"] == "ghost"
    assert "missing key" in call(provider, "mnemosyne_get")["error"]
    assert "not both" in call(provider, "mnemosyne_get", key="db1", keys=["db1"])["error"]
    call(provider, "mnemosyne_remember", title="Fresh", body="new")
    recent = call(provider, "mnemosyne_recent", limit="2")
    assert recent["changes"][0]["path"] == "fresh.md" and recent["limit"] == 2
    assert call(provider, "mnemosyne_recent", since="soon")["error_type"] == "InvalidInputError"
    provider.shutdown()
