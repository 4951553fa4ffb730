"""Usage dynamics: how recently and how steadily notes and zones are used.

Two small models feed ranking as *bounded* multipliers, so usage can reorder close
matches but never lift a poorly matched note over a well-matched one:

* **Notes** carry a memory strength with exponential forgetting (Ebbinghaus' curve,
  ``retention = exp(-age / stability)``) and spaced reinforcement: an access after a
  long gap grows stability more than one right after the last (the spacing effect,
  Cepeda et al. 2006, "Distributed practice in verbal recall tasks", Psychological
  Bulletin 132(3); the larger gain at lower retrievability follows SuperMemo's
  two-component model, Wozniak, Gorzelanczyk & Murakowski 1995, and FSRS, Ye, Su &
  Cao 2022, KDD).
* **Zones** (folders) carry an exponentially decayed access count with a 14-day
  half-life: a smoothed "how busy is this zone lately".

``UsageModel`` is pure maths over injected ``now`` (unix seconds). ``UsageStore`` keeps
the state in ``<vault>/.mnemosyne/state/usage.json`` and writes it atomically; the
caller holds the vault lock. The formulas and constants are tabulated, with reasons,
in docs/explanation/dynamics.md.

The constants are priors chosen from the cited literature and the intended scale of
the effect; they are to be confirmed on the dev split of the retrieval benchmark.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from .atomic import atomic_write_text, ensure_no_symlink
from .errors import InvalidInputError, InvalidPathError

__all__ = [
    "MAX_BOOST",
    "USAGE_FORMAT",
    "NoteUsage",
    "UsageModel",
    "UsageStore",
    "ZoneActivity",
]

USAGE_FORMAT = "mnemosyne-usage/1"
_DAY = 86_400.0


@dataclass(frozen=True)
class NoteUsage:
    """One note's usage memory.

    ``strength`` (0..1) is how established the note is; ``stability_days`` is the time
    constant of its forgetting curve; ``last_access`` is unix seconds; ``accesses``
    counts every recorded access.
    """

    strength: float
    stability_days: float
    last_access: float
    accesses: int


@dataclass(frozen=True)
class ZoneActivity:
    """One zone's decayed access count ``value`` as of ``updated`` (unix seconds)."""

    value: float
    updated: float


def _finite(value: float, fallback: float) -> float:
    return value if math.isfinite(value) else fallback


def _clamp(value: float, low: float, high: float) -> float:
    if math.isnan(value):  # NaN compares false both ways; never let it through
        return low
    return min(high, max(low, value))


