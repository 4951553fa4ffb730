"""birkin-mnemosyne: local Markdown memory for AI agents (standard library only).

``import birkin_mnemosyne`` loads only the error classes and the version. Every other
name below is imported on first use (``__getattr__``), so a script that needs one
error class, or the version, does not pay for the search engine or the write path.
The names after ``VaultMemory`` are the Python API that birkin-mnemosyne 0.7.2
documented; docs/reference/python-api.md says where each one differs from it.
"""

from __future__ import annotations

from importlib import import_module

from ._version import __version__
from .errors import (
    AmbiguousKeyError,
    AmbiguousSectionError,
    ConfigError,
    ExtraNotInstalledError,
    GitError,
    IndexBackendError,
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

# name -> the module that defines it (imported on first access)
_LAZY = {
    "Mnemosyne": "engine",
    "VaultMemory": "memory",
    "HandoffFields": "handoffs",
    "HandoffScope": "handoffs",
    "HandoffStore": "handoffs",
    "MemoryIndex": "memory_index",
    "ProgressEvent": "progress",
    "StartupReader": "startup",
    "bm25_scores": "bm25",
    "build_plan_prompt": "curation",
    "evaluate_plan": "curation",
    "extract_plan": "curation",
    "get_completer": "curation",
    "mechanical_catalog": "curation",
    "run_curation_pass": "curation",
    "slug": "vault_paths",
    "tokenize": "tokenizer",
    "validate_clamp": "curation",
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'birkin_mnemosyne' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "AmbiguousKeyError",
    "AmbiguousSectionError",
    "ConfigError",
    "ExtraNotInstalledError",
    "GitError",
    "HandoffFields",
    "HandoffScope",
    "HandoffStore",
    "IndexBackendError",
    "InvalidInputError",
    "InvalidPathError",
    "JournalError",
    "LabelError",
    "MatchCountError",
    "MemoryIndex",
    "Mnemosyne",
    "MnemosyneError",
    "NoteExistsError",
    "NoteNotFoundError",
    "PlanError",
    "ProgressEvent",
    "RedactionError",
    "SectionNotFoundError",
    "StartupReader",
    "UndoConflictError",
    "VaultMemory",
    "VaultNotFoundError",
    "VersionConflictError",
    "WriteRefusedError",
    "__version__",
    "bm25_scores",
    "build_plan_prompt",
    "evaluate_plan",
    "extract_plan",
    "get_completer",
    "mechanical_catalog",
    "run_curation_pass",
    "slug",
    "tokenize",
    "validate_clamp",
]
