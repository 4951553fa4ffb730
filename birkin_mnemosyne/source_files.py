"""Reading files from outside the vault for an import, and wrapping text losslessly.

Importers (``init --import``, ``import-obsidian``) read a folder the user points at. The
rules for that folder live here, so every importer refuses the same things the same way:

* The folder is walked recursively; **links are never followed**. A symbolic link (or a
  Windows junction) to a file or a folder is *refused*: it is listed with its reason and
  the rest of the folder still imports.
* Hidden entries (a name starting with ``.``, e.g. ``.obsidian/``, ``.trash/``, ``.git``)
  and tool folders (``node_modules``, ``__pycache__``) are skipped and counted.
* A file is read only when it is a regular file no larger than the vault's
  ``max_file_bytes`` (8 MiB by default); text must be valid UTF-8 without NUL bytes.
  Each refusal is ``{"source": <relative path>, "reason": <what and how to fix>}``.

``fence_text`` wraps any text in a Markdown code fence that nothing inside can close:
the fence is one backtick longer than the longest backtick run in the text (at least
three). ``unfence_text`` is its exact inverse, so a wrapped file can always be turned
back into the original bytes (the rule is stated in its docstring).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InvalidInputError
from .vault_paths import SKIPPED_DIRS

__all__ = [
    "SourceEntry",
    "SourceFolder",
    "check_source_folder",
    "decode_source_text",
    "fence_text",
    "read_source_bytes",
    "unfence_text",
    "walk_source",
]

_BACKTICK_RUN_RE = re.compile(r"`+")
_MIN_FENCE = 3


@dataclass(frozen=True)
class SourceEntry:
    """One regular file of a source folder: its relative POSIX path and where it is."""

    rel: str
    path: Path


@dataclass
class SourceFolder:
    """The result of ``walk_source``: files in path order, refusals, skipped entries."""

    files: list[SourceEntry] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    hidden_skipped: int = 0


def _refusal(rel: str, reason: str) -> dict:
    return {"source": rel, "reason": reason}


def check_source_folder(source: str | os.PathLike, vault: Path, *, what: str) -> Path:
    """``source`` as a Path after checking it is a folder that does not overlap the vault.

    Importing a vault into itself (or a folder that holds the vault) would read the
    files the import is about to write, so both directions are refused.
    """
    folder = Path(os.path.expanduser(str(source)))
    if folder.is_symlink():
        raise InvalidInputError(
            f"{what} {folder} is a symbolic link — links are not followed; give the real folder"
        )
    if not folder.is_dir():
        raise InvalidInputError(f"{what} not found or not a folder: {folder} — check the path")
    real_source = folder.resolve()
    real_vault = vault.resolve()
    if (
        real_source == real_vault
        or real_vault in real_source.parents
        or real_source in real_vault.parents
    ):
        raise InvalidInputError(
            f"{what} {folder} overlaps the vault {vault} — importing a folder into itself "
            "would copy the import's own output; move one of them first"
        )
    return folder


def _is_link(entry: os.DirEntry) -> bool:
    if entry.is_symlink():
        return True
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        attrs = getattr(entry.stat(follow_symlinks=False), "st_file_attributes", 0)
        return bool(attrs & getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0))
    return False


def walk_source(root: Path) -> SourceFolder:
    """Every regular, visible file below ``root`` (links refused, never followed)."""
    result = SourceFolder()
    stack: list[tuple[str, str]] = [(str(root), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            result.refused.append(
                _refusal(
                    prefix or ".",
                    f"cannot read this folder ({exc.strerror}) — check its permissions",
                )
            )
            continue
        for entry in entries:
            rel = prefix + entry.name
            if entry.name.startswith(".") or entry.name in SKIPPED_DIRS:
                result.hidden_skipped += 1
                continue
            try:
                if _is_link(entry):
                    result.refused.append(
                        _refusal(
                            rel,
                            "a symbolic link — links are not followed; copy the file or "
                            "folder itself into the source folder to import it",
                        )
                    )
                elif entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, rel + "/"))
                elif entry.is_file(follow_symlinks=False):
                    result.files.append(SourceEntry(rel, Path(entry.path)))
                else:
                    result.refused.append(
                        _refusal(rel, "not a regular file (a device, pipe or socket)")
                    )
            except OSError as exc:
                result.refused.append(_refusal(rel, f"cannot read it ({exc.strerror})"))
    result.files.sort(key=lambda source: source.rel)
    result.refused.sort(key=lambda refusal: refusal["source"])
    return result


class SourceRefused(Exception):
    """A source file that cannot be imported; ``reason`` says why and how to fix it."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def read_source_bytes(entry: SourceEntry, *, max_bytes: int) -> bytes:
    """The bytes of a source file, refused past ``max_bytes`` (checked before reading)."""
    try:
        size = entry.path.stat(follow_symlinks=False).st_size
        if size > max_bytes:
            raise SourceRefused(
                f"{size:,} bytes is over the vault's limit of {max_bytes:,} (max_file_bytes "
                "in .mnemosyne/config.json) — split the file or raise the limit"
            )
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
        fd = os.open(entry.path, flags)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise SourceRefused(f"cannot read it ({exc.strerror or exc})") from None
    if len(data) > max_bytes:  # it grew while we looked
        raise SourceRefused(f"it is over the vault's limit of {max_bytes:,} bytes")
    return data


def decode_source_text(data: bytes) -> str:
    """Strict UTF-8 text without NUL bytes, else ``SourceRefused`` naming the first bad byte."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceRefused(
            f"not valid UTF-8 (first bad byte at offset {exc.start}) — re-save it as UTF-8 "
            "to import it"
        ) from None
    if "\x00" in text:
        raise SourceRefused("it contains NUL bytes, so it is binary data rather than text")
    return text


def fence_text(text: str, language: str) -> str:
    """``text`` inside a backtick fence longer than any backtick run in it (at least 3).

    The result is ``<fence><language>\\n<text>\\n<fence>\\n``: the text is written
    exactly as it is, followed by one line break of our own before the closing fence.
    No line of the text can close the fence, because none holds that many backticks.
    """
    longest = max((len(run) for run in _BACKTICK_RUN_RE.findall(text)), default=0)
    fence = "`" * max(_MIN_FENCE, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}\n"


def unfence_text(wrapped: str) -> str:
    """The original text of a ``fence_text`` block (the inverse, exactly).

    ``wrapped`` may carry text before the opening fence (the frontmatter of an imported
    note): the first line made of three or more backticks and an info string opens the
    fence, the last line made of that same fence closes it, and the text is what lies
    between them minus the one line break ``fence_text`` added before the closing fence.
    """
    match = re.search(r"^(`{3,})[^`\n]*\n", wrapped, re.MULTILINE)
    if match is None:
        raise InvalidInputError("no code fence found — this is not a wrapped import")
    fence = match.group(1)
    closing = wrapped.rfind("\n" + fence + "\n")
    if closing < match.end() - 1:
        raise InvalidInputError(
            f"the fence {fence} opened at offset {match.start()} is never closed"
        )
    return wrapped[match.end() : closing]
