"""Columns of the search index's base, decoded on first use (``Index.notes``, headings).

Until format 5 the base's header held every note's metadata row and every section's
heading as one JSON document: at 104k notes 54 MB of JSON, ~1 s to parse on every
opening of the vault, though a first search reads the rows of the few notes it
returns. Format 6 stores them in columns cut into chunks of ``CHUNK`` values, each
chunk its own zlib block of a JSON array; the header keeps only where each chunk is.
An opening decodes the ``path`` column (every note's path is needed to map paths to
ids); any other chunk is decoded when a value in it is first read.

* ``ChunkedList``: one column, a read-only list of the stored values plus appends.
* ``NoteRows``: ``Index.notes``, note id -> metadata mapping (None = removed); a
  stored note's mapping reads each field from its column when first asked for;
  ``column(name)`` gives one field of every note without any row (what a stat pass
  or the key map needs).

A chunk that cannot be read (damaged, crafted, of the wrong shape) raises
``IndexCorruptError`` when it is first read; the engine then rebuilds, as it does for a
damaged postings block.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping

__all__ = [
    "CHUNK",
    "EAGER_ROWS",
    "ChunkedList",
    "IndexCorruptError",
    "NoteRows",
    "of_types",
    "read_chunks",
    "write_chunks",
]

# Values per chunk. Measured (2026-12-02, 104k-note footprint vault): a chunk of 1,024
# values of one column inflates and parses in 0.02-0.3 ms, and the header then lists
# 1,836 note chunks and 567 heading chunks (a 77 KB header, 11 ms to open). Not tuned
# further: smaller chunks would not help a first search, whose candidates are spread
# over the whole vault.
CHUNK = 1024
# zlib level of a chunk: written at every build and merge (as the header, cache.py).
CHUNK_LEVEL = 1
# Up to this many notes, an opening reads every row at once into plain dicts: on the
# 258-note Tessellate vault the lazy rows cost warm searches ~3 % (the mapping's
# Python-level field lookups); reading them all costs a few small chunks.
EAGER_ROWS = 2 * CHUNK


class IndexCorruptError(ValueError):
    """Stored index data (a postings block, a column chunk) cannot be read."""


def _chunk_values(text: str) -> list:
    """The values of a chunk (ValueError when it is not a JSON array)."""
    values = json.loads(text)
    if not isinstance(values, list):
        raise ValueError("a chunk that is not a JSON array")
    return values


def write_chunks(values: list, offset: int) -> tuple[dict, list[bytes]]:
    """(stored form, compressed blocks) of ``values`` cut into chunks, from ``offset``.

    The stored form is ``{"chunk": values a chunk, "blocks": entries}``, an entry
    ``[offset, compressed length, inflated length]``.
    """
    size = CHUNK
    entries, blocks = [], []
    for start in range(0, len(values), size):
        text = json.dumps(
            values[start : start + size], ensure_ascii=False, separators=(",", ":")
        ).encode("utf-8")
        data = zlib.compress(text, CHUNK_LEVEL)
        entries.append([offset, len(data), len(text)])
        blocks.append(data)
        offset += len(data)
    return {"chunk": size, "blocks": entries}, blocks


def read_chunks(name: str, packed: dict, reader, count: int, check=None) -> ChunkedList:
    """The column ``write_chunks`` stored as ``packed`` in ``reader``'s file."""
    return ChunkedList(name, packed["blocks"], reader, count, check, packed["chunk"])


