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
import json
import logging
import os
import sys
from pathlib import Path

from .. import _version
from ..errors import MnemosyneError, VaultNotFoundError, error_dict
from ..progress_view import ProgressLine
from . import (
    capture_commands,
    claude_commands,
    curation_commands,
    eval_commands,
    hermes_commands,
    hook_commands,
    maintenance_commands,
    note_commands,
    onboarding_commands,
    read_commands,
    semantic_commands,
    session_commands,
)
from .common import CommandError, Parser, help_formatter

DEFAULT_VAULT = "~/.birkin-mnemosyne/vault"
# Exit status of an unexpected failure (a bug), distinct from 1-3.
INTERNAL_ERROR = 4

# The order of `mnemosyne --help` and of docs/reference/cli.md.
COMMAND_GROUPS = (
    onboarding_commands.REGISTER,
    read_commands.REGISTER,
    note_commands.REGISTER,
    maintenance_commands.REGISTER,
    curation_commands.REGISTER,
    session_commands.REGISTER,
    eval_commands.REGISTER,
    semantic_commands.REGISTER,
    hermes_commands.REGISTER,
    claude_commands.REGISTER,
    hook_commands.REGISTER,
    capture_commands.REGISTER,
)

EPILOG = """examples:
  mnemosyne --vault ~/notes init                 preview adopting a folder of notes
  mnemosyne --vault examples/vault search "restore the database from last night's dump"
  echo "Topics keep 7 days." | mnemosyne remember "Kafka retention" --zone ops
  mnemosyne undo --last

the vault: --vault PATH (before or after the command), else $MNEMOSYNE_VAULT, else
~/.birkin-mnemosyne/vault. Only `init` creates it.

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


def _add_vault(parser: argparse.ArgumentParser, *, default) -> None:
    parser.add_argument(
        "--vault",
        metavar="PATH",
        default=default,
        help="the vault (default: $MNEMOSYNE_VAULT or ~/.birkin-mnemosyne/vault)",
    )


def build_parser() -> argparse.ArgumentParser:
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
    for group in COMMAND_GROUPS:
        for register in group:
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
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
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
