"""``VaultMemory.move``: a note to a new path or title, the wikilinks that would break
rewritten, previewed first, applied as one journaled transaction, undone byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from birkin_mnemosyne.errors import (
    InvalidInputError,
    InvalidPathError,
    NoteExistsError,
    UndoConflictError,
    VersionConflictError,
)
from birkin_mnemosyne.memory import VaultMemory

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
RESTORE = "---\ntitle: Restore the database\n---\n# Restore the database\n\n## Verify\n\nCounts.\n"
DB1 = (
    "# db1\n\n"
    "Runbook: [[restore-db]], [[ops/restore-db#Verify|verify it]], [[Restore the database]].\n"
    "Embedded: ![[restore-db]]\n"
    "```\n[[restore-db]] in a fence is not a link\n```\n"
)
INBOX = b"See [[restore-db]] and `[[restore-db]]`.\r\n"  # CRLF, and a code span


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mnemosyne" not in p.relative_to(root).parts
    }


@pytest.fixture
def notes(vault):
    vault.write("ops/restore-db.md", RESTORE)
    vault.write("hosts/db1.md", DB1)
    vault.write_bytes("inbox.md", INBOX)
    vault.write("ops/unrelated.md", "# Unrelated\n\n[[db1]] only.\n")
    return vault


@pytest.fixture
def memory(notes):
    with VaultMemory(notes.root, clock=lambda: T0) as memory:
        yield memory


def test_a_preview_lists_every_link_change_and_writes_nothing(memory, notes):
    original = snapshot(notes.root)
    preview = memory.move("restore-db", "runbooks/db-restore")
    assert snapshot(notes.root) == original
    assert preview["mode"] == "preview" and preview["operation"] == "move"
    assert len(preview["plan_id"]) == 16
    assert (preview["key"], preview["path"], preview["to"]) == (
        "restore-db",
        "ops/restore-db.md",
        "runbooks/db-restore.md",
    )
    assert preview["moves"] == [{"from": "ops/restore-db.md", "to": "runbooks/db-restore.md"}]
    assert preview["changes"] == [
        {
            "key": "db1",
            "path": "hosts/db1.md",
            "links": [
                {"line": 3, "from": "[[restore-db]]", "to": "[[db-restore]]"},
                {
                    "line": 3,
                    "from": "[[ops/restore-db#Verify|verify it]]",
                    "to": "[[runbooks/db-restore#Verify|verify it]]",
                },
                {"line": 4, "from": "![[restore-db]]", "to": "![[db-restore]]"},
            ],
        },
        {
            "key": "inbox",
            "path": "inbox.md",
            "links": [{"line": 1, "from": "[[restore-db]]", "to": "[[db-restore]]"}],
        },
    ]
    assert preview["warnings"] == []
    assert memory.move("restore-db", "runbooks/db-restore")["plan_id"] == preview["plan_id"]


def test_apply_moves_rewrites_linkers_and_one_undo_restores_every_byte(memory, notes):
    original = snapshot(notes.root)
    memory.record_access("restore-db", now=T0)
    preview = memory.move("restore-db", "runbooks/db-restore")
    done = memory.move(
        "restore-db", "runbooks/db-restore", confirm=True, plan_id=preview["plan_id"]
    )
    assert done["mode"] == "applied" and done["state"] == "committed"
    assert (done["key"], done["path"], done["previous_path"]) == (
        "db-restore",
        "runbooks/db-restore.md",
        "ops/restore-db.md",
    )
    assert sorted(done["paths"]) == [
        "hosts/db1.md",
        "inbox.md",
        "ops/restore-db.md",
        "runbooks/db-restore.md",
    ]
    root = notes.root
    assert not (root / "ops/restore-db.md").exists()
    assert (root / "runbooks/db-restore.md").read_text() == RESTORE  # moved byte-exact
    db1 = (root / "hosts/db1.md").read_text()
    assert db1 == DB1.replace("[[restore-db]],", "[[db-restore]],").replace(
        "[[ops/restore-db#", "[[runbooks/db-restore#"
    ).replace("![[restore-db]]", "![[db-restore]]")
    assert "[[restore-db]] in a fence" in db1
    assert (root / "inbox.md").read_bytes() == b"See [[db-restore]] and `[[restore-db]]`.\r\n"
    assert (root / "ops/unrelated.md").read_text() == "# Unrelated\n\n[[db1]] only.\n"
    assert memory.usage_of("db-restore")["accesses"] == 1
    assert [row["path"] for row in memory.related("db-restore")["backlinks"]] == [
        "hosts/db1.md",
        "inbox.md",
    ]

    undone = memory.undo(last=True, kind="move")
    assert undone["transaction_id"] == done["transaction_id"]
    assert (
        "ops/restore-db.md -> runbooks/db-restore.md and the links of 2 other notes"
        in (undone["description"])
    )
    assert snapshot(notes.root) == original
    assert memory.usage_of("restore-db")["accesses"] == 1
    assert memory.resolve("restore-db") == "ops/restore-db.md"


def test_a_new_title_renames_the_file_and_rewrites_title_links(memory, notes):
    preview = memory.move("restore-db", title="Database restore")
    assert preview["to"] == "ops/database-restore.md" and preview["title"] == "Database restore"
    done = memory.move("restore-db", title="Database restore", confirm=True)
    moved = (notes.root / "ops/database-restore.md").read_text()
    assert moved == RESTORE.replace("title: Restore the database", "title: Database restore")
    db1 = (notes.root / "hosts/db1.md").read_text()
    assert "[[database-restore]], [[ops/database-restore#Verify|verify it]]" in db1
    assert "[[Database restore]]" in db1
    memory.undo(done["transaction_id"])
    assert (notes.root / "hosts/db1.md").read_text() == DB1


def test_a_title_alone_keeps_the_path_when_the_name_is_the_same(memory, notes):
    notes.write("ops/plain.md", "# Plain\n\nx\n")
    done = memory.move("plain", title="plain", confirm=True)
    assert done["path"] == "ops/plain.md" and done["moves"] == []
    assert (notes.root / "ops/plain.md").read_text() == "---\ntitle: plain\n---\n# Plain\n\nx\n"
    with pytest.raises(InvalidInputError, match="already has the title"):
        memory.move("plain", title="plain")


def test_a_name_taken_by_another_note_keeps_its_links_pointing_there(memory, notes):
    notes.write("ops/web.md", "# web\n\nDepends on [[db1]].\n")
    preview = memory.move("web", "ops/db1")
    # Its own link would now name itself (same folder wins); it is made to keep naming hosts/db1.
    # So would the other note of that folder's: it is rewritten too.
    assert preview["changes"] == [
        {
            "key": "unrelated",
            "path": "ops/unrelated.md",
            "links": [{"line": 3, "from": "[[db1]]", "to": "[[hosts/db1]]"}],
        },
        {
            "key": "web",
            "path": "ops/web.md",
            "links": [{"line": 3, "from": "[[db1]]", "to": "[[hosts/db1]]"}],
        },
    ]
    memory.move("web", "ops/db1", confirm=True)
    backlinks = memory.related("hosts/db1")["backlinks"]
    assert [row["path"] for row in backlinks] == ["ops/db1.md", "ops/unrelated.md"]


@pytest.mark.parametrize(
    ("target", "error", "message"),
    [
        ("hosts/db1", NoteExistsError, "hosts/db1.md already exists"),
        ("HOSTS/DB1.md", NoteExistsError, "already exists"),
        ("../outside", InvalidPathError, "traversal"),
        ("/etc/passwd", InvalidPathError, "absolute"),
        ("_archive/restore-db", InvalidPathError, "reserved"),
        ("node_modules/x", InvalidPathError, "reserved"),
        (".mnemosyne/x", InvalidPathError, "hidden"),
        ("ops/restore-db", InvalidInputError, "already there"),
        ("ops/Restore-DB", InvalidInputError, "only in letter case"),
        ("ops/a#b", InvalidInputError, "a wikilink cannot name"),
    ],
)
def test_refused_targets_change_nothing(memory, notes, target, error, message):
    original = snapshot(notes.root)
    with pytest.raises(error, match=message):
        memory.move("restore-db", target, confirm=True)
    assert snapshot(notes.root) == original
    assert memory.journal(5)["transactions"] == []


def test_a_plan_whose_notes_changed_since_the_preview_is_refused(memory, notes):
    preview = memory.move("restore-db", "runbooks/db-restore")
    (notes.root / "inbox.md").write_bytes(INBOX + b"more [[restore-db]]\r\n")
    changed = snapshot(notes.root)
    with pytest.raises(VersionConflictError, match="changed since preview"):
        memory.move("restore-db", "runbooks/db-restore", confirm=True, plan_id=preview["plan_id"])
    assert snapshot(notes.root) == changed
    assert memory.journal(5)["transactions"] == []


def test_a_move_is_not_undone_over_a_later_edit_of_a_linker(memory, notes):
    done = memory.move("restore-db", "runbooks/db-restore", confirm=True)
    (notes.root / "inbox.md").write_text("rewritten by hand\n")
    with pytest.raises(UndoConflictError, match="inbox.md changed since"):
        memory.undo(done["transaction_id"])
    assert (notes.root / "runbooks/db-restore.md").exists()


def test_a_folder_target_keeps_the_file_name_and_nothing_given_is_refused(memory, notes):
    assert memory.move("restore-db", "runbooks/")["to"] == "runbooks/restore-db.md"
    with pytest.raises(InvalidInputError, match="give the new path"):
        memory.move("restore-db")


def test_superseded_by_follows_the_note_that_supersedes(memory, notes):
    # A note saying which note replaced it keeps naming that note after it moves, in the
    # form it used (wikilink or not, path or file name, ".md" or not). A YAML list is no
    # successor name (the ranking reads none from it) and is left alone.
    notes.write(
        "old/a.md",
        "---\nstatus: superseded\nsuperseded_by: '[[restore-db|the new one]]'\n---\n# A\n",
    )
    notes.write("old/b.md", "---\nsuperseded_by: ops/restore-db.md\n---\n# B\n\nbody [[db1]]\n")
    notes.write("old/c.md", "---\nsuperseded_by: [restore-db]\n---\n# C\n")
    notes.write("old/d.md", "---\nsuperseded_by: other-note\n---\n# D\n")
    original = snapshot(notes.root)
    preview = memory.move("restore-db", "runbooks/db-restore")
    frontmatter = {
        c["path"]: c["links"] for c in preview["changes"] if c["path"].startswith("old/")
    }
    assert frontmatter == {
        "old/a.md": [
            {
                "line": 3,
                "from": "superseded_by: [[restore-db|the new one]]",
                "to": "superseded_by: [[db-restore|the new one]]",
            }
        ],
        "old/b.md": [
            {
                "line": 2,
                "from": "superseded_by: ops/restore-db.md",
                "to": "superseded_by: runbooks/db-restore.md",
            }
        ],
    }
    assert preview["warnings"] == []
    memory.move("restore-db", "runbooks/db-restore", confirm=True, plan_id=preview["plan_id"])
    root = notes.root
    assert 'superseded_by: "[[db-restore|the new one]]"' in (root / "old/a.md").read_text()
    assert (root / "old/b.md").read_text() == (
        "---\nsuperseded_by: runbooks/db-restore.md\n---\n# B\n\nbody [[db1]]\n"
    )
    assert (root / "old/c.md").read_text() == "---\nsuperseded_by: [restore-db]\n---\n# C\n"
    assert (root / "old/d.md").read_text() == "---\nsuperseded_by: other-note\n---\n# D\n"
    memory.undo(last=True, kind="move")
    assert snapshot(notes.root) == original
