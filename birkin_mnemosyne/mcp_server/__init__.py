"""The MCP door: ``VaultMemory`` as Model Context Protocol tools, resources and prompts.

The only package that imports the ``mcp`` extra (official SDK v2, ``mcp>=2.3,<3``) and
``pydantic``. ``mcp_main`` (the ``mnemosyne-mcp`` command) parses its options with the
standard library and imports this package only to serve.

Every tool is one ``VaultMemory`` call; the library decides, this package translates:

* a server offers one tool set: ``default``, six tools under ~3k tokens of schemas
  (search, latest, read, write, status, a session tool), or ``full`` (every tool, with
  output schemas); a read-only server only the read tools of its set. The sets are
  listed in ``server`` and nowhere else;
* arguments arrive validated against the tool's input schema; results leave as the
  library's dict (the shared shapes of DESIGN.md) in ``structuredContent``, checked
  (in the full set) against a pydantic model that mirrors the shape (extra keys allowed)
  and published as the tool's ``outputSchema``, plus the same JSON as text for clients
  that ignore it;
* a ``MnemosyneError`` becomes an error result (``isError``) whose structured content
  is the error shape every door shares (``errors.error_dict``: ``error_type``,
  ``message``, ``hint`` naming this server's tools, ``current_version``,
  ``candidates``, ...), and the same JSON as text; anything else is logged on stderr
  with its traceback and the client sees only "Error executing tool ...". The server
  keeps serving either way;
* the SDK runs synchronous tools on worker threads; one lock makes the calls into the
  (not thread-safe) ``VaultMemory`` one at a time;
* reads never record usage: ``memory_mark_used`` does, when the model says it used a
  note, so a client may allow every read-only tool without asking.

``build_server(memory, read_only=..., tools=...)`` returns an ``MCPServer``;
``serve_http`` runs it over streamable HTTP behind an optional bearer-token gate.

One module per area:

* ``server``: ``build_server``, the tool sets, the instructions, the digest and note
  resources, the ``recall_before_answer`` prompt;
* ``tooling``: how a ``ToolSpec`` becomes a tool (description, compact schemas, hints,
  results, error results);
* ``shapes``: the pydantic models of the results (``outputSchema``) and of expansions;
* ``memory_tools``: ``Door`` (the one, serialized way into ``VaultMemory``) and the
  note tools;
* ``session_tools``: ``memory_session``, the memory INDEX, startup bundle and handoff
  tools, ``mnemosyne://index``;
* ``curation_tools``: curation, review and capacity tools, the ``curate_vault`` prompt;
* ``edit_tools``: ``memory_edit``, ``memory_move`` and ``memory_recent`` (issue 17);
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
    DEFAULT_TOOLS,
    FULL_ONLY_TOOLS,
    TOOL_SETS,
    build_server,
    instructions,
    tool_names,
)

__all__ = [
    "BearerTokenGate",
    "DEFAULT_TOOLS",
    "FULL_ONLY_TOOLS",
    "TOOL_SETS",
    "build_server",
    "instructions",
    "serve_http",
    "tool_names",
]
