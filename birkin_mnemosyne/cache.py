"""The derived-data cache under ``<vault>/.mnemosyne/cache/``.

Three file kinds, all safe to load from an untrusted sync (never pickle or marshal:
loading must not run code), all rebuilt when unreadable, corrupt, foreign or of
another format (reported as ``CacheMiss``); deleting the folder loses nothing. The
first two are written atomically (a reader sees the old or the new file); the third
grows by appends that a reader takes whole or not at all.

* **zlib JSON** (``read_json_z`` / ``write_json_z``): one zlib-compressed JSON object
  with a ``format`` field.
* **block file** (``BlockFile`` / ``write_block_file``): a zlib-compressed JSON header
  followed by independently zlib-compressed text blocks that are read on demand.
  The search index uses it so that a cold start parses only the header and then
  decompresses just the few blocks a query touches, instead of the whole index.
* **log file** (``LogFile`` / ``create_log_file`` / ``append_log_record``): a small JSON
  header, then records appended one by one, each a zlib-compressed JSON object framed
  by its lengths and a CRC-32. The search index logs its changes there between full
  writes of its block file.

Block file layout:

=========  ==============================================================
bytes      content
=========  ==============================================================
16         magic ``MNEMOSYNE-BLKS-2`` (ASCII)
4          header length H, unsigned little-endian
4          header length R once decompressed, unsigned little-endian
H          zlib(JSON header); the header's ``format`` names the schema
rest       blocks; the header locates each by (offset from here, length)
=========  ==============================================================

Log file layout:

=========  ==============================================================
bytes      content
=========  ==============================================================
16         magic ``MNEMOSYNE-LOG-01`` (ASCII)
4          header length H, unsigned little-endian (at most 1 MiB)
H          JSON header (UTF-8, not compressed); its ``format`` names the schema
per record 4 + 4 + 4 bytes: payload length P, inflated length R, CRC-32 of the
           8 length bytes and the payload (unsigned little-endian); then P bytes
           of zlib(JSON object). R is at most ``MAX_HEADER_RATIO`` times P and at
           most ``MAX_BLOCK_BYTES``.
=========  ==============================================================

A record is written with one ``write`` at the end of the last whole record, by a
caller that holds the lock serializing appends. A reader stops before the first
record that is incomplete or fails its CRC (being written, or torn by a crash) and
tries again from there next time; it never reads past such a record. The next append
cuts a torn tail off first, so what follows is never misread either.

A reader keeps its file open, so an atomic replacement by another process never
mixes two versions: the open handle still reads the old, complete file. A writer
keeps the handle of the file it wrote (``write_block_file`` returns it as a
``BlockFile``), never reopening by path, which may by then name another process's file.

Decompression is bounded: the header inflates to exactly its stated R bytes, R may be
at most ``MAX_HEADER_RATIO`` times H, and a block to at most the size its caller states
(a crafted cache of a megabyte must not inflate to gigabytes; it is a ``CacheMiss``).
"""

from __future__ import annotations

import json
import os
import struct
import threading
import weakref
import zlib
from pathlib import Path

from .atomic import atomic_replace_open, atomic_write_bytes, ensure_no_symlink

__all__ = [
    "BlockFile",
    "CacheMiss",
    "LogFile",
    "append_log_record",
    "cache_dir",
    "create_log_file",
    "file_identity",
    "read_json_z",
    "write_block_file",
    "write_json_z",
]

CACHE_DIR = Path(".mnemosyne") / "cache"
MAGIC = b"MNEMOSYNE-BLKS-2"
_OLD_MAGIC = b"MNEMOSYNE-BLOCKS"  # earlier versions: no decompressed header length
_HEADER_LEN = struct.Struct("<II")
# Largest decompressed/compressed ratio accepted for a JSON header or document.
# Measured (2026-12-01): the search-index header of a generated 200-note vault
# inflates 3.7x, of one 100,000-heading note 4.9x, of 3,000 identical one-line notes
# with numbered names 18.8x; zlib itself cannot exceed ~1032x.
MAX_HEADER_RATIO = 200
# Largest block accepted whatever its stated size. A block is ~32k characters of
# postings, or one term's postings when they are longer: at 2-4 characters a posting,
# a term in every section of a million-section vault is a few megabytes.
MAX_BLOCK_BYTES = 256 * 1024 * 1024
# zlib level of a block file's header. Measured (2026-12-02, the search index of the
# 104k-note footprint vault, a 54 MB JSON header): level 1 takes 0.58 s and 16.1 MB,
# level 6 2.48 s and 13.2 MB, and both inflate in 0.24-0.26 s. The header is written at
# every build and merge and read at every opening: level 1.
HEADER_LEVEL = 1
LOG_MAGIC = b"MNEMOSYNE-LOG-01"
_LOG_HEADER_LEN = struct.Struct("<I")
_RECORD_HEAD = struct.Struct("<III")  # payload length, inflated length, CRC-32
# A log header is a few hundred bytes; anything near this is not one.
_MAX_LOG_HEADER = 1024 * 1024


