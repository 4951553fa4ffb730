"""The block-file cache: bounded decompression, own-file adoption, saves across processes."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest

import birkin_mnemosyne.cache as cache_module
from birkin_mnemosyne import Mnemosyne
from birkin_mnemosyne.cache import MAGIC, BlockFile, CacheMiss, read_json_z, write_block_file
from birkin_mnemosyne.engine import INDEX_FORMAT

REPO = Path(__file__).resolve().parent.parent
BOMB = 64 * 1024 * 1024  # what the crafted files below would inflate to


def _vault(vault, n: int = 12) -> None:
    for i in range(n):
        vault.write(f"n{i}.md", f"# Note {i}\n\nrestore database item{i}\n")


def _built(vault) -> Path:
    _vault(vault)
    engine = Mnemosyne(vault.root)
    engine.refresh()
    engine.close()
    return engine.cache_path


def _peak_while(call) -> int:
    """The most memory Python held while ``call()`` ran."""
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _refused_with_peak(call, match: str) -> int:
    def refused():
        with pytest.raises(CacheMiss, match=match):
            call()

    return _peak_while(refused)


def _assert_rebuilt_once(vault) -> None:
    fresh = Mnemosyne(vault.root)
    assert fresh.search("restore database item3")[0]["path"] == "n3.md"
    assert len(fresh.warnings) == 1 and "rebuilding the search index" in fresh.warnings[0]
    fresh.close()


def test_a_header_bomb_is_a_rebuild_not_a_memory_blowup(vault):
    path = _built(vault)
    bomb = zlib.compress(b" " * BOMB, 9)  # valid JSON white space, ~64 KB compressed
    # States a modest size: inflation must stop there, not at 64 MB.
    path.write_bytes(MAGIC + struct.pack("<II", len(bomb), 1000) + bomb)
    peak = _refused_with_peak(lambda: BlockFile(path, expect_format=INDEX_FORMAT), "stated size")
    assert peak < BOMB / 8
    _assert_rebuilt_once(vault)


def test_a_header_stating_an_implausible_size_is_refused_unread(vault):
    path = _built(vault)
    bomb = zlib.compress(b" " * BOMB, 9)
    path.write_bytes(MAGIC + struct.pack("<II", len(bomb), BOMB) + bomb)
    peak = _refused_with_peak(lambda: BlockFile(path, expect_format=INDEX_FORMAT), "implausible")
    assert peak < BOMB / 8
    _assert_rebuilt_once(vault)


def test_a_cache_of_the_older_layout_is_rebuilt_with_a_plain_reason(vault):
    path = _built(vault)
    header = zlib.compress(json.dumps({"format": INDEX_FORMAT}).encode())
    path.write_bytes(b"MNEMOSYNE-BLOCKS" + struct.pack("<I", len(header)) + header)
    with pytest.raises(CacheMiss, match="older version"):
        BlockFile(path, expect_format=INDEX_FORMAT)
    _assert_rebuilt_once(vault)


def test_a_block_bomb_is_a_damaged_cache_rebuilt_once(vault):
    path = _built(vault)
    reader = BlockFile(path, expect_format=INDEX_FORMAT)
    header = reader.header
    reader.close()
    # Every postings block becomes one that inflates far past the size its entry states.
    bomb = zlib.compress(b"A" * BOMB, 9)
    blocks, offset = [], 0
    for name in ("sections", "note_fields"):
        for entry in header["index"][name]["blocks"]:
            entry[1], entry[2] = offset, len(bomb)
            blocks.append(bomb)
            offset += len(bomb)
    write_block_file(path, header, blocks).close()
    engine = Mnemosyne(path.parent.parent.parent)
    peak = _peak_while(lambda: engine.search("restore database item3"))
    assert engine.search("restore database item3")[0]["path"] == "n3.md"
    assert len(engine.warnings) == 1 and "cache is damaged" in engine.warnings[0]
    assert peak < BOMB / 4


def test_a_json_cache_bomb_is_refused(tmp_path):
    path = tmp_path / "x.json.z"
    path.write_bytes(zlib.compress(b" " * BOMB, 9))
    peak = _refused_with_peak(lambda: read_json_z(path, expect_format="x"), "stated size")
    assert peak < BOMB / 2  # no stated size: bounded by the ratio cap (about 13 MB here)
    path.write_bytes(zlib.compress(json.dumps({"format": "x", "a": [1] * 1000}).encode()))
    assert read_json_z(path, expect_format="x")["a"] == [1] * 1000


# -- a save adopts its own file ------------------------------------------------------


def test_a_save_reads_its_own_file_even_when_another_replaced_it_at_once(vault, monkeypatch):
    """Another process renaming its cache into place right after ours must not mix the two."""
    import birkin_mnemosyne.index_store as store_module

    monkeypatch.setattr(store_module, "LOG_MIN_BYTES", 0)  # every save writes the base
    monkeypatch.setattr(store_module, "LOG_SHARE", 0.0)
    _vault(vault)
    ours = Mnemosyne(vault.root, refresh_interval=3600)
    ours.refresh()
    theirs = Mnemosyne(vault.root, refresh_interval=3600)
    theirs.refresh()
    real = cache_module.atomic_replace_open
    raced = []

    def then_another_save(*args, **kwargs):
        handle = real(*args, **kwargs)
        if not raced:
            raced.append(1)
            # Another engine's save lands on the path before ours reads anything back.
            vault.write("other.md", "# Other\n\n" + " ".join(f"w{i}" for i in range(3000)))
            theirs.refresh()
        return handle

    monkeypatch.setattr(cache_module, "atomic_replace_open", then_another_save)
    vault.write("zeta.md", "# Zeta\n\nzeppelin airship\n")
    ours.refresh(paths=["zeta.md"])
    assert raced
    assert ours.search("zeppelin airship")[0]["path"] == "zeta.md"
    assert ours.search("restore database item3")[0]["path"] == "n3.md"
    assert ours.warnings == [] and theirs.warnings == []
    again = Mnemosyne(vault.root)  # the file on disk is whole too
    assert again.search("w2999")[0]["path"] == "other.md"
    assert again.warnings == []


# -- two processes, one writing notes and one searching ------------------------------

WRITER = """
import sys
import time
from birkin_mnemosyne import VaultMemory
memory = VaultMemory({vault!r})
for i in range({writes}):
    memory.write_note(f"written {{i}}", f"zeppelin mark{{i}} " + "filler " * 50, zone="w")
