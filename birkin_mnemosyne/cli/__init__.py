"""The ``mnemosyne`` command line: argparse over the library, one call per subcommand."""

from .main import build_parser, main

__all__ = ["build_parser", "main"]
