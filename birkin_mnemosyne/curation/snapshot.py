"""A fresh, read-only picture of a vault for the curation gate.

``take_snapshot`` refreshes the engine's index, then reads every live note's bytes (the
version the gate validates against and the executor's ``before`` image). It also
decides which notes are **protected** — never archived, moved, superseded or edited by
a curation plan:

* *negative-polarity warnings*: type ``warning``/``caution``/``pitfall``, a
  ``polarity: negative`` field or label, or a title starting "Warning", "Caution",
  "Never", "Do not", "Don't" or "Avoid" (a lesson learned the hard way reads like that);
* *identity and preference notes*: their type or any folder of their zone names identity
  (the same names ``digest`` puts first: ``preferences``, ``identity``, ``profile``...);
* *filed and linked notes*: outside the inbox (zone ``""``) **and** linked to by another
  note — someone placed them and something relies on them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..dynamics import UsageStore
from ..engine import Mnemosyne
from ..frontmatter import parse_frontmatter
from ..graph import LinkGraph
from ..progress import ProgressCallback
from ..vault_paths import zone_of

__all__ = ["IDENTITY_NAMES", "NoteInfo", "Snapshot", "open_parts", "take_snapshot"]

STATE_DIR = Path(".mnemosyne") / "state"
# Kept equal to digest.IDENTITY_NAMES (digest is layer 4, so it cannot be imported here).
IDENTITY_NAMES = frozenset(
    {"preferences", "preference", "prefs", "identity", "profile", "profiles", "about-me"}
    | {"aboutme"}
)
WARNING_TYPES = frozenset({"warning", "warnings", "caution", "pitfall", "pitfalls", "gotcha"})
_WARNING_TITLE = re.compile(r"^\W*(warning|caution|never|do not|don't|don’t|avoid)\b", re.I)


def _normal(name: str) -> str:
    return "-".join(name.casefold().replace("_", " ").split())


@dataclass
class NoteInfo:
    path: str
    key: str
    zone: str
    title: str
    note_type: str | None
    labels: list[str]
    data: bytes
    text: str | None  # None: not valid UTF-8
    frontmatter: dict
    links: list[str]  # resolved paths this note links to
    superseded_by: str | None
    touched: float  # unix seconds: frontmatter updated/created, else mtime
    activation: float
    protected: str | None = None  # why, or None
    backlinks: list[str] = field(default_factory=list)

    @property
    def version(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


@dataclass
class Snapshot:
    vault: Path
    notes: dict[str, NoteInfo]
    keys: dict[str, str]
    now: float
    graph: LinkGraph | None = None
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)  # path -> title, aliases
    # Where the long steps over the snapshot (the duplicate check) report: the engine's.
    on_progress: ProgressCallback | None = None

    def resolve_name(self, name: str, zone: str = "") -> str | None:
        """Where a wikilink to ``name`` from ``zone`` leads (``graph.LinkGraph``), or None."""
        if self.graph is None:
            return None
        return self.graph.resolve(name, zone)[0]

    def active_count(self) -> int:
        return len(self.notes)


class _Parts:
    """The engine and usage store of a vault, from a ``VaultMemory``, a ``Mnemosyne`` or
    a path."""

    def __init__(self, vault) -> None:
        if hasattr(vault, "engine") and hasattr(vault, "usage"):
            self.engine: Mnemosyne = vault.engine
            self.usage: UsageStore = vault.usage
            self.lock_timeout = getattr(vault, "_lock_timeout", None)
        else:
            self.engine = vault if isinstance(vault, Mnemosyne) else Mnemosyne(vault)
            self.usage = UsageStore(self.engine.vault / STATE_DIR, root=self.engine.vault)
            self.lock_timeout = None
        self.vault: Path = self.engine.vault


def open_parts(vault) -> _Parts:
    return _Parts(vault)


def _date_seconds(text) -> float | None:
    try:
        day = dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        return None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()


def _protection(info: NoteInfo) -> str | None:
    fm = info.frontmatter
    kind = _normal(info.note_type or "")
    polarity = fm.get("polarity")
    if (
        kind in WARNING_TYPES
        or (isinstance(polarity, str) and polarity.strip().lower() == "negative")
        or any(label.lower() == "polarity:negative" for label in info.labels)
        or _WARNING_TITLE.match(info.title or "")
    ):
        return "warning"
    if kind in IDENTITY_NAMES or any(
        _normal(part) in IDENTITY_NAMES for part in info.zone.split("/") if part
    ):
        return "identity"
    if info.zone and info.backlinks:
        return "filed_and_linked"
    return None


def take_snapshot(parts: _Parts, now: float) -> Snapshot:
    engine = parts.engine
    engine.refresh()
    parts.usage.load()
    index = engine.index
    keys = dict(engine.keys())
    metas = {path: index.notes[index.by_path[path]] for path in keys}
    graph = LinkGraph(keys, metas)
    names = engine.note_names()
    snap = Snapshot(
        parts.vault,
        {},
        keys,
        now,
        graph,
        {p: names[p] for p in keys if p in names},
        on_progress=engine.on_progress,
    )
    model = parts.usage.model
    for path in sorted(keys):
        meta = metas[path]
        try:
            data = (parts.vault / path).read_bytes()
        except OSError:
            continue  # gone since the refresh: not a live note
        try:
            text: str | None = data.decode("utf-8")
        except UnicodeDecodeError:
            text = None
        fm = parse_frontmatter(text).data if text is not None else {}
        dates = [_date_seconds(meta[f]) for f in ("updated", "created") if meta[f]]
        dates = [d for d in dates if d is not None]
        snap.notes[path] = NoteInfo(
            path=path,
            key=keys[path],
            zone=zone_of(path),
            title=meta["title"] or "",
            note_type=meta["note_type"],
            labels=list(meta["labels"] or []),
            data=data,
            text=text,
            frontmatter=fm if isinstance(fm, dict) else {},
            links=[],
            superseded_by=meta["superseded_by"],
            touched=max(dates) if dates else meta["mtime_ns"] / 1e9,
            activation=model.activation(parts.usage.usage(path), now),
        )
    for path, info in snap.notes.items():
        for _, found in graph.outbound.get(path, []):
            if found in snap.notes and found not in info.links:
                info.links.append(found)
                snap.notes[found].backlinks.append(path)
    for info in snap.notes.values():
        info.protected = _protection(info)
    return snap
