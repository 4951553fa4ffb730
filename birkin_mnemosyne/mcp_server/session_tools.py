"""Session memory tools: the memory INDEX, the startup reader and handoffs (issue 6).

One block: the tool bodies, their table and the ``mnemosyne://index`` resource. Each
tool is one ``MemoryIndex`` / ``StartupReader`` / ``HandoffStore`` call on the door's
vault. ``memory_session`` is the compact set's one session tool: the startup bundle
and the handoff capture behind one ``action`` argument.
"""

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from pydantic import Field

from ..errors import InvalidInputError
from .memory_tools import Door
from .shapes import Shape
from .tooling import ToolSpec, also, tool_result


class SessionResult(Shape):
    """The library's dict for a session-memory call (see docs/reference/session-memory.md)."""


ProjectKey = Annotated[str, Field(description="the project whose handoffs these are")]
TaskKey = Annotated[str | None, Field(description="optional task within the project")]
PlanId = Annotated[str | None, Field(description="the plan_id the preview returned")]
Apply = Annotated[bool, Field(description="false (default): preview only; true: write it")]
StartPaths = Annotated[list[str] | None, Field(description="start: notes that must be included")]
StartTask = Annotated[
    str | None, Field(description="start: what this session is about (routes INDEX notes)")
]
SessionProject = Annotated[
    str | None, Field(description="the project; start: include its latest handoff")
]
# The handoff's fields as one object: the library checks them and names the valid ones.
HandoffNote = Annotated[
    dict[str, str | list[str]] | None,
    Field(
        description="handoff: work_done, next_step (text); decisions, open_items, "
        "open_questions, links (lists of text)"
    ),
]


class SessionDoor:
    """Tool bodies for the memory INDEX, the startup reader and handoffs."""

    def __init__(self, door: Door) -> None:
        from ..handoffs import HandoffStore
        from ..memory_index import MemoryIndex
        from ..startup import StartupReader

        self.door = door
        vault = door.memory.vault
        self.index = MemoryIndex(vault)
        self.startup = StartupReader(vault, index=self.index)
        self.handoffs = HandoffStore(vault)

    def _scope(self, project_key: str, task_key: str | None):
        from ..handoffs import HandoffScope

        return HandoffScope(project_key, task_key)

    def session(
        self,
        action: Annotated[
            Literal["start", "handoff"],
            Field(description="start: read the startup bundle; handoff: store one"),
        ] = "start",
        project_key: SessionProject = None,
        task_key: TaskKey = None,
        task: StartTask = None,
        paths: StartPaths = None,
        handoff: HandoffNote = None,
        capture_id: Annotated[
            str | None, Field(description="handoff: same id + same fields = a safe retry")
        ] = None,
    ) -> Annotated[CallToolResult, SessionResult]:
        """Begin or hand over a session.

        action=start, first thing: one bundle of the memory INDEX, the latest handoff of
        project_key (and task_key), the notes in paths and every note routed to task,
        each complete, with a sha256 receipt; it fails rather than return a partial
        bundle. action=handoff, last thing: store where this session left off (needs
        project_key and handoff) as an immutable record for the next one.
        """
        if action == "handoff":
            scope = self.door.call(self._scope, project_key, task_key)
            return tool_result(
                self.door.call(self.handoffs.capture, scope, handoff or {}, capture_id=capture_id)
            )
        if handoff is not None or capture_id is not None:
            raise InvalidInputError(
                "handoff and capture_id go with action='handoff'; action='start' only reads"
            )
        return self.session_start(
            project_key=project_key, task_key=task_key, task=task, paths=paths
        )

    def session_start(
        self,
        action: Annotated[
            Literal["start"], Field(description="start: read the startup bundle")
        ] = "start",
        project_key: SessionProject = None,
        task_key: TaskKey = None,
        task: StartTask = None,
        paths: StartPaths = None,
    ) -> Annotated[CallToolResult, SessionResult]:
        """Begin a session (action=start, first thing): one bundle of the memory INDEX,
        the latest handoff of project_key (and task_key), the notes in paths and every
        note routed to task, each complete, with a sha256 receipt; it fails rather than
        return a partial bundle."""
        return tool_result(
            self.door.call(
                self.startup.read,
                paths or [],
                task=task,
                project_key=project_key,
                task_key=task_key,
            )
        )

    def index_register(
        self,
        trigger: Annotated[
            str, Field(description="when to read it, e.g. 'restoring the database'")
        ],
        path: Annotated[str, Field(description="the note's vault-relative path")],
    ) -> Annotated[CallToolResult, SessionResult]:
        """Add a route trigger -> note to the always-loaded memory INDEX (idempotent;
        opts the vault in). Routes are never evicted."""
        return tool_result(self.door.call(self.index.register, trigger, path))

    def index_read(
        self,
        topic: Annotated[
            str | None, Field(description="a topic (folder) of the topic map; omit for the INDEX")
        ] = None,
    ) -> Annotated[CallToolResult, SessionResult]:
        """The resident memory INDEX within its token budget (a topic map when it has
        outgrown it), or every route of one topic. Tokens are UTF-8 bytes / 4."""
        return tool_result(self.door.call(self.index.read, topic))

    def open_trigger(
        self, trigger: Annotated[str, Field(description="an exact trigger from the INDEX")]
    ) -> Annotated[CallToolResult, SessionResult]:
        """The complete notes an exact INDEX trigger names; when none matches, search
        hits instead with fallback=true."""
        return tool_result(self.door.call(self.index.open, trigger))

    def index_check(self) -> Annotated[CallToolResult, SessionResult]:
        """Orphan notes, dangling routes and coverage of the INDEX (writes nothing)."""
        return tool_result(self.door.call(self.index.check))

    @also("memory_undo", "memory_undo reverses it.")
    def index_split(
        self,
        path: Annotated[str, Field(description="the long note to split")],
        apply: Apply = False,
        plan_id: PlanId = None,
    ) -> Annotated[CallToolResult, SessionResult]:
        """Split a long note into routed topic notes without losing a byte (coverage
        table). Preview first; apply with the plan_id."""
        return tool_result(self.door.call(self.index.split, path, apply=apply, plan_id=plan_id))

    def startup_read(
        self,
        paths: Annotated[list[str], Field(description="notes that must be included")] = [],  # noqa: B006
        task: Annotated[str | None, Field(description="what this session is about")] = None,
        project_key: Annotated[str | None, Field(description="include its latest handoff")] = None,
        task_key: TaskKey = None,
    ) -> Annotated[CallToolResult, SessionResult]:
        """One bundle for a session start: the INDEX, the latest handoff, the notes asked
        for and every note routed to the task, each complete, with a sha256 receipt.
        Fails rather than return a partial bundle."""
        return tool_result(
            self.door.call(
                self.startup.read, paths, task=task, project_key=project_key, task_key=task_key
            )
        )

    def startup_verify(
        self, bundle: Annotated[dict[str, Any], Field(description="a memory_startup_read result")]
    ) -> Annotated[CallToolResult, SessionResult]:
        """Re-read a startup bundle's sources: exact=true when nothing changed since."""
        return tool_result(self.door.call(self.startup.verify, bundle))

    def handoff_capture(
        self,
        project_key: ProjectKey,
        task_key: TaskKey = None,
        work_done: str = "",
        decisions: list[str] | None = None,
        open_items: list[str] | None = None,
        open_questions: list[str] | None = None,
        next_step: str = "",
        links: list[str] | None = None,
        capture_id: Annotated[
            str | None, Field(description="makes a retry safe: same id + same fields = no-op")
        ] = None,
    ) -> Annotated[CallToolResult, SessionResult]:
        """Store an immutable handoff: where this session left off, for the next one."""
        fields = {
            "work_done": work_done,
            "decisions": decisions or [],
            "open_items": open_items or [],
            "open_questions": open_questions or [],
            "next_step": next_step,
            "links": links or [],
        }
        scope = self.door.call(self._scope, project_key, task_key)
        return tool_result(
            self.door.call(self.handoffs.capture, scope, fields, capture_id=capture_id)
        )

    def handoff_read(
        self,
        project_key: ProjectKey,
        task_key: TaskKey = None,
        history: Annotated[int, Field(description="earlier handoffs to summarise", ge=0)] = 3,
    ) -> Annotated[CallToolResult, SessionResult]:
        """The latest handoff of a project (and task) plus a short history."""
        scope = self.door.call(self._scope, project_key, task_key)
        return tool_result(self.door.call(self.handoffs.resume, scope, history=history))

    @also("memory_undo", "memory_undo reverses it.")
    def handoff_fold(
        self,
        project_key: ProjectKey,
        task_key: TaskKey = None,
        keep: Annotated[int, Field(description="newest handoffs kept", ge=0)] = 3,
        apply: Apply = False,
        plan_id: PlanId = None,
    ) -> Annotated[CallToolResult, SessionResult]:
        """Fold older handoffs into one dated summary and archive them. Preview first;
        apply with the plan_id."""
        scope = self.door.call(self._scope, project_key, task_key)
        return tool_result(
            self.door.call(self.handoffs.fold, scope, keep=keep, apply=apply, plan_id=plan_id)
        )


