"""``mnemosyne hook EVENT``: one Claude Code lifecycle hook (``claude.hooks``).

Reads the event's JSON on stdin, prints the hook output JSON on stdout (or nothing),
and exits 0 whatever happens: a hook that fails must not stop the session (Claude Code
treats exit 2 as "block").
"""

from __future__ import annotations

import json
import sys

from .common import add_command


def _hook(args) -> int:
    from ..claude.hooks import MAX_PAYLOAD_BYTES, run_hook

    raw = sys.stdin.buffer.read(MAX_PAYLOAD_BYTES + 1)
    result = run_hook(
        args.event,
        raw,
        vault=args.vault,
        budget_tokens=args.budget_tokens,
        time_budget=args.time_budget,
        min_confidence=args.min_confidence,
    )
    if result.output is not None:
        sys.stdout.write(json.dumps(result.output, ensure_ascii=False) + "\n")
    if result.note and (result.output is None or args.verbose):
        print(f"mnemosyne hook {args.event}: {result.note}", file=sys.stderr)
    return 0


def _count(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 0 else None


def _seconds(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 else None


def register(sub):
    p = add_command(
        sub,
        "hook",
        help="run one Claude Code hook (stdin: the event's JSON; always exits 0)",
        description=(
            "Run one Claude Code lifecycle hook: read the event's JSON on stdin, print the\n"
            "hook's JSON output on stdout (nothing when there is nothing to inject), exit 0\n"
            "whatever happens. EVENT: SessionStart, UserPromptSubmit, PreToolUse,\n"
            "PostToolUse, PostToolUseFailure, PreCompact or SessionEnd. `mnemosyne claude\n"
            "install` registers these; see docs/how-to/claude-code.md."
        ),
        examples=[
            "mnemosyne --vault ~/notes hook SessionStart < payload.json",
            'echo \'{"prompt": "restore the database"}\' | mnemosyne hook UserPromptSubmit',
        ],
    )
    p.add_argument("event", metavar="EVENT", help="the hook event, as Claude Code names it")
    # Lenient on purpose: a bad value falls back to the default instead of exiting 2.
    p.add_argument(
        "--budget-tokens",
        type=_count,
        default=None,
        metavar="N",
        help="most estimated tokens to inject (default: per event, e.g. 600 for a prompt)",
    )
    p.add_argument(
        "--time-budget",
        type=_seconds,
        default=None,
        metavar="S",
        help="seconds before the hook gives up and injects nothing (default: per event)",
    )
    p.add_argument(
        "--min-confidence",
        default="high",
        metavar="LEVEL",
        help="least search confidence that is injected: high (default), medium or low",
    )
    p.set_defaults(handler=_hook)
    return p


REGISTER = (register,)
