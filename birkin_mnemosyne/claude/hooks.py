"""Claude Code lifecycle hooks: one short process per event, no daemon, no model call.

Claude Code runs ``mnemosyne [--vault V] hook EVENT`` with the event's JSON on stdin
and reads a JSON object from stdout (``docs/how-to/claude-code.md`` lists the payload
fields relied on, with their sources). What each event gets:

``SessionStart`` (startup, resume, clear, compact)
    The startup bundle of the repository's project: the latest handoff (its project key
    is the repository's folder name, or ``$MNEMOSYNE_PROJECT_KEY``), the INDEX, and the
    notes whose INDEX triggers match the handoff's next step and open items, each with
    the first 12 hex digits of its sha256 so the agent can verify what it read
    (``StartupReader``). Nothing when there is nothing to say.
``UserPromptSubmit``
    A recall for the prompt (``<private>`` spans left out first), only when the search
    verdict is confident (``confidence`` high, or as low as ``--min-confidence``); else
    nothing: a weak match costs tokens and misleads.
``PostToolUseFailure``, and ``PostToolUse`` of a ``Bash`` call that failed
    A reflex on the error text: the notes whose declared ``error:`` triggers occur in
    it (``reflexes``), then, when the search of the error's telling line is confident,
    its best note.
``PreToolUse``
    Reflexes only: ``file:`` triggers for the file an edit touches, address-like
    ``target:`` triggers for the hosts a Bash command names. Never a search, never a
    permission decision: a hook here informs, it does not block.
``PreCompact``, ``SessionEnd``
    A handoff captured from the transcript (``transcript.session_summary``): the last
    request, the assistant's last summary, files touched, failed commands and open
    todos, under the capture id ``claude:<session>:<event>:<digest>`` (capturing the
    same state again is a no-op).

Every event fails open: a malformed or oversized payload, a missing vault, an error or
the time budget running out prints nothing on stdout, one line on stderr, and exits 0
(exit 2 would block the prompt or the tool call). Injected text stays within a token
budget (UTF-8 bytes / 4, as ``estimate_tokens``) and is redacted as every served text.
Nothing is written outside the vault; only the compaction and session-end events write
(a handoff record).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import threading
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import MnemosyneError
from ..markdown import estimate_tokens

__all__ = [
    "EVENTS",
    "MAX_PAYLOAD_BYTES",
    "ACTION_CHECK_INTERVAL_S",
    "TIME_BUDGET_S",
    "TOKEN_BUDGET",
    "HookResult",
    "project_key_of",
    "run_hook",
]

EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PreCompact",
    "SessionEnd",
)
# A payload is a prompt or a tool call; a Write of a large file carries the file. Past
# this the hook reads no further and does nothing.
MAX_PAYLOAD_BYTES = 8 * 1024 * 1024
# Seconds each event may take before it gives up (fail-open). Below the timeouts the
# installer gives Claude Code (``install.HOOK_TABLE``), so the hook, not the client,
# decides what happens when time runs out. SessionStart allows a first index build.
TIME_BUDGET_S = {
    "SessionStart": 50.0,
    "UserPromptSubmit": 8.0,
    "PreToolUse": 4.0,
    "PostToolUse": 4.0,
    "PostToolUseFailure": 4.0,
    "PreCompact": 25.0,
    "SessionEnd": 25.0,
}
# Estimated tokens each event may inject (``--budget-tokens`` overrides).
TOKEN_BUDGET = {
    "SessionStart": 2000,
    "UserPromptSubmit": 600,
    "PreToolUse": 400,
    "PostToolUse": 600,
    "PostToolUseFailure": 600,
}
# The events that fire at the moment of action (every prompt, every tool call) take a
# stat pass of the vault up to this many seconds old, any process's (``freshness``),
# instead of stat'ing every note first: 80-90 ms at 10k notes, about a second at 100k,
# on most prompts otherwise, for prompts are more than the engine's default 2 s apart.
# Writes through this project's doors are in the index log and seen at once; an edit
# made in an editor within the window may be missed by a recall. SessionStart and the
# capture events keep the engine's default.
ACTION_CHECK_INTERVAL_S = 60.0
_ACTION_EVENTS = frozenset({"UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure"})
CONFIDENCE_ORDER = ("low", "medium", "high")
DEFAULT_MIN_CONFIDENCE = "high"
_RECALL_LIMIT = 3
_MIN_PROMPT_CHARS = 8
_QUERY_CHARS = 1000
_CUT = "… (cut)"
_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
# A line of an error output that says what went wrong (its last such line is searched).
_ERROR_LINE = re.compile(
    r"error|exception|fatal|failed|failure|denied|refused|not found|no such|cannot|"
    r"can't|unable|timed? ?out|panic|traceback|errno|E[A-Z]{3,}\b|\b[A-Z][a-z]+Error\b",
    re.IGNORECASE,
)


@dataclass
class HookResult:
    """What a hook prints: ``output`` as JSON on stdout (None: nothing), ``note`` as one
    line on stderr (why nothing was done, or what was written)."""

    output: dict | None = None
    note: str = ""
    details: dict = field(default_factory=dict)


class _NotBuilt(Exception):
    """The search index is not on disk: a prompt or tool hook does not build it."""


class _OutOfTime(BaseException):
    """The time budget ran out (a BaseException: no ``except Exception`` swallows it)."""


@contextmanager
def _deadline(seconds: float):
    """Raise ``_OutOfTime`` in this thread after ``seconds`` (POSIX main thread; elsewhere
    the budget is not enforced here and the client's own timeout applies)."""
    usable = (
        seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def expire(signum, frame):
        raise _OutOfTime

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _cut(text: str, tokens: int) -> str:
    """``text`` within ``tokens`` estimated tokens, cut at a line or word end."""
    if tokens <= 0:
        return ""
    if estimate_tokens(text) <= tokens:
        return text
    data = text.encode("utf-8")[: max(0, tokens * 4 - len(_CUT.encode("utf-8")) - 1)]
    head = data.decode("utf-8", "ignore")
    for stop in ("\n", " "):
        at = head.rfind(stop)
        if at > len(head) // 2:
            head = head[:at]
            break
    return head.rstrip() + " " + _CUT


def _context(event: str, text: str) -> dict:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def project_key_of(cwd: str | None, env: dict | None = None) -> str | None:
    """The handoff project of a session: ``$MNEMOSYNE_PROJECT_KEY``, else the name of
    the git repository holding ``cwd`` (its top folder), else ``cwd``'s own name."""
    env = os.environ if env is None else env
    given = (env.get("MNEMOSYNE_PROJECT_KEY") or "").strip()
    if given:
        return given
    if not cwd or not isinstance(cwd, str):
        return None
    start = Path(cwd)
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder.name or None
    return start.name or None


def _private_free(text: str) -> str:
    from .transcript import strip_private

    return strip_private(text)


# -- the events ------------------------------------------------------------------------


def _session_start(ctx: _Context) -> HookResult:
    from ..handoffs import render_record
    from ..startup import StartupReader

    reader = StartupReader(ctx.vault)
    project = project_key_of(ctx.payload.get("cwd"), ctx.env)
    handoff = None
    if project:
        from ..handoffs import HandoffScope

        handoff = reader.handoffs.latest(HandoffScope(project))
    task = None
    if handoff:
        fields = handoff["fields"]
        task = " ".join([fields.get("next_step") or "", *(fields.get("open_items") or [])])
        task = task.strip() or None
    try:
        bundle = reader.read(task=task)
    except MnemosyneError:  # a route to a note gone or too large: the rest still loads
        bundle = reader.read()
    budget = ctx.budget_tokens
    parts: list[str] = []
    header = (
        f"# Memory (birkin-mnemosyne), vault {ctx.vault}\n"
        "Search it before answering from memory (MCP tool memory_search, or "
        "`mnemosyne search`)."
    )
    used = estimate_tokens(header)
    if handoff:
        text = _cut(render_record(handoff), int(budget * 0.4))
        parts.append(f"## Last handoff of project {project}\n\n{text}")
    index = bundle["index"]
    if index and index.get("mode") != "empty":
        parts.append(_cut(index["text"], int(budget * 0.35)))
    for file in bundle["files"]:
        left = budget - used - sum(estimate_tokens(p) for p in parts)
        if left < 40:
            break
        head = f"## {file['path']} (sha256 {file['sha256'][:12]}, matched the handoff's task)\n\n"
        parts.append(head + _cut(file["text"], left - estimate_tokens(head)))
    # The prompt and tool hooks have seconds; this one has the time a first index build
    # takes. Build it here, so a large vault's first prompt is not the one to pay.
    built = _warm_search_index(ctx)
    if not parts:
        return HookResult(
            None,
            "nothing to load: no handoff, INDEX routes or matched notes"
            + ("; the search index was built" if built else ""),
        )
    text = _cut("\n\n".join([header, *parts]), budget)
    return HookResult(
        _context("SessionStart", text),
        details={"project_key": project, "files": [f["path"] for f in bundle["files"]]},
    )


def _warm_search_index(ctx: _Context) -> bool:
    """Build the search index when none is usable on disk (True if it was built)."""
    from ..engine import Mnemosyne

    engine = Mnemosyne(ctx.vault)
    try:
        if not engine.needs_build():
            return False
        engine.index  # noqa: B018 - loading is building when there is no index
        return True
    finally:
        engine.close()


def _hit_lines(hits: list[dict], budget: int) -> list[str]:
    lines = []
    for hit in hits:
        where = hit["path"] + (f" › {hit['heading']}" if hit.get("heading") else "")
        flags = " [stale]" if hit.get("stale") else ""
        date = f", {hit['date']}" if hit.get("date") else ""
        lines.append(f"- {hit['title']}{flags} ({where}{date})")
        if hit.get("snippet"):
            lines.append(f"  {hit['snippet']}")
    return [_cut("\n".join(lines), budget)] if lines else []


def _search(ctx: _Context, query: str) -> dict | None:
    """The search response for ``query`` if its verdict is confident enough, else None."""
    memory = ctx.memory()
    response = memory.search_response(query, limit=_RECALL_LIMIT)
    if response["no_strong_match"] or not response["hits"]:
        return None
    confidence = response.get("confidence") or "low"
    if CONFIDENCE_ORDER.index(confidence) < CONFIDENCE_ORDER.index(ctx.min_confidence):
        return None
    return response


def _query_of(text: str) -> str:
    from ..engine import MAX_QUERY_CHARS

    text = " ".join(text.split())
    limit = min(_QUERY_CHARS, MAX_QUERY_CHARS)
    if len(text) > limit:
        text = text[:limit].rsplit(" ", 1)[0]
    return text


def _user_prompt(ctx: _Context) -> HookResult:
    prompt = ctx.payload.get("prompt")
    if not isinstance(prompt, str):
        return HookResult(None, "the payload has no prompt")
    prompt = _query_of(_private_free(prompt))
    if len(prompt) < _MIN_PROMPT_CHARS or prompt.startswith("/"):
        return HookResult(None, "no recall for a short prompt or a slash command")
    response = _search(ctx, prompt)
    if response is None:
        return HookResult(None, "no confident match for the prompt")
    head = (
        f"Memory (birkin-mnemosyne) holds notes that match this prompt "
        f"(confidence {response['confidence']}); read them before relying on memory:"
    )
    body = _hit_lines(response["hits"], ctx.budget_tokens - estimate_tokens(head))
    return HookResult(
        _context("UserPromptSubmit", "\n".join([head, *body])),
        details={"hits": [h["path"] for h in response["hits"]]},
    )


def _reflex_notes(ctx: _Context, wanted: Callable[[str, str], bool]) -> list[tuple[dict, str]]:
    """``(note meta, trigger)`` for every live note declaring a trigger ``wanted`` says yes
    to (first trigger per note), in path order."""
    index = ctx.memory().engine.index
    found = []
    # From the columns: a note's row is built only when it declares a trigger wanted
    # (building every row cost ~0.1 s at 10k notes).
    columns = zip(index.note_column("reflexes"), index.note_column("archived"))
    for nid, (reflexes, archived) in enumerate(columns):
        if not reflexes or archived:
            continue
        for kind, value in reflexes:
            if wanted(kind, value):
                found.append((index.notes[nid], f"{kind}: {value}"))
                break
    found.sort(key=lambda pair: pair[0]["path"])
    return found


def _reflex_lines(ctx: _Context, found: list[tuple[dict, str]], budget: int) -> list[str]:
    """A line per reflex note, with the note's lead text, within ``budget``."""
    memory = ctx.memory()
    engine = memory.engine
    index = engine.index
    lines = []
    for meta, trigger in found:
        nid = index.by_path.get(meta["path"])
        lead = ""
        if nid is not None and index.note_count[nid]:
            text = engine._section_text(index, nid, index.note_first[nid]) or ""
            lead = " ".join(text.split())
        lines.append(f"- {meta['title']} ({meta['path']}; reflex {trigger})")
        if lead:
            lines.append(f"  {lead[:600]}")
    return [_cut("\n".join(lines), budget)] if lines else []


def _error_query(text: str) -> str | None:
    """The line of an error output that says what went wrong: its last telling line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    telling = [line for line in lines if _ERROR_LINE.search(line)]
    pick = (telling or lines or [""])[-1]
    return _query_of(pick) or None


def _failure(ctx: _Context, event: str, error: str, command: str) -> HookResult:
    from ..reflexes import matches_error, matches_target

    error = _private_free(error)

    def wanted(kind: str, value: str) -> bool:
        if kind == "error":
            return matches_error(value, error)
        return kind == "target" and bool(command) and matches_target(value, command)

    found = _reflex_notes(ctx, wanted)
    budget = ctx.budget_tokens
    head = "Memory (birkin-mnemosyne): lessons for this failure —"
    parts = _reflex_lines(ctx, found, budget // 2 if found else 0)
    searched = []
    query = _error_query(error)
    if query and len(query) >= _MIN_PROMPT_CHARS:
        response = _search(ctx, query)
        if response is not None:
            known = {meta["path"] for meta, _ in found}
            fresh = [h for h in response["hits"][:1] if h["path"] not in known]
            searched = [h["path"] for h in fresh]
            left = budget - estimate_tokens(head) - sum(estimate_tokens(p) for p in parts)
            parts += _hit_lines(fresh, left)
    if not parts:
        return HookResult(None, "no reflex and no confident match for the error")
    return HookResult(
        _context(event, "\n".join([head, *parts])),
        details={"reflexes": [meta["path"] for meta, _ in found], "searched": searched},
    )


def _tool_failure(ctx: _Context) -> HookResult:
    error = ctx.payload.get("error")
    if not isinstance(error, str) or not error.strip():
        return HookResult(None, "the payload has no error text")
    if ctx.payload.get("is_interrupt") is True:
        return HookResult(None, "the user interrupted the tool: no failure to look up")
    return _failure(ctx, "PostToolUseFailure", error, _command_of(ctx.payload))


def _command_of(payload: dict) -> str:
    tool_input = payload.get("tool_input")
    if isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str):
        return tool_input["command"]
    return ""


def _failed_bash_output(response) -> str | None:
    """The output of a Bash result that says it failed (a non-zero exit code or an error
    flag), else None: a successful command is no failure, whatever it printed."""
    if not isinstance(response, dict):
        return None
    code = next(
        (
            response[key]
            for key in ("exit_code", "exitCode", "returncode", "return_code")
            if key in response
        ),
        None,
    )
    failed = response.get("is_error") is True or (
        isinstance(code, int) and not isinstance(code, bool) and code != 0
    )
    if not failed:
        return None
    texts = [response.get(k) for k in ("stderr", "stdout", "error")]
    return "\n".join(t for t in texts if isinstance(t, str) and t.strip()) or None


def _post_tool(ctx: _Context) -> HookResult:
    if ctx.payload.get("tool_name") != "Bash":
        return HookResult(None, "only a failed Bash call gets a reflex here")
    output = _failed_bash_output(ctx.payload.get("tool_response"))
    if output is None:
        return HookResult(None, "the command did not fail")
    return _failure(ctx, "PostToolUse", output, _command_of(ctx.payload))


def _pre_tool(ctx: _Context) -> HookResult:
    from ..reflexes import matches_file, matches_target

    tool = ctx.payload.get("tool_name")
    tool_input = ctx.payload.get("tool_input")
    if not isinstance(tool_input, dict):
        return HookResult(None, "the payload has no tool input")
    cwd = ctx.payload.get("cwd") if isinstance(ctx.payload.get("cwd"), str) else None
    if tool in _EDIT_TOOLS:
        path = tool_input.get("file_path") or tool_input.get("notebook_path")
        if not isinstance(path, str) or not path:
            return HookResult(None, "the edit names no file")

        def wanted(kind: str, value: str) -> bool:
            return kind == "file" and matches_file(value, path, cwd)

        what = f"editing {path}"
    elif tool == "Bash":
        command = _command_of(ctx.payload)
        if not command:
            return HookResult(None, "the command is empty")

        def wanted(kind: str, value: str) -> bool:
            return kind == "target" and matches_target(value, command)

        what = "this command's target"
    else:
        return HookResult(None, f"no reflexes for the {tool!r} tool")
    found = _reflex_notes(ctx, wanted)
    if not found:
        return HookResult(None, "no reflex matches")
    head = f"Memory (birkin-mnemosyne): notes with a reflex for {what} —"
    body = _reflex_lines(ctx, found, ctx.budget_tokens - estimate_tokens(head))
    return HookResult(
        _context("PreToolUse", "\n".join([head, *body])),
        details={"reflexes": [meta["path"] for meta, _ in found]},
    )


def _capture(ctx: _Context) -> HookResult:
    from ..handoffs import HandoffScope, HandoffStore
    from .transcript import read_transcript, session_summary

    path = ctx.payload.get("transcript_path")
    if not isinstance(path, str) or not path:
        return HookResult(None, "the payload names no transcript")
    project = project_key_of(ctx.payload.get("cwd"), ctx.env)
    if not project:
        return HookResult(None, "no project key: the payload has no cwd")
    summary = session_summary(read_transcript(path))
    fields = _handoff_fields(summary)
    if not fields:
        return HookResult(None, "nothing to hand over: the transcript holds no exchange")
    session = ctx.payload.get("session_id")
    session = session if isinstance(session, str) and session else "unknown-session"
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode("utf-8")).hexdigest()
    capture_id = f"claude:{session[:80]}:{ctx.event}:{digest[:12]}"
    record = HandoffStore(ctx.vault).capture(HandoffScope(project), fields, capture_id=capture_id)
    verb = "already held" if record["replayed"] else "captured"
    return HookResult(
        None,
        f"handoff {verb} for project {project} ({capture_id})",
        details={"capture_id": capture_id, "replayed": record["replayed"]},
    )


def _handoff_fields(summary: dict) -> dict:
    """Handoff fields from a session summary (empty when it says nothing)."""
    fields: dict = {}
    work = (summary.get("last_summary") or "").strip()
    files = summary.get("files_touched") or []
    if files:
        work = (work + "\n\n" if work else "") + "Files touched: " + ", ".join(files)
    if work:
        fields["work_done"] = work[:4000]
    open_items = [f"todo: {item}" for item in summary.get("open_todos") or []]
    open_items += [f"failed: {cmd}" for cmd in summary.get("failed_commands") or []]
    if open_items:
        fields["open_items"] = open_items
    request = (summary.get("last_request") or "").strip()
    if request:
        fields["next_step"] = "Pick up from the last request: " + request[:1000]
    return fields


_HANDLERS: dict[str, Callable[[_Context], HookResult]] = {
    "SessionStart": _session_start,
    "UserPromptSubmit": _user_prompt,
    "PreToolUse": _pre_tool,
    "PostToolUse": _post_tool,
    "PostToolUseFailure": _tool_failure,
    "PreCompact": _capture,
    "SessionEnd": _capture,
}


@dataclass
class _Context:
    event: str
    payload: dict
    vault: Path
    budget_tokens: int
    min_confidence: str
    env: dict
    _memory: object = None

    def memory(self):
        """The vault, its search index loaded. Only SessionStart, whose budget allows a
        first build, builds one; the other events have seconds, and a build they start
        would be cut off every time, never finished."""
        if self._memory is None:
            from ..memory import VaultMemory

            options = {}
            if self.event in _ACTION_EVENTS:
                options["refresh_interval"] = ACTION_CHECK_INTERVAL_S
            memory = VaultMemory(self.vault, **options)
            if self.event != "SessionStart" and memory.engine.needs_build():
                memory.close()
                raise _NotBuilt
            self._memory = memory
        return self._memory


def run_hook(
    event: str,
    raw: bytes | str,
    *,
    vault: str | os.PathLike,
    budget_tokens: int | None = None,
    time_budget: float | None = None,
    min_confidence: str = DEFAULT_MIN_CONFIDENCE,
    env: dict | None = None,
) -> HookResult:
    """Run one hook on its raw stdin payload. Never raises: every failure is a
    ``HookResult`` with no output and a note saying why (fail-open)."""
    if event not in _HANDLERS:
        return HookResult(None, f"unknown hook event {event!r}; known: {', '.join(EVENTS)}")
    if min_confidence not in CONFIDENCE_ORDER:
        return HookResult(None, f"--min-confidence must be one of {', '.join(CONFIDENCE_ORDER)}")
    if isinstance(raw, str):
        raw = raw.encode("utf-8", "replace")
    if len(raw) > MAX_PAYLOAD_BYTES:
        return HookResult(None, f"the payload is over {MAX_PAYLOAD_BYTES:,} bytes; ignored")
    try:
        payload = json.loads(raw.decode("utf-8", "replace") or "{}")
    except ValueError as exc:
        return HookResult(None, f"the payload is not JSON ({exc}); ignored")
    if not isinstance(payload, dict):
        return HookResult(None, "the payload is not a JSON object; ignored")
    named = payload.get("hook_event_name")
    if isinstance(named, str) and named and named != event:
        return HookResult(None, f"the payload is for {named}, this hook is {event}; ignored")
    tokens = TOKEN_BUDGET.get(event, 0) if budget_tokens is None else budget_tokens
    if isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0:
        return HookResult(None, "--budget-tokens must be a whole number, 0 or more")
    seconds = TIME_BUDGET_S[event] if time_budget is None else time_budget
    ctx = _Context(
        event,
        payload,
        Path(vault),
        tokens,
        min_confidence,
        dict(os.environ if env is None else env),
    )
    try:
        with _deadline(seconds):
            result = _HANDLERS[event](ctx)
    except _OutOfTime:
        return HookResult(None, f"out of time after {seconds:g} s; nothing injected")
    except _NotBuilt:
        return HookResult(
            None,
            "the search index is not built yet (the SessionStart hook builds it, as does "
            "`mnemosyne reindex`); nothing injected",
        )
    except Exception as exc:  # fail-open: a hook never stops the session
        return HookResult(None, f"{type(exc).__name__}: {exc}")
    finally:
        memory = ctx._memory
        if memory is not None:
            memory.close()
    if result.output is not None:
        text = result.output["hookSpecificOutput"]["additionalContext"]
        if tokens == 0 or not text.strip():
            return HookResult(None, "budget 0: nothing injected", result.details)
        result.output["hookSpecificOutput"]["additionalContext"] = _cut(text, tokens)
    return result
