"""Progress of long operations: one small event type and the helper that emits it.

Every operation that can take more than a moment — building or refreshing the search
index, ``init``, the importers, a journaled write of many files, embedding sections for
semantic search — takes ``on_progress``: a callable that receives ``ProgressEvent``
values. ``Mnemosyne(vault, on_progress=...)`` and ``VaultMemory(vault, on_progress=...)``
pass theirs to every index build and refresh they run. The library only reports; it
never prints. The CLI draws the events as one line on stderr, the MCP server logs a line
when long work starts and ends.

``ProgressEvent``
=================

=========  =============  ============================================================
field      type           meaning
=========  =============  ============================================================
``phase``  str            what is being counted (one of ``PHASES`` below)
``done``   int            items finished so far in this phase
``total``  int or None    items the phase will finish; ``None`` while unknown
=========  =============  ============================================================

What a callback can rely on, per phase: the first event has ``done == 0``; ``done``
never decreases and never exceeds ``total``; ``total`` stays the same; the last event
has ``done == total`` (``finished``), also for a phase whose total was unknown until it
ended. Events are thinned to about ``STEPS`` per phase, so a callback may do real work.
Phases of one operation follow each other; they never interleave. An exception raised
by the callback propagates and stops the operation the way any failure would (a
journaled write puts every file back), which is how a caller can cancel.

Phases
======

==============  ==================================  =====================================
phase           counts                              emitted by
==============  ==================================  =====================================
``index``       notes parsed into the search index  ``Mnemosyne.refresh`` (first build,
                                                    ``reindex``, a refresh of changed
                                                    files, the first search)
``index-save``  the index written to its cache (1)  ``Mnemosyne.refresh``
``read``        notes (or source files) read        ``init``, the importers
``tokenize``    notes split into terms              ``init`` (for the duplicate check)
``duplicates``  notes compared for near-duplicates  ``init``, ``similarity.similar_pairs``
``write``       files written                       a journaled plan (``init --apply``,
                                                    ``import-* --apply``)
``embed``       sections embedded                   ``SemanticIndex.sync`` (vector builds)
==============  ==================================  =====================================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["PHASES", "STEPS", "PhaseProgress", "ProgressCallback", "ProgressEvent", "phase"]

# phase -> how a person reads it ("indexing notes 1,200/5,000")
PHASES = {
    "index": "indexing notes",
    "index-save": "saving the index",
    "read": "reading notes",
    "tokenize": "tokenizing notes",
    "duplicates": "looking for near-duplicates",
    "write": "writing files",
    "embed": "embedding sections",
    "ingest": "ingesting notes from git",
}
# Events per phase, about: every 0.5% of the total (plus the first and the last).
STEPS = 200


@dataclass(frozen=True)
class ProgressEvent:
    """``done`` of ``total`` items of ``phase`` are finished (``total`` None = unknown)."""

    phase: str
    done: int
    total: int | None

    @property
    def finished(self) -> bool:
        return self.total is not None and self.done >= self.total

    @property
    def label(self) -> str:
        """The phase as a person reads it (``"indexing notes"``)."""
        return PHASES.get(self.phase, self.phase)


ProgressCallback = Callable[[ProgressEvent], None]


class PhaseProgress:
    """Report one phase to a callback: ``advance()`` per item, ``finish()`` at the end.

    The first event (``done=0``) is sent on creation; later ones only when ``done`` has
    grown by about 1/``STEPS`` of the total since the last, and always at ``finish()``.
    Used as a context manager it finishes on a normal exit (not after an exception).
    """

    def __init__(self, callback: ProgressCallback, name: str, total: int | None) -> None:
        if total is not None and total < 0:
            raise ValueError(f"a phase total cannot be negative, got {total}")
        self._callback = callback
        self.phase = name
        self.total = total
        self.done = 0
        self._step = max(1, total // STEPS) if total else 1
        self._next = self._step
        self._finished = False
        callback(ProgressEvent(name, 0, total))
        if total == 0:
            self._finished = True  # that first event was also the last

    def advance(self, count: int = 1) -> None:
        if self._finished:
            return
        self.done += count
        if self.total is not None and self.done >= self.total:
            self.finish()
        elif self.done >= self._next:
            self._next = self.done + self._step
            self._callback(ProgressEvent(self.phase, self.done, self.total))

    def finish(self) -> None:
        if self._finished:
            return
        self._finished = True
        total = self.done if self.total is None else self.total
        self.done = total
        self._callback(ProgressEvent(self.phase, total, total))

    def __enter__(self) -> PhaseProgress:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.finish()


class _Silent:
    """What ``phase`` returns without a callback: every call is a no-op."""

    done = 0

    def advance(self, count: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        pass


_SILENT = _Silent()


def phase(
    callback: ProgressCallback | None, name: str, total: int | None
) -> PhaseProgress | _Silent:
    """A ``PhaseProgress`` for ``callback``, or a no-op stand-in when it is ``None``."""
    if callback is None:
        return _SILENT
    return PhaseProgress(callback, name, total)
