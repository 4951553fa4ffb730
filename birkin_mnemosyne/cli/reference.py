"""docs/reference/cli.md, rendered from the parser's own ``--help`` text.

``python scripts/gen_cli_docs.py`` writes the page; ``tests/test_cli_docs.py`` fails when
the committed page differs from a fresh rendering, so the page never drifts from the code.
"""

from __future__ import annotations

from .main import build_parser, subcommands

REGENERATE = "python scripts/gen_cli_docs.py"
HEADER = f"""# Command line reference

> Generated from `mnemosyne --help`; do not edit by hand. After changing the command
> line, regenerate it with `{REGENERATE}` (a test fails while it is out of date).

Every `mnemosyne` subcommand with its `--help` text, in the order `mnemosyne --help`
lists them. Each one calls one library method; `--json` prints the shape that method
returns (see [notes.md](notes.md) and the [Python API](python-api.md)). A walk through
a first session is in the [tutorial](../tutorial.md).
"""


def _block(title: str, help_text: str) -> str:
    return f"## {title}\n\n```text\n{help_text.rstrip()}\n```\n"


def render_reference() -> str:
    """The whole Markdown page, the same bytes on every run."""
    parser = build_parser()
    commands = subcommands(parser)
    contents = "\n".join(f"- [`mnemosyne {name}`](#mnemosyne-{name})" for name in commands)
    parts = [HEADER, contents + "\n", _block("mnemosyne", parser.format_help())]
    parts += [_block(f"mnemosyne {name}", sub.format_help()) for name, sub in commands.items()]
    return "\n".join(parts)
