"""The base's note columns and headings (format 6): read on first use, as built."""

from __future__ import annotations

import json
import shutil
import zlib
from pathlib import Path

import pytest

import birkin_mnemosyne.index_columns as columns_module
from birkin_mnemosyne import Mnemosyne
from birkin_mnemosyne.cache import BlockFile, write_block_file
from birkin_mnemosyne.index import _ARRAYS, _STORED_FIELDS, Index
from birkin_mnemosyne.index_columns import ChunkedList, IndexCorruptError, NoteRows
from birkin_mnemosyne.index_store import INDEX_FORMAT

CLOCK = 1_790_000_000.0
QUERIES = ["cats", "fox words", "alias3", "note 7", "dogs part", "long ago"]


def _engine(root: Path) -> Mnemosyne:
    return Mnemosyne(root, clock=lambda: CLOCK)


@pytest.fixture
def notes(vault, monkeypatch):
    """Fourteen notes (one archived, one with a warning) in chunks of three, read lazily
    (the rows of a vault this small are otherwise all read at opening: ``EAGER_ROWS``)."""
    monkeypatch.setattr(columns_module, "CHUNK", 3)
    monkeypatch.setattr(columns_module, "EAGER_ROWS", 0)
    for i in range(12):
        vault.write(
            f"zone{i % 3}/n{i}.md",
            f"---\ntitle: Note {i} about cats\ntags: [t{i % 2}]\nlabels: [project:p{i % 2}]\n"
            f"aliases: [alias{i}]\ndate: 2026-03-{i + 1:02d}\n---\n# Note {i}\n\n"
            f"cats and dogs {i} [[n{(i + 1) % 12}]]\n\n## Part {i}\n\n"
            f"more words here {'fox ' * i}\n",
            dedent=False,
        )
    vault.write("_archive/old.md", "# Old\n\ncats from long ago\n")
    vault.write("broken.md", "---\ntitle: [unclosed\n---\n# Broken\n\ncats\n")
    return vault


def _results(engine: Mnemosyne) -> list:
    out = []
    for query in QUERIES:
        response = engine.search_response(query, 50)
        rows = response["hits"] or response["best_weak"]
        out.append([(h["path"], h["score"], h["heading"], h["snippet"], h["key"]) for h in rows])
    return out


def _round_trip(index: Index, path: Path) -> Index:
    header, blocks = index.to_store()
    write_block_file(path, {"format": "test/1", "index": header}, blocks).close()
    reader = BlockFile(path, expect_format="test/1")
    return Index.from_store(reader.header["index"], reader)


def test_rows_columns_and_headings_read_back_as_built(notes, tmp_path):
    engine = _engine(notes.root)
    engine.refresh()
    index = engine.index
    index.remove("zone1/n4.md")  # a removed note: None in every column
    again = _round_trip(index, tmp_path / "base.blocks")
    assert len(again.notes) == len(index.notes) == 14
    for nid in range(len(index.notes)):
        built, read = index.notes[nid], again.notes[nid]
        assert (built is None) == (read is None)
        assert built is None or dict(read) == dict(built)
    assert again.by_path == index.by_path
    assert list(again.sec_heading) == list(index.sec_heading)
    assert len(again.sec_heading) == len(index.sec_heading)
    for name in _ARRAYS:
        assert getattr(again, name) == getattr(index, name), name
    for name in _STORED_FIELDS:
        assert again.note_column(name) == index.note_column(name), name
    assert again.note_stats() == index.note_stats()
    assert "zone1/n4.md" not in again.note_stats()
    assert again.score_terms(["cats", "fox"]).scores == index.score_terms(["cats", "fox"]).scores


