"""The derived-data cache under ``<vault>/.mnemosyne/cache/``.

Two file kinds, both safe to load from an untrusted sync (never pickle or marshal:
loading must not run code), both written atomically (a reader sees the old or the
new file), both rebuilt when unreadable, corrupt, foreign or of another format
(reported as ``CacheMiss``); deleting the folder loses nothing.

* **zlib JSON** (``read_json_z`` / ``write_json_z``): one zlib-compressed JSON object
  with a ``format`` field.
* **block file** (``BlockFile`` / ``write_block_file``): a zlib-compressed JSON header
  followed by independently zlib-compressed text blocks that are read on demand.
  The search index uses it so that a cold start parses only the header and then
  decompresses just the few blocks a query touches, instead of the whole index.

Block file layout:

=========  ==============================================================
bytes      content
=========  ==============================================================
16         magic ``MNEMOSYNE-BLOCKS`` (ASCII)
4          header length H, unsigned little-endian
H          zlib(JSON header); the header's ``format`` names the schema
rest       blocks; the header locates each by (offset from here, length)
=========  ==============================================================

A reader keeps its file open, so an atomic replacement by another process never
mixes two versions: the open handle still reads the old, complete file.
"""

from __future__ import annotations

import json
import os
import struct
import threading
import weakref
import zlib
from pathlib import Path

from .atomic import atomic_write_bytes

__all__ = [
    "BlockFile",
    "CacheMiss",
    "cache_dir",
    "read_json_z",
    "write_block_file",
    "write_json_z",
]

CACHE_DIR = Path(".mnemosyne") / "cache"
MAGIC = b"MNEMOSYNE-BLOCKS"
_HEADER_LEN = struct.Struct("<I")


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
    try:
        data = json.loads(zlib.decompress(raw))
    except (zlib.error, ValueError, RecursionError):
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


class BlockFile:
    """An open block file: ``header`` parsed, blocks read and decompressed on demand."""

    def __init__(self, path: Path, *, expect_format: str) -> None:
        self.path = Path(path)
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 - kept open for lazy block reads
        except FileNotFoundError:
            raise CacheMiss(None) from None
        except OSError as exc:
            raise CacheMiss(f"cannot read {self.path.name} ({exc.strerror})") from None
        self._handle = handle
        # Close the handle when this object goes away, without a ResourceWarning.
        self._finalizer = weakref.finalize(self, handle.close)
        self._lock = threading.Lock()
        try:
            start = handle.read(len(MAGIC) + _HEADER_LEN.size)
            if len(start) != len(MAGIC) + _HEADER_LEN.size or not start.startswith(MAGIC):
                raise CacheMiss(f"{self.path.name} is not a block file")
            (length,) = _HEADER_LEN.unpack(start[len(MAGIC) :])
            raw = handle.read(length)
            if len(raw) != length:
                raise CacheMiss(f"{self.path.name} is truncated")
            try:
                header = json.loads(zlib.decompress(raw))
            except (zlib.error, ValueError, RecursionError):
                raise CacheMiss(f"{self.path.name} is corrupt") from None
            self.header = _check_format(header, self.path.name, expect_format)
            self._base = len(start) + length
            self.size = os.fstat(handle.fileno()).st_size
        except BaseException:
            handle.close()
            raise

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

    def block(self, offset: int, length: int) -> str:
        """One block, decompressed to text (ValueError when it is damaged)."""
        try:
            return zlib.decompress(self.raw_block(offset, length)).decode("utf-8")
        except (zlib.error, UnicodeDecodeError) as exc:
            raise ValueError(f"{self.path.name}: damaged block ({exc})") from None

    def close(self) -> None:
        self._finalizer()


def write_block_file(
    path: Path, header: dict, blocks: list[bytes], *, root: Path | None = None
) -> int:
    """Write a block file atomically; ``blocks`` are already compressed. Returns its size.

    The caller's header locates block ``i`` at offset ``sum(len(blocks[:i]))``;
    ``root`` (the vault) makes the write refuse a symlinked folder on the way.
    """
    raw = zlib.compress(
        json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6
    )
    payload = b"".join([MAGIC, _HEADER_LEN.pack(len(raw)), raw, *blocks])
    atomic_write_bytes(path, payload, durable=False, root=root)
    return len(payload)
