"""Streamable HTTP serving (``serve_http``) behind an optional bearer-token gate."""

import hmac
import json
from typing import Any

from mcp.server.mcpserver import MCPServer


class BearerTokenGate:
    """ASGI middleware: every HTTP request needs ``Authorization: Bearer <token>``.

    Anything else is answered 401 with ``WWW-Authenticate: Bearer`` before it reaches
    the MCP app. The comparison takes the same time whatever the guess
    (``hmac.compare_digest``). Lifespan events pass through.
    """

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode("utf-8")

    def _allowed(self, scope: dict) -> bool:
        for name, value in scope.get("headers") or []:
            if name.lower() == b"authorization":
                scheme, _, credentials = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(
                    credentials.strip(), self._token
                )
        return False

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan" or self._allowed(scope):
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        body = json.dumps(
            {"error": "unauthorized", "error_description": "missing or wrong bearer token"}
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b'Bearer realm="mnemosyne"'),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def serve_http(
    server: MCPServer, host: str, port: int, *, token: str | None, log_level: str = "warning"
) -> None:
    """Serve ``server`` over streamable HTTP at ``http://host:port/mcp`` until stopped.

    With ``token`` every request must carry it as a bearer token. On a loopback host the
    SDK also refuses requests whose Host/Origin header is not a loopback name (DNS
    rebinding protection). The caller decides whether a token is required.
    """
    import uvicorn

    app: Any = server.streamable_http_app(host=host)
    if token is not None:
        app = BearerTokenGate(app, token)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False)
    uvicorn.Server(config).run()
