"""``VaultMemory.edit_note``: prepend, find-replace and section replacement through the
same safe write path as ``write_note`` — locked, conditional, journaled, undone byte for
byte."""

from __future__ import annotations

import hashlib

import pytest

from birkin_mnemosyne.errors import (
    AmbiguousSectionError,
    InvalidInputError,
    MatchCountError,
    SectionNotFoundError,
    UndoConflictError,
    VersionConflictError,
    WriteRefusedError,
)
from birkin_mnemosyne.memory import EDIT_OPERATIONS, VaultMemory

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
WRITE_KEYS = {
    "key",
    "path",
    "version",
    "created",
    "mode",
    "transaction_id",
    "near_duplicates",
    "warnings",
}
# CRLF, a byte-order mark and a comment in the frontmatter: all must survive an edit and
# come back exactly on undo.
RUNBOOK = (
    b"\xef\xbb\xbf---\r\n"
    b"title: Restore\r\n"
    b"# keep this comment\r\n"
    b"updated: 2026-01-01T00:00:00Z\r\n"
    b"---\r\n"
    b"\r\n"
    b"# Restore\r\n"
    b"\r\n"
    b"## Prepare\r\n"
    b"\r\n"
    b"Stop the API. Stop the workers.\r\n"
    b"\r\n"
    b"## Verify\r\n"
    b"\r\n"
    b"Check the row counts.\r\n"
)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def memory(vault):
    vault.write_bytes("ops/restore.md", RUNBOOK)
    with VaultMemory(vault.root, clock=lambda: T0) as memory:
        yield memory


def read(vault) -> bytes:
    return (vault.root / "ops/restore.md").read_bytes()


def version(memory) -> str:
    return memory.get_note("restore")["version"]


EDITS = [
    ("prepend", "TL;DR: use the nightly dump.", {}),
    ("find_replace", "Stop the API.", {"find": "Stop the API. Stop the workers."}),
    ("replace_section", "Compare counts with yesterday.", {"section": "verify"}),
]


@pytest.mark.parametrize(("operation", "content", "options"), EDITS)
def test_each_edit_is_one_journaled_write_undone_byte_exact(
    memory, vault, operation, content, options
):
    result = memory.edit_note(
        "restore", operation, content, expected_version=version(memory), **options
    )
    assert set(result) == WRITE_KEYS
    assert result["mode"] == operation and result["created"] is False
    after = read(vault)
    assert result["version"] == sha(after) and after != RUNBOOK
    assert content.encode() in after
    assert after.startswith(b"\xef\xbb\xbf---\r\ntitle: Restore\r\n# keep this comment\r\n")
    assert b"updated: 2026-03-02T10:00:00Z\r\n" in after
    assert b"\n" not in after.replace(b"\r\n", b"")  # CRLF stays CRLF
    hits = memory.search(content, 5, exact=True)  # the index saw the edit
    assert [hit["path"] for hit in hits] == ["ops/restore.md"]
    entry = memory.journal(1)["transactions"][0]
    assert entry["transaction_id"] == result["transaction_id"]
    assert entry["operation"] == "edit" and entry["paths"] == ["ops/restore.md"]
    undone = memory.undo(last=True, kind="edit")
    assert undone["description"].startswith(f"edit ({operation}) of ops/restore.md")
    assert read(vault) == RUNBOOK


def test_prepend_lands_after_the_frontmatter(memory, vault):
    memory.edit_note("restore", "prepend", "First line.\n")
    text = read(vault).decode("utf-8-sig")
    assert text.split("---\r\n", 2)[2].startswith("\r\nFirst line.\r\n\r\n# Restore\r\n")


def test_replace_section_keeps_the_other_sections(memory, vault):
    memory.edit_note(
        "restore",
        "replace_section",
        "Just restart it.",
        section="## Prepare",
        expected_version=version(memory),
    )
    text = read(vault).decode("utf-8-sig")
    assert (
        "## Prepare\r\n\r\nJust restart it.\r\n\r\n## Verify\r\n\r\nCheck the row counts." in text
    )
    assert "Stop the workers" not in text


