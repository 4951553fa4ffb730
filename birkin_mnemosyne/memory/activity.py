"""What changed lately: ``recent`` lists notes by their last change, newest first.

Two sources, the journal first. A journaled change (a write, an edit, a move, an archive,
a label change, an import) says what happened and when; it is used for a file while the
file still holds the bytes that change left there (its sha256 is compared). Any other
change (an editor, a sync, a ``git pull``) is known only by the file's modification time,
and is listed as ``modified``.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from ..errors import JournalError
from ..time_bounds import iso_of_ns, time_window
from ..vault_paths import zone_of
from .base import MemoryBase, check_int

# Journal entries read for ``recent`` (newest first); older changes show by file time.
RECENT_JOURNAL_DEPTH = 200
MAX_RECENT_LIMIT = 200
# What a journaled move is called, by operation; any other move is "moved".
_MOVE_CHANGES = {"archive": "archived", "restore": "restored"}


def _ns_of_journal_time(created: str) -> int | None:
    try:
        moment = dt.datetime.strptime(created, "%Y-%m-%dT%H:%M:%S.%fZ")
    except (TypeError, ValueError):
        return None
    moment = moment.replace(tzinfo=dt.timezone.utc)
    return int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


class ActivityMixin(MemoryBase):
    """``recent``: notes by their latest change, from the journal and file times."""

    def recent(
        self,
        limit: int = 20,
        *,
        since: str | dt.date | None = None,
        until: str | dt.date | None = None,
        now: float | None = None,
    ) -> dict:
        """The notes changed most recently, newest first, one row each for its last change.

        ``{"changes": [{"key", "path", "title", "zone", "change", "operation", "at",
        "transaction_id", "previous_path", "source"}], "total", "limit"}``: ``change`` is
        ``created``, ``edited``, ``moved``, ``archived`` or ``restored`` (``source``
        ``"journal"``, with the ``operation`` and ``transaction_id`` that did it), or
        ``modified`` (``source`` ``"file"``: changed outside the library, or before the
        last ``RECENT_JOURNAL_DEPTH`` journal entries; ``at`` is the file's modification
        time). ``since`` / ``until`` bound ``at`` as ``list_notes`` bounds its times;
        ``total`` counts the rows in that window before ``limit`` cut them.
        """
        limit = check_int(limit, "limit", 1, MAX_RECENT_LIMIT)
        window = time_window(since, until, now=self._now(now))
        index = self.engine.index
        keys = self.engine.keys()
        rows = self._journaled_changes(keys, index)
        for path, key in keys.items():
            if path in rows:
                continue
            meta = index.notes[index.by_path[path]]
            rows[path] = _change_row(path, key, meta, meta["mtime_ns"], "modified", source="file")
        found = [row for row in rows.values() if window is None or window.contains(row["_ns"])]
        found.sort(key=lambda row: row["path"])
        found.sort(key=lambda row: row["_ns"], reverse=True)
        for row in found:
            del row["_ns"]
        return {"changes": found[:limit], "total": len(found), "limit": limit}

    def _journaled_changes(self, keys: dict[str, str], index) -> dict[str, dict]:
        """The newest journaled change of each file that still holds what it left."""
        rows: dict[str, dict] = {}
        decided: set[str] = set()
        for summary in self._journal.list(RECENT_JOURNAL_DEPTH):
            if summary["state"] != "committed":
                continue
            try:
                entry = self._journal.get(summary["transaction_id"])
            except JournalError:
                continue
            at = _ns_of_journal_time(entry["created"])
            if at is None:
                continue
            moved_from = {
                pair[1]: pair[0]
                for pair in entry["meta"].get("moves") or []
                if isinstance(pair, list)
                and len(pair) == 2
                and all(isinstance(p, str) for p in pair)
            }
            for change in entry["changes"]:
                path = change["path"]
                if path in decided:
                    continue  # a later change decided it
                decided.add(path)
                if (
                    change["after_sha256"] is None
                    or self._sha256_of(path) != change["after_sha256"]
                ):
                    continue  # removed, or changed since: the file time tells
                operation = entry["operation"]
                if path in moved_from:
                    kind = _MOVE_CHANGES.get(operation, "moved")
                else:
                    kind = "created" if change["action"] == "create" else "edited"
                nid = index.by_path.get(path)
                key = keys.get(path)
                if key is None and nid is not None:
                    key = self.engine.key_of(path, index=index)
                rows[path] = _change_row(
                    path,
                    key,
                    None if nid is None else index.notes[nid],
                    at,
                    kind,
                    source="journal",
                    operation=operation,
                    transaction_id=entry["transaction_id"],
                    previous_path=moved_from.get(path),
                )
        return rows

    def _sha256_of(self, path: str) -> str | None:
        try:
            return hashlib.sha256((self.vault / path).read_bytes()).hexdigest()
        except OSError:
            return None


def _change_row(
    path: str, key: str | None, meta: dict | None, at_ns: int, change: str, **fields
) -> dict:
    return {
        "key": key,
        "path": path,
        "title": meta["title"] if meta else None,
        "zone": zone_of(path),
        "change": change,
        "operation": fields.get("operation"),
        "at": iso_of_ns(at_ns),
        "transaction_id": fields.get("transaction_id"),
        "previous_path": fields.get("previous_path"),
        "source": fields["source"],
        "_ns": at_ns,
    }
