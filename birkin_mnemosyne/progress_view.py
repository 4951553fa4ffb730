"""Progress for a person: the CLI's line on stderr and the MCP server's log lines.

Both take the library's ``progress.ProgressEvent`` values and show only work that is
actually long, so a quick command stays silent:

* ``ProgressLine`` (the ``mnemosyne`` CLI) draws nothing until the command has been
  busy for ``delay`` seconds (``DELAY``; ``$MNEMOSYNE_PROGRESS_DELAY`` overrides it,
  ``-v`` makes it 0). On a terminal it then keeps one live line per phase, redrawn at
  most ``LIVE_INTERVAL`` apart (``\\r``; the line is ended when the phase finishes);
  elsewhere (a pipe, a log file) it writes a plain line when a phase is first shown,
  one at most every ``PLAIN_INTERVAL`` seconds, and one when it ends.
* ``ProgressLog`` (``mnemosyne-mcp``, whose stdout is the protocol) writes one line
  when a phase has run for ``delay`` seconds (``MCP_DELAY``, or the same variable) or
  starts with at least ``LARGE_TOTAL`` items, and one when that phase ends, with its
  duration.

Both only ever write to the stream they are given (stderr), never to stdout.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import TextIO

from .progress import ProgressEvent

__all__ = [
    "DELAY",
    "DELAY_ENV",
    "LARGE_TOTAL",
    "LIVE_INTERVAL",
    "MCP_DELAY",
    "PLAIN_INTERVAL",
    "ProgressLine",
    "ProgressLog",
    "configured_delay",
]

DELAY = 1.5  # seconds of work before the CLI shows anything
DELAY_ENV = "MNEMOSYNE_PROGRESS_DELAY"
LIVE_INTERVAL = 0.1  # at most 10 redraws a second on a terminal
PLAIN_INTERVAL = 5.0  # at most one line every 5 s elsewhere
MCP_DELAY = 2.0
LARGE_TOTAL = 2000  # a phase this big is announced at once by the MCP log
_BAR = 24


def configured_delay(default: float = DELAY) -> float:
    """``$MNEMOSYNE_PROGRESS_DELAY`` in seconds when it is a number >= 0, else ``default``."""
    raw = os.environ.get(DELAY_ENV, "").strip()
    try:
        value = float(raw)
    except ValueError:
        return default
    return value if value >= 0 else default


def _count(event: ProgressEvent) -> str:
    if event.total is None:
        return f" {event.done:,}"
    if event.total == 1:
        return ""  # one step (saving the index): a count says nothing
    return f" {event.done:,}/{event.total:,}"


def _seconds(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


class ProgressLine:
    """Draws progress events on ``stream`` (default stderr) for the person at the terminal."""

    def __init__(
        self,
        stream: TextIO | None = None,
        *,
        delay: float | None = None,
        live: bool | None = None,
        prefix: str = "mnemosyne",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.delay = configured_delay() if delay is None else delay
        if live is None:
            isatty = getattr(self.stream, "isatty", None)
            live = bool(isatty and isatty())
        self.live = live
        self.prefix = prefix
        self._clock = clock
        self._began: float | None = None  # the first event of the command
        self._phase: str | None = None
        self._phase_began = 0.0
        self._shown = False  # the current phase has been drawn
        self._open = False  # a live line is drawn without its newline
        self._last_draw = 0.0

    def __call__(self, event: ProgressEvent) -> None:
        now = self._clock()
        if self._began is None:
            self._began = now
        if event.phase != self._phase or event.done == 0:
            self._end_line()
            self._phase, self._phase_began, self._shown = event.phase, now, False
        if now - self._began < self.delay:
            return
        interval = LIVE_INTERVAL if self.live else PLAIN_INTERVAL
        if self._shown and not event.finished and now - self._last_draw < interval:
            return
        self._draw(event, now)

    def _draw(self, event: ProgressEvent, now: float) -> None:
        self._shown = True
        self._last_draw = now
        text = f"{self.prefix}: {event.label}"
        if event.total and event.total > 1:
            share = event.done / event.total
            if self.live:
                filled = round(share * _BAR)
                text += f" [{'#' * filled}{'.' * (_BAR - filled)}]"
            text += f"{_count(event)} ({share:.0%})"
        else:
            text += _count(event)
        if event.finished:
            text += f", done in {_seconds(now - self._phase_began)}"
        if self.live:
            self.stream.write("\r\033[K" + text + ("\n" if event.finished else ""))
            self._open = not event.finished
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def _end_line(self) -> None:
        if self._open:
            self.stream.write("\n")
            self.stream.flush()
            self._open = False

    def close(self) -> None:
        """End a live line left open (the command stopped in the middle of a phase)."""
        self._end_line()


class ProgressLog:
    """One line when long work starts and one when it ends, through ``write`` (a
    function taking the line), for a server whose stdout is not for people."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        delay: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = write
        self.delay = configured_delay(MCP_DELAY) if delay is None else delay
        self._clock = clock
        self._phase: str | None = None
        self._began = 0.0
        self._announced = False

    def __call__(self, event: ProgressEvent) -> None:
        now = self._clock()
        if event.phase != self._phase or event.done == 0:
            self._phase, self._began, self._announced = event.phase, now, False
        took = now - self._began
        if not self._announced and not event.finished:
            if took >= self.delay or (event.total or 0) >= LARGE_TOTAL:
                self._announced = True
                total = f" ({event.total:,} to do)" if event.total else ""
                self._write(f"{event.label}: started{total}")
        elif event.finished and (self._announced or took >= self.delay):
            count = f", {event.done:,}" if event.done != 1 else ""
            self._write(f"{event.label}: done{count} in {_seconds(took)}")
            self._announced = False
            self._phase = None
