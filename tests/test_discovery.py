"""Which files are notes: exclusions, links never followed, odd names."""

from __future__ import annotations

import os

import pytest

from birkin_mnemosyne.discovery import discover, discover_stats


def test_discovers_visible_markdown_only(vault):
    for rel in [
        "a.md",
        "UPPER.MD",
        "Mixed.Md",
        "folder with spaces/note.md",
        "메모/회의.md",
        "deep/" + "/".join(f"d{i}" for i in range(40)) + "/leaf.md",
        ".hidden.md",
        ".git/config.md",
        ".obsidian/x.md",
        ".mnemosyne/cache/x.md",
        "node_modules/pkg/readme.md",
        "src/__pycache__/x.md",
        "_archive/old.md",
        "notes.txt",
        "image.png",
        "sub/.secret/x.md",
    ]:
        vault.write(rel, "x\n")
    found = set(discover(vault.root))
    assert found == {
        "a.md",
        "UPPER.MD",
        "Mixed.Md",
        "folder with spaces/note.md",
        "메모/회의.md",
        "deep/" + "/".join(f"d{i}" for i in range(40)) + "/leaf.md",
    }
    assert "_archive/old.md" in discover(vault.root, include_archive=True)
    # The stat pass's form: the same notes, (mtime_ns, size) each.
    for archive in (False, True):
        found = discover(vault.root, include_archive=archive)
        assert discover_stats(vault.root, include_archive=archive) == {
            path: (st.mtime_ns, st.size) for path, st in found.items()
        }


def test_nested_archive_name_is_an_ordinary_folder(vault):
    vault.write("projects/_archive/x.md", "x\n")
    assert "projects/_archive/x.md" in discover(vault.root)


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_symlinks_are_never_followed(vault, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("outside\n", encoding="utf-8")
    vault.write("real.md", "x\n")
    os.symlink(outside, vault.root / "linked-dir")
    os.symlink(outside / "secret.md", vault.root / "linked.md")
    assert set(discover(vault.root)) == {"real.md"}


def test_stat_fields(vault):
    path = vault.write("a.md", "hello\n")
    st = discover(vault.root)["a.md"]
    assert st.size == 6 and st.mtime_ns == path.stat().st_mtime_ns