SESSION_TOOLS = (
    # a read-only server offers the start action alone (session_start)
    ToolSpec(
        "memory_session",
        "session",
        "Start or hand over a session",
        False,
        idempotent=False,  # a handoff without capture_id is stored again
        read_only_method="session_start",
    ),
    ToolSpec("memory_index_read", "index_read", "Read the memory INDEX", read_only=True),
    ToolSpec("memory_open_trigger", "open_trigger", "Open an INDEX trigger", read_only=True),
    ToolSpec("memory_index_check", "index_check", "Check the memory INDEX", read_only=True),
    ToolSpec("memory_startup_read", "startup_read", "Read a startup bundle", read_only=True),
    ToolSpec("memory_startup_verify", "startup_verify", "Verify a startup bundle", read_only=True),
    ToolSpec("memory_handoff_read", "handoff_read", "Read the latest handoff", read_only=True),
    ToolSpec("memory_index_register", "index_register", "Register an INDEX route", False),
    ToolSpec("memory_index_split", "index_split", "Split a long note", False, destructive=True),
    # with the same capture_id a retry returns the original
    ToolSpec(
        "memory_handoff_capture", "handoff_capture", "Capture a handoff", False, idempotent=False
    ),
    ToolSpec("memory_handoff_fold", "handoff_fold", "Fold older handoffs", False, destructive=True),
)


def add_index_resource(server: MCPServer, session: SessionDoor) -> None:
    """``mnemosyne://index``, when the vault has opted in to the memory INDEX (a vault
    without it lists the same resources as before)."""
    if not session.index.enabled:
        return

    @server.resource(
        "mnemosyne://index",
        name="index",
        title="Memory INDEX",
        description="The always-loaded memory INDEX: which note to read when.",
        mime_type="text/markdown",
    )
    def memory_index() -> str:
        return session.door.read(session.index.render)["text"]
