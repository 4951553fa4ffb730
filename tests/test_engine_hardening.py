"""Bad input and damage the engine must survive (found by review, kept as regressions)."""

from __future__ import annotations

import json
import os
import unicodedata

import pytest
from conftest import cache_text

from birkin_mnemosyne import InvalidInputError, Mnemosyne

TOKEN = "ghp_" + "A1b2" * 9
AWS = "AKIA" + "QWERTYUIOPASDFGH"


def test_secrets_in_metadata_never_reach_output_or_cache(vault):
    vault.write(
        "fm.md",
        f"""
        ---
        title: t
        labels: [key:{TOKEN}, {AWS}, "password:Tr0ub4dor-zebra-77"]
        type: {TOKEN}
        superseded_by: "{AWS}"
        note: "x" {TOKEN}
        ---
        # T

        see [[{AWS}]] zebra
        """,
    )
    engine = Mnemosyne(vault.root)
    out = json.dumps(engine.search_response("zebra"), ensure_ascii=False)
    out += json.dumps(engine.stats(), ensure_ascii=False)
    cache = cache_text(engine.cache_path)
    for secret in (TOKEN, AWS, "Tr0ub4dor-zebra-77"):
        assert secret not in out
        assert secret not in cache


def test_notes_without_body_are_found_by_title_and_survive_exact_search(vault):
    vault.write("zebra.md", "# Zebra\n\nz\n")
    engine = Mnemosyne(vault.root, refresh_interval=0)
    engine.refresh()
    vault.write("Untitled.md", "")
    vault.write("prom.md", "---\ntitle: Prometheus alerts\n---\n")
    vault.write("what.md", "---\ntitle: What is this\n---\n")
    assert engine.search("prometheus alerts")[0]["path"] == "prom.md"
    assert [h["path"] for h in engine.search("Untitled", exact=True)] == ["Untitled.md"]
    assert [h["path"] for h in engine.search("what is this")] == ["what.md"]


def test_damaged_blocks_are_rebuilt_with_one_warning(vault):
    for i in range(40):
        vault.write(f"n{i}.md", f"# Note {i}\n\nrestore database item{i} zebra\n")
    engine = Mnemosyne(vault.root)
    engine.refresh()
    engine.close()
    path = engine.cache_path
    data = bytearray(path.read_bytes())
    header_end = 24 + int.from_bytes(data[16:20], "little")  # magic, H, R, header
    for i in range(header_end, len(data)):
        data[i] = (data[i] * 7 + 13) % 256
    path.write_bytes(bytes(data))
    fresh = Mnemosyne(vault.root)
    assert len(fresh.search("restore database", limit=50)) == 40
    assert len(fresh.warnings) == 1 and "damaged" in fresh.warnings[0]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks on this platform")
