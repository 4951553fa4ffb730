"""``VaultMemory.latest`` and ``host_history`` (``state_queries``) on a small vault."""

from __future__ import annotations

import pytest

from birkin_mnemosyne.errors import InvalidInputError, NoteNotFoundError
from birkin_mnemosyne.memory import VaultMemory

NOW = 1_780_000_000.0
HIT_KEYS = {
    "key",
    "path",
    "title",
    "zone",
    "heading",
    "line",
    "date",
    "stale",
    "archived",
    "labels",
    "snippet",
    "score",
}


@pytest.fixture
def memory(state_vault):
    with VaultMemory(state_vault.root, clock=lambda: NOW) as memory:
        yield memory


def where(rows):
    return [(row["date"], row["path"], row["heading"]) for row in rows]


# -- latest ---------------------------------------------------------------------------


def test_latest_lists_sections_holding_every_word_newest_first(memory):
    result = memory.latest("backup retention")
    assert set(result) == {"query", "hits", "dropped_terms", "matched_terms", "index"}
    assert result["query"] == "backup retention"
    assert result["dropped_terms"] == [] and result["matched_terms"] == ["backup", "retention"]
    assert where(result["hits"]) == [
        ("2026-06-19T08:40", "journal/2026-06-19.md", "08:40 — retention change on db-primary"),
        ("2026-04-07T10:00", "journal/2026-04.md", "04-07 10:00 — db1 backup retention"),
        ("2026-03-02T09:40", "journal/2026-03-02.md", "09:40 — db1 disk replaced"),
        ("2026-01-10", "runbooks/backup.md", "Retention"),
        ("2025-12-01", "runbooks/old-backup.md", ""),
    ]
    first = result["hits"][0]
    assert set(first) == HIT_KEYS
    assert first["key"] == "2026-06-19" and first["zone"] == "journal" and first["line"] == 3
    assert "30 days" in first["snippet"] and first["score"] > 0
    assert result["index"]["notes"] == 7


def test_latest_flags_stale_sections_and_notes_but_keeps_them(memory):
    stale = {hit["path"]: hit["stale"] for hit in memory.latest("backup retention")["hits"]}
    assert stale["runbooks/old-backup.md"] is True  # status: superseded
    assert stale["runbooks/backup.md"] is False
    pool = memory.latest("db1 pool size")["hits"]
    assert [(hit["heading"], hit["stale"]) for hit in pool] == [
        ("04-08 11:00 — Superseded: db1 pool size", True)
    ]


def test_latest_relaxes_by_dropping_the_most_common_words(memory):
    # No section holds all three; db1 is in the most sections, then retention.
    result = memory.latest("db1 retention nginx")
    assert result["dropped_terms"] == ["db1", "retention"]
    assert result["matched_terms"] == ["nginx"]
    assert where(result["hits"]) == [
        ("2026-06-19T13:00", "journal/2026-06-19.md", "13:00 — nginx reload"),
        (None, "hosts/web1.md", ""),  # no date anywhere: after every dated section
    ]
    # A word the vault does not hold is dropped first.
    absent = memory.latest("retention kafka")
    assert absent["dropped_terms"] == ["kafka"] and absent["matched_terms"] == ["retention"]
    assert len(absent["hits"]) == 5
    nothing = memory.latest("kafka zookeeper")
    assert nothing["hits"] == [] and nothing["dropped_terms"] == ["kafka", "zookeeper"]


def test_latest_limit_and_zone(memory):
    assert len(memory.latest("backup retention", 2)["hits"]) == 2
    runbooks = memory.latest("backup retention", zone="runbooks")["hits"]
    assert [hit["path"] for hit in runbooks] == ["runbooks/backup.md", "runbooks/old-backup.md"]


@pytest.mark.parametrize(
    ("query", "limit", "message"),
    [
        ("", 5, "empty"),
        ("  ", 5, "empty"),
        (3, 5, "string"),
        ("x", 0, "limit"),
        ("x", 201, "limit"),
    ],
)
def test_latest_rejects_bad_input(memory, query, limit, message):
    with pytest.raises(InvalidInputError, match=message):
        memory.latest(query, limit)


