"""``mnemosyne capture TRANSCRIPT``: a Claude Code session into a journal note
(``claude.capture``)."""

from __future__ import annotations

from .common import add_command, add_json_flag, expand, open_memory
from .output import print_json

_SAID = {
    "created": "captured",
    "updated": "captured the new exchanges into",
    "unchanged": "already captured:",
}


def _capture(args) -> int:
    from ..claude.capture import capture_transcript

    with open_memory(args) as memory:
        result = capture_transcript(memory, expand(args.transcript), zone=args.zone)
    if args.json:
        print_json(result)
        return 0
    exchanges = result["exchanges"]
    print(
        f"{_SAID[result['state']]} {result['path']} ({exchanges} exchange"
        f"{'' if exchanges == 1 else 's'}, session {result['session_id'] or '?'})"
    )
    if result["transaction_id"]:
        print(f"undo: mnemosyne undo {result['transaction_id']}")
    if result["secrets_redacted"]:
        print(f"redacted {result['secrets_redacted']} secret(s) before writing")
    if result["skipped_lines"]:
        print(f"passed over {result['skipped_lines']} line(s) that were not JSON")
    for warning in result["warnings"]:
        print(f"warning: {warning}")
    return 0


def register(sub):
    p = add_command(
        sub,
        "capture",
        help="capture a Claude Code session transcript into a journal note",
        description=(
            "Turn a Claude Code transcript (the JSONL under ~/.claude/projects/) into one dated\n"
            "journal note, one section per exchange: the request, what the assistant said,\n"
            "the tools it called and the calls that failed. Text between <private> and\n"
            "</private> is left out and secrets are redacted before anything is written.\n"
            "Capturing the same session again adds what is new (nothing when nothing is);\n"
            "a captured note edited since is left as it is (exit 3)."
        ),
        examples=[
            "mnemosyne capture ~/.claude/projects/-home-me-src-api/0b9e4c2a.jsonl",
            "mnemosyne capture session.jsonl --zone journal/claude --json",
        ],
    )
    p.add_argument("transcript", metavar="TRANSCRIPT", help="the session's .jsonl file")
    p.add_argument(
        "--zone", default="journal", metavar="ZONE", help="the folder (default: journal)"
    )
    add_json_flag(p)
    p.set_defaults(handler=_capture)
    return p


REGISTER = (register,)
