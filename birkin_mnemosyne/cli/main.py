"""Entry point, vault resolution and the error surface of the ``mnemosyne`` command.

Vault lookup, the same for every subcommand: ``--vault PATH`` (before or after the
subcommand) > ``$MNEMOSYNE_VAULT`` > ``~/.birkin-mnemosyne/vault``; ``~`` is expanded
even when quoted. A missing vault is an error (exit 2); only ``init`` creates one.
Errors print one line, ``mnemosyne: error: <what> — <how to fix>`` (the fix names
``mnemosyne`` commands), and exit 1 (not found), 2 (invalid input, missing vault), 3
(conflict, refused write) or 4 (an internal error: a bug to report). With ``--json`` the
error is one JSON object on stderr instead, ``{"error": {...}}`` in the shape every door
shares (``errors.error_dict``: ``error_type``, ``message``, ``hint``, ``operations``,
``valid_choices`` and the error's own fields), with the same exit status. The
subcommands live in one module per group.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from pathlib import Path

from .. import _version
from ..errors import MnemosyneError, VaultNotFoundError, error_dict
from ..progress_view import ProgressLine
from .common import CommandError, Parser, help_formatter

DEFAULT_VAULT = "~/.birkin-mnemosyne/vault"
# Exit status of an unexpected failure (a bug), distinct from 1-3.
INTERNAL_ERROR = 4

# Each command module and the commands its ``REGISTER`` adds, in the order of
# `mnemosyne --help` and of docs/reference/cli.md. A run of one command imports only
# its module (a hook or a search does not load curation's HTTP client or the
# installer, nor build every command's parser); ``--help``, no command or an unknown
# one load them all. tests/test_cli_lazy.py checks this table against the modules.
COMMAND_MODULES = (
    ("onboarding_commands", ("init", "import-chatgpt", "import-obsidian")),
    (
        "read_commands",
        (
            "search",
            "latest",
            "host-history",
            "show",
            "related",
            "list",
            "recent",
            "status",
            "digest",
            "path",
        ),
    ),
    (
        "note_commands",
        ("remember", "append", "replace", "edit", "forget", "restore", "rezone", "move"),
    ),
    ("maintenance_commands", ("label", "undo", "journal", "reindex")),
    ("curation_commands", ("curate", "review", "capacity")),
    ("session_commands", ("index", "startup", "handoff")),
    ("eval_commands", ("eval",)),
    ("semantic_commands", ("semantic",)),
    ("hermes_commands", ("hermes",)),
    ("claude_commands", ("claude",)),
    ("hook_commands", ("hook",)),
    ("capture_commands", ("capture",)),
    ("web_commands", ("serve",)),
    ("team_commands", ("ingest",)),
)
_GLOBAL_FLAGS = frozenset({"-v", "--verbose", "-q", "--quiet"})


def command_module(name: str):
    """The ``cli`` module named ``name`` (``read_commands``, ...), imported."""
    return importlib.import_module(f"{__package__}.{name}")


def _command_of(argv: list[str]) -> str | None:
    """The subcommand ``argv`` runs, when the global options before it say so plainly
    (None for ``--help``, ``--version``, a missing or unknown command)."""
    tokens = iter(argv)
    for token in tokens:
        if token in ("--vault", "--index"):
            next(tokens, None)
        elif token.startswith(("--vault=", "--index=")) or token in _GLOBAL_FLAGS:
            continue
        elif token.startswith("-"):
            return None
        else:
            return token
    return None


EPILOG = """examples:
  mnemosyne --vault ~/notes init                 preview adopting a folder of notes
  mnemosyne --vault examples/vault search "restore the database from last night's dump"
  echo "Topics keep 7 days." | mnemosyne remember "Kafka retention" --zone ops
  mnemosyne undo --last

the vault: --vault PATH (before or after the command), else $MNEMOSYNE_VAULT, else
~/.birkin-mnemosyne/vault. Only `init` creates it.

a team index: --index postgresql://... (or $MNEMOSYNE_INDEX) searches the team's
PostgreSQL index instead of the vault's own; `mnemosyne ingest` fills it from git.

progress: long work (a first index build, init, an import) shows progress on stderr
once it has taken 1.5 s ($MNEMOSYNE_PROGRESS_DELAY seconds); -v from the start, -q never.
stdout carries only the results (with --json, only the JSON).

