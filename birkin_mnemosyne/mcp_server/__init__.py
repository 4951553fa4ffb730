"""The MCP door: ``VaultMemory`` as Model Context Protocol tools, resources and prompts.

The only package that imports the ``mcp`` extra (official SDK v2, ``mcp>=2.3,<3``) and
``pydantic``. ``mcp_main`` (the ``mnemosyne-mcp`` command) parses its options with the
standard library and imports this package only to serve.

Every tool is one ``VaultMemory`` call; the library decides, this package translates:

* arguments arrive validated against the tool's input schema; results leave as the
  library's dict (the shared shapes of DESIGN.md) in ``structuredContent``, checked
  against a pydantic model that mirrors the shape (extra keys allowed) and published as
  the tool's ``outputSchema``, plus the same JSON as text for clients that ignore it;
* a ``MnemosyneError`` becomes a ``ToolError`` carrying the library's message (the
  client gets ``isError`` and the text); anything else is logged on stderr with its
  traceback and the client sees only "Error executing tool ...". The server keeps
  serving either way;
* the SDK runs synchronous tools on worker threads; one lock makes the calls into the
  (not thread-safe) ``VaultMemory`` one at a time;
* reads never record usage: ``memory_mark_used`` does, when the model says it used a
  note, so a client may allow every read-only tool without asking.

``build_server(memory, read_only=...)`` returns an ``MCPServer``; ``serve_http`` runs
it over streamable HTTP behind an optional bearer-token gate.

One module per area:

* ``server``: ``build_server``, the tool name lists, the instructions, the digest and
  note resources, the ``recall_before_answer`` prompt;
* ``tooling``: how a tool table becomes tools (hints, results, registration);
* ``shapes``: the pydantic models of the results (``outputSchema``) and of expansions;
* ``memory_tools``: ``Door`` (the one, serialized way into ``VaultMemory``) and the
  note tools;
* ``session_tools``: memory INDEX, startup bundle and handoff tools, ``mnemosyne://index``;
* ``curation_tools``: curation, review and capacity tools, the ``curate_vault`` prompt;
* ``http``: ``serve_http`` and its ``BearerTokenGate``.
"""

from ..errors import ExtraNotInstalledError

# Checked here, before any submodule imports the SDK, so that importing this package
# without the extra (or with an old v1 SDK) always fails with the same one-line error.
try:
    import mcp.server.mcpserver.exceptions  # noqa: F401
    import mcp.types  # noqa: F401
    import pydantic  # noqa: F401
except ImportError as exc:  # the extra is missing, or an old (v1) SDK is installed
    raise ExtraNotInstalledError("mcp", "the MCP server (mnemosyne-mcp)") from exc

from .http import BearerTokenGate, serve_http  # noqa: E402
from .server import (  # noqa: E402
    INSTRUCTIONS,
    INSTRUCTIONS_WRITE,
    READ_TOOLS,
    WRITE_TOOLS,
    build_server,
)

__all__ = [
    "BearerTokenGate",
    "INSTRUCTIONS",
    "INSTRUCTIONS_WRITE",
    "READ_TOOLS",
    "WRITE_TOOLS",
    "build_server",
    "serve_http",
]
