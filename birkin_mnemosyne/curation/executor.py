"""The executor: ``evaluate_plan(vault, plan, apply=False)``.

A dry run (the default) takes a fresh snapshot, runs the gate and reports what would
happen; it writes nothing. ``apply=True`` takes the vault's writer lock, takes a *new*
snapshot and runs the gate again under it (so a note edited, protected or removed since
the dry run is caught), then writes every accepted operation as **one** journaled
transaction (``Journal.transaction``; undo restores every byte). Pass the dry run's
``plan_id`` to refuse (``VersionConflictError``) when the outcome is no longer exactly
what was previewed.

``vault`` is a ``VaultMemory`` (its engine and usage store are reused, and usage
records follow moved notes) or a vault path.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable

from ..errors import JournalError, VersionConflictError, WriteRefusedError
from ..journal import Journal
from ..vault_lock import DEFAULT_TIMEOUT, VaultLock
from .contract import PLAN_FORMAT
from .gate import GateResult, validate_clamp
from .snapshot import Snapshot, open_parts, take_snapshot

__all__ = ["evaluate_plan", "plan_id_of"]


def plan_id_of(result: GateResult) -> str:
    """SHA-256 prefix of every accepted file change (path, sha before, sha after)."""
    rows = sorted(
        [
            change.path,
            None if change.before is None else hashlib.sha256(change.before).hexdigest(),
            None if change.after is None else hashlib.sha256(change.after).hexdigest(),
        ]
        for item in result.accepted
        for change in item.changes
    )
    data = json.dumps({"operation": "curate", "changes": rows}, separators=(",", ":"))
    return hashlib.sha256(data.encode("utf-8")).hexdigest()[:16]


def _report(mode: str, snapshot: Snapshot, result: GateResult) -> dict:
    return {
        "mode": mode,
        "format": PLAN_FORMAT,
        "plan_id": plan_id_of(result),
        "summary": result.summary,  # inert: echoed for the user, never interpreted
        "parse_error": result.parse_error,
        "accepted": [item.as_dict(snapshot) for item in result.accepted],
        "dropped": [drop.as_dict() for drop in result.dropped],
        "effected": [],
        "archive_cap": {"cap": result.archive_cap, "active_notes": result.active_notes},
        "transaction_id": None,
        "state": "preview" if mode == "preview" else "unchanged",
        "paths": [],
    }


def _effect(item) -> dict:
    op = item.operation.op
    if op in ("rezone", "archive"):
        return {"op": op, "path": item.path, "to": item.target}
    return {"op": op, "path": item.path, "target_path": item.target}


def evaluate_plan(
    vault,
    plan: object,
    apply: bool = False,
    *,
    plan_id: str | None = None,
    now: float | None = None,
    clock: Callable[[], float] = time.time,
    lock_timeout: float | None = None,
) -> dict:
    """Validate, clamp and (with ``apply=True``) execute a decoded CurationPlan/1.

    Returns ``mode``, ``plan_id``, ``accepted``, ``dropped`` (each with a ``reason``
    code and ``detail``), ``effected`` (what was written; empty in a dry run),
    ``archive_cap``, and after an apply ``transaction_id``/``state``/``paths``.
    """
    parts = open_parts(vault)
    when = clock() if now is None else now
    if not apply:
        snapshot = take_snapshot(parts, when)
        return _report("preview", snapshot, validate_clamp(snapshot, plan))
    timeout = lock_timeout or parts.lock_timeout or DEFAULT_TIMEOUT
    with VaultLock(parts.vault, timeout=timeout):
        snapshot = take_snapshot(parts, when)
        result = validate_clamp(snapshot, plan)
        report = _report("applied", snapshot, result)
        if plan_id is not None and report["plan_id"] != plan_id:
            raise VersionConflictError(
                f"the vault changed since dry run {plan_id} (the plan now evaluates as "
                f"{report['plan_id']}) — run the dry run again and review it",
                current_version=report["plan_id"],
            )
        if not result.accepted:
            return report
        changes = [change for item in result.accepted for change in item.changes]
        moves = [list(move) for item in result.accepted for move in item.moves]
        try:
            done = Journal(parts.vault, lock_timeout=timeout).transaction(
                "curate",
                changes,
                meta={"moves": moves, "plan_id": report["plan_id"]},
            )
        except JournalError as exc:
            raise VersionConflictError(str(exc)) from exc
        except OSError as exc:
            raise WriteRefusedError(
                f"could not apply the curation plan: {exc.strerror or exc} — the journal put "
                "every file back"
            ) from exc
        if moves:
            parts.usage.load()
            parts.usage.rename_many([(old, new) for old, new in moves])
        parts.engine.refresh(paths=done["paths"])
    report.update(
        effected=[_effect(item) for item in result.accepted],
        transaction_id=done["transaction_id"],
        state=done["state"],
        paths=done["paths"],
    )
    return report
