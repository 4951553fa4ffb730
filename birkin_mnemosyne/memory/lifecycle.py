"""A note's life after writing: archive (``forget``), ``restore``, ``rezone``, ``undo``.

Every move is one journaled transaction (``journal.Journal``) that ``undo`` reverses
byte for byte; usage records travel with the notes they belong to. ``forget`` and
``restore`` can preview a move without taking the lock or writing anything.
"""

from __future__ import annotations

import posixpath
import re

from .. import notes_io as nio
from ..errors import InvalidInputError, NoteExistsError, NoteNotFoundError, WriteRefusedError
from ..journal import FileChange, check_transaction_id
from ..vault_paths import check_note_path, check_zone
from .base import MemoryBase, check_int, sha256_hex

#: What ``undo(kind=...)`` accepts besides an exact operation name.
UNDO_KINDS: dict[str, tuple[str, ...]] = {
    "write": ("create", "append", "replace", "edit"),
    "move": ("archive", "restore", "rezone", "move"),
}
# How far back ``undo(last=True)`` looks for a change that can still be undone.
LAST_SEARCH_DEPTH = 200
_KIND_RE = re.compile(r"[a-z][a-z-]{0,40}")


class LifecycleMixin(MemoryBase):
    """Journaled moves of notes, and undoing any journaled operation."""

    def _move(self, operation: str, old: str, new: str, data: bytes, meta: dict) -> dict:
        try:
            result = self._journal.transaction(
                operation,
                [FileChange(old, data, None), FileChange(new, None, data)],
                meta={"moves": [[old, new]], **meta},
            )
        except OSError as exc:
            raise WriteRefusedError(
                f"could not move {old} to {new}: {exc.strerror or exc} — nothing was changed"
            ) from exc
        self._carry_usage([(old, new)])
        self.engine.refresh(paths=[old, new])
        return result

    def _carry_usage(self, moves: list[tuple[str, str]]) -> None:
        """Move usage records along with their notes (the caller holds the lock)."""
        self.usage.load()
        self.usage.rename_many(moves)
        self._usage_signature = None

    def _moved(self, result: dict, old: str, new: str) -> dict:
        return {
            "mode": "applied",
            "transaction_id": result["transaction_id"],
            "state": result["state"],
            "operation": result["operation"],
            "paths": result["paths"],
            "key": self.engine.key_of(new),
            "path": new,
            "previous_path": old,
        }

    def rezone(self, key: str, zone: str) -> dict:
        """Move a note to ``<zone>/<same file name>`` (journaled; refused if taken)."""
        folder = check_zone(zone)
        with self._write_lock():
            path = self.resolve(key)
            name = posixpath.basename(path)
            target = check_note_path(f"{folder}/{name}" if folder else name)
            if target == path:
                raise InvalidInputError(f"{path} is already in zone {folder!r}")
            self._refuse_occupied(target)
            result = self._move("rezone", path, target, self._read(path), {"zone": folder})
        return self._moved(result, path, target)

    def _refuse_occupied(self, target: str) -> None:
        occupant = self._occupant(target)
        if occupant is None:
            return
        data = self._read(occupant) if (self.vault / occupant).is_file() else b""
        raise NoteExistsError(
            f"{occupant} already exists — move or rename it first; nothing was changed",
            key=self.engine.key_of(occupant),
            version=sha256_hex(data),
        )

    def forget(self, key: str, *, confirm: bool = False) -> dict:
        """Archive a note to ``_archive/<its path>``; only a preview unless ``confirm``.

        The preview writes nothing (and takes no lock); it names the move and warns when
        the archive already holds a note at that path (``confirm`` would be refused).
        """
        if not confirm:
            path = self.resolve(key)
            target = f"{nio.ARCHIVE_PREFIX}{path}"
            version = sha256_hex(self._read(path))
            occupant = self._occupant(target)
            return {
                "mode": "preview",
                "plan_id": sha256_hex(f"archive\0{path}\0{version}".encode())[:16],
                "key": self.engine.key_of(path),
                "path": path,
                "version": version,
                "moves": [{"from": path, "to": target}],
                "warnings": [f"{occupant} already exists: forget would be refused"]
                if occupant
                else [],
            }
        with self._write_lock():
            path = self.resolve(key)
            target = f"{nio.ARCHIVE_PREFIX}{path}"
            self._refuse_occupied(target)
            key_before = self.engine.key_of(path)
            result = self._move("archive", path, target, self._read(path), {"key": key_before})
        return {**self._moved(result, path, target), "key": key_before}

    def _restore_target(self, archived: str, zone: str | None) -> str:
        original = archived[len(nio.ARCHIVE_PREFIX) :]
        if zone is not None:
            folder = check_zone(zone)
            name = posixpath.basename(original)
            original = f"{folder}/{name}" if folder else name
        return check_note_path(original)

    def restore(self, key: str, zone: str | None = None, *, confirm: bool = True) -> dict:
        """Bring an archived note back byte-exact, to its original path or to ``zone``.

        ``confirm=False`` only previews (writes nothing, takes no lock): what would move
        where, and a warning when the target is taken (the restore would be refused).
        """
        if not confirm:
            archived = self._resolve_archived(key)
            target = self._restore_target(archived, zone)
            occupant = self._occupant(target)
            return {
                "mode": "preview",
                "key": self.engine.key_of(archived),
                "path": archived,
                "moves": [{"from": archived, "to": target}],
                "warnings": [f"{occupant} already exists: restore would be refused"]
                if occupant
                else [],
            }
        with self._write_lock():
            archived = self._resolve_archived(key)
            target = self._restore_target(archived, zone)
            self._refuse_occupied(target)
            result = self._move("restore", archived, target, self._read(archived), {})
        return self._moved(result, archived, target)

    # -- journal -----------------------------------------------------------------------

    def undo(
        self,
        transaction_id: str | None = None,
        *,
        last: bool = False,
        kind: str | None = None,
        confirm: bool = True,
    ) -> dict:
        """Put back the exact bytes and paths of a journaled operation.

        Name it by ``transaction_id``, or pass ``last=True`` for the newest committed
        one, of ``kind`` when given (``"write"``: create/append/replace/edit, ``"move"``:
        archive/restore/rezone/move, or an operation name such as ``"label"``); ``kind``
        alone implies ``last``. ``confirm=False`` only previews: what would be undone
        (``description``) and which files changed since (``changed_since``). Refused
        with ``UndoConflictError`` (a ``VersionConflictError``) when a file changed since
        the operation, so a later edit is never overwritten.
        """
        if kind is not None:
            kind = self._check_kind(kind)
            last = last or transaction_id is None
        if not isinstance(last, bool) or (transaction_id is None) == (not last):
            raise InvalidInputError(
                "give a transaction_id or last=True, not both or neither",
                fix="{journal} lists the ids",
            )
        with self._write_lock():
            if last:
                transaction_id = self._last_undoable(kind)
            transaction_id = check_transaction_id(transaction_id)
            entry = self._journal.get(transaction_id)
            if kind is not None and entry["operation"] not in UNDO_KINDS.get(kind, (kind,)):
                raise InvalidInputError(
                    f"transaction {transaction_id} is a {entry['operation']!r}, not of kind "
                    f"{kind!r}",
                    fix="drop kind, or pick another id from {journal}",
                )
            about = {
                "transaction_id": transaction_id,
                "operation": entry["operation"],
                "created": entry["created"],
                "description": describe_transaction(entry),
            }
            if not confirm:
                changed = self._journal.changed_since(transaction_id)
                return {
                    "mode": "preview",
                    **about,
                    "state": entry["state"],
                    "paths": entry["paths"],
                    "changed_since": sorted(changed),
                    "undoable": entry["state"] in ("committed", "undoing") and not changed,
                }
            result = self._journal.undo(transaction_id)
            moves = entry["meta"].get("moves") or []
            back = [
                (new, old)
                for old, new in (m for m in moves if isinstance(m, list) and len(m) == 2)
                if isinstance(old, str) and isinstance(new, str)
            ]
            if back:
                self._carry_usage(back)
            self.engine.refresh(paths=result["paths"])
        return {"mode": "applied", **about, **result}

    @staticmethod
    def _check_kind(kind: object) -> str:
        if not isinstance(kind, str) or not _KIND_RE.fullmatch(kind):
            raise InvalidInputError(
                f"kind must be {', '.join(map(repr, UNDO_KINDS))} or an operation name such "
                f"as 'label', got {kind!r}"
            )
        return kind

    def _last_undoable(self, kind: str | None) -> str:
        """The newest committed transaction (of ``kind``) within the recent journal."""
        rows = self._journal.list(LAST_SEARCH_DEPTH)
        wanted = UNDO_KINDS.get(kind, (kind,)) if kind is not None else None
        for row in rows:
            if row["state"] == "committed" and (wanted is None or row["operation"] in wanted):
                return row["transaction_id"]
        what = "change" if kind is None else f"{kind!r} change"
        seen = sorted({row["operation"] for row in rows if row["operation"]})
        hint = f" (operations in it: {', '.join(seen)})" if seen and kind is not None else ""
        raise NoteNotFoundError(
            f"nothing to undo — the last {len(rows)} journal entries hold no committed "
            f"{what}{hint}",
            fix="{journal} lists them",
        )

    def journal(self, limit: int = 20) -> dict:
        """Recent journaled operations, newest first."""
        return {"transactions": self._journal.list(check_int(limit, "limit", 0))}


def describe_transaction(entry: dict) -> str:
    """One line naming what a journal entry did: ``replace of ops/x.md (2026-03-02T10:00:00Z)``."""
    moves = entry.get("meta", {}).get("moves") or []
    pairs = [m for m in moves if isinstance(m, list) and len(m) == 2]
    if pairs and len(pairs) <= 3:
        what = ", ".join(f"{old} -> {new}" for old, new in pairs)
        others = len(entry.get("paths") or []) - 2 * len(pairs)
        if others > 0:  # a move that rewrote the links of other notes
            what += f" and the links of {others} other note{'s' if others > 1 else ''}"
    else:
        paths = entry.get("paths") or [c["path"] for c in entry.get("changes", [])]
        what = ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
    when = (entry.get("created") or "")[:19]
    operation = entry["operation"]
    mode = entry.get("meta", {}).get("mode")
    if isinstance(mode, str) and mode != operation:
        operation += f" ({mode})"  # an edit names its kind: "edit (find_replace)"
    return f"{operation} of {what}" + (f" ({when}Z)" if when else "")
