"""Subcommands for curation: curate, review, capacity."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from .. import curation  # its names are imported when a curation command runs
from ..errors import InvalidInputError
from .common import CommandError, add_command, add_json_flag, open_memory
from .output import note, print_json, print_transaction

PROVIDER_ENV = "MNEMOSYNE_CURATOR"
DEFAULT_PROVIDER = "claude"


def _add_budget_flags(p) -> None:
    for name, env in (
        ("active-notes", "MNEMOSYNE_MAX_ACTIVE_NOTES"),
        ("protected-notes", "MNEMOSYNE_MAX_PROTECTED_NOTES"),
        ("vault-bytes", "MNEMOSYNE_MAX_VAULT_BYTES"),
    ):
        p.add_argument(
            f"--max-{name}",
            type=str,
            default=None,
            metavar="N",
            help=f"budget of {name.replace('-', ' ')} (default: ${env}, else no limit)",
        )


def _budgets(args) -> dict:
    # Checked before the vault is opened: an invalid budget stops the command at once.
    return curation.load_budgets(
        {
            "max_active_notes": args.max_active_notes,
            "max_protected_notes": args.max_protected_notes,
            "max_vault_bytes": args.max_vault_bytes,
        }
    )


def _read_text(source: str, what: str) -> str:
    try:
        return sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read {what} {source}: {exc}") from None


def _read_plan(source: str) -> object:
    text = _read_text(source, "plan")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise InvalidInputError(f"plan {source} is not JSON: {exc}") from None


def register_curate(sub):
    p = add_command(
        sub,
        "curate",
        help="let a model propose a curation plan; the gate checks it (--apply to write)",
        description=(
            "Build a catalog of the vault, ask a model (--provider) for a CurationPlan/1\n"
            "(rezone, link, supersede, archive; never delete) and show what the gate accepts\n"
            "and drops, with a reason for each drop. Nothing is written without --apply; an\n"
            "apply is one journaled transaction (`mnemosyne undo ID` restores every byte).\n"
            "--plan FILE evaluates a plan you already have instead of calling a model; with\n"
            "--apply --plan-id it refuses (exit 3) if the outcome changed since the dry run.\n"
            f"Providers: {', '.join(curation.PROVIDERS)} (default: ${PROVIDER_ENV}, else "
            f"{DEFAULT_PROVIDER})."
        ),
        examples=[
            "mnemosyne curate --provider claude",
            "mnemosyne curate --plan plan.json",
            "mnemosyne curate --plan plan.json --apply --plan-id 1a2b3c4d5e6f7a8b",
        ],
    )
    p.add_argument(
        "--provider", choices=curation.PROVIDERS, help="the model that proposes the plan"
    )
    p.add_argument("--model", metavar="NAME", help="the provider's model name, if it takes one")
    p.add_argument("--plan", metavar="FILE", help="evaluate this plan (JSON; - = stdin)")
    p.add_argument("--apply", action="store_true", help="write the accepted operations")
    p.add_argument("--plan-id", metavar="ID", help="with --apply: the plan id of the dry run")
    add_json_flag(p)
    p.set_defaults(handler=run_curate)
    return p


def run_curate(args) -> int:
    if args.plan is not None and args.provider is not None:
        raise CommandError("give --plan or --provider, not both")
    if args.plan_id is not None and not args.apply:
        raise CommandError("--plan-id goes with --apply")
    with open_memory(args) as memory:
        if args.plan is not None:
            plan = _read_plan(args.plan)
            result = curation.evaluate_plan(memory, plan, apply=args.apply, plan_id=args.plan_id)
        else:
            name = args.provider or os.environ.get(PROVIDER_ENV) or DEFAULT_PROVIDER
            complete = curation.get_completer(name, model=args.model)
            note(f"asking {name} for a curation plan…")
            result = curation.run_curation_pass(memory, complete, apply=args.apply)
    if args.json:
        print_json(result)
        return 0
    if result.get("parse_error"):
        note(f"no plan: {result['parse_error']}")
    for row in result["accepted"]:
        what = row.get("to") or row.get("target_path") or ""
        print(f"accept  #{row['index']} {row['op']:<9} {row['path']} -> {what}")
    for row in result["dropped"]:
        index = "-" if row["index"] is None else f"#{row['index']}"
        print(f"drop    {index} {row['reason']}: {row['detail']}")
    if result["mode"] == "preview":
        print(
            f"plan {result['plan_id']}: {len(result['accepted'])} accepted, "
            f"{len(result['dropped'])} dropped (dry run; nothing changed)"
        )
        return 0
    print_transaction(result)
    return 0


def register_review(sub):
    p = add_command(
        sub,
        "review",
        help="questions about likely duplicates, conflicts and notes to retire",
        description=(
            "List review questions: note pairs that look duplicated, overlapping or\n"
            "conflicting, and (over a capacity budget) protected notes that could be retired.\n"
            "Answer one with --apply ID --answer CHOICE; a merge takes the approved merged\n"
            "text with --body-file. Every change is journaled (`mnemosyne undo ID`)."
        ),
        examples=[
            "mnemosyne review",
            "mnemosyne review --apply 3fa9c1d2e4b5 --answer drop_second",
            "mnemosyne review --apply 3fa9c1d2e4b5 --answer merge --body-file merged.md",
        ],
    )
    p.add_argument("--apply", metavar="ID", help="the question to answer")
    p.add_argument("--answer", metavar="CHOICE", help="the chosen answer (a choice id)")
    p.add_argument("--body-file", metavar="FILE", help="for merge: the approved body (- = stdin)")
    _add_budget_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run_review)
    return p


def run_review(args) -> int:
    budgets = _budgets(args)
    if (args.apply is None) != (args.answer is None):
        raise CommandError("--apply ID and --answer CHOICE go together")
    body = None if args.body_file is None else _read_text(args.body_file, "body file")
    with open_memory(args) as memory:
        if args.apply is not None:
            result = curation.review.apply(
                memory, args.apply, args.answer, body=body, budgets=budgets
            )
        else:
            result = curation.review.questions(memory, budgets=budgets)
    if args.json:
        print_json(result)
        return 0
    if args.apply is not None:
        print_transaction(result)
        return 0
    for question in result["questions"]:
        print(f"{question['id']}  [{question['kind']}] {question['question']}")
        for item in question["notes"]:
            print(f"    {item['path']}")
        print(f"    answers: {', '.join(c['id'] for c in question['choices'])}")
    if not result["questions"]:
        note("no review questions")
        return 1
    return 0


def register_capacity(sub):
    p = add_command(
        sub,
        "capacity",
        help="active notes, protected notes and bytes against their budgets",
        description=(
            "Count active notes, protected notes and note bytes and compare them with the\n"
            "budgets (flags, else environment variables). Over budget it lists the oldest,\n"
            "least-used protected notes as retire candidates; nothing is removed — answer\n"
            "the retire questions of `mnemosyne review`."
        ),
        examples=["mnemosyne capacity", "mnemosyne capacity --max-active-notes 5000"],
    )
    _add_budget_flags(p)
    add_json_flag(p)
    p.set_defaults(handler=run_capacity)
    return p


def run_capacity(args) -> int:
    budgets = _budgets(args)
    with open_memory(args) as memory:
        result = curation.capacity(memory, budgets)
    if args.json:
        print_json(result)
        return 0
    for name in ("active_notes", "protected_notes", "vault_bytes"):
        row = result[name]
        budget = "no limit" if row["budget"] is None else f"budget {row['budget']}"
        flag = "  OVER BUDGET" if row["over"] else ""
        print(f"{name.replace('_', ' ')}: {row['count']} ({budget}){flag}")
    for path in result["retire_candidates"]:
        print(f"retire candidate: {path}")
    return 0


REGISTER = (register_curate, register_review, register_capacity)
