"""``VaultMemory`` notes: writing, reading, listing, key resolution and bad input."""

from __future__ import annotations

import hashlib
import json

import pytest

from birkin_mnemosyne.errors import (
    AmbiguousKeyError,
    ConfigError,
    InvalidInputError,
    InvalidPathError,
    LabelError,
    NoteExistsError,
    NoteNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)
from birkin_mnemosyne.frontmatter import parse_frontmatter
from birkin_mnemosyne.memory import VaultMemory

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
DAY = 86_400.0
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
READ_KEYS = {
    "key",
    "path",
    "title",
    "zone",
    "version",
    "labels",
    "text",
    "total_chars",
    "returned_chars",
    "truncated",
    "offset",
    "outline",
    "section",
}


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def memory(vault, clock):
    return VaultMemory(vault.root, clock=clock)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- opening ---------------------------------------------------------------------------


def test_dict_form_and_unknown_options(vault):
    memory = VaultMemory({"vault_path": str(vault.root), "evidence_required": True})
    assert memory.evidence_required is True
    with pytest.raises(InvalidInputError, match="valid options: vault_path"):
        VaultMemory({"vault_path": str(vault.root), "colour": "red"})
    with pytest.raises(InvalidInputError, match="need 'vault_path'"):
        VaultMemory({})


def test_max_note_bytes_must_be_a_positive_int(vault):
    vault.write(".mnemosyne/config.json", json.dumps({"budgets": {"max_note_bytes": "big"}}))
    with pytest.raises(ConfigError, match="max_note_bytes"):
        VaultMemory(vault.root)


# --- create ----------------------------------------------------------------------------


def test_create_writes_frontmatter_body_and_related_links(memory, vault):
    result = memory.write_note(
        "Restore the database",
        "Run pg_restore with --jobs 4.\r\nThen check row counts.\r\n",
        zone="ops",
        note_type="runbook",
        tags=["#postgres", "backup"],
        labels=["Project: Atlas", "person:Mina"],
        links=["backups", "ops/hosts"],
        source="https://wiki.example/restore",
    )
    assert set(result) == WRITE_KEYS
    assert result["path"] == "ops/restore-the-database.md"
    assert result["key"] == "restore-the-database"
    assert result["created"] is True and result["mode"] == "create"
    data = (vault.root / result["path"]).read_bytes()
    assert result["version"] == sha(data)
    assert b"\r" not in data  # new notes use \n
    fm = parse_frontmatter(data.decode())
    assert fm.data == {
        "title": "Restore the database",
        "type": "runbook",
        "created": "2026-03-02T10:00:00Z",
        "updated": "2026-03-02T10:00:00Z",
        "tags": ["postgres", "backup"],
        "labels": ["person:Mina", "project:Atlas"],
        "sources": ["https://wiki.example/restore"],
    }
    assert fm.body == (
        "\nRun pg_restore with --jobs 4.\nThen check row counts.\n\n"
        "## Related\n\n- [[backups]]\n- [[ops/hosts]]\n"
    )
    # The index reflects the write at once.
    assert memory.search("pg_restore")[0]["path"] == "ops/restore-the-database.md"


def test_create_default_type_follows_type_rules(vault, clock):
    vault.write(".mnemosyne/config.json", json.dumps({"type_rules": {"runbooks/**": "runbook"}}))
    memory = VaultMemory(vault.root, clock=clock)
    ruled = memory.write_note("Failover", "Steps.", zone="runbooks")
    plain = memory.write_note("Idea", "Thoughts.")
    assert "type: runbook" in (vault.root / ruled["path"]).read_text()
    assert "type: note" in (vault.root / plain["path"]).read_text()


def test_create_never_overwrites(memory, vault):
    first = memory.write_note("Deploy", "v1", zone="ops")
    before = (vault.root / first["path"]).read_bytes()
    with pytest.raises(NoteExistsError) as caught:
        memory.write_note("Deploy", "v2", zone="ops")
    assert caught.value.key == "deploy"
    assert caught.value.version == first["version"]
    assert "deploy" in str(caught.value) and first["version"] in str(caught.value)
    assert (vault.root / first["path"]).read_bytes() == before


