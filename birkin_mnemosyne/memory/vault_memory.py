"""``VaultMemory``: one vault's notes behind one method per user-facing operation.

The class joins the operation groups (``reading``, ``state``, ``activity``,
``writing``, ``editing``, ``lifecycle``, ``moving``, ``labelling``, ``usage``) over their
shared plumbing (``base``). This
module holds what belongs to the object itself: its options, crash recovery on open,
closing, and ``status``.
"""

from __future__ import annotations

import os
import time
from collections import OrderedDict
from collections.abc import Callable

from .. import notes_io as nio
from ..dynamics import MAX_BOOST, UsageStore
from ..engine import Mnemosyne
from ..errors import ConfigError, InvalidInputError
from ..journal import Journal
from ..progress import ProgressCallback
from ..vault_lock import DEFAULT_TIMEOUT, VaultLock
from .activity import ActivityMixin
from .base import STATE_DIR
from .editing import EditingMixin
from .labelling import LabellingMixin
from .lifecycle import LifecycleMixin
from .moving import MovingMixin
from .reading import ReadingMixin
from .state import StateMixin
from .usage import UsageMixin
from .writing import WritingMixin

_OPTIONS = (
    "vault_path",
    "evidence_required",
    "refresh_interval",
    "lock_timeout",
    "recover",
    "index",
)


# The writes a team index commits, pushes and ingests (``team.writes``).
_TEAM_WRITES = (
    "write_note",
    "edit_note",
    "move",
    "rezone",
    "forget",
    "restore",
    "undo",
    "label_apply",
)


