"""The one cross-process writer lock of a vault, at ``<vault>/.mnemosyne/lock``.

Every code path that changes the vault holds this lock, so two agents, a CLI and an MCP
server writing the same vault take turns instead of losing each other's updates.

* Between processes it is an OS advisory lock on the lock file: ``fcntl.flock`` on POSIX,
  ``msvcrt.locking`` of the first byte on Windows. The OS drops it when the holder dies,
  so a crashed writer never leaves the vault locked.
* Within a process it is re-entrant: the thread that holds it may take it again (a
  counter), which lets the journal lock on its own while its caller already holds the
  lock. Other threads of the same process wait on a ``threading.RLock`` kept in a
  registry keyed by the resolved lock path, so every ``VaultLock`` for one vault shares it.

The lock file is created on first use and never deleted: deleting it while another
process waits on it would let two writers in at once (each would lock a different file).

::

    with VaultLock(vault):          # or: with vault_lock(vault, timeout=5):
        ...                         # read, check, write
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from pathlib import Path

from .atomic import ensure_no_symlink
from .errors import InvalidInputError, VaultNotFoundError, WriteRefusedError

if os.name == "nt":  # pragma: no cover - exercised on Windows only
    import msvcrt
else:
    import fcntl

__all__ = ["DEFAULT_TIMEOUT", "LOCK_FILE", "VaultLock", "vault_lock"]

DEFAULT_TIMEOUT = 30.0
LOCK_FILE = Path(".mnemosyne") / "lock"

# Polling interval while another process holds the lock: start short so an uncontended
# hand-over is quick, back off so a long wait does not spin.
_FIRST_POLL = 0.002
_MAX_POLL = 0.05


class _LockState:
    """What this process knows about one vault's lock (shared by all its VaultLocks)."""

    __slots__ = ("depth", "fd", "owner", "thread_lock")

    def __init__(self) -> None:
        self.thread_lock = threading.RLock()
        self.depth = 0  # nesting level of the owning thread; 0 = not held
        self.owner: int | None = None  # threading.get_ident() of the holder
        self.fd: int | None = None  # open lock file while the OS lock is held


_registry: dict[str, _LockState] = {}
_registry_guard = threading.Lock()


def _state_for(key: str) -> _LockState:
    with _registry_guard:
        state = _registry.get(key)
        if state is None:
            state = _registry[key] = _LockState()
        return state


def _forget_inherited_locks() -> None:
    """In a forked child, drop the parent's lock bookkeeping.

    The child shares the parent's open lock-file descriptions, so without this it would
    believe it holds the lock too. Closing the inherited descriptors does not release the
    parent's lock (an flock lives until every descriptor of the description is closed).
    """
    global _registry_guard
    for state in _registry.values():
        if state.fd is not None:
            with contextlib.suppress(OSError):
                os.close(state.fd)
    _registry.clear()
    _registry_guard = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited_locks)


def _try_os_lock(fd: int) -> bool:
    """Take the OS lock without blocking; False when another process holds it."""
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        os.lseek(fd, 0, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _os_unlock(fd: int) -> None:
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)


class VaultLock:
    """The writer lock of one vault; re-entrant per thread, exclusive across processes.

    ``timeout`` is how many seconds ``acquire`` waits before raising
    ``WriteRefusedError``; ``0`` tries once. ``lock_file`` (vault-relative) names
    another lock of the same kind: the index cache serializes its saves with one. Use it as a context manager, or pair every
    ``acquire()`` with a ``release()`` in the same thread.
    """

    def __init__(
        self,
        vault: str | os.PathLike,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        lock_file: str | os.PathLike = LOCK_FILE,
    ) -> None:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
            raise InvalidInputError(f"timeout must be a number of seconds, got {timeout!r}")
        if math.isnan(timeout) or timeout < 0:
            raise InvalidInputError(
                f"timeout must be 0 or more seconds (0 = try once), got {timeout!r}"
            )
        self.vault = Path(vault)
        # Another vault-relative file gives another, independent lock (the cache's).
        self.path = self.vault / lock_file
        self.timeout = float(timeout)
        self._key = str(self.path.resolve())
        self._depth = 0  # acquisitions made through this object and not yet released

    def __repr__(self) -> str:
        return f"VaultLock({str(self.vault)!r}, timeout={self.timeout:g}, held={self.held})"

    def __enter__(self) -> VaultLock:
        self.acquire()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self.release()

    @property
    def held(self) -> bool:
        """True while some thread of this process holds this vault's lock."""
        with _registry_guard:
            state = _registry.get(self._key)
        return state is not None and state.depth > 0

    def acquire(self) -> None:
        """Take the lock, waiting up to ``timeout`` seconds for other threads and processes."""
        deadline = time.monotonic() + self.timeout
        state = _state_for(self._key)
        if not state.thread_lock.acquire(timeout=self.timeout):
            raise WriteRefusedError(
                f"the vault is busy: another thread of this process has held the writer "
                f"lock {self.path} for more than {self.timeout:g} s — retry when it has "
                "finished writing, or pass a longer timeout"
            )
        try:
            if state.depth == 0:
                state.fd = self._lock_file(deadline)
            state.depth += 1
            state.owner = threading.get_ident()
            self._depth += 1
        except BaseException:
            state.thread_lock.release()
            raise

    def release(self) -> None:
        """Undo one ``acquire``; the OS lock is dropped when the outermost one is undone."""
        with _registry_guard:
            state = _registry.get(self._key)
        if state is None or state.owner != threading.get_ident() or self._depth <= 0:
            raise RuntimeError(
                f"VaultLock.release() without a matching acquire() in this thread ({self.path})"
            )
        self._depth -= 1
        state.depth -= 1
        try:
            if state.depth == 0:
                state.owner = None
                fd, state.fd = state.fd, None
                if fd is not None:
                    try:
                        _os_unlock(fd)
                    finally:
                        os.close(fd)  # closing alone would also drop the OS lock
        finally:
            state.thread_lock.release()

    def _lock_file(self, deadline: float) -> int:
        """Open the lock file and poll for the OS lock until ``deadline``."""
        if not self.vault.is_dir():
            raise VaultNotFoundError(
                f"vault folder not found: {self.vault} — create it first or check the path"
            )
        ensure_no_symlink(self.path, root=self.vault)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(self.path, flags, 0o644)
        try:
            delay = _FIRST_POLL
            while not _try_os_lock(fd):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise WriteRefusedError(
                        f"the vault is busy: another process holds the writer lock "
                        f"{self.path} (waited {self.timeout:g} s) — retry when that process "
                        "has finished writing, or pass a longer timeout"
                    )
                time.sleep(min(delay, remaining))
                delay = min(delay * 2, _MAX_POLL)
        except BaseException:
            os.close(fd)
            raise
        return fd


def vault_lock(vault: str | os.PathLike, *, timeout: float = DEFAULT_TIMEOUT) -> VaultLock:
    """A ``VaultLock`` for ``vault``, not yet acquired: ``with vault_lock(v): ...``."""
    return VaultLock(vault, timeout=timeout)