def _check_entries(entries, count: int, chunk: int, name: str) -> list[list[int]]:
    if type(chunk) is not int or chunk < 1:
        raise ValueError(f"index column {name} has a malformed chunk size")
    if not isinstance(entries, list) or len(entries) != -(-count // chunk):
        raise ValueError(f"index column {name} has another number of chunks than values")
    for entry in entries:
        if (
            not isinstance(entry, list)
            or len(entry) != 3
            or not all(type(n) is int and n >= 0 for n in entry)
        ):
            raise ValueError(f"index column {name} has a malformed chunk entry")
    return entries


class ChunkedList:
    """A stored column read chunk by chunk, then the values appended since it was stored.

    ``check`` validates one decoded chunk, a list (False = the chunk is damaged).
    """

    def __init__(
        self,
        name: str,
        entries: list | None = None,
        reader=None,
        count: int = 0,
        check: Callable[[list], bool] | None = None,
        chunk: int = CHUNK,
    ) -> None:
        self.name = name
        self._entries = _check_entries(entries or [], count, chunk, name)
        self._size = chunk
        if self._entries and reader is None:
            raise ValueError(f"index column {name} without a block file")
        self._reader = reader
        self._stored = count
        self._chunks: list[list | None] = [None] * len(self._entries)
        self._check = check
        self._extra: list = []

    def __len__(self) -> int:
        return self._stored + len(self._extra)

    def _chunk(self, c: int) -> list:
        chunk = self._chunks[c]
        if chunk is None:
            offset, length, size = self._entries[c]
            expected = min(self._size, self._stored - c * self._size)
            try:
                chunk = _chunk_values(self._reader.block(offset, length, size))
            except (ValueError, RecursionError) as exc:
                raise IndexCorruptError(f"index column {self.name} cannot be read ({exc})") from exc
            if len(chunk) != expected:
                raise IndexCorruptError(f"index column {self.name} has a chunk of another size")
            check = self._check
            if check is not None and not check(chunk):
                raise IndexCorruptError(f"index column {self.name} holds a malformed value")
            self._chunks[c] = chunk
        return chunk

    def __getitem__(self, i: int):
        if i < 0:
            i += len(self)
        if 0 <= i < self._stored:
            return self._chunk(i // self._size)[i % self._size]
        return self._extra[i - self._stored]

    def __iter__(self) -> Iterator:
        for c in range(len(self._entries)):
            yield from self._chunk(c)
        yield from self._extra

    def append(self, value) -> None:
        self._extra.append(value)

    def spans(self) -> Iterator[tuple[int, int]]:
        """(offset, length) of every stored chunk (to check the file holds them)."""
        return ((offset, length) for offset, length, _ in self._entries)

    def to_list(self) -> list:
        out: list = []
        for c in range(len(self._entries)):
            out.extend(self._chunk(c))
        out.extend(self._extra)
        return out


class _StoredRow(Mapping):
    """A stored note's row: each field read from its column when first asked for.

    What ``Index.notes[nid]`` gives for a stored note, so that telling a live note from
    a removed one (``is None``, as scoring does for every title match) decodes nothing,
    and ranking, which reads a few fields of every candidate, decodes those columns
    only. Iterating it (``dict(row)``) reads every field.
    """

    __slots__ = ("_nid", "_owner", "_values")

    def __init__(self, owner: NoteRows, nid: int) -> None:
        self._owner = owner
        self._nid = nid
        self._values: dict = {}

    def __getitem__(self, key: str):
        values = self._values
        try:
            return values[key]
        except KeyError:
            pass
        value = values[key] = self._owner._columns[key][self._nid]
        return value

    def get(self, key: str, default=None):
        if key in self._owner._columns:
            return self[key]
        return default

    def __contains__(self, key: object) -> bool:
        return key in self._owner._columns

    def __iter__(self) -> Iterator[str]:
        return iter(self._owner._columns)

    def __len__(self) -> int:
        return len(self._owner._columns)

    def __repr__(self) -> str:
        return repr(dict(self))


def of_types(*types: type, empty: object = ...) -> Callable[[list], bool]:
    """A chunk check: every value of one of ``types`` (and none equal to ``empty``).

    ``map(type, ...)`` into a set runs in C: a Python test per value cost a cold
    search ~0.1 s at 104k notes, when ranking reads a column whole.
    """
    allowed = frozenset(types)

    def check(values: list) -> bool:
        if empty is not ... and empty in values:
            return False
        return set(map(type, values)) <= allowed

    return check


_UNREAD = object()  # a stored row not asked for yet


class NoteRows:
    """``Index.notes``: note id -> metadata mapping, or None for a removed note.

    A stored note's row is a read-only mapping over the columns (``_StoredRow``),
    made when first asked for and then kept; rows are never changed once made (a
    changed note is removed and added again), so a row and the columns always agree.
    Rows appended since the base was written are plain dicts.
    """

    def __init__(self, columns: dict[str, ChunkedList] | None = None) -> None:
        self._columns = columns or {}
        paths = self._columns["path"].to_list() if self._columns else []
        self._rows: list = [_UNREAD if path is not None else None for path in paths]
        self._paths = paths  # of the stored notes (None = removed), for by_path
        if self._columns and len(paths) <= EAGER_ROWS:
            # A small vault: every row read now, as a plain dict (its few chunks cost
            # less than the mapping's per-field lookups over the searches to come).
            names = list(self._columns)
            table = zip(*(self._columns[name].to_list() for name in names))
            self._rows = [
                None if path is None else dict(zip(names, values))
                for path, values in zip(paths, table)
            ]

    @classmethod
    def stored(
        cls, fields: Iterable[str], packed: dict, reader, checks: dict[str, Callable]
    ) -> NoteRows:
        """The rows of ``packed`` (``pack``'s form) in ``reader``'s file."""
        return cls(_stored_columns(fields, packed, reader, checks))

    def take_stored_paths(self) -> list:
        """Paths of the stored notes by id (None = removed), as read at opening; once."""
        paths, self._paths = self._paths, []
        return paths

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, nid: int):
        row = self._rows[nid]
        if row is _UNREAD:
            row = self._rows[nid] = _StoredRow(self, nid)
        return row

    def __setitem__(self, nid: int, value) -> None:
        if value is not None:
            raise ValueError("a note row is only ever replaced by None (removed)")
        self._rows[nid] = None

    def __iter__(self) -> Iterator:
        for nid in range(len(self._rows)):
            yield self[nid]

    def append(self, row: dict) -> None:
        self._rows.append(row)

    def column(self, name: str) -> list:
        """``name`` of every note by id (None for a removed note), rows not built."""
        rows = self._rows
        stored = self._columns[name].to_list() if self._columns else []
        out = [None if row is None else value for value, row in zip(stored, rows)]
        out.extend(None if row is None else row[name] for row in rows[len(stored) :])
        return out

    def spans(self) -> Iterator[tuple[int, int]]:
        """(offset, length) of every stored chunk of every column."""
        for column in self._columns.values():
            yield from column.spans()

    def pack(self, fields: Iterable[str], offset: int) -> tuple[dict, list[bytes]]:
        """The stored form of every row (blocks from ``offset``) and its blocks."""
        columns, blocks, size = {}, [], CHUNK
        for name in fields:
            packed, data = write_chunks(self.column(name), offset)
            offset += sum(map(len, data))
            columns[name] = packed["blocks"]
            size = packed["chunk"]
            blocks.extend(data)
        return {"count": len(self._rows), "chunk": size, "columns": columns}, blocks

    def adopt(self, fields: Iterable[str], packed: dict, reader, checks: dict) -> None:
        """After ``pack``'s form was written to ``reader``'s file: read columns from it.

        The rows already built are kept (the file holds the same values); nothing is
        decoded until it is read.
        """
        if packed["count"] != len(self._rows):
            raise ValueError("the index notes written are not the ones held")
        self._columns = _stored_columns(fields, packed, reader, checks)


def _stored_columns(fields: Iterable[str], packed: dict, reader, checks: dict) -> dict:
    count, chunk = packed["count"], packed["chunk"]
    if type(count) is not int or count < 0:
        raise ValueError("index notes with a malformed count")
    stored = packed["columns"]
    fields = tuple(fields)
    if not isinstance(stored, dict) or set(stored) != set(fields):
        raise ValueError("index notes have other columns than this version writes")
    return {
        name: ChunkedList(name, stored[name], reader, count, checks.get(name), chunk)
        for name in fields
    }
