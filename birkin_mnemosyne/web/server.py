"""``mnemosyne serve``: the REST API (``api.ROUTES``) and the page, over ``http.server``.

Standard library only: a ``ThreadingHTTPServer`` whose handler checks, in this order,
for every request: the ``Host`` header (DNS rebinding), the ``Origin`` header when
there is one, the token when one is set (bearer header or the login cookie), the CSRF
header on a ``POST`` (not for a bearer request), the body (JSON object, at most
``MAX_BODY_BYTES``). Every response carries the page's Content-Security-Policy.
docs/reference/web-api.md is the user's account of all this.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import sys
import traceback
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import MnemosyneError, error_dict
from .api import ROUTES, Api, status_of

__all__ = ["MAX_BODY_BYTES", "WebServer", "make_server"]

log = logging.getLogger("birkin_mnemosyne.web")

MAX_BODY_BYTES = 1 << 20
COOKIE = "mnemosyne_session"
CSRF_HEADER = "X-Mnemosyne-CSRF"
STATIC = Path(__file__).resolve().parent / "static"
# name -> (file, content type): the only files served outside /api/
PAGES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/index.html": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
_WILDCARDS = ("0.0.0.0", "::", "")


class _Refusal(Exception):
    """A request refused before it reaches the API: (status, error_type, message)."""

    def __init__(self, status: int, error_type: str, message: str, headers: dict | None = None):
        super().__init__(message)
        self.status, self.error_type, self.message = status, error_type, message
        self.headers = headers or {}


class WebServer(ThreadingHTTPServer):
    """The server: the API over one vault, its token, its CSRF secret, its sessions."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], api: Api, *, token: str | None, loopback: bool):
        super().__init__(address, _Handler)
        self.api = api
        self.token = token
        self.loopback = loopback
        self.csrf = secrets.token_urlsafe(32)
        self.sessions: set[str] = set()
        host, port = self.server_address[:2]
        if loopback:
            self.hosts = {f"{name}:{port}" for name in _LOOPBACK_NAMES}
            if port == 80:
                self.hosts.update(_LOOPBACK_NAMES)
        elif host in _WILDCARDS:
            self.hosts = None  # any name this machine answers to; the token guards it
        else:
            shown = f"[{host}]" if ":" in host else host
            self.hosts = {f"{shown}:{port}"}

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        if self.loopback or host in _WILDCARDS:
            host = "127.0.0.1" if ":" not in host else "[::1]"
        elif ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{port}/"

    def close(self) -> None:
        self.server_close()
        self.api.memory.close()


def make_server(
    memory, host: str = "127.0.0.1", port: int = 8765, *, token: str | None = None, budgets=None
) -> WebServer:
    """A bound (not yet serving) server for ``memory``; ``port=0`` picks a free port.

    A non-loopback ``host`` needs a ``token`` (ValueError otherwise); the CLI says so
    before it gets here.
    """
    from ..mcp_main import is_loopback

    loopback = is_loopback(host)
    if not loopback and token is None:
        raise ValueError("a non-loopback address needs a token")
    return WebServer((host, port), Api(memory, budgets), token=token, loopback=loopback)