class UsageModel:
    """The maths of usage decay and zone priority; override attributes in a subclass.

    Every method takes ``now`` explicitly and is a pure function of its arguments.
    """

    # A note accessed once stays noticeably "in use" for a few days: retention after
    # one access is 0.72 after a day, 0.37 after 3 days, 0.10 after a week.
    INITIAL_STABILITY_DAYS = 3.0
    # Growth of stability per access is 1 + SPACING_GAIN * (1 - retention): a re-access
    # a minute later (retention ~1) adds nothing, so bursts cannot inflate a note; one
    # after the old memory faded almost triples stability (FSRS-style gain at low
    # retrievability). Three spaced accesses take a note from 3 to ~80 days.
    SPACING_GAIN = 2.0
    # A year: even a note used every week for months fades within a few years of disuse.
    MAX_STABILITY_DAYS = 365.0
    # Stability never drops below this (guards state read from disk).
    MIN_STABILITY_DAYS = 0.01
    # Strength moves this fraction of the way to 1 on an access, weighted by spacing:
    # one access gives 0.35, three well-spaced ones ~0.73, and it saturates below 1.
    STRENGTH_STEP = 0.35
    # Massed re-accesses still count a little (a quarter of a spaced one): the agent
    # did come back, just not after a gap.
    MIN_SPACING_WEIGHT = 0.25
    # Retention of a note with no history: 0.5, the uninformed prior on "still known".
    PRIOR_RETENTION = 0.5

    # Note multiplier = 1 + (NOTE_MAX - 1) * strength * retention. Usage only lifts:
    # a never-used note and one forgotten long ago both get exactly 1.0, so using a
    # note once can never make it rank *below* an untouched one later. Staleness is a
    # separate, visible signal (is_stale) the ranking layer may penalize explicitly.
    NOTE_MULTIPLIER_MIN = 1.0
    # +15% at most: enough to reorder near-ties, too little to beat a clearly better
    # lexical match (see MAX_BOOST).
    NOTE_MULTIPLIER_MAX = 1.15

    # Zone activity halves every 14 days: two weeks is the span of one piece of work,
    # so the zone an agent works in this fortnight is favoured, last quarter's is not.
    ZONE_HALF_LIFE_DAYS = 14.0
    # Zone multiplier = 1 + (ZONE_MAX - 1) * value / (value + ZONE_HALF_SATURATION).
    # 5 decayed accesses (about one every 4 days sustained) give half the boost.
    ZONE_HALF_SATURATION = 5.0
    ZONE_MULTIPLIER_MIN = 1.0
    # +5% at most: a zone is weak evidence about one note.
    ZONE_MULTIPLIER_MAX = 1.05

    # A note is stale when untouched (neither used nor created) for half a year AND its
    # activation (strength * retention) has fallen below 5%: long unused and weak. A
    # well-established note (stability near a year) stays fresh for years of disuse.
    STALE_AFTER_DAYS = 180.0
    STALE_ACTIVATION = 0.05

    @property
    def max_boost(self) -> float:
        """Largest ratio between the usage multipliers of two notes (max over min)."""
        return (self.NOTE_MULTIPLIER_MAX * self.ZONE_MULTIPLIER_MAX) / (
            self.NOTE_MULTIPLIER_MIN * self.ZONE_MULTIPLIER_MIN
        )

    # -- notes -------------------------------------------------------------------------

    def _stability(self, usage: NoteUsage) -> float:
        return _clamp(usage.stability_days, self.MIN_STABILITY_DAYS, self.MAX_STABILITY_DAYS)

    def _age_days(self, since: float, now: float) -> float:
        """Days from ``since`` to ``now``; 0 when the clock went backwards."""
        age = (now - since) / _DAY
        return age if age > 0 else 0.0  # also maps NaN to 0

    def retention(self, usage: NoteUsage | None, now: float) -> float:
        """Probability-like recall of the note at ``now``: ``exp(-age / stability)``.

        In [0, 1]; 1 right after an access; ``PRIOR_RETENTION`` for a note with no history.
        """
        if usage is None:
            return self.PRIOR_RETENTION
        age = self._age_days(_finite(usage.last_access, now), now)
        return _clamp(math.exp(-age / self._stability(usage)), 0.0, 1.0)

    def activation(self, usage: NoteUsage | None, now: float) -> float:
        """``strength * retention`` in [0, 1]; 0 for a note with no history."""
        if usage is None:
            return 0.0
        return _clamp(usage.strength, 0.0, 1.0) * self.retention(usage, now)

    def reinforce(self, usage: NoteUsage | None, now: float) -> NoteUsage:
        """The usage after one more access at ``now``.

        ``weight = max(MIN_SPACING_WEIGHT, 1 - retention)`` measures how spaced the
        access is; stability grows by ``1 + SPACING_GAIN * (1 - retention)`` (capped),
        strength by ``STRENGTH_STEP * weight * (1 - strength)``. Neither ever decreases.
        An access dated before the last one (clock skew) counts as immediate.
        """
        if not math.isfinite(now):
            raise InvalidInputError(f"now must be a finite unix time in seconds, got {now!r}")
        now = float(now)
        if usage is None:
            return NoteUsage(
                strength=self.STRENGTH_STEP,
                stability_days=self.INITIAL_STABILITY_DAYS,
                last_access=now,
                accesses=1,
            )
        retention = self.retention(usage, now)
        weight = max(self.MIN_SPACING_WEIGHT, 1.0 - retention)
        strength = _clamp(usage.strength, 0.0, 1.0)
        strength = _clamp(strength + self.STRENGTH_STEP * weight * (1.0 - strength), 0.0, 1.0)
        growth = 1.0 + self.SPACING_GAIN * (1.0 - retention)
        stability = _clamp(
            self._stability(usage) * growth, self.MIN_STABILITY_DAYS, self.MAX_STABILITY_DAYS
        )
        last = _finite(usage.last_access, now)
        return NoteUsage(
            strength=strength,
            stability_days=stability,
            last_access=max(last, now),
            accesses=max(0, int(usage.accesses)) + 1,
        )

    def note_multiplier(self, usage: NoteUsage | None, now: float) -> float:
        """Ranking factor in [NOTE_MULTIPLIER_MIN, NOTE_MULTIPLIER_MAX]; exactly 1.0 unused.

        Non-increasing in the time since the last access.
        """
        if usage is None:
            return 1.0
        low, high = self.NOTE_MULTIPLIER_MIN, self.NOTE_MULTIPLIER_MAX
        return _clamp(low + (high - low) * self.activation(usage, now), low, high)

    def is_stale(
        self, usage: NoteUsage | None, now: float, *, created: float | None = None
    ) -> bool:
        """True for a long-unused weak note (see STALE_AFTER_DAYS, STALE_ACTIVATION).

        A note with neither usage nor a creation time is never called stale: its age is
        unknown.
        """
        touched = []
        if usage is not None and math.isfinite(usage.last_access):
            touched.append(usage.last_access)
        if created is not None and math.isfinite(created):
            touched.append(created)
        if not touched:
            return False
        if self._age_days(max(touched), now) < self.STALE_AFTER_DAYS:
            return False
        return self.activation(usage, now) < self.STALE_ACTIVATION

    # -- zones -------------------------------------------------------------------------

    def zone_value(self, activity: ZoneActivity | None, now: float) -> float:
        """Decayed access count at ``now`` (halves every ZONE_HALF_LIFE_DAYS).

        Dividing by ``ZONE_HALF_LIFE_DAYS / ln 2`` turns it into recent accesses per day.
        """
        if activity is None:
            return 0.0
        value = _clamp(activity.value, 0.0, math.inf)
        age = self._age_days(_finite(activity.updated, now), now)
        return value * 0.5 ** (age / self.ZONE_HALF_LIFE_DAYS)

    def touch_zone(self, activity: ZoneActivity | None, now: float) -> ZoneActivity:
        """The zone's activity after one more access at ``now``: decay, then add 1."""
        if not math.isfinite(now):
            raise InvalidInputError(f"now must be a finite unix time in seconds, got {now!r}")
        now = float(now)
        if activity is None:
            return ZoneActivity(value=1.0, updated=now)
        updated = max(_finite(activity.updated, now), now)
        return ZoneActivity(value=self.zone_value(activity, now) + 1.0, updated=updated)

    def zone_multiplier(self, activity: ZoneActivity | None, now: float) -> float:
        """Ranking factor in [ZONE_MULTIPLIER_MIN, ZONE_MULTIPLIER_MAX]; 1.0 for no activity."""
        if activity is None:
            return 1.0
        value = self.zone_value(activity, now)
        share = value / (value + self.ZONE_HALF_SATURATION) if math.isfinite(value) else 1.0
        low, high = self.ZONE_MULTIPLIER_MIN, self.ZONE_MULTIPLIER_MAX
        return _clamp(low + (high - low) * share, low, high)