class VaultMemory(
    ReadingMixin,
    StateMixin,
    ActivityMixin,
    EditingMixin,
    WritingMixin,
    MovingMixin,
    LifecycleMixin,
    LabellingMixin,
    UsageMixin,
):
    """Read, write, move, label and undo notes of one vault.

    ``VaultMemory("~/vault")`` or ``VaultMemory({"vault_path": "~/vault", ...})`` (the
    dict form takes the keyword names below as keys). ``evidence_required`` overrides
    the vault configuration; ``clock`` (unix seconds) is injected by tests and is the
    default ``now`` of every method that takes one; ``recover=False`` skips crash
    recovery on open. ``on_progress`` receives the progress of the index builds and
    refreshes the engine runs for it (``progress.ProgressEvent``: the first search of a
    large vault builds its index).
    """

    def __init__(
        self,
        vault_path: str | os.PathLike | dict,
        *,
        evidence_required: bool | None = None,
        clock: Callable[[], float] = time.time,
        refresh_interval: float = 2.0,
        lock_timeout: float = DEFAULT_TIMEOUT,
        recover: bool = True,
        on_progress: ProgressCallback | None = None,
        index: str | None = None,
    ) -> None:
        if isinstance(vault_path, dict):
            options = dict(vault_path)
            unknown = sorted(set(options) - set(_OPTIONS))
            if unknown or "vault_path" not in options:
                raise InvalidInputError(
                    "VaultMemory options need 'vault_path'"
                    + (f"; unknown option(s) {', '.join(map(str, unknown))}" if unknown else "")
                    + f" — valid options: {', '.join(_OPTIONS)}",
                    valid_choices=_OPTIONS,
                )
            vault_path = options["vault_path"]
            if evidence_required is None:
                evidence_required = options.get("evidence_required")
            refresh_interval = options.get("refresh_interval", refresh_interval)
            lock_timeout = options.get("lock_timeout", lock_timeout)
            recover = options.get("recover", recover)
            index = options.get("index", index)
        if evidence_required is not None and not isinstance(evidence_required, bool):
            raise InvalidInputError(
                f"evidence_required must be true or false, got {evidence_required!r}"
            )
        self._clock = clock
        self._lock_timeout = lock_timeout
        self.engine = Mnemosyne(
            vault_path,
            refresh_interval=refresh_interval,
            usage_multiplier=self._usage_multiplier,
            usage_max=MAX_BOOST,
            clock=clock,
            on_progress=on_progress,
            index=index,
        )
        self.vault = self.engine.vault
        self.config = self.engine.config
        self.evidence_required = (
            self.config.evidence_required if evidence_required is None else evidence_required
        )
        self.max_note_bytes = self._max_note_bytes()
        self.usage = UsageStore(self.vault / STATE_DIR, root=self.vault)
        self._journal = Journal(self.vault, lock_timeout=lock_timeout)
        VaultLock(self.vault, timeout=lock_timeout)  # validates lock_timeout early
        self._plans = OrderedDict()
        self._usage_signature = None
        self._key_index = None
        self._links = None
        # A team index: the writer of this working copy (None: search only), and the
        # warnings its last write's sharing left (``team.writes``).
        self._team_writer = None
        self._team_warnings: list[str] = []
        self._team_operation = "write"
        if index is not None:
            from ..team.writes import writer_for

            self._team_writer = writer_for(self.vault, index, self.config)
            for name in _TEAM_WRITES:
                setattr(self, name, self._reporting_sharing(getattr(self, name)))
        self.recovered = self._journal.recover() if recover else []
        touched = sorted({p for report in self.recovered for p in report.get("paths", [])})
        if touched:
            self.engine.refresh(paths=touched)

    def __repr__(self) -> str:
        return f"VaultMemory({str(self.vault)!r})"

    def _reporting_sharing(self, method):
        """``method`` (a write) whose result's ``warnings`` also say what sharing the
        write with the team left undone (not pushed, not ingested)."""

        def write(*args, **kwargs):
            self._team_warnings.clear()
            self._team_operation = method.__name__  # names the commit
            result = method(*args, **kwargs)
            if self._team_warnings and isinstance(result, dict):
                result["warnings"] = [*(result.get("warnings") or []), *self._team_warnings]
            return result

        write.__name__ = method.__name__
        write.__doc__ = method.__doc__
        return write

    def close(self) -> None:
        """Release the engine's open cache file (``with VaultMemory(v) as memory:`` does it)."""
        close = getattr(self.engine, "close", None)
        if close is not None:
            close()
        if self._team_writer is not None:
            self._team_writer.close()

    def __enter__(self) -> VaultMemory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- set-up ------------------------------------------------------------------------

    def _max_note_bytes(self) -> int:
        value = self.config.budgets.get("max_note_bytes", nio.DEFAULT_MAX_NOTE_BYTES)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(
                f"{self.config.source}: 'budgets.max_note_bytes' must be a positive whole "
                f"number of bytes, got {value!r}"
            )
        return value

    def _usage_multiplier(self, path: str, zone: str) -> float:
        return self.usage.multiplier(path, zone, self._clock())

    # -- status ------------------------------------------------------------------------

    def status(self) -> dict:
        """Engine ``stats()`` plus recovery, journal and usage-state warnings."""
        self._sync_usage()
        stats = self.engine.stats()
        extra = []
        for report in self.recovered:
            problems = "; ".join(report.get("problems") or [])
            done = ", ".join(report.get("restored") or []) or "nothing to restore"
            extra.append(
                {
                    "code": "recovered" if not problems else "recovery_failed",
                    "message": (
                        f"crash recovery: transaction {report['transaction_id']} "
                        f"({report.get('operation')}) is {report['state']}: restored {done}"
                        + (f"; problems: {problems}" if problems else "")
                    ),
                    "path": "",
                    "line": None,
                }
            )
        recent = self._journal.list(20)
        for row in recent:
            if row["state"] in ("corrupt", "damaged", "recovery_failed", "prepared"):
                extra.append(
                    {
                        "code": "journal",
                        "message": f"journal entry {row['transaction_id']} is {row['state']} — "
                        "see docs/reference/journal.md",
                        "path": "",
                        "line": None,
                    }
                )
        for message in self.usage.warnings:
            extra.append({"code": "usage_state", "message": message, "path": "", "line": None})
        stats["warnings"] = [*stats["warnings"], *extra]
        stats["recovered"] = list(self.recovered)
        stats["journal"] = {"recent": recent[:5]}
        stats["evidence_required"] = self.evidence_required
        return stats