def test_latest_never_echoes_a_secret_from_the_query(memory):
    secret = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = memory.latest(f"retention {secret}")
    assert secret not in repr(result)
    assert result["query"] == "retention [REDACTED:github_token]"
    assert result["dropped_terms"] == ["[REDACTED]"] and result["matched_terms"] == ["retention"]


def test_latest_finds_a_hidden_run_id_by_its_value(vault):
    run = "47fe5d6bc8f2" + "4e9b708d988e" + "8b18a11a"
    vault.write("journal/2026-05-01.md", f"# 2026-05-01\n\n## 10:00 retrain\n\nrun {run} done\n")
    vault.write("journal/2026-05-02.md", "# 2026-05-02\n\n## 10:00 retrain\n\nanother run done\n")
    with VaultMemory(vault.root, clock=lambda: NOW) as memory:
        result = memory.latest(f"run {run}")
        absent = memory.latest("run " + "0123456789abcdef" * 2 + "01234567")
    assert [row["path"] for row in result["hits"]] == ["journal/2026-05-01.md"]
    assert result["matched_terms"] == ["run", "[REDACTED:hex]"] and run not in repr(result)
    assert absent["dropped_terms"] == ["[REDACTED:hex]"]
    assert [row["path"] for row in absent["hits"]][0] == "journal/2026-05-02.md"


# -- host_history -----------------------------------------------------------------------


def test_host_history_lists_journal_and_record_entries_newest_first(memory):
    result = memory.host_history("db1")
    assert set(result) == {"host", "host_note", "aliases", "entries", "index"}
    assert result["host"] == "db1"
    assert result["host_note"] == {"key": "db1", "path": "hosts/db1.md", "title": "db1"}
    assert result["aliases"] == ["db-primary", "pg-main"]
    entries = result["entries"]
    dates = [entry["date"] for entry in entries]
    assert dates == sorted(dates, reverse=True)
    journal = [(e["date"], e["heading"]) for e in entries if e["kind"] == "journal"]
    assert journal == [
        ("2026-06-19T08:40", "08:40 — retention change on db-primary"),  # named by an alias
        ("2026-04-08T11:00", "04-08 11:00 — Superseded: db1 pool size"),
        ("2026-04-07T10:00", "04-07 10:00 — db1 backup retention"),
        ("2026-03-02T09:40", "09:40 — db1 disk replaced"),
    ]
    # The dated lines of the host note are entries of their own, at their own date.
    lines = [(e["date"], e["snippet"]) for e in entries if e["kind"] == "host_record"]
    assert ("2026-03-02", "- 2026-03-02: disk replaced by the vendor") in lines
    assert ("2026-02-18", "| 2026-02-18 | replica |") in lines
    assert entries[-1]["date"] == "2026-02-18" and entries[-1]["line"] == 20
    # The record's sections themselves, dated by the note (updated: 2026-06-19).
    headings = {e["heading"] for e in entries if e["kind"] == "host_record"}
    assert {"", "Facts", "Role history"} <= headings
    # Neither the runbook nor journal entries about something else.
    assert {e["path"] for e in entries} == {
        "hosts/db1.md",
        "journal/2026-06-19.md",
        "journal/2026-04.md",
        "journal/2026-03-02.md",
    }
    stale = {e["heading"]: e["stale"] for e in entries if e["kind"] == "journal"}
    assert stale["04-08 11:00 — Superseded: db1 pool size"] is True
    assert stale["09:40 — db1 disk replaced"] is False
    assert set(entries[0]) == HIT_KEYS | {"kind"}


def test_host_history_answers_to_any_alias_and_name(memory):
    expected = memory.host_history("db1")["entries"]
    for name in ("DB-Primary", "pg-main", "hosts/db1"):
        result = memory.host_history(name)
        assert result["host"] == "db1" and result["entries"] == expected, name
    web = memory.host_history("frontend")
    assert web["host"] == "web1" and web["aliases"] == ["frontend"]
    assert [e["heading"] for e in web["entries"] if e["kind"] == "journal"] == [
        "13:00 — nginx reload"
    ]