MAX_BOOST: float = UsageModel().max_boost
"""Upper bound of ``multiplier(a) / multiplier(b)`` for any two notes under the default
model (1.15 * 1.05 = 1.2075). A ranking that keeps a lexical score ratio above this
guarantees a well-matched note never loses to a poorly matched popular one."""


# --- the state file ------------------------------------------------------------------


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("expected a finite number")
    return value


def _note_from_json(data: object) -> NoteUsage:
    if not isinstance(data, dict):
        raise ValueError("a note entry must be an object")
    accesses = data.get("accesses")
    if isinstance(accesses, bool) or not isinstance(accesses, int) or accesses < 0:
        raise ValueError("accesses must be a non-negative integer")
    strength = _number(data.get("strength"))
    stability = _number(data.get("stability_days"))
    if not 0.0 <= strength <= 1.0 or stability <= 0.0:
        raise ValueError("strength must be in [0, 1] and stability_days positive")
    return NoteUsage(
        strength=strength,
        stability_days=stability,
        last_access=_number(data.get("last_access")),
        accesses=accesses,
    )


def _zone_from_json(data: object) -> ZoneActivity:
    if not isinstance(data, dict):
        raise ValueError("a zone entry must be an object")
    value = _number(data.get("value"))
    if value < 0:
        raise ValueError("value must not be negative")
    return ZoneActivity(value=value, updated=_number(data.get("updated")))


