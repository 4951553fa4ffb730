"""The undo journal: byte-exact apply and undo, refusals, crash recovery, listing."""

from __future__ import annotations

import base64
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from birkin_mnemosyne import journal as journal_module
from birkin_mnemosyne.errors import InvalidInputError, InvalidPathError, JournalError
from birkin_mnemosyne.journal import FORMAT, FileChange, Journal
from birkin_mnemosyne.vault_lock import VaultLock

CRLF_NOTE = b"---\r\ntitle: Windows\r\n---\r\nline one\r\nline two\r\n"
BINARY = bytes(range(256)) * 3
UNICODE_NOTE = "# Café ☕\n\nnaïve — 日本語\n".encode()


class Clock:
    """A clock that moves one second (plus a little) per reading."""

    def __init__(self, start: datetime, step: timedelta = timedelta(seconds=1)) -> None:
        self.moment = start
        self.step = step

    def __call__(self) -> datetime:
        moment = self.moment
        self.moment += self.step
        return moment


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "my vault"
    files = {
        "inbox/crlf.md": CRLF_NOTE,
        "assets/blob.bin": BINARY,
        "Ünïcode folder/old name.md": UNICODE_NOTE,
        "keep.md": b"stays\n",
    }
    for relative, data in files.items():
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return folder


@pytest.fixture
def journal(vault: Path) -> Journal:
    return Journal(vault, clock=Clock(datetime(2026, 3, 2, 10, 15, 30, tzinfo=timezone.utc)))


