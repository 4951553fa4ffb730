"""The gate: validate every proposed operation against a fresh snapshot, then clamp.

``validate_clamp(snapshot, plan)`` is deterministic and writes nothing. In order:

1. **read** the plan (``contract.parse_plan``): malformed and unknown operations drop;
2. **validate** each operation alone: its notes must be live notes inside the vault, the
   note it changes must not be protected (``snapshot``), and the change must do
   something; the exact bytes before and after are computed here;
3. **clamp archives** to this call's budget, ``ARCHIVE_MIN + ARCHIVE_FRACTION * active``
   notes and never all of them (at most ``active - 1``), keeping the *weakest* notes by
   usage dynamics (lowest activation, then least recently touched, then path);
4. **resolve conflicts** in plan order: an operation is dropped when an earlier accepted
   one already changes, moves or archives one of the notes it touches or names.

The budget is recomputed from the live notes on every call, so repeated passes each
archive at most their own call's share.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field

from ..atomic import ensure_no_symlink
from ..errors import AmbiguousKeyError, InvalidInputError, InvalidPathError, NoteNotFoundError
from ..frontmatter import parse_frontmatter, set_frontmatter_key
from ..journal import FileChange
from ..notes_io import ARCHIVE_PREFIX, KeyIndex
from ..vault_paths import check_note_path, check_zone, zone_of
from .contract import DROP_REASONS, Drop, Operation, parse_plan
from .snapshot import Snapshot

__all__ = [
    "ARCHIVE_FRACTION",
    "ARCHIVE_MIN",
    "Accepted",
    "GateResult",
    "archive_cap",
    "validate_clamp",
]

# A pass may always archive a few notes, plus 5% of the active notes: enough to clear
# real clutter in a few passes, too little for one bad plan to empty a vault.
ARCHIVE_MIN = 3
ARCHIVE_FRACTION = 0.05


def archive_cap(active: int) -> int:
    """Archives allowed in one call over ``active`` live notes (never all of them)."""
    return max(0, min(ARCHIVE_MIN + int(ARCHIVE_FRACTION * active), active - 1))


@dataclass
class Accepted:
    operation: Operation
    path: str  # the note the operation changes
    target: str | None = None  # link/supersede: the other note; rezone/archive: new path
    changes: list[FileChange] = field(default_factory=list)

    @property
    def moves(self) -> list[tuple[str, str]]:
        if self.operation.op in ("rezone", "archive"):
            return [(self.path, self.target)]
        return []

    def as_dict(self, snapshot: Snapshot) -> dict:
        row = self.operation.as_dict()
        row["path"] = self.path
        row["key"] = snapshot.keys.get(self.path, self.path)
        row["version"] = snapshot.notes[self.path].version
        if self.operation.op in ("rezone", "archive"):
            row["to"] = self.target
        else:
            row["target_path"] = self.target
        return row


@dataclass
class GateResult:
    summary: str
    accepted: list[Accepted]
    dropped: list[Drop]
    archive_cap: int
    active_notes: int
    parse_error: str | None = None


def _drop(op: Operation, reason: str, detail: str = "") -> Drop:
    return Drop(op.index, reason, detail or DROP_REASONS[reason], op.as_dict())


def _resolve(snapshot: Snapshot, index: KeyIndex, name: str) -> str | Drop:
    try:
        path = index.lookup(name)
    except InvalidPathError as exc:
        return Drop(None, "outside_vault", str(exc))
    except NoteNotFoundError as exc:  # e.g. an archived note
        return Drop(None, "unknown_note", str(exc))
    except AmbiguousKeyError as exc:
        return Drop(None, "ambiguous_note", str(exc))
    if path is None or path not in snapshot.notes:
        return Drop(None, "unknown_note", f"no live note is named {name[:80]!r}")
    return path


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _with_link(text: str, target_key: str) -> str:
    nl = _newline(text)
    item = f"- [[{target_key}]]"
    body = text.rstrip("\r\n")
    lines = body.split(nl)
    headings = [i for i, line in enumerate(lines) if line.startswith("#")]
    if headings and lines[headings[-1]].strip().lower() == "## related":
        return body + nl + item + nl
    return body + nl + nl + "## Related" + nl + nl + item + nl


def supersede_line(target_key: str) -> str:
    return f"> **Superseded** by [[{target_key}]]."


def _with_superseded(text: str, target_key: str) -> str:
    updated = set_frontmatter_key(text, "superseded_by", target_key)
    fm = parse_frontmatter(updated)
    nl = _newline(updated)
    start = fm.body_offset
    return updated[:start] + supersede_line(target_key) + nl + nl + updated[start:]


def _validate(snapshot: Snapshot, index: KeyIndex, op: Operation) -> Accepted | Drop:
    found = _resolve(snapshot, index, op.note)
    if isinstance(found, Drop):
        return _drop(op, found.reason, found.detail)
    path = found
    info = snapshot.notes[path]
    if info.protected:
        return _drop(op, "protected", f"{path} is protected ({info.protected})")
    if op.op in ("link", "supersede"):
        other = _resolve(snapshot, index, op.target or "")
        if isinstance(other, Drop):
            return _drop(op, other.reason, other.detail)
        if other == path:
            return _drop(op, "self_reference")
        if info.text is None:
            return _drop(op, "unreadable_note", f"{path} is not valid UTF-8")
        target_key = snapshot.keys[other]
        if op.op == "link":
            if other in info.links:
                return _drop(op, "no_change", f"{path} already links to {other}")
            after = _with_link(info.text, target_key)
        else:
            if info.superseded_by:
                return _drop(op, "no_change", f"{path} is already superseded")
            replaced_by = snapshot.notes[other].superseded_by
            if replaced_by and snapshot.resolve_name(replaced_by, zone_of(other)) == path:
                return _drop(op, "conflict", f"{other} is already superseded by {path}")
            try:
                after = _with_superseded(info.text, target_key)
            except InvalidInputError as exc:
                return _drop(op, "unreadable_note", f"{path}: {exc}")
        return Accepted(op, path, other, [FileChange(path, info.data, after.encode("utf-8"))])
    if op.op == "rezone":
        try:
            zone = check_zone(op.zone)
            name = posixpath.basename(path)
            new = check_note_path(f"{zone}/{name}" if zone else name)
        except InvalidPathError as exc:
            return _drop(op, "outside_vault", str(exc))
        if new == path:
            return _drop(op, "no_change", f"{path} is already in zone {zone!r}")
    else:
        new = f"{ARCHIVE_PREFIX}{path}"
    try:  # a destination folder that is a link could lead outside the vault
        ensure_no_symlink(snapshot.vault / new, root=snapshot.vault)
    except InvalidPathError as exc:
        return _drop(op, "outside_vault", str(exc))
    if _occupied(snapshot, new):
        return _drop(op, "target_exists", f"{new} already exists")
    return Accepted(
        op, path, new, [FileChange(path, info.data, None), FileChange(new, None, info.data)]
    )


def _occupied(snapshot: Snapshot, rel: str) -> bool:
    """A file or folder at ``rel`` or at any name differing only in letter case."""
    full = snapshot.vault / rel
    if full.exists() or full.is_symlink():
        return True
    parent = full.parent
    if parent.is_dir():
        wanted = full.name.casefold()
        return any(entry.name.casefold() == wanted for entry in parent.iterdir())
    return any(p.casefold() == rel.casefold() for p in snapshot.notes)


def validate_clamp(snapshot: Snapshot, plan: object) -> GateResult:
    """Validate and clamp ``plan`` (decoded JSON) against ``snapshot``; writes nothing."""
    parsed = parse_plan(plan)
    dropped = list(parsed.dropped)
    index = KeyIndex(snapshot.keys, names=lambda: snapshot.names)
    valid: list[Accepted] = []
    for op in parsed.operations:
        result = _validate(snapshot, index, op)
        (valid if isinstance(result, Accepted) else dropped).append(result)

    active = snapshot.active_count()
    cap = archive_cap(active)
    archives = [a for a in valid if a.operation.op == "archive"]
    seen: set[str] = set()
    unique = []
    for item in archives:  # the same note archived twice counts once
        if item.path in seen:
            continue
        seen.add(item.path)
        unique.append(item)

    def weakness(item: Accepted) -> tuple:
        info = snapshot.notes[item.path]
        return (info.activation, info.touched, item.path)

    kept = {id(item) for item in sorted(unique, key=weakness)[:cap]}
    accepted: list[Accepted] = []
    claimed: dict[str, int] = {}  # path -> index of the operation that changes it
    named: dict[str, int] = {}  # path -> index of an operation that relies on it
    archived: set[str] = set()
    for item in valid:
        op = item.operation
        if op.op == "archive" and id(item) not in kept:
            if item.path in seen and any(a.path == item.path for a in accepted):
                dropped.append(
                    _drop(op, "conflict", f"{item.path} is already archived by this plan")
                )
            else:
                dropped.append(
                    _drop(
                        op, "archive_cap", f"archive budget of this call is {cap} of {active} notes"
                    )
                )
            continue
        touches = [change.path for change in item.changes]
        relies = [item.target] if op.op in ("link", "supersede") else []
        # Two operations may not change the same file; a note another operation links
        # to (or names as its replacement) may not be archived, and the reverse.
        clash = next((p for p in touches if p in claimed), None)
        if clash is None and op.op == "archive" and item.path in named:
            clash = item.path
        if clash is None:
            clash = next((p for p in relies if p in archived), None)
        if clash is not None:
            other = claimed.get(clash, named.get(clash))
            dropped.append(
                _drop(op, "conflict", f"operation {other} already changes or relies on {clash}")
            )
            continue
        accepted.append(item)
        for p in touches:
            claimed[p] = op.index
        for p in relies:
            named[p] = op.index
        if op.op == "archive":
            archived.add(item.path)
    dropped.sort(key=lambda d: (d.index is not None, d.index if d.index is not None else -1))
    return GateResult(parsed.summary, accepted, dropped, cap, active, parsed.parse_error)
