"""Onboarding subcommands: init, import-chatgpt, import-obsidian.

Each previews by default and writes only with ``--apply``, which recomputes the plan from
the same arguments (``--plan-id`` refuses if it differs from the preview) and runs it
through the journal, so ``mnemosyne undo`` reverses it byte for byte. ``init`` is the only
command that may create the vault folder.
"""

from __future__ import annotations

from .common import add_command, add_json_flag, expand, progress_of
from .output import note, print_json, print_transaction, warn


def _add_apply_flags(parser, what: str) -> None:
    parser.add_argument("--apply", action="store_true", help=f"{what} (default: preview only)")
    parser.add_argument(
        "--plan-id", metavar="ID", help="with --apply: refuse unless the plan is still this one"
    )
    add_json_flag(parser)


def _describe(change: dict) -> str:
    """One line for one planned change: ``create imports/x.md (from x.txt): detail``."""
    line = f"{change.get('action', 'change')} {change.get('path', '?')}"
    if change.get("source"):
        line += f" (from {change['source']})"
    return line + (f": {change['detail']}" if change.get("detail") else "")


def _print_plan(result: dict) -> None:
    changes = result.get("changes") or []
    summary = result.get("summary") or {}
    print(f"{result.get('operation', 'plan')} plan for {result.get('vault')}:")
    if summary.get("create_vault"):
        print(f"  create the vault folder {result.get('vault')}")
    for change in changes:
        print(f"  {_describe(change)}")
    for pair in result.get("duplicates") or []:
        print(f"  similar (left as they are): {pair['a']} ~ {pair['b']} ({pair['similarity']})")
    for refused in result.get("refused") or []:
        target = f" -> {refused['target']}" if refused.get("target") else ""
        warn(f"refused {refused.get('source')}{target}: {refused.get('reason')}")
    for message in result.get("warnings") or []:
        warn(message)
    counts = [f"{k.replace('_', ' ')} {v}" for k, v in summary.items() if not isinstance(v, bool)]
    if counts:
        print(f"summary: {', '.join(counts)}")
    if not changes and not summary.get("create_vault"):
        print(f"plan {result.get('plan_id')}: nothing to change")
        return
    print(f"plan {result.get('plan_id')}: {len(changes)} change{'' if len(changes) == 1 else 's'}")
    note(
        "nothing written yet; run the same command with --apply to do it "
        "(and --plan-id with the id above to refuse if anything changed since)"
    )


def _print_applied(result: dict) -> None:
    if result.get("created_vault"):
        print(f"created the vault folder {result.get('vault')}")
    if result.get("transaction_id") is None:
        if not result.get("created_vault"):
            print("nothing to change: the vault already matches the plan")
        return
    paths = result.get("paths") or []
    print(f"{result.get('operation', 'plan')} applied: {len(paths)} file(s) written")
    for path in paths:
        print(f"  {path}")
    print_transaction(result)


def _finish(args, result: dict) -> int:
    if args.json:
        print_json(result)
    elif result.get("mode") == "preview":
        _print_plan(result)
    else:
        _print_applied(result)
    return 0


def register_init(sub):
    p = add_command(
        sub,
        "init",
        help="set up a vault, or adopt a folder of existing notes (preview; --apply)",
        description=(
            "First-run onboarding: plan what setting up the vault would change (the vault\n"
            "folder, frontmatter added to existing notes, notes imported from --import) and\n"
            "print it. --apply carries out that plan through the journal and prints the\n"
            "transaction id that undoes it. Running it again on an unchanged vault does\n"
            "nothing. The only command that creates the vault folder."
        ),
        examples=[
            "mnemosyne --vault ~/notes init",
            "mnemosyne --vault ~/notes init --apply",
            "mnemosyne init --import ~/Documents/old-notes --apply",
        ],
    )
    p.add_argument("--import", dest="import_dir", metavar="DIR", help="also import this folder")
    _add_apply_flags(p, "carry out the plan")
    p.set_defaults(handler=run_init)
    return p


def run_init(args) -> int:
    from .. import onboarding  # imported on use: the other commands never need it

    import_dir = None if args.import_dir is None else expand(args.import_dir)
    progress = progress_of(args)
    if args.apply:
        result = onboarding.apply_init(
            args.vault, plan_id=args.plan_id, import_dir=import_dir, on_progress=progress
        )
    else:
        result = onboarding.plan_init(args.vault, import_dir=import_dir, on_progress=progress)
    return _finish(args, result)


def _register_import(sub, name: str, *, help: str, source_help: str, description: str, examples):
    p = add_command(
        sub,
        name,
        help=help,
        description=description,
        examples=examples,
    )
    p.add_argument("source", metavar="SOURCE", help=source_help)
    p.add_argument("--zone", metavar="ZONE", help="the folder the notes go to")
    _add_apply_flags(p, "import the notes")
    return p


def register_import_chatgpt(sub):
    p = _register_import(
        sub,
        "import-chatgpt",
        help="import ChatGPT conversations as notes (preview; --apply)",
        source_help="a ChatGPT data export: the .zip, or its conversations.json",
        description=(
            "Import ChatGPT conversations as notes.\n"
            "Previews by default; --apply writes them (into imports/chatgpt unless --zone)\n"
            "as one journaled transaction. Importing the same export again adds nothing."
        ),
        examples=[
            "mnemosyne import-chatgpt ~/Downloads/chatgpt-export.zip",
            "mnemosyne import-chatgpt conversations.json --apply",
        ],
    )
    p.set_defaults(handler=lambda args: _run_import(args, "chatgpt"))
    return p


def register_import_obsidian(sub):
    p = _register_import(
        sub,
        "import-obsidian",
        help="import the notes of an Obsidian vault (preview; --apply)",
        source_help="the Obsidian vault folder",
        description=(
            "Import the notes of an Obsidian vault.\n"
            "Previews by default; --apply copies them (into imports/obsidian unless --zone)\n"
            "as one journaled transaction. The Obsidian vault itself is never changed."
        ),
        examples=[
            "mnemosyne import-obsidian ~/Obsidian/Work",
            "mnemosyne import-obsidian ~/Obsidian/Work --zone work --apply",
        ],
    )
    p.set_defaults(handler=lambda args: _run_import(args, "obsidian"))
    return p


def _run_import(args, kind: str) -> int:
    from .. import importers  # imported on use: the other commands never need it

    plan, apply = {
        "chatgpt": (importers.plan_chatgpt_import, importers.apply_chatgpt_import),
        "obsidian": (importers.plan_obsidian_import, importers.apply_obsidian_import),
    }[kind]
    source = expand(args.source)
    options = {} if args.zone is None else {"zone": args.zone}
    options["on_progress"] = progress_of(args)
    if args.apply:
        result = apply(args.vault, source, plan_id=args.plan_id, **options)
    else:
        result = plan(args.vault, source, **options)
    return _finish(args, result)


REGISTER = (register_init, register_import_chatgpt, register_import_obsidian)
