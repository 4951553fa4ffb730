"""The index on disk as a base and a log: equal to a fresh build, crash-safe, shared."""

from __future__ import annotations

import shutil
import struct
import tempfile
import threading
import zlib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import birkin_mnemosyne.index_store as store_module
from birkin_mnemosyne import Mnemosyne, VaultMemory
from birkin_mnemosyne.cache import LogFile
from birkin_mnemosyne.index_store import LOG_FILE, LOG_FORMAT, BuildLock

CLOCK = 1_790_000_000.0  # every engine searches at the same time (recency factors)
WORDS = ["cat", "dog", "emu", "fox", "gnu", "hen", "owl", "yak", "zebu", "auk"]


def _engine(root: Path, **options) -> Mnemosyne:
    return Mnemosyne(root, clock=lambda: CLOCK, **options)


def _log_path(root: Path) -> Path:
    return root / ".mnemosyne" / "cache" / LOG_FILE


def _records(root: Path) -> list[dict]:
    log = LogFile(_log_path(root), expect_format=LOG_FORMAT)
    try:
        return log.read_records()
    finally:
        log.close()


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _results(engine: Mnemosyne, queries: list[str]) -> list:
    """What a search answers, in a form that does not depend on how ties are ordered.

    Ties between equal scores are broken by note id, and ids follow the order notes
    entered the index; limit 50 returns every candidate of these small vaults.
    """
    out = []
    for query in queries:
        hits = engine.search_response(query, 50)
        rows = hits["hits"] or hits["best_weak"]
        out.append(sorted((h["path"], h["score"], h["heading"], h["snippet"]) for h in rows))
    return out


def _statistics(engine: Mnemosyne) -> dict:
    stats = engine.stats()
    index = engine.index
    return {
        "counts": {k: stats[k] for k in ("notes", "archived", "skipped", "sections", "zones")},
        "sums": dict(index._sum),
        "live": (index.live_notes, index.live_sections),
        "paths": sorted(index.by_path),
        "keys": engine.keys(),
        "live_count": engine.freshness()["notes"],
    }


def _fresh_build(root: Path, into: Path) -> Mnemosyne:
    """A full build over a copy of the vault's notes (the cache left behind)."""
    shutil.copytree(root, into, ignore=shutil.ignore_patterns(".mnemosyne"))
    engine = _engine(into)
    engine.refresh(full=True)
    return engine


# One step: (kind, note number, words). Notes live in two folders so renames move them.
_step = st.tuples(
    st.sampled_from(["write", "write", "delete", "rename"]),
    st.integers(0, 7),
    st.lists(st.sampled_from(WORDS), min_size=0, max_size=12),
)


def _note_text(number: int, words: list[str]) -> str:
    half = len(words) // 2
    return (
        f"# Note {number} {words[0] if words else ''}\n\n{' '.join(words[:half])}\n\n"
        f"## Part {''.join(words[half : half + 1])}\n\n{' '.join(words[half:])}\n"
    )


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    steps=st.lists(st.lists(_step, min_size=1, max_size=4), min_size=1, max_size=6),
    via_paths=st.lists(st.booleans(), min_size=6, max_size=6),
    actors=st.lists(st.integers(0, 1), min_size=6, max_size=6),
    log_min=st.sampled_from([0, 400, 1 << 30]),
    tail_share=st.sampled_from([0.0, 0.25, 1e9]),
)
def test_random_changes_give_what_a_fresh_build_gives(
    steps, via_paths, actors, log_min, tail_share
):
    """Edits, adds, deletes and renames, saved as log records and merges in any mix by
    two processes in turn: each answers as the other after every change (taking the
    other's saves from the log, no stat pass), and both, a process opening the vault
    afterwards and a fresh build answer alike."""
    queries = [*WORDS, "cat dog", "owl yak zebu", "note part"]
    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as patch:
        patch.setattr(store_module, "LOG_MIN_BYTES", log_min)
        patch.setattr(store_module, "LOG_SHARE", 0.0)
        patch.setattr("birkin_mnemosyne.index.TAIL_SHARE", tail_share)
        root = Path(tmp) / "vault"
        root.mkdir()
        for number in range(4):
            _write(root, f"a/n{number}.md", _note_text(number, WORDS[number : number + 3]))
        engines = [_engine(root, refresh_interval=3600), _engine(root, refresh_interval=3600)]
        engines[0].refresh()
        engines[1].search("cat")
        for batch, by_path, actor in zip(steps, via_paths, actors):
            writer, follower = engines[actor], engines[1 - actor]
            touched = set()
            for kind, number, words in batch:
                present = sorted((root / "a").glob(f"n{number}.md")) + sorted(
                    (root / "b").glob(f"n{number}.md")
                )
                if kind == "write":
                    rel = present[0].relative_to(root).as_posix() if present else f"a/n{number}.md"
                    _write(root, rel, _note_text(number, words) + "\n" * len(touched))
                    touched.add(rel)
                elif present and kind == "delete":
                    present[0].unlink()
                    touched.add(present[0].relative_to(root).as_posix())
                elif present:  # rename into the other folder
                    old = present[0].relative_to(root).as_posix()
                    new = ("b/" if old.startswith("a/") else "a/") + present[0].name
                    (root / new).parent.mkdir(exist_ok=True)
                    present[0].rename(root / new)
                    touched |= {old, new}
            if by_path:
                writer.refresh(paths=sorted(touched))  # what a write through the API does
            else:
                writer.refresh()  # a stat pass
            # The other process takes the writer's saves from the log.
            assert _results(follower, queries) == _results(writer, queries)
        reopened = _engine(root, refresh_interval=3600)
        built = _fresh_build(root, Path(tmp) / "copy")
        expected = _results(built, queries)
        for engine in (*engines, reopened):
            assert _results(engine, queries) == expected
            assert _statistics(engine) == _statistics(built)
            assert engine.warnings == []
        # The vocabulary counts posting lists only dead notes still hold until the next
        # compaction, so it may differ from a fresh build's, but not between processes.
        assert len({engine.stats()["terms"] for engine in (*engines, reopened)}) == 1
        for engine in (*engines, reopened, built):
            engine.close()