print("wrote", {writes})
"""

SEARCHER = """
import logging, sys
from birkin_mnemosyne import Mnemosyne, MnemosyneError
damaged = []

class Catch(logging.Handler):
    def emit(self, record):
        if "damaged" in record.getMessage():
            damaged.append(record.getMessage())

logging.getLogger("birkin_mnemosyne").addHandler(Catch())
others = 0
for i in range({searches}):
    engine = Mnemosyne({vault!r}, refresh_interval=0) if i % 10 == 0 else engine
    try:
        engine.search("restore database item3")
        engine.search("zeppelin mark1")
    except MnemosyneError:
        pass
    except Exception as exc:
        others += 1
        print("unexpected", repr(exc), file=sys.stderr)
print("others", others, "damaged", len(damaged), "warnings", len(engine.warnings))
"""


def test_a_searcher_beside_a_writer_meets_no_error_and_no_damage(vault, tmp_path):
    _vault(vault, 40)
    Mnemosyne(vault.root).refresh()
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    scripts = {
        "writer": WRITER.format(vault=str(vault.root), writes=40),
        "searcher": SEARCHER.format(vault=str(vault.root), searches=150),
    }
    procs = {}
    for name, text in scripts.items():
        script = tmp_path / f"{name}.py"
        script.write_text(text, encoding="utf-8")
        procs[name] = subprocess.Popen(
            [sys.executable, str(script)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=tmp_path,
        )
    outputs = {name: proc.communicate(timeout=300) for name, proc in procs.items()}
    for name, proc in procs.items():
        assert proc.returncode == 0, outputs[name][1].decode()
    assert outputs["writer"][0].decode().split() == ["wrote", "40"]
    assert outputs["searcher"][0].decode().split() == [
        "others",
        "0",
        "damaged",
        "0",
        "warnings",
        "0",
    ]
    final = Mnemosyne(vault.root)
    assert final.search("zeppelin mark39")[0]["path"] == "w/written-39.md"
    assert final.warnings == []


# -- two processes opening an unindexed vault ------------------------------------------

BUILDER = """
import json, sys, time
import birkin_mnemosyne.engine as engine_module
from birkin_mnemosyne import Mnemosyne
engine_module.BUILD_LOCK_MIN = 5
engine = Mnemosyne({vault!r})
real = engine._parse
parsed = []

def slow(paths):
    for doc in real(paths):
        parsed.append(doc.path)
        time.sleep({delay})  # a long build: the other process arrives during it
        yield doc

engine._parse = slow
waited = []
# progress made before this process parsed anything is the other build's
engine.refresh(on_progress=lambda e: waited.append(e.done) if e.done and not parsed else None)
hits = engine.search("restore database item7")
print(json.dumps({{"parsed": len(parsed), "waited": bool(waited), "top": hits[0]["path"],
                  "warnings": engine.warnings}}))
"""


def test_a_second_process_opening_an_unindexed_vault_waits_for_the_first_build(vault, tmp_path):
    _vault(vault, 40)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    progress = vault.root / ".mnemosyne" / "cache" / "build.json"

    def start(delay: float) -> subprocess.Popen:
        script = tmp_path / f"builder-{delay}.py"
        script.write_text(BUILDER.format(vault=str(vault.root), delay=delay), encoding="utf-8")
        return subprocess.Popen(
            [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )

    first = start(0.05)
    deadline = time.monotonic() + 60
    while not progress.exists() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)  # the first is building: it holds the lock and reports
    second = start(0.0)
    outputs = [proc.communicate(timeout=300) for proc in (first, second)]
    results = [json.loads(out.decode().strip().splitlines()[-1]) for out, _ in outputs]
    assert results[0]["parsed"] == 40 and not results[0]["waited"]
    assert results[1] == {"parsed": 0, "waited": True, "top": "n7.md", "warnings": []}
    assert results[0]["top"] == "n7.md" and results[0]["warnings"] == []