def test_create_refuses_a_name_that_differs_only_in_case(memory, vault):
    vault.write("ops/Deploy.md", "hand made\n")
    with pytest.raises(NoteExistsError, match="ops/Deploy.md"):
        memory.write_note("deploy", "v2", zone="ops")


def test_same_file_name_in_two_zones_warns_and_keys_become_paths(memory):
    memory.write_note("Deploy", "web", zone="web")
    second = memory.write_note("Deploy", "db", zone="db")
    assert second["key"] == "db/deploy"
    assert "web/deploy.md" in second["warnings"][0]


def test_reserved_title_gets_a_safe_file_name(memory):
    result = memory.write_note("con", "device names are reserved on Windows")
    assert result["path"] == "con-note.md"


@pytest.mark.parametrize(
    ("title", "zone", "error", "message"),
    [
        ("!!!", None, InvalidInputError, "no letters or digits"),
        ("   ", None, InvalidInputError, "title is empty"),
        ("../x", None, InvalidPathError, "looks like a path"),
        ("/etc/passwd", None, InvalidPathError, "looks like a path"),
        ("a/../../b", None, InvalidPathError, "looks like a path"),
        ("two\nlines", None, InvalidInputError, "one line"),
        ("ok", "../outside", InvalidPathError, "traversal"),
        ("ok", "con", InvalidPathError, "reserved device name"),
        ("ok", "_archive", InvalidPathError, "reserved"),
        ("ok", ".git", InvalidPathError, "hidden"),
        ("ok", "C:/x", InvalidPathError, "absolute"),
    ],
)
def test_bad_titles_and_zones_are_refused(memory, vault, title, zone, error, message):
    with pytest.raises(error, match=message):
        memory.write_note(title, "body", zone=zone)
    assert not [p for p in vault.root.rglob("*.md")]


@pytest.mark.parametrize("body", ["", "   ", "\n\n", "\t \r\n"])
def test_an_empty_body_is_refused_in_every_mode(memory, vault, body):
    kept = memory.write_note("Kept", "the text")
    before = (vault.root / "kept.md").read_bytes()
    for mode, version in (("create", None), ("append", None), ("replace", kept["version"])):
        with pytest.raises(InvalidInputError, match="the body is empty — pass the text"):
            memory.write_note(
                "Kept" if mode != "create" else "Empty", body, mode=mode, expected_version=version
            )
    assert not (vault.root / "empty.md").exists()
    assert (vault.root / "kept.md").read_bytes() == before


def test_title_with_a_slash_is_fine_when_not_a_path(memory):
    assert memory.write_note("CI/CD pipeline", "stages")["path"] == "ci-cd-pipeline.md"


def test_bodies_with_nul_or_over_the_size_limit_are_refused(vault, clock):
    vault.write(".mnemosyne/config.json", json.dumps({"budgets": {"max_note_bytes": 2000}}))
    memory = VaultMemory(vault.root, clock=clock)
    with pytest.raises(InvalidInputError, match="NUL"):
        memory.write_note("Binary", "a\x00b")
    with pytest.raises(InvalidInputError, match=r"limit is 2,000.*max_note_bytes"):
        memory.write_note("Huge", "x" * 3000)
    memory.write_note("Grows", "x" * 1500)
    with pytest.raises(InvalidInputError, match="limit is 2,000"):
        memory.write_note("grows", "y" * 600, mode="append")
    with pytest.raises(InvalidInputError, match="must be text"):
        memory.write_note("Bytes", b"abc")
    with pytest.raises(InvalidInputError, match="mode must be one of create, append, replace"):
        memory.write_note("x", "y", mode="upsert")
    with pytest.raises(LabelError):
        memory.write_note("Labelled", "y", labels=["no-colon"])
    with pytest.raises(InvalidInputError, match=r"contains '\['"):
        memory.write_note("Linked", "y", links=["[[x]]"])


