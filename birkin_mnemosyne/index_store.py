"""The search index on disk: an immutable base plus a log of the notes changed since.

Files under ``.mnemosyne/cache/`` (docs/reference/index-format.md has the tables):

====================  =============================================================
file                  what
====================  =============================================================
search-index.blocks   the *base*: the whole index as a block file (``cache.BlockFile``),
                      written whole only by a build or a merge
search-index.log      the *log*: one record per save since the base was written, each
                      the notes that save removed and (re-)added (``cache.LogFile``)
save.lock             saves of every process take turns on it
build.lock            held by a process that parses many notes (a build); others wait
build.json            that process's progress, for those waiting
====================  =============================================================

Why: a save used to rewrite the whole block file (its header then held every note's
row), 1.3 s of a 2.7 s one-note refresh at 52k notes. A save now appends one record
whose size is that of the notes it changed; the base is written again (a *merge*)
only when the log outgrows ``LOG_SHARE`` of it, when a quarter of the ids are dead,
or after a full build.

Consistency, across processes:

* Records carry whole notes (what ``Index.add`` reads, ``index.note_record``), never
  ids: replaying a record is removing and adding those notes, so the index of base +
  log is the same whichever process wrote which record. Each note carries the
  ``(mtime_ns, size)`` it was parsed at, so a record older than the file is caught by
  the next stat pass like any other change.
* A save first reads what others appended (under ``save.lock``), so its record comes
  after theirs and a process's index is always base + every record + its own changes
  not yet saved. When another process's record touches a note this process changed but
  has not saved, the logged version is kept and the note re-checked (``recheck``).
* A reader takes another process's save by reading the log's new records, one stat
  per search to notice them; it reads the base only when it opens the vault. A merge
  first appends what it has, then writes the new base, then a new log whose header
  names its parent: the old base and how many records of the old log the new base
  holds. A reader that has read exactly those records is equal to the new base already
  and follows the new log without reading the base (its postings still come from the
  old base's file, which it keeps open); anyone else reloads.
* Crash safety: the base and a new log are written atomically (temporary file +
  rename); an append is one ``write`` at the end of the last whole record. A crash
  loses at most the record being written: a reader never reads past a record that is
  incomplete or fails its CRC, and the next append cuts such a tail off. A crash
  between the new base and its log leaves a log naming another base: it is ignored
  (the base holds everything it did).
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from . import _version
from .cache import (
    CACHE_DIR,
    BlockFile,
    CacheMiss,
    LogFile,
    append_log_record,
    cache_dir,
    create_log_file,
    file_identity,
    read_json_z,
    write_block_file,
    write_json_z,
)
from .errors import InvalidPathError, VaultNotFoundError, WriteRefusedError
from .index import Index, IndexCorruptError, note_record
from .vault_lock import VaultLock

__all__ = [
    "INDEX_FORMAT",
    "INDEX_FILE",
    "LOG_FILE",
    "LOG_FORMAT",
    "BuildLock",
    "IndexStore",
]

log = logging.getLogger("birkin_mnemosyne")

INDEX_FORMAT = "mnemosyne-index/7"
LOG_FORMAT = "mnemosyne-index-log/2"
INDEX_FILE = "search-index.blocks"
LOG_FILE = "search-index.log"
# Cache saves of all processes take turns on this lock (not the writer lock, which a
# search must never wait for); one that cannot have it in time skips its save.
SAVE_LOCK = CACHE_DIR / "save.lock"
SAVE_LOCK_WAIT = 5.0
BUILD_LOCK = CACHE_DIR / "build.lock"
BUILD_PROGRESS = "build.json"
BUILD_PROGRESS_FORMAT = "mnemosyne-build-progress/1"
# A process waiting for another's build gives up (and builds itself) when the builder
# has reported no progress for BUILD_STALL seconds, or after BUILD_WAIT in all.
BUILD_WAIT = 600.0
BUILD_STALL = 120.0
_PROGRESS_EVERY = 1.0  # seconds between the builder's progress writes
# Rewrite postings without tombstones once this share of ids is dead.
COMPACT_AT = 0.25
# Merge once the log holds this share of the base's bytes (and at least LOG_MIN_BYTES).
# A process opening the vault replays the log: measured (2026-12-02, footprint vaults)
# ~1.5 KB and 0.24-0.33 ms a changed note, against 74 ms to load the 7.1 MB base at
# 10k notes and 1.14 s for the 67 MB base at 104k (1,000 logged notes: +0.33 s); a
# merge took 0.5 s at 10k and 3.3 s at 104k. So the log holds at most ~2 % of the
# base (~90 notes at 10k, ~850 at 104k): replaying it adds at most about a third to
# opening, and merges cost about 4 ms a save, amortized. Since format 6 (column chunks
# read on first use) opening the base takes ~20 ms at 10k and ~0.15 s at 104k, so a
# full log now can cost as much as the opening itself: not re-tuned yet.
LOG_SHARE = 0.02
LOG_MIN_BYTES = 128 * 1024
# Changed notes kept for the next record; past this the next save writes the base
# whole instead (a big change is cheaper merged than logged and replayed).
UNSAVED_MAX = 2000
# Tries at opening a log that names the base just opened (a merge renames the base,
# then its log: a reader may come between the two).
_LOG_TRIES = 3


def _plausible_path(path) -> bool:
    """A vault-relative POSIX path as discovery spells them (nothing outside the vault)."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\x00" in path:
        return False
    parts = path.split("/")
    return all(part and part not in (".", "..") and not part.startswith(".") for part in parts)


