"""birkin-mnemosyne: local Markdown memory for AI agents (standard library only)."""

from ._version import __version__
from .engine import Mnemosyne
from .errors import (
    AmbiguousKeyError,
    ConfigError,
    ExtraNotInstalledError,
    InvalidInputError,
    InvalidPathError,
    JournalError,
    LabelError,
    MnemosyneError,
    NoteExistsError,
    NoteNotFoundError,
    PlanError,
    RedactionError,
    VaultNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)
from .memory import VaultMemory

__all__ = [
    "AmbiguousKeyError",
    "ConfigError",
    "ExtraNotInstalledError",
    "InvalidInputError",
    "InvalidPathError",
    "JournalError",
    "LabelError",
    "Mnemosyne",
    "MnemosyneError",
    "NoteExistsError",
    "NoteNotFoundError",
    "PlanError",
    "RedactionError",
    "VaultMemory",
    "VaultNotFoundError",
    "VersionConflictError",
    "WriteRefusedError",
    "__version__",
]