def test_default_size_limit_is_one_mebibyte(memory):
    with pytest.raises(InvalidInputError, match="1,048,576"):
        memory.write_note("Huge", "x" * (1024 * 1024 + 1))


# --- evidence ----------------------------------------------------------------------------


def test_evidence_required_by_config(vault, clock):
    vault.write(".mnemosyne/config.json", json.dumps({"evidence_required": True}))
    memory = VaultMemory(vault.root, clock=clock)
    with pytest.raises(WriteRefusedError, match="source="):
        memory.write_note("Claim", "The sky is green.")
    assert not list(vault.root.glob("*.md"))
    memory.write_note("Claim", "The sky is blue.", source="observation 1")
    with pytest.raises(WriteRefusedError):
        memory.write_note("Claim", "more", mode="append")
    memory.write_note("Claim", "It is.", mode="append", source=["observation 2", "observation 1"])
    data = parse_frontmatter((vault.root / "claim.md").read_text()).data
    assert data["sources"] == ["observation 1", "observation 2"]


def test_evidence_required_by_constructor_override(vault, clock):
    strict = VaultMemory(vault.root, evidence_required=True, clock=clock)
    with pytest.raises(WriteRefusedError):
        strict.write_note("Claim", "text")
    vault.write(".mnemosyne/config.json", json.dumps({"evidence_required": True}))
    relaxed = VaultMemory(vault.root, evidence_required=False, clock=clock)
    assert relaxed.write_note("Claim", "text")["created"]


# --- append ------------------------------------------------------------------------------


def test_append_adds_dated_sections_and_updates_updated(memory, vault, clock):
    memory.write_note("Journal", "start")
    clock.now = T0 + DAY
    memory.write_note("Journal", "first entry", mode="append", tags=["diary"])
    clock.now = T0 + DAY + 3600
    memory.write_note("journal", "second entry", mode="append", labels=["project:Atlas"])
    text = (vault.root / "journal.md").read_text()
    assert "\n## 2026-03-03\n\nfirst entry\n" in text
    assert "\n## 2026-03-03 11:00\n\nsecond entry\n" in text
    data = parse_frontmatter(text).data
    assert data["updated"] == "2026-03-03T11:00:00Z"
    assert data["created"] == "2026-03-02T10:00:00Z"
    assert data["tags"] == ["diary"] and data["labels"] == ["project:Atlas"]


