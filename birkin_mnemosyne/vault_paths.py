"""Path rules for notes and zones, in one place.

A note's identity is its vault-relative POSIX path. Every path or zone that comes from
a caller (an agent, a plan, a command line) passes ``check_note_path`` or
``check_zone`` before it touches the disk. Each refusal names the rule it broke:

=================  ===========================================================
rule               refused
=================  ===========================================================
``empty``          an empty path
``absolute``       ``/etc/passwd``, ``C:/x``, ``//server/share``
``backslash``      ``notes\\x.md`` (write POSIX separators)
``traversal``      any ``..`` part
``hidden``         a part starting with ``.`` (``.git``, ``.mnemosyne``)
``reserved``       cache/tool folders: ``node_modules``, ``__pycache__``,
                   and a top-level ``_archive`` unless the operation is about it
``windows_name``   characters ``<>:"|?*``, control characters, a trailing dot or
                   space, or a reserved device name (``CON``, ``nul.md``, ``COM1``)
``too_long``       a part over 255 UTF-8 bytes or a path over 1024
``extension``      a note path that does not end in ``.md``
=================  ===========================================================
"""

from __future__ import annotations

import posixpath
import re
import unicodedata

from .errors import InvalidPathError

__all__ = [
    "ARCHIVE_DIR",
    "SKIPPED_DIRS",
    "check_note_path",
    "check_zone",
    "is_note_name",
    "note_stem",
    "slug",
    "slugify",
    "zone_of",
]

ARCHIVE_DIR = "_archive"
STATE_DIR = ".mnemosyne"
# Folders never searched for notes (besides hidden ones and the archive).
SKIPPED_DIRS = frozenset({"node_modules", "__pycache__"})

_WINDOWS_RESERVED = frozenset(
    {"con", "prn", "aux", "nul"}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)
_WINDOWS_BAD_CHARS = re.compile(r'[<>:"|?*\x00-\x1f]')
_MAX_PART_BYTES = 255
_MAX_PATH_BYTES = 1024


def _refuse(rule: str, path: str, detail: str) -> InvalidPathError:
    return InvalidPathError(f"invalid path {path!r} ({rule}): {detail}", rule=rule)


def _check_parts(raw: str, *, allow_archive: bool) -> list[str]:
    if not raw or not raw.strip():
        raise _refuse("empty", raw, "give a vault-relative path such as 'runbooks/restore.md'")
    if "\\" in raw:
        raise _refuse("backslash", raw, "use forward slashes: " + raw.replace("\\", "/"))
    if raw.startswith("/") or re.match(r"^[A-Za-z]:", raw):
        raise _refuse("absolute", raw, "paths are relative to the vault root")
    if len(raw.encode("utf-8")) > _MAX_PATH_BYTES:
        raise _refuse("too_long", raw, f"keep paths under {_MAX_PATH_BYTES} bytes")
    parts = [p for p in raw.split("/") if p not in ("", ".")]
    if not parts:
        raise _refuse("empty", raw, "give a vault-relative path such as 'runbooks/restore.md'")
    for position, part in enumerate(parts):
        if part == "..":
            raise _refuse("traversal", raw, "'..' may not appear in a vault path")
        if part.startswith("."):
            raise _refuse("hidden", raw, f"part {part!r} is hidden; hidden folders are not notes")
        # Only the top-level _archive/ is the archive; projects/_archive/ is a folder.
        if part in SKIPPED_DIRS or (part == ARCHIVE_DIR and position == 0 and not allow_archive):
            raise _refuse("reserved", raw, f"folder {part!r} is reserved")
        if _WINDOWS_BAD_CHARS.search(part):
            raise _refuse(
                "windows_name",
                raw,
                f'part {part!r} has a character from <>:"|?* or a control character',
            )
        if part[-1] in ". ":
            raise _refuse("windows_name", raw, f"part {part!r} ends with a dot or space")
        if part.split(".")[0].lower() in _WINDOWS_RESERVED:
            raise _refuse(
                "windows_name", raw, f"part {part!r} is a reserved device name on Windows"
            )
        if len(part.encode("utf-8")) > _MAX_PART_BYTES:
            raise _refuse("too_long", raw, f"part {part[:40]!r}... is over {_MAX_PART_BYTES} bytes")
    return parts


def check_note_path(raw: str, *, allow_archive: bool = False) -> str:
    """Return the normalized vault-relative POSIX path of a note, or raise ``InvalidPathError``."""
    raw = unicodedata.normalize("NFC", str(raw))
    parts = _check_parts(raw, allow_archive=allow_archive)
    if not parts[-1].lower().endswith(".md"):
        raise _refuse("extension", raw, "note paths end in .md")
    return "/".join(parts)


def check_zone(raw: str | None) -> str:
    """Return a normalized zone (a folder path, ``""`` = inbox), or raise ``InvalidPathError``."""
    if raw is None:
        return ""
    raw = unicodedata.normalize("NFC", str(raw)).strip()
    if raw in ("", "/", "."):
        return ""
    if raw.startswith("/"):
        # Never quietly made relative: "/etc" is a path outside the vault, not "etc".
        inside = raw.strip("/")
        raise _refuse(
            "absolute",
            raw,
            "a zone is a folder inside the vault — write "
            + (f"{inside!r} for the vault folder {inside}/" if inside else "''")
            + ", or '' for the inbox",
        )
    return "/".join(_check_parts(raw.rstrip("/"), allow_archive=False))


def zone_of(path: str) -> str:
    """A note's zone: its full relative parent folder (``""`` = inbox)."""
    parent = posixpath.dirname(path)
    if parent.startswith(ARCHIVE_DIR + "/"):
        parent = parent[len(ARCHIVE_DIR) + 1 :]
    elif parent == ARCHIVE_DIR:
        parent = ""
    return parent


def note_stem(path: str) -> str:
    """A note's file name without its ``.md`` (any case): what its key is when unique."""
    name = path[path.rfind("/") + 1 :]
    return name[:-3] if name[-3:].lower() == ".md" else name


def is_note_name(name: str) -> bool:
    """A visible Markdown file name (extension compared case-insensitively)."""
    return not name.startswith(".") and name.lower().endswith(".md") and len(name) > 3


_SLUG_DROP = re.compile(r"[^\w\s-]", re.UNICODE)
_SLUG_SPACE = re.compile(r"[\s_-]+")


def slugify(title: str, *, max_len: int = 80) -> str:
    """A file-name stem for a title: Unicode letters kept, punctuation dropped, spaces -> '-'.

    Returns ``""`` when nothing usable is left (the caller refuses such a title).
    """
    text = unicodedata.normalize("NFKC", title).strip().lower()
    text = _SLUG_DROP.sub(" ", text)
    text = _SLUG_SPACE.sub("-", text).strip("-")
    while len(text.encode("utf-8")) > max_len:
        text = text[:-1]
    text = text.strip("-")
    if text.split(".")[0] in _WINDOWS_RESERVED:
        text = f"{text}-note"
    return text


def slug(title: str) -> str:
    """The file-name stem a note titled ``title`` gets (``slugify``), or ``"note"`` when
    nothing usable is left: ``slug("Restore the DB!")`` -> ``"restore-the-db"``.

    The name and the ``"note"`` fallback are those of birkin-mnemosyne 0.7.2's ``slug``;
    ``write_note`` itself refuses a title with no usable letters rather than name it
    ``note.md``.
    """
    return slugify(title) or "note"
