"""Stat passes off the search path: the interval policy, the background pass, freshness."""

from __future__ import annotations

import pytest

import birkin_mnemosyne.freshness as freshness_module
from birkin_mnemosyne import Mnemosyne, VaultMemory
from birkin_mnemosyne.freshness import BACKGROUND_MIN, SCAN_DUTY, BackgroundPass, check_interval


def test_cheap_passes_keep_the_interval_and_dear_ones_stretch_it_by_their_cpu_time():
    assert check_interval(2.0, None, None) == 2.0
    assert check_interval(2.0, BACKGROUND_MIN / 2, BACKGROUND_MIN / 2) == 2.0
    assert check_interval(2.0, 0.1, 0.1) == 2.0  # 10 x 0.1 s is still within 2 s
    assert check_interval(2.0, 1.3, 1.2) == pytest.approx(SCAN_DUTY * 1.2)
    assert check_interval(60.0, 1.3, 1.2) == 60.0
    # Slowed down by the wall clock (searches sharing the interpreter), not dearer.
    assert check_interval(2.0, 0.9, 0.08) == 2.0
    assert check_interval(2.0, 1.3, None) == pytest.approx(SCAN_DUTY * 1.3)


def test_a_background_pass_finds_what_changed_against_the_snapshot(vault):
    for name in ("kept", "edited", "gone"):
        vault.write(f"{name}.md", f"# {name}\n\nwords\n")
    engine = Mnemosyne(vault.root)
    engine.refresh()
    snapshot = engine.index.note_stats()
    vault.write("edited.md", "# edited\n\nother words, longer now\n")
    (vault.root / "gone.md").unlink()
    vault.write("sub/new.md", "# new\n\nwords\n")
    scan = BackgroundPass(vault.root, snapshot)
    assert scan.wait(30) and scan.error is None
    assert scan.listed_by == "process"  # a child lists: no stat holds up this interpreter
    assert sorted(scan.changed) == ["edited.md", "gone.md", "sub/new.md"]
    assert scan.seconds >= 0 and scan.cpu_seconds >= 0 and scan.checked_at > 0


@pytest.mark.parametrize("child", ["unavailable", "dies", "cut short"])
def test_without_a_listing_child_the_thread_lists_alike(vault, monkeypatch, child):
    vault.write("kept.md", "# kept\n\nwords\n")
    vault.write("gone.md", "# gone\n\nwords\n")
    engine = Mnemosyne(vault.root)
    engine.refresh()
    snapshot = engine.index.note_stats()
    (vault.root / "gone.md").unlink()
    vault.write("new.md", "# new\n\nwords\n")
    if child == "unavailable":
        monkeypatch.setattr(freshness_module, "_child_available", lambda: False)
    elif child == "dies":
        monkeypatch.setattr(freshness_module, "_CHILD_CODE", "import os; os._exit(3)")
    else:  # prints a chunk, never its last line
        monkeypatch.setattr(freshness_module, "_CHILD_CODE", "print('[[\"kept.md\", 1, 2]]')")
    scan = BackgroundPass(vault.root, snapshot)
    assert scan.wait(30) and scan.error is None and scan.listed_by == "thread"
    assert sorted(scan.changed) == ["gone.md", "new.md"]


def test_the_listing_child_prints_chunks_then_what_else_it_saw(vault, capsysbinary):
    import json

    for i in range(5):
        vault.write(f"n{i}.md", "# n\n")
    vault.write(".hidden/.x.md.123-abcdefgh.tmp", "")
    assert freshness_module.main([str(vault.root)]) == 0
    lines = [json.loads(line) for line in capsysbinary.readouterr().out.splitlines()]
    assert sorted(p for chunk in lines[:-1] for p, _, _ in chunk) == [f"n{i}.md" for i in range(5)]
    assert set(lines[-1]) == {"problems", "temp_files", "cpu"}


@pytest.fixture
def background(monkeypatch):
    """Every pass runs in the background, and is due at once (no interval to wait out)."""
    monkeypatch.setattr("birkin_mnemosyne.engine.BACKGROUND_MIN", 0.0)
    monkeypatch.setattr(freshness_module, "BACKGROUND_MIN", 0.0)
    monkeypatch.setattr(freshness_module, "SCAN_DUTY", 0.0)


def test_a_search_never_waits_for_a_dear_pass_and_a_later_one_takes_its_findings(vault, background):
    vault.write("a.md", "# A\n\nrestore database\n")
    engine = Mnemosyne(vault.root, refresh_interval=1e-9)
    assert engine.search("restore")[0]["path"] == "a.md"  # the first pass: inline
    vault.write("b.md", "# B\n\nzeppelin hangar\n")
    # This search starts a pass in the background and answers from the index as it is.
    assert engine.search("zeppelin") == []
    status = engine.freshness()
    assert status["checking"] is True and status["fresh"] is False
    engine._scan.wait(30)
    assert engine.search("zeppelin")[0]["path"] == "b.md"  # taken from the pass
    assert engine.warnings == []


