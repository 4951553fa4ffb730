"""Edit, move and recent tools (issue 17): change part of a note, move or rename one with
the links to it rewritten, and see what changed lately.

One block, as ``session_tools`` is: the result models, the tool bodies (one
``VaultMemory`` call each, through the shared ``Door``) and their specs. Which set offers
them is decided in ``server``: ``memory_edit`` is in the default set, beside
``memory_remember``; ``memory_move`` and ``memory_recent`` only in ``--tools full``.
"""

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field

from .memory_tools import Door, Key
from .shapes import Move, Shape, WriteResult
from .tooling import ToolSpec, also, tool_result

When = Annotated[
    str | None,
    Field(
        description="a day (2026-03-02), a UTC time (2026-03-02T10:15, or with Z or "
        "+02:00) or a span back from now (7d, 12h, 2w)"
    ),
]


class LinkChange(Shape):
    line: int
    from_: str = Field(alias="from", description="the link as written now")
    to: str = Field(description="the link as the move writes it")


class LinkChanges(Shape):
    key: str
    path: str = Field(description="a note whose links the move rewrites")
    links: list[LinkChange]


class MoveNoteResult(Shape):
    mode: Literal["preview", "applied"]
    plan_id: str = Field(description="pass it back with confirm=true to apply this plan")
    operation: str
    key: str
    path: str = Field(description="the note's path (after an apply: its new path)")
    to: str = Field(description="where the note goes")
    title: str | None = None
    moves: list[Move]
    changes: list[LinkChanges] = Field(description="every link the move rewrites, by note")
    warnings: list[str]
    transaction_id: str | None = Field(None, description="memory_undo with it reverses it all")
    state: str | None = None
    paths: list[str] | None = None
    previous_path: str | None = None


class RecentChange(Shape):
    key: str | None = None
    path: str
    title: str | None = None
    zone: str
    change: Literal["created", "edited", "moved", "archived", "restored", "modified"]
    operation: str | None = Field(None, description="the journaled operation that did it")
    at: str = Field(description="when, UTC")
    transaction_id: str | None = None
    previous_path: str | None = None
    source: Literal["journal", "file"]


class RecentResult(Shape):
    changes: list[RecentChange] = Field(description="one per note, newest first")
    total: int = Field(description="changes in the window, before limit")
    limit: int


class EditDoor:
    """Tool bodies for editing, moving and the recent-changes view."""

    def __init__(self, door: Door) -> None:
        self.door = door
        self.memory = door.memory

    @also("memory_undo", "memory_undo with its transaction_id puts the exact bytes back.")
    def edit(
        self,
        key: Key,
        operation: Literal["prepend", "find_replace", "replace_section", "append", "replace"],
        content: Annotated[str, Field(description="the new Markdown text")],
        find: Annotated[str | None, Field(description="find_replace: the exact text")] = None,
        expected_count: Annotated[
            int, Field(description="find_replace: how many times find must occur")
        ] = 1,
        section: Annotated[
            str | None,
            Field(description="replace_section: its heading ('## Verify' sets the level)"),
        ] = None,
        expected_version: Annotated[
            str | None, Field(description="from memory_get_note; required for replace_section")
        ] = None,
        source: Annotated[str | list[str] | None, Field(description="where this came from")] = None,
    ) -> Annotated[CallToolResult, WriteResult]:
        """Change part of a note: prepend (content first, after the frontmatter),
        find_replace (find becomes content; refused unless found expected_count times),
        replace_section (the text under one heading becomes content), or append/replace
        as memory_remember. Matches the stored text: [REDACTED] marks never match."""
        return tool_result(
            self.door.call(
                self.memory.edit_note,
                key,
                operation,
                content,
                find=find,
                section=section,
                expected_count=expected_count,
                expected_version=expected_version,
                source=source,
            )
        )

    def move(
        self,
        key: Key,
        to: Annotated[
            str | None,
            Field(
                description="the new vault-relative path ('.md' optional; 'folder/' keeps "
                "the file name)"
            ),
        ] = None,
        title: Annotated[
            str | None,
            Field(description="a new title; without to, the file is renamed after it"),
        ] = None,
        confirm: Annotated[
            bool, Field(description="false (default): only show the plan; true: apply it")
        ] = False,
        plan_id: Annotated[
            str | None, Field(description="with confirm: the plan_id of the preview you checked")
        ] = None,
    ) -> Annotated[CallToolResult, MoveNoteResult]:
        """Move or rename a note; every [[wikilink]] that would stop pointing at it (or at
        the note it names now) is rewritten. A dry run unless confirm=true: check the plan
        (changes lists each link by note and line), then call again with confirm=true and
        its plan_id — refused if anything changed since. One journaled change:
        memory_undo with the transaction_id restores every file. Refused when the target
        exists, leaves the vault, or is in a hidden or reserved folder."""
        return tool_result(
            self.door.call(self.memory.move, key, to, title=title, confirm=confirm, plan_id=plan_id)
        )

    def recent(
        self,
        limit: Annotated[int, Field(description="at most this many notes (1-200)")] = 20,
        since: When = None,
        until: When = None,
    ) -> Annotated[CallToolResult, RecentResult]:
        """The notes changed most recently, newest first, with what changed: created,
        edited, moved, archived, restored (from the journal, with the operation and
        transaction_id) or modified (changed outside the memory tools, by file time).
        Does not record usage."""
        return tool_result(self.door.call(self.memory.recent, limit, since=since, until=until))


EDIT_TOOLS = (
    # rewrites part of a note; prepending twice adds the text twice
    ToolSpec(
        "memory_edit", "edit", "Edit part of a note", False, destructive=True, idempotent=False
    ),
    # changes paths and other notes' links; the same move again finds nothing to move
    ToolSpec("memory_move", "move", "Move or rename a note", False, destructive=True),
    ToolSpec("memory_recent", "recent", "Recently changed notes", read_only=True),
)
