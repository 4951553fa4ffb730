"""Atomic writes: temporary-file naming, and the clean-up of ones left behind."""

from __future__ import annotations

import os
import threading
import time

import pytest

import birkin_mnemosyne.atomic as atomic
from birkin_mnemosyne import Mnemosyne
from birkin_mnemosyne.atomic import (
    atomic_replace_open,
    atomic_write_bytes,
    is_temp_name,
    remove_stale_temp_files,
)

DEAD_PID = 2**22 + 12345  # above Linux's largest pid: never a live process


def _aged(path, seconds: float) -> None:
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_write_interrupted_before_the_rename_leaves_a_temp_file_named_with_its_pid(
    tmp_path, monkeypatch
):
    target = tmp_path / "note.md"

    def crash(*args):
        raise KeyboardInterrupt  # what a kill between write and rename looks like

    monkeypatch.setattr(atomic.os, "replace", crash)
    monkeypatch.setattr(atomic.os, "unlink", lambda *a: None)  # no chance to tidy up
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"secret old text")
    monkeypatch.undo()
    left = [p for p in tmp_path.iterdir()]
    assert len(left) == 1 and is_temp_name(left[0].name)
    assert left[0].name.startswith(f".note.md.{os.getpid()}-")
    assert not target.exists()


def test_stale_temp_files_are_told_from_live_ones(tmp_path):
    dead_old = tmp_path / f".a.md.{DEAD_PID}-abcdefgh.tmp"
    dead_fresh = tmp_path / f".b.md.{DEAD_PID}-abcdefgh.tmp"
    mine_old = tmp_path / f".c.md.{os.getpid()}-abcdefgh.tmp"
    legacy_old = tmp_path / ".d.md.k2j4h5g6.tmp"
    legacy_fresh = tmp_path / ".e.md.k2j4h5g6.tmp"
    ancient_mine = tmp_path / f".f.md.{os.getpid()}-abcdefgh.tmp"
    not_ours = tmp_path / ".notes.tmp"
    for path in (dead_old, dead_fresh, mine_old, legacy_old, legacy_fresh, ancient_mine):
        path.write_bytes(b"x")
    not_ours.write_bytes(b"x")
    for path in (dead_old, mine_old, legacy_old):
        _aged(path, 5 * 60)
    for path in (ancient_mine, not_ours):
        _aged(path, atomic.STALE_TEMP_AGE + 60)
    removed = remove_stale_temp_files(sorted(tmp_path.iterdir()))
    assert sorted(p.name for p in removed) == sorted(p.name for p in (dead_old, ancient_mine))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (dead_fresh, mine_old, legacy_old, legacy_fresh, not_ours)
    )


def test_a_refresh_removes_stale_temp_files_in_the_vault_and_its_state(vault):
    vault.write("ops/a.md", "# A\n\nzebra\n")
    engine = Mnemosyne(vault.root)
    engine.refresh()
    stale = [
        vault.root / "ops" / f".a.md.{DEAD_PID}-abcdefgh.tmp",
        vault.root / "new" / f".b.md.{DEAD_PID}-abcdefgh.tmp",  # a folder with no note
        vault.root / ".mnemosyne" / "cache" / f".search-index.blocks.{DEAD_PID}-abcdefgh.tmp",
        vault.root / ".mnemosyne" / "state" / f".usage.json.{DEAD_PID}-abcdefgh.tmp",
    ]
    live = vault.root / "ops" / f".c.md.{os.getpid()}-abcdefgh.tmp"
    for path in [*stale, live]:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("old note text", encoding="utf-8")
    for path in stale:
        _aged(path, 5 * 60)
    again = Mnemosyne(vault.root)
    assert again.search("zebra")[0]["path"] == "ops/a.md"
    assert [p for p in stale if p.exists()] == []
    assert live.exists()
    assert again.warnings == []


def test_a_busy_writer_lock_postpones_the_clean_up(vault):
    from birkin_mnemosyne.vault_lock import VaultLock

    vault.write("a.md", "# A\n\nzebra\n")
    stale = vault.root / f".a.md.{DEAD_PID}-abcdefgh.tmp"
    stale.write_bytes(b"x")
    _aged(stale, 5 * 60)
    held, release = threading.Event(), threading.Event()

    def hold():
        with VaultLock(vault.root):
            held.set()
            release.wait()

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait()
    try:
        engine = Mnemosyne(vault.root)
        assert engine.search("zebra")[0]["path"] == "a.md"
        assert stale.exists()  # another thread is writing: not now
    finally:
        release.set()
        holder.join()
    engine.refresh()
    assert not stale.exists()


def test_atomic_replace_open_hands_back_the_file_written(tmp_path):
    target = tmp_path / "f.bin"
    handle = atomic_replace_open(target, b"first")
    atomic_write_bytes(target, b"second, by someone else")
    try:
        assert handle.read() == b"first"
    finally:
        handle.close()
    assert target.read_bytes() == b"second, by someone else"