@pytest.mark.parametrize(("operation", "content", "options"), EDITS)
def test_a_stale_expected_version_is_a_conflict_and_writes_nothing(
    memory, vault, operation, content, options
):
    seen = version(memory)
    edited = RUNBOOK + b"\r\nedited by hand\r\n"
    (vault.root / "ops/restore.md").write_bytes(edited)
    with pytest.raises(VersionConflictError) as caught:
        memory.edit_note("restore", operation, content, expected_version=seen, **options)
    assert caught.value.current_version == sha(edited)
    assert "changed since you read it" in str(caught.value)
    assert read(vault) == edited
    assert memory.journal(5)["transactions"] == []


def test_replace_section_needs_a_version_and_prepend_does_not(memory, vault):
    with pytest.raises(InvalidInputError, match="replace_section needs expected_version"):
        memory.edit_note("restore", "replace_section", "x", section="Verify")
    assert read(vault) == RUNBOOK
    memory.edit_note("restore", "prepend", "x")


def test_a_wrong_match_count_is_refused_with_both_counts(memory, vault):
    with pytest.raises(MatchCountError) as caught:
        memory.edit_note("restore", "find_replace", "Halt", find="Stop")
    assert (caught.value.found, caught.value.expected) == (2, 1)
    assert "in ops/restore.md: found 2 matches of the text, expected 1" in str(caught.value)
    with pytest.raises(MatchCountError, match="found 0 matches"):
        memory.edit_note("restore", "find_replace", "x", find="Start")
    assert read(vault) == RUNBOOK
    assert memory.journal(5)["transactions"] == []
    done = memory.edit_note("restore", "find_replace", "Halt", find="Stop", expected_count=2)
    assert read(vault).count(b"Halt") == 2 and b"Stop" not in read(vault)
    memory.undo(done["transaction_id"])
    assert read(vault) == RUNBOOK


def test_missing_and_ambiguous_headings_are_refused(memory, vault):
    current = version(memory)
    with pytest.raises(SectionNotFoundError) as caught:
        memory.edit_note(
            "restore", "replace_section", "x", section="Rollback", expected_version=current
        )
    assert caught.value.candidates == ["Restore", "Prepare", "Verify"]
    assert "headings: 'Restore', 'Prepare', 'Verify'" in str(caught.value)
    vault.write("ops/twice.md", "## Notes\n\na\n\n## notes\n\nb\n")
    with pytest.raises(AmbiguousSectionError) as caught:
        memory.edit_note(
            "twice",
            "replace_section",
            "x",
            section="Notes",
            expected_version=version_of(memory, "twice"),
        )
    assert caught.value.candidates == ["## Notes (line 1)", "## notes (line 5)"]
    assert read(vault) == RUNBOOK
    assert memory.journal(5)["transactions"] == []


def version_of(memory, key: str) -> str:
    return memory.get_note(key)["version"]


def test_arguments_belong_to_their_operation(memory):
    assert EDIT_OPERATIONS == ("append", "prepend", "find_replace", "replace_section", "replace")
    with pytest.raises(InvalidInputError, match="operation must be one of append, prepend"):
        memory.edit_note("restore", "insert", "x")
    with pytest.raises(InvalidInputError, match=r"find_replace needs find \(the exact text"):
        memory.edit_note("restore", "find_replace", "x")
    with pytest.raises(InvalidInputError, match="find is only for find_replace, not prepend"):
        memory.edit_note("restore", "prepend", "x", find="y")
    with pytest.raises(InvalidInputError, match="section is only for replace_section, not prepend"):
        memory.edit_note("restore", "prepend", "x", section="Verify")
    with pytest.raises(InvalidInputError, match="expected_count must be a whole number >= 1"):
        memory.edit_note("restore", "find_replace", "x", find="Stop", expected_count=0)
    with pytest.raises(InvalidInputError, match="expected_count is only for find_replace"):
        memory.edit_note("restore", "prepend", "x", expected_count=2)