class IndexStore:
    """Load, follow and save one vault's search index (the base and its log).

    ``recipe`` gives what the index depends on besides the files (a different recipe
    means rebuild); ``warn`` reports a problem to the engine; ``clean_temp`` is called
    while ``save.lock`` is held after a base was written (stale temporary files of
    interrupted saves).
    """

    def __init__(
        self,
        vault: Path,
        *,
        recipe: Callable[[], dict],
        warn: Callable[[str], None],
        clock: Callable[[], float] = time.time,
        clean_temp: Callable[[], None] | None = None,
    ) -> None:
        self.vault = vault
        self._recipe = recipe
        self._warn = warn
        self.clock = clock
        self._clean_temp = clean_temp
        # The base file this index's postings are read from. After following a merge
        # it is older than the base on disk (the index equals the new one all the same).
        self.base: BlockFile | None = None
        self.base_id: str | None = None  # the base this index equals, with the log
        self.log: LogFile | None = None
        self._log_broken = False  # a malformed record: read no further in this log
        self._ignored_log: tuple | None = None  # identity of a log of another base
        self.built_at: float | None = None
        self.updated_at: float | None = None
        # Changes of this process not yet in the log: path -> note_record, None = removed,
        # in the order they were made (a path changed again moves to the end).
        self.unsaved: dict[str, list | None] = {}
        # Paths changed past UNSAVED_MAX, or during a full build: in no record.
        self._overflow: set[str] = set()
        self.needs_base = False  # the next save writes the base whole
        self._full = False  # a full build: its base has no parent
        self.recheck: set[str] = set()  # notes to stat again (see the module docstring)
        # A merge met postings it cannot read: the caller rebuilds (what is unreadable
        # cannot be written again).
        self.damaged: str | None = None
        # What the last sync changed: (live notes that left, live notes that came), not
        # counting archived ones; None when unknown (the index was read again).
        self.moved: tuple[list[str], list[str]] | None = None
        self._not_written_warned = False

    @property
    def base_path(self) -> Path:
        return cache_dir(self.vault) / INDEX_FILE

    @property
    def log_path(self) -> Path:
        return cache_dir(self.vault) / LOG_FILE

    @property
    def bytes(self) -> int | None:
        """Bytes of the base and the log this index was read from (None = none yet)."""
        if self.base is None:
            return None
        return self.base.size + (self.log.end if self.log is not None else 0)

    def close(self) -> None:
        for handle in (self.base, self.log):
            if handle is not None:
                handle.close()
        self.base = self.log = None

    # -- loading -----------------------------------------------------------------------

    def load(self) -> Index:
        """The index on disk (base + log), or an empty one when it is missing or unusable.

        An unusable cache gets one warning naming why. The base this store read before
        is not closed here: an index read from it may still be in use (it closes when
        that index goes).
        """
        if self.log is not None:
            self.log.close()
        self.base = self.log = self.base_id = None
        self.built_at = self.updated_at = None
        self._log_broken = False
        self._ignored_log = None
        self.needs_base = True  # until a base and its log are read
        try:
            base = BlockFile(self.base_path, expect_format=INDEX_FORMAT)
        except CacheMiss as miss:
            return self._empty(miss.reason)
        try:
            header = base.header
            if header.get("recipe") != self._recipe():
                raise CacheMiss("the index was built with another configuration or version")
            base_id = header.get("base_id")
            if not isinstance(base_id, str) or not base_id:
                raise CacheMiss("the index has no base id (damaged)")
            index = Index.from_store(header["index"], base)
        except CacheMiss as miss:
            base.close()
            return self._empty(miss.reason)
        except (KeyError, TypeError, ValueError) as exc:
            base.close()
            detail = str(exc) if type(exc) is ValueError and str(exc) else type(exc).__name__
            return self._empty(f"cache is damaged ({detail})")
        self.base, self.base_id = base, base_id
        self.built_at = header.get("built_at")
        self.updated_at = header.get("updated_at")
        self.log = self._open_log(base_id)
        if self.log is not None:
            self.needs_base = False
            self._replay(index, self.log)
        return index

    def _empty(self, reason: str | None) -> Index:
        if reason:
            self._warn(f"rebuilding the search index: {reason}")
        return Index()

    def _open_log(self, base_id: str) -> LogFile | None:
        """The log of base ``base_id``; None when missing, damaged or of another base."""
        for attempt in range(_LOG_TRIES):
            try:
                found = LogFile(self.log_path, expect_format=LOG_FORMAT)
            except CacheMiss:
                return None
            if found.header.get("base") == base_id:
                return found
            self._ignored_log = found.identity
            found.close()
            if attempt + 1 < _LOG_TRIES:
                time.sleep(0.01 * (attempt + 1))  # a merge between its two renames
        return None  # a log of another base, left by a crashed merge: ignored

    def _replay(self, index: Index, source: LogFile) -> bool:
        """Apply the records ``source`` has gained; True when the index changed.

        A malformed record stops the replay there and for good in this log (what follows
        is not applied) and makes the next save write the base whole, with one warning.
        """
        if self._log_broken:
            return False
        changed = False
        for record in source.read_records():
            removed = record.get("removed", [])
            notes = record.get("notes", [])
            try:
                paths = list(removed) + [note[0][0] for note in notes]
                if not all(map(_plausible_path, paths)):
                    raise ValueError("a logged note's path is not a vault path")
                by_path, rows = index.by_path, index.notes
                left = [p for p in paths if p in by_path and not rows[by_path[p]]["archived"]]
                touched = index.apply_change(removed, notes)
            except (ValueError, TypeError, KeyError, IndexError) as exc:
                self._warn(f"the search index log is damaged ({exc}); it is rewritten")
                self._log_broken = True
                self.needs_base = True
                break
            changed = True
            if self.moved is not None:
                self.moved[0].extend(left)
                self.moved[1].extend(
                    p for p in touched[len(removed) :] if not rows[by_path[p]]["archived"]
                )
            at = record.get("at")
            if isinstance(at, (int, float)):
                self.updated_at = at
            for path in touched:
                if path in self.unsaved or path in self._overflow:
                    # Another process logged this note after we changed it: keep its
                    # version (what the log holds) and stat the note again.
                    self.unsaved.pop(path, None)
                    self._overflow.discard(path)
                    self.recheck.add(path)
        return changed

    # -- following other processes ----------------------------------------------------

    def sync(self, index: Index) -> tuple[Index, bool]:
        """Take what other processes saved since; returns (the index, whether it changed).

        One stat when nothing changed. The index returned is ``index`` itself unless the
        base was replaced by one this index is not known to equal: then it is read again
        and this process's unsaved changes are applied to it. ``moved`` says afterwards
        which notes left and came.
        """
        self.moved = ([], [])
        if self.log is None:
            found = file_identity(self.log_path)
            if found is None or found == self._ignored_log:
                return index, False
            return self._reload(index)  # a base and log written since we looked
        seen = self.log.look()
        if seen is None:
            return index, False  # deleted under us: the next save writes it again
        same, size = seen
        if same:
            if size <= self.log.end:
                return index, False
            return index, self._replay(index, self.log)
        # Replaced by a merge or a build: read the old log to its end first.
        changed = self._replay(index, self.log)
        try:
            newer = LogFile(self.log_path, expect_format=LOG_FORMAT)
        except CacheMiss:
            return index, changed  # being replaced right now: next time
        parent = newer.header.get("parent")
        if (
            not self._log_broken
            and not self._overflow
            and parent == {"base": self.base_id, "records": self.log.records}
            and isinstance(newer.header.get("base"), str)
            and index.dead_fraction <= COMPACT_AT
        ):
            # The new base is our base + the records we have read: follow its log.
            self.log.close()
            self.log = newer
            self.base_id = newer.header["base"]
            return index, self._replay(index, newer) or changed
        newer.close()
        return self._reload(index)

    def _reload(self, index: Index) -> tuple[Index, bool]:
        """Read the index from disk again and apply this process's unsaved changes to it."""
        self.moved = None
        unsaved, overflow = self.unsaved, self._overflow
        self.unsaved, self._overflow = {}, set()
        warn = self._warn
        # A cache another process is replacing right now is not worth a warning: the
        # next sync or save settles it.
        self._warn = lambda message: log.info("%s", message)
        try:
            fresh = self.load()
        finally:
            self._warn = warn
        if self.base is None:
            # Nothing usable on disk: keep what this process holds and save it next.
            self.unsaved, self._overflow = unsaved, overflow
            return index, False
        for path, record in unsaved.items():
            if record is None:
                fresh.remove(path)
            else:
                fresh.add_record(record)
        self.unsaved = unsaved
        self.recheck |= overflow  # their new state is unknown here: stat them again
        return fresh, True

    # -- recording and saving ---------------------------------------------------------

    def noted_removed(self, path: str) -> None:
        """The note at ``path`` left the index (the next save logs it)."""
        self._note(path, None)

    def noted_added(self, doc) -> None:
        """``doc`` was added to the index (the next save logs it)."""
        self._note(doc.path, doc)

    def _note(self, path: str, doc) -> None:
        if self._full or self._overflow:
            self._overflow.add(path)
            return
        self.unsaved.pop(path, None)
        self.unsaved[path] = None if doc is None else note_record(doc)
        if len(self.unsaved) > UNSAVED_MAX:
            # Cheaper merged than logged (and replayed by every process that opens it).
            self._overflow = set(self.unsaved)
            self.unsaved.clear()
            self.needs_base = True

    def start_full(self) -> None:
        """A full build begins: the next save writes a base from scratch."""
        self.unsaved.clear()
        self._overflow.clear()
        self.recheck.clear()
        self.needs_base = True
        self.built_at = None
        self._full = True

    def save(self, index: Index) -> Index:
        """Log this process's changes, or write the base when due; returns the index.

        The index returned differs from ``index`` only when another process replaced
        the base meanwhile with one this index is not known to equal (see ``sync``).
        Never raises for a cache that cannot be written: it warns once and the engine
        searches from memory.
        """
        if not (self.unsaved or self.needs_base or self._overflow):
            if self.base is None or file_identity(self.base_path) is not None:
                return index
            self.needs_base = True  # the cache was deleted: write it again
        lock = VaultLock(self.vault, timeout=SAVE_LOCK_WAIT, lock_file=SAVE_LOCK)
        try:
            lock.acquire()
        except WriteRefusedError:
            # Another process is saving (a big merge): ours waits for the next change.
            log.info("search index not saved this time: another process is saving it")
            return index
        except (OSError, InvalidPathError, VaultNotFoundError) as exc:
            self._not_written(exc)
            return index
        wrote_base = False
        try:
            if not self._full:
                index, _ = self.sync(index)  # theirs first: our record comes after
            if self.unsaved and self._appendable():
                self._append()
                if self.log.end > max(LOG_MIN_BYTES, LOG_SHARE * self.base.size):
                    self.needs_base = True
            if self.needs_base or self._overflow or index.dead_fraction > COMPACT_AT:
                self._write_base(index)
                wrote_base = True
        except (OSError, CacheMiss, InvalidPathError) as exc:
            self._not_written(exc)
        except IndexCorruptError as exc:
            self.damaged = str(exc)
        finally:
            if wrote_base and self._clean_temp is not None:
                self._clean_temp()
            lock.release()
        return index

    def _appendable(self) -> bool:
        return (
            self.log is not None
            and self.base is not None
            and not self._log_broken
            and not self._full
            and not self._overflow
        )

    def _append(self) -> None:
        removed = [path for path, record in self.unsaved.items() if record is None]
        notes = [record for record in self.unsaved.values() if record is not None]
        now = self.clock()
        append_log_record(
            self.log, {"at": now, "removed": removed, "notes": notes}, root=self.vault
        )
        self.unsaved.clear()
        self.updated_at = now

    def _write_base(self, index: Index) -> None:
        # The new base equals the old one plus the whole log when every change of this
        # process is in the log: then readers that have read all of it follow on.
        parent = None
        if self._appendable() and not self.unsaved and self.base_id:
            parent = {"base": self.base_id, "records": self.log.records}
        if index.dead_fraction > COMPACT_AT:
            index.compact()
        now = self.clock()
        if self._full or self.built_at is None:
            self.built_at = now
        header_index, blocks = index.to_store()
        base_id = secrets.token_hex(8)
        payload = {
            "format": INDEX_FORMAT,
            "generator": f"birkin-mnemosyne {_version.__version__}",
            "recipe": self._recipe(),
            "base_id": base_id,
            "built_at": self.built_at,
            "updated_at": now,
            "index": header_index,
        }
        old_base, old_log = self.base, self.log
        if os.name == "nt":  # pragma: no cover - Windows cannot replace an open file
            self.close()
            old_base = old_log = None
        # The reader is the file this process wrote, never the path reopened: another
        # process may rename its own file there at any moment.
        reader = write_block_file(self.base_path, payload, blocks, root=self.vault)
        index.adopt(header_index, reader)
        if old_base is not None:
            old_base.close()
        if old_log is not None:
            old_log.close()
        self.base, self.base_id, self.log = reader, base_id, None
        self.unsaved.clear()
        self._overflow.clear()
        self._full = self._log_broken = False
        self._ignored_log = None
        self.updated_at = now
        # needs_base stays set until the log below is written too.
        self.log = create_log_file(
            self.log_path,
            {"format": LOG_FORMAT, "base": base_id, "parent": parent},
            root=self.vault,
        )
        self.needs_base = False

    def _not_written(self, exc: Exception) -> None:
        if not self._not_written_warned:
            self._not_written_warned = True
            reason = getattr(exc, "strerror", None) or str(exc)
            self._warn(
                f"search index not cached: cannot write {self.base_path} ({reason}); "
                "searching from memory"
            )

    # -- builds ------------------------------------------------------------------------

    def build_lock(self) -> BuildLock:
        return BuildLock(self.vault)


