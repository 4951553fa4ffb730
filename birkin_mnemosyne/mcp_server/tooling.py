"""How a tool table becomes MCP tools: hints, results and registration.

A table row is ``(tool name, method name, title, hints)``; the method's signature is the
tool's input schema, its return annotation the output model, its docstring the
description.
"""

import inspect
import json

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent, ToolAnnotations

ToolTable = tuple[tuple[str, str, str, dict], ...]


def tool_annotations(
    title: str, *, read_only: bool, destructive: bool = False, idempotent: bool = True
) -> ToolAnnotations:
    # All four hints explicitly: clients default a missing destructiveHint to true and
    # a missing openWorldHint to true. The vault is a closed world.
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def tool_result(data: dict) -> CallToolResult:
    """The library's dict as structured content (validated by the SDK against the
    tool's output model) and as JSON text for clients that read only text."""
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def register_tools(server: MCPServer, owner, table: ToolTable, *, read_only: bool) -> None:
    """Add each ``(name, method, title, hints)`` of ``table`` as a tool whose body is
    ``owner.method``; write tools are left out of a read-only server."""
    for name, method, title, hints in table:
        if read_only and not hints["read_only"]:
            continue
        body = getattr(owner, method)
        server.add_tool(
            body,
            name=name,
            description=inspect.cleandoc(body.__doc__),
            annotations=tool_annotations(title, **hints),
        )
