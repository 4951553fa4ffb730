"""The session-start digest: a compact text summary of a vault within a token budget.

``VaultMemory.render_digest`` gathers the notes and their usage; ``render_digest`` here
lays them out. Order:

1. **Identity and preferences** — notes whose zone (any folder of it) or type is one of
   ``IDENTITY_NAMES`` (``preferences``, ``identity``, ``profile``, ``about-me`` and
   their singular/plural spellings), each with a one-line excerpt: an agent needs these
   before anything else.
2. **Zones by activity** — every other zone, busiest first (the decayed access count of
   ``dynamics``; ties by note count, then name), each with its most important notes
   (strongest usage activation, then most recent date) as ``title (key)``.

Lines are added while the whole text fits ``budget_tokens``; the estimate is the UTF-8
byte length divided by 4, rounded up (``markdown.estimate_tokens``), and the digest says
so in its first line. Every piece of note text passes through the redactor.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .markdown import estimate_tokens

__all__ = [
    "IDENTITY_NAMES",
    "DigestNote",
    "DigestZone",
    "excerpt_of",
    "gather_digest",
    "is_identity",
    "render_digest",
]

IDENTITY_NAMES = frozenset(
    {
        "preferences",
        "preference",
        "prefs",
        "identity",
        "profile",
        "profiles",
        "about-me",
        "aboutme",
    }
)
EXCERPT_CHARS = 160


def _normal(name: str) -> str:
    return "-".join(name.casefold().replace("_", " ").split())


def is_identity(zone: str, note_type: str | None) -> bool:
    """True for a note about the user: its type, or any folder of its zone, names identity."""
    if note_type and _normal(note_type) in IDENTITY_NAMES:
        return True
    return any(_normal(part) in IDENTITY_NAMES for part in zone.split("/") if part)


@dataclass
class DigestNote:
    key: str
    title: str
    excerpt: str = ""


@dataclass
class DigestZone:
    zone: str
    total: int
    activity: float
    notes: list[DigestNote] = field(default_factory=list)


def excerpt_of(text: str) -> str:
    """The first prose line of a body, shortened to EXCERPT_CHARS."""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "```", "~~~", "---", "|")):
            continue
        line = line.lstrip("-*> ").strip()
        if len(line) > EXCERPT_CHARS:
            line = line[: EXCERPT_CHARS - 1].rstrip() + "…"
        return line
    return ""


def gather_digest(
    notes: Iterable[tuple[str, dict]],
    *,
    activation: Callable[[str], float],
    zone_activity: Callable[[str], float],
    excerpt: Callable[[str], str],
    limit: int,
) -> tuple[DigestZone, list[DigestZone]]:
    """Group ``(key, index metadata)`` pairs into the identity group and the zones.

    Within a group notes are ordered by usage ``activation`` (path -> value), then
    date (newest first), then title; at most ``limit`` are kept. Zones are ordered by
    ``zone_activity`` (zone -> decayed access count), then note count, then name.
    Identity notes get an ``excerpt`` (path -> first line of the redacted body).
    """
    identity: list[tuple] = []
    zones: dict[str, list[tuple]] = defaultdict(list)
    for key, meta in notes:
        row = (activation(meta["path"]), meta["date"] or "", meta, key)
        if is_identity(meta["zone"], meta["note_type"]):
            identity.append(row)
        else:
            zones[meta["zone"]].append(row)

    def best(rows: list[tuple]) -> list[tuple]:
        rows.sort(key=lambda row: row[2]["title"])
        rows.sort(key=lambda row: (row[0], row[1]), reverse=True)
        return rows[:limit]

    about = DigestZone(zone="", total=len(identity), activity=0.0)
    for _, _, meta, key in best(identity):
        about.notes.append(DigestNote(key, meta["title"], excerpt(meta["path"])))
    groups = [
        DigestZone(
            zone=zone,
            total=len(rows),
            activity=zone_activity(zone),
            notes=[DigestNote(key, meta["title"]) for _, _, meta, key in best(rows)],
        )
        for zone, rows in zones.items()
    ]
    groups.sort(key=lambda group: group.zone)
    groups.sort(key=lambda group: (group.activity, group.total), reverse=True)
    return about, groups


def render_digest(
    *,
    vault_name: str,
    identity: DigestZone | None,
    zones: list[DigestZone],
    note_count: int,
    budget_tokens: int,
    redact: Callable[[str], str],
) -> str:
    """Lay the digest out, adding lines only while the whole stays within the budget."""
    lines: list[str] = []
    omitted = 0

    def add(line: str) -> bool:
        line = redact(line)
        # Measured as the final text would be: lines joined, one trailing line break.
        if estimate_tokens("\n".join([*lines, line]) + "\n") > budget_tokens:
            return False
        lines.append(line)
        return True

    has_identity = identity is not None and identity.total > 0
    header = [
        f"# Memory digest: {vault_name}",
        f"{note_count} notes in {len(zones) + has_identity} groups; "
        f"budget {budget_tokens} tokens (estimated as UTF-8 bytes / 4).",
    ]
    for line in header:
        if not add(line):
            return "\n".join(lines) + "\n" if lines else ""

    groups: list[tuple[str, list[DigestNote], int]] = []
    if has_identity:
        groups.append(("## Identity and preferences", identity.notes, identity.total))
    for zone in zones:
        name = zone.zone or "(inbox)"
        count = f"{zone.total} note" + ("" if zone.total == 1 else "s")
        groups.append((f"## {name} — {count}", zone.notes, zone.total))

    full = False
    for heading, notes, total in groups:
        if full:
            omitted += total
            continue
        if not add("") or not add(heading):
            full = True
            omitted += total
            continue
        shown = 0
        for note in notes:
            line = f"- {note.title} ({note.key})"
            if note.excerpt:
                line += f": {note.excerpt}"
            if not add(line):
                full = True
                break
            shown += 1
        omitted += total - shown
    if omitted:
        add(f"… {omitted} more notes not shown (limit or budget).")
    return "\n".join(lines) + "\n"
