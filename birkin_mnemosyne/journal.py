"""Byte-exact undo journal for every multi-file or destructive vault operation.

Archive, restore, rezone, label apply and curation all change several files at once. Each
such change goes through ``Journal.transaction``, which records the exact bytes of every
touched file before and after (base64, with their sha256) in
``<vault>/.mnemosyne/journal/<transaction-id>.json`` *before* touching the vault. That one
record makes three things possible:

* **undo** — put every file back byte for byte, refused when someone edited a file since;
* **crash recovery** — a transaction interrupted half-way (state ``prepared``) is rolled
  back on the next start by ``recover()``;
* **audit** — ``list()`` and ``get()`` show what was done, when, to which paths.

States of an entry (the format is described in docs/reference/journal.md)::

    prepared ──apply──► committed ──undo──► undoing ──► undone
        │                                      │
        └─recover()─► rolled_back              └─recover()─► undone
                      recovery_failed (a file changed under us; reasons recorded)

A file that is absent is recorded as ``None``, so a move is a delete at the old path
plus a create at the new one. Entries are JSON only (no pickle): a vault synced from
elsewhere must never execute code when its journal is read.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath, PureWindowsPath

from .atomic import atomic_write_bytes, ensure_no_symlink, fsync_dir
from .errors import (
    InvalidInputError,
    InvalidPathError,
    JournalError,
    MnemosyneError,
    UndoConflictError,
    VaultNotFoundError,
)
from .progress import ProgressCallback, phase
from .vault_lock import DEFAULT_TIMEOUT, VaultLock

__all__ = ["FORMAT", "JOURNAL_DIR", "STATES", "FileChange", "Journal", "check_transaction_id"]

FORMAT = "mnemosyne-journal/1"
JOURNAL_DIR = Path(".mnemosyne") / "journal"
STATES = ("prepared", "committed", "undoing", "undone", "rolled_back", "recovery_failed")

# Transaction ids double as file names, so they are restricted to characters that can
# never form a path: "20260302T101530Z-3fa9c1" (UTC second, then 6 random hex digits).
_ID_PATTERN = re.compile(r"[0-9A-Za-z-]{1,64}")
_ID_SECOND_LENGTH = len("20260302T101530Z")
_SHA256_PATTERN = re.compile(r"[0-9a-f]{64}")
_RECENT_IDS_SHOWN = 5


@dataclass
class FileChange:
    """One file of a transaction: its bytes before and after (``None`` = file absent)."""

    path: str
    before: bytes | None
    after: bytes | None


class _CorruptEntry(JournalError):
    """A journal file that is not a JSON object at all (half-written or overwritten)."""


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _to_utc(moment: datetime) -> datetime:
    if moment.tzinfo is None:  # a naive clock is taken to be UTC already
        return moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def _format_time(moment: datetime) -> str:
    # Fixed width with microseconds, so string order is time order.
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _encode(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _action(before: bytes | None | str, after: bytes | None | str) -> str:
    if before is None:
        return "create" if after is not None else "none"
    return "delete" if after is None else "modify"


def check_transaction_id(transaction_id: object) -> str:
    """Return ``transaction_id`` if it is a well-formed id, else raise InvalidInputError."""
    if not isinstance(transaction_id, str) or not _ID_PATTERN.fullmatch(transaction_id):
        raise InvalidInputError(
            f"invalid transaction id {transaction_id!r}: ids contain only letters, digits "
            "and '-' (e.g. 20260302T101530Z-3fa9c1) — copy one from the journal listing"
        )
    return transaction_id


def _check_path(path: object) -> str:
    """A vault-relative POSIX path that stays inside the vault and off the journal."""
    if not isinstance(path, str) or not path:
        raise InvalidPathError(f"a journaled path must be a non-empty string, got {path!r}")
    problem = ""
    if "\\" in path or "\x00" in path:
        problem = "use '/' as the separator and no NUL characters"
    elif PurePosixPath(path).is_absolute() or PureWindowsPath(path).anchor:
        problem = "it must be relative to the vault folder"
    elif any(part in ("", ".", "..") for part in path.split("/")):
        problem = "it must not contain empty, '.' or '..' parts"
    elif path.split("/")[:2] in ([".mnemosyne", "journal"], [".mnemosyne", "lock"]):
        problem = "the journal and the lock file cannot be journaled themselves"
    if problem:
        raise InvalidPathError(f"invalid journaled path {path!r}: {problem}", rule="journal")
    return path


def _check_image(value: object, what: str) -> bytes | None:
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise InvalidInputError(
        f"{what} must be bytes or None (None = file absent), got {type(value).__name__} — "
        "encode text with .encode('utf-8')"
    )


def _check_changes(changes: Iterable[FileChange]) -> list[FileChange]:
    checked: list[FileChange] = []
    seen: set[str] = set()
    for change in changes:
        path = _check_path(getattr(change, "path", None))
        if path in seen:
            raise InvalidInputError(
                f"{path} appears twice in one transaction — merge its changes into one FileChange"
            )
        seen.add(path)
        before = _check_image(getattr(change, "before", None), f"before of {path}")
        after = _check_image(getattr(change, "after", None), f"after of {path}")
        checked.append(FileChange(path, before, after))
    if not checked:
        raise InvalidInputError("a transaction needs at least one FileChange")
    return checked


def _decode_image(encoded: str | None, digest: str | None, what: str) -> bytes | None:
    if encoded is None:
        if digest is not None:
            raise JournalError(f"{what} has a sha256 but no bytes")
        return None
    try:
        data = base64.b64decode(encoded.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError) as exc:
        raise JournalError(f"{what} is not valid base64 ({exc})") from None
    if _sha256(data) != digest:
        raise JournalError(f"{what} does not match its recorded sha256")
    return data


def _parse_entry(raw: bytes, transaction_id: str) -> dict:
    """Parse and check the structure of one journal file (images are checked separately)."""
    try:
        entry = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _CorruptEntry(f"journal entry {transaction_id} is not valid JSON ({exc})") from None
    if not isinstance(entry, dict):
        raise _CorruptEntry(f"journal entry {transaction_id} is not a JSON object")
    damaged = f"journal entry {transaction_id} is damaged"
    if entry.get("format") != FORMAT:
        raise JournalError(
            f"journal entry {transaction_id} has format {entry.get('format')!r}; this version "
            f"reads {FORMAT!r} — upgrade birkin-mnemosyne to use it"
        )
    if entry.get("transaction_id") != transaction_id:
        raise JournalError(f"{damaged}: it records the id {entry.get('transaction_id')!r}")
    if entry.get("state") not in STATES:
        raise JournalError(
            f"{damaged}: unknown state {entry.get('state')!r} (valid: {', '.join(STATES)})"
        )
    for key, kind in (("operation", str), ("created", str), ("meta", dict), ("history", list)):
        if not isinstance(entry.get(key), kind):
            raise JournalError(f"{damaged}: field {key!r} is missing or not a {kind.__name__}")
    changes = entry.get("changes")
    if not isinstance(changes, list) or not changes:
        raise JournalError(f"{damaged}: it lists no changes")
    for change in changes:
        if not isinstance(change, dict):
            raise JournalError(f"{damaged}: a change is not an object")
        try:
            _check_path(change.get("path"))
        except InvalidPathError as exc:
            raise JournalError(f"{damaged}: {exc}") from None
        for side in ("before", "after"):
            image, digest = change.get(side), change.get(f"{side}_sha256")
            if not (image is None or isinstance(image, str)) or not (
                digest is None or (isinstance(digest, str) and _SHA256_PATTERN.fullmatch(digest))
            ):
                raise JournalError(f"{damaged}: the {side} image of {change['path']} is malformed")
    return entry


def _decode_changes(entry: dict) -> list[FileChange]:
    """The byte images of an entry, each verified against its recorded sha256."""
    decoded = []
    for change in entry["changes"]:
        path = change["path"]
        what = f"journal entry {entry['transaction_id']} is damaged: the {{}} image of {path}"
        before = _decode_image(change["before"], change["before_sha256"], what.format("before"))
        after = _decode_image(change["after"], change["after_sha256"], what.format("after"))
        decoded.append(FileChange(path, before, after))
    return decoded


def _summary(entry: dict) -> dict:
    return {
        "transaction_id": entry["transaction_id"],
        "operation": entry["operation"],
        "state": entry["state"],
        "created": entry["created"],
        "paths": [change["path"] for change in entry["changes"]],
    }


class Journal:
    """The undo journal of one vault.

    ``clock`` returns the current time (an aware datetime; naive is taken as UTC) and is
    injected in tests. Every method that reads or changes the vault takes the vault's
    writer lock, waiting up to ``lock_timeout`` seconds; the lock is re-entrant, so a
    caller that already holds it may call the journal freely.
    """

    def __init__(
        self,
        vault: str | os.PathLike,
        *,
        clock: Callable[[], datetime] | None = None,
        lock_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        self.vault = Path(vault)
        if not self.vault.is_dir():
            raise VaultNotFoundError(
                f"vault folder not found: {self.vault} — create it first or check the path"
            )
        self.folder = self.vault / JOURNAL_DIR
        self._clock = clock or _utc_now
        self._lock_timeout = lock_timeout

    def __repr__(self) -> str:
        return f"Journal({str(self.vault)!r})"

    # -- public operations -------------------------------------------------------------

    def transaction(
        self,
        operation: str,
        changes: list[FileChange],
        *,
        meta: dict | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> dict:
        """Apply ``changes`` as one journaled, undoable transaction.

        Every file must still hold its ``before`` bytes, else nothing is written and a
        ``JournalError`` asks for a fresh preview. The entry is written (``prepared``)
        before the first file changes and marked ``committed`` after the last; if applying
        fails part-way, the files already changed are put back before the error is raised
        (also when ``on_progress``, which receives the ``write`` phase, raises).
        """
        if not isinstance(operation, str) or not operation.strip():
            raise InvalidInputError("operation must be a non-empty name such as 'archive'")
        checked = _check_changes(changes)
        meta = {} if meta is None else meta
        if not isinstance(meta, dict):
            raise InvalidInputError(f"meta must be a dict, got {type(meta).__name__}")
        try:
            json.dumps(meta)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"meta must be JSON-serialisable: {exc}") from None
        with self._lock():
            stale = [change.path for change in checked if self._read(change.path) != change.before]
            if stale:
                raise JournalError(
                    f"{', '.join(stale)} changed since the plan was made — re-run the preview"
                )
            entry = self._prepare(operation, checked, meta)
            try:
                with phase(on_progress, "write", len(checked)) as writing:
                    for change in checked:
                        self._put(change.path, change.after)
                        writing.advance()
            except BaseException:
                self._roll_back_failed_apply(entry, checked)
                raise
            self._set_state(entry, "committed")
        return {
            "transaction_id": entry["transaction_id"],
            "state": "committed",
            "operation": operation,
            "paths": [change.path for change in checked],
        }

    def undo(self, transaction_id: str) -> dict:
        """Restore every file of a committed transaction to its exact ``before`` bytes.

        Refused (nothing is touched) when any file no longer holds the bytes the
        transaction left there: undoing would overwrite someone's later edit.
        """
        transaction_id = check_transaction_id(transaction_id)
        with self._lock():
            entry = self._load(transaction_id)
            state = entry["state"]
            refusal = {
                "undone": "is already undone — nothing to do",
                "prepared": (
                    "never finished (state 'prepared') — run crash recovery "
                    "(Journal.recover()) to roll it back"
                ),
                "rolled_back": (
                    "was rolled back by crash recovery, so its changes are not in the vault "
                    "— nothing to undo"
                ),
                "recovery_failed": (
                    "could not be recovered automatically ("
                    + "; ".join(entry.get("problems") or ["no reason recorded"])
                    + ") — fix those files by hand"
                ),
            }.get(state)
            if refusal:
                raise JournalError(f"transaction {transaction_id} {refusal}")
            changes = _decode_changes(entry)
            changed: dict[str, str | None] = {}
            for change in changes:
                current = self._read(change.path)
                # An interrupted undo ("undoing") may already have restored some files.
                if current != change.after and not (
                    state == "undoing" and current == change.before
                ):
                    changed[change.path] = _sha256(current)
            if changed:
                raise UndoConflictError(
                    f"cannot undo transaction {transaction_id} ({entry['operation']}): "
                    + "; ".join(
                        f"{path} changed since it was applied ("
                        + (f"now version {now[:12]}…" if now else "now absent")
                        + ")"
                        for path, now in changed.items()
                    )
                    + " — undoing would overwrite those edits; undo the later change first "
                    "(`mnemosyne journal` lists them), restore the files by hand, or keep "
                    "the transaction",
                    current_versions=changed,
                )
            if state != "undoing":
                self._set_state(entry, "undoing")
            problems, _ = self._restore_before(changes)
            if problems:  # only possible if someone bypassed the vault lock
                self._set_state(entry, "recovery_failed", problems)
                raise JournalError(
                    f"undo of {transaction_id} stopped part-way: {'; '.join(problems)}"
                )
            self._set_state(entry, "undone")
        return {
            "transaction_id": transaction_id,
            "state": "undone",
            "paths": [change.path for change in changes],
        }

    def recover(self) -> list[dict]:
        """Finish or roll back whatever a crash interrupted; call it when a process starts.

        * ``prepared`` entries are rolled back file by file: a file holding the ``after``
          bytes gets its ``before`` bytes back, one already holding ``before`` is left, and
          one holding anything else is left untouched and reported (``recovery_failed``).
        * ``undoing`` entries (an interrupted undo) are finished the same way (``undone``).
        * A journal file that is not JSON is renamed to ``<name>.corrupt`` (never deleted).

        * An entry whose structure or byte images fail their checks is left in place and
          reported as ``damaged``: rolling back from untrusted images could lose data.

        Entries in any other state are not touched. Returns one report per entry acted
        on: ``transaction_id``, ``operation``, ``state`` (the new state, or ``corrupt`` /
        ``damaged``), ``created``, ``paths``, ``restored`` (paths written back),
        ``problems`` and, for a corrupt file, ``moved_to`` (vault-relative). A journal
        folder reached through a symbolic link is not touched: one report with state
        ``refused`` says so (and every journaled write is refused until it is fixed).
        """
        if not self.folder.is_dir():
            return []
        try:
            ensure_no_symlink(self.folder / "entry.json", root=self.vault)
        except InvalidPathError as exc:
            # Recovery renames and rewrites entries: never through a link out of the vault.
            return [
                {
                    "transaction_id": None,
                    "operation": None,
                    "state": "refused",
                    "created": None,
                    "paths": [],
                    "restored": [],
                    "problems": [f"journal not recovered: {exc}"],
                }
            ]
        reports = []
        with self._lock():
            for file in sorted(self.folder.glob("*.json")):
                transaction_id = file.stem
                if not _ID_PATTERN.fullmatch(transaction_id):
                    continue  # not a name the journal writes; leave foreign files alone
                report = self._recover_file(file, transaction_id)
                if report is not None:
                    reports.append(report)
        return reports

    def changed_since(self, transaction_id: str) -> dict[str, str | None]:
        """The files of a transaction that no longer hold the bytes it left there.

        Maps each such path to the sha256 of its bytes now (``None``: the file is gone).
        Empty means ``undo`` would not be refused for an edit made since. Reads only.
        """
        entry = self._load(check_transaction_id(transaction_id))
        found: dict[str, str | None] = {}
        for change in entry["changes"]:
            now = _sha256(self._read(change["path"]))
            if now != change["after_sha256"]:
                found[change["path"]] = now
        return found

    def get(self, transaction_id: str) -> dict:
        """One entry: the ``list()`` fields plus ``meta``, ``history``, ``problems`` and a
        per-file ``changes`` list (``path``, ``action``, ``before_sha256``, ``after_sha256``)."""
        transaction_id = check_transaction_id(transaction_id)
        entry = self._load(transaction_id)
        result = _summary(entry)
        result.update(
            meta=entry["meta"],
            history=entry["history"],
            problems=list(entry.get("problems") or []),
            changes=[
                {
                    "path": change["path"],
                    "action": _action(change["before"], change["after"]),
                    "before_sha256": change["before_sha256"],
                    "after_sha256": change["after_sha256"],
                }
                for change in entry["changes"]
            ],
        )
        return result

    def list(self, limit: int = 20) -> list[dict]:
        """The newest ``limit`` entries, newest first.

        Each is ``{"transaction_id", "operation", "state", "created", "paths"}``; an
        unreadable entry is listed with state ``corrupt`` or ``damaged`` (run ``recover``).
        """
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
            raise InvalidInputError(f"limit must be a whole number >= 0, got {limit!r}")
        rows: list[dict] = []
        # Ids sort by their UTC second; only entries sharing the last second taken can
        # still reorder (by the microseconds in "created"), so reading stops past them.
        for transaction_id in self._ids():
            if len(rows) >= limit and (
                not rows
                or transaction_id[:_ID_SECOND_LENGTH]
                != rows[-1]["transaction_id"][:_ID_SECOND_LENGTH]
            ):
                break
            rows.append(self._row(transaction_id))
        rows.sort(key=lambda row: (row["created"] or "", row["transaction_id"]), reverse=True)
        return rows[:limit]

    # -- entry files -------------------------------------------------------------------

    def _lock(self) -> VaultLock:
        return VaultLock(self.vault, timeout=self._lock_timeout)

    def _entry_file(self, transaction_id: str) -> Path:
        return self.folder / f"{transaction_id}.json"

    def _ids(self) -> list[str]:
        """Every entry id on disk, newest first."""
        if not self.folder.is_dir():
            return []
        ids = (file.stem for file in self.folder.glob("*.json"))
        return sorted((tid for tid in ids if _ID_PATTERN.fullmatch(tid)), reverse=True)

    def _row(self, transaction_id: str) -> dict:
        try:
            return _summary(
                _parse_entry(self._entry_file(transaction_id).read_bytes(), transaction_id)
            )
        except (JournalError, OSError) as exc:
            state = "corrupt" if isinstance(exc, _CorruptEntry) else "damaged"
            return {
                "transaction_id": transaction_id,
                "operation": None,
                "state": state,
                "created": None,
                "paths": [],
            }

    def _load(self, transaction_id: str) -> dict:
        file = self._entry_file(transaction_id)
        try:
            raw = file.read_bytes()
        except FileNotFoundError:
            recent = self._ids()[:_RECENT_IDS_SHOWN]
            listing = f"recent ids: {', '.join(recent)}" if recent else "the journal is empty"
            raise JournalError(f"no journal entry {transaction_id} — {listing}") from None
        return _parse_entry(raw, transaction_id)

    def _new_id(self, moment: datetime) -> str:
        while True:
            candidate = f"{moment:%Y%m%dT%H%M%SZ}-{secrets.token_hex(3)}"
            if not self._entry_file(candidate).exists():
                return candidate

    def _now(self) -> datetime:
        return _to_utc(self._clock())

    def _prepare(self, operation: str, changes: list[FileChange], meta: dict) -> dict:
        moment = self._now()
        created = _format_time(moment)
        entry = {
            "format": FORMAT,
            "transaction_id": self._new_id(moment),
            "operation": operation,
            "state": "prepared",
            "created": created,
            "meta": meta,
            "changes": [
                {
                    "path": change.path,
                    "before": _encode(change.before),
                    "before_sha256": _sha256(change.before),
                    "after": _encode(change.after),
                    "after_sha256": _sha256(change.after),
                }
                for change in changes
            ],
            "history": [{"state": "prepared", "at": created}],
        }
        self._write_entry(entry)
        return entry

    def _set_state(self, entry: dict, state: str, problems: list[str] | None = None) -> None:
        entry["state"] = state
        entry["history"].append({"state": state, "at": _format_time(self._now())})
        if problems:
            entry["problems"] = problems
        self._write_entry(entry)

    def _write_entry(self, entry: dict) -> None:
        data = json.dumps(entry, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
        atomic_write_bytes(self._entry_file(entry["transaction_id"]), data, root=self.vault)

    def _move_aside(self, file: Path) -> Path:
        target = file.with_name(f"{file.name}.corrupt")
        number = 1
        while target.exists():
            target = file.with_name(f"{file.name}.corrupt.{number}")
            number += 1
        os.replace(file, target)
        fsync_dir(file.parent)
        return target

    # -- vault files -------------------------------------------------------------------

    def _read(self, path: str) -> bytes | None:
        """The current bytes at a vault-relative path; ``None`` when no file is there."""
        target = self.vault / path
        ensure_no_symlink(target, root=self.vault)
        if target.is_dir():
            raise JournalError(f"{path} is a folder, but the journal expects a file there")
        try:
            return target.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None

    def _put(self, path: str, data: bytes | None) -> None:
        """Make ``path`` hold ``data`` (``None``: remove it and any emptied folders)."""
        target = self.vault / path
        if data is not None:
            atomic_write_bytes(target, data, root=self.vault)
            return
        ensure_no_symlink(target, root=self.vault)
        try:
            target.unlink()
        except FileNotFoundError:
            return
        fsync_dir(target.parent)
        folder = target.parent
        while folder != self.vault:
            try:
                folder.rmdir()  # fails, as wanted, when the folder still holds anything
            except OSError:
                break
            folder = folder.parent

    def _restore_before(self, changes: list[FileChange]) -> tuple[list[str], list[str]]:
        """Put back every ``before`` image whose file still holds its ``after`` image.

        Works in reverse order, so a file that replaced a folder (or the reverse) is
        removed before the original is written back. Returns (problems, restored paths).
        """
        problems: list[str] = []
        restored: list[str] = []
        for change in reversed(changes):
            try:
                current = self._read(change.path)
            except MnemosyneError as exc:
                problems.append(f"{change.path}: {exc}")
                continue
            if current == change.before:
                continue
            if current != change.after:
                problems.append(
                    f"{change.path}: changed by someone else since the transaction started "
                    "— left as it is"
                )
                continue
            self._put(change.path, change.before)
            restored.append(change.path)
        restored.reverse()
        return problems, restored

    def _roll_back_failed_apply(self, entry: dict, changes: list[FileChange]) -> None:
        """After an error part-way through applying, put the vault back at once.

        Best effort: if this fails too, the entry stays ``prepared`` and ``recover()``
        finishes the job on the next start. The original error is what the caller sees.
        """
        try:
            problems, _ = self._restore_before(changes)
            self._set_state(entry, "recovery_failed" if problems else "rolled_back", problems)
        except Exception:
            pass

    def _recover_file(self, file: Path, transaction_id: str) -> dict | None:
        try:
            raw = file.read_bytes()
            entry = _parse_entry(raw, transaction_id)
        except _CorruptEntry as exc:
            moved = self._move_aside(file)
            return {
                "transaction_id": transaction_id,
                "operation": None,
                "state": "corrupt",
                "created": None,
                "paths": [],
                "restored": [],
                "problems": [str(exc)],
                "moved_to": moved.relative_to(self.vault).as_posix(),
            }
        except JournalError as exc:
            return {
                "transaction_id": transaction_id,
                "operation": None,
                "state": "damaged",
                "created": None,
                "paths": [],
                "restored": [],
                "problems": [f"{exc} — left in place"],
            }
        state = entry["state"]
        if state not in ("prepared", "undoing"):
            return None
        report = _summary(entry)
        try:
            changes = _decode_changes(entry)
        except JournalError as exc:
            report.update(state="damaged", restored=[], problems=[f"{exc} — left in place"])
            return report
        try:
            problems, restored = self._restore_before(changes)
            done = "rolled_back" if state == "prepared" else "undone"
            self._set_state(entry, "recovery_failed" if problems else done, problems)
        except OSError as exc:
            report.update(state=state, restored=[], problems=[f"recovery stopped: {exc}"])
            return report
        report.update(state=entry["state"], restored=restored, problems=problems)
        return report
