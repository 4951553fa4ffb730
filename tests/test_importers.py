"""ChatGPT and Obsidian imports: previews write nothing, every branch is kept in time
order, credentials are redacted and counted, re-imports are no-ops, undo is exact."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from birkin_mnemosyne.errors import (
    InvalidInputError,
    InvalidPathError,
    VaultNotFoundError,
    VersionConflictError,
)
from birkin_mnemosyne.frontmatter import parse_frontmatter
from birkin_mnemosyne.importers import (
    NON_TEXT,
    apply_chatgpt_import,
    apply_obsidian_import,
    plan_chatgpt_import,
    plan_obsidian_import,
)
from birkin_mnemosyne.journal import Journal

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
DAY = 1_709_287_200.0  # 2024-03-01T10:00:00Z
SECRET = "sk-" + "A" * 40
GITHUB = "ghp_" + "b1" * 18

needs_symlinks = pytest.mark.skipif(
    not hasattr(os, "symlink") or os.name == "nt", reason="symbolic links need POSIX here"
)


def snapshot(root: Path, *, state: bool = True) -> dict[str, bytes | None]:
    found: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not state and rel.split("/")[0] == ".mnemosyne":
            continue
        found[rel] = None if path.is_dir() else path.read_bytes()
    return found


# --- a realistic export, built in code ----------------------------------------------------


def node(key, parent, children, role=None, text=None, t=None, *, parts=None, **extra):
    message = None
    if role is not None:
        content = {"content_type": "text", "parts": parts if parts is not None else [text]}
        message = {
            "id": key,
            "author": {"role": role, "name": None, "metadata": {}},
            "create_time": t,
            "content": content,
            "status": "finished_successfully",
            "metadata": {},
            **extra,
        }
    return key, {"id": key, "message": message, "parent": parent, "children": children}


def conversation(cid, title, created, nodes, current):
    return {
        "title": title,
        "create_time": created,
        "update_time": created + 600,
        "mapping": dict(nodes),
        "current_node": current,
        "conversation_id": cid,
        "id": cid,
        "moderation_results": [],
    }


def export() -> list[dict]:
    # The answer was regenerated: "old" (t+20) is the first try, "new" (t+30) the kept one.
    # The root lists "new" first, so only time order puts "old" before it.
    t = DAY
    branched = conversation(
        "c-branch",
        "Postgres restore",
        t,
        [
            node("root", None, ["sys"]),
            node("sys", "root", ["q1"], "system", "You are ChatGPT.", None),
            node("q1", "sys", ["new", "old"], "user", "How do I restore a dump?", t + 10),
            node("new", "q1", ["q2"], "assistant", "Use pg_restore -d db dump.", t + 30),
            node("old", "q1", [], "assistant", "Use psql < dump.sql.", t + 20),
            node("q2", "new", ["a2"], "user", "And with parallel jobs?", t + 40),
            node("a2", "q2", [], "assistant", "Add -j 4.", t + 50),
        ],
        "a2",
    )
    secrets = conversation(
        "c-secret",
        "API key setup",
        t + 3600,
        [
            node("r", None, ["ctx"]),
            node(
                "ctx",
                "r",
                ["hid"],
                "user",
                None,
                t + 3601,
                content={"content_type": "user_editable_context", "user_profile": "x"},
            ),
            node(
                "hid",
                "ctx",
                ["u"],
                "user",
                "hidden prompt",
                t + 3602,
                metadata={"is_visually_hidden_from_conversation": True},
            ),
            node("u", "hid", ["a"], "user", f"My key is {SECRET}, is it valid?", t + 3610),
            node(
                "a",
                "u",
                ["e"],
                "assistant",
                None,
                t + 3620,
                parts=["Here is the chart:", {"content_type": "image_asset_pointer"}],
            ),
            node("e", "a", [], "assistant", "   ", t + 3630),
        ],
        "e",
    )
    # Same title on the same day as the first: its file name gets "-2".
    same_name = conversation(
        "c-same",
        "Postgres restore",
        t + 7200,
        [node("x", None, ["y"]), node("y", "x", [], "user", "Vacuum settings?", t + 7201)],
        "y",
    )
    return [branched, secrets, same_name]


@pytest.fixture
def chatgpt(tmp_path) -> dict[str, Path]:
    raw = json.dumps(export()).encode("utf-8")
    json_file = tmp_path / "conversations.json"
    json_file.write_bytes(raw)
    zip_file = tmp_path / "export.zip"
    with zipfile.ZipFile(zip_file, "w") as archive:
        archive.writestr("chat.html", "<html></html>")
        archive.writestr("conversations.json", raw)
        archive.writestr("user.json", "{}")
    return {"json": json_file, "zip": zip_file}


BRANCHED_NOTE = """---
title: Postgres restore
type: conversation
created: 2024-03-01T10:00:00Z
source: chatgpt:c-branch
tags:
  - chatgpt
