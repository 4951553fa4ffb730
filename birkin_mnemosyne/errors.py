"""The one exception tree of birkin-mnemosyne.

Every error the library raises on purpose is a ``MnemosyneError``. Each message says
what was wrong and how to fix it; adapters (CLI, MCP, Hermes) map the classes to their
own surface (the CLI's exit code is ``exit_code`` on the class).

::

    MnemosyneError (Exception)                 exit 2 unless noted
    ├── ConfigError (ValueError)               .mnemosyne/config.json is invalid
    ├── VaultNotFoundError (FileNotFoundError) the vault folder does not exist
    ├── InvalidPathError (ValueError)          a note path or zone breaks a path rule
    ├── InvalidInputError (ValueError)         any other bad argument
    │   ├── LabelError                         a malformed namespace:value label
    │   └── MatchCountError                    find_replace found another number of matches
    ├── NoteNotFoundError (KeyError)           exit 1: unknown key or path
    │   └── SectionNotFoundError               no heading of that name in the note
    ├── AmbiguousKeyError (KeyError)           a key matches several notes
    │   └── AmbiguousSectionError              a heading names several sections
    ├── NoteExistsError                        exit 3: create would overwrite
    ├── VersionConflictError                   exit 3: expected_version is stale
    ├── WriteRefusedError                      exit 3: a write the configuration forbids
    ├── JournalError                           exit 3: undo refused, journal damaged
    │   └── UndoConflictError                  a file changed since (also a VersionConflictError)
    ├── RedactionError                         the secret-hash file is missing/malformed
    ├── PlanError (ValueError)                 a curation plan cannot be used
    └── ExtraNotInstalledError (ImportError)   an optional extra is missing
"""

from __future__ import annotations


class MnemosyneError(Exception):
    """Base class of every error raised on purpose by birkin-mnemosyne."""

    exit_code = 2

    def __str__(self) -> str:  # KeyError would otherwise repr() its message
        return str(self.args[0]) if self.args else self.__class__.__name__


class ConfigError(MnemosyneError, ValueError):
    """The vault configuration file is unreadable or holds an unknown or invalid key."""


class VaultNotFoundError(MnemosyneError, FileNotFoundError):
    """The vault folder does not exist (it is never created implicitly)."""


class InvalidPathError(MnemosyneError, ValueError):
    """A note path or zone breaks one of the path rules in ``vault_paths``."""

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(message)
        self.rule = rule


class InvalidInputError(MnemosyneError, ValueError):
    """An argument is out of range or malformed."""


class LabelError(InvalidInputError):
    """A label is not of the form ``namespace:value``."""


class MatchCountError(InvalidInputError):
    """``find_replace`` found the text a number of times other than ``expected_count``;
    nothing was written. ``found`` and ``expected`` are the two counts."""

    def __init__(self, message: str, *, found: int, expected: int) -> None:
        super().__init__(message)
        self.found = found
        self.expected = expected


class NoteNotFoundError(MnemosyneError, KeyError):
    """No note has this key or path."""

    exit_code = 1

    def __init__(self, message: str, *, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates = list(candidates or [])


class AmbiguousKeyError(MnemosyneError, KeyError):
    """A key names more than one note; the candidates are listed."""

    def __init__(self, message: str, *, candidates: list[str] | None = None) -> None:
        super().__init__(message)
        self.candidates = list(candidates or [])


class SectionNotFoundError(NoteNotFoundError):
    """A note has no heading of the given name; ``candidates`` lists its headings."""


class AmbiguousSectionError(AmbiguousKeyError):
    """A heading names several sections of one note; ``candidates`` lists them with
    their lines (``"## Notes (line 12)"``)."""


class NoteExistsError(MnemosyneError):
    """``create`` would overwrite an existing note."""

    exit_code = 3

    def __init__(self, message: str, *, key: str = "", version: str = "") -> None:
        super().__init__(message)
        self.key = key
        self.version = version


class VersionConflictError(MnemosyneError):
    """The note changed since the caller read it (``expected_version`` is stale)."""

    exit_code = 3

    def __init__(self, message: str, *, current_version: str = "") -> None:
        super().__init__(message)
        self.current_version = current_version


class WriteRefusedError(MnemosyneError):
    """A write that the vault's configuration or state forbids."""

    exit_code = 3


class JournalError(MnemosyneError):
    """An undo cannot be done safely, or a journal entry is damaged."""

    exit_code = 3


class UndoConflictError(JournalError, VersionConflictError):
    """An undo was refused: a file changed since the transaction, and undoing would
    overwrite that later edit. ``paths`` names them; ``current_versions`` maps each to
    the sha256 of its bytes now (``None`` when the file is gone)."""

    exit_code = 3

    def __init__(self, message: str, *, current_versions: dict[str, str | None]) -> None:
        first = next(iter(current_versions.values()), None) or ""
        super().__init__(message, current_version=first)
        self.current_versions = dict(current_versions)
        self.paths = list(current_versions)


class RedactionError(MnemosyneError):
    """Redaction cannot run as configured (fail closed: nothing is indexed or served)."""


class PlanError(MnemosyneError, ValueError):
    """A curation plan is malformed."""


class ExtraNotInstalledError(MnemosyneError, ImportError):
    """An optional extra is missing; the message names the pip command."""

    def __init__(self, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the '{extra}' extra, which is not installed — "
            f'run: pip install "birkin-mnemosyne[{extra}]" (in a checkout: '
            f'pip install -e ".[{extra}]")'
        )
        self.extra = extra
