"""``mnemosyne-mcp``: serve a vault to MCP clients (stdio by default, or streamable HTTP).

Standard library only: options are parsed and checked before the ``mcp`` extra is
imported, so a missing extra is one line naming the pip command (exit 2), not a
traceback. Under stdio, stdout carries the protocol and nothing else; every message
goes to stderr.

Exit status: 0 after a clean stop, 2 for bad options, a missing vault or extra, or an
unusable token; 130 when interrupted.
"""

from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from pathlib import Path

from . import _version
from .errors import ExtraNotInstalledError, MnemosyneError
from .progress_view import ProgressLog

__all__ = ["build_parser", "main"]

PROG = "mnemosyne-mcp"
# The same lookup as the mnemosyne CLI: --vault > $MNEMOSYNE_VAULT > this.
DEFAULT_VAULT = "~/.birkin-mnemosyne/vault"
TOKEN_ENV = "MNEMOSYNE_MCP_TOKEN"
TOOLS_ENV = "MNEMOSYNE_MCP_TOOLS"
# The names of mcp_server.TOOL_SETS, repeated so that options are checked before the
# extra is imported (tests/test_mcp_server.py keeps the two equal).
TOOL_SET_NAMES = ("default", "full")
# A bearer token is the only lock on a network-facing server: 16 characters is the
# least we accept (secrets.token_urlsafe(32) gives 43).
MIN_TOKEN_CHARS = 16

EPILOG = f"""examples:
  {PROG} --vault ~/notes                      stdio, for a client that starts it
  {PROG} --vault ~/notes --read-only          no write tools
  {PROG} --vault ~/notes --tools full         every tool (curation, undo, labels, ...)
  {PROG} --http 127.0.0.1:8765                streamable HTTP on this machine only
  {TOKEN_ENV}=... {PROG} --http 0.0.0.0:8765  HTTP for the network: a token is required

Make a token with: python -c "import secrets; print(secrets.token_urlsafe(32))"
"""


def _log_line(line: str) -> None:
    """One line for the person watching the server: stderr, never stdout (the protocol)."""
    print(f"{PROG}: {line}", file=sys.stderr, flush=True)


class UsageError(Exception):
    """A bad option value, reported as one line with exit status 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Serve a birkin-mnemosyne vault to AI agents over the Model Context "
        "Protocol. Default transport: stdio (the client starts this command).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {_version.__version__}")
    parser.add_argument(
        "--vault",
        metavar="PATH",
        help="the vault folder (default: $MNEMOSYNE_VAULT, else ~/.birkin-mnemosyne/vault)",
    )
    parser.add_argument(
        "--index",
        metavar="URL",
        help="search a team index, postgresql://user@host/db (default: $MNEMOSYNE_INDEX; "
        "none: the vault's own index); writes go to the vault's git working copy, "
        "then are committed and ingested",
    )
    parser.add_argument(
        "--read-only", action="store_true", help="offer only the read tools (no writes at all)"
    )
    parser.add_argument(
        "--tools",
        metavar="SET",
        help="the tool set: 'default' (search, latest, get_note, remember, status, "
        f"session) or 'full' (every tool, with output schemas) (default: ${TOOLS_ENV}, "
        "else default)",
    )
    parser.add_argument(
        "--evidence-required",
        action="store_true",
        help="refuse every write that gives no source",
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp instead of stdio "
        "(a non-loopback HOST requires a token)",
    )
    parser.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"file holding the bearer token HTTP clients must send (default: ${TOKEN_ENV})",
    )
    for flag, what in (
        ("--max-active-notes", "active notes"),
        ("--max-protected-notes", "protected notes"),
        ("--max-vault-bytes", "bytes of notes"),
    ):
        variable = "MNEMOSYNE_" + flag[2:].upper().replace("-", "_")
        parser.add_argument(
            flag,
            metavar="N",
            help=f"capacity budget: at most N {what} (default: ${variable}; none)",
        )
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="hybrid keyword + semantic search (the 'semantic' extra and "
        "`mnemosyne semantic prepare`; default: $MNEMOSYNE_SEMANTIC)",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log requests to stderr")
    return parser


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) -> ``(host, port)``."""
    host, sep, port_text = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port_text.isdigit() or not 1 <= int(port_text) <= 65535:
        raise UsageError(
            f"--http wants HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:8765 or "
            f"[::1]:8765; got {text!r}"
        )
    return host, int(port_text)