---

# Postgres restore

### user

How do I restore a dump?

### assistant (alternative)

Use psql < dump.sql.

### assistant

Use pg_restore -d db dump.

### user

And with parallel jobs?

### assistant

Add -j 4.
"""


# --- ChatGPT ------------------------------------------------------------------------------


def test_the_zip_and_the_json_plan_the_same_notes_and_write_nothing(vault, chatgpt):
    before = snapshot(vault.root)
    from_zip = plan_chatgpt_import(vault.root, chatgpt["zip"], now=T0)
    from_json = plan_chatgpt_import(vault.root, chatgpt["json"], now=T0)
    assert snapshot(vault.root) == before
    assert from_zip["plan_id"] == from_json["plan_id"]
    assert from_zip["mode"] == "preview" and from_zip["conversations"] == 3
    assert [c["path"] for c in from_zip["changes"]] == [
        "imports/chatgpt/2024-03-01-api-key-setup.md",
        "imports/chatgpt/2024-03-01-postgres-restore-2.md",
        "imports/chatgpt/2024-03-01-postgres-restore.md",
    ]
    assert {c["source"] for c in from_zip["changes"]} == {
        "chatgpt:c-branch",
        "chatgpt:c-secret",
        "chatgpt:c-same",
    }
    assert all(c["action"] == "create" and c["kind"] == "conversation" for c in from_zip["changes"])


def test_every_branch_is_kept_in_time_order_with_alternatives_marked(vault, chatgpt):
    apply_chatgpt_import(vault.root, chatgpt["zip"], now=T0)
    note = vault.root / "imports/chatgpt/2024-03-01-postgres-restore.md"
    assert note.read_text(encoding="utf-8") == BRANCHED_NOTE
    assert "You are ChatGPT" not in note.read_text(encoding="utf-8")


def test_credentials_are_redacted_and_counted_never_shown(vault, chatgpt):
    preview = plan_chatgpt_import(vault.root, chatgpt["json"])
    assert preview["credentials"] == {"sk_api_key": 1}
    assert SECRET not in json.dumps(preview)
    row = next(c for c in preview["changes"] if c["source"] == "chatgpt:c-secret")
    assert row["detail"] == "2 message(s), 1 credential(s) redacted (sk_api_key)"
    applied = apply_chatgpt_import(vault.root, chatgpt["json"], now=T0)
    assert SECRET not in json.dumps(applied)
    text = (vault.root / "imports/chatgpt/2024-03-01-api-key-setup.md").read_text()
    assert SECRET not in text and "My key is [REDACTED:sk_api_key], is it valid?" in text
    # hidden, context and blank messages are left out; an image part is named, not lost
    assert "hidden prompt" not in text and "user_profile" not in text
    assert f"Here is the chart:\n\n{NON_TEXT}\n" in text
    assert text.count("### ") == 2


def test_apply_undo_and_re_run(vault, chatgpt):
    vault.write("inbox.md", "# mine\n")
    before = snapshot(vault.root)
    preview = plan_chatgpt_import(vault.root, chatgpt["zip"])
    applied = apply_chatgpt_import(vault.root, chatgpt["zip"], plan_id=preview["plan_id"], now=T0)
    assert applied["mode"] == "applied" and len(applied["paths"]) == 3
    assert Journal(vault.root).get(applied["transaction_id"])["operation"] == "import-chatgpt"
    after = snapshot(vault.root)
    again = apply_chatgpt_import(vault.root, chatgpt["json"], now=T0)
    assert again["transaction_id"] is None and again["paths"] == []
    assert again["summary"]["already_imported"] == 3 and snapshot(vault.root) == after
    Journal(vault.root).undo(applied["transaction_id"])
    assert snapshot(vault.root, state=False) == before


def phases(events) -> list[tuple[str, int]]:
    """(phase, total) of each phase that finished, in order, after checking each phase's
    events: from 0 up to its total, never backwards, finished only at its last event."""
    finished, current = [], []
    for event in events:
        current.append(event)
        if event.finished:
            done = [e.done for e in current]
            assert {e.phase for e in current} == {event.phase}, current
            assert {e.total for e in current} == {event.total}, current
            assert done[0] == 0 and done == sorted(done), current
            finished.append((event.phase, event.total))
            current = []
    assert current == [], "a phase did not finish"
    return finished


def test_a_chatgpt_import_reports_the_conversations_read_and_the_files_written(vault, chatgpt):
    events = []
    preview = plan_chatgpt_import(vault.root, chatgpt["json"], on_progress=events.append)
    assert phases(events) == [("read", 3)]
    events.clear()
    applied = apply_chatgpt_import(
        vault.root, chatgpt["json"], plan_id=preview["plan_id"], now=T0, on_progress=events.append
    )
    finished = phases(events)
    # the plan is built again under the vault lock (once more before it, without a lock
    # file yet), then its files are written
    assert set(finished[:-1]) == {("read", 3)} and finished[-1] == ("write", 3)
    assert len(applied["paths"]) == 3


def test_an_edited_import_is_refused_not_overwritten_and_new_ones_still_come_in(vault, chatgpt):
    apply_chatgpt_import(vault.root, chatgpt["json"], zone="chats")
    edited = vault.root / "chats/2024-03-01-postgres-restore.md"
    edited.write_text(edited.read_text() + "\nmy own note\n")
    data = json.loads(chatgpt["json"].read_bytes())
    data.append(
        conversation(
            "c-new", "Later", DAY + 86400, [node("n", None, [], "user", "hi", DAY + 86401)], "n"
        )
    )
    chatgpt["json"].write_text(json.dumps(data))
    preview = plan_chatgpt_import(vault.root, chatgpt["json"], zone="chats")
    assert [c["path"] for c in preview["changes"]] == ["chats/2024-03-02-later.md"]
    assert preview["refused"][0]["source"] == "chatgpt:c-branch"
    assert (
        "already imported as chats/2024-03-01-postgres-restore.md"
        in (preview["refused"][0]["reason"])
    )
    assert preview["summary"]["already_imported"] == 2


def test_a_stale_plan_id_is_refused(vault, chatgpt):
    preview = plan_chatgpt_import(vault.root, chatgpt["json"])
    vault.write("imports/chatgpt/2024-03-01-postgres-restore.md", "taken meanwhile\n")
    with pytest.raises(VersionConflictError, match="preview again"):
        apply_chatgpt_import(vault.root, chatgpt["json"], plan_id=preview["plan_id"])
    assert not (vault.root / "imports/chatgpt/2024-03-01-api-key-setup.md").exists()


def test_undated_untitled_and_malformed_conversations(vault, tmp_path):
    data = [
        {"title": None, "create_time": None, "mapping": dict([node("a", None, [], "user", "q")])},
        {"title": "no mapping"},
        "not an object",
        {"title": "empty", "create_time": DAY, "mapping": {"r": {"message": None}}},
    ]
    source = tmp_path / "c.json"
    source.write_text(json.dumps(data))
    preview = plan_chatgpt_import(vault.root, source)
    assert [c["path"] for c in preview["changes"]] == [
        "imports/chatgpt/undated-untitled-conversation.md"
    ]
    assert {r["source"] for r in preview["refused"]} == {"conversation #2", "conversation #3"}
    assert preview["summary"]["empty"] == 1
    assert any("without any visible message" in w for w in preview["warnings"])


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b'{"a": 1}', "expected a list of conversations"),
        (b'[1, 2, {"title": "x"}]', "none of its 3 entries"),
        (b"\xff\xfe[]", "not UTF-8"),
    ],
)
def test_a_malformed_export_is_a_clear_error(vault, tmp_path, content, message):
    source = tmp_path / "conversations.json"
    source.write_bytes(content)
    with pytest.raises(InvalidInputError, match=message):
        plan_chatgpt_import(vault.root, source)


def test_a_zip_without_conversations_and_missing_paths_are_errors(vault, tmp_path):
    empty_zip = tmp_path / "e.zip"
    with zipfile.ZipFile(empty_zip, "w") as archive:
        archive.writestr("chat.html", "x")
    with pytest.raises(InvalidInputError, match="holds no conversations.json"):
        plan_chatgpt_import(vault.root, empty_zip)
    with pytest.raises(InvalidInputError, match="export not found"):
        plan_chatgpt_import(vault.root, tmp_path / "missing.zip")
    with pytest.raises(VaultNotFoundError):
        plan_chatgpt_import(tmp_path / "no-vault", empty_zip)
    with pytest.raises(InvalidPathError):
        plan_chatgpt_import(vault.root, empty_zip, zone="../out")


def test_one_conversation_object_and_a_nested_zip_member_are_accepted(vault, tmp_path):
    one = conversation("solo", "Solo", DAY, [node("n", None, [], "user", "hello", DAY)], "n")
    nested = tmp_path / "nested.zip"
    with zipfile.ZipFile(nested, "w") as archive:
        archive.writestr("export-2024/conversations.json", json.dumps(one))
    preview = plan_chatgpt_import(vault.root, nested)
    assert [c["path"] for c in preview["changes"]] == ["imports/chatgpt/2024-03-01-solo.md"]


# --- Obsidian -----------------------------------------------------------------------------

WIKI_NOTE = (
    b"---\r\naliases: [Restore]\r\ntags: [ops]\r\n---\r\n"
    b"See [[Postgres#Backups|backups]] and ![[diagram.png]]. #runbook/db\r\n"
)


@pytest.fixture
def obsidian(tmp_path) -> Path:
    root = tmp_path / "MyVault"
    for rel, data in {
        "Restore.md": WIKI_NOTE,
        "projects/Atlas.md": b"# Atlas\n\n- [ ] ship #project\n",
        "projects/keys.md": f"token: {GITHUB}\nstill here\n".encode(),
        "diagram.png": b"\x89PNG\r\n",
        "papers/spec.pdf": b"%PDF-1.7",
        ".obsidian/app.json": b"{}",
        ".obsidian/workspace.md": b"# not a note\n",
        ".trash/old.md": b"# deleted\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def test_obsidian_notes_are_copied_byte_for_byte_and_attachments_counted(vault, obsidian):
    before = snapshot(vault.root)
    preview = plan_obsidian_import(vault.root, obsidian)
    assert snapshot(vault.root) == before
    assert preview["notes"] == 3 and preview["attachments_skipped"] == 2
    assert preview["summary"]["hidden_skipped"] == 2
    assert [c["path"] for c in preview["changes"]] == [
        "imports/obsidian/Restore.md",
        "imports/obsidian/projects/Atlas.md",
        "imports/obsidian/projects/keys.md",
    ]
    apply_obsidian_import(vault.root, obsidian, plan_id=preview["plan_id"], now=T0)
    zone = vault.root / "imports/obsidian"
    assert (zone / "Restore.md").read_bytes() == WIKI_NOTE
    assert (zone / "projects/Atlas.md").read_bytes() == b"# Atlas\n\n- [ ] ship #project\n"
    assert not (zone / ".obsidian").exists() and not (zone / ".trash").exists()
    assert not (zone / "diagram.png").exists()


def test_obsidian_credentials_are_redacted_in_the_copy_and_reported(vault, obsidian):
    preview = plan_obsidian_import(vault.root, obsidian, zone="old")
    assert preview["credentials"] == {"github_token": 1}
    assert GITHUB not in json.dumps(preview)
    keys_row = next(c for c in preview["changes"] if c["source"] == "projects/keys.md")
    assert keys_row["detail"] == "1 credential(s) redacted (github_token)"
    apply_obsidian_import(vault.root, obsidian, zone="old")
    copy = (vault.root / "old/projects/keys.md").read_text()
    assert copy == "token: [REDACTED:github_token]\nstill here\n"
    assert parse_frontmatter((vault.root / "old/Restore.md").read_text()).data["tags"] == ["ops"]


def test_obsidian_re_import_is_a_no_op_and_undo_is_exact(vault, obsidian):
    before = snapshot(vault.root)
    applied = apply_obsidian_import(vault.root, obsidian, now=T0)
    after = snapshot(vault.root)
    again = apply_obsidian_import(vault.root, obsidian, now=T0)
    assert again["transaction_id"] is None and snapshot(vault.root) == after
    assert again["summary"]["already_imported"] == 3
    Journal(vault.root).undo(applied["transaction_id"])
    assert snapshot(vault.root, state=False) == before


@needs_symlinks
def test_obsidian_refusals_do_not_block_the_other_notes(vault, obsidian):
    (obsidian / "link.md").symlink_to(obsidian / "Restore.md")
    (obsidian / "bad.md").write_bytes(b"\xc3\x28 broken\n")
    (obsidian / "restore.md").write_bytes(b"# another restore\n")
    preview = plan_obsidian_import(vault.root, obsidian)
    reasons = {r["source"]: r["reason"] for r in preview["refused"]}
    assert set(reasons) == {"link.md", "bad.md", "Restore.md", "restore.md"}
    assert "symbolic link" in reasons["link.md"] and "UTF-8" in reasons["bad.md"]
    assert "differ only by case" in reasons["restore.md"]
    assert [c["source"] for c in preview["changes"]] == ["projects/Atlas.md", "projects/keys.md"]


def test_obsidian_source_must_be_a_separate_folder(vault, obsidian, tmp_path):
    with pytest.raises(InvalidInputError, match="not found"):
        plan_obsidian_import(vault.root, tmp_path / "nope")
    with pytest.raises(InvalidInputError, match="overlaps the vault"):
        plan_obsidian_import(vault.root, vault.root)
    with pytest.raises(VaultNotFoundError):
        apply_obsidian_import(tmp_path / "no-vault", obsidian)


def test_an_obsidian_import_reports_the_files_read_and_the_notes_written(vault, obsidian):
    events = []
    plan_obsidian_import(vault.root, obsidian, on_progress=events.append)
    assert phases(events) == [("read", 5)]  # 3 notes and 2 attachments, hidden ones left out
    events.clear()
    applied = apply_obsidian_import(vault.root, obsidian, now=T0, on_progress=events.append)
    finished = phases(events)
    assert set(finished[:-1]) == {("read", 5)} and finished[-1] == ("write", 3)
    assert len(applied["paths"]) == 3