class UsageStore:
    """Usage state of one vault, kept in ``state_dir / "usage.json"``.

    The file is read on first use (or by ``load``); each change is written at once,
    atomically. The store does not lock: the caller holds the vault lock around
    ``record_access``, ``rename`` and ``forget_path``. A corrupt or foreign file is
    moved aside to ``usage.json.corrupt-<UTC timestamp>`` (never deleted), the store
    starts empty, and ``warnings`` says so.

    ========  ==================================================================
    field     meaning
    ========  ==================================================================
    format    ``"mnemosyne-usage/1"``
    notes     ``{path: {strength, stability_days, last_access, accesses}}``
    zones     ``{zone: {value, updated}}`` (``""`` is the inbox)
    ========  ==================================================================
    """

    FILENAME = "usage.json"

    def __init__(
        self, state_dir: Path, model: UsageModel | None = None, *, root: Path | None = None
    ) -> None:
        self.state_dir = Path(state_dir)
        #: Where the symbolic-link check starts (the vault): every folder from it down to
        #: the file must be real, so a linked ``.mnemosyne`` or ``.mnemosyne/state`` is
        #: never written through. Defaults to ``state_dir`` (only the file is checked).
        self.root = Path(root) if root is not None else self.state_dir
        self.path = self.state_dir / self.FILENAME
        self.model = model if model is not None else UsageModel()
        self.warnings: list[str] = []
        self._notes: dict[str, NoteUsage] = {}
        self._zones: dict[str, ZoneActivity] = {}
        self._loaded = False

    # -- reading -----------------------------------------------------------------------

    def load(self) -> None:
        """(Re)read the state file; missing means empty, corrupt is moved aside."""
        self._notes, self._zones = {}, {}
        self._loaded = True
        try:
            ensure_no_symlink(self.path, root=self.root)
        except InvalidPathError as exc:
            # Run without usage rather than read (or move aside) a file outside the vault;
            # the next write is refused with the same message.
            self.warnings.append(f"usage state ignored: {exc}")
            return
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            # Unreadable (permissions, a folder in the way): run without usage rather
            # than fail a search; nothing is moved, so nothing is lost.
            self.warnings.append(f"usage state {self.path} is unreadable ({exc}); usage ignored")
            return
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            self._set_aside(f"is not valid JSON ({exc})")
            return
        if not isinstance(data, dict) or data.get("format") != USAGE_FORMAT:
            found = data.get("format") if isinstance(data, dict) else type(data).__name__
            self._set_aside(f"has format {found!r}, expected {USAGE_FORMAT!r}")
            return
        notes, zones = data.get("notes", {}), data.get("zones", {})
        if not isinstance(notes, dict) or not isinstance(zones, dict):
            self._set_aside("has 'notes' or 'zones' that is not an object")
            return
        dropped = 0
        for path, entry in notes.items():
            try:
                self._notes[path] = _note_from_json(entry)
            except ValueError:
                dropped += 1
        for zone, entry in zones.items():
            try:
                self._zones[zone] = _zone_from_json(entry)
            except ValueError:
                dropped += 1
        if dropped:
            # Keep the valid entries, but keep the original file too: it is state.
            self._set_aside(f"had {dropped} malformed entries (dropped)", keep_valid=True)

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.load()

    def _set_aside(self, problem: str, *, keep_valid: bool = False) -> None:
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.path.with_name(f"{self.FILENAME}.corrupt-{stamp}")
        counter = 1
        while target.exists():
            target = self.path.with_name(f"{self.FILENAME}.corrupt-{stamp}-{counter}")
            counter += 1
        try:
            os.replace(self.path, target)
        except FileNotFoundError:
            # Another process got there first; its warning names the new file.
            self.warnings.append(f"usage state {self.path} {problem}; it was already moved aside")
            return
        except OSError as exc:
            self.warnings.append(
                f"usage state {self.path} {problem} and could not be moved aside ({exc}); "
                "usage ignored until the file is fixed or removed"
            )
            if not keep_valid:
                self._notes, self._zones = {}, {}
            return
        kept = "the valid entries were kept" if keep_valid else "usage starts empty"
        # Nothing is written here (a read may run without the vault lock): the next
        # record_access saves what was kept.
        self.warnings.append(
            f"usage state {self.path} {problem}; moved it to {target.name} and {kept}"
        )

    # -- writing -----------------------------------------------------------------------

    def _save(self) -> None:
        notes = {
            path: {
                "strength": usage.strength,
                "stability_days": usage.stability_days,
                "last_access": usage.last_access,
                "accesses": usage.accesses,
            }
            for path, usage in self._notes.items()
        }
        zones = {
            zone: {"value": activity.value, "updated": activity.updated}
            for zone, activity in self._zones.items()
        }
        document = {"format": USAGE_FORMAT, "notes": notes, "zones": zones}
        text = json.dumps(document, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        atomic_write_text(self.path, text, root=self.root)

    def record_access(self, path: str, zone: str, *, now: float | None = None) -> NoteUsage:
        """Record one use of the note at ``path`` in ``zone`` and save; return its usage."""
        if not isinstance(path, str) or not path:
            raise InvalidInputError(f"path must be a non-empty note path, got {path!r}")
        if not isinstance(zone, str):
            raise InvalidInputError(f"zone must be a string ('' is the inbox), got {zone!r}")
        when = time.time() if now is None else float(now)
        if not math.isfinite(when):
            raise InvalidInputError(f"now must be a finite unix time in seconds, got {now!r}")
        self._ensure_loaded()
        usage = self.model.reinforce(self._notes.get(path), when)
        self._notes[path] = usage
        self._zones[zone] = self.model.touch_zone(self._zones.get(zone), when)
        self._save()
        return usage

    def rename(self, old_path: str, new_path: str) -> None:
        """Carry a note's usage to its new path (archive, restore, rezone)."""
        self.rename_many([(old_path, new_path)])

    def rename_many(self, moves: Iterable[tuple[str, str]]) -> None:
        """``rename`` for many notes with one write (a rezone moves a whole folder)."""
        self._ensure_loaded()
        changed = False
        for old_path, new_path in moves:
            if old_path == new_path or old_path not in self._notes:
                continue
            self._notes[new_path] = self._notes.pop(old_path)
            changed = True
        if changed:
            self._save()

    def forget_path(self, path: str) -> None:
        """Drop a note's usage (the note is gone for good)."""
        self._ensure_loaded()
        if self._notes.pop(path, None) is not None:
            self._save()

    # -- queries -----------------------------------------------------------------------

    def usage(self, path: str) -> NoteUsage | None:
        """The note's usage, or ``None`` if it was never used."""
        self._ensure_loaded()
        return self._notes.get(path)

    def zone_activity(self, zone: str) -> ZoneActivity | None:
        """The zone's activity, or ``None`` if no note in it was ever used."""
        self._ensure_loaded()
        return self._zones.get(zone)

    def multiplier(self, path: str, zone: str, now: float) -> float:
        """``note_multiplier * zone_multiplier``; within [1, MAX_BOOST] by default."""
        self._ensure_loaded()
        note = self.model.note_multiplier(self._notes.get(path), now)
        return note * self.model.zone_multiplier(self._zones.get(zone), now)

    def stale(
        self, paths_with_created: Iterable[tuple[str, float | None]], now: float
    ) -> list[str]:
        """The given paths whose notes are stale, in the order given."""
        self._ensure_loaded()
        return [
            path
            for path, created in paths_with_created
            if self.model.is_stale(self._notes.get(path), now, created=created)
        ]
