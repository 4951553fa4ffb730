"""``VaultMemory`` write safety: atomic writes, the lock across processes, journaled
moves and label edits, byte-exact undo and crash recovery."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from birkin_mnemosyne import atomic
from birkin_mnemosyne.errors import (
    AmbiguousKeyError,
    InvalidInputError,
    InvalidPathError,
    JournalError,
    LabelError,
    NoteExistsError,
    NoteNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)
from birkin_mnemosyne.journal import FileChange
from birkin_mnemosyne.memory import VaultMemory

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
CRLF_NOTE = b"\xef\xbb\xbf---\r\ntitle: Legacy\r\nlabels: [project:Atlas]\r\n---\r\nCRLF body\r\n"


@pytest.fixture
def memory(vault):
    return VaultMemory(vault.root, clock=lambda: T0)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every visible file of the vault (the state folder excluded) with its bytes."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mnemosyne" not in p.relative_to(root).parts
    }


# --- atomic writes -----------------------------------------------------------------------


def test_a_crash_before_the_rename_leaves_the_old_bytes_and_no_temp_file(
    memory, vault, monkeypatch
):
    memory.write_note("Ledger", "old line", zone="books")
    folder = vault.root / "books"
    before = (folder / "ledger.md").read_bytes()
    written = []
    real_replace = os.replace

    def crash(src, dst, *args, **kwargs):
        if Path(dst).name != "ledger.md":
            return real_replace(src, dst, *args, **kwargs)  # the journal entry
        written.append(Path(src).read_bytes())  # the temp file was complete
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(WriteRefusedError, match="nothing was changed"):
        memory.write_note("ledger", "new line", mode="append")
    monkeypatch.setattr(atomic.os, "replace", real_replace)
    assert b"new line" in written[0]
    assert (folder / "ledger.md").read_bytes() == before
    assert sorted(os.listdir(folder)) == ["ledger.md"]
    # The append's journal entry was rolled back, so undo --last cannot pick it.
    newest = memory.journal(limit=1)["transactions"][0]
    assert newest["operation"] == "append" and newest["state"] == "rolled_back"


def test_writes_through_a_symlinked_folder_are_refused(memory, vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    try:
        (vault.root / "linked").symlink_to(outside, target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")
    with pytest.raises(InvalidPathError, match="symbolic link"):
        memory.write_note("Escape", "x", zone="linked")
    assert list(outside.iterdir()) == []


APPENDER = textwrap.dedent(
    """
    import sys
    from birkin_mnemosyne.memory import VaultMemory

    vault, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    memory = VaultMemory(vault)
    print("ready", flush=True)
    sys.stdin.readline()  # start together with the other process
    for i in range(count):
        memory.write_note("shared", f"entry {tag}-{i:03d} done", mode="append")
    """
)


def test_two_processes_appending_lose_nothing(memory, vault):
    count = 20
    memory.write_note("Shared", "start")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", APPENDER, str(vault.root), tag, str(count)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for tag in ("a", "b")
    ]
    for worker in workers:
        assert worker.stdout.readline() == b"ready\n"
    for worker in workers:
        worker.stdin.write(b"go\n")
        worker.stdin.flush()
    for worker in workers:
        _, err = worker.communicate(timeout=120)
        assert worker.returncode == 0, err.decode()
    text = (vault.root / "shared.md").read_text()
    for tag in ("a", "b"):
        for i in range(count):
            assert text.count(f"entry {tag}-{i:03d} done") == 1, (tag, i)
    assert text.count("entry ") == 2 * count


# --- forget / restore / rezone -----------------------------------------------------------


def test_forget_previews_then_archives_and_restores_byte_exact(memory, vault):
    vault.write_bytes("ops/legacy.md", CRLF_NOTE)
    before = snapshot(vault.root)
    preview = memory.forget("legacy")
    assert preview["mode"] == "preview" and preview["plan_id"]
    assert preview["moves"] == [{"from": "ops/legacy.md", "to": "_archive/ops/legacy.md"}]
    assert preview["version"] == hashlib.sha256(CRLF_NOTE).hexdigest()
    assert snapshot(vault.root) == before

    done = memory.forget("legacy", confirm=True)
    assert done["mode"] == "applied" and done["state"] == "committed"
    assert done["operation"] == "archive"
    assert done["path"] == "_archive/ops/legacy.md"
    assert done["paths"] == ["ops/legacy.md", "_archive/ops/legacy.md"]
    assert (vault.root / "_archive/ops/legacy.md").read_bytes() == CRLF_NOTE
    assert not (vault.root / "ops").exists()
    with pytest.raises(NoteNotFoundError, match="restore"):
        memory.get_note("legacy")
    assert memory.search("CRLF body") == []
    assert memory.list_notes()["total"] == 0

    back = memory.restore("legacy")
    assert back["path"] == "ops/legacy.md" and back["operation"] == "restore"
    assert snapshot(vault.root) == before
    assert memory.get_note("legacy")["text"] == "CRLF body\r\n"


def test_restore_to_another_zone_and_refusals(memory, vault):
    vault.write("ops/a.md", "a\n")
    memory.forget("a", confirm=True)
    vault.write("ops/a.md", "a new a\n")
    with pytest.raises(NoteExistsError, match="ops/a.md"):
        memory.restore("a")
    with pytest.raises(NoteExistsError, match="_archive/ops/a.md"):
        memory.forget("ops/a", confirm=True)
    assert memory.forget("ops/a")["warnings"]
    moved = memory.restore("_archive/ops/a.md", zone="attic")
    assert moved["path"] == "attic/a.md"
    assert (vault.root / "attic/a.md").read_text() == "a\n"
    with pytest.raises(NoteNotFoundError, match="no archived note"):
        memory.restore("a")


def test_restore_by_ambiguous_name_lists_archived_paths(memory, vault):
    vault.write("x/n.md", "1\n")
    vault.write("y/n.md", "2\n")
    memory.forget("x/n", confirm=True)
    memory.forget("y/n", confirm=True)
    with pytest.raises(AmbiguousKeyError) as caught:
        memory.restore("n")
    assert caught.value.candidates == ["_archive/x/n.md", "_archive/y/n.md"]


def test_rezone_moves_and_refuses_a_taken_target(memory, vault):
    vault.write("inbox/idea.md", "idea\n")
    vault.write("projects/other.md", "x\n")
    done = memory.rezone("idea", "projects")
    assert done["path"] == "projects/idea.md" and done["previous_path"] == "inbox/idea.md"
    assert memory.resolve("idea") == "projects/idea.md"
    vault.write("inbox/idea.md", "another idea\n")
    with pytest.raises(NoteExistsError):
        memory.rezone("inbox/idea", "projects")
    with pytest.raises(InvalidInputError, match="already in zone"):
        memory.rezone("projects/idea", "projects")


def test_moves_and_their_undo_carry_usage(memory, vault):
    vault.write("inbox/idea.md", "idea\n")
    memory.record_access("idea", now=T0)
    done = memory.rezone("idea", "projects")
    assert memory.usage.usage("projects/idea.md").accesses == 1
    assert memory.usage.usage("inbox/idea.md") is None
    memory.undo(done["transaction_id"])
    assert memory.usage.usage("inbox/idea.md").accesses == 1
    archived = memory.forget("idea", confirm=True)
    assert memory.usage.usage("_archive/inbox/idea.md").accesses == 1
    memory.undo(archived["transaction_id"])
    assert memory.usage_of("idea")["accesses"] == 1


# --- undo and the journal ----------------------------------------------------------------


def test_undo_is_byte_exact_and_refused_after_a_later_edit(memory, vault):
    vault.write_bytes("notes/legacy.md", CRLF_NOTE)
    original = snapshot(vault.root)
    done = memory.rezone("legacy", "attic")
    undone = memory.undo(done["transaction_id"])
    assert undone["state"] == "undone" and undone["operation"] == "rezone"
    assert snapshot(vault.root) == original
    assert memory.resolve("legacy") == "notes/legacy.md"  # index refreshed
    with pytest.raises(JournalError, match="already undone"):
        memory.undo(done["transaction_id"])

    again = memory.rezone("legacy", "attic")
    (vault.root / "attic/legacy.md").write_bytes(CRLF_NOTE + b"edited later\r\n")
    edited = snapshot(vault.root)
    with pytest.raises(JournalError, match="attic/legacy.md changed since"):
        memory.undo(again["transaction_id"])
    assert snapshot(vault.root) == edited
    with pytest.raises(InvalidInputError):
        memory.undo("../../etc")


def test_journal_lists_recent_operations(memory, vault):
    vault.write("a.md", "a\n")
    first = memory.rezone("a", "one")
    second = memory.rezone("a", "two")
    listing = memory.journal()
    ids = [row["transaction_id"] for row in listing["transactions"]]
    assert ids[:2] == [second["transaction_id"], first["transaction_id"]]
    assert memory.journal(limit=1)["transactions"][0]["operation"] == "rezone"


def test_opening_a_vault_rolls_back_a_prepared_transaction(vault):
    vault.write_bytes("ops/legacy.md", CRLF_NOTE)
    original = snapshot(vault.root)
    memory = VaultMemory(vault.root)
    assert memory.recovered == []
    journal = memory._journal
    changes = [
        FileChange("ops/legacy.md", CRLF_NOTE, None),
        FileChange("attic/legacy.md", None, CRLF_NOTE),
    ]
    entry = journal._prepare("rezone", changes, {"moves": [["ops/legacy.md", "attic/legacy.md"]]})
    journal._put("ops/legacy.md", None)  # the process died half-way through the move
    assert snapshot(vault.root) != original

    reopened = VaultMemory(vault.root)
    [report] = reopened.recovered
    assert report["transaction_id"] == entry["transaction_id"]
    assert report["state"] == "rolled_back"
    assert snapshot(vault.root) == original
    assert reopened.resolve("legacy") == "ops/legacy.md"
    status = reopened.status()
    assert status["recovered"] == reopened.recovered
    [warning] = [w for w in status["warnings"] if w["code"] == "recovered"]
    assert entry["transaction_id"] in warning["message"]
    assert VaultMemory(vault.root).recovered == []  # nothing left to do


def test_recovery_can_be_skipped(vault):
    memory = VaultMemory(vault.root, recover=False)
    assert memory.recovered == []


# --- labels ------------------------------------------------------------------------------

LABELLED = (
    b"---\r\n"
    b"title: Restore drill\r\n"
    b"# a comment that must survive\r\n"
    b"labels: [project:Atlas, 'host:db-01']\r\n"
    b"tags: [ops]\r\n"
    b"---\r\n"
    b"people:: [[Mina]]\r\n"
)


def without_labels(data: bytes) -> bytes:
    """The note with its labels entry (however many lines) cut out."""
    lines = data.split(b"\r\n")
    start = next(i for i, line in enumerate(lines) if line.startswith(b"labels:"))
    end = start + 1
    while lines[end].startswith(b"  "):
        end += 1
    return b"\r\n".join(lines[:start] + lines[end:])


def test_label_preview_apply_and_undo_touch_only_the_labels_entry(memory, vault):
    vault.write_bytes("ops/drill.md", LABELLED)
    vault.write("ops/plain.md", "no frontmatter\n")
    original = snapshot(vault.root)

    preview = memory.label_preview(["drill", "plain"], add=["Person: Mina"], remove=["host:DB-01"])
    assert preview["mode"] == "preview" and len(preview["plan_id"]) == 16
    assert preview["changes"] == [
        {
            "key": "drill",
            "path": "ops/drill.md",
            "before": ["host:db-01", "project:Atlas"],
            "after": ["person:Mina", "project:Atlas"],
        },
        {"key": "plain", "path": "ops/plain.md", "before": [], "after": ["person:Mina"]},
    ]
    assert snapshot(vault.root) == original  # a preview writes nothing

    applied = memory.label_apply(preview["plan_id"])
    assert applied["mode"] == "applied" and applied["state"] == "committed"
    assert applied["transaction_id"] and applied["plan_id"] == preview["plan_id"]
    after = (vault.root / "ops/drill.md").read_bytes()
    assert without_labels(after) == without_labels(LABELLED)
    assert b"labels:\r\n  - person:Mina\r\n  - project:Atlas\r\n" in after
    assert (vault.root / "ops/plain.md").read_text() == (
        "---\nlabels:\n  - person:Mina\n---\nno frontmatter\n"
    )
    assert memory.list_notes(labels=["person:mina"])["total"] == 2  # index refreshed

    memory.undo(applied["transaction_id"])
    assert snapshot(vault.root) == original


def test_a_stale_label_preview_is_refused(memory, vault):
    vault.write_bytes("ops/drill.md", LABELLED)
    preview = memory.label_preview("drill", add="person:Joon")
    (vault.root / "ops/drill.md").write_bytes(LABELLED + b"edited\r\n")
    with pytest.raises(VersionConflictError, match="changed since preview"):
        memory.label_apply(preview["plan_id"])
    with pytest.raises(VersionConflictError, match=r"review VaultMemory\.label_preview\(\) again"):
        memory.label_apply(preview["plan_id"], ["drill"], add="person:Joon")
    assert (vault.root / "ops/drill.md").read_bytes() == LABELLED + b"edited\r\n"


def test_label_apply_with_the_same_arguments_in_a_new_process(memory, vault):
    vault.write_bytes("ops/drill.md", LABELLED)
    preview = memory.label_preview(["drill"], set=["topic:Backups"])
    fresh = VaultMemory(vault.root)
    with pytest.raises(InvalidInputError, match="unknown plan id"):
        fresh.label_apply(preview["plan_id"])
    applied = fresh.label_apply(preview["plan_id"], ["drill"], set=["topic:Backups"])
    assert applied["changes"][0]["after"] == ["topic:Backups"]
    assert fresh.get_note("drill")["labels"] == ["topic:Backups"]


def test_label_clear_suggest_and_bad_requests(memory, vault):
    vault.write_bytes("ops/drill.md", LABELLED)
    suggested = memory.label_preview(["drill"], suggest=True)
    assert suggested["changes"][0]["after"] == [
        "host:db-01",
        "person:Mina",
        "project:Atlas",
        "zone:ops",
    ]
    assert memory.suggest_labels("drill") == ["person:Mina", "zone:ops"]
    cleared = memory.label_apply(None, ["drill"], clear=True)
    assert b"labels: []\r\n" in (vault.root / "ops/drill.md").read_bytes()
    assert cleared["changes"][0]["after"] == []
    nothing = memory.label_apply(None, ["drill"], clear=True)
    assert nothing["transaction_id"] is None and nothing["unchanged"] == ["ops/drill.md"]
    with pytest.raises(InvalidInputError, match="nothing to change"):
        memory.label_preview(["drill"])
    with pytest.raises(InvalidInputError, match="not both"):
        memory.label_preview(["drill"], set=["a:b"], clear=True)
    with pytest.raises(LabelError):
        memory.label_preview(["drill"], add=["Atlas"])
    with pytest.raises(InvalidInputError, match="at least one"):
        memory.label_preview([], add=["a:b"])


def test_restore_preview_writes_nothing(memory, vault):
    memory.write_note("Kafka notes", "topics keep 7 days", zone="ops")
    memory.forget("kafka-notes", confirm=True)
    before = sorted((p, p.read_bytes()) for p in vault.root.rglob("*.md"))
    preview = memory.restore("kafka-notes", confirm=False)
    assert preview["mode"] == "preview"
    assert preview["moves"] == [{"from": "_archive/ops/kafka-notes.md", "to": "ops/kafka-notes.md"}]
    assert sorted((p, p.read_bytes()) for p in vault.root.rglob("*.md")) == before


# --- journaled writes ----------------------------------------------------------------------


def test_replace_and_append_are_journaled_and_undone_byte_exact(memory, vault):
    vault.write_bytes("ops/runbook.md", CRLF_NOTE + b"A long runbook.\r\n" * 100)
    original = (vault.root / "ops/runbook.md").read_bytes()
    version = memory.get_note("runbook")["version"]
    replaced = memory.write_note("runbook", "oops", mode="replace", expected_version=version)
    entry = memory._journal.get(replaced["transaction_id"])
    assert entry["operation"] == "replace" and entry["paths"] == ["ops/runbook.md"]
    assert entry["changes"][0]["before_sha256"] == hashlib.sha256(original).hexdigest()
    appended = memory.write_note("runbook", "and more", mode="append")
    assert appended["transaction_id"] != replaced["transaction_id"]
    memory.undo(appended["transaction_id"])
    assert memory.get_note("runbook")["version"] == replaced["version"]
    undone = memory.undo(last=True, kind="write")
    assert undone["transaction_id"] == replaced["transaction_id"]
    assert undone["mode"] == "applied" and undone["description"].startswith(
        "replace of ops/runbook.md"
    )
    assert (vault.root / "ops/runbook.md").read_bytes() == original
    assert "A long runbook" in memory.get_note("runbook")["text"]  # index refreshed


def test_undo_of_a_create_removes_the_new_note(memory, vault):
    before = snapshot(vault.root)
    created = memory.write_note("Fresh idea", "text", zone="ideas")
    assert (vault.root / created["path"]).exists()
    assert memory.undo(created["transaction_id"])["operation"] == "create"
    assert snapshot(vault.root) == before and not (vault.root / "ideas").exists()
    with pytest.raises(NoteNotFoundError):
        memory.get_note("fresh-idea")


def test_undo_of_a_write_refuses_a_later_edit_as_a_version_conflict(memory, vault):
    from birkin_mnemosyne.errors import UndoConflictError

    vault.write("log.md", "# Log\n\nfirst\n")
    appended = memory.write_note("log", "second", mode="append")
    later = (vault.root / "log.md").read_bytes() + b"by hand\n"
    (vault.root / "log.md").write_bytes(later)
    preview = memory.undo(appended["transaction_id"], confirm=False)
    assert preview["mode"] == "preview" and preview["undoable"] is False
    assert preview["changed_since"] == ["log.md"]
    with pytest.raises(VersionConflictError) as caught:
        memory.undo(appended["transaction_id"])
    assert isinstance(caught.value, UndoConflictError) and isinstance(caught.value, JournalError)
    assert caught.value.current_versions == {"log.md": hashlib.sha256(later).hexdigest()}
    assert "log.md changed since it was applied" in str(caught.value)
    assert (vault.root / "log.md").read_bytes() == later


def test_undo_last_picks_by_kind_and_checks_its_arguments(memory, vault):
    vault.write("a.md", "# A\n")
    moved = memory.rezone("a", "attic")
    written = memory.write_note("Note b", "b")
    preview = memory.undo(last=True, confirm=False)
    assert preview["transaction_id"] == written["transaction_id"]
    assert (vault.root / "note-b.md").exists()  # a preview changes nothing
    assert memory.undo(kind="move")["transaction_id"] == moved["transaction_id"]
    with pytest.raises(InvalidInputError, match="not of kind 'move'"):
        memory.undo(written["transaction_id"], kind="move")
    with pytest.raises(InvalidInputError, match="not both or neither"):
        memory.undo()
    with pytest.raises(InvalidInputError, match="kind must be"):
        memory.undo(last=True, kind="Write!")
    memory.undo(last=True)
    with pytest.raises(NoteNotFoundError, match="nothing to undo"):
        memory.undo(last=True, kind="write")


# --- state folders linked out of the vault ------------------------------------------------


def _link(link: Path, target: Path) -> None:
    link.parent.mkdir(parents=True, exist_ok=True)
    try:
        link.symlink_to(target, target_is_directory=True)
    except OSError:
        pytest.skip("symlinks are not available here")


@pytest.mark.parametrize("linked", [".mnemosyne", ".mnemosyne/state"])
def test_usage_state_is_never_written_through_a_linked_folder(vault, tmp_path, linked):
    vault.write("a.md", "# A\n\nalpha\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    _link(vault.root / linked, outside)
    memory = VaultMemory(vault.root, clock=lambda: T0, recover=False)
    with pytest.raises(InvalidPathError, match="symbolic link"):
        memory.record_access("a")
    assert not list(outside.rglob("usage.json"))
    assert memory.search("alpha")[0]["path"] == "a.md"  # reads still work, without usage


@pytest.mark.parametrize("linked", [".mnemosyne", ".mnemosyne/journal"])
def test_the_journal_is_never_written_through_a_linked_folder(vault, tmp_path, linked):
    vault.write("a.md", "# A\n\nalpha\n")
    outside = tmp_path / "outside"
    (outside / "journal").mkdir(parents=True)
    _link(vault.root / linked, outside if linked == ".mnemosyne" else outside / "journal")
    (outside / "journal" / "20260302T101530Z-3fa9c1.json").write_text("torn", encoding="utf-8")
    memory = VaultMemory(vault.root, clock=lambda: T0)
    assert [r["state"] for r in memory.recovered] == ["refused"]
    assert "symbolic link" in memory.recovered[0]["problems"][0]
    before = sorted(p.name for p in outside.rglob("*"))
    with pytest.raises(InvalidPathError, match="symbolic link"):
        memory.write_note("b", "beta")
    with pytest.raises(InvalidPathError, match="symbolic link"):
        memory.rezone("a", "attic")
    assert sorted(p.name for p in outside.rglob("*")) == before  # nothing renamed or added
    assert snapshot(vault.root) == {"a.md": b"# A\n\nalpha\n"}


@pytest.mark.parametrize("linked", [".mnemosyne/handoffs", ".mnemosyne/memory-index"])
def test_session_state_is_never_written_through_a_linked_folder(vault, tmp_path, linked):
    from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore
    from birkin_mnemosyne.memory_index import MemoryIndex

    vault.write("a.md", "# A\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    _link(vault.root / linked, outside)
    with pytest.raises(InvalidPathError, match="symbolic link"):
        if linked.endswith("handoffs"):
            HandoffStore(vault.root).capture(HandoffScope("atlas"), {"work_done": "x"})
        else:
            MemoryIndex(vault.root).register("anything about a", "a.md")
    assert list(outside.iterdir()) == []


def test_an_absolute_zone_is_refused_not_made_relative(memory, vault):
    with pytest.raises(InvalidPathError, match="absolute"):
        memory.write_note("Passwd", "x", zone="/etc")
    vault.write("a.md", "# A\n")
    with pytest.raises(InvalidPathError, match="write 'etc' for the vault folder etc/"):
        memory.rezone("a", "/etc")
    assert not (vault.root / "etc").exists()
