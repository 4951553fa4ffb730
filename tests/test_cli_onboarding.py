"""Onboarding from the CLI: init, import-chatgpt, import-obsidian — preview, apply with
the previewed plan id, no-op re-runs, and byte-exact undo. The importers' own tests cover
the formats in depth; these use small exports the tests write."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import pytest

PREVIEW_KEYS = {"mode", "plan_id", "vault", "changes", "summary", "refused", "warnings"}
APPLIED_KEYS = {"mode", "transaction_id", "state", "paths", "plan_id", "summary"}


@pytest.fixture
def folder(vault):
    """A folder of existing notes, none with complete frontmatter."""
    vault.write("runbooks/restore.md", "# Restore\n\nRun pg_restore on the dump.\n")
    vault.write("prefs.md", "---\ntitle: Preferences\n---\nTea, not coffee.\n")
    return vault


def _tree(root):
    """Every file under ``root`` (hidden ones too) with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _notes(root):
    return {k: v for k, v in _tree(root).items() if not k.startswith(".mnemosyne/")}


def test_init_preview_apply_rerun_and_undo_round_trip(folder, cli):
    v = ["--vault", folder.root]
    before = _tree(folder.root)
    code, out, _ = cli(*v, "init", "--json")
    plan = json.loads(out)
    assert code == 0 and set(plan) >= PREVIEW_KEYS and plan["mode"] == "preview"
    assert {c["path"] for c in plan["changes"]} == {"prefs.md", "runbooks/restore.md"}
    assert _tree(folder.root) == before  # a preview writes nothing at all
    code, out, _ = cli(*v, "init", "--apply", "--plan-id", plan["plan_id"], "--json")
    applied = json.loads(out)
    assert code == 0 and set(applied) >= APPLIED_KEYS and applied["mode"] == "applied"
    assert applied["plan_id"] == plan["plan_id"] and applied["transaction_id"]
    assert "type: runbook" in (folder.root / "runbooks/restore.md").read_text(encoding="utf-8")
    after = _notes(folder.root)
    code, out, _ = cli(*v, "init")  # unchanged: nothing to do
    assert code == 0 and "nothing to change" in out
    code, out, _ = cli(*v, "init", "--apply", "--json")
    assert json.loads(out)["transaction_id"] is None and _notes(folder.root) == after
    code, out, _ = cli(*v, "undo", applied["transaction_id"])
    assert code == 0 and out.startswith(f"undid {applied['transaction_id']}: init of ")
    assert _notes(folder.root) == before


def test_init_text_output_names_the_undo(folder, cli):
    code, out, err = cli("--vault", folder.root, "init")
    assert code == 0 and "update runbooks/restore.md: add title, type, tags" in out
    assert "--apply" in err
    code, out, _ = cli("--vault", folder.root, "init", "--apply")
    assert code == 0 and "undo with:   mnemosyne undo " in out


def test_init_refuses_a_stale_or_malformed_plan_id(folder, cli):
    v = ["--vault", folder.root]
    plan_id = json.loads(cli(*v, "init", "--json")[1])["plan_id"]
    folder.write("new.md", "# New\n\nsince the preview\n")
    before = _notes(folder.root)
    code, _, err = cli(*v, "init", "--apply", "--plan-id", plan_id)
    assert code == 3 and "changed since the preview" in err and err.count("\n") == 1
    assert _notes(folder.root) == before
    code, _, err = cli(*v, "init", "--apply", "--plan-id", "abc")
    assert code == 2 and "plan id" in err


def test_init_is_the_only_command_that_creates_the_vault(tmp_path, cli):
    vault = tmp_path / "fresh"
    code, out, err = cli("--vault", vault, "init")
    assert code == 0 and "create the vault folder" in out and not vault.exists()
    code, out, _ = cli("--vault", vault, "init", "--apply")
    assert code == 0 and out.startswith(f"created the vault folder {vault}") and vault.is_dir()
    code, _, _ = cli("--vault", vault, "list")
    assert code == 1  # an empty vault: nothing to list


def test_init_imports_a_folder(folder, tmp_path, cli):
    old = tmp_path / "old-notes"
    old.mkdir()
    (old / "todo.txt").write_text("call the plumber\n", encoding="utf-8")
    code, out, _ = cli("--vault", folder.root, "init", "--import", old, "--apply", "--json")
    applied = json.loads(out)
    assert code == 0 and "imports/old-notes/todo.md" in applied["paths"]
    code, out, _ = cli("--vault", folder.root, "search", "plumber")
    assert code == 0 and "imports/old-notes/todo.md" in out


