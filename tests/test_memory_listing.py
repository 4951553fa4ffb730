"""Listing past the first page: ``list_notes`` since/until and without a cap,
``get_notes`` of several keys, and ``recent`` (notes by their last change)."""

from __future__ import annotations

import os

import pytest

from birkin_mnemosyne.errors import InvalidInputError
from birkin_mnemosyne.memory import VaultMemory

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
HOUR = 3600


@pytest.fixture
def dated(vault):
    """Three notes dated in frontmatter and two known only by their file time."""
    vault.write("a.md", "---\nupdated: 2026-03-01T23:59:00Z\n---\nfirst of March's eve\n")
    vault.write("b.md", "---\ndate: 2026-03-02\n---\nthe day itself\n")
    vault.write("c.md", "---\nupdated: 2026-03-03\ndate: 2026-01-01\n---\nthe day after\n")
    vault.write("d.md", "file time 08:00\n")
    vault.write("e.md", "file time 12:00\n")
    for name in ("a", "b", "c"):  # a file time breaks a tie between notes of one day
        os.utime(vault.root / f"{name}.md", (T0, T0))
    os.utime(vault.root / "d.md", (T0 - 2 * HOUR, T0 - 2 * HOUR))  # 2026-03-02T08:00Z
    os.utime(vault.root / "e.md", (T0 + 2 * HOUR, T0 + 2 * HOUR))  # 2026-03-02T12:00Z
    return vault


@pytest.fixture
def memory(dated):
    with VaultMemory(dated.root, clock=lambda: T0) as memory:
        yield memory


def paths(listing) -> list[str]:
    return [row["path"] for row in listing["notes"]]


@pytest.mark.parametrize(
    ("since", "until", "expected"),
    [
        ("2026-03-02", None, ["c.md", "e.md", "b.md", "d.md"]),
        (None, "2026-03-01", ["a.md"]),
        ("2026-03-02", "2026-03-02", ["e.md", "b.md", "d.md"]),
        # a dated note counts as its whole day; a file time is a moment
        ("2026-03-02T10:00", "2026-03-02T12:00:00Z", ["e.md", "b.md"]),
        ("2026-03-02T08:00:00Z", "2026-03-02T08:00:00Z", ["b.md", "d.md"]),
        ("2026-03-02T08:00:01Z", "2026-03-02T11:59:59Z", ["b.md"]),
        # by the injected clock (10:00): since 07:00 keeps d (08:00), since 09:00 does not
        ("3h", None, ["c.md", "e.md", "b.md", "d.md"]),
        ("1h", None, ["c.md", "e.md", "b.md"]),
    ],
)
def test_since_and_until_bound_the_time_list_orders_by(memory, since, until, expected):
    listing = memory.list_notes(since=since, until=until)
    assert paths(listing) == expected and listing["total"] == len(expected)


def test_relative_bounds_count_back_from_now(memory):
    assert paths(memory.list_notes(since="1h", now=T0 + 3 * HOUR)) == ["c.md", "e.md", "b.md"]
    assert paths(memory.list_notes(since="1h", now=T0 + 30 * HOUR)) == ["c.md"]


def test_bad_bounds_are_refused(memory):
    with pytest.raises(InvalidInputError, match="since must be a date"):
        memory.list_notes(since="last tuesday")
    with pytest.raises(InvalidInputError, match="swap them"):
        memory.list_notes(since="2026-03-03", until="2026-03-01")


def test_limit_none_lists_every_note_past_the_cap(vault):
    for i in range(205):
        vault.write(f"n/{i:03d}.md", f"note {i}: ECONNREFUSED\n")
    with VaultMemory(vault.root, clock=lambda: T0) as memory:
        with pytest.raises(InvalidInputError, match="at most 200"):
            memory.list_notes(limit=201)
        capped = memory.list_notes(limit=200)
        assert len(capped["notes"]) == 200 and capped["total"] == 205
        every = memory.list_notes(limit=None)
        assert len(every["notes"]) == 205 and every["limit"] is None
        assert paths(every)[:200] == paths(capped)
        with pytest.raises(InvalidInputError, match="page 1"):
            memory.list_notes(limit=None, page=2)
        # An exact search can return every note holding a literal, too; a ranked one not.
        hits = memory.search("ECONNREFUSED", None, exact=True)
        assert len(hits) == 205
        assert len(memory.search("ECONNREFUSED", 200, exact=True)) == 200
        with pytest.raises(InvalidInputError, match="limit=None .* is for exact=True"):
            memory.search("ECONNREFUSED", None)