def is_loopback(host: str) -> bool:
    if host.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def read_token(token_file: str | None, env: str = TOKEN_ENV) -> str | None:
    """The bearer token from ``--token-file``, else ``$env`` (``$MNEMOSYNE_MCP_TOKEN``),
    else None (``mnemosyne serve`` reads ``$MNEMOSYNE_WEB_TOKEN`` the same way)."""
    if token_file is not None:
        path = Path(os.path.expanduser(token_file))
        try:
            token = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the token file {path}: {exc}") from None
        where = f"the token file {path}"
    else:
        token = os.environ.get(env, "").strip()
        if not token:
            return None
        where = f"${env}"
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise UsageError(
            f"{where} must hold one token of at least {MIN_TOKEN_CHARS} characters without "
            'spaces — make one with: python -c "import secrets; print(secrets.token_urlsafe(32))"'
        )
    return token


def resolve_tool_set(arg: str | None) -> str:
    """``--tools``, else ``$MNEMOSYNE_MCP_TOOLS``, else ``default``."""
    name = arg if arg is not None else (os.environ.get(TOOLS_ENV, "").strip() or "default")
    if name not in TOOL_SET_NAMES:
        where = "--tools" if arg is not None else f"${TOOLS_ENV}"
        raise UsageError(f"{where} must be one of {', '.join(TOOL_SET_NAMES)}; got {name!r}")
    return name


def resolve_vault(arg: str | None) -> Path:
    raw = arg or os.environ.get("MNEMOSYNE_VAULT") or DEFAULT_VAULT
    path = Path(os.path.expanduser(raw))
    if not path.is_dir():
        raise UsageError(
            f"vault not found: {path} — create the folder, or pass --vault PATH "
            "(or set MNEMOSYNE_VAULT)"
        )
    return path


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format=f"{PROG}: %(message)s",
        stream=sys.stderr,
    )
    try:
        address = parse_address(args.http) if args.http is not None else None
        if address is None and args.token_file is not None:
            raise UsageError("--token-file is for --http; a stdio server needs no token")
        token = read_token(args.token_file) if address is not None else None
        if address is not None and token is None and not is_loopback(address[0]):
            raise UsageError(
                f"serving HTTP on {address[0]} (not a loopback address) needs a bearer "
                f"token: pass --token-file PATH or set {TOKEN_ENV}"
            )
        tools = resolve_tool_set(args.tools)
        vault = resolve_vault(args.vault)
        try:
            from . import mcp_server
        except ExtraNotInstalledError as exc:
            raise UsageError(str(exc)) from None
        from .curation.capacity import load_budgets
        from .memory import VaultMemory

        budgets = load_budgets(
            {
                "max_active_notes": args.max_active_notes,
                "max_protected_notes": args.max_protected_notes,
                "max_vault_bytes": args.max_vault_bytes,
            }
        )
        index = args.index or os.environ.get("MNEMOSYNE_INDEX") or None
        memory = VaultMemory(
            vault,
            index=index,
            evidence_required=True if args.evidence_required else None,
            recover=not args.read_only,  # a read-only server changes no file
            # The first search of a large vault builds its index: say so, on stderr.
            on_progress=ProgressLog(_log_line),
        )
        if args.semantic:
            memory.engine.use_semantic()
    except (UsageError, MnemosyneError) as exc:
        # A command line: a fix names mnemosyne commands.
        text = exc.render("cli") if isinstance(exc, MnemosyneError) else str(exc)
        print(f"{PROG}: error: {text}", file=sys.stderr)
        return 2
    try:
        with memory:
            server = mcp_server.build_server(
                memory, read_only=args.read_only, budgets=budgets, tools=tools
            )
            mode = ("read-only" if args.read_only else "read-write") + f", {tools} tools"
            if address is None:
                logging.getLogger(__name__).info("serving %s (%s) over stdio", vault, mode)
                server.run("stdio")
            else:
                host, port = address
                shown = f"[{host}]" if ":" in host else host
                auth = "bearer token required" if token else "no token: this machine only"
                print(
                    f"{PROG}: serving {vault} ({mode}) at http://{shown}:{port}/mcp ({auth})",
                    file=sys.stderr,
                    flush=True,
                )
                mcp_server.serve_http(
                    server,
                    host,
                    port,
                    token=token,
                    log_level="info" if args.verbose else "warning",
                )
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
