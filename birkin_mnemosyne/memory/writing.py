"""Writing notes: ``write_note`` creates, appends to or replaces one.

A create never overwrites; a replace is conditional on ``expected_version``, checked
under the vault lock right before the atomic write. Every write reports the existing
notes it nearly duplicates.

Every write is one journaled transaction (``journal.Journal``: the note's bytes before
and after), so ``undo(transaction_id)`` or ``undo(last=True, kind="write")`` puts back
the exact prior bytes: a replace or append gets the old text back, a create is undone
by removing the new file (the journal entry keeps its bytes). The undo is refused when
the note changed since.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .. import notes_io as nio
from ..engine import MAX_QUERY_CHARS
from ..errors import (
    InvalidInputError,
    MnemosyneError,
    NoteExistsError,
    NoteNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)
from ..frontmatter import parse_frontmatter
from ..journal import FileChange
from ..labels import normalize_labels
from ..redact import MARK_RE
from ..vault_paths import check_note_path, check_zone, note_stem, slugify, zone_of
from .base import MemoryBase, sha256_hex

WRITE_MODES = ("create", "append", "replace")
# Notes read to look for near-duplicates after a write (the top search hits).
NEAR_DUPLICATE_CANDIDATES = 5
_VERSION_RE = re.compile(r"[0-9a-f]{64}")


class WritingMixin(MemoryBase):
    """``write_note`` and the steps of a create or an edit."""

    def write_note(
        self,
        title: str,
        body: str,
        *,
        mode: str = "create",
        zone: str | None = None,
        note_type: str | None = None,
        tags: Iterable[str] | str | None = None,
        labels: Iterable[str] | str | None = None,
        links: Iterable[str] | None = None,
        source: Iterable[str] | str | None = None,
        expected_version: str | None = None,
        now: float | None = None,
    ) -> dict:
        """Create a note, append a dated section to one, or replace one's body.

        ``create`` never overwrites; ``replace`` needs ``expected_version`` (from
        ``get_note``); ``append`` needs no version. For ``append``/``replace`` the
        ``title`` names the note (key, path, or the title it was created with).
        Returns the write shape with ``near_duplicates``.
        """
        if mode not in WRITE_MODES:
            raise InvalidInputError(
                f"mode must be one of {', '.join(WRITE_MODES)}; got {mode!r}",
                valid_choices=WRITE_MODES,
            )
        when = self._now(now)
        body = nio.check_body(body, max_bytes=self.max_note_bytes)
        fields = {
            "note_type": self._check_type(note_type),
            "tags": (
                None
                if tags is None
                else [t.lstrip("#") for t in nio.check_strings(tags, "tags", split_commas=True)]
            ),
            "labels": None if labels is None else normalize_labels(labels),
            "links": nio.check_links(links),
            "sources": nio.check_strings(source, "source"),
        }
        self._check_evidence(fields["sources"])
        self._check_expected_version(expected_version)
        if mode == "replace" and expected_version is None:
            raise InvalidInputError(
                "{:replace} needs {=expected_version}, so a change made since is never overwritten",
                fix="read the note with {get_note} and pass its version",
            )
        warnings = self._mark_warnings(body)
        with self._write_lock():
            if mode == "create":
                path, text, transaction = self._create(title, body, zone, fields, when, warnings)
            else:
                path, text, transaction = self._edit(
                    title, body, zone, mode, expected_version, fields, when, warnings
                )
            result = self._written(path, mode, transaction, warnings)
        result["near_duplicates"] = self._near_duplicates(path, text)
        return result

    def _written(self, path: str, mode: str, transaction: str, warnings: list[str]) -> dict:
        """The write shape of a note just written, its ``near_duplicates`` still to be
        filled in once the lock (which the caller holds) is released."""
        self.engine.refresh(paths=[path])
        data = (self.vault / path).read_bytes()
        return {
            "key": self.engine.key_of(path),
            "path": path,
            "version": sha256_hex(data),
            "created": mode == "create",
            "mode": mode,
            "transaction_id": transaction,
            "near_duplicates": [],
            "warnings": warnings,
        }

    def _check_evidence(self, sources: list[str]) -> None:
        if self.evidence_required and not sources:
            raise WriteRefusedError(
                "this vault requires evidence for every write: pass source='where this "
                "came from' (a URL, a file, a conversation id) — set by evidence_required"
            )

    @staticmethod
    def _check_expected_version(expected_version: object) -> None:
        if expected_version is not None and not (
            isinstance(expected_version, str) and _VERSION_RE.fullmatch(expected_version)
        ):
            raise InvalidInputError(
                "{=expected_version} must be a 64-hex-digit note version, "
                f"got {expected_version!r}",
                fix="take the version from {get_note}",
            )

    @staticmethod
    def _mark_warnings(text: str) -> list[str]:
        if not MARK_RE.search(text):
            return []
        # get_note serves redacted text: writing it back stores the marks, not the
        # secrets they stood for. Allowed (it may be wanted), but said out loud.
        return [
            "the body contains [REDACTED] marks (from a redacted read): the note now "
            "holds the marks, not the values they replaced"
        ]

    def _read_for_edit(self, path: str, expected: str | None) -> tuple[bytes, str]:
        """The note's bytes and text, after checking ``expected`` (under the lock)."""
        data = self._read(path)
        current = sha256_hex(data)
        if expected is not None and expected != current:
            raise VersionConflictError(
                f"{path} changed since you read it (expected version {expected[:12]}…, it is "
                f"now {current})",
                fix="read it again with {get_note} and redo the change",
                current_version=current,
            )
        text, valid = nio.decode_note(data)
        if not valid:
            raise WriteRefusedError(
                f"{path} is not valid UTF-8; re-save it as UTF-8 before writing to it, so "
                "no byte is lost"
            )
        return data, text

    def _journaled_write(
        self, operation: str, path: str, before: bytes | None, after: bytes, mode: str = ""
    ) -> str:
        """Write one note as a journaled transaction; returns its transaction id."""
        try:
            result = self._journal.transaction(
                operation, [FileChange(path, before, after)], meta={"mode": mode or operation}
            )
        except OSError as exc:
            raise WriteRefusedError(
                f"could not write {path}: {exc.strerror or exc} — nothing was changed"
            ) from exc
        return result["transaction_id"]

    @staticmethod
    def _check_type(note_type: object) -> str | None:
        if note_type is None:
            return None
        values = nio.check_strings(note_type, "note_type") if isinstance(note_type, str) else []
        if len(values) != 1:
            raise InvalidInputError(f"note_type must be one word or phrase, got {note_type!r}")
        return values[0]

    def _create(self, title, body, zone, fields, when, warnings) -> tuple[str, str, str]:
        title, slug = nio.check_title(title)
        folder = check_zone(zone)
        path = check_note_path(f"{folder}/{slug}.md" if folder else f"{slug}.md")
        occupant = self._occupant(path)
        if occupant is not None:
            self.engine.refresh(paths=[occupant])
            version = sha256_hex(self._read(occupant))
            key = self.engine.key_of(occupant)
            raise NoteExistsError(
                f"note {key!r} already exists at {occupant} (version {version})",
                fix="add to it with {append}, rewrite it with {replace}, or choose another title",
                key=key,
                version=version,
            )
        text = nio.new_note_text(
            title=title,
            body=body,
            note_type=fields["note_type"] or self._type_for(path),
            tags=fields["tags"] or [],
            labels=fields["labels"] or [],
            sources=fields["sources"],
            links=fields["links"],
            now=when,
        )
        data = text.encode("utf-8")
        nio.check_size(len(data), self.max_note_bytes, f"note {path}")
        transaction = self._journaled_write("create", path, None, data)
        live = self.engine.keys()  # path -> key of every live note
        twins = [p for p in live if p != path and note_stem(p).casefold() == slug.casefold()]
        if twins:
            warnings.append(
                f"another note has the file name {slug}.md ({', '.join(sorted(twins))}); "
                "keys of notes sharing a name are their paths without .md"
            )
        return path, text, transaction

    def _edit(
        self, title, body, zone, mode, expected, fields, when, warnings
    ) -> tuple[str, str, str]:
        path = self._resolve_for_write(title, zone)
        data, text = self._read_for_edit(path, expected)
        edit = nio.append_to_note if mode == "append" else nio.replace_note_body
        text = edit(
            text,
            body,
            now=when,
            links=fields["links"],
            note_type=fields["note_type"],
            tags=fields["tags"],
            labels=fields["labels"],
            sources=fields["sources"],
            warnings=warnings,
        )
        new = text.encode("utf-8")
        nio.check_size(len(new), self.max_note_bytes, f"note {path}")
        return path, text, self._journaled_write(mode, path, data, new)

    def _resolve_for_write(self, title: object, zone: str | None) -> str:
        folder = None if zone is None else check_zone(zone)
        raw = nio.clean_key(title)
        try:
            path = self.resolve(raw)
        except NoteNotFoundError as missing:
            slug = slugify(raw)
            path = None
            if slug and slug != raw:
                try:
                    path = self.resolve(f"{folder}/{slug}" if folder else slug)
                except NoteNotFoundError:
                    path = None
            if path is None:
                make = "to make a new note, use {create}"
                raise NoteNotFoundError(
                    missing.message,
                    fix=f"{missing.fix}; {make}" if missing.fix else make,
                    candidates=missing.candidates,
                ) from None
        if folder is not None and zone_of(path) != folder:
            raise InvalidInputError(
                f"note {path} is in zone {zone_of(path)!r}, not {folder!r}",
                fix="leave zone out, or move the note first with {rezone}",
            )
        return path

    def _near_duplicates(self, path: str, text: str) -> list[dict]:
        """Other notes whose index terms overlap this one's by at least NEAR_DUPLICATE_JACCARD."""
        fm = parse_frontmatter(text)
        title = nio.note_title(fm.data, None, path)
        mine = nio.term_set(title, fm.body)
        if not mine:
            return []
        query = nio.distinctive_query(title, fm.body)[:MAX_QUERY_CHARS]
        try:
            response = self.engine.search_response(query, NEAR_DUPLICATE_CANDIDATES + 1)
        except MnemosyneError:
            return []
        found = []
        for hit in (response["hits"] or response["best_weak"])[: NEAR_DUPLICATE_CANDIDATES + 1]:
            if hit["path"] == path:
                continue
            try:
                _, other_fm = nio.parse_note((self.vault / hit["path"]).read_bytes())
            except OSError:
                continue
            other = nio.term_set(nio.note_title(other_fm.data, None, hit["path"]), other_fm.body)
            similarity = nio.jaccard(mine, other)
            if similarity >= nio.NEAR_DUPLICATE_JACCARD:
                found.append(
                    {"key": hit["key"], "path": hit["path"], "similarity": round(similarity, 3)}
                )
        found.sort(key=lambda row: (-row["similarity"], row["path"]))
        return found[:NEAR_DUPLICATE_CANDIDATES]

    def _type_for(self, path: str) -> str:
        return self.config.type_for(path) or nio.DEFAULT_NOTE_TYPE
