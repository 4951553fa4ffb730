"""``VaultMemory.related``: outbound links, backlinks, unresolved links, neighbours."""

from __future__ import annotations

import pytest

from birkin_mnemosyne.errors import InvalidInputError, NoteNotFoundError
from birkin_mnemosyne.memory import VaultMemory

NOW = 1_780_000_000.0


@pytest.fixture
def linked(vault):
    vault.write(
        "ops/hub.md",
        """
        # Hub

        See [[restore]], [[Restore#Verify|how to verify]] and [[ops/deploy.md]].
        The replica is [[The Replica Host]]; the old page [[gone-page]] was deleted.
        Myself: [[hub]]. In code: `[[not-a-link]]`.
        """,
    )
    vault.write("ops/restore.md", "# Restore\n\nRun pg_restore with four jobs.\n")
    vault.write("ops/deploy.md", "# Deploy\n\nShip the release. Back to [[HUB]].\n")
    vault.write("hosts/db2.md", "---\ntitle: The Replica Host\n---\nStreaming replica.\n")
    vault.write("inbox.md", "Ideas: [[restore]] drills every month.\n")
    return vault


def _memory(vault) -> VaultMemory:
    return VaultMemory(vault.root, clock=lambda: NOW)


def test_outbound_links_resolve_by_stem_path_and_title_case_insensitively(linked):
    result = _memory(linked).related("hub")
    assert (result["key"], result["path"], result["title"]) == ("hub", "ops/hub.md", "Hub")
    outbound = {row["path"]: row for row in result["outbound"]}
    assert sorted(outbound) == ["hosts/db2.md", "ops/deploy.md", "ops/restore.md"]
    # [[restore]] and [[Restore#Verify|...]] are one note, listed once
    assert outbound["ops/restore.md"]["key"] == "restore"
    assert outbound["ops/deploy.md"]["target"] == "ops/deploy.md"
    assert outbound["hosts/db2.md"]["target"] == "The Replica Host"
    assert outbound["hosts/db2.md"]["title"] == "The Replica Host"
    # a link to itself and a link inside a code span are not related notes
    assert "ops/hub.md" not in outbound


def test_backlinks_are_the_notes_linking_here(linked):
    memory = _memory(linked)
    backlinks = [row["path"] for row in memory.related("restore")["backlinks"]]
    assert backlinks == ["inbox.md", "ops/hub.md"]
    assert [row["path"] for row in memory.related("hub")["backlinks"]] == ["ops/deploy.md"]
    assert memory.related("hosts/db2")["backlinks"][0]["key"] == "hub"


def test_unresolved_links_are_reported_with_their_target(linked):
    result = _memory(linked).related("hub")
    assert result["unresolved"] == [{"target": "gone-page", "candidates": []}]


def test_an_ambiguous_target_prefers_the_linking_notes_folder(vault):
    vault.write("web/deploy.md", "# Web deploy\n\nRolling restart.\n")
    vault.write("db/deploy.md", "# Database deploy\n\nMigrations first.\n")
    vault.write("web/checklist.md", "Before: [[deploy]].\n")
    vault.write("notes/plan.md", "Which one? [[deploy]]\n")
    memory = _memory(vault)
    local = memory.related("checklist")
    assert [row["path"] for row in local["outbound"]] == ["web/deploy.md"]
    assert local["unresolved"] == []
    elsewhere = memory.related("plan")
    assert elsewhere["outbound"] == []
    assert elsewhere["unresolved"] == [
        {"target": "deploy", "candidates": ["db/deploy.md", "web/deploy.md"]}
    ]


def test_a_link_to_an_archived_note_is_unresolved(linked):
    memory = _memory(linked)
    memory.forget("deploy", confirm=True)
    result = memory.related("hub")
    assert "ops/deploy.md" not in [row["path"] for row in result["outbound"]]
    assert {"target": "ops/deploy.md", "candidates": []} in result["unresolved"]


def test_related_follows_writes_at_once(linked):
    memory = _memory(linked)
    assert memory.related("hosts/db2")["outbound"] == []
    memory.write_note("db2", "Restored from [[restore]].", mode="append", now=NOW)
    result = memory.related("hosts/db2")
    assert [row["key"] for row in result["outbound"]] == ["restore"]
    assert "hosts/db2.md" in [row["path"] for row in memory.related("restore")["backlinks"]]


def test_neighbours_share_words_but_no_link(vault):
    vault.write(
        "ops/restore.md",
        "# Restore the database\n\nRun pg_restore into a scratch database, then verify "
        "row counts and swap. See [[dump-format]].\n",
    )
    vault.write(
        "lessons/restore-drill.md",
        "# Restore drill\n\nWe ran pg_restore into a scratch database; verify row counts "
        "before the swap.\n",
    )
    vault.write(
        "ops/dump-format.md", "# Dump format\n\npg_restore needs custom-format database dumps.\n"
    )
    vault.write("misc/garden.md", "# Garden\n\nWater the tomatoes twice a week.\n")
    memory = _memory(vault)
    neighbours = memory.related("restore")["neighbours"]
    paths = [row["path"] for row in neighbours]
    assert paths[0] == "lessons/restore-drill.md"
    assert "ops/dump-format.md" not in paths  # linked already: not a neighbour
    assert "misc/garden.md" not in paths
    assert "ops/restore.md" not in paths
    assert set(neighbours[0]) == {"key", "path", "title", "zone", "score"}
    assert memory.related("restore", limit=0)["neighbours"] == []


def test_related_refuses_unknown_keys_and_bad_limits(linked):
    memory = _memory(linked)
    with pytest.raises(NoteNotFoundError):
        memory.related("no-such-note")
    with pytest.raises(InvalidInputError):
        memory.related("hub", limit=-1)
    with pytest.raises(InvalidInputError):
        memory.related("hub", limit=10_000)
