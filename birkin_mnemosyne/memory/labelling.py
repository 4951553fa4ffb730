"""Label changes as plans: ``label_preview`` writes nothing, ``label_apply`` applies the
plan as one journaled transaction, refused when a note changed since the preview.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import notes_io as nio
from ..errors import InvalidInputError, JournalError, VersionConflictError, WriteRefusedError
from ..frontmatter import parse_frontmatter, set_frontmatter_key
from ..journal import FileChange
from ..labels import normalize_labels
from ..labels import suggest_labels as _suggest_labels
from ..markdown import parse_markdown
from ..vault_paths import zone_of
from .base import MemoryBase, sha256_hex

# Label plans kept in memory for label_apply(plan_id) (a CLI passes the arguments again).
PLANS_KEPT = 32


class LabellingMixin(MemoryBase):
    """Previewed, journaled label changes and deterministic label suggestions."""

    def label_preview(
        self,
        paths: Iterable[str] | str,
        *,
        add: Iterable[str] | str | None = None,
        remove: Iterable[str] | str | None = None,
        set: Iterable[str] | str | None = None,  # shadows the builtin: the documented name
        clear: bool = False,
        suggest: bool = False,
    ) -> dict:
        """Plan a label change for some notes; writes nothing. Apply with ``label_apply``."""
        plan = self._label_plan(paths, add, remove, set, clear, suggest)
        self._plans[plan["plan_id"]] = plan
        self._plans.move_to_end(plan["plan_id"])
        while len(self._plans) > PLANS_KEPT:
            self._plans.popitem(last=False)
        return self._plan_view("preview", plan)

    def label_apply(
        self,
        plan_id: str | None = None,
        paths: Iterable[str] | str | None = None,
        *,
        add: Iterable[str] | str | None = None,
        remove: Iterable[str] | str | None = None,
        set: Iterable[str] | str | None = None,  # shadows the builtin: the documented name
        clear: bool = False,
        suggest: bool = False,
    ) -> dict:
        """Apply a previewed label plan as one journaled transaction.

        Pass the ``plan_id`` of a preview made by this object, or the same arguments as
        the preview (with its ``plan_id`` to make sure nothing changed since). A plan whose
        notes changed since the preview is refused with ``VersionConflictError``.
        """
        with self._write_lock():
            if paths is not None:
                plan = self._label_plan(paths, add, remove, set, clear, suggest)
                if plan_id is not None and plan["plan_id"] != plan_id:
                    raise VersionConflictError(
                        f"the notes changed since preview {plan_id} (the same change now plans "
                        f"as {plan['plan_id']})",
                        fix="review {label_preview} again",
                        current_version=plan["plan_id"],
                    )
            else:
                if not isinstance(plan_id, str) or plan_id not in self._plans:
                    raise InvalidInputError(
                        f"unknown plan id {plan_id!r}",
                        fix="run {label_preview} again, or pass the same paths and options as "
                        "the preview along with its plan_id",
                    )
                plan = self._plans[plan_id]
                for change in plan["files"]:
                    try:
                        current = (self.vault / change.path).read_bytes()
                    except OSError:
                        current = None
                    if current != change.before:
                        raise VersionConflictError(
                            f"{change.path} changed since preview {plan_id}",
                            fix="run {label_preview} again",
                            current_version=sha256_hex(current) if current is not None else "",
                        )
            view = self._plan_view("applied", plan)
            if not plan["files"]:
                view.update(transaction_id=None, state="unchanged", paths=[])
                return view
            try:
                result = self._journal.transaction(
                    "label", plan["files"], meta={"plan_id": plan["plan_id"]}
                )
            except JournalError as exc:
                raise VersionConflictError(str(exc)) from exc
            except OSError as exc:
                raise WriteRefusedError(
                    f"could not apply label plan {plan['plan_id']}: {exc.strerror or exc} — "
                    "the journal put every file back"
                ) from exc
            self._plans.pop(plan["plan_id"], None)
            self.engine.refresh(paths=result["paths"])
        view.update(
            transaction_id=result["transaction_id"], state=result["state"], paths=result["paths"]
        )
        return view

    @staticmethod
    def _plan_view(mode: str, plan: dict) -> dict:
        return {
            "mode": mode,
            "plan_id": plan["plan_id"],
            "operation": "label",
            "changes": plan["changes"],
            "unchanged": plan["unchanged"],
            "warnings": plan["warnings"],
        }

    def _label_plan(self, paths, add, remove, set_labels, clear, suggest) -> dict:
        if isinstance(paths, str):
            paths = [paths]
        if paths is None or not isinstance(paths, Iterable):
            raise InvalidInputError("paths must be a list of note keys or paths")
        wanted = list(paths)
        if not wanted:
            raise InvalidInputError("give at least one note key or path to label")
        if clear and set_labels is not None:
            raise InvalidInputError("pass either set= or clear=True, not both")
        if not (add or remove or set_labels is not None or clear or suggest):
            raise InvalidInputError(
                "nothing to change: pass add=, remove=, set=, clear=True or suggest=True"
            )
        added, removed = normalize_labels(add), normalize_labels(remove)
        replacement = None if set_labels is None else normalize_labels(set_labels)
        resolved: list[str] = []
        for item in wanted:
            path = self.resolve(item)
            if path not in resolved:
                resolved.append(path)
        files, changes, unchanged, warnings = [], [], [], []
        for path in resolved:
            data = self._read(path)
            text, valid = nio.decode_note(data)
            if not valid:
                raise WriteRefusedError(f"{path} is not valid UTF-8; re-save it as UTF-8 first")
            fm = parse_frontmatter(text)
            current, new, malformed = nio.relabel(
                fm.data,
                clear=clear,
                replacement=replacement,
                added=[*added, *(self._suggested(path, fm) if suggest else [])],
                removed=removed,
            )
            if malformed:
                warnings.append(f"{path}: malformed label(s) {malformed} will be dropped")
            if new == current and not malformed:
                unchanged.append(path)
                continue
            try:
                after = set_frontmatter_key(text, "labels", new).encode("utf-8")
            except InvalidInputError as exc:
                raise InvalidInputError(f"{path}: {exc}") from None
            files.append(FileChange(path, data, after))
            changes.append(
                {"key": self.engine.key_of(path), "path": path, "before": current, "after": new}
            )
        return {
            "plan_id": nio.plan_id(files),
            "files": files,
            "changes": changes,
            "unchanged": unchanged,
            "warnings": warnings,
        }

    def _suggested(self, path: str, fm) -> list[str]:
        declared = fm.data.get("type")
        meta = self.engine.note_meta(path) or {}
        return _suggest_labels(
            path=path,
            zone=zone_of(path),
            note_type=declared if isinstance(declared, str) else meta.get("note_type"),
            frontmatter=fm.data,
            body=fm.body,
            links=[link.target for link in parse_markdown(fm.body).links if link.target],
        )

    def suggest_labels(self, key: str) -> list[str]:
        """Deterministic label suggestions for a note (``labels.suggest_labels``)."""
        path = self.resolve(key)
        _, fm = nio.parse_note(self._read(path))
        return self._suggested(path, fm)