def inflate(data: bytes, limit: int, name: str) -> bytes:
    """zlib-decompress ``data`` to at most ``limit`` bytes (CacheMiss when it is more)."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error:
        raise CacheMiss(f"{name} is corrupt") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise CacheMiss(f"{name} inflates past its stated size (damaged or crafted)")
    if not inflater.eof:
        raise CacheMiss(f"{name} is truncated")
    return out


class CacheMiss(Exception):
    """The cache file is absent or unusable; ``reason`` says why (None = simply absent)."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason or "no cache")
        self.reason = reason


def cache_dir(vault: str | os.PathLike) -> Path:
    return Path(vault) / CACHE_DIR


def _check_format(data, name: str, expect_format: str) -> dict:
    if not isinstance(data, dict):
        raise CacheMiss(f"{name} is not a JSON object")
    found = data.get("format")
    if found != expect_format:
        raise CacheMiss(f"{name} has format {found!r}, this version reads {expect_format!r}")
    return data


def read_json_z(path: Path, *, expect_format: str) -> dict:
    """Load a zlib-compressed JSON object whose ``format`` equals ``expect_format``."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise CacheMiss(None) from None
    except OSError as exc:
        raise CacheMiss(f"cannot read {path.name} ({exc.strerror})") from None
    text = inflate(raw, MAX_HEADER_RATIO * len(raw) + 4096, path.name)
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise CacheMiss(f"{path.name} is corrupt") from None
    return _check_format(data, path.name, expect_format)


def write_json_z(path: Path, data: dict, *, level: int = 6, root: Path | None = None) -> int:
    """Write ``data`` compressed and atomically; returns the byte size written.

    ``root`` (the vault) makes the write refuse a symlinked folder on the way.
    """
    payload = zlib.compress(
        json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), level
    )
    atomic_write_bytes(path, payload, durable=False, root=root)
    return len(payload)


class _OpenFile:
    """A cache file kept open for later reads (a block file's lazy blocks, a log's
    appends), closed by ``close()`` or when the object goes away."""

    def __init__(self, path: Path, handle=None) -> None:
        """Open ``path`` for binary reads (a missing or unreadable file is a
        ``CacheMiss``), or keep the already open ``handle`` (its file)."""
        self.path = Path(path)
        if handle is None:
            try:
                handle = open(self.path, "rb")  # noqa: SIM115 - kept open, see above
            except FileNotFoundError:
                raise CacheMiss(None) from None
            except OSError as exc:
                raise CacheMiss(f"cannot read {self.path.name} ({exc.strerror})") from None
        self._handle = handle
        # Close the handle when this object goes away, without a ResourceWarning.
        self._finalizer = weakref.finalize(self, handle.close)
        self._lock = threading.Lock()

    def close(self) -> None:
        self._finalizer()


class BlockFile(_OpenFile):
    """An open block file: ``header`` parsed, blocks read and decompressed on demand."""

    def __init__(
        self, path: Path, *, expect_format: str, handle=None, header: dict | None = None
    ) -> None:
        """Open ``path``, or read the already open binary ``handle`` (its file).

        ``header`` is the header the caller has just written to ``handle``: it is taken
        as it is instead of being inflated and parsed again.
        """
        super().__init__(path, handle)
        handle = self._handle
        try:
            name = self.path.name
            start = handle.read(len(MAGIC) + _HEADER_LEN.size)
            if start.startswith(_OLD_MAGIC):
                raise CacheMiss(f"{name} was written by an older version")
            if len(start) != len(MAGIC) + _HEADER_LEN.size or not start.startswith(MAGIC):
                raise CacheMiss(f"{name} is not a block file")
            length, inflated = _HEADER_LEN.unpack(start[len(MAGIC) :])
            if inflated > MAX_HEADER_RATIO * length + 4096:
                raise CacheMiss(f"{name} states an implausible header size (damaged or crafted)")
            if header is None:
                raw = handle.read(length)
                if len(raw) != length:
                    raise CacheMiss(f"{name} is truncated")
                text = inflate(raw, inflated, name)
                if len(text) != inflated:
                    raise CacheMiss(f"{name} has a header of another size than it states")
                try:
                    header = json.loads(text)
                except (ValueError, RecursionError):
                    raise CacheMiss(f"{name} is corrupt") from None
            self.header = _check_format(header, self.path.name, expect_format)
            self._base = len(start) + length
            self.size = os.fstat(handle.fileno()).st_size
        except BaseException:
            handle.close()
            raise

    @property
    def blocks_size(self) -> int:
        """Bytes of blocks after the header: what block offsets may reach."""
        return self.size - self._base

    def raw_block(self, offset: int, length: int) -> bytes:
        """The compressed bytes of one block (for copying into a new file unchanged)."""
        if offset < 0 or length < 0 or self._base + offset + length > self.size:
            raise ValueError(f"{self.path.name}: block outside the file")
        with self._lock:
            self._handle.seek(self._base + offset)
            data = self._handle.read(length)
        if len(data) != length:
            raise ValueError(f"{self.path.name}: block is truncated")
        return data

    def block(self, offset: int, length: int, size: int | None = None) -> str:
        """One block, decompressed to text (ValueError when it is damaged).

        ``size`` is its stated decompressed size: the block must inflate to exactly
        that (and never past ``MAX_BLOCK_BYTES``) or it counts as damaged.
        """
        data = self.block_bytes(offset, length, size)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(f"{self.path.name}: damaged block ({exc})") from None

    def block_bytes(self, offset: int, length: int, size: int | None = None) -> bytes:
        """One block, decompressed (``block`` without the decoding to text)."""
        limit = MAX_BLOCK_BYTES if size is None else size
        if limit < 0 or limit > MAX_BLOCK_BYTES:
            raise ValueError(f"{self.path.name}: a block states an implausible size")
        try:
            data = inflate(self.raw_block(offset, length), limit, self.path.name)
            if size is not None and len(data) != size:
                raise CacheMiss("a block has another size than stated")
            return data
        except CacheMiss as exc:
            raise ValueError(f"{self.path.name}: damaged block ({exc})") from None


def write_block_file(
    path: Path, header: dict, blocks: list[bytes], *, root: Path | None = None
) -> BlockFile:
    """Write a block file atomically; ``blocks`` are already compressed.

    Returns the file written, open as a ``BlockFile`` (its ``size`` is the byte size).
    The caller's header locates block ``i`` at offset ``sum(len(blocks[:i]))``;
    ``root`` (the vault) makes the write refuse a symlinked folder on the way.
    """
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    raw = zlib.compress(text, HEADER_LEVEL)
    payload = b"".join([MAGIC, _HEADER_LEN.pack(len(raw), len(text)), raw, *blocks])
    handle = atomic_replace_open(path, payload, durable=False, root=root)
    try:
        # The header it holds is the one just written: not parsed again (a second at
        # 100k notes). The blocks are read through this handle, never the path.
        return BlockFile(path, expect_format=header.get("format"), handle=handle, header=header)
    except BaseException:
        handle.close()
        raise


def _identity(info: os.stat_result) -> tuple[int, int]:
    return (info.st_dev, info.st_ino)


def file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file ``path`` names (links not followed); None if missing."""
    try:
        return _identity(os.stat(path, follow_symlinks=False))
    except OSError:
        return None