def test_append_and_replace_are_write_notes_modes(memory, vault):
    appended = memory.edit_note("restore", "append", "Done on staging.", now=T0)
    assert appended["mode"] == "append"
    assert b"## 2026-03-02\r\n\r\nDone on staging.\r\n" in read(vault)
    assert memory.journal(1)["transactions"][0]["operation"] == "append"
    with pytest.raises(InvalidInputError, match="replace needs expected_version"):
        memory.edit_note("restore", "replace", "new body")
    memory.undo(last=True, kind="write")
    assert read(vault) == RUNBOOK


def test_evidence_and_redaction_marks_are_handled_as_writes_handle_them(vault):
    secret = "ghp_" + "A1b2" * 9
    vault.write("creds.md", f"---\ntitle: Creds\n---\ndeploy token {secret}\n")
    with VaultMemory(vault.root, clock=lambda: T0, evidence_required=True) as memory:
        with pytest.raises(WriteRefusedError, match="requires evidence"):
            memory.edit_note("creds", "prepend", "Rotate monthly.")
        done = memory.edit_note("creds", "prepend", "Rotate monthly.", source="ticket 9")
        assert done["warnings"] == []
        text = (vault.root / "creds.md").read_text()
        assert "sources:\n  - ticket 9\n" in text and secret in text
        shown = memory.get_note("creds")["text"]
        assert secret not in shown
        mark = shown.split("deploy token ", 1)[1].strip()
        with pytest.raises(MatchCountError, match=r"\[REDACTED\] mark"):
            memory.edit_note("creds", "find_replace", "x", find=f"token {mark}", source="t")
        assert secret in (vault.root / "creds.md").read_text()
        flagged = memory.edit_note(
            "creds", "find_replace", f"old token {mark}", find="Rotate monthly.", source="t"
        )
        assert "REDACTED" in flagged["warnings"][0]


def test_an_edit_is_not_undone_over_a_later_change(memory, vault):
    done = memory.edit_note("restore", "prepend", "x")
    edited = read(vault) + b"later\r\n"
    (vault.root / "ops/restore.md").write_bytes(edited)
    with pytest.raises(UndoConflictError):
        memory.undo(done["transaction_id"])
    assert read(vault) == edited


def test_a_note_that_is_not_utf8_is_refused(memory, vault):
    vault.write_bytes("latin.md", b"caf\xe9\n")
    with pytest.raises(WriteRefusedError, match="not valid UTF-8"):
        memory.edit_note("latin", "prepend", "x")
    assert (vault.root / "latin.md").read_bytes() == b"caf\xe9\n"


def test_an_empty_replacement_deletes_the_match_or_clears_the_section(memory, vault):
    memory.edit_note("restore", "find_replace", "", find=" Stop the workers.", now=T0)
    text = (vault.root / "ops/restore.md").read_bytes().decode("utf-8-sig")
    assert "Stop the API.\r\n" in text and "workers" not in text
    version = memory.get_note("restore")["version"]
    memory.edit_note(
        "restore", "replace_section", "", section="Prepare", expected_version=version, now=T0
    )
    text = (vault.root / "ops/restore.md").read_bytes().decode("utf-8-sig")
    assert "## Prepare" in text and "Stop the API" not in text and "Check the row counts" in text
    # Prepending nothing is no edit at all.
    with pytest.raises(InvalidInputError, match="empty"):
        memory.edit_note("restore", "prepend", "  ", now=T0)
    # and both deletions undo byte for byte
    memory.undo(kind="edit")
    memory.undo(kind="edit")
    assert (vault.root / "ops/restore.md").read_bytes() == RUNBOOK