class _Handler(BaseHTTPRequestHandler):
    server: WebServer
    server_version = "mnemosyne"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    # The headers and the body leave in two writes: with Nagle's algorithm on, the
    # body waited for the client's delayed ACK, ~40 ms on every response (measured).
    disable_nagle_algorithm = True

    # -- plumbing -----------------------------------------------------------------

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the stdlib's name)
        log.info("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: bytes, content_type: str, headers: dict | None = None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("Cache-Control", "no-store")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, status: int, data: dict, headers: dict | None = None) -> None:
        body = json.dumps(data, ensure_ascii=False).encode("utf-8")
        self._send(status, body, "application/json; charset=utf-8", headers)

    def _error(self, status: int, error_type: str, message: str, headers=None) -> None:
        self._json(status, {"error": {"error_type": error_type, "message": message}}, headers)

    # -- checks -------------------------------------------------------------------

    def _check_host(self) -> None:
        hosts = self.server.hosts
        host = (self.headers.get("Host") or "").strip().lower()
        if hosts is not None and host not in hosts:
            raise _Refusal(403, "HostError", f"this server does not answer for Host {host!r}")
        origin = self.headers.get("Origin")
        if origin is not None:
            parts = urlsplit(origin.strip().lower())
            if parts.scheme != "http" or parts.netloc != host:
                raise _Refusal(403, "OriginError", f"requests from {origin!r} are refused")

    def _bearer(self) -> bool:
        """A valid ``Authorization: Bearer`` header (False when absent)."""
        value = self.headers.get("Authorization")
        if not value or self.server.token is None:
            return False
        scheme, _, credentials = value.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            credentials.strip().encode(), self.server.token.encode()
        ):
            raise _Refusal(
                401,
                "AuthError",
                "wrong bearer token",
                {"WWW-Authenticate": 'Bearer realm="mnemosyne"'},
            )
        return True

    def _session(self) -> str | None:
        try:
            cookie = SimpleCookie(self.headers.get("Cookie") or "")
        except CookieError:
            return None
        morsel = cookie.get(COOKIE)
        return morsel.value if morsel is not None else None

    def _logged_in(self) -> bool:
        session = self._session()
        return session is not None and any(
            hmac.compare_digest(session, known) for known in tuple(self.server.sessions)
        )

    def _check_auth(self, path: str) -> bool:
        """Whether the request is a bearer one; refuses an unauthenticated one."""
        bearer = self._bearer()
        if self.server.token is None or bearer or path in ("/api/session", "/api/login"):
            return bearer
        if not self._logged_in():
            raise _Refusal(
                401,
                "AuthError",
                "this server needs its token: log in on the page, or send "
                "'Authorization: Bearer TOKEN'",
                {"WWW-Authenticate": 'Bearer realm="mnemosyne"'},
            )
        return False

    def _check_csrf(self) -> None:
        sent = self.headers.get(CSRF_HEADER) or ""
        if not hmac.compare_digest(sent.encode(), self.server.csrf.encode()):
            raise _Refusal(
                403,
                "CsrfError",
                f"a POST needs the {CSRF_HEADER} header holding the csrf value of GET /api/session",
            )

    def _body(self) -> dict:
        length_text = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding"):
            raise _Refusal(411, "LengthRequired", "send the body with a Content-Length")
        try:
            length = int(length_text or 0)
        except ValueError:
            raise _Refusal(400, "InvalidInputError", "a malformed Content-Length") from None
        if length < 0:
            raise _Refusal(400, "InvalidInputError", "a malformed Content-Length")
        if length > MAX_BODY_BYTES:
            self.close_connection = True
            raise _Refusal(
                413,
                "PayloadTooLarge",
                f"the body is {length:,} bytes; the limit is {MAX_BODY_BYTES:,}",
            )
        if not length:
            return {}
        kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        raw = self.rfile.read(length)
        if kind != "application/json":
            raise _Refusal(415, "UnsupportedMediaType", "the body must be application/json")
        try:
            body = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise _Refusal(400, "InvalidInputError", f"the body is not JSON: {exc}") from None
        if not isinstance(body, dict):
            raise _Refusal(400, "InvalidInputError", "the body must be a JSON object")
        return body

    # -- requests -----------------------------------------------------------------

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        self._handle("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._handle("PUT")

    def do_DELETE(self) -> None:  # noqa: N802
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        try:
            self._check_host()
            if not path.startswith("/api/"):
                self._page(method, path)
                return
            bearer = self._check_auth(path)
            if method == "POST":
                body = self._body()
                if not bearer:
                    self._check_csrf()
            else:
                body = None
            self._api(method, path, parts.query, body)
        except _Refusal as refusal:
            self.close_connection = True  # an unread body must not read as a request
            self._error(refusal.status, refusal.error_type, refusal.message, refusal.headers)
        except MnemosyneError as exc:
            self._json(status_of(exc), {"error": error_dict(exc, "library")})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # a bug: say so, keep the server up, log the details
            print(f"mnemosyne serve: internal error on {method} {path}", file=sys.stderr)
            traceback.print_exc(file=sys.stderr)
            self._error(
                500,
                "InternalError",
                f"internal error ({type(exc).__name__}) — please report it; the server's "
                "log has the details",
            )

    def _page(self, method: str, path: str) -> None:
        page = PAGES.get(path)
        if page is None:
            raise _Refusal(404, "NotFound", f"no page {path!r}")
        if method != "GET":
            raise _Refusal(405, "MethodNotAllowed", f"{method} {path}", {"Allow": "GET, HEAD"})
        name, content_type = page
        try:
            body = (STATIC / name).read_bytes()
        except OSError:
            raise _Refusal(404, "NotFound", f"the page file {name} is missing") from None
        self._send(200, body, content_type)

    def _api(self, method: str, path: str, query: str, body: dict | None) -> None:
        if path == "/api/login":
            self._login(method, body)
            return
        if path == "/api/logout":
            self._logout(method)
            return
        if (method, path) not in ROUTES:
            allowed = sorted(m for m, p in ROUTES if p == path)
            if allowed:
                raise _Refusal(
                    405,
                    "MethodNotAllowed",
                    f"{path} takes {' or '.join(allowed)}",
                    {"Allow": ", ".join(allowed)},
                )
            raise _Refusal(404, "NotFound", f"no endpoint {path!r} (docs/reference/web-api.md)")
        data = self.server.api.call(method, path, query, body)
        if path == "/api/session":
            authenticated = self.server.token is None or self._logged_in() or self._bearer()
            data = {
                "csrf": self.server.csrf,
                "auth": "token" if self.server.token is not None else "none",
                "authenticated": authenticated,
                "version": data["version"],
                **({"vault": data["vault"]} if authenticated else {}),
            }
        self._json(200, data)

    def _login(self, method: str, body: dict | None) -> None:
        if method != "POST":
            raise _Refusal(405, "MethodNotAllowed", "POST /api/login", {"Allow": "POST"})
        token = (body or {}).get("token")
        if self.server.token is None:
            self._json(200, {"ok": True, "auth": "none"})
            return
        if not isinstance(token, str) or not hmac.compare_digest(
            token.strip().encode(), self.server.token.encode()
        ):
            raise _Refusal(401, "AuthError", "wrong token")
        session = secrets.token_urlsafe(32)
        self.server.sessions.add(session)
        cookie = f"{COOKIE}={session}; HttpOnly; SameSite=Strict; Path=/"
        self._json(200, {"ok": True, "auth": "token"}, {"Set-Cookie": cookie})

    def _logout(self, method: str) -> None:
        if method != "POST":
            raise _Refusal(405, "MethodNotAllowed", "POST /api/logout", {"Allow": "POST"})
        session = self._session()
        if session is not None:
            self.server.sessions.discard(session)
        cookie = f"{COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"
        self._json(200, {"ok": True}, {"Set-Cookie": cookie})