class LogFile(_OpenFile):
    """An open log file: ``header`` parsed, records read as they arrive.

    ``end`` is the offset just past the last whole record read; ``read_records``
    continues from there. The handle stays open, so a log replaced on disk (by a
    process that wrote a new one) is still read to its end through it.
    """

    def __init__(self, path: Path, *, expect_format: str, handle=None) -> None:
        """Open ``path``, or read the already open binary ``handle`` (its file)."""
        super().__init__(path, handle)
        handle = self._handle
        try:
            name = self.path.name
            start = handle.read(len(LOG_MAGIC) + _LOG_HEADER_LEN.size)
            if len(start) != len(LOG_MAGIC) + _LOG_HEADER_LEN.size or not start.startswith(
                LOG_MAGIC
            ):
                raise CacheMiss(f"{name} is not a log file")
            (length,) = _LOG_HEADER_LEN.unpack(start[len(LOG_MAGIC) :])
            if length > _MAX_LOG_HEADER:
                raise CacheMiss(f"{name} states an implausible header size (damaged or crafted)")
            raw = handle.read(length)
            if len(raw) != length:
                raise CacheMiss(f"{name} is truncated")
            try:
                header = json.loads(raw.decode("utf-8"))
            except (ValueError, RecursionError):
                raise CacheMiss(f"{name} is corrupt") from None
            self.header = _check_format(header, name, expect_format)
            self.end = len(start) + length
            self.identity = _identity(os.fstat(handle.fileno()))
            self.records = 0  # records read so far
            self.damaged = False  # the last read stopped at a record that fails its CRC
        except BaseException:
            handle.close()
            raise

    def read_records(self) -> list[dict]:
        """The whole records after ``end`` (advancing it); stops before a partial one."""
        out = []
        name = self.path.name
        with self._lock:
            self.damaged = False
            handle = self._handle
            handle.seek(self.end)
            while True:
                head = handle.read(_RECORD_HEAD.size)
                if len(head) < _RECORD_HEAD.size:
                    break
                length, inflated, crc = _RECORD_HEAD.unpack(head)
                if (
                    not length
                    or inflated > MAX_BLOCK_BYTES
                    or inflated > MAX_HEADER_RATIO * length + 4096
                ):
                    self.damaged = True
                    break
                payload = handle.read(length)
                if len(payload) < length:
                    break  # still being written (or torn: the next append cuts it)
                if zlib.crc32(payload, zlib.crc32(head[:8])) != crc:
                    self.damaged = True
                    break
                try:
                    text = inflate(payload, inflated, name)
                    record = json.loads(text)
                except (CacheMiss, ValueError, RecursionError):
                    self.damaged = True
                    break
                if len(text) != inflated or not isinstance(record, dict):
                    self.damaged = True
                    break
                out.append(record)
                self.end += _RECORD_HEAD.size + length
                self.records += 1
        return out

    def look(self) -> tuple[bool, int] | None:
        """One stat of ``path``: (names this very file, its size now); None when missing."""
        try:
            info = os.stat(self.path, follow_symlinks=False)
        except OSError:
            return None
        return _identity(info) == self.identity, info.st_size