class BuildLock:
    """``build.lock``: held by the process parsing many notes, so that others wait
    for its result instead of parsing the same notes again.

    The holder writes its progress to ``build.json`` (at most once a second); a
    waiter reads it, passes it on to its own ``progress`` callback and gives up when
    it stalls. The lock is an OS lock (``VaultLock``): it goes when its holder dies.
    """

    def __init__(self, vault: Path) -> None:
        self.vault = vault
        self._lock = VaultLock(vault, timeout=0, lock_file=BUILD_LOCK)
        self._held = False
        self._last_write = 0.0
        self.path = cache_dir(vault) / BUILD_PROGRESS

    def try_acquire(self) -> bool:
        """Take the lock if it is free (never waits); False when another process has it."""
        try:
            self._lock.acquire()
        except WriteRefusedError:
            return False
        except (OSError, InvalidPathError, VaultNotFoundError):
            return True  # a read-only cache folder: build alone, nothing to share anyway
        else:
            self._held = True
            return True

    def release(self) -> None:
        if self._held:
            self._held = False
            try:
                self.path.unlink()
            except OSError:
                pass
            self._lock.release()

    def progress(self, done: int, total: int, *, force: bool = False) -> None:
        """Tell waiting processes how far the build is (throttled)."""
        now = time.monotonic()
        if not self._held or (not force and now - self._last_write < _PROGRESS_EVERY):
            return
        self._last_write = now
        try:
            write_json_z(
                self.path,
                {"format": BUILD_PROGRESS_FORMAT, "pid": os.getpid(), "done": done, "total": total},
                root=self.vault,
            )
        except (OSError, InvalidPathError):
            pass

    def wait(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        wait: float | None = None,
        stall: float | None = None,
    ) -> bool:
        """Wait for the holder to finish; True with the lock now held by this process.

        False when the holder made no progress for ``stall`` seconds (``BUILD_STALL``)
        or ``wait`` seconds passed (``BUILD_WAIT``): the caller then builds without it.
        """
        wait = BUILD_WAIT if wait is None else wait
        stall = BUILD_STALL if stall is None else stall
        started = last_change = time.monotonic()
        seen = None
        delay = 0.02
        while True:
            if self.try_acquire():
                return True
            now = time.monotonic()
            try:
                state = read_json_z(self.path, expect_format=BUILD_PROGRESS_FORMAT)
                current = (int(state["done"]), int(state["total"]))
            except (CacheMiss, KeyError, TypeError, ValueError):
                current = None
            if current is not None and current != seen:
                seen, last_change = current, now
                if progress is not None:
                    progress(*current)
            if now - started >= wait or now - last_change >= stall:
                log.warning(
                    "another process has been building the search index for %.0f s; "
                    "building here too",
                    now - started,
                )
                return False
            time.sleep(delay)
            delay = min(delay * 2, 0.25)
