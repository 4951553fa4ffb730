"""Session memory: ``mnemosyne index ...``, ``mnemosyne startup``, ``mnemosyne handoff ...``.

Each action is one call on ``MemoryIndex``, ``StartupReader`` or ``HandoffStore``.
Handoff scopes default to ``$MNEMOSYNE_PROJECT_KEY`` / ``$MNEMOSYNE_TASK_KEY``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from ..change_plans import require_vault
from ..errors import InvalidInputError
from ..handoffs import FIELD_NAMES, HandoffScope, HandoffStore, render_record
from ..memory_index import MemoryIndex
from ..startup import StartupReader
from .common import CommandError, add_command, add_json_flag
from .output import note, print_json, print_transaction, warn

# -- helpers ------------------------------------------------------------------------------


def _emit(args, result: dict, human) -> int:
    if args.json:
        print_json(result)
    else:
        human(result)
    for message in result.get("warnings", []) if isinstance(result, dict) else []:
        if not args.json:
            warn(message)
    return 0


def _print_plan(result: dict) -> None:
    print(f"{result['mode']}: {result['operation']} ({len(result['changes'])} file changes)")
    for row in result["changes"]:
        print(f"  {row['action']:<8} {row['path']}")
    if result["mode"] == "preview":
        print(f"plan id: {result['plan_id']}")
        if result["changes"]:
            note("apply with --apply --plan-id PLAN_ID")
    else:
        print_transaction(result)


def _actions(p, dest: str):
    actions = p.add_subparsers(dest=dest, metavar="ACTION")

    def missing(args) -> int:
        raise CommandError(f"choose an action — see `mnemosyne {p.prog.split()[-1]} --help`")

    p.set_defaults(handler=missing)
    return actions


def _sub(actions, name: str, help: str, example: str):
    p = add_command(actions, name, help=help, description=help + ".", examples=[example])
    # --vault is accepted after the action too; SUPPRESS keeps the global value.
    p.add_argument("--vault", metavar="PATH", default=argparse.SUPPRESS, help="the vault")
    return p


def _plan_flags(p) -> None:
    p.add_argument("--apply", action="store_true", help="write it (default: preview only)")
    p.add_argument("--plan-id", metavar="ID", help="the plan id the preview printed")
    add_json_flag(p)


def _index(args) -> MemoryIndex:
    return MemoryIndex(require_vault(args.vault))


# -- mnemosyne index ----------------------------------------------------------------------


def register_index(sub):
    p = add_command(
        sub,
        "index",
        help="the always-loaded memory INDEX: when to read which note",
        description=(
            "The memory INDEX (opt-in: .mnemosyne/memory-index/). Actions:\n"
            "  register TRIGGER PATH    add a route (idempotent)\n"
            "  read [--topic T]         the resident text (a topic map when over budget)\n"
            "  open TRIGGER             the complete notes of an exact trigger, else search\n"
            "  check                    orphans, dangling routes, coverage (writes nothing)\n"
            "  split PATH [--apply]     split a long note into routed topic notes\n"
            "  import [--apply]         routes from a MEMORY.md (Claude Code auto-memory)\n"
            "Sizes are estimated tokens (UTF-8 bytes / 4). Each action takes --json."
        ),
        examples=[
            'mnemosyne index register "restoring the database" runbooks/postgres-restore.md',
            "mnemosyne index read --topic runbooks",
            "mnemosyne index split ops/handbook.md",
        ],
    )
    actions = _actions(p, "index_action")
    s = _sub(actions, "register", "add a route trigger -> note", "mnemosyne index register T p.md")
    s.add_argument("trigger")
    s.add_argument("path")
    add_json_flag(s)
    s.set_defaults(handler=run_index_register)
    s = _sub(actions, "read", "print the resident INDEX or one topic", "mnemosyne index read")
    s.add_argument("--topic", help="one topic (folder) of the topic map")
    s.add_argument("--budget", type=int, metavar="TOKENS", help="the token budget")
    add_json_flag(s)
    s.set_defaults(handler=run_index_read)
    s = _sub(actions, "open", "print the notes an exact trigger names", "mnemosyne index open T")
    s.add_argument("trigger")
    add_json_flag(s)
    s.set_defaults(handler=run_index_open)
    s = _sub(actions, "check", "report orphans and dangling routes", "mnemosyne index check")
    add_json_flag(s)
    s.set_defaults(handler=run_index_check)
    s = _sub(actions, "split", "split a long note into topic notes", "mnemosyne index split a.md")
    s.add_argument("path")
    _plan_flags(s)
    s.set_defaults(handler=run_index_split)
    s = _sub(actions, "import", "import routes from MEMORY.md", "mnemosyne index import --apply")
    s.add_argument("path", nargs="?", help="default: MEMORY.md at the vault root")
    _plan_flags(s)
    s.set_defaults(handler=run_index_import)
    return p


def run_index_register(args) -> int:
    result = _index(args).register(args.trigger, args.path)
    state = "registered" if result["created"] else "already registered"
    return _emit(args, result, lambda r: print(f"{state}: {r['trigger']} -> {r['path']}"))


def run_index_read(args) -> int:
    result = _index(args).read(args.topic, budget_tokens=args.budget)

    def human(r: dict) -> None:
        sys.stdout.write(r["text"])
        note(f"about {r['estimated_tokens']} tokens ({r['estimate']})")

    return _emit(args, result, human)


def run_index_open(args) -> int:
    result = _index(args).open(args.trigger)

    def human(r: dict) -> None:
        if r["fallback"]:
            note("no route has this exact trigger: search results instead")
            for hit in r["hits"]:
                print(f"{hit['path']}  {hit['title']}")
        for doc in r["documents"]:
            print(f"==> {doc['path']} <==")
            sys.stdout.write(doc["text"] if doc["text"].endswith("\n") else doc["text"] + "\n")

    _emit(args, result, human)
    return 0 if result["documents"] or result["hits"] else 1


def run_index_check(args) -> int:
    result = _index(args).check()

    def human(r: dict) -> None:
        cov = r["coverage"]
        print(f"routes: {r['routes']}  notes: {r['notes']}  routed notes: {cov['routed_notes']}")
        for route in r["dangling"]:
            print(f"dangling: {route['trigger']} -> {route['path']}")
        for path in r["orphans"]:
            print(f"orphan:   {path}")
        for problem in r["problems"]:
            if "is gone" not in problem:
                print(f"problem:  {problem}")

    _emit(args, result, human)
    return 0 if result["ok"] else 1


def run_index_split(args) -> int:
    result = _index(args).split(args.path, apply=args.apply, plan_id=args.plan_id)

    def human(r: dict) -> None:
        _print_plan(r)
        print(f"coverage: {r['covered_bytes']} of {r['source_bytes']} source bytes")

    return _emit(args, result, human)


def run_index_import(args) -> int:
    result = _index(args).import_memory_md(args.path, apply=args.apply, plan_id=args.plan_id)
    return _emit(args, result, _print_plan)


# -- mnemosyne startup --------------------------------------------------------------------


def register_startup(sub):
    p = add_command(
        sub,
        "startup",
        help="one verified bundle for a session start",
        description=(
            "Print the resident INDEX, the latest handoff of the scope, the notes named and\n"
            "(with --task) every note whose trigger matches the task, each complete. A\n"
            "missing note fails the whole read. --verify FILE re-checks a saved --json bundle."
        ),
        examples=[
            'mnemosyne startup --task "restore the staging database" --project-key atlas',
            "mnemosyne startup ops/oncall.md --json > bundle.json",
            "mnemosyne startup --verify bundle.json",
        ],
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="notes to include (required)")
    p.add_argument("--task", help="what the session is about: notes routed to it are added")
    _add_scope_keys(p)
    p.add_argument("--verify", metavar="FILE", help="verify a bundle saved with --json")
    add_json_flag(p)
    p.set_defaults(handler=run_startup)
    return p


def run_startup(args) -> int:
    reader = StartupReader(require_vault(args.vault))
    if args.verify:
        with open(args.verify, encoding="utf-8") as handle:
            try:
                bundle = json.load(handle)
            except ValueError as exc:
                raise InvalidInputError(f"{args.verify} is not a JSON bundle ({exc})") from None
        result = reader.verify(bundle)
        _emit(args, result, lambda r: print("exact" if r["exact"] else f"changed: {r}"))
        return 0 if result["exact"] else 1
    project = args.project_key or os.environ.get("MNEMOSYNE_PROJECT_KEY") or None
    task_key = args.task_key or os.environ.get("MNEMOSYNE_TASK_KEY") or None
    result = reader.read(
        args.paths, task=args.task, project_key=project, task_key=task_key if project else None
    )

    def human(r: dict) -> None:
        if r["index"]:
            sys.stdout.write(r["index"]["text"] + "\n")
        if r["handoff"]:
            sys.stdout.write(render_record(r["handoff"]) + "\n")
        for item in r["files"]:
            print(f"==> {item['path']} ({item['reason']}, sha256 {item['sha256'][:12]}) <==")
            text = item["text"]
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
        note(f"about {r['estimated_tokens']} tokens ({r['estimate']})")

    return _emit(args, result, human)


# -- mnemosyne handoff --------------------------------------------------------------------


def _scope(args) -> HandoffScope:
    project = args.project_key or os.environ.get("MNEMOSYNE_PROJECT_KEY")
    if not project:
        raise InvalidInputError(
            "no project key — pass --project-key KEY or set MNEMOSYNE_PROJECT_KEY"
        )
    task = args.task_key or os.environ.get("MNEMOSYNE_TASK_KEY") or None
    return HandoffScope(project, task)


def _add_scope_keys(p) -> None:
    """``--project-key`` (``--project`` is its older spelling) and ``--task-key``."""
    p.add_argument(
        "--project-key",
        "--project",
        dest="project_key",
        metavar="KEY",
        help="project key (default: $MNEMOSYNE_PROJECT_KEY)",
    )
    p.add_argument(
        "--task-key",
        metavar="KEY",
        help="task key within the project (default: $MNEMOSYNE_TASK_KEY)",
    )


def _scope_flags(p) -> None:
    _add_scope_keys(p)
    add_json_flag(p)


def _store(args) -> HandoffStore:
    return HandoffStore(require_vault(args.vault))


def register_handoff(sub):
    p = add_command(
        sub,
        "handoff",
        help="scoped session handoffs: capture, latest, resume, fold, undo",
        description=(
            "Immutable checkpoints of where a session left off, per project (and task).\n"
            "  capture [--work-done T --decision T ... | --json-stdin] [--capture-id ID]\n"
            "  latest | resume        the newest handoff (resume adds a short history)\n"
            "  fold [--keep N] [--apply --plan-id ID]   summarise and archive older ones\n"
            "  undo TRANSACTION_ID    reverse a fold\n"
            "--project-key (or --project) / --task-key default to $MNEMOSYNE_PROJECT_KEY /\n"
            "$MNEMOSYNE_TASK_KEY."
        ),
        examples=[
            'mnemosyne handoff capture --project-key atlas --work-done "migrated" '
            '--next-step "deploy"',
            "mnemosyne handoff resume --project-key atlas",
            "mnemosyne handoff fold --project-key atlas --keep 3",
        ],
    )
    actions = _actions(p, "handoff_action")
    s = _sub(actions, "capture", "store a handoff", "mnemosyne handoff capture --work-done T")
    s.add_argument("--work-done", metavar="TEXT")
    s.add_argument("--decision", action="append", metavar="TEXT", help="repeatable")
    s.add_argument("--open-item", action="append", metavar="TEXT", help="repeatable")
    s.add_argument("--open-question", action="append", metavar="TEXT", help="repeatable")
    s.add_argument("--next-step", metavar="TEXT")
    s.add_argument("--link", action="append", metavar="KEY", help="repeatable")
    s.add_argument("--json-stdin", action="store_true", help="read the fields as JSON on stdin")
    s.add_argument("--capture-id", metavar="ID", help="makes a retry safe (same id, same fields)")
    _scope_flags(s)
    s.set_defaults(handler=run_handoff_capture)
    for name, handler in (("latest", run_handoff_latest), ("resume", run_handoff_resume)):
        s = _sub(actions, name, f"print the {name} handoff", f"mnemosyne handoff {name}")
        _scope_flags(s)
        s.set_defaults(handler=handler)
    s = _sub(actions, "fold", "fold older handoffs into a summary", "mnemosyne handoff fold")
    s.add_argument("--keep", type=int, default=3, help="newest handoffs kept (default 3)")
    s.add_argument("--apply", action="store_true", help="write it (default: preview only)")
    s.add_argument("--plan-id", metavar="ID", help="the plan id the preview printed")
    _scope_flags(s)
    s.set_defaults(handler=run_handoff_fold)
    s = _sub(actions, "undo", "reverse a fold", "mnemosyne handoff undo TRANSACTION_ID")
    s.add_argument("transaction_id")
    add_json_flag(s)
    s.set_defaults(handler=run_handoff_undo)
    return p


def run_handoff_capture(args) -> int:
    if args.json_stdin:
        try:
            fields = json.loads(sys.stdin.read())
        except ValueError as exc:
            raise InvalidInputError(f"--json-stdin: not valid JSON ({exc})") from None
        capture_id = args.capture_id
        if isinstance(fields, dict) and "fields" in fields:
            capture_id = capture_id or fields.get("capture_id")
            fields = fields["fields"]
    else:
        fields = {
            "work_done": args.work_done,
            "decisions": args.decision,
            "open_items": args.open_item,
            "open_questions": args.open_question,
            "next_step": args.next_step,
            "links": args.link,
        }
        fields = {k: v for k, v in fields.items() if v}
        capture_id = args.capture_id
        if not fields:
            raise InvalidInputError(
                f"give at least one field (--work-done, --next-step, ...) or --json-stdin "
                f"with keys {', '.join(FIELD_NAMES)}"
            )
    result = _store(args).capture(_scope(args), fields, capture_id=capture_id)
    word = "already captured" if result["replayed"] else "captured"
    return _emit(args, result, lambda r: print(f"{word} {r['capture_id']} ({r['created']})"))


def run_handoff_latest(args) -> int:
    record = _store(args).latest(_scope(args))
    if record is None:
        note("no handoff for this scope yet")
        if args.json:
            print_json(None)
        return 1
    return _emit(args, record, lambda r: sys.stdout.write(render_record(r)))


def run_handoff_resume(args) -> int:
    result = _store(args).resume(_scope(args))

    def human(r: dict) -> None:
        sys.stdout.write(r["text"] or "no handoff for this scope yet\n")
        for item in r["history"]:
            print(f"earlier {item['created']}: {item['work_done']} (next: {item['next_step']})")

    _emit(args, result, human)
    return 0 if result["latest"] else 1


def run_handoff_fold(args) -> int:
    result = _store(args).fold(_scope(args), keep=args.keep, apply=args.apply, plan_id=args.plan_id)
    return _emit(args, result, _print_plan)


def run_handoff_undo(args) -> int:
    result = _store(args).undo(args.transaction_id)
    return _emit(args, result, lambda r: print(f"undone: {r['transaction_id']} ({r['state']})"))


REGISTER = (register_index, register_startup, register_handoff)