def test_append_keeps_crlf_and_other_bytes(memory, vault):
    original = b"---\r\ntitle: Old\r\nupdated: 2020-01-01\r\n---\r\nline one\r\n"
    vault.write_bytes("notes/old.md", original)
    memory.write_note("old", "new text\nsecond line", mode="append")
    data = (vault.root / "notes/old.md").read_bytes()
    assert data.startswith(
        b"---\r\ntitle: Old\r\nupdated: 2026-03-02T10:00:00Z\r\n---\r\nline one\r\n"
    )
    assert data.endswith(b"\r\n## 2026-03-02\r\n\r\nnew text\r\nsecond line\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_append_to_a_note_without_frontmatter_leaves_it_without(memory, vault):
    vault.write("plain.md", "# Plain\n\ntext")
    memory.write_note("plain", "more", mode="append")
    assert (vault.root / "plain.md").read_text() == "# Plain\n\ntext\n\n## 2026-03-02\n\nmore\n"


def test_append_finds_a_note_by_its_title_and_checks_the_zone(memory):
    memory.write_note("Deploy Notes", "v1", zone="ops")
    assert memory.write_note("Deploy Notes", "v2", mode="append")["path"] == "ops/deploy-notes.md"
    assert memory.write_note("Deploy Notes", "v3", mode="append", zone="ops")["key"]
    with pytest.raises(InvalidInputError, match="rezone"):
        memory.write_note("deploy-notes", "v4", mode="append", zone="web")
    with pytest.raises(NoteNotFoundError, match="mode='create'"):
        memory.write_note("Missing note", "x", mode="append")


# --- replace -----------------------------------------------------------------------------


def test_replace_needs_a_matching_version(memory, vault, clock):
    created = memory.write_note("Plan", "old body", tags=["a"], source="s1")
    with pytest.raises(InvalidInputError, match="expected_version"):
        memory.write_note("plan", "new body", mode="replace")
    clock.now = T0 + DAY
    result = memory.write_note(
        "plan", "new body", mode="replace", expected_version=created["version"], tags=["b"]
    )
    text = (vault.root / "plan.md").read_text()
    fm = parse_frontmatter(text)
    assert fm.body == "\nnew body\n"
    assert fm.data["tags"] == ["b"]
    assert fm.data["sources"] == ["s1"]  # not given: kept
    assert fm.data["title"] == "Plan"
    assert fm.data["updated"] == "2026-03-03T10:00:00Z"
    assert result["version"] == sha(text.encode())
    with pytest.raises(VersionConflictError) as caught:
        memory.write_note("plan", "stale", mode="replace", expected_version=created["version"])
    assert caught.value.current_version == result["version"]


def test_replace_keeps_other_frontmatter_bytes(memory, vault):
    original = "---\r\n# keep this comment\r\ntitle: T\r\nupdated: 2020-01-01\r\nx: [1, 2]\r\n---\r\nold\r\n"
    vault.write_bytes("t.md", original.encode())
    version = memory.get_note("t")["version"]
    memory.write_note("t", "new\nbody", mode="replace", expected_version=version)
    assert (vault.root / "t.md").read_bytes() == (
        b"---\r\n# keep this comment\r\ntitle: T\r\nupdated: 2026-03-02T10:00:00Z\r\n"
        b"x: [1, 2]\r\n---\r\n\r\nnew\r\nbody\r\n"
    )


def test_a_hand_edit_between_read_and_replace_is_not_overwritten(memory, vault):
    memory.write_note("Shared", "v1")
    seen = memory.get_note("shared")
    (vault.root / "shared.md").write_text("edited by hand\n")
    with pytest.raises(VersionConflictError) as caught:
        memory.write_note("shared", "v2", mode="replace", expected_version=seen["version"])
    assert caught.value.current_version == sha(b"edited by hand\n")
    assert (vault.root / "shared.md").read_text() == "edited by hand\n"


def test_writing_back_redacted_text_is_flagged(memory, vault):
    secret = "ghp_" + "A1b2" * 9
    vault.write("creds.md", f"deploy token {secret}\n")
    note = memory.get_note("creds")
    assert secret not in note["text"]
    result = memory.write_note(
        "creds", note["text"] + "rotated\n", mode="replace", expected_version=note["version"]
    )
    assert "REDACTED" in result["warnings"][0]


def test_replace_refuses_a_file_that_is_not_utf8(memory, vault):
    vault.write_bytes("latin.md", b"caf\xe9\n")
    version = memory.get_note("latin")["version"]
    with pytest.raises(WriteRefusedError, match="UTF-8"):
        memory.write_note("latin", "x", mode="replace", expected_version=version)
    assert (vault.root / "latin.md").read_bytes() == b"caf\xe9\n"


# --- near-duplicates ---------------------------------------------------------------------


def test_near_duplicates_are_reported(memory):
    body = (
        "Restore PostgreSQL from the nightly dump with pg_restore using four jobs, "
        "then compare row counts and grants with the previous day."
    )
    first = memory.write_note("Postgres restore", body)
    unrelated = memory.write_note("Kafka lag", "Consumer lag alerts fire when partitions stall.")
    assert unrelated["near_duplicates"] == []
    second = memory.write_note("Postgres restore steps", body + " Done.")
    [dup] = second["near_duplicates"]
    assert dup["path"] == first["path"] and dup["key"] == first["key"]
    assert 0.5 <= dup["similarity"] <= 1.0
    assert dup["similarity"] == round(dup["similarity"], 3)


# --- get_note ----------------------------------------------------------------------------

LONG = """---
title: Runbook
labels: [project:Atlas]
---

Intro line with ghp_A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2 inside.

## Prepare

Stop the app.

### Details

Check the disk.

## Restore

Run pg_restore.

```
## not a heading
```

## Verify

Compare counts.
"""


def test_get_note_shape_and_redaction(memory, vault):
    data = vault.write("ops/runbook.md", LONG).read_bytes()
    note = memory.get_note("runbook")
    assert set(note) == READ_KEYS
    assert note["version"] == sha(data)
    assert note["title"] == "Runbook" and note["zone"] == "ops"
    assert note["labels"] == ["project:Atlas"]
    assert "ghp_" not in note["text"] and "[REDACTED" in note["text"]
    assert note["text"].startswith("Intro line")
    assert note["truncated"] is False
    assert note["total_chars"] == note["returned_chars"] == len(note["text"])
    assert [(h["level"], h["heading"], h["line"]) for h in note["outline"]] == [
        (2, "Prepare", 8),
        (3, "Details", 12),
        (2, "Restore", 16),
        (2, "Verify", 24),
    ]


def test_get_note_section_outline_and_slices(memory, vault):
    vault.write("ops/runbook.md", LONG)
    prepare = memory.get_note("runbook", section="prepare")
    assert prepare["text"] == "## Prepare\n\nStop the app.\n\n### Details\n\nCheck the disk.\n\n"
    assert prepare["section"] == "prepare"
    restore = memory.get_note("runbook", section="Restore")
    assert "## not a heading" in restore["text"] and "Verify" not in restore["text"]
    with pytest.raises(NoteNotFoundError, match="'Prepare', 'Details'") as caught:
        memory.get_note("runbook", section="Nope")
    assert caught.value.candidates == ["Prepare", "Details", "Restore", "Verify"]

    only = memory.get_note("runbook", outline=True)
    assert only["text"] == "" and only["returned_chars"] == 0
    assert only["truncated"] is True and len(only["outline"]) == 4

    whole = memory.get_note("runbook")["text"]
    part = memory.get_note("runbook", max_chars=10, offset=5)
    assert part["text"] == whole[5:15]
    assert (part["total_chars"], part["returned_chars"], part["truncated"]) == (
        len(whole),
        10,
        True,
    )
    assert part["offset"] == 5
    tail = memory.get_note("runbook", offset=len(whole) - 3)
    assert tail["text"] == whole[-3:] and tail["truncated"] is True
    with pytest.raises(InvalidInputError):
        memory.get_note("runbook", max_chars=0)
    with pytest.raises(InvalidInputError):
        memory.get_note("runbook", offset=-1)


def test_short_notes_have_no_outline_unless_asked(memory, vault):
    vault.write("a.md", "# A\n\n## One\n\ntext\n")
    assert memory.get_note("a")["outline"] == []
    assert memory.get_note("a", outline=True)["outline"][1]["heading"] == "One"
    vault.write("long.md", "## Only\n\n" + "word " * 1000)
    assert memory.get_note("long")["outline"] == [{"level": 2, "heading": "Only", "line": 1}]


def test_get_note_does_not_record_access(memory, vault):
    vault.write("a.md", "text\n")
    memory.get_note("a")
    assert memory.usage_of("a")["accesses"] == 0
    assert not (vault.root / ".mnemosyne/state/usage.json").exists()


# --- resolution --------------------------------------------------------------------------


@pytest.fixture
def keyed(vault):
    vault.write("ops/restore.md", "ops restore\n")
    vault.write("db/Restore.md", "db restore\n")
    vault.write("notes/Kafka Lag.md", "kafka\n")
    vault.write("inbox/deploy.md", "deploy\n")
    return vault


def test_resolution_by_path_key_and_case(memory, keyed):
    assert memory.resolve("ops/restore.md") == "ops/restore.md"
    assert memory.resolve("ops/restore") == "ops/restore.md"
    assert memory.resolve("deploy") == "inbox/deploy.md"
    assert memory.resolve("DEPLOY") == "inbox/deploy.md"
    assert memory.resolve("kafka lag") == "notes/Kafka Lag.md"
    assert memory.resolve("DB/restore") == "db/Restore.md"
    assert memory.get_note("Kafka Lag")["key"] == "Kafka Lag"


def test_ambiguous_key_lists_the_paths(memory, keyed):
    with pytest.raises(AmbiguousKeyError) as caught:
        memory.get_note("restore")
    assert caught.value.candidates == ["db/Restore.md", "ops/restore.md"]
    assert "db/Restore.md, ops/restore.md" in str(caught.value)


def test_unknown_key_lists_close_keys_and_never_guesses(memory, keyed):
    with pytest.raises(NoteNotFoundError) as caught:
        memory.get_note("deploi")
    assert caught.value.candidates == ["deploy"]
    assert "did you mean: deploy" in str(caught.value)
    with pytest.raises(NoteNotFoundError):
        memory.get_note("dep")  # a prefix is not a match
    with pytest.raises(NoteNotFoundError) as caught:
        memory.get_note("zzzzzz")
    assert caught.value.candidates == []
    with pytest.raises(NoteNotFoundError):
        memory.get_note("what is 2/3?")  # not a valid path, so only a key: unknown
    with pytest.raises(NoteNotFoundError):
        memory.restore("what?")


@pytest.fixture
def titled(vault):
    vault.write("ops/pg.md", "---\ntitle: Restore PostgreSQL\n---\nRun pg_restore.\n")
    vault.write(
        "people/ana.md", '---\ntitle: Ana Lima\naliases: [Ana, "Straße-Team Lead"]\n---\nOn call.\n'
    )
    vault.write("a/one.md", "# Twin\n\none\n")
    vault.write("b/two.md", "---\naliases: twin\n---\n# Other\n\ntwo\n")
    vault.write("deploy.md", "# Deploy\n\nthe deploy note\n")
    vault.write("web/howto.md", "# deploy\n\na note titled like another note's key\n")
    return vault


def test_a_title_or_alias_names_its_note_in_every_operation(memory, titled, clock):
    assert memory.resolve("Restore PostgreSQL") == "ops/pg.md"
    assert memory.resolve("restore   postgresql") == "ops/pg.md"  # caseless, spaces folded
    assert memory.resolve("ANA") == memory.resolve("ana lima") == "people/ana.md"
    assert memory.resolve("STRASSE-team lead") == "people/ana.md"  # casefold: ß = ss
    assert memory.get_note("Restore PostgreSQL")["path"] == "ops/pg.md"
    assert memory.related("Ana Lima")["path"] == "people/ana.md"
    assert memory.record_access("Ana")["path"] == "people/ana.md"
    version = memory.get_note("ops/pg.md")["version"]
    done = memory.write_note(
        "Restore PostgreSQL", "Run pg_restore --jobs 4.", mode="replace", expected_version=version
    )
    assert done["path"] == "ops/pg.md"
    assert memory.forget("restore postgresql")["path"] == "ops/pg.md"  # a preview
    moved = memory.rezone("Restore PostgreSQL", "db")
    assert moved["path"] == "db/pg.md"
    assert memory.forget("Restore PostgreSQL", confirm=True)["previous_path"] == "db/pg.md"
    # archived: found by restore under the same title, and named in the not-found message
    with pytest.raises(NoteNotFoundError, match="archived at _archive/db/pg.md"):
        memory.get_note("Restore PostgreSQL")
    assert memory.restore("restore postgresql")["path"] == "db/pg.md"


def test_a_decomposed_title_names_the_composed_one(memory, vault):
    vault.write("cafe.md", "# Café crème\n\nx\n")
    assert memory.resolve("Cafe\u0301 cre\u0300me") == "cafe.md"
    assert memory.resolve("CAFÉ CRÈME") == "cafe.md"


def test_a_shared_title_or_alias_is_ambiguous_and_lists_the_notes(memory, titled):
    for call in (
        lambda: memory.get_note("Twin"),
        lambda: memory.forget("twin"),
        lambda: memory.write_note("TWIN", "more", mode="append"),
    ):
        with pytest.raises(AmbiguousKeyError) as caught:
            call()
        assert caught.value.candidates == ["a/one.md", "b/two.md"]
        assert "title or alias of 2 notes: a/one.md, b/two.md" in str(caught.value)


def test_keys_come_before_titles_and_titles_never_match_in_part(memory, titled):
    assert memory.resolve("deploy") == "deploy.md"  # the key, though web/howto.md is titled so
    assert memory.resolve("howto") == "web/howto.md"
    with pytest.raises(NoteNotFoundError):
        memory.get_note("Restore")  # a part of a title is no title
    with pytest.raises(NoteNotFoundError):
        memory.get_note("Restore PostgreSQL now")


def test_the_issue_example_keep_me(memory, clock):
    memory.write_note("Keep me", "first")
    note = memory.get_note("Keep me")
    memory.write_note("Keep me", "second", mode="replace", expected_version=note["version"])
    assert memory.get_note("Keep me")["text"].rstrip().endswith("second")
    assert memory.forget("Keep me", confirm=True)["previous_path"] == "keep-me.md"


def test_a_title_edited_by_another_process_resolves_at_once(memory, vault):
    vault.write("late.md", "# Old title\n\nx\n")
    assert memory.resolve("Old title") == "late.md"
    vault.write("late.md", "# New title\n\nxy\n")
    memory.engine.refresh()
    assert memory.resolve("New title") == "late.md"
    with pytest.raises(NoteNotFoundError):
        memory.resolve("Old title")


def test_keys_that_look_like_escapes_are_path_errors(memory, keyed):
    with pytest.raises(InvalidPathError, match="traversal"):
        memory.get_note("../outside")
    with pytest.raises(InvalidPathError, match="hidden"):
        memory.get_note(".mnemosyne/config")
    with pytest.raises(InvalidInputError):
        memory.get_note("")


def test_a_note_written_by_another_process_resolves_at_once(memory, vault):
    memory.list_notes()  # index built
    vault.write("late.md", "arrived later\n")
    assert memory.get_note("late")["path"] == "late.md"


# --- list_notes --------------------------------------------------------------------------


def test_list_notes_newest_first_with_filters_and_counts(memory, clock):
    for day, (title, zone, labels) in enumerate(
        [
            ("Oldest", "ops", ["project:Atlas"]),
            ("Middle", "ops/db", ["project:Atlas", "person:Mina"]),
            ("Newest", "web", ["person:Mina"]),
        ]
    ):
        clock.now = T0 + day * DAY
        memory.write_note(title, "text", zone=zone, labels=labels)
    listing = memory.list_notes()
    assert [n["title"] for n in listing["notes"]] == ["Newest", "Middle", "Oldest"]
    assert listing["total"] == 3 and listing["page"] == 1 and listing["limit"] == 20
    assert listing["notes"][0] == {
        "key": "newest",
        "path": "web/newest.md",
        "title": "Newest",
        "zone": "web",
        "labels": ["person:Mina"],
        "date": "2026-03-04",
        "updated": "2026-03-04",
    }
    assert listing["label_counts"] == {"person:Mina": 2, "project:Atlas": 2}

    ops = memory.list_notes(zone="ops")
    assert [n["title"] for n in ops["notes"]] == ["Middle", "Oldest"]
    both = memory.list_notes(labels=["project:atlas", "person:mina"])
    assert [n["title"] for n in both["notes"]] == ["Middle"]

    page = memory.list_notes(limit=1, page=2)
    assert [n["title"] for n in page["notes"]] == ["Middle"]
    assert page["total"] == 3
    assert page["label_counts"] == listing["label_counts"]  # over all eligible notes
    with pytest.raises(InvalidInputError):
        memory.list_notes(limit=0)
    with pytest.raises(InvalidInputError):
        memory.list_notes(page=0)


def test_search_delegates_to_the_engine(memory):
    memory.write_note("Kafka consumer lag", "Partitions stall and lag grows.", labels=["team:Data"])
    response = memory.search_response("kafka lag", labels=["team:data"])
    assert response["hits"][0]["labels"] == ["team:Data"]
    assert memory.search("kafka lag", zone="ops") == []
