"""How tool specs become MCP tools: descriptions, schemas, hints, results and errors.

A ``ToolSpec`` names a tool and the method of an owner (``Door``, ``SessionDoor``,
``CurationDoor``) that is its body: the method's signature is the tool's input schema,
its return annotation the output model, its docstring the description. Which tools a
server offers is decided in ``server`` (the tool sets); this module only builds them.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations

from ..errors import MnemosyneError, error_dict

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its name, the owner's method that is its body, and its hints.

    ``read_only_method``: a narrower body a read-only server offers under the same name
    (``memory_session`` reads a startup bundle there, and cannot store a handoff).
    """

    name: str
    method: str
    title: str
    read_only: bool
    destructive: bool = False
    idempotent: bool = True
    read_only_method: str | None = None


def tool_annotations(spec: ToolSpec, *, read_only: bool) -> ToolAnnotations:
    # All four hints explicitly: clients default a missing destructiveHint to true and
    # a missing openWorldHint to true. The vault is a closed world.
    return ToolAnnotations(
        title=spec.title,
        read_only_hint=read_only,
        destructive_hint=False if read_only else spec.destructive,
        idempotent_hint=True if read_only else spec.idempotent,
        open_world_hint=False,
    )


def also(tool: str, sentence: str) -> Callable:
    """Add ``sentence`` to the decorated tool's description when ``tool`` is offered too,
    so a description never sends the model to a tool this server does not have."""

    def mark(method: Callable) -> Callable:
        method.__dict__.setdefault("_mcp_also", []).insert(0, (tool, sentence))
        return method

    return mark


def describe(method: Callable, offered: Collection[str]) -> str:
    """The method's docstring, dedented and unwrapped (one line per paragraph), plus its
    ``also`` sentences for ``offered``."""
    paragraphs = inspect.cleandoc(method.__doc__ or "").split("\n\n")
    text = "\n\n".join(" ".join(paragraph.split("\n")) for paragraph in paragraphs)
    extra = [sentence for tool, sentence in getattr(method, "_mcp_also", ()) if tool in offered]
    return " ".join([text, *extra]) if extra else text


def compact_schema(schema: Any) -> Any:
    """A JSON schema without pydantic's generated titles (``"title": "Query"`` beside a
    property named ``query``, ``"searchArguments"`` on the whole): they repeat the names
    and are sent in every ``tools/list``. Property *names* called ``title`` stay."""
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value)
    return out


def tool_result(data: dict) -> CallToolResult:
    """The library's dict as structured content (validated by the SDK against the
    tool's output model when it publishes one) and as JSON text for clients that read
    only text."""
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


def error_result(error: MnemosyneError, offered: Collection[str]) -> CallToolResult:
    """A library error as a tool error: ``isError`` with the shared error shape as
    structured content (``error_type``, ``message``, ``hint`` naming this server's
    tools, the error's fields such as ``current_version``) and the same JSON as text."""
    data = error_dict(error, "mcp", offered=offered)
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=data, is_error=True
    )


def build_tool(
    owner: object,
    spec: ToolSpec,
    *,
    read_only: bool,
    offered: Collection[str],
    output_schema: bool,
) -> Tool:
    """The SDK ``Tool`` for ``spec`` on ``owner`` (its read-only form on a ``read_only``
    server): a body that answers a library error with ``error_result``, a description
    for the ``offered`` tools, compact schemas, and the output schema only when
    ``output_schema``."""
    narrow = read_only and spec.read_only_method is not None
    method = getattr(owner, spec.read_only_method if narrow else spec.method)

    @functools.wraps(method)
    def body(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except MnemosyneError as exc:
            # As the SDK logs a deliberate ToolError: one line, no traceback.
            log.info("tool %s failed: %s: %s", spec.name, type(exc).__name__, exc.message)
            return error_result(exc, offered)

    tool = Tool.from_function(
        body,
        name=spec.name,
        title=spec.title,
        description=describe(method, offered),
        annotations=tool_annotations(spec, read_only=spec.read_only or narrow),
        # Without an output schema the result still carries structured content.
        structured_output=None if output_schema else False,
    )
    tool.parameters = compact_schema(tool.parameters)
    if tool.fn_metadata.output_schema is not None:
        tool.fn_metadata.output_schema = compact_schema(tool.fn_metadata.output_schema)
    return tool
