"""Reflex triggers: what a note declares, what the index keeps, what matches exactly."""

from __future__ import annotations

from birkin_mnemosyne import Mnemosyne
from birkin_mnemosyne.reflexes import (
    MAX_REFLEXES,
    is_address_like,
    matches_error,
    matches_file,
    matches_target,
    reflexes_of,
)


def test_triggers_come_from_a_reflexes_section_and_the_frontmatter_in_order():
    section = (
        "## Reflexes\n"
        "- error: `no space left on device`\n"
        "- target: db1.internal\n"
        "* File: deploy/*.yaml\n"
        "- owner: alice\n"  # not a reflex kind
        "- error: ok\n"  # too short to fire on anything in particular
        "- error: no space left on device\n"  # a duplicate
    )
    assert reflexes_of(["error: ENOSPC"], [("Reflexes", section), ("Other", "- error: x1x")]) == [
        ("error", "ENOSPC"),
        ("error", "no space left on device"),
        ("target", "db1.internal"),
        ("file", "deploy/*.yaml"),
    ]
    mapping = {"error": ["ENOSPC", "disk full"], "file": "a/b.py", "bogus": "x"}
    assert reflexes_of(mapping, []) == [
        ("error", "ENOSPC"),
        ("error", "disk full"),
        ("file", "a/b.py"),
    ]
    assert reflexes_of(None, [("reflex", "error: 'quoted value'")]) == [("error", "quoted value")]
    many = "\n".join(f"- error: failure number {i}" for i in range(MAX_REFLEXES + 5))
    assert len(reflexes_of(None, [("Reflexes", many)])) == MAX_REFLEXES


def test_an_error_trigger_matches_inside_the_error_text_case_and_spacing_aside():
    error = "pg_dump: error: could not write to file: No space\n  left on device"
    assert matches_error("no space left on device", error)
    assert not matches_error("no space left on disk", error)
    assert not matches_error("   ", error)


def test_a_target_is_address_like_and_matches_as_a_whole_token():
    assert is_address_like("db1.internal") and is_address_like("10.0.4.12")
    assert is_address_like("db1") and is_address_like("backup@nas:2222")
    assert not is_address_like("prod") and not is_address_like("two words.x")
    assert matches_target("db1.internal", "ssh db1.internal 'df -h'")
    assert matches_target("db1.internal", "psql -h db1.internal:5432 -U app")
    assert matches_target("db1.internal", "rsync x root@db1.internal:/srv/")
    assert not matches_target("db1.internal", "ssh xdb1.internal")
    assert not matches_target("db1.internal", "ssh db1.internal.old")
    assert matches_target("10.0.4.12", "ping -c1 10.0.4.12")
    assert not matches_target("10.0.4.12", "ping 10.0.4.123")
    assert not matches_target("prod", "deploy to prod")  # a plain word is no target


def test_a_file_trigger_is_a_name_a_path_or_a_glob():
    root = "/home/me/repo"
    assert matches_file("prod.yaml", f"{root}/deploy/prod.yaml", root)
    assert matches_file("*.tf", f"{root}/infra/main.tf", root)
    assert matches_file("deploy/*.yaml", f"{root}/deploy/prod.yaml", root)
    assert not matches_file("deploy/*.yaml", f"{root}/deploy/eu/prod.yaml", root)
    assert matches_file("deploy/**/*.yaml", f"{root}/deploy/eu/prod.yaml", root)
    assert matches_file("deploy/**/*.yaml", f"{root}/deploy/prod.yaml", root)
    assert matches_file("deploy/prod.yaml", "/elsewhere/deploy/prod.yaml")
    assert not matches_file("deploy/prod.yaml", f"{root}/deploy/prod.yaml.bak", root)
    assert not matches_file("prod.yaml", f"{root}/deploy/preprod.yaml", root)


def test_the_index_keeps_each_notes_triggers_redacted(vault):
    vault.write(
        "lessons/disk.md",
        """
        ---
        reflexes:
          error: [ENOSPC]
        ---
        # Disk full on db1

        Free space first.

        ## Reflexes
        - target: db1.internal
        - error: token ghp_abcdefghijklmnopqrstuvwxyz0123456789 rejected
        """,
    )
    vault.write("plain.md", "# Plain\n\nNo reflexes here.\n")
    engine = Mnemosyne(vault.root)
    index = engine.index
    by_path = {meta["path"]: meta for meta in index.notes if meta is not None}
    kept = by_path["lessons/disk.md"]["reflexes"]
    assert kept[:2] == [["error", "ENOSPC"], ["target", "db1.internal"]]
    assert "ghp_" not in str(kept) and "[REDACTED" in kept[2][1]
    assert not by_path["plain.md"]["reflexes"]
    # a frontmatter error string is searched with the tags; the note is found by it
    assert engine.search("ENOSPC")[0]["path"] == "lessons/disk.md"