def test_host_history_topic_narrows_the_entries(memory):
    retention = memory.host_history("db1", topic="retention")["entries"]
    assert [(e["kind"], e["date"]) for e in retention] == [
        ("journal", "2026-06-19T08:40"),
        ("journal", "2026-04-07T10:00"),
        ("journal", "2026-03-02T09:40"),
    ]
    disk = memory.host_history("db1", topic="disk")["entries"]
    assert [(e["kind"], e["date"], e["heading"]) for e in disk] == [
        ("host_record", "2026-06-19", "Facts"),
        ("journal", "2026-03-02T09:40", "09:40 — db1 disk replaced"),
        ("host_record", "2026-03-02", "Facts"),
    ]
    assert memory.host_history("db1", topic="kafka")["entries"] == []


def test_host_history_limit(memory):
    assert len(memory.host_history("db1", limit=3)["entries"]) == 3


def test_unknown_host_names_the_close_ones(memory):
    with pytest.raises(NoteNotFoundError, match=r"no host 'db2' — did you mean: db1\?") as caught:
        memory.host_history("db2")
    assert caught.value.candidates == ["db1"]
    with pytest.raises(NoteNotFoundError, match="known hosts: db1, web1"):
        memory.host_history("zzzzzz")
    with pytest.raises(InvalidInputError, match="empty"):
        memory.host_history(" ")


def test_a_vault_without_host_notes_says_what_a_host_note_is(vault):
    vault.write("journal/2026-01-01.md", "# 2026-01-01\n\n### 09:00 — db1\nRebooted db1.\n")
    with VaultMemory(vault.root) as memory, pytest.raises(NoteNotFoundError, match="type: host"):
        memory.host_history("db1")


def test_host_names_follow_edits_of_the_host_note(memory, state_vault):
    state_vault.write("hosts/web1.md", "---\ntype: host\naliases: [edge]\n---\n# web1\n")
    memory.engine.refresh()
    assert memory.host_history("edge")["host"] == "web1"
    with pytest.raises(NoteNotFoundError):
        memory.host_history("frontend")


# -- journal entries ------------------------------------------------------------------


def test_journal_entries_are_the_journal_notes_dated_sections_newest_first(memory):
    result = memory.journal_entries(limit=50)
    rows = where(result["entries"])
    assert rows[:2] == [
        ("2026-06-19T13:00", "journal/2026-06-19.md", "13:00 — nginx reload"),
        ("2026-06-19T08:40", "journal/2026-06-19.md", "08:40 — retention change on db-primary"),
    ]
    assert [r[0] for r in rows] == sorted((r[0] for r in rows), reverse=True)
    assert all(r[1].startswith("journal/") for r in rows)
    assert all(set(hit) == HIT_KEYS for hit in result["entries"])
    entry = result["entries"][0]
    assert entry["snippet"] == "Reloaded nginx on web1 after the certificate renewal."
    assert (
        "2026-04-08T11:00",
        "journal/2026-04.md",
        "04-08 11:00 — Superseded: db1 pool size",
    ) in rows
    # a section holding only headings ("# April 2026", "## Week 14") is no entry
    assert not any(r[2] in ("", "Week 14") and r[1] == "journal/2026-04.md" for r in rows)


def test_journal_entries_limit_and_window(memory):
    assert len(memory.journal_entries(limit=1)["entries"]) == 1
    april = where(
        memory.journal_entries(limit=50, since="2026-04-01", until="2026-04-30")["entries"]
    )
    assert april and all(r[0].startswith("2026-04") for r in april)
    with pytest.raises(InvalidInputError):
        memory.journal_entries(limit=0)
    with pytest.raises(InvalidInputError):
        memory.journal_entries(since="2026-05-01", until="2026-04-01")
