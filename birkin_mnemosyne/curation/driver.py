"""One curation pass: catalog, prompt, model, plan, gate (and apply if asked).

``run_curation_pass(vault, complete)`` builds the mechanical catalog, renders the curator
prompt, calls ``complete(prompt) -> str`` once, extracts the plan from the reply (a
fenced or bare JSON object; anything else becomes an empty plan) and hands it to
``evaluate_plan``. The model never touches a file.

``vault`` is a folder, a ``VaultMemory`` or a ``Mnemosyne`` everywhere here.
``mechanical_catalog(vault, now=None)`` is ``curation_catalog`` under birkin-mnemosyne
0.7.2's name and arguments (``now`` may be a ``datetime``).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable

from ..errors import InvalidInputError
from .catalog import build_catalog
from .contract import extract_plan
from .executor import evaluate_plan
from .prompt import build_plan_prompt
from .snapshot import Snapshot, open_parts, take_snapshot

__all__ = ["MAX_REPLY_CHARS", "curation_catalog", "mechanical_catalog", "run_curation_pass"]

# A reply longer than this is cut before the plan is looked for in it.
MAX_REPLY_CHARS = 1_000_000


def _stale_paths(parts, snapshot: Snapshot) -> list[str]:
    pairs = sorted((path, info.touched) for path, info in snapshot.notes.items())
    return parts.usage.stale(pairs, snapshot.now)


def curation_catalog(
    vault, *, now: float | None = None, clock: Callable[[], float] = time.time
) -> dict:
    """The catalog a curator reads (also the MCP tool ``memory_curation_catalog``)."""
    parts = open_parts(vault)
    snapshot = take_snapshot(parts, clock() if now is None else now)
    return build_catalog(snapshot, _stale_paths(parts, snapshot))


def mechanical_catalog(vault, now: dt.datetime | float | None = None) -> dict:
    """The catalog a curator reads, built without a model (``curation_catalog``).

    ``now`` is a timezone-aware ``datetime`` (a naive one is taken as UTC), unix seconds,
    or None for the current time; it decides which notes count as stale.
    """
    if now is None or (isinstance(now, (int, float)) and not isinstance(now, bool)):
        return curation_catalog(vault, now=now)
    if isinstance(now, dt.datetime):
        when = now if now.tzinfo is not None else now.replace(tzinfo=dt.timezone.utc)
        return curation_catalog(vault, now=when.timestamp())
    raise InvalidInputError(
        f"now must be a datetime or unix seconds, got {type(now).__name__} — e.g. "
        "datetime.now(timezone.utc)"
    )


def run_curation_pass(
    vault,
    complete: Callable[[str], str],
    *,
    apply: bool = False,
    untrusted: str = "",
    now: float | None = None,
    clock: Callable[[], float] = time.time,
) -> dict:
    """Ask ``complete`` for a plan and evaluate it (dry run unless ``apply``).

    ``untrusted`` is captured text the curator may read as evidence (session logs); it
    goes into the prompt as data (``build_plan_prompt``). The result is
    ``evaluate_plan``'s, plus ``catalog`` counts and ``parse_error`` (why the reply held
    no plan, or None).
    """
    when = clock() if now is None else now
    catalog = curation_catalog(vault, now=when)
    reply = complete(build_plan_prompt(catalog, untrusted))
    plan, problem = extract_plan(reply[:MAX_REPLY_CHARS] if isinstance(reply, str) else reply)
    result = evaluate_plan(vault, plan, apply=apply, now=when)
    result["parse_error"] = problem
    result["catalog"] = {
        "active_notes": catalog["active_notes"],
        "stale": len(catalog["stale"]),
        "duplicates": len(catalog["duplicates"]),
    }
    return result
