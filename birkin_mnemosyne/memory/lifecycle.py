"""A note's life after writing: archive (``forget``), ``restore``, ``rezone``, ``undo``.

Every move is one journaled transaction (``journal.Journal``) that ``undo`` reverses
byte for byte; usage records travel with the notes they belong to. ``forget`` and
``restore`` can preview a move without taking the lock or writing anything.
"""

from __future__ import annotations

import posixpath

from .. import notes_io as nio
from ..errors import InvalidInputError, NoteExistsError, WriteRefusedError
from ..journal import FileChange, check_transaction_id
from ..vault_paths import check_note_path, check_zone
from .base import MemoryBase, check_int, sha256_hex


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
        with self._lock():
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
        with self._lock():
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
        with self._lock():
            archived = self._resolve_archived(key)
            target = self._restore_target(archived, zone)
            self._refuse_occupied(target)
            result = self._move("restore", archived, target, self._read(archived), {})
        return self._moved(result, archived, target)

    # -- journal -----------------------------------------------------------------------

    def undo(self, transaction_id: str) -> dict:
        """Put back the exact bytes and paths of a journaled operation.

        Refused (``JournalError``) when a file changed since the operation.
        """
        transaction_id = check_transaction_id(transaction_id)
        with self._lock():
            entry = self._journal.get(transaction_id)
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
        return {**result, "operation": entry["operation"]}

    def journal(self, limit: int = 20) -> dict:
        """Recent journaled operations, newest first."""
        return {"transactions": self._journal.list(check_int(limit, "limit", 0))}
