"""Subcommands that maintain the vault as a whole: label, undo, journal, reindex."""

from __future__ import annotations

from ..engine import Mnemosyne
from .common import CommandError, add_command, add_json_flag, open_memory, progress_of
from .output import describe_labels, note, print_json, print_transaction, warn


def register_label(sub):
    p = add_command(
        sub,
        "label",
        help="add, remove or clear labels on notes (preview; --apply to write)",
        description=(
            "Plan a label change for the notes named by --path (default: every note) and\n"
            "print it; nothing is written without --apply. --apply recomputes the plan from\n"
            "the same arguments and writes it as one journaled transaction (undo restores\n"
            "every file byte for byte); with --plan-id it refuses (exit 3) if the plan\n"
            "changed since the preview. --clear-labels with --label replaces the labels."
        ),
        examples=[
            "mnemosyne label --path kafka-retention --label project:atlas",
            "mnemosyne label --path kafka-retention --label project:atlas --apply "
            "--plan-id 1a2b3c4d5e6f7a8b",
            "mnemosyne label --suggest",
        ],
    )
    p.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="KEY",
        help="a note to label: key, path or title (repeatable; default: every note)",
    )
    p.add_argument(
        "--label", action="append", default=[], metavar="NS:VALUE", help="add this label"
    )
    p.add_argument(
        "--remove",
        action="append",
        default=[],
        metavar="NS:VALUE",
        help="remove this label (value compared without case)",
    )
    p.add_argument(
        "--clear-labels", action="store_true", help="start from no labels (then add --label)"
    )
    p.add_argument("--suggest", action="store_true", help="add the suggested labels")
    p.add_argument("--apply", action="store_true", help="write the change (default: preview)")
    p.add_argument("--plan-id", metavar="ID", help="with --apply: the plan id the preview printed")
    add_json_flag(p)
    p.set_defaults(handler=run_label)
    return p


def run_label(args) -> int:
    options = {
        "add": args.label or None,
        "remove": args.remove or None,
        "clear": args.clear_labels,
        "suggest": args.suggest,
    }
    with open_memory(args) as memory:
        paths = args.path or memory.engine.note_paths()
        if args.apply:
            result = memory.label_apply(args.plan_id, paths, **options)
        else:
            result = memory.label_preview(paths, **options)
    if args.json:
        print_json(result)
        return 0
    for change in result["changes"]:
        before, after = describe_labels(change["before"]), describe_labels(change["after"])
        print(f"{change['path']}: {before} -> {after}")
    for message in result["warnings"]:
        warn(message)
    count = len(result["changes"])
    summary = (
        f"{count} note{'' if count == 1 else 's'} to change, {len(result['unchanged'])} unchanged"
    )
    if result["mode"] == "preview":
        print(f"plan {result['plan_id']}: {summary}")
        if count:
            note(
                f"nothing changed; run the same command with --apply --plan-id {result['plan_id']}"
            )
        return 0
    print_transaction(result)
    return 0


def register_undo(sub):
    p = add_command(
        sub,
        "undo",
        help="put back the exact bytes of a journaled change",
        description=(
            "Undo a journaled change (remember, append, replace, edit, move, forget,\n"
            "restore, rezone, label, init, imports): every file goes back byte for byte.\n"
            "Refused (exit 3) when a file changed since. --last undoes the newest change\n"
            "that can still be undone, --kind write (or move, or an operation name) the\n"
            "newest of that kind; both name what they undo. --dry-run only says what would\n"
            "be undone."
        ),
        examples=[
            "mnemosyne undo 20260302T101530Z-4f2a9c",
            "mnemosyne undo --last --dry-run",
            "mnemosyne undo --last --kind write",
        ],
    )
    p.add_argument(
        "transaction_id",
        nargs="?",
        metavar="TRANSACTION_ID",
        help="the id printed by the change (see `mnemosyne journal`)",
    )
    p.add_argument("--last", action="store_true", help="undo the newest committed change")
    p.add_argument(
        "--kind",
        metavar="KIND",
        help="with --last: only a change of this kind (write = remember/append/replace/edit, "
        "move = forget/restore/rezone/move, or an operation name such as label)",
    )
    p.add_argument(
        "--dry-run", action="store_true", help="only say what would be undone; change nothing"
    )
    add_json_flag(p)
    p.set_defaults(handler=run_undo)
    return p


def run_undo(args) -> int:
    last = args.last or (args.kind is not None and args.transaction_id is None)
    if (args.transaction_id is None) == (not last):
        raise CommandError(
            "give a TRANSACTION_ID or --last, not both or neither — "
            "`mnemosyne journal` lists the ids"
        )
    with open_memory(args) as memory:
        result = memory.undo(
            args.transaction_id, last=last, kind=args.kind, confirm=not args.dry_run
        )
    if args.json:
        print_json(result)
        return 0
    if result["mode"] == "preview":
        print(f"would undo {result['transaction_id']}: {result['description']}")
        for path in result["changed_since"]:
            warn(f"{path} changed since: the undo would be refused")
        return 0 if result["undoable"] else 3
    print(f"undid {result['transaction_id']}: {result['description']}")
    for path in result["paths"]:
        print(f"  {path}")
    return 0


def register_journal(sub):
    p = add_command(
        sub,
        "journal",
        help="list recent journaled changes, newest first",
        description="List recent journaled changes, newest first, with their state and files.",
        examples=["mnemosyne journal --limit 5"],
    )
    p.add_argument(
        "--limit", type=int, default=20, metavar="N", help="at most N changes (default 20)"
    )
    add_json_flag(p)
    p.set_defaults(handler=run_journal)
    return p


def run_journal(args) -> int:
    with open_memory(args) as memory:
        result = memory.journal(args.limit)
    if args.json:
        print_json(result)
        return 0
    for row in result["transactions"]:
        created = (row["created"] or "-")[:19]
        operation = row["operation"] or "?"
        print(
            f"{row['transaction_id']}  {row['state']:<11} {operation:<9} {created}  "
            f"{', '.join(row['paths'])}"
        )
    if not result["transactions"]:
        note("no journaled changes yet")
    return 0


def register_reindex(sub):
    p = add_command(
        sub,
        "reindex",
        help="bring the search index up to date (--full rebuilds it)",
        description=(
            "Re-read changed notes (or all of them with --full). Shows progress on stderr\n"
            "once it takes a while (-v: from the start, -q: never). The index is derived:\n"
            "rebuilding it loses nothing."
        ),
        examples=["mnemosyne reindex", "mnemosyne reindex --full"],
    )
    p.add_argument("--full", action="store_true", help="rebuild from scratch")
    add_json_flag(p)
    p.set_defaults(handler=run_reindex)
    return p


def run_reindex(args) -> int:
    with Mnemosyne(args.vault, on_progress=progress_of(args)) as engine:
        result = engine.refresh(full=args.full)
        for warning in engine.warnings:
            warn(warning)
    if args.json:
        print_json(result)
    else:
        print(
            f"indexed {result['notes']} notes in {result['seconds']} s "
            f"(+{result['added']} ~{result['changed']} -{result['deleted']})"
        )
    return 0


REGISTER = (register_label, register_undo, register_journal, register_reindex)
