"""What every group of ``VaultMemory`` operations shares.

``MemoryBase`` names the state ``VaultMemory.__init__`` sets up and holds the plumbing
the operation modules call: the vault lock, the injected clock, byte-level reads and
atomic writes, the usage-file reload, and strict key resolution (``resolve``).
"""

from __future__ import annotations

import difflib
import hashlib
import math
import os
import posixpath
from collections import OrderedDict
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from .. import notes_io as nio
from ..atomic import atomic_write_bytes
from ..config import VaultConfig
from ..dynamics import UsageStore
from ..engine import Mnemosyne
from ..errors import (
    AmbiguousKeyError,
    InvalidInputError,
    InvalidPathError,
    NoteNotFoundError,
    WriteRefusedError,
)
from ..graph import LinkGraph
from ..journal import Journal
from ..vault_lock import VaultLock

STATE_DIR = Path(".mnemosyne") / "state"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check_int(value: object, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidInputError(f"{{={name}}} must be a whole number >= {low}, got {value!r}")
    if high is not None and value > high:
        raise InvalidInputError(f"{{={name}}} must be at most {high}, got {value!r}")
    return value


class MemoryBase:
    """State and plumbing shared by the operation groups (set up by ``VaultMemory``)."""

    engine: Mnemosyne
    vault: Path
    config: VaultConfig
    evidence_required: bool
    max_note_bytes: int
    usage: UsageStore
    recovered: list[dict]
    _clock: Callable[[], float]
    _lock_timeout: float
    _journal: Journal
    _plans: OrderedDict[str, dict]  # label plans by plan_id (labelling)
    _usage_signature: tuple | None
    _key_index: nio.KeyIndex | None
    _links: LinkGraph | None  # the wikilink graph of the current index (reading)

    # -- plumbing ----------------------------------------------------------------------

    def _lock(self) -> VaultLock:
        return VaultLock(self.vault, timeout=self._lock_timeout)

    def _write_lock(self):
        """The lock a write holds: the vault lock, or with a team index the team's
        writer lock around the write, its commit and its ingest (``team.writes``)."""
        if getattr(self.engine, "index_url", None):
            writer = self._team_writer
            if writer is None:
                raise WriteRefusedError(
                    "this memory searches a team index from a folder that is no git working "
                    "copy: write in a clone of the notes' repository (or commit there and "
                    "run `mnemosyne ingest`)"
                )
            return self._team_write(writer)
        return self._lock()

    @contextmanager
    def _team_write(self, writer):
        with writer.transaction(self, self._team_operation) as warnings:
            yield
        self._team_warnings.extend(warnings)

    def _now(self, now: float | None) -> float:
        when = self._clock() if now is None else now
        if isinstance(when, bool) or not isinstance(when, (int, float)) or not math.isfinite(when):
            raise InvalidInputError(f"now must be a finite unix time in seconds, got {now!r}")
        return float(when)

    def _sync_usage(self) -> None:
        """Re-read the usage file when another process (or this one) changed it."""
        try:
            st = self.usage.path.stat()
            signature: tuple | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            signature = None
        if signature != self._usage_signature:
            self.usage.load()
            self._usage_signature = signature

    def _read(self, path: str) -> bytes:
        stored = getattr(self.engine, "stored_note", None)
        if stored is not None:  # a team index: the redacted text ingest stored
            found = stored(path)
            if found is None:
                raise NoteNotFoundError(
                    f"note {path} is not in the team index (removed since) — search again"
                )
            self._stored_read = (path, *found)  # its version, for ``_version_of``
            return found[0]
        try:
            return (self.vault / path).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            self.engine.refresh(paths=[path])
            raise NoteNotFoundError(
                f"note {path} is gone (deleted or moved since it was indexed) — search again"
            ) from None

    def _version_of(self, path: str, data: bytes) -> str:
        """The version of the note ``data`` was read from (``expected_version``): the
        sha256 of its bytes (a team index stores the file's, its text is redacted)."""
        last = getattr(self, "_stored_read", None)
        if last is not None and last[0] == path and last[1] is data:
            return last[2]  # the team index's row ``_read`` just fetched
        stored = getattr(self.engine, "stored_note", None)
        if stored is not None:
            found = stored(path)
            if found is not None:
                return found[1]
        return sha256_hex(data)

    def _write(self, path: str, data: bytes) -> None:
        try:
            atomic_write_bytes(self.vault / path, data, root=self.vault)
        except InvalidPathError:
            raise
        except OSError as exc:
            raise WriteRefusedError(
                f"could not write {path}: {exc.strerror or exc} — nothing was changed"
            ) from exc

    def _occupant(self, path: str) -> str | None:
        """The existing file at ``path``, also when it (or a folder on the way to it)
        differs only in letter case: a vault synced to a case-insensitive disk would
        have the two collide."""
        if os.path.lexists(self.vault / path):
            return path
        found = []
        for part in path.split("/"):
            folder = self.vault.joinpath(*found)
            if not folder.is_dir():
                return None
            wanted = part.casefold()
            with os.scandir(folder) as entries:
                name = next((e.name for e in entries if e.name.casefold() == wanted), None)
            if name is None:
                return None
            found.append(name)
        return posixpath.join(*found)

    # -- key resolution ----------------------------------------------------------------

    def _keys(self) -> nio.KeyIndex:
        keys = self.engine.keys()  # a new dict after every change of the index
        if self._key_index is None or self._key_index.keys is not keys:
            self._key_index = nio.KeyIndex(keys, names=self.engine.note_names)
        return self._key_index

    def resolve(self, key_or_path: str) -> str:
        """The vault-relative path of a live note, by exact path, exact key, a
        case-insensitive key/path/file-name match, or an exact title or alias (caseless,
        NFC) — each only when it names exactly one note.

        Every operation that takes a note (``get_note``, ``write_note`` append/replace,
        ``forget``, ``rezone``, ``related``, labels, usage) resolves it here. Raises
        ``NoteNotFoundError`` (with up to 5 close keys as ``candidates``, for the message
        only) or ``AmbiguousKeyError`` (``candidates`` = the matching paths).
        """
        raw = nio.clean_key(key_or_path)
        writer = getattr(self, "_team_writer", None)
        if writer is not None and not getattr(self.engine, "index_url", None):
            # a write through a team index runs on the working copy: the team's path of
            # one of its notes ("<repo>/<path>") is its path here
            raw = raw.removeprefix(f"{writer.repo}/")
        path = self._keys().lookup(raw)
        if path is None:
            self.engine.refresh()  # another process may have written it just now
            path = self._keys().lookup(raw)
        if path is not None:
            return path
        close = self._keys().close_keys(raw)
        archived = nio.archived_matches(raw, self._archived_paths(), self.engine.note_names())
        if archived:
            raise NoteNotFoundError(
                f"no note {raw!r}: it is archived at {archived[0]}",
                fix="bring it back with {restore}",
                candidates=close,
            )
        if close:
            raise NoteNotFoundError(
                f"no note {raw!r} — did you mean: {', '.join(close)}?", candidates=close
            )
        raise NoteNotFoundError(f"no note {raw!r}", fix="{list_notes} or {search} shows the keys")

    def _archived_paths(self) -> list[str]:
        paths = self.engine.note_paths(include_archive=True)
        return [p for p in paths if p.startswith(nio.ARCHIVE_PREFIX)]

    def _resolve_archived(self, key_or_path: str) -> str:
        raw = nio.clean_key(key_or_path)
        for attempt in range(2):
            matches = nio.archived_matches(raw, self._archived_paths(), self.engine.note_names())
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise AmbiguousKeyError(
                    f"{raw!r} names {len(matches)} archived notes: {', '.join(matches)} — "
                    "pass the _archive/ path of the one you mean",
                    candidates=matches,
                )
            if attempt == 0:
                self.engine.refresh()
        originals = [nio.without_md(p[len(nio.ARCHIVE_PREFIX) :]) for p in self._archived_paths()]
        close = difflib.get_close_matches(raw, originals, n=5, cutoff=0.6)
        hint = f" — archived notes like it: {', '.join(close)}" if close else ""
        raise NoteNotFoundError(f"no archived note {raw!r}{hint}", candidates=close)
