"""The derived-data cache under ``<vault>/.mnemosyne/cache/``.

Files here are zlib-compressed JSON with a ``format`` field: never pickle or marshal,
because a vault may be synced from elsewhere and loading it must not run code. Writes
are atomic (a reader sees the old or the new file). Anything unreadable, corrupt,
foreign or of another format is reported as ``CacheMiss`` so the caller rebuilds;
deleting the folder loses nothing.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path

from .atomic import atomic_write_bytes

__all__ = ["CacheMiss", "cache_dir", "read_json_z", "write_json_z"]

CACHE_DIR = Path(".mnemosyne") / "cache"


class CacheMiss(Exception):
    """The cache file is absent or unusable; ``reason`` says why (None = simply absent)."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason or "no cache")
        self.reason = reason


def cache_dir(vault: str | os.PathLike) -> Path:
    return Path(vault) / CACHE_DIR


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
    if not isinstance(data, dict):
        raise CacheMiss(f"{path.name} is not an index object")
    found = data.get("format")
    if found != expect_format:
        raise CacheMiss(f"{path.name} has format {found!r}, this version reads {expect_format!r}")
    return data


def write_json_z(path: Path, data: dict, *, level: int = 6) -> int:
    """Write ``data`` compressed and atomically; returns the byte size written."""
    payload = zlib.compress(
        json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), level
    )
    atomic_write_bytes(path, payload, durable=False)
    return len(payload)
