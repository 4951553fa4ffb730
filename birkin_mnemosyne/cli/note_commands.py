"""Subcommands that write or move one note: remember, append, replace, edit, forget,
restore, rezone, move. Writes are atomic and locked; writes and moves are journaled and
undone with ``undo``."""

from __future__ import annotations

from ..memory import EDIT_OPERATIONS
from .common import (
    add_command,
    add_json_flag,
    add_note_fields,
    note_fields,
    open_memory,
    read_body,
)
from .output import note, print_json, print_transaction, warn

# The command line spells operations with '-' (find-replace); the library with '_'.
_EDIT_CHOICES = tuple(operation.replace("_", "-") for operation in EDIT_OPERATIONS)


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


def register_edit(sub):
    p = add_command(
        sub,
        "edit",
        help="change part of a note: prepend, find-replace, or replace one section",
        description=(
            "Change part of a note; the new text comes from --body or standard input.\n"
            "  prepend          put the text first, right after the frontmatter\n"
            "  find-replace     replace --find TEXT (exact, line breaks included) by the text;\n"
            "                   refused (exit 2) unless it occurs --expected-count times\n"
            "  replace-section  replace what is under heading --section (case-insensitive;\n"
            '                   "## Notes" picks a level); needs --expected-version\n'
            "  append, replace  as the append and replace commands\n"
            "Journaled like every write: `mnemosyne undo` puts the exact bytes back. A note\n"
            "changed since --expected-version is refused (exit 3)."
        ),
        examples=[
            'mnemosyne edit kafka-retention prepend --body "Superseded: see kafka-2026."',
            'mnemosyne edit kafka-retention find-replace --find "7 days" --body "14 days"',
            "mnemosyne edit runbook replace-section --section Verify --expected-version 3f9a... "
            "< verify.md",
        ],
    )
    p.add_argument("target", metavar="KEY", help="the note: key, path or title")
    p.add_argument(
        "operation",
        choices=_EDIT_CHOICES,
        type=lambda text: text.replace("_", "-"),
        metavar="OPERATION",
        help=", ".join(_EDIT_CHOICES[:-1]) + " or " + _EDIT_CHOICES[-1],
    )
    p.add_argument("--body", metavar="TEXT", help="the new text (default: read from stdin)")
    p.add_argument("--find", metavar="TEXT", help="find-replace: the exact text to replace")
    p.add_argument(
        "--expected-count",
        type=int,
        default=1,
        metavar="N",
        help="find-replace: how many times --find must occur (default 1)",
    )
    p.add_argument("--section", metavar="HEADING", help="replace-section: the section's heading")
    p.add_argument(
        "--expected-version",
        metavar="V",
        help="the version from `mnemosyne show`; the edit is refused if the note changed",
    )
    p.add_argument(
        "--source",
        action="append",
        metavar="WHERE",
        help="where this came from: a URL, a file, a conversation id (repeatable)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_edit)
    return p


def run_edit(args) -> int:
    body = read_body(args)
    with open_memory(args) as memory:
        result = memory.edit_note(
            args.target,
            args.operation.replace("-", "_"),
            body,
            find=args.find,
            section=args.section,
            expected_count=args.expected_count,
            expected_version=args.expected_version,
            source=args.source,
        )
    if args.json:
        print_json(result)
    else:
        _print_write(result, f"edited ({args.operation})")
    return 0


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
    p.add_argument("key", metavar="KEY", help="the note: key, path or title")
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
    p.add_argument(
        "key",
        metavar="KEY",
        help="the archived note: its original key, path or title, or its _archive/ path",
    )
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
    p.add_argument("key", metavar="KEY", help="the note: key, path or title")
    p.add_argument("zone", metavar="ZONE", help="the destination folder")
    add_json_flag(p)
    p.set_defaults(handler=run_rezone)
    return p


def run_rezone(args) -> int:
    with open_memory(args) as memory:
        result = memory.rezone(args.key, args.zone)
    return _print_move(args, result, "moved")


def register_move(sub):
    p = add_command(
        sub,
        "move",
        help="move or rename a note, rewriting the links to it (preview; --yes to do it)",
        description=(
            "Move a note to DEST (a vault-relative path, .md optional; ending in / keeps\n"
            "the file name) and/or give it a new --title (without DEST, the file is renamed\n"
            "after it in the same folder). Every [[wikilink]] the move would break is\n"
            "rewritten to name the note at its new place. Without --yes only prints the\n"
            "plan: each file and link that would change. Journaled as one change: `mnemosyne\n"
            "undo` restores every file byte for byte. Refused (exit 3) when DEST exists;\n"
            "exit 2 for a path outside the vault or in a hidden or reserved folder."
        ),
        examples=[
            "mnemosyne move kafka-retention runbooks/kafka/retention",
            "mnemosyne move kafka-retention --title 'Kafka topic retention' --yes",
        ],
    )
    p.add_argument("key", metavar="KEY", help="the note: key, path or title")
    p.add_argument("dest", metavar="DEST", nargs="?", help="the new path")
    p.add_argument("--title", metavar="TITLE", help="the note's new title")
    p.add_argument("--yes", action="store_true", help="move it (default: preview only)")
    p.add_argument(
        "--plan-id",
        metavar="ID",
        help="with --yes: refuse (exit 3) unless the plan is still the one previewed",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_move)
    return p


def run_move(args) -> int:
    with open_memory(args) as memory:
        result = memory.move(
            args.key, args.dest, title=args.title, confirm=args.yes, plan_id=args.plan_id
        )
    if args.json:
        print_json(result)
        return 0
    preview = result["mode"] == "preview"
    for move in result["moves"]:
        print(f"{'would move' if preview else 'moved'} {move['from']} -> {move['to']}")
    if result["title"] is not None:
        print(f"{'would set' if preview else 'set'} title: {result['title']}")
    links = sum(len(change["links"]) for change in result["changes"])
    if links:
        verb = "would rewrite" if preview else "rewrote"
        notes = len(result["changes"])
        print(f"{verb} {links} link{'s' if links > 1 else ''} in {notes} note{'s' * (notes > 1)}:")
        for change in result["changes"]:
            for link in change["links"]:
                print(f"  {change['path']}:{link['line']}  {link['from']} -> {link['to']}")
    for message in result["warnings"]:
        warn(message)
    if preview:
        print(f"plan: {result['plan_id']}")
        note(f"nothing changed; run again with --yes --plan-id {result['plan_id']} to apply it")
    else:
        print_transaction(result)
    return 0


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
    register_edit,
    register_forget,
    register_restore,
    register_rezone,
    register_move,
)
