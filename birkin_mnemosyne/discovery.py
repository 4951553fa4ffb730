"""Find the notes of a vault with one cheap stat pass.

Visible Markdown files (``.md``, any case) anywhere below the root, except hidden
parts, ``_archive/`` (only when asked), ``node_modules``, ``__pycache__`` and
``.mnemosyne/``. Symlinks and Windows reparse points (junctions) are never followed,
neither to files nor to folders: a vault synced from elsewhere must not pull in
``/etc`` through a link. The pass returns ``(mtime_ns, size)`` per file, which is all
the incremental refresh needs to spot added, changed and deleted notes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .atomic import is_temp_name
from .vault_paths import ARCHIVE_DIR, SKIPPED_DIRS

__all__ = ["FileStat", "discover", "discover_stats"]


@dataclass(frozen=True, slots=True)
class FileStat:
    path: str  # vault-relative POSIX path, as spelled on disk
    mtime_ns: int
    size: int


def _is_reparse_point(entry: os.DirEntry) -> bool:
    attrs = getattr(entry.stat(follow_symlinks=False), "st_file_attributes", 0)
    return bool(attrs & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0))


def discover(
    root: str | os.PathLike,
    *,
    include_archive: bool = False,
    problems: list[str] | None = None,
    temp_files: list[str] | None = None,
) -> dict[str, FileStat]:
    """Map each visible note's relative path to its stat; never follows links.

    Folders that cannot be read are skipped; when ``problems`` is given, a sentence
    naming each one is appended to it. When ``temp_files`` is given, the full path of
    every hidden file named like an ``atomic`` temporary file is appended to it (an
    interrupted write leaves one behind).
    """
    return {
        rel: FileStat(rel, st.st_mtime_ns, st.st_size)
        for rel, st in _walk(Path(root), include_archive, problems, temp_files)
    }


def discover_stats(
    root: str | os.PathLike,
    *,
    include_archive: bool = False,
    problems: list[str] | None = None,
    temp_files: list[str] | None = None,
) -> dict[str, tuple[int, int]]:
    """``discover`` as path -> ``(mtime_ns, size)``: what a stat pass compares.

    Measured (2026-12-02, 104k-note footprint vault): making 104k ``FileStat``s took
    ~85 ms of a ~0.5 s pass; tuples ~13 ms, and two maps of tuples compare in C.
    """
    return {
        rel: (st.st_mtime_ns, st.st_size)
        for rel, st in _walk(Path(root), include_archive, problems, temp_files)
    }


def _walk(
    root: Path, include_archive: bool, problems: list[str] | None, temp_files: list[str] | None
) -> Iterator[tuple[str, os.stat_result]]:
    """(relative path, stat) of every visible note below ``root`` (see ``discover``)."""
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError as exc:
            if problems is not None:
                problems.append(
                    f"folder {prefix or '.'} skipped: cannot read it ({exc.strerror}); "
                    "its notes are not searchable"
                )
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                if temp_files is not None and name.endswith(".tmp") and is_temp_name(name):
                    temp_files.append(entry.path)
                continue
            try:
                if entry.is_symlink() or (os.name == "nt" and _is_reparse_point(entry)):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    if name in SKIPPED_DIRS:
                        continue
                    if not prefix and name == ARCHIVE_DIR and not include_archive:
                        continue
                    stack.append((entry.path, f"{prefix}{name}/"))
                elif (
                    name[-3:].lower() == ".md"
                    and len(name) > 3
                    and entry.is_file(follow_symlinks=False)
                ):
                    st = entry.stat(follow_symlinks=False)
                    yield prefix + name, st
            except OSError:
                continue
