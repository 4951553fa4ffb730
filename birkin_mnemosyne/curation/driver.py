"""One curation pass: catalog, prompt, model, plan, gate (and apply if asked).

``run_curation_pass(vault, complete)`` builds the mechanical catalog, renders the curator
prompt, calls ``complete(prompt) -> str`` once, extracts the plan from the reply (a
fenced or bare JSON object; anything else becomes an empty plan) and hands it to
``evaluate_plan``. The model never touches a file.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from .catalog import build_catalog
from .contract import extract_plan
from .executor import evaluate_plan
from .prompt import render_prompt
from .snapshot import Snapshot, open_parts, take_snapshot

__all__ = ["MAX_REPLY_CHARS", "curation_catalog", "run_curation_pass"]

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


def run_curation_pass(
    vault,
    complete: Callable[[str], str],
    *,
    apply: bool = False,
    now: float | None = None,
    clock: Callable[[], float] = time.time,
) -> dict:
    """Ask ``complete`` for a plan and evaluate it (dry run unless ``apply``).

    The result is ``evaluate_plan``'s, plus ``catalog`` counts and ``parse_error`` (why
    the reply held no plan, or None).
    """
    when = clock() if now is None else now
    catalog = curation_catalog(vault, now=when)
    reply = complete(render_prompt(catalog))
    plan, problem = extract_plan(reply[:MAX_REPLY_CHARS] if isinstance(reply, str) else reply)
    result = evaluate_plan(vault, plan, apply=apply, now=when)
    result["parse_error"] = problem
    result["catalog"] = {
        "active_notes": catalog["active_notes"],
        "stale": len(catalog["stale"]),
        "duplicates": len(catalog["duplicates"]),
    }
    return result
