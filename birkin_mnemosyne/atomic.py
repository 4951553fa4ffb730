"""Atomic file writes: the only way birkin-mnemosyne replaces bytes on disk.

A write goes to a temporary file in the destination folder, is flushed and fsynced,
then renamed over the destination (``os.replace`` is atomic on POSIX and Windows), and
the folder is fsynced so the rename itself survives a crash. A reader therefore sees
either the old bytes or the new ones, never a torn file. Writing through a symlinked
file or folder is refused: a vault synced from elsewhere must not redirect writes.

Temporary files are named ``.<name>.<pid>-<random>.tmp`` (hidden, so discovery never
indexes them). A process killed between writing and renaming leaves one behind, which
may hold note text: ``remove_stale_temp_files`` deletes those of this naming pattern
whose writer process is gone (and that are a minute old) or that are older than
``STALE_TEMP_AGE``; the engine runs it on each full refresh.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from pathlib import Path

from .errors import InvalidPathError

__all__ = [
    "STALE_TEMP_AGE",
    "atomic_replace_open",
    "atomic_write_bytes",
    "atomic_write_text",
    "ensure_no_symlink",
    "fsync_dir",
    "is_temp_name",
    "remove_stale_temp_files",
    "stale_temp_file",
    "temp_files_in",
]

# A temporary file this old is stale whoever wrote it (a write takes milliseconds).
STALE_TEMP_AGE = 15 * 60.0
# One whose writer process is gone is stale after this long (a file synced from
# another machine carries a process id that means nothing here: give it a moment).
_DEAD_WRITER_AGE = 60.0
# ``.<name>.<pid>-<8 random>.tmp``; files of older versions lack the ``<pid>-``.
_TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.(?:(?P<pid>\d{1,10})-)?[a-z0-9_]{8}\.tmp$")


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


def _replace(path: Path, data: bytes, root, durable: bool, keep_open: bool):
    ensure_no_symlink(path, root=Path(root) if root is not None else None)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(
        prefix=f".{path.name}.{os.getpid()}-", suffix=".tmp", dir=path.parent
    )
    handle = None
    try:
        handle = os.fdopen(fd, "w+b")
        handle.write(data)
        handle.flush()
        if durable:
            os.fsync(handle.fileno())
        if path.exists():
            with contextlib.suppress(OSError):
                os.chmod(tmp_name, path.stat().st_mode & 0o7777)
        if not keep_open or os.name == "nt":
            handle.close()  # Windows cannot rename a file that is open
        os.replace(tmp_name, path)
        if keep_open and os.name == "nt":  # pragma: no cover - exercised on Windows only
            handle = open(path, "rb")  # noqa: SIM115 - handed to the caller
    except BaseException:
        if handle is not None:
            handle.close()
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    if durable:
        fsync_dir(path.parent)
    if keep_open:
        handle.seek(0)
        return handle
    return None


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
    _replace(Path(path), data, root, durable, keep_open=False)


def atomic_replace_open(
    path: str | os.PathLike,
    data: bytes,
    *,
    root: str | os.PathLike | None = None,
    durable: bool = True,
):
    """``atomic_write_bytes``, returning an open binary handle on the file just written.

    The handle is the written file itself, not whatever ``path`` names a moment later:
    another process may already have renamed its own file there. (On Windows, which
    cannot rename an open file, it is reopened by path: hold a lock around the call.)
    """
    return _replace(Path(path), data, root, durable, keep_open=True)


def _pid_alive(pid: int) -> bool:
    if os.name == "nt":  # pragma: no cover - no cheap portable check: trust the age only
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process (or a number we cannot check)
    return True


def stale_temp_file(path: str | os.PathLike, *, now: float | None = None) -> bool:
    """True when ``path`` is a temporary file of ``atomic_write_bytes`` left behind."""
    path = Path(path)
    match = _TEMP_NAME.match(path.name)
    if match is None:
        return False
    try:
        info = path.stat(follow_symlinks=False)
    except OSError:
        return False
    age = (time.time() if now is None else now) - info.st_mtime
    if age >= STALE_TEMP_AGE:
        return True
    pid = match.group("pid")
    return (
        pid is not None
        and int(pid) != os.getpid()
        and age >= _DEAD_WRITER_AGE
        and not _pid_alive(int(pid))
    )


def remove_stale_temp_files(
    paths: list[str | os.PathLike], *, now: float | None = None
) -> list[Path]:
    """Delete the stale temporary files among ``paths``; returns those deleted."""
    removed = []
    for candidate in paths:
        candidate = Path(candidate)
        if stale_temp_file(candidate, now=now) and not candidate.is_symlink():
            with contextlib.suppress(OSError):
                candidate.unlink()
                removed.append(candidate)
    return removed


def temp_files_in(folder: str | os.PathLike) -> list[Path]:
    """The files in ``folder`` named like this module's temporary files (not recursive)."""
    try:
        with os.scandir(folder) as entries:
            return [Path(e.path) for e in entries if _TEMP_NAME.match(e.name)]
    except OSError:
        return []


def is_temp_name(name: str) -> bool:
    """True when ``name`` has the naming pattern of this module's temporary files."""
    return _TEMP_NAME.match(name) is not None


def atomic_write_text(
    path: str | os.PathLike,
    text: str,
    *,
    root: str | os.PathLike | None = None,
    durable: bool = True,
) -> None:
    """``atomic_write_bytes`` for UTF-8 text; newlines are written exactly as given."""
    atomic_write_bytes(path, text.encode("utf-8"), root=root, durable=durable)