def test_an_opening_decodes_only_the_paths_then_the_chunks_read(notes, tmp_path):
    engine = _engine(notes.root)
    engine.refresh()
    again = _round_trip(engine.index, tmp_path / "base.blocks")
    columns = again.notes._columns

    def decoded(name: str) -> int:
        return sum(chunk is not None for chunk in columns[name]._chunks)

    assert decoded("path") == 5  # 14 notes in chunks of 3, needed for by_path
    assert all(decoded(name) == 0 for name in _STORED_FIELDS if name != "path")
    assert again.notes[7] is not None  # telling live from removed reads nothing
    assert all(decoded(name) == 0 for name in _STORED_FIELDS if name != "path")
    assert again.notes[7]["title"] == engine.index.notes[7]["title"]
    assert decoded("title") == 1  # that field only
    assert all(decoded(name) == 0 for name in _STORED_FIELDS if name not in ("path", "title"))
    assert dict(again.notes[7]) == dict(engine.index.notes[7])
    assert all(decoded(name) == 1 for name in _STORED_FIELDS if name != "path")
    assert sum(chunk is not None for chunk in again.sec_heading._chunks) == 0
    assert again.sec_heading[5] == engine.index.sec_heading[5]
    assert sum(chunk is not None for chunk in again.sec_heading._chunks) == 1


def test_a_cold_engine_answers_as_a_fresh_build(notes, tmp_path):
    first = _engine(notes.root)
    first.refresh()
    (notes.root / "zone2/n5.md").unlink()  # logged: base + log
    first.refresh()
    first.close()
    cold = _engine(notes.root)
    fresh_root = tmp_path / "copy"
    shutil.copytree(notes.root, fresh_root, ignore=shutil.ignore_patterns(".mnemosyne"))
    fresh = _engine(fresh_root)
    fresh.refresh(full=True)
    assert _results(cold) == _results(fresh)
    assert cold.keys() == fresh.keys()
    assert cold.note_names() == fresh.note_names()
    assert cold.freshness()["notes"] == fresh.freshness()["notes"] == 12
    assert cold.note_meta("zone0/n3.md") == fresh.note_meta("zone0/n3.md")
    assert [d.code for d in cold.file_warnings()] == [d.code for d in fresh.file_warnings()]
    assert cold.warnings == []


def _chunk_entries(path: Path, column: str) -> tuple[int, list]:
    reader = BlockFile(path, expect_format=INDEX_FORMAT)
    try:
        return reader._base, reader.header["index"]["notes"]["columns"][column]
    finally:
        reader.close()


@pytest.mark.parametrize("column", ["title", "mtime_ns"])
def test_a_damaged_column_chunk_rebuilds_with_one_warning(notes, column):
    """``title`` is first read by a search's hits, ``mtime_ns`` by the stat pass."""
    engine = _engine(notes.root)
    engine.refresh()
    expected = _results(engine)
    engine.close()
    base, entries = _chunk_entries(engine.cache_path, column)
    data = bytearray(engine.cache_path.read_bytes())
    for offset, length, _ in entries:
        data[base + offset + 2 : base + offset + length] = b"\xff" * (length - 2)
    engine.cache_path.write_bytes(bytes(data))
    cold = _engine(notes.root)
    assert _results(cold) == expected
    assert len(cold.warnings) == 1
    assert "rebuilding the search index" in cold.warnings[0]
    assert f"index column {column}" in cold.warnings[0]


def test_a_chunk_of_the_wrong_shape_is_damage_too(notes):
    engine = _engine(notes.root)
    engine.refresh()
    expected = _results(engine)
    engine.close()
    reader = BlockFile(engine.cache_path, expect_format=INDEX_FORMAT)
    header = reader.header
    area = reader.raw_block(0, reader.blocks_size)
    reader.close()
    # Well-formed zlib JSON, but sizes that are strings: a crafted or foreign cache.
    text = json.dumps(["12"] * 3).encode()
    crafted = zlib.compress(text)
    header["index"]["notes"]["columns"]["size"][0] = [len(area), len(crafted), len(text)]
    write_block_file(engine.cache_path, header, [area, crafted]).close()
    cold = _engine(notes.root)
    assert _results(cold) == expected
    assert len(cold.warnings) == 1 and "holds a malformed value" in cold.warnings[0]


def test_a_truncated_base_is_rebuilt_with_the_reason(notes):
    engine = _engine(notes.root)
    engine.refresh()
    expected = _results(engine)
    engine.close()
    data = engine.cache_path.read_bytes()
    engine.cache_path.write_bytes(data[:-50])  # the header is whole, the last chunks not
    cold = _engine(notes.root)
    assert _results(cold) == expected
    assert cold.warnings == [
        "rebuilding the search index: cache is damaged (the base file is truncated)"
    ]


