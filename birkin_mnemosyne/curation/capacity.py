"""Capacity budgets: how many active notes, protected notes and bytes a vault should hold.

| budget | env var | meaning |
|---|---|---|
| ``max_active_notes`` | ``MNEMOSYNE_MAX_ACTIVE_NOTES`` | live (not archived) notes |
| ``max_protected_notes`` | ``MNEMOSYNE_MAX_PROTECTED_NOTES`` | notes the curation gate protects |
| ``max_vault_bytes`` | ``MNEMOSYNE_MAX_VAULT_BYTES`` | bytes of every note, archived ones included |

A budget is a whole number >= 1; unset means no limit. Explicit values (CLI flags, MCP
server options) win over the environment. An invalid value raises ``ConfigError`` —
the CLI and the MCP server read budgets at start-up, so a typo stops them at once.

Over budget, ``capacity()`` says so and lists *retire candidates*: the oldest,
least-used protected notes. Nothing is removed automatically; the review questions
ask the user about each candidate.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping

from ..errors import ConfigError
from .snapshot import Snapshot, open_parts, take_snapshot

__all__ = ["BUDGET_ENV", "capacity", "load_budgets", "retire_candidates"]

BUDGET_ENV = {
    "max_active_notes": "MNEMOSYNE_MAX_ACTIVE_NOTES",
    "max_protected_notes": "MNEMOSYNE_MAX_PROTECTED_NOTES",
    "max_vault_bytes": "MNEMOSYNE_MAX_VAULT_BYTES",
}
# When only the note or byte budget is exceeded, ask about at most this many protected
# notes at a time (the unprotected ones are curation's job).
RETIRE_QUESTIONS = 5


def _parse(name: str, raw: object, source: str) -> int | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool):
        value = None
    elif isinstance(raw, int):
        value = raw
    elif isinstance(raw, str) and raw.strip().isdigit():
        value = int(raw.strip())
    else:
        value = None
    if value is None or value < 1:
        raise ConfigError(
            f"{source}: budget {name} must be a whole number >= 1, got {raw!r} — fix it or "
            "leave it unset for no limit"
        )
    return value


def load_budgets(
    overrides: Mapping[str, object] | None = None, env: Mapping[str, str] | None = None
) -> dict[str, int | None]:
    """The budgets in force: ``overrides`` (non-None values) over the environment."""
    environ = os.environ if env is None else env
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(BUDGET_ENV))
    if unknown:
        raise ConfigError(
            f"unknown budget(s) {', '.join(unknown)} — valid: {', '.join(BUDGET_ENV)}",
            valid_choices=BUDGET_ENV,
        )
    budgets: dict[str, int | None] = {}
    for name, var in BUDGET_ENV.items():
        if overrides.get(name) is not None:
            budgets[name] = _parse(name, overrides[name], "option")
        else:
            budgets[name] = _parse(name, environ.get(var), f"environment variable {var}")
    return budgets


def _vault_bytes(parts) -> int:
    total = 0
    for path in parts.engine.note_paths(include_archive=True):
        try:
            total += (parts.vault / path).stat().st_size
        except OSError:
            continue
    return total


def retire_candidates(snapshot: Snapshot, count: int) -> list[str]:
    """The ``count`` oldest, least-used protected notes (lowest activation, then oldest)."""
    protected = [n for n in snapshot.notes.values() if n.protected]
    protected.sort(key=lambda n: (n.activation, n.touched, n.path))
    return [n.path for n in protected[: max(0, count)]]


def capacity_of(parts, snapshot: Snapshot, budgets: Mapping[str, int | None]) -> dict:
    counts = {
        "max_active_notes": len(snapshot.notes),
        "max_protected_notes": sum(1 for n in snapshot.notes.values() if n.protected),
        "max_vault_bytes": _vault_bytes(parts),
    }
    rows = {}
    over = []
    for name, count in counts.items():
        budget = budgets.get(name)
        is_over = budget is not None and count > budget
        if is_over:
            over.append(name)
        rows[name.removeprefix("max_")] = {"count": count, "budget": budget, "over": is_over}
    if "max_protected_notes" in over:
        retire = counts["max_protected_notes"] - budgets["max_protected_notes"]
    elif over:
        retire = RETIRE_QUESTIONS
    else:
        retire = 0
    return {
        **rows,
        "over_budget": over,
        "retire_candidates": retire_candidates(snapshot, retire),
    }


def capacity(
    vault,
    budgets: Mapping[str, object] | None = None,
    *,
    now: float | None = None,
    clock: Callable[[], float] = time.time,
) -> dict:
    """Counts against budgets: ``active_notes``, ``protected_notes``, ``vault_bytes``
    (each ``{"count", "budget", "over"}``), ``over_budget`` and ``retire_candidates``."""
    resolved = load_budgets(budgets)
    parts = open_parts(vault)
    snapshot = take_snapshot(parts, clock() if now is None else now)
    return capacity_of(parts, snapshot, resolved)