def test_a_write_through_the_library_is_seen_at_once_whatever_the_passes(vault, background):
    vault.write("a.md", "# A\n\nrestore database\n")
    memory = VaultMemory(vault.root, refresh_interval=1e-9)
    memory.search("restore")
    memory.search("restore")  # a pass is running in the background now
    memory.write_note("airships", "zeppelin hangar notes", zone="w")
    assert memory.search("zeppelin")[0]["path"] == "w/airships.md"


def test_a_failed_background_pass_is_followed_by_one_inline(vault, background, monkeypatch):
    vault.write("a.md", "# A\n\nrestore database\n")
    engine = Mnemosyne(vault.root, refresh_interval=1e-9)
    engine.search("restore")

    def broken(*args, **kwargs):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(freshness_module, "discover", broken)
    monkeypatch.setattr(freshness_module, "_child_available", lambda: False)
    vault.write("b.md", "# B\n\nzeppelin hangar\n")
    engine.search("zeppelin")  # starts the pass that fails
    engine._scan.wait(30)
    engine.search("zeppelin")  # takes the failure: the next pass runs inline
    assert engine._scan is None
    assert engine.search("zeppelin")[0]["path"] == "b.md"


def test_freshness_reports_the_interval_and_the_staleness_window(vault):
    vault.write("a.md", "# A\n\nrestore database\n")
    engine = Mnemosyne(vault.root, refresh_interval=2.0)
    engine.search("restore")
    status = engine.freshness()
    cost, cpu = engine._scan_cost, engine._scan_cpu
    assert status["fresh"] is True and status["stale_files"] == 0
    assert status["check_interval_s"] == round(check_interval(2.0, cost, cpu), 3)
    assert status["staleness_window_s"] == round(check_interval(2.0, cost, cpu) + cost, 3)
    assert status["checking"] is False and status["checked_at"] is not None
    assert engine.search_response("restore")["index"]["staleness_window_s"] >= 2.0


def _counting_passes(monkeypatch):
    import birkin_mnemosyne.engine as engine_module

    calls = []
    real = engine_module.discover_stats

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine_module, "discover_stats", counting)
    monkeypatch.setattr(engine_module, "SHARE_MIN", 0.0)  # every pass is worth sharing
    return calls


def test_a_process_opening_the_vault_adopts_another_ones_recent_pass(vault, monkeypatch):
    for i in range(3):
        vault.write(f"n{i}.md", f"# note {i}\n\nshared words {i}\n")
    calls = _counting_passes(monkeypatch)
    first = Mnemosyne(vault.root, clock=lambda: 1_000_000.0)
    first.refresh()
    assert (vault.root / ".mnemosyne" / "cache" / freshness_module.PASS_RECORD).exists()
    assert len(calls) == 1
    # Another process a second later: its first search states no file.
    later = Mnemosyne(vault.root, clock=lambda: 1_000_001.0)
    assert [h["path"] for h in later.search("words", limit=5)]
    assert len(calls) == 1
    report = later.freshness()
    assert report["fresh"] and report["checked_at"] == first.freshness()["checked_at"]
    # What that trades: an outside edit within the window is not seen yet ...
    vault.write("n0.md", "# note 0\n\nshared words 0 and zanzibar\n")
    assert later.search("zanzibar") == []
    # ... and a process opening after the interval passes for itself and sees it.
    after = Mnemosyne(vault.root, clock=lambda: 1_000_010.0)
    assert [h["path"] for h in after.search("zanzibar")] == ["n0.md"]
    assert len(calls) == 2


@pytest.mark.parametrize("case", ["every search", "malformed", "clock behind", "no index"])
def test_a_recorded_pass_is_not_adopted_when_it_cannot_vouch(vault, monkeypatch, case):
    vault.write("a.md", "# a\n\nwords\n")
    calls = _counting_passes(monkeypatch)
    Mnemosyne(vault.root, clock=lambda: 1_000_000.0).refresh()
    record = vault.root / ".mnemosyne" / "cache" / freshness_module.PASS_RECORD
    options: dict = {"clock": lambda: 1_000_001.0}
    if case == "every search":
        options["refresh_interval"] = 0
    elif case == "malformed":
        record.write_text('{"format": 1, "checked_at": "soon"}', encoding="utf-8")
    elif case == "clock behind":
        options["clock"] = lambda: 999_000.0
    else:
        for path in record.parent.glob("search-index.*"):
            path.unlink()
    Mnemosyne(vault.root, **options).search("words")
    assert len(calls) == 2


def test_a_cheap_pass_is_not_recorded(vault):
    vault.write("a.md", "# a\n\nwords\n")
    Mnemosyne(vault.root).refresh()  # a few files: well under SHARE_MIN
    assert not (vault.root / ".mnemosyne" / "cache" / freshness_module.PASS_RECORD).exists()