def snapshot(vault: Path) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) of the vault outside .mnemosyne."""
    tree: dict[str, bytes | None] = {}
    for item in sorted(vault.rglob("*")):
        relative = item.relative_to(vault).as_posix()
        if relative.split("/")[0] == ".mnemosyne":
            continue
        tree[relative] = None if item.is_dir() else item.read_bytes()
    return tree


def entry_file(vault: Path, transaction_id: str) -> Path:
    return vault / ".mnemosyne" / "journal" / f"{transaction_id}.json"


def mixed_changes() -> list[FileChange]:
    """A move into a new spaced folder, a CRLF edit, a binary edit and a create."""
    return [
        FileChange("Ünïcode folder/old name.md", UNICODE_NOTE, None),
        FileChange("other folder/new name.md", None, UNICODE_NOTE),
        FileChange("inbox/crlf.md", CRLF_NOTE, CRLF_NOTE.replace(b"two", b"2")),
        FileChange("assets/blob.bin", BINARY, BINARY[::-1]),
        FileChange("new/deep/folder/created.md", None, b"fresh\r\n\x00\xff"),
    ]


def test_apply_then_undo_is_byte_exact(vault: Path, journal: Journal) -> None:
    original = snapshot(vault)
    result = journal.transaction("rezone", mixed_changes(), meta={"reason": "test"})

    assert result["state"] == "committed"
    assert result["operation"] == "rezone"
    assert result["paths"] == [change.path for change in mixed_changes()]
    assert result["transaction_id"].startswith("20260302T101530Z-")
    applied = snapshot(vault)
    assert "Ünïcode folder/old name.md" not in applied
    assert "Ünïcode folder" not in applied  # emptied folder removed
    assert applied["other folder/new name.md"] == UNICODE_NOTE
    assert applied["inbox/crlf.md"] == CRLF_NOTE.replace(b"two", b"2")
    assert applied["assets/blob.bin"] == BINARY[::-1]
    assert applied["new/deep/folder/created.md"] == b"fresh\r\n\x00\xff"

    undone = journal.undo(result["transaction_id"])
    assert undone == {
        "transaction_id": result["transaction_id"],
        "state": "undone",
        "paths": result["paths"],
    }
    assert snapshot(vault) == original  # same bytes, same files, same folders
    assert journal.get(result["transaction_id"])["state"] == "undone"


def test_entry_file_format(vault: Path, journal: Journal) -> None:
    result = journal.transaction("archive", mixed_changes()[:2], meta={"plan_id": "p1"})
    entry = json.loads(entry_file(vault, result["transaction_id"]).read_text("utf-8"))
    assert entry["format"] == FORMAT
    assert entry["state"] == "committed"
    assert entry["meta"] == {"plan_id": "p1"}
    assert [step["state"] for step in entry["history"]] == ["prepared", "committed"]
    moved_from, moved_to = entry["changes"]
    assert moved_from["after"] is None and moved_from["after_sha256"] is None
    assert base64.b64decode(moved_from["before"]) == UNICODE_NOTE
    assert moved_to["before"] is None
    assert len(moved_to["after_sha256"]) == 64
    details = journal.get(result["transaction_id"])
    assert [change["action"] for change in details["changes"]] == ["delete", "create"]


def test_undo_refused_when_a_file_changed_since(vault: Path, journal: Journal) -> None:
    result = journal.transaction("rezone", mixed_changes())
    (vault / "inbox/crlf.md").write_bytes(b"edited by someone else\n")
    (vault / "new/deep/folder/created.md").unlink()
    before_refusal = snapshot(vault)

    with pytest.raises(JournalError) as caught:
        journal.undo(result["transaction_id"])
    assert "inbox/crlf.md" in str(caught.value)
    assert "new/deep/folder/created.md" in str(caught.value)
    assert "assets/blob.bin" not in str(caught.value)
    assert snapshot(vault) == before_refusal  # the refused undo touched nothing
    assert journal.get(result["transaction_id"])["state"] == "committed"


def test_double_undo_refused(journal: Journal) -> None:
    result = journal.transaction("archive", mixed_changes()[:2])
    journal.undo(result["transaction_id"])
    with pytest.raises(JournalError, match="already undone"):
        journal.undo(result["transaction_id"])


def test_before_mismatch_refused_with_nothing_written(vault: Path, journal: Journal) -> None:
    original = snapshot(vault)
    changes = mixed_changes()
    changes[2] = FileChange("inbox/crlf.md", b"what the plan saw\n", b"new\n")
    changes.append(FileChange("keep.md", None, b"plan thought this was absent\n"))
    with pytest.raises(JournalError) as caught:
        journal.transaction("rezone", changes)
    assert str(caught.value) == (
        "inbox/crlf.md, keep.md changed since the plan was made — re-run the preview"
    )
    assert snapshot(vault) == original
    assert journal.list() == []


def test_transaction_inside_a_held_vault_lock(vault: Path, journal: Journal) -> None:
    with VaultLock(vault, timeout=0):
        result = journal.transaction("label", [FileChange("keep.md", b"stays\n", b"labelled\n")])
        journal.undo(result["transaction_id"])
    assert (vault / "keep.md").read_bytes() == b"stays\n"


def test_failure_while_applying_rolls_back_at_once(
    vault: Path, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = snapshot(vault)
    real_write = journal_module.atomic_write_bytes
    vault_writes = []

    def failing_write(path, data, **kwargs):
        if ".mnemosyne" not in Path(path).parts:
            vault_writes.append(path)
            if len(vault_writes) == 3:
                raise OSError("disk full")
        return real_write(path, data, **kwargs)

    monkeypatch.setattr(journal_module, "atomic_write_bytes", failing_write)
    with pytest.raises(OSError, match="disk full"):
        journal.transaction("rezone", mixed_changes())
    monkeypatch.setattr(journal_module, "atomic_write_bytes", real_write)
    assert snapshot(vault) == original
    [row] = journal.list()
    assert row["state"] == "rolled_back"
    assert journal.recover() == []
    with pytest.raises(JournalError, match="rolled back"):
        journal.undo(row["transaction_id"])


def crash_part_way(vault: Path, journal: Journal, changes: list[FileChange], applied: int) -> str:
    """Write a prepared entry and apply only the first ``applied`` changes, as a crash would."""
    entry = journal._prepare("rezone", changes, {})
    for change in changes[:applied]:
        journal._put(change.path, change.after)
    return entry["transaction_id"]


def test_recover_rolls_back_a_prepared_entry(vault: Path, journal: Journal) -> None:
    original = snapshot(vault)
    changes = mixed_changes()
    transaction_id = crash_part_way(vault, journal, changes, applied=3)
    assert snapshot(vault) != original

    [report] = journal.recover()
    assert report["transaction_id"] == transaction_id
    assert report["state"] == "rolled_back"
    assert report["problems"] == []
    assert report["restored"] == [change.path for change in changes[:3]]
    assert snapshot(vault) == original
    assert journal.get(transaction_id)["state"] == "rolled_back"
    assert journal.recover() == []  # nothing left to do


def test_recover_leaves_a_file_someone_else_changed(vault: Path, journal: Journal) -> None:
    transaction_id = crash_part_way(vault, journal, mixed_changes(), applied=3)
    (vault / "inbox/crlf.md").write_bytes(b"edited after the crash\n")

    [report] = journal.recover()
    assert report["state"] == "recovery_failed"
    assert len(report["problems"]) == 1 and "inbox/crlf.md" in report["problems"][0]
    assert (vault / "inbox/crlf.md").read_bytes() == b"edited after the crash\n"
    assert (vault / "Ünïcode folder/old name.md").read_bytes() == UNICODE_NOTE  # moved back
    assert not (vault / "other folder").exists()
    details = journal.get(transaction_id)
    assert details["state"] == "recovery_failed" and details["problems"] == report["problems"]
    with pytest.raises(JournalError, match="inbox/crlf.md"):
        journal.undo(transaction_id)


def test_recover_finishes_an_interrupted_undo(vault: Path, journal: Journal) -> None:
    original = snapshot(vault)
    changes = mixed_changes()
    result = journal.transaction("rezone", changes)
    entry = journal._load(result["transaction_id"])
    journal._set_state(entry, "undoing")
    journal._put(changes[-1].path, changes[-1].before)  # the undo got this far

    [report] = journal.recover()
    assert report["state"] == "undone" and report["problems"] == []
    assert snapshot(vault) == original


def test_corrupt_entry_is_moved_aside(vault: Path, journal: Journal) -> None:
    kept = journal.transaction("archive", mixed_changes()[:2])["transaction_id"]
    folder = vault / ".mnemosyne" / "journal"
    torn = b'{"format": "mnemosyne-journal/1", "transaction_id": "20260301T000000Z-abc'
    (folder / "20260301T000000Z-abcdef.json").write_bytes(torn)
    assert {row["state"] for row in journal.list()} == {"committed", "corrupt"}

    [report] = journal.recover()
    assert report["state"] == "corrupt"
    assert report["moved_to"] == ".mnemosyne/journal/20260301T000000Z-abcdef.json.corrupt"
    assert (folder / "20260301T000000Z-abcdef.json.corrupt").read_bytes() == torn
    assert not (folder / "20260301T000000Z-abcdef.json").exists()
    assert [row["transaction_id"] for row in journal.list()] == [kept]


def test_tampered_image_is_refused(vault: Path, journal: Journal) -> None:
    result = journal.transaction("rezone", mixed_changes())
    file = entry_file(vault, result["transaction_id"])
    entry = json.loads(file.read_text("utf-8"))
    entry["changes"][2]["before"] = base64.b64encode(b"not what was there\n").decode()
    file.write_text(json.dumps(entry), "utf-8")
    applied = snapshot(vault)
    with pytest.raises(JournalError, match="sha256"):
        journal.undo(result["transaction_id"])
    assert snapshot(vault) == applied


def test_list_newest_first(vault: Path) -> None:
    start = datetime(2026, 3, 2, 10, 15, 30, tzinfo=timezone.utc)
    journal = Journal(vault, clock=Clock(start, step=timedelta(milliseconds=100)))
    ids = []
    for number in range(4):  # several land in the same second: microseconds order them
        change = FileChange(f"made/{number}.md", None, b"x")
        ids.append(journal.transaction(f"op{number}", [change])["transaction_id"])
    rows = journal.list()
    assert [row["transaction_id"] for row in rows] == ids[::-1]
    assert [row["operation"] for row in rows] == ["op3", "op2", "op1", "op0"]
    assert rows[0]["paths"] == ["made/3.md"] and rows[0]["state"] == "committed"
    assert [row["transaction_id"] for row in journal.list(limit=2)] == ids[:1:-1]
    assert journal.list(limit=0) == []


@pytest.mark.parametrize("bad", ["", "../../etc/passwd", "a/b", "x.json", "id with space", 7])
def test_invalid_transaction_id_refused(journal: Journal, bad) -> None:
    with pytest.raises(InvalidInputError, match="invalid transaction id"):
        journal.undo(bad)
    with pytest.raises(InvalidInputError):
        journal.get(bad)


def test_unknown_transaction_id_lists_recent_ones(journal: Journal) -> None:
    with pytest.raises(JournalError, match="the journal is empty"):
        journal.get("20260101T000000Z-000000")
    known = journal.transaction("archive", mixed_changes()[:2])["transaction_id"]
    with pytest.raises(JournalError, match=f"recent ids: {known}"):
        journal.undo("20260101T000000Z-000000")


@pytest.mark.parametrize(
    "path",
    ["../outside.md", "/etc/passwd", "C:/x.md", "a//b.md", "a\\b.md", ".mnemosyne/journal/x.json"],
)
def test_unsafe_paths_refused(vault: Path, journal: Journal, path: str) -> None:
    with pytest.raises(InvalidPathError):
        journal.transaction("rezone", [FileChange(path, None, b"x")])
    assert not (vault / ".mnemosyne" / "journal").exists()


def test_bad_changes_refused(journal: Journal) -> None:
    with pytest.raises(InvalidInputError, match="twice"):
        journal.transaction("x", [FileChange("a.md", None, b"1"), FileChange("a.md", None, b"2")])
    with pytest.raises(InvalidInputError, match="bytes"):
        journal.transaction("x", [FileChange("a.md", None, "text")])
    with pytest.raises(InvalidInputError):
        journal.transaction("x", [])