exit status: 0 ok, 1 not found or nothing matched, 2 invalid input or missing vault,
3 conflict or refused write, 4 internal error (a bug: please report it). An error is
one line on stderr; with --json it is one JSON object there instead:
{"error": {"error_type": ..., "message": ..., "hint": ..., ...}}.
Run `mnemosyne COMMAND --help` for the options and examples of each command.
"""


def resolve_vault(arg: str | None) -> Path:
    raw = arg or os.environ.get("MNEMOSYNE_VAULT") or DEFAULT_VAULT
    return Path(os.path.expanduser(raw))


def resolve_index(arg: str | None) -> str | None:
    """``--index``, else ``$MNEMOSYNE_INDEX``, else None (the vault's own index)."""
    return arg or os.environ.get("MNEMOSYNE_INDEX") or None


def _add_vault(parser: argparse.ArgumentParser, *, default) -> None:
    parser.add_argument(
        "--vault",
        metavar="PATH",
        default=default,
        help="the vault (default: $MNEMOSYNE_VAULT or ~/.birkin-mnemosyne/vault)",
    )
    parser.add_argument(
        "--index",
        metavar="URL",
        default=default,
        help="a team index, postgresql://user@host/db (default: $MNEMOSYNE_INDEX; "
        "none: the vault's own index)",
    )


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``mnemosyne`` parser: every command, or only those of ``command``'s module."""
    parser = Parser(
        prog="mnemosyne",
        description="Search and maintain a Markdown memory vault for AI agents.",
        epilog=EPILOG,
        formatter_class=help_formatter,
    )
    parser.add_argument("--version", action="version", version=f"mnemosyne {_version.__version__}")
    _add_vault(parser, default=None)
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show progress from the start (not only after a few seconds) and log more",
    )
    parser.add_argument(
        "-q", "--quiet", action="store_true", help="no progress lines (warnings still print)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = [m for m, names in COMMAND_MODULES if command in names]
    for module in modules or [m for m, _ in COMMAND_MODULES]:
        for register in command_module(module).REGISTER:
            command = register(sub)
            # --vault is accepted after the subcommand too; SUPPRESS keeps the global value.
            _add_vault(command, default=argparse.SUPPRESS)
    return parser


def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """Every subcommand's parser by name, in the order of ``--help``."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _error(message: str, code: int, as_json: dict | None = None) -> int:
    """Report an error on stderr: one line, or with ``--json`` one ``{"error": ...}``."""
    if as_json is not None:
        print(json.dumps({"error": as_json}, ensure_ascii=False), file=sys.stderr)
    else:
        print(f"mnemosyne: error: {' '.join(message.splitlines())}", file=sys.stderr)
    return code


def _library_error(exc: MnemosyneError, wants_json: bool, extra: str = "") -> int:
    message = exc.render("cli") + extra
    data = None
    if wants_json:
        data = error_dict(exc, "cli")
        data["message"] = message
    return _error(message, exc.exit_code, data)


def _command_error(exc: CommandError, wants_json: bool) -> int:
    data = {"error_type": type(exc).__name__, "message": str(exc)} if wants_json else None
    return _error(str(exc), exc.exit_code, data)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_command_of(argv))
    try:
        args = parser.parse_args(argv)
    except CommandError as exc:
        # Nothing is parsed yet: --json anywhere on the line asks for a JSON error.
        return _command_error(exc, "--json" in argv)
    except SystemExit as exc:  # --help and --version print, then exit 0
        return exc.code if isinstance(exc.code, int) else 0
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="mnemosyne: %(message)s",
        stream=sys.stderr,
    )
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    args.vault = resolve_vault(args.vault)
    args.index = resolve_index(getattr(args, "index", None))
    wants_json = bool(getattr(args, "json", False))
    # Long work (a first index build, init, an import) reports here: on stderr, and
    # only once it has taken a while (at once with -v; never with -q).
    args.progress = None if args.quiet else ProgressLine(delay=0.0 if args.verbose else None)
    try:
        try:
            code = int(args.handler(args) or 0)
        finally:
            if args.progress is not None:
                args.progress.close()  # before any error line, never in the middle of one
        sys.stdout.flush()  # a closed pipe shows up here, not at interpreter exit
        return code
    except VaultNotFoundError as exc:
        return _library_error(exc, wants_json, " (`mnemosyne init` sets up a new vault)")
    except MnemosyneError as exc:
        return _library_error(exc, wants_json)
    except CommandError as exc:
        return _command_error(exc, wants_json)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): exit quietly, as stdlib json.tool does.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("mnemosyne: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug, not bad input: say so, and keep exit 1 for "not found"
        if args.verbose:
            import traceback

            traceback.print_exc()
        message = (
            f"internal error: {exc.__class__.__name__}: {exc} — please report it "
            "(run again with -v for the traceback)"
        )
        if wants_json:  # "internal", as the Hermes tools say it: not one of our classes
            return _error(message, INTERNAL_ERROR, {"error_type": "internal", "message": message})
        print(f"mnemosyne: {message}", file=sys.stderr)
        return INTERNAL_ERROR
