"""Subcommands that write or move one note: remember, append, replace, forget, restore,
rezone. Writes are atomic and locked; writes and moves are journaled and undone with
``undo``."""

from __future__ import annotations

from .common import (
    add_command,
    add_json_flag,
    add_note_fields,
    note_fields,
    open_memory,
    read_body,
)
from .output import note, print_json, print_transaction, warn


def _print_write(result: dict, verb: str) -> None:
    print(f"{verb} {result['path']}")
    print(f"key:     {result['key']}")
    print(f"version: {result['version']}")
    if result.get("transaction_id"):
        print(f"undo:    mnemosyne undo {result['transaction_id']}")
    for message in result["warnings"]:
        warn(message)
    for twin in result["near_duplicates"]:
        warn(f"near-duplicate of {twin['path']} (similarity {twin['similarity']})")


def _write(args, mode: str, verb: str) -> int:
    body = read_body(args)
    with open_memory(args) as memory:
        result = memory.write_note(
            args.target,
            body,
            mode=mode,
            zone=args.zone,
            expected_version=getattr(args, "expected_version", None),
            **note_fields(args),
        )
    if args.json:
        print_json(result)
    else:
        _print_write(result, verb)
    return 0


def register_remember(sub):
    p = add_command(
        sub,
        "remember",
        help="create a note (never overwrites)",
        description=(
            "Create a note named after TITLE, in ZONE (a folder; default: the vault root).\n"
            "The text comes from --body or standard input. Refused (exit 3) when a note of\n"
            "that name exists: use append or replace for it."
        ),
        examples=[
            'mnemosyne remember "Kafka retention" --zone ops --body "Topics keep 7 days."',
            'git log -1 --format=%B | mnemosyne remember "Release notes" --source git',
        ],
    )
    p.add_argument("target", metavar="TITLE", help="the note's title (its file name is the slug)")
    p.add_argument("--zone", metavar="ZONE", help="the folder to create it in")
    add_note_fields(p)
    add_json_flag(p)
    p.set_defaults(handler=lambda args: _write(args, "create", "created"))
    return p


def register_append(sub):
    p = add_command(
        sub,
        "append",
        help="add a dated section to a note",
        description=(
            "Append the text (from --body or standard input) to a note as a dated section.\n"
            "Labels and tags given are merged into the note's."
        ),
        examples=['mnemosyne append kafka-retention --body "Raised to 14 days for audit."'],
    )
    p.add_argument("target", metavar="KEY", help="the note: key, path or title")
    p.add_argument("--zone", metavar="ZONE", help="require the note to be in this zone")
    add_note_fields(p)
    add_json_flag(p)
    p.set_defaults(handler=lambda args: _write(args, "append", "appended to"))
    return p


def register_replace(sub):
    p = add_command(
        sub,
        "replace",
        help="replace a note's body, if it has not changed since you read it",
        description=(
            "Replace a note's body with the text (from --body or standard input). Needs\n"
            "the version `mnemosyne show` printed: a note changed since is refused (exit 3)."
        ),
        examples=[
            "mnemosyne show kafka-retention   # note its version",
            "mnemosyne replace kafka-retention --expected-version 3f9a... < new-body.md",
        ],
    )
    p.add_argument("target", metavar="KEY", help="the note: key, path or title")
    p.add_argument(
        "--expected-version",
        required=True,
        metavar="V",
        help="the version from `mnemosyne show` (64 hex digits)",
    )
    p.add_argument("--zone", metavar="ZONE", help="require the note to be in this zone")
    add_note_fields(p)
    add_json_flag(p)
    p.set_defaults(handler=lambda args: _write(args, "replace", "replaced"))
    return p


def register_forget(sub):
    p = add_command(
        sub,
        "forget",
        help="archive a note (preview; --yes to do it)",
        description=(
            "Move a note to _archive/<its path>, out of search. Without --yes only shows\n"
            "what would move. Journaled: `mnemosyne undo` puts it back byte for byte."
        ),
        examples=["mnemosyne forget kafka-retention", "mnemosyne forget kafka-retention --yes"],
    )
    p.add_argument("key", help="the note: key or path")
    p.add_argument("--yes", action="store_true", help="archive it (default: preview only)")
    add_json_flag(p)
    p.set_defaults(handler=run_forget)
    return p


def run_forget(args) -> int:
    with open_memory(args) as memory:
        result = memory.forget(args.key, confirm=args.yes)
    if args.json:
        print_json(result)
        return 0
    if result["mode"] == "preview":
        for move in result["moves"]:
            print(f"would archive {move['from']} -> {move['to']}")
        for message in result["warnings"]:
            warn(message)
        note("nothing changed; run again with --yes to archive it")
        return 0
    print(f"archived {result['previous_path']} -> {result['path']}")
    print_transaction(result)
    return 0


def register_restore(sub):
    p = add_command(
        sub,
        "restore",
        help="bring an archived note back",
        description=(
            "Move an archived note back, byte-exact, to its original path (or to --zone).\n"
            "Journaled. Exit 1 when no archived note has that name."
        ),
        examples=[
            "mnemosyne restore kafka-retention",
            "mnemosyne restore kafka-retention --zone ops",
        ],
    )
    p.add_argument("key", help="the archived note: its original key or path, or its _archive/ path")
    p.add_argument("--zone", metavar="ZONE", help="restore into this zone instead")
    add_json_flag(p)
    p.set_defaults(handler=run_restore)
    return p


def run_restore(args) -> int:
    with open_memory(args) as memory:
        result = memory.restore(args.key, zone=args.zone)
    return _print_move(args, result, "restored")


def register_rezone(sub):
    p = add_command(
        sub,
        "rezone",
        help="move a note to another zone (folder)",
        description=(
            'Move a note to ZONE/<same file name> ("" = the vault root). Journaled;\n'
            "refused (exit 3) when a note is already there."
        ),
        examples=["mnemosyne rezone kafka-retention runbooks/kafka"],
    )
    p.add_argument("key", help="the note: key or path")
    p.add_argument("zone", metavar="ZONE", help="the destination folder")
    add_json_flag(p)
    p.set_defaults(handler=run_rezone)
    return p


def run_rezone(args) -> int:
    with open_memory(args) as memory:
        result = memory.rezone(args.key, args.zone)
    return _print_move(args, result, "moved")


def _print_move(args, result: dict, verb: str) -> int:
    if args.json:
        print_json(result)
        return 0
    print(f"{verb} {result['previous_path']} -> {result['path']}")
    print_transaction(result)
    return 0


REGISTER = (
    register_remember,
    register_append,
    register_replace,
    register_forget,
    register_restore,
    register_rezone,
)
