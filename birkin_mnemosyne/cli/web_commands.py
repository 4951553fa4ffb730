"""``mnemosyne serve``: the local web page and its REST API (``birkin_mnemosyne.web``)."""

from __future__ import annotations

import sys

from .common import CommandError, add_command, open_memory

DEFAULT_ADDRESS = "127.0.0.1:8765"
TOKEN_ENV = "MNEMOSYNE_WEB_TOKEN"


def _serve(args) -> int:
    from ..mcp_main import UsageError, is_loopback, parse_address, read_token
    from ..web.server import make_server

    try:
        host, port = parse_address(args.http)
        token = read_token(args.token_file, TOKEN_ENV)
    except UsageError as exc:
        raise CommandError(str(exc)) from None
    if token is None and not is_loopback(host):
        raise CommandError(
            f"{host} is not a loopback address: a server others can reach needs a token "
            f"— pass --token-file PATH or set {TOKEN_ENV}"
        )
    memory = open_memory(args)
    memory.status()  # builds the index now (with progress), not on the first request
    try:
        server = make_server(memory, host, port, token=token)
    except OSError as exc:
        memory.close()
        raise CommandError(f"cannot listen on {args.http}: {exc.strerror or exc}") from None
    auth = "a token is required" if token else "no token: this machine only"
    print(f"mnemosyne serve: {server.url} ({auth}); Ctrl-C stops it", file=sys.stderr)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("mnemosyne serve: stopped", file=sys.stderr)
    finally:
        server.close()
    return 0


def register(sub):
    p = add_command(
        sub,
        "serve",
        help="serve the vault's web page and REST API on this machine",
        description=(
            "Serve a web page for the vault (search, notes, link graph, timeline, review,\n"
            "status) and the REST API under /api/ it uses, which mirrors VaultMemory. A\n"
            "loopback address needs no token; any other needs --token-file (or\n"
            f"${TOKEN_ENV}). See docs/reference/web-api.md."
        ),
        examples=[
            "mnemosyne --vault ~/notes serve",
            "mnemosyne serve --http 127.0.0.1:9000",
            "mnemosyne serve --http 0.0.0.0:8765 --token-file ~/.mnemosyne-web-token",
        ],
    )
    p.add_argument(
        "--http",
        default=DEFAULT_ADDRESS,
        metavar="HOST:PORT",
        help=f"where to listen (default: {DEFAULT_ADDRESS}; [::1]:PORT for IPv6)",
    )
    p.add_argument(
        "--token-file",
        metavar="PATH",
        help=f"file holding the token the page and API clients must give (default: ${TOKEN_ENV})",
    )
    p.set_defaults(handler=_serve)
    return p


REGISTER = (register,)
