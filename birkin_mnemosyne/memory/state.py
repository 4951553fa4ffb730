"""State questions: the newest sections on a subject (``latest``), one host's history
(``host_history``) and the journal's entries (``journal_entries``), newest first. The
logic is ``state_queries``; these methods hold its per-vault instance. None records
usage.
"""

from __future__ import annotations

from ..state_queries import DEFAULT_HISTORY_LIMIT, DEFAULT_LATEST_LIMIT, StateQueries
from ..time_bounds import time_window
from .base import MemoryBase


class StateMixin(MemoryBase):
    """``latest`` and ``host_history``."""

    _state: StateQueries | None = None

    def _state_queries(self) -> StateQueries:
        if self._state is None:
            self._state = StateQueries(self.engine)
        return self._state

    def latest(
        self,
        query: str,
        limit: int = DEFAULT_LATEST_LIMIT,
        *,
        zone: str | None = None,
        include_archive: bool = False,
    ) -> dict:
        """The newest sections holding every term of ``query``, newest first.

        ``{"query", "hits": [{"key","path","title","zone","heading","line","date",
        "stale","archived","labels","snippet","score"}], "dropped_terms",
        "matched_terms", "index"}``. ``date`` is when the section was written (its
        headings, else its note's date); when no section holds every term, the most
        common terms are dropped one at a time and listed in ``dropped_terms``.
        Stale sections stay in, flagged ``stale``.
        """
        return self._state_queries().latest(
            query, limit, zone=zone, include_archive=include_archive
        )

    def host_history(
        self, host: str, topic: str | None = None, limit: int = DEFAULT_HISTORY_LIMIT
    ) -> dict:
        """A host's journal sections and host-record entries, newest first.

        ``host`` is the host note's title, file name, ``host:`` or any alias; ``topic``
        keeps only entries that also hold its terms. ``{"host", "host_note":
        {"key","path","title"}, "aliases", "entries": [hit-like dicts with "date" and
        "kind": "journal" | "host_record"], "index"}``. An unknown host raises
        ``NoteNotFoundError`` naming close host names.
        """
        return self._state_queries().host_history(host, topic, limit)

    def journal_entries(
        self,
        limit: int = DEFAULT_HISTORY_LIMIT,
        *,
        since: object = None,
        until: object = None,
        now: float | None = None,
    ) -> dict:
        """The sections of journal notes, newest first by when each was written.

        Journal notes are ``type: journal``, notes in a ``journal/`` folder, or notes
        whose file name starts with a date; a section's date is its headings' stamp,
        else its note's date (sections with neither, and sections of headings only, are
        left out). ``since`` / ``until`` bound the day as ``list_notes`` takes them.
        ``{"entries": [the ``latest`` hit shape; the snippet is the section's text
        without its headings], "index"}``.
        """
        window = time_window(since, until, now=self._now(now))
        return self._state_queries().journal_entries(limit, window=window)
