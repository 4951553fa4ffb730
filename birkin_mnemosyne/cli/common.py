"""What the subcommand modules share: parser setup, opening the vault, reading a body."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..errors import InvalidInputError
from ..memory import VaultMemory

# Help text is wrapped at this width everywhere (terminals and docs/reference/cli.md alike).
HELP_WIDTH = 88


class Parser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line, like every other error."""

    def error(self, message: str):  # argparse's hook; it must not return
        raise CommandError(f"{message} — see `{self.prog} --help`")


class CommandError(Exception):
    """A problem the command line finds itself (bad syntax, nothing to do), with its exit
    status; the library's own errors are ``MnemosyneError``s."""

    def __init__(self, message: str, exit_code: int = 2) -> None:
        super().__init__(message)
        self.exit_code = exit_code


def help_formatter(prog: str) -> argparse.HelpFormatter:
    # A fixed width keeps --help identical to the generated reference page.
    return argparse.RawDescriptionHelpFormatter(prog, width=HELP_WIDTH, max_help_position=30)


def add_command(sub, name: str, *, help: str, description: str, examples: list[str]):
    """Register one subcommand whose --help ends with its examples."""
    lines = "\n".join(f"  {example}" for example in examples)
    label = "example" if len(examples) == 1 else "examples"
    return sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=f"{label}:\n{lines}",
        formatter_class=help_formatter,
    )


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the machine-readable JSON shape")


def add_label_option(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument("--label", action="append", default=[], metavar="NS:VALUE", help=help)


def add_note_fields(parser: argparse.ArgumentParser) -> None:
    """The frontmatter options ``write_note`` takes (remember, append, replace)."""
    parser.add_argument("--body", metavar="TEXT", help="the text (default: read from stdin)")
    parser.add_argument("--type", dest="note_type", metavar="TYPE", help="the note type")
    parser.add_argument("--tag", action="append", metavar="TAG", help="a tag (repeatable)")
    add_label_option(parser, "a namespace:value label (repeatable)")
    parser.add_argument(
        "--link", action="append", metavar="KEY", help="a note to link to (repeatable)"
    )
    parser.add_argument(
        "--source",
        action="append",
        metavar="WHERE",
        help="where this came from: a URL, a file, a conversation id (repeatable)",
    )


def expand(path: str) -> Path:
    """A path argument with ``~`` expanded, also when the shell did not (it was quoted)."""
    return Path(os.path.expanduser(path))


def open_memory(args) -> VaultMemory:
    """The vault of this invocation; ``VaultNotFoundError`` (exit 2) when it is missing.
    Its index builds report to the command's progress line (``progress_view``)."""
    return VaultMemory(
        args.vault, on_progress=progress_of(args), index=getattr(args, "index", None)
    )


def progress_of(args):
    """The command's progress callback (``None`` with ``--quiet``)."""
    return getattr(args, "progress", None)


def read_body(args) -> str:
    """``--body``, else standard input (refused when stdin is a terminal: nothing was piped,
    and when it held nothing but white space, e.g. ``< /dev/null``)."""
    if args.body is not None:
        return args.body
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        raise InvalidInputError(
            "no text given — pass --body TEXT, or pipe the text in: echo TEXT | mnemosyne ..."
        )
    text = stdin.read()
    if not text.strip():
        raise InvalidInputError(
            "standard input was empty, so there is no text to store — pipe the text in "
            "(echo TEXT | mnemosyne ...) or pass --body TEXT"
        )
    return text


def note_fields(args) -> dict:
    """The ``write_note`` keyword arguments named by ``add_note_fields``."""
    return {
        "note_type": args.note_type,
        "tags": args.tag,
        "labels": args.label or None,
        "links": args.link,
        "source": args.source,
    }