def test_cache_is_not_written_through_a_symlinked_state_folder(vault, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(elsewhere, vault.root / ".mnemosyne")
    vault.write("a.md", "# A\n\nzebra\n")
    engine = Mnemosyne(vault.root)
    assert engine.search("zebra")[0]["path"] == "a.md"
    assert not any(elsewhere.rglob("*"))
    assert any("not cached" in w for w in engine.warnings)


@pytest.mark.parametrize(
    "overrides",
    [
        {"recency_half_life_days": 0},
        {"k1": -1},
        {"k1": float("nan")},
        {"b_body": 2},
        {"w_title": -1},
    ],
)
def test_ranking_overrides_are_range_checked(vault, overrides):
    vault.write("a.md", "x\n")
    with pytest.raises(InvalidInputError, match="ranking setting"):
        Mnemosyne(vault.root, ranking=overrides)


def test_nested_archive_folder_is_an_ordinary_zone(vault):
    vault.write("sub/_archive/y.md", "# Y\n\nzebra\n")
    hits = Mnemosyne(vault.root).search("zebra", zone="sub/_archive")
    assert [h["path"] for h in hits] == ["sub/_archive/y.md"]


def test_zone_filter_matches_nfd_folder_names(vault):
    nfd = unicodedata.normalize("NFD", "Café")
    vault.write(f"{nfd}/menu.md", "# Menu\n\nzebra\n")
    hits = Mnemosyne(vault.root).search("zebra", zone="Café")
    assert len(hits) == 1


def test_unreadable_folders_are_reported(vault, monkeypatch):
    import birkin_mnemosyne.discovery as discovery

    vault.write("ok/a.md", "# A\n\nzebra\n")
    vault.write("locked/b.md", "# B\n\nzebra\n")
    real = os.scandir

    def scandir(path):
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(discovery.os, "scandir", scandir)
    engine = Mnemosyne(vault.root)
    assert [h["path"] for h in engine.search("zebra")] == ["ok/a.md"]
    assert any("locked" in w and "cannot read" in w for w in engine.stats()["engine_warnings"])


def test_query_must_be_text(vault):
    vault.write("a.md", "x\n")
    with pytest.raises(InvalidInputError, match="must be a string"):
        Mnemosyne(vault.root).search(b"x")


def test_two_processes_rebuilding_at_once_leave_a_loadable_cache(vault):
    import subprocess
    import sys

    for i in range(60):
        vault.write(f"z{i % 6}/n{i}.md", f"# Note {i}\n\n## Part\n\nzebra item{i} restore\n")
    script = (
        "import sys; from birkin_mnemosyne import Mnemosyne\n"
        "for _ in range(4):\n"
        "    Mnemosyne(sys.argv[1]).refresh(full=True)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(vault.root)], stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    engine = Mnemosyne(vault.root)
    assert len(engine.search("zebra restore", limit=100)) == 60
    assert engine.warnings == []


def test_a_note_of_many_headings_indexes_every_section(vault):
    count = 20_000
    body = "".join(f"## Heading {i}\n\nline about item{i}\n\n" for i in range(count))
    secret_heading = "## Access password: hunter2secretvalue\n\n### Under it\n\nchild text\n\n"
    vault.write("big.md", "# Big\n\npassword: hunter2secretvalue\n\n" + body + secret_heading)
    vault.write("small.md", "# Small\n\nitem12345 mentioned once\n")
    engine = Mnemosyne(vault.root)
    stats = engine.stats()
    assert stats["notes"] == 2 and stats["sections"] == count + 4
    hit = engine.search("heading 12345 item12345")[0]
    assert (hit["path"], hit["heading"]) == ("big.md", "Heading 12345")
    assert engine.search("item19999")[0]["heading"] == "Heading 19999"
    assert "hunter2secretvalue" not in str(engine.search("password", limit=3))
    under = engine.search("child text under it")[0]
    assert under["heading"] == "Under it" and "hunter2" not in str(under)
    engine.close()
    assert "hunter2secretvalue" not in cache_text(engine.cache_path)


def test_a_note_changing_while_hits_are_shaped_does_not_break_the_search(vault):
    """With refresh_interval=0 every index lookup re-scanned: shaping the second hit
    met the first refresh's tombstone (AttributeError seen in the reliability races)."""
    for name in ("a", "b", "c"):
        vault.write(f"{name}.md", f"# {name.upper()}\n\nzebra stripes {name}\n")
    for i in range(20):  # enough notes that the refresh does not compact (renumber) them
        vault.write(f"filler{i}.md", f"# Filler {i}\n\nnothing here {i}\n")
    engine = Mnemosyne(vault.root, refresh_interval=0)
    shape = engine._section_text
    touched = []

    def section_text(*args):  # another process rewrites the notes meanwhile
        if not touched:
            touched.append(1)
            for name in ("a", "b", "c"):
                vault.write(f"{name}.md", f"# {name.upper()}\n\nzebra stripes {name} again\n")
        return shape(*args)

    engine._section_text = section_text
    hits = engine.search("zebra stripes")
    assert touched and sorted(h["path"] for h in hits) == ["a.md", "b.md", "c.md"]
    assert engine.search("zebra stripes again")[0]["path"] in {"a.md", "b.md", "c.md"}
