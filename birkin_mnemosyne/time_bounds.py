"""Time windows: the ``since`` / ``until`` bounds of a listing, and what falls inside.

A bound is written in one of three ways:

==================================  ==================================================
form                                meaning
==================================  ==================================================
``2026-03-02``                      that UTC day: ``since`` from its first moment,
                                    ``until`` through its last
``2026-03-02T10:15``,               that moment; without an offset it is UTC
``2026-03-02T10:15:30Z``,
``2026-03-02 10:15+02:00``
``7d``, ``12h``, ``2w``             that long before now (days, hours, weeks)
==================================  ==================================================

Python callers may pass a ``datetime.date`` (a day) or a ``datetime.datetime`` (a
moment; naive means UTC) instead of text. Both bounds are inclusive.

What is tested against a window is either a moment (a file's modification time, a
journal entry's time) or a day (a frontmatter ``updated:`` or ``date:``, which the index
keeps to the day). A day counts as the whole day: it is inside the window when any moment
of it is, so ``since="2026-03-02T18:00"`` keeps a note dated 2026-03-02.

Pure functions: the clock is passed in (``now``, unix seconds).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from .errors import InvalidInputError

__all__ = ["TimeWindow", "iso_of_ns", "parse_bound", "time_window"]

_NS = 1_000_000_000
_DAY_NS = 86_400 * _NS
_DAY_RE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPAN_RE = re.compile(r"(\d{1,6})\s*([hdw])")
_SPAN_SECONDS = {"h": 3600, "d": 86_400, "w": 7 * 86_400}
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


def _ns_of(moment: dt.datetime) -> int:
    if moment.tzinfo is None:  # no offset: UTC, as every time the library writes
        moment = moment.replace(tzinfo=dt.timezone.utc)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * _NS + delta.microseconds * 1000


def _day_start_ns(day: dt.date) -> int:
    return _ns_of(dt.datetime(day.year, day.month, day.day))


def _problem(name: str, value: object) -> InvalidInputError:
    return InvalidInputError(
        f"{name} must be a date (2026-03-02), a date and time (2026-03-02T10:15, UTC "
        f"unless it ends in an offset such as Z or +02:00) or a span back from now (7d, "
        f"12h, 2w); got {value!r}"
    )


def parse_bound(value: object, *, name: str, now: float, end: bool = False) -> int:
    """The bound as unix nanoseconds; ``end=True`` reads a day as its last moment.

    ``name`` ("since", "until") is used in the error message.
    """
    if isinstance(value, dt.datetime):
        return _ns_of(value)
    if isinstance(value, dt.date):
        start = _day_start_ns(value)
        return start + _DAY_NS - 1 if end else start
    if not isinstance(value, str) or not value.strip():
        raise _problem(name, value)
    text = value.strip()
    span = _SPAN_RE.fullmatch(text.lower())
    if span:
        seconds = int(span.group(1)) * _SPAN_SECONDS[span.group(2)]
        return int(round(now * _NS)) - seconds * _NS
    try:
        if _DAY_RE.fullmatch(text):
            return parse_bound(dt.date.fromisoformat(text), name=name, now=now, end=end)
        if text[-1] in "zZ":  # fromisoformat reads "Z" only from Python 3.11 on
            text = text[:-1] + "+00:00"
        if not _DAY_RE.match(text) or len(text) < 16:
            raise ValueError(text)
        return _ns_of(dt.datetime.fromisoformat(text))
    except ValueError:
        raise _problem(name, value) from None


@dataclass(frozen=True)
class TimeWindow:
    """Both ends inclusive, in unix nanoseconds; ``None`` is open."""

    since: int | None = None
    until: int | None = None

    def contains(self, moment_ns: int) -> bool:
        """A moment (e.g. a file's ``st_mtime_ns``) falls inside."""
        if self.since is not None and moment_ns < self.since:
            return False
        return self.until is None or moment_ns <= self.until

    def contains_day(self, day: str) -> bool:
        """Some moment of the UTC day ``YYYY-MM-DD`` falls inside (an invalid day: no)."""
        try:
            start = _day_start_ns(dt.date.fromisoformat(day[:10]))
        except (TypeError, ValueError):
            return False
        if self.since is not None and start + _DAY_NS - 1 < self.since:
            return False
        return self.until is None or start <= self.until


def time_window(since: object, until: object, *, now: float) -> TimeWindow | None:
    """The window between ``since`` and ``until`` (either may be ``None``); ``None`` when
    both are. Refuses a window that ends before it starts."""
    if since is None and until is None:
        return None
    low = None if since is None else parse_bound(since, name="since", now=now)
    high = None if until is None else parse_bound(until, name="until", now=now, end=True)
    if low is not None and high is not None and low > high:
        raise InvalidInputError(
            f"since ({since}) is after until ({until}) — nothing can fall between them; swap them"
        )
    return TimeWindow(low, high)


def iso_of_ns(moment_ns: int) -> str:
    """``YYYY-MM-DDTHH:MM:SSZ`` (UTC) of unix nanoseconds."""
    moment = _EPOCH + dt.timedelta(microseconds=moment_ns // 1000)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
