"""Usage: recording that a note was used, reading its record, finding stale notes.

Usage lives in ``.mnemosyne/state/`` (``dynamics.UsageStore``) and lifts a note's
ranking by a bounded multiplier (at most ``dynamics.MAX_BOOST``).
"""

from __future__ import annotations

import datetime as dt

from .. import notes_io as nio
from ..vault_paths import zone_of
from .base import MemoryBase


def _date_seconds(text: str | None) -> float | None:
    try:
        day = dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        return None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()


class UsageMixin(MemoryBase):
    """``record_access``, ``usage_of`` and ``stale``."""

    def record_access(self, key: str, now: float | None = None) -> dict:
        """Record that a note was actually used (reinforces it; lifts its zone)."""
        when = self._now(now)
        with self._lock():
            path = self.resolve(key)
            self.usage.load()
            self.usage.record_access(path, zone_of(path), now=when)
            self._usage_signature = None
        return self.usage_of(path, now=when)

    def usage_of(self, key: str, *, now: float | None = None) -> dict:
        """A note's usage record and its ranking multiplier at ``now``."""
        when = self._now(now)
        path = self.resolve(key)
        self._sync_usage()
        zone = zone_of(path)
        usage = self.usage.usage(path)
        model = self.usage.model
        return {
            "key": self.engine.key_of(path),
            "path": path,
            "zone": zone,
            "accesses": usage.accesses if usage else 0,
            "strength": usage.strength if usage else 0.0,
            "stability_days": usage.stability_days if usage else None,
            "last_access": usage.last_access if usage else None,
            "activation": model.activation(usage, when),
            "multiplier": self.usage.multiplier(path, zone, when),
        }

    def stale(self, now: float | None = None) -> dict:
        """Long-unused, weak notes (``UsageModel.is_stale``); "touched" is the later of the
        frontmatter ``updated``/``created`` dates, else the file's modification time."""
        when = self._now(now)
        self._sync_usage()
        index = self.engine.index
        keys = self.engine.keys()
        touched = {}
        for path in keys:
            meta = index.notes[index.by_path[path]]
            dates = [_date_seconds(meta[f]) for f in ("updated", "created") if meta[f]]
            dates = [d for d in dates if d is not None]
            touched[path] = max(dates) if dates else meta["mtime_ns"] / 1e9
        notes = []
        for path in self.usage.stale(sorted(touched.items()), when):
            meta = index.notes[index.by_path[path]]
            usage = self.usage.usage(path)
            notes.append(
                {
                    "key": keys[path],
                    "path": path,
                    "title": meta["title"],
                    "zone": meta["zone"],
                    "accesses": usage.accesses if usage else 0,
                    "last_access": nio.iso_utc(usage.last_access) if usage else None,
                    "touched": nio.iso_utc(touched[path]),
                }
            )
        return {"notes": notes, "total": len(notes)}
