"""Vault-wide maintenance from the CLI: label (preview/apply), undo, journal, reindex."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PLAN_KEYS = {"mode", "plan_id", "operation", "changes", "unchanged", "warnings"}


@pytest.fixture
def notes(vault):
    vault.write("ops/a.md", "---\nlabels: [team:ops]\n---\n# A\n\nalpha\n")
    vault.write("b.md", "# B\n\nbeta\n")
    return vault


def _snapshot(root):
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*.md"))
        if ".mnemosyne" not in p.parts
    }


def test_label_previews_without_writing(notes, cli):
    before = _snapshot(notes.root)
    code, out, err = cli("--vault", notes.root, "label", "--path", "b", "--label", "project:x")
    assert code == 0 and "b.md: (none) -> project:x" in out
    assert "--apply --plan-id" in err
    code, out, _ = cli("--vault", notes.root, "label", "--label", "project:x", "--json")
    data = json.loads(out)
    assert set(data) == PLAN_KEYS and data["mode"] == "preview"
    assert [c["path"] for c in data["changes"]] == ["b.md", "ops/a.md"]  # every note
    assert _snapshot(notes.root) == before


def test_label_apply_with_plan_id_then_undo_is_byte_exact(notes, cli):
    v = ["--vault", notes.root]
    before = _snapshot(notes.root)
    args = ["label", "--path", "ops/a.md", "--clear-labels", "--label", "project:x"]
    plan = json.loads(cli(*v, *args, "--json")[1])
    code, out, _ = cli(*v, *args, "--apply", "--plan-id", plan["plan_id"], "--json")
    applied = json.loads(out)
    assert code == 0 and applied["mode"] == "applied"
    assert {"transaction_id", "state", "paths"} <= set(applied)
    assert applied["changes"][0]["after"] == ["project:x"]
    code, out, _ = cli(*v, "undo", applied["transaction_id"], "--json")
    assert code == 0 and json.loads(out)["state"] == "undone"
    assert _snapshot(notes.root) == before


def test_label_apply_refuses_a_stale_plan_id(notes, cli):
    v = ["--vault", notes.root]
    args = ["label", "--path", "b", "--label", "project:x"]
    plan_id = json.loads(cli(*v, *args, "--json")[1])["plan_id"]
    notes.write("b.md", "# B\n\nbeta, edited\n")
    code, _, err = cli(*v, *args, "--apply", "--plan-id", plan_id)
    assert code == 3 and "changed since preview" in err and err.count("\n") == 1


def test_label_errors(notes, cli):
    v = ["--vault", notes.root]
    code, _, err = cli(*v, "label", "--path", "b", "--label", "nonamespace")
    assert code == 2 and err.startswith("mnemosyne: error: ")
    code, _, err = cli(*v, "label", "--path", "b")
    assert code == 2 and "nothing to change" in err
    code, _, err = cli(*v, "label", "--path", "ghost", "--label", "a:b")
    assert code == 1


def test_undo_refuses_when_a_file_changed_since(notes, cli):
    v = ["--vault", notes.root]
    tid = json.loads(cli(*v, "forget", "b", "--yes", "--json")[1])["transaction_id"]
    notes.write("_archive/b.md", "# B\n\nchanged in the archive\n")
    code, _, err = cli(*v, "undo", tid)
    assert code == 3 and err.startswith("mnemosyne: error: ") and err.count("\n") == 1
    code, _, err = cli(*v, "undo", "not an id!")
    assert code == 2


def test_undo_last_journal_and_nothing_to_undo(notes, cli):
    v = ["--vault", notes.root]
    code, out, err = cli(*v, "journal")
    assert code == 0 and out == "" and "no journaled changes" in err
    code, _, err = cli(*v, "undo", "--last")
    assert code == 1 and "nothing to undo" in err
    cli(*v, "rezone", "b", "ops")
    code, out, _ = cli(*v, "journal", "--json")
    rows = json.loads(out)["transactions"]
    assert code == 0 and rows[0]["operation"] == "rezone"
    assert set(rows[0]) == {"transaction_id", "operation", "state", "created", "paths"}
    code, out, _ = cli(*v, "undo", "--last")
    assert code == 0 and out.startswith(f"undid {rows[0]['transaction_id']}: rezone of b.md")
    assert (notes.root / "b.md").exists()
    code, _, err = cli(*v, "undo", "--last")  # the only change is undone now
    assert code == 1
    code, _, err = cli(*v, "undo", rows[0]["transaction_id"], "--last")
    assert code == 2 and "not both" in err
    code, _, _ = cli(*v, "undo")
    assert code == 2


def test_reindex_text(notes, cli):
    code, out, _ = cli("--vault", notes.root, "reindex")
    assert code == 0 and out.startswith("indexed 2 notes")


def test_label_preview_and_apply_in_separate_processes(notes):
    base = [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(notes.root)]
    args = ["label", "--path", "b", "--label", "project:x", "--json"]
    preview = subprocess.run([*base, *args], capture_output=True, text=True, timeout=60)
    assert preview.returncode == 0, preview.stderr
    plan_id = json.loads(preview.stdout)["plan_id"]
    applied = subprocess.run(
        [*base, *args, "--apply", "--plan-id", plan_id], capture_output=True, text=True, timeout=60
    )
    assert applied.returncode == 0, applied.stderr
    assert "project:x" in (notes.root / "b.md").read_text(encoding="utf-8")
    undone = subprocess.run([*base, "undo", "--last"], capture_output=True, text=True, timeout=60)
    assert (
        undone.returncode == 0
        and (notes.root / "b.md").read_text(encoding="utf-8") == "# B\n\nbeta\n"
    )


RUNBOOK = "# Runbook\n\n" + "Step: check the replica lag before failing over.\n" * 40


def test_undo_last_kind_write_restores_a_replaced_runbook(vault, cli):
    """The incident: a replace wiped a runbook to "oops" and undo --last undid an
    earlier, unrelated archive instead."""
    vault.write("ops/runbook.md", RUNBOOK, dedent=False)
    vault.write("old.md", "# Old\n")
    v = ["--vault", vault.root]
    original = (vault.root / "ops/runbook.md").read_bytes()
    assert cli(*v, "forget", "old", "--yes")[0] == 0
    version = json.loads(cli(*v, "show", "runbook", "--json")[1])["version"]
    code, out, _ = cli(
        *v, "replace", "runbook", "--body", "oops", "--expected-version", version, "--json"
    )
    replaced = json.loads(out)
    assert code == 0 and replaced["transaction_id"]
    code, out, _ = cli(*v, "journal", "--json")
    newest = json.loads(out)["transactions"][0]
    assert newest["operation"] == "replace" and newest["paths"] == ["ops/runbook.md"]
    code, out, _ = cli(*v, "undo", "--last", "--kind", "write", "--dry-run")
    assert code == 0 and out.startswith(f"would undo {replaced['transaction_id']}: replace of")
    assert (vault.root / "ops/runbook.md").read_bytes() != original  # a dry run
    code, out, _ = cli(*v, "undo", "--last", "--kind", "write")
    assert code == 0 and "replace of ops/runbook.md" in out
    assert (vault.root / "ops/runbook.md").read_bytes() == original
    assert (vault.root / "_archive/old.md").exists()  # the archive was left alone
    # --kind move now finds the archive; --kind alone implies --last.
    code, out, _ = cli(*v, "undo", "--kind", "move", "--json")
    assert code == 0 and json.loads(out)["operation"] == "archive"
    assert (vault.root / "old.md").exists()


def test_undo_of_a_write_refuses_when_the_note_changed_since(vault, cli):
    vault.write("notes/log.md", "# Log\n\nfirst\n")
    v = ["--vault", vault.root]
    appended = json.loads(cli(*v, "append", "log", "--body", "second", "--json")[1])
    later = (vault.root / "notes/log.md").read_bytes() + b"edited by hand\n"
    (vault.root / "notes/log.md").write_bytes(later)
    code, out, err = cli(*v, "undo", "--last", "--kind", "write", "--dry-run")
    assert code == 3 and "notes/log.md changed since" in err
    code, _, err = cli(*v, "undo", appended["transaction_id"])
    assert code == 3 and "notes/log.md changed since it was applied" in err
    assert (vault.root / "notes/log.md").read_bytes() == later
    code, _, err = cli(*v, "undo", "--kind", "Bad Kind!")
    assert code == 2 and "kind must be" in err
