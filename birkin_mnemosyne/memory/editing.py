"""Editing part of a note: ``edit_note`` prepends, finds and replaces, or replaces one
section (and, for one entry point, appends or replaces the body as ``write_note`` does).

Every edit takes the same road as a write: the vault lock, ``expected_version`` checked
under it, one journaled transaction (operation ``edit``, ``meta.mode`` the operation) that
``undo`` reverses byte for byte, an atomic write, the index refreshed, and the write
shape back (``mode`` = the operation). What each operation does to the text is in
``note_edits``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import note_edits
from .. import notes_io as nio
from ..errors import InvalidInputError
from .base import check_int
from .writing import WritingMixin

EDIT_OPERATIONS = ("append", "prepend", "find_replace", "replace_section", "replace")
# The operations edit_note performs itself (append and replace are write_note's modes).
_OWN_OPERATIONS = ("prepend", "find_replace", "replace_section")


class EditingMixin(WritingMixin):
    """``edit_note``: the edits between appending a section and replacing the body."""

    def edit_note(
        self,
        key: str,
        operation: str,
        content: str,
        *,
        find: str | None = None,
        section: str | None = None,
        expected_count: int = 1,
        expected_version: str | None = None,
        source: Iterable[str] | str | None = None,
        now: float | None = None,
    ) -> dict:
        """Change part of a note and return the write shape (``mode`` = ``operation``).

        ``operation`` is one of ``EDIT_OPERATIONS``:

        * ``prepend``: ``content`` becomes the first lines of the body, right after the
          frontmatter;
        * ``find_replace``: every occurrence of ``find`` in the body becomes ``content``,
          refused (``MatchCountError``) unless there are exactly ``expected_count``;
        * ``replace_section``: the text under heading ``section`` (case-insensitive; may
          start with its level, ``"## Notes"``) becomes ``content``; needs
          ``expected_version``. A missing heading raises ``SectionNotFoundError`` listing
          the headings, a heading shared by several sections ``AmbiguousSectionError``;
        * ``append`` / ``replace``: ``write_note``'s modes of the same name.

        ``expected_version`` (from ``get_note``) is checked under the lock whenever it is
        given. Undo with ``undo(transaction_id)`` or ``undo(kind="edit")``.
        """
        if operation not in EDIT_OPERATIONS:
            raise InvalidInputError(
                f"operation must be one of {', '.join(EDIT_OPERATIONS)}; got {operation!r}",
                valid_choices=EDIT_OPERATIONS,
            )
        self._check_edit_arguments(operation, find, section, expected_count)
        if operation not in _OWN_OPERATIONS:
            return self.write_note(
                key,
                content,
                mode=operation,
                source=source,
                expected_version=expected_version,
                now=now,
            )
        when = self._now(now)
        # A replacement may be empty: find_replace then deletes, replace_section clears.
        content = nio.check_body(
            content, max_bytes=self.max_note_bytes, allow_empty=operation != "prepend"
        )
        if find is not None:
            if not isinstance(find, str):
                raise InvalidInputError(f"find must be text (str), got {type(find).__name__}")
            find = nio.check_body(find, max_bytes=self.max_note_bytes)
        sources = nio.check_strings(source, "source")
        self._check_evidence(sources)
        self._check_expected_version(expected_version)
        if operation == "replace_section" and expected_version is None:
            raise InvalidInputError(
                "{:replace_section} needs {=expected_version}, so a change made since is never "
                "overwritten",
                fix="read the note (or just that section) with {get_note} and pass its version",
            )
        warnings = self._mark_warnings(content)
        with self._write_lock():
            path = self._resolve_for_write(key, None)
            data, text = self._read_for_edit(path, expected_version)
            if operation == "prepend":
                text = note_edits.prepend_to_note(
                    text, content, now=when, sources=sources, warnings=warnings
                )
            elif operation == "find_replace":
                text = note_edits.find_replace_in_note(
                    text,
                    find,
                    content,
                    expected_count=expected_count,
                    now=when,
                    sources=sources,
                    warnings=warnings,
                    where=path,
                )
            else:
                text = note_edits.replace_note_section(
                    text,
                    section,
                    content,
                    now=when,
                    sources=sources,
                    warnings=warnings,
                    redact=self.engine.redactor.redact,
                    where=path,
                )
            new = text.encode("utf-8")
            nio.check_size(len(new), self.max_note_bytes, f"note {path}")
            transaction = self._journaled_write("edit", path, data, new, mode=operation)
            result = self._written(path, operation, transaction, warnings)
        result["near_duplicates"] = self._near_duplicates(path, text)
        return result

    @staticmethod
    def _check_edit_arguments(operation, find, section, expected_count) -> None:
        if operation == "find_replace":
            if find is None:
                raise InvalidInputError(
                    "{:find_replace} needs {=find} (the exact text to replace) and the new text "
                    "as {=content}"
                )
            check_int(expected_count, "expected_count", 1)
        elif find is not None:
            raise InvalidInputError(
                f"{{=find}} is only for {{:find_replace}}, not {{:{operation}}}"
            )
        elif expected_count != 1:
            raise InvalidInputError(
                f"{{=expected_count}} is only for {{:find_replace}}, not {{:{operation}}}"
            )
        if operation == "replace_section":
            if section is None:
                raise InvalidInputError(
                    "{:replace_section} needs {=section} (the heading, e.g. 'Verify' or '## Verify')"
                )
        elif section is not None:
            raise InvalidInputError(
                f"{{=section}} is only for {{:replace_section}}, not {{:{operation}}}"
            )