def test_a_base_of_format_5_is_rebuilt_with_a_clear_message(notes):
    engine = _engine(notes.root)
    engine.refresh()
    expected = _results(engine)
    engine.close()
    # The old format's shape: every row in the header (as 0.1 wrote it).
    write_block_file(
        engine.cache_path,
        {"format": "mnemosyne-index/5", "index": {"notes": [["n.md", 1, 2]]}},
        [],
    ).close()
    cold = _engine(notes.root)
    assert _results(cold) == expected
    assert len(cold.warnings) == 1
    assert "'mnemosyne-index/5', this version reads 'mnemosyne-index/7'" in cold.warnings[0]
    reader = BlockFile(cold.cache_path, expect_format=INDEX_FORMAT)  # rewritten as 6
    reader.close()


def test_chunked_list_reads_chunks_appends_and_refuses_bad_entries():
    class Blocks:
        def __init__(self):
            self.data = b""

        def add(self, values):
            text = json.dumps(values).encode()
            packed = zlib.compress(text)
            entry = [len(self.data), len(packed), len(text)]
            self.data += packed
            return entry

        def block(self, offset, length, size):
            return zlib.decompress(self.data[offset : offset + length]).decode()

    blocks = Blocks()
    entries = [blocks.add(["a", "b"]), blocks.add(["c"])]
    column = ChunkedList("letters", entries, blocks, 3, None, 2)
    column.append("d")
    assert len(column) == 4 and column[2] == "c" and column[-1] == "d"
    assert list(column) == column.to_list() == ["a", "b", "c", "d"]
    with pytest.raises(ValueError, match="number of chunks"):
        ChunkedList("letters", entries, blocks, 5, None, 2)
    short = ChunkedList("letters", entries, blocks, 4, None, 3)  # states 3 a chunk
    with pytest.raises(IndexCorruptError, match="another size"):
        short[0]
    rows = NoteRows()
    rows.append({"path": "a.md"})
    with pytest.raises(ValueError, match="only ever replaced by None"):
        rows[0] = {"path": "b.md"}


def test_after_a_merge_rows_are_read_from_the_new_base(notes, monkeypatch, tmp_path):
    import birkin_mnemosyne.index_store as store_module

    _engine(notes.root).refresh()
    cold = _engine(notes.root)
    index = cold.index  # opened: no row read yet but the paths (a merge reads them all)
    old_base = cold._store.base
    notes.write("zone0/n0.md", "# Note 0\n\ncats and a zeppelin\n")
    monkeypatch.setattr(store_module, "LOG_MIN_BYTES", 0)
    monkeypatch.setattr(store_module, "LOG_SHARE", 0.0)
    cold.refresh()  # logs the edit, then merges: a new base, the old one closed
    assert cold._store.base is not old_base and cold.index is index
    copy = tmp_path / "copy"
    shutil.copytree(notes.root, copy, ignore=shutil.ignore_patterns(".mnemosyne"))
    fresh = _engine(copy)
    fresh.refresh(full=True)
    assert _results(cold) == _results(fresh)
    assert cold.note_meta("zone2/n8.md") == fresh.note_meta("zone2/n8.md")
    assert cold.warnings == []  # nothing was read from the closed file (and rebuilt)


def test_a_small_vault_reads_every_row_at_opening_as_plain_dicts(notes, monkeypatch):
    engine = _engine(notes.root)
    engine.refresh()
    lazy = _engine(notes.root)
    expected = _results(lazy)
    lazy_rows = [None if row is None else dict(row) for row in lazy.index.notes]
    monkeypatch.setattr(columns_module, "EAGER_ROWS", 100)
    eager = _engine(notes.root)
    rows = list(eager.index.notes)
    assert all(row is None or type(row) is dict for row in rows)
    assert rows == lazy_rows
    assert _results(eager) == expected
    # A damaged chunk is found at opening then, and rebuilt from the notes the same way.
    engine.close(), lazy.close(), eager.close()
    base, entries = _chunk_entries(engine.cache_path, "title")
    data = bytearray(engine.cache_path.read_bytes())
    offset, length, _ = entries[0]
    data[base + offset + 2 : base + offset + length] = b"\xff" * (length - 2)
    engine.cache_path.write_bytes(bytes(data))
    damaged = _engine(notes.root)
    assert _results(damaged) == expected
    assert len(damaged.warnings) == 1 and "rebuilding the search index" in damaged.warnings[0]