def test_get_notes_reads_several_and_reports_the_missing(memory):
    result = memory.get_notes(["b", "a.md", "nope", "B", "e"], max_chars=5)
    assert [note["path"] for note in result["notes"]] == ["b.md", "a.md", "e.md"]
    assert all(note["returned_chars"] <= 5 for note in result["notes"])
    assert result["notes"][0] == memory.get_note("b", max_chars=5)
    [missing] = result["errors"]
    assert missing["key"] == "nope" and missing["error_type"] == "NoteNotFoundError"
    assert missing["message"] == "no note 'nope'"
    sections = memory.get_notes(["a", "b"], section="Nowhere")
    assert sections["notes"] == []
    assert [e["error_type"] for e in sections["errors"]] == ["NoteNotFoundError"] * 2
    with pytest.raises(InvalidInputError, match="a list of note keys"):
        memory.get_notes("a")
    with pytest.raises(InvalidInputError, match="at most 50"):
        memory.get_notes([f"k{i}" for i in range(51)])
    with pytest.raises(InvalidInputError, match="at least one"):
        memory.get_notes([])


# -- recent -------------------------------------------------------------------------------


def test_recent_says_what_changed_from_the_journal_and_file_times(vault):
    vault.write("old.md", "hand written long ago\n")
    os.utime(vault.root / "old.md", (T0 - 100 * HOUR, T0 - 100 * HOUR))
    vault.write("ops/runbook.md", "# Runbook\n\nSteps.\n")
    with VaultMemory(vault.root, clock=lambda: T0) as memory:
        created = memory.write_note("Fresh idea", "to try", zone="inbox")
        edited = memory.edit_note("runbook", "prepend", "Read me first.")
        archived = memory.forget("fresh-idea", confirm=True)
        memory.write_note("Second", "two")
        (vault.root / "second.md").write_text("changed by an editor\n")  # after its journal entry
        os.utime(vault.root / "second.md", (T0 + 10**6, T0 + 10**6))
        result = memory.recent(10)
        rows = {row["path"]: row for row in result["changes"]}
        assert result["total"] == 4 and result["limit"] == 10
        assert [row["path"] for row in result["changes"]][0] == "second.md"  # newest first
        assert rows["second.md"]["change"] == "modified"
        assert rows["second.md"]["source"] == "file" and rows["second.md"]["transaction_id"] is None
        archive_row = rows["_archive/inbox/fresh-idea.md"]
        assert archive_row["change"] == "archived" and archive_row["source"] == "journal"
        assert archive_row["previous_path"] == "inbox/fresh-idea.md"
        assert archive_row["transaction_id"] == archived["transaction_id"]
        assert "inbox/fresh-idea.md" not in rows  # its newest change moved it away
        runbook = rows["ops/runbook.md"]
        assert (runbook["change"], runbook["operation"]) == ("edited", "edit")
        assert runbook["transaction_id"] == edited["transaction_id"]
        assert rows["old.md"]["change"] == "modified"
        assert rows["old.md"]["at"] == "2026-02-26T06:00:00Z"
        assert created["transaction_id"] not in {row["transaction_id"] for row in rows.values()}

        memory.undo(edited["transaction_id"])  # the edit is gone: the file time is its change
        assert memory.recent(10)["changes"][-1]["path"] == "old.md"
        after_undo = {row["path"]: row for row in memory.recent(10)["changes"]}
        assert after_undo["ops/runbook.md"]["source"] == "file"


def test_recent_bounds_and_limit(vault):
    for name, hours in (("a", -50), ("b", -30), ("c", -10)):
        vault.write(f"{name}.md", name + "\n")
        os.utime(vault.root / f"{name}.md", (T0 + hours * HOUR, T0 + hours * HOUR))
    with VaultMemory(vault.root, clock=lambda: T0) as memory:
        assert [r["path"] for r in memory.recent(since="2d")["changes"]] == ["c.md", "b.md"]
        assert [r["path"] for r in memory.recent(until="2026-02-28")["changes"]] == ["a.md"]
        one = memory.recent(1)
        assert [r["path"] for r in one["changes"]] == ["c.md"] and one["total"] == 3
        with pytest.raises(InvalidInputError, match="limit must be"):
            memory.recent(0)