# -- crash safety --------------------------------------------------------------------


@pytest.fixture
def saved(vault):
    """A built vault with one logged change: (root, writer engine)."""
    for i in range(6):
        vault.write(f"n{i}.md", f"# Note {i}\n\nrestore database item{i}\n")
    writer = _engine(vault.root, refresh_interval=3600)
    writer.refresh()
    vault.write("late.md", "# Late\n\nzeppelin hangar\n")
    writer.refresh(paths=["late.md"])
    return vault.root, writer


def test_a_torn_record_is_never_read_and_the_next_save_cuts_it_off(saved):
    root, writer = saved
    log = _log_path(root)
    whole = log.read_bytes()
    # A crash mid-append: half a record after the last whole one.
    _write(root, "later.md", "# Later\n\nairship\n")
    writer.refresh(paths=["later.md"])
    grown = log.read_bytes()
    log.write_bytes(grown[: len(whole) + (len(grown) - len(whole)) // 2])
    reader = _engine(root)
    assert [h["path"] for h in reader.search("zeppelin")] == ["late.md"]
    assert reader.search("airship")[0]["path"] == "later.md"  # its stat pass re-read it
    assert reader.warnings == []
    # The reader's own save appended after cutting the torn half off.
    records = _records(root)
    assert [r["notes"][0][0][0] for r in records] == ["late.md", "later.md"]
    assert _engine(root).search("airship")[0]["path"] == "later.md"


def test_a_record_that_fails_its_crc_is_never_read(saved):
    root, writer = saved
    log = _log_path(root)
    data = bytearray(log.read_bytes())
    data[-5] ^= 0xFF  # one flipped byte in the last record's payload
    log.write_bytes(bytes(data))
    reader = _engine(root, refresh_interval=3600)
    # The record is left out (its note is found again by the stat pass), nothing misread.
    assert reader.search("zeppelin")[0]["path"] == "late.md"
    assert reader.warnings == []
    assert [r["notes"][0][0][0] for r in _records(root)] == ["late.md"]


def test_a_well_framed_but_malformed_record_is_refused_with_one_warning(saved):
    root, writer = saved
    import json

    bad = {"at": 0, "removed": [], "notes": [[["../../etc/passwd.md"], [], {}, {}, []]]}
    text = json.dumps(bad).encode()
    payload = zlib.compress(text)
    lengths = struct.pack("<II", len(payload), len(text))
    frame = lengths + struct.pack("<I", zlib.crc32(payload, zlib.crc32(lengths))) + payload
    with open(_log_path(root), "ab") as handle:
        handle.write(frame)
    reader = _engine(root, refresh_interval=3600)
    assert reader.search("zeppelin")[0]["path"] == "late.md"
    assert len(reader.warnings) == 1 and "log is damaged" in reader.warnings[0]
    assert all("passwd" not in p for p in reader.note_paths())
    assert _records(root) == []  # its first save wrote a new base and an empty log
    _write(root, "more.md", "# More\n\nblimp\n")
    reader.refresh(paths=["more.md"])
    assert len(_records(root)) == 1
    again = _engine(root)
    assert again.search("blimp")[0]["path"] == "more.md" and again.warnings == []


def test_a_log_left_by_a_crash_between_base_and_log_is_ignored(saved, monkeypatch):
    root, writer = saved
    stale = _log_path(root).read_bytes()
    monkeypatch.setattr(store_module, "LOG_MIN_BYTES", 0)
    monkeypatch.setattr(store_module, "LOG_SHARE", 0.0)
    _write(root, "merged.md", "# Merged\n\ndirigible\n")
    writer.refresh(paths=["merged.md"])  # a merge: new base, new log
    _log_path(root).write_bytes(stale)  # as if the new log had never been renamed in
    reader = _engine(root, refresh_interval=3600)
    assert reader.search("dirigible")[0]["path"] == "merged.md"
    assert reader.search("zeppelin")[0]["path"] == "late.md"
    assert reader.warnings == []


def test_a_damaged_tail_block_met_by_a_merge_rebuilds_with_one_warning(saved, monkeypatch):
    from birkin_mnemosyne.cache import BlockFile, write_block_file
    from birkin_mnemosyne.index_store import INDEX_FORMAT

    root, writer = saved
    monkeypatch.setattr(store_module, "LOG_MIN_BYTES", 0)
    monkeypatch.setattr(store_module, "LOG_SHARE", 0.0)
    _write(root, "tail.md", "# Tail\n\nairship\n")
    writer.refresh(paths=["tail.md"])  # a merge: the added postings are tails now
    path = root / ".mnemosyne" / "cache" / "search-index.blocks"
    reader = BlockFile(path, expect_format=INDEX_FORMAT)
    header, blocks, offset = reader.header, [], 0
    for name in ("sections", "note_fields"):
        for run in ("blocks", "tails"):
            for entry in header["index"][name][run]:
                data = reader.raw_block(entry[1], entry[2])
                if run == "tails":
                    data = zlib.compress(b"not postings\tat all\there")
                    entry[2], entry[3] = len(data), len(zlib.decompress(data))
                entry[1] = offset
                blocks.append(data)
                offset += len(data)
    reader.close()
    write_block_file(path, header, blocks).close()
    reader = _engine(root, refresh_interval=3600)
    _write(root, "next.md", "# Next\n\ndirigible\n")
    reader.refresh(paths=["next.md"])  # its save merges, reading the tails
    assert len(reader.warnings) == 1 and "cache is damaged" in reader.warnings[0]
    assert reader.search("dirigible")[0]["path"] == "next.md"
    assert reader.search("airship")[0]["path"] == "tail.md"
    again = _engine(root)
    assert again.search("airship")[0]["path"] == "tail.md" and again.warnings == []


# -- several processes ----------------------------------------------------------------


def test_a_reader_follows_a_merge_without_reading_the_base_again(saved, monkeypatch):
    root, writer = saved
    reader = _engine(root, refresh_interval=3600)
    reader.search("restore")
    opened = []
    real = store_module.BlockFile

    def counting(*args, **kwargs):
        opened.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(store_module, "BlockFile", counting)
    monkeypatch.setattr(store_module, "LOG_MIN_BYTES", 0)
    monkeypatch.setattr(store_module, "LOG_SHARE", 0.0)
    for name in ("one", "two"):
        _write(root, f"{name}.md", f"# {name}\n\nblimp {name}\n")
        writer.refresh(paths=[f"{name}.md"])  # each save merges
        assert reader.search(f"blimp {name}")[0]["path"] == f"{name}.md"
    # The writer read back its own files; the reader followed both merges from the
    # logs alone.
    assert opened == []
    # A reader that misses a whole merge between two searches cannot know what the log
    # in between held: it reads the new base.
    for name in ("four", "five"):
        _write(root, f"{name}.md", f"# {name}\n\nblimp {name}\n")
        writer.refresh(paths=[f"{name}.md"])
    assert {h["path"] for h in reader.search("blimp", limit=20)} == {
        "one.md",
        "two.md",
        "four.md",
        "five.md",
    }
    assert len(opened) == 1
    monkeypatch.undo()
    # A rebuild elsewhere is no base this reader equals: it reads the new one.
    _engine(root).refresh(full=True)
    _write(root, "three.md", "# three\n\nblimp three\n")
    VaultMemory(root).engine.refresh(paths=["three.md"])
    assert len(reader.search("blimp", limit=20)) == 5 and reader.warnings == []


def test_a_write_through_the_api_is_seen_by_another_process_at_once(vault):
    vault.write("a.md", "# A\n\nrestore database\n")
    one = VaultMemory(vault.root)
    other = _engine(vault.root, refresh_interval=3600)  # no stat pass for an hour
    assert other.search("zeppelin") == []
    one.write_note("airships", "zeppelin hangar notes", zone="w")
    assert other.search("zeppelin")[0]["path"] == "w/airships.md"  # read from the log
    assert one.engine.search("zeppelin")[0]["path"] == "w/airships.md"


def test_a_skipped_save_is_logged_by_the_next_one(saved, monkeypatch):
    root, writer = saved
    holder_ready, release = threading.Event(), threading.Event()

    def hold():  # another "process" holding the save lock (another thread waits too)
        from birkin_mnemosyne.vault_lock import VaultLock

        with VaultLock(root, lock_file=store_module.SAVE_LOCK):
            holder_ready.set()
            release.wait(30)

    monkeypatch.setattr(store_module, "SAVE_LOCK_WAIT", 0.0)
    thread = threading.Thread(target=hold)
    thread.start()
    holder_ready.wait(30)
    try:
        _write(root, "skipped.md", "# Skipped\n\nairship\n")
        writer.refresh(paths=["skipped.md"])
        assert len(_records(root)) == 1  # not saved: the lock was taken
    finally:
        release.set()
        thread.join()
    _write(root, "next.md", "# Next\n\nblimp\n")
    writer.refresh(paths=["next.md"])
    assert [len(r["notes"]) for r in _records(root)] == [1, 2]
    reader = _engine(root, refresh_interval=3600)
    assert reader.search("airship")[0]["path"] == "skipped.md"


# -- one build across processes -------------------------------------------------------


def _many(vault, n: int = 30) -> None:
    for i in range(n):
        vault.write(f"n{i}.md", f"# Note {i}\n\nrestore database item{i}\n")


def test_a_second_process_waits_for_the_first_build_and_parses_nothing(vault, monkeypatch):
    import birkin_mnemosyne.engine as engine_module

    _many(vault)
    monkeypatch.setattr(engine_module, "BUILD_LOCK_MIN", 5)
    building, release = threading.Event(), threading.Event()
    first = _engine(vault.root)
    real_parse = first._parse

    def slow_parse(paths):  # the first build stops midway until the second is waiting
        for i, doc in enumerate(real_parse(paths)):
            if i == 10:
                building.set()
                release.wait(30)
            yield doc

    first._parse = slow_parse
    thread = threading.Thread(target=first.refresh)  # a thread stands in for a process
    thread.start()
    building.wait(30)
    second = _engine(vault.root)
    parsed = []
    real_second = second._parse
    second._parse = lambda paths: (parsed.append(len(paths)), real_second(paths))[1]
    progress = []

    def report(event):
        progress.append((event.done, event.total))
        release.set()  # the second is waiting now: let the first finish

    second.refresh(on_progress=report)
    thread.join()
    assert parsed == [0]  # it took the first build's result
    assert progress and progress[-1][1] == 30  # and passed its progress on
    assert second.search("restore database item7")[0]["path"] == "n7.md"
    assert second.warnings == [] and first.warnings == []


def test_a_stalled_builder_is_not_waited_for_forever(vault, monkeypatch):
    import birkin_mnemosyne.engine as engine_module

    _many(vault, 8)
    monkeypatch.setattr(engine_module, "BUILD_LOCK_MIN", 5)
    monkeypatch.setattr(store_module, "BUILD_STALL", 0.05)
    held, release = threading.Event(), threading.Event()

    def hold():
        lock = BuildLock(vault.root)
        assert lock.try_acquire()
        held.set()
        release.wait(30)
        lock.release()

    thread = threading.Thread(target=hold)
    thread.start()
    held.wait(30)
    try:
        engine = _engine(vault.root)
        assert engine.refresh()["added"] == 8  # built it itself
        assert engine.search("item3")[0]["path"] == "n3.md"
    finally:
        release.set()
        thread.join()


def test_a_save_reads_what_another_appended_meanwhile_before_its_own_record(saved):
    root, writer = saved
    other = _engine(root, refresh_interval=3600)
    other.search("restore")
    # The writer saves after the other process has looked at the log for the last
    # time before its own save (as two processes racing would).
    other._follow = lambda index: index
    _write(root, "mine.md", "# Mine\n\nairship\n")
    writer.refresh(paths=["mine.md"])
    _write(root, "theirs.md", "# Theirs\n\nblimp\n")
    other.refresh(paths=["theirs.md"])
    logged = [r["notes"][0][0][0] for r in _records(root)]
    assert logged == ["late.md", "mine.md", "theirs.md"]  # nothing cut off, in order
    assert other.search("airship")[0]["path"] == "mine.md"
    assert writer.search("blimp")[0]["path"] == "theirs.md"
