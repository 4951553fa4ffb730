"""Path rules: every refusal names its rule."""

from __future__ import annotations

import pytest

from birkin_mnemosyne.errors import InvalidPathError
from birkin_mnemosyne.vault_paths import check_note_path, check_zone, slug, slugify, zone_of


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("", "empty"),
        ("/etc/passwd.md", "absolute"),
        ("C:/x.md", "absolute"),
        ("notes\\x.md", "backslash"),
        ("../x.md", "traversal"),
        ("a/../../x.md", "traversal"),
        (".git/x.md", "hidden"),
        ("a/.mnemosyne/x.md", "hidden"),
        ("node_modules/x.md", "reserved"),
        ("__pycache__/x.md", "reserved"),
        ("_archive/x.md", "reserved"),
        ("a/b<c.md", "windows_name"),
        ("what?.md", "windows_name"),
        ("trailing./x.md", "windows_name"),
        ("con.md", "windows_name"),
        ("a/NUL.md", "windows_name"),
        ("x" * 300 + ".md", "too_long"),
        ("notes/x.txt", "extension"),
    ],
)
def test_refusals_name_the_rule(raw, rule):
    with pytest.raises(InvalidPathError) as info:
        check_note_path(raw)
    assert info.value.rule == rule
    assert f"({rule})" in str(info.value)


def test_accepted_paths_are_normalised():
    assert check_note_path("runbooks/./restore.md") == "runbooks/restore.md"
    assert check_note_path("folder with spaces/메모.md") == "folder with spaces/메모.md"
    assert check_note_path("_archive/x.md", allow_archive=True) == "_archive/x.md"


def test_zones():
    assert check_zone(None) == "" and check_zone("/") == ""
    assert check_zone("projects/atlas/") == "projects/atlas"
    with pytest.raises(InvalidPathError, match="traversal"):
        check_zone("projects/../../etc")
    # An absolute zone is refused, never quietly made relative.
    for absolute in ("/etc", "/etc/", "//server/share", "C:/Windows"):
        with pytest.raises(InvalidPathError) as caught:
            check_zone(absolute)
        assert caught.value.rule == "absolute"
    with pytest.raises(InvalidPathError, match="write 'etc' for the vault folder etc/"):
        check_zone("/etc")
    assert zone_of("a/b/c.md") == "a/b" and zone_of("c.md") == ""
    assert zone_of("_archive/a/b.md") == "a"


def test_slugify():
    assert slugify("Restore PostgreSQL: the plan!") == "restore-postgresql-the-plan"
    assert slugify("데이터베이스 복구") == "데이터베이스-복구"
    assert slugify("../x") == "x"
    assert slugify("?!") == ""
    assert slugify("CON") == "con-note"


def test_slug_is_the_file_name_a_write_gives(vault):
    from birkin_mnemosyne.memory import VaultMemory

    assert slug("Restore PostgreSQL: the plan!") == "restore-postgresql-the-plan"
    assert slug("?!") == "note"  # 0.7.2's fallback; never an empty name
    with VaultMemory(vault.root) as memory:
        for title in ("Keep me", "Café déjà vu", "데이터베이스 복구", "CON"):
            assert memory.write_note(title, "x")["path"] == f"{slug(title)}.md"