def _chatgpt_export(tmp_path):
    conversation = {
        "id": "conv-1",
        "title": "Kafka retention",
        "create_time": 1767225600,
        "current_node": "m2",
        "mapping": {
            "m1": {
                "id": "m1",
                "parent": None,
                "children": ["m2"],
                "message": {
                    "author": {"role": "user"},
                    "create_time": 1767225600,
                    "content": {"content_type": "text", "parts": ["How long do topics keep data?"]},
                },
            },
            "m2": {
                "id": "m2",
                "parent": "m1",
                "children": [],
                "message": {
                    "author": {"role": "assistant"},
                    "create_time": 1767225660,
                    "content": {"content_type": "text", "parts": ["Seven days by default."]},
                },
            },
        },
    }
    export = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(export, "w") as archive:
        archive.writestr("conversations.json", json.dumps([conversation]))
    return export


def test_import_chatgpt_preview_apply_again_and_undo(vault, tmp_path, cli):
    export = _chatgpt_export(tmp_path)
    v = ["--vault", vault.root]
    code, out, _ = cli(*v, "import-chatgpt", export, "--json")
    plan = json.loads(out)
    assert code == 0 and set(plan) >= PREVIEW_KEYS and len(plan["changes"]) == 1
    assert _notes(vault.root) == {}
    code, out, _ = cli(*v, "import-chatgpt", export, "--apply", "--plan-id", plan["plan_id"])
    assert code == 0 and "imports/chatgpt/" in out
    code, out, _ = cli(*v, "search", "topics keep data")
    assert code == 0 and "Kafka retention" in out
    code, out, _ = cli(*v, "import-chatgpt", export, "--apply", "--json")
    assert json.loads(out)["transaction_id"] is None  # the same export again adds nothing
    code, _, _ = cli(*v, "undo", "--last")
    assert code == 0 and _notes(vault.root) == {}


def test_import_chatgpt_into_a_zone_from_conversations_json(vault, tmp_path, cli):
    with zipfile.ZipFile(_chatgpt_export(tmp_path)) as archive:
        (tmp_path / "conversations.json").write_bytes(archive.read("conversations.json"))
    code, out, _ = cli(
        "--vault", vault.root, "import-chatgpt", tmp_path / "conversations.json", "--zone", "chats"
    )
    assert code == 0 and "create chats/" in out


def test_import_obsidian_copies_notes_and_keeps_the_source(vault, tmp_path, cli):
    source = tmp_path / "Obsidian"
    (source / ".obsidian").mkdir(parents=True)
    (source / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    (source / "Daily").mkdir()
    (source / "Daily" / "2026-01-02.md").write_text("# Day\n\n[[Project]] #work\n", "utf-8")
    (source / "pic.png").write_bytes(b"\x89PNG")
    source_before = _tree(source)
    code, out, err = cli("--vault", vault.root, "import-obsidian", source)
    assert code == 0 and "create imports/obsidian/Daily/2026-01-02.md" in out
    code, out, _ = cli("--vault", vault.root, "import-obsidian", source, "--apply", "--json")
    applied = json.loads(out)
    assert code == 0 and applied["paths"] == ["imports/obsidian/Daily/2026-01-02.md"]
    copied = vault.root / "imports/obsidian/Daily/2026-01-02.md"
    assert copied.read_bytes() == (source / "Daily" / "2026-01-02.md").read_bytes()
    assert _tree(source) == source_before


def test_import_of_a_missing_source_is_exit_2(vault, tmp_path, cli):
    code, _, err = cli("--vault", vault.root, "import-obsidian", tmp_path / "nowhere")
    assert code == 2 and err.startswith("mnemosyne: error: ") and err.count("\n") == 1
    code, _, err = cli("--vault", vault.root, "import-chatgpt", tmp_path / "nowhere.zip")
    assert code == 2 and err.count("\n") == 1


def test_init_and_undo_in_real_processes(folder):
    base = [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(folder.root)]
    before = _notes(folder.root)

    def run(*argv):
        proc = subprocess.run([*base, *argv], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    plan_id = json.loads(run("init", "--json"))["plan_id"]
    tid = json.loads(run("init", "--apply", "--plan-id", plan_id, "--json"))["transaction_id"]
    assert _notes(folder.root) != before
    run("undo", tid)
    assert _notes(folder.root) == before
