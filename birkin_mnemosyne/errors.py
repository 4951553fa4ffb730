"""The one exception tree of birkin-mnemosyne, and how every door reports an error.

Every error the library raises on purpose is a ``MnemosyneError``. Each says what was
wrong (``message``) and, where there is one, how to fix it (``fix``); adapters (CLI,
MCP, Hermes) map the classes to their own surface (the CLI's exit code is
``exit_code`` on the class).

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
    ├── IndexBackendError                      a team index's database cannot be used
    ├── GitError                               a team repository cannot be read with git
    └── ExtraNotInstalledError (ImportError)   an optional extra is missing

**Fixes name the door's own operations.** A ``fix`` is a constant template that names
operations as ``{operation}`` (the keys of ``OPERATIONS``), e.g. ``"read it again with
{get_note} and redo the change"``; user data belongs in the message, never in the
template. Each door renders it with its own names: ``VaultMemory.get_note()`` for the
library (``str(error)``), ``mnemosyne show`` for the CLI, ``memory_get_note`` for the
MCP server, ``mnemosyne_get`` for Hermes. A door that lacks the operation (an MCP
server whose tool set leaves it out, a Hermes session) names the CLI command instead.

**So do the parameters they name.** A message or fix names a parameter as
``{=expected_count}`` and a value of a choice as ``{:find_replace}``; each door spells
them its way (``expected_count`` at the library, MCP and Hermes, ``--expected-count`` at the CLI;
``find_replace`` / ``find-replace``; ``PARAMETERS`` lists the exceptions to that rule).

**One error shape for every door.** ``error_dict(error, door)`` is what the MCP
server returns as structured content, ``mnemosyne --json`` prints on stderr under
``"error"`` and the Hermes tools return:

=================  ============================================================
``error_type``     the class name, e.g. ``VersionConflictError``
``message``        the whole sentence, problem and fix, in the door's names
``hint``           the fix alone, in the door's names (absent when there is none)
``operations``     the door's names of the operations the fix points to
``valid_choices``  the accepted values, when the error is about a choice
(fields)           what the class carries: ``current_version`` (in full),
                   ``candidates``, ``key`` and ``version``, ``rule``, ``paths`` and
                   ``current_versions``, ``extra`` (see each class's ``fields``)
=================  ============================================================
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NamedTuple

__all__ = [
    "AmbiguousKeyError",
    "AmbiguousSectionError",
    "ConfigError",
    "DOORS",
    "ExtraNotInstalledError",
    "GitError",
    "IndexBackendError",
    "InvalidInputError",
    "InvalidPathError",
    "JournalError",
    "LabelError",
    "MatchCountError",
    "MnemosyneError",
    "NoteExistsError",
    "NoteNotFoundError",
    "OPERATIONS",
    "OperationNames",
    "PARAMETERS",
    "PlanError",
    "RedactionError",
    "SectionNotFoundError",
    "UndoConflictError",
    "VaultNotFoundError",
    "VersionConflictError",
    "WriteRefusedError",
    "error_dict",
    "render_fix",
    "render_names",
]

DOORS = ("library", "cli", "mcp", "hermes")


class OperationNames(NamedTuple):
    """What one operation is called at each door (``None``: that door has no such call)."""

    library: str
    cli: str
    mcp: str | None
    hermes: str | None


# Every operation a fix may point to. The one table of per-door names: a new door adds
# a column, a new hint adds a row (tests/test_errors.py checks every fix against it).
OPERATIONS: dict[str, OperationNames] = {
    "search": OperationNames(
        "VaultMemory.search()", "mnemosyne search", "memory_search", "mnemosyne_search"
    ),
    "get_note": OperationNames(
        "VaultMemory.get_note()", "mnemosyne show", "memory_get_note", "mnemosyne_get"
    ),
    "list_notes": OperationNames("VaultMemory.list_notes()", "mnemosyne list", "memory_list", None),
    "create": OperationNames(
        "VaultMemory.write_note(mode='create')",
        "mnemosyne remember",
        "memory_remember (mode='create')",
        "mnemosyne_remember (mode='create')",
    ),
    "append": OperationNames(
        "VaultMemory.write_note(mode='append')",
        "mnemosyne append",
        "memory_remember (mode='append')",
        "mnemosyne_remember (mode='append')",
    ),
    "replace": OperationNames(
        "VaultMemory.write_note(mode='replace', expected_version=...)",
        "mnemosyne replace --expected-version VERSION",
        "memory_remember (mode='replace', expected_version)",
        "mnemosyne_remember (mode='replace', expected_version)",
    ),
    "edit": OperationNames(
        "VaultMemory.edit_note()", "mnemosyne edit", "memory_edit", "mnemosyne_edit"
    ),
    "move": OperationNames("VaultMemory.move()", "mnemosyne move", "memory_move", "mnemosyne_move"),
    "restore": OperationNames("VaultMemory.restore()", "mnemosyne restore", "memory_restore", None),
    "rezone": OperationNames("VaultMemory.rezone()", "mnemosyne rezone", "memory_rezone", None),
    "journal": OperationNames(
        "VaultMemory.journal()", "mnemosyne journal", "memory_undo (no arguments)", None
    ),
    "label_preview": OperationNames("VaultMemory.label_preview()", "mnemosyne label", None, None),
    "index_open": OperationNames(
        "MemoryIndex.open()", "mnemosyne index open", "memory_open_trigger", None
    ),
    "index_split": OperationNames(
        "MemoryIndex.split()", "mnemosyne index split", "memory_index_split", None
    ),
}

_OPERATION_RE = re.compile(r"\{([a-z_]+)\}")

# Parameters and choice values a message or fix names, spelled as each door spells
# them: ``{=expected_count}`` is ``--expected-count`` for the CLI and ``expected_count``
# for the library and the MCP and Hermes tools; ``{:find_replace}`` (a value
# of a choice) is ``find-replace`` for the CLI and ``find_replace`` elsewhere. Only the
# parameters spelled otherwise than by that rule are listed here.
PARAMETERS: dict[str, tuple[str, str, str, str]] = {
    "content": ("content", "--body (or stdin)", "content", "content"),
}
_PARAMETER_RE = re.compile(r"\{([=:])([a-z][a-z_]*)\}")


def _spelled(kind: str, name: str, door: str) -> str:
    """A parameter (``=``) or a choice value (``:``) as ``door`` spells it."""
    if kind == ":":
        return name.replace("_", "-") if door == "cli" else name
    if name in PARAMETERS:
        return PARAMETERS[name][DOORS.index(door)]
    if door == "cli":
        return "--" + name.replace("_", "-")
    return name


def render_names(text: str, door: str = "library") -> str:
    """``text`` with each ``{=parameter}`` and ``{:value}`` spelled as ``door`` does."""
    if "{" not in text:
        return text
    if door not in DOORS:
        raise ValueError(f"unknown door {door!r} — one of {', '.join(DOORS)}")
    return _PARAMETER_RE.sub(lambda m: _spelled(m.group(1), m.group(2), door), text)


def _name(operation: str, door: str, offered: Collection[str] | None) -> tuple[str, bool] | None:
    """``(name, is_a_cli_command)`` of ``operation`` at ``door``; None if no operation."""
    names = OPERATIONS.get(operation)
    if names is None:
        return None
    name = getattr(names, door)
    # An MCP name is a tool name, perhaps with its arguments after it.
    if name is None or (offered is not None and name.split()[0] not in offered):
        return names.cli, True
    return name, door == "cli"


def render_fix(
    fix: str, door: str = "library", *, offered: Collection[str] | None = None
) -> tuple[str, list[str]]:
    """``fix`` with each ``{operation}`` in ``door``'s names, and those names in order.

    ``offered``: the tools the door offers now (an MCP server's registered set); an
    operation outside it, or one the door lacks, is named by its CLI command (in
    backticks in the text, so it reads as a command).
    """
    if door not in DOORS:
        raise ValueError(f"unknown door {door!r} — one of {', '.join(DOORS)}")
    named: list[str] = []

    def replace(match: re.Match) -> str:
        found = _name(match.group(1), door, offered)
        if found is None:  # not an operation: leave the braces as they are
            return match.group(0)
        name, command = found
        if name not in named:
            named.append(name)
        return f"`{name}`" if command else name

    return _OPERATION_RE.sub(replace, render_names(fix, door)), named


class MnemosyneError(Exception):
    """Base class of every error raised on purpose by birkin-mnemosyne.

    ``message`` says what was wrong, ``fix`` (a template, see the module docstring) how
    to put it right, ``valid_choices`` the accepted values when a choice was wrong.
    """

    exit_code = 2
    # The attributes error_dict reports beside the message, set by each subclass.
    fields: tuple[str, ...] = ()

    def __init__(
        self,
        message: str = "",
        *,
        fix: str | None = None,
        valid_choices: Collection[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix
        self.valid_choices = list(valid_choices or [])

    def render(self, door: str = "library", *, offered: Collection[str] | None = None) -> str:
        """The whole message with the fix in ``door``'s names."""
        message = render_names(self.message, door) if self.message else self.__class__.__name__
        if not self.fix:
            return message
        return f"{message} — {render_fix(self.fix, door, offered=offered)[0]}"

    def __str__(self) -> str:  # KeyError would otherwise repr() its message
        return self.render("library")


def error_dict(
    error: MnemosyneError, door: str = "library", *, offered: Collection[str] | None = None
) -> dict:
    """The error shape every door reports (see the module docstring)."""
    data: dict = {
        "error_type": type(error).__name__,
        "message": error.render(door, offered=offered),
    }
    if error.fix:
        data["hint"], data["operations"] = render_fix(error.fix, door, offered=offered)
    if error.valid_choices:
        data["valid_choices"] = list(error.valid_choices)
    for name in error.fields:
        value = getattr(error, name)
        data[name] = list(value) if isinstance(value, (list, tuple)) else value
    return data


class ConfigError(MnemosyneError, ValueError):
    """The vault configuration file is unreadable or holds an unknown or invalid key."""


class VaultNotFoundError(MnemosyneError, FileNotFoundError):
    """The vault folder does not exist (it is never created implicitly)."""


class InvalidPathError(MnemosyneError, ValueError):
    """A note path or zone breaks one of the path rules in ``vault_paths`` (``rule``)."""

    fields = ("rule",)

    def __init__(self, message: str, *, rule: str = "", **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.rule = rule


class InvalidInputError(MnemosyneError, ValueError):
    """An argument is out of range or malformed."""


class LabelError(InvalidInputError):
    """A label is not of the form ``namespace:value``."""


class MatchCountError(InvalidInputError):
    """``find_replace`` found the text a number of times other than ``expected_count``;
    nothing was written. ``found`` and ``expected`` are the two counts."""

    fields = ("found", "expected")

    def __init__(self, message: str, *, found: int, expected: int, **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.found = found
        self.expected = expected


class NoteNotFoundError(MnemosyneError, KeyError):
    """No note has this key or path; ``candidates`` are close keys (maybe none)."""

    exit_code = 1
    fields = ("candidates",)

    def __init__(self, message: str, *, candidates: list[str] | None = None, **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.candidates = list(candidates or [])


class AmbiguousKeyError(MnemosyneError, KeyError):
    """A key names more than one note; ``candidates`` are their paths."""

    fields = ("candidates",)

    def __init__(self, message: str, *, candidates: list[str] | None = None, **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.candidates = list(candidates or [])


class SectionNotFoundError(NoteNotFoundError):
    """A note has no heading of the given name; ``candidates`` lists its headings."""


class AmbiguousSectionError(AmbiguousKeyError):
    """A heading names several sections of one note; ``candidates`` lists them with
    their lines (``"## Notes (line 12)"``)."""


class NoteExistsError(MnemosyneError):
    """``create`` would overwrite an existing note (its ``key`` and ``version``)."""

    exit_code = 3
    fields = ("key", "version")

    def __init__(self, message: str, *, key: str = "", version: str = "", **kwargs) -> None:
        super().__init__(message, **kwargs)
        self.key = key
        self.version = version


class VersionConflictError(MnemosyneError):
    """The note changed since the caller read it (``expected_version`` is stale);
    ``current_version`` is the sha256 of its bytes now, in full."""

    exit_code = 3
    fields = ("current_version",)

    def __init__(self, message: str, *, current_version: str = "", **kwargs) -> None:
        super().__init__(message, **kwargs)
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
    fields = ("current_version", "paths", "current_versions")

    def __init__(self, message: str, *, current_versions: dict[str, str | None], **kwargs) -> None:
        first = next(iter(current_versions.values()), None) or ""
        super().__init__(message, current_version=first, **kwargs)
        self.current_versions = dict(current_versions)
        self.paths = list(current_versions)


class RedactionError(MnemosyneError):
    """Redaction cannot run as configured (fail closed: nothing is indexed or served)."""


class PlanError(MnemosyneError, ValueError):
    """A curation plan is malformed."""


class IndexBackendError(MnemosyneError):
    """A team index's database cannot be reached, holds no index of this version, or
    refused a change (``team``)."""


class GitError(MnemosyneError):
    """A team repository could not be read or written with git (``team``)."""


class ExtraNotInstalledError(MnemosyneError, ImportError):
    """An optional extra (``extra``) is missing; the message names the pip command."""

    fields = ("extra",)

    def __init__(self, extra: str, purpose: str) -> None:
        super().__init__(
            f"{purpose} needs the '{extra}' extra, which is not installed — "
            f'run: pip install "birkin-mnemosyne[{extra}]" (in a checkout: '
            f'pip install -e ".[{extra}]")'
        )
        self.extra = extra