def create_log_file(path: Path, header: dict, *, root: Path | None = None) -> LogFile:
    """Write a log file holding only ``header``, atomically; returns it open."""
    raw = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    payload = b"".join([LOG_MAGIC, _LOG_HEADER_LEN.pack(len(raw)), raw])
    handle = atomic_replace_open(path, payload, durable=False, root=root)
    try:
        return LogFile(path, expect_format=header.get("format"), handle=handle)
    except BaseException:
        handle.close()
        raise


def append_log_record(log: LogFile, record: dict, *, root: Path | None = None) -> int:
    """Append ``record`` to ``log``'s file at ``log.end``; returns the bytes written.

    The caller holds the lock that serializes appends and has read every record
    (``read_records``): anything past ``log.end`` is then a torn tail, cut off first.
    Raises ``CacheMiss`` when ``log.path`` no longer names ``log``'s file, OSError when
    it cannot be written.
    """
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    payload = zlib.compress(text, 6)
    lengths = struct.pack("<II", len(payload), len(text))
    data = b"".join([lengths, struct.pack("<I", zlib.crc32(payload, zlib.crc32(lengths))), payload])
    ensure_no_symlink(log.path, root=root)
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(log.path, flags)
    try:
        if _identity(os.fstat(fd)) != log.identity:
            raise CacheMiss(f"{log.path.name} was replaced by another process")
        with log._lock:
            os.ftruncate(fd, log.end)
            os.lseek(fd, log.end, os.SEEK_SET)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            log.end += len(data)
            log.records += 1
    finally:
        os.close(fd)
    return len(data)
