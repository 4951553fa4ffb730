"""birkin-mnemosyne: local Markdown memory for AI agents (standard library only)."""

from ._version import __version__
from .engine import Mnemosyne
from .errors import (
    AmbiguousKeyError,
    AmbiguousSectionError,
    ConfigError,
    ExtraNotInstalledError,
    InvalidInputError,
    InvalidPathError,
    JournalError,
    LabelError,
    MatchCountError,
    MnemosyneError,
    NoteExistsError,
    NoteNotFoundError,
    PlanError,
    RedactionError,
    SectionNotFoundError,
    UndoConflictError,
    VaultNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)


def __getattr__(name: str):
    # VaultMemory pulls in the write path (journal, dynamics, frontmatter editing...);
    # a read-only search or CLI call should not pay for importing it.
    if name == "VaultMemory":
        from .memory import VaultMemory

        return VaultMemory
    raise AttributeError(f"module 'birkin_mnemosyne' has no attribute {name!r}")


__all__ = [
    "AmbiguousKeyError",
    "AmbiguousSectionError",
    "ConfigError",
    "ExtraNotInstalledError",
    "InvalidInputError",
    "InvalidPathError",
    "JournalError",
    "LabelError",
    "MatchCountError",
    "Mnemosyne",
    "MnemosyneError",
    "NoteExistsError",
    "NoteNotFoundError",
    "PlanError",
    "RedactionError",
    "SectionNotFoundError",
    "UndoConflictError",
    "VaultMemory",
    "VaultNotFoundError",
    "VersionConflictError",
    "WriteRefusedError",
    "__version__",
]
