"""Entry point, vault resolution and the error surface of the ``mnemosyne`` command.

Vault lookup, the same for every subcommand: ``--vault PATH`` (before or after the
subcommand) > ``$MNEMOSYNE_VAULT`` > ``~/.birkin-mnemosyne/vault``; ``~`` is expanded
even when quoted. Errors print one line, ``mnemosyne: error: <what> — <how to fix>``,
and exit 1 (not found), 2 (invalid input, missing vault), 3 (conflict, refused write)
or 4 (an internal error: a bug to report).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from .. import _version
from ..errors import MnemosyneError
from . import read_commands

DEFAULT_VAULT = "~/.birkin-mnemosyne/vault"
# Exit status of an unexpected failure (a bug), distinct from 1-3.
INTERNAL_ERROR = 4

EPILOG = """examples:
  mnemosyne --vault examples/vault search "restore the database from last night's dump"
  mnemosyne search ECONNREFUSED --exact --json
  mnemosyne status
"""


def resolve_vault(arg: str | None) -> Path:
    raw = arg or os.environ.get("MNEMOSYNE_VAULT") or DEFAULT_VAULT
    return Path(os.path.expanduser(raw))


def _add_vault(parser: argparse.ArgumentParser, *, default) -> None:
    parser.add_argument(
        "--vault",
        metavar="PATH",
        default=default,
        help="the vault folder (default: $MNEMOSYNE_VAULT, else ~/.birkin-mnemosyne/vault)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mnemosyne",
        description="Search and maintain a Markdown memory vault for AI agents.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"mnemosyne {_version.__version__}")
    _add_vault(parser, default=None)
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in read_commands.REGISTER:
        command = register(sub)
        # --vault is accepted after the subcommand too; SUPPRESS keeps the global value.
        _add_vault(command, default=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="mnemosyne: %(message)s",
        stream=sys.stderr,
    )
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return 2
    args.vault = resolve_vault(args.vault)
    try:
        return int(args.handler(args) or 0)
    except MnemosyneError as exc:
        print(f"mnemosyne: error: {exc}", file=sys.stderr)
        return exc.exit_code
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
        print(
            f"mnemosyne: internal error: {exc.__class__.__name__}: {exc} — please report it "
            "(run again with -v for the traceback)",
            file=sys.stderr,
        )
        return INTERNAL_ERROR
