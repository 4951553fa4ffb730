"""Atomic file writes: the only way birkin-mnemosyne replaces bytes on disk.

A write goes to a temporary file in the destination folder, is flushed and fsynced,
then renamed over the destination (``os.replace`` is atomic on POSIX and Windows), and
the folder is fsynced so the rename itself survives a crash. A reader therefore sees
either the old bytes or the new ones, never a torn file. Writing through a symlinked
file or folder is refused: a vault synced from elsewhere must not redirect writes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from .errors import InvalidPathError

__all__ = ["atomic_write_bytes", "atomic_write_text", "ensure_no_symlink", "fsync_dir"]


def fsync_dir(folder: str | os.PathLike) -> None:
    """Flush a folder's entry table (no-op where folders cannot be opened, e.g. Windows)."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def ensure_no_symlink(path: Path, *, root: Path | None = None) -> None:
    """Refuse ``path`` if it, or any folder between ``root`` and it, is a symlink."""
    path = Path(path)
    parts = [path]
    if root is not None:
        root = Path(root)
        try:
            rel = path.relative_to(root)
        except ValueError:
            rel = None
        if rel is not None:
            current = root
            for part in rel.parts[:-1]:
                current = current / part
                parts.append(current)
    for candidate in parts:
        if candidate.is_symlink() or _is_junction(candidate):
            raise InvalidPathError(
                f"refusing to write through a symbolic link: {candidate} — "
                "replace the link with a real file or folder",
                rule="symlink",
            )


def _is_junction(path: Path) -> bool:
    is_junction = getattr(os.path, "isjunction", None)  # Python 3.12+
    return bool(is_junction and is_junction(path))


def atomic_write_bytes(
    path: str | os.PathLike,
    data: bytes,
    *,
    root: str | os.PathLike | None = None,
    durable: bool = True,
) -> None:
    """Replace ``path`` with ``data`` atomically, creating missing parent folders.

    ``root`` (the vault) bounds the symlink check. ``durable=False`` skips the fsyncs,
    for derived files (caches) whose loss costs only a rebuild.
    """
    path = Path(path)
    ensure_no_symlink(path, root=Path(root) if root is not None else None)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if path.exists():
            with contextlib.suppress(OSError):
                os.chmod(tmp_name, path.stat().st_mode & 0o7777)
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if durable:
        fsync_dir(path.parent)


def atomic_write_text(
    path: str | os.PathLike,
    text: str,
    *,
    root: str | os.PathLike | None = None,
    durable: bool = True,
) -> None:
    """``atomic_write_bytes`` for UTF-8 text; newlines are written exactly as given."""
    atomic_write_bytes(path, text.encode("utf-8"), root=root, durable=durable)
