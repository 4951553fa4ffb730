"""Claude Code transcripts: read the JSONL a session leaves, without its private spans.

Claude Code writes one JSON object per line to the file a hook payload names as
``transcript_path`` (``~/.claude/projects/<project>/<session>.jsonl``). The lines read
here are the conversation's: ``"type": "user"`` and ``"type": "assistant"``, each with a
``message`` whose ``content`` is a string or a list of blocks (``text``, ``tool_use``
with ``name`` and ``input``, ``tool_result`` with ``tool_use_id``, ``content`` and
``is_error``; ``thinking`` and ``image`` blocks are passed over). Lines of other types
(``summary``, ``system``, file snapshots), meta lines (``isMeta``), a subagent's lines
(``isSidechain``) and the summary a compaction writes (``isCompactSummary``) are not the
conversation and are skipped; so is a line that is not JSON (a line still being written
when the file was read), counted in ``Transcript.skipped_lines``. The format is Claude
Code's and undocumented as a whole: anything unexpected is passed over, never fatal.

Everything between ``<private>`` and ``</private>`` is removed from every text before it
leaves this module (``strip_private``): a session's capture, its handoff and a prompt's
recall never see it. Secrets are the caller's to redact (the vault's redactor).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInputError

__all__ = [
    "EDIT_TOOLS",
    "MAX_TRANSCRIPT_BYTES",
    "ToolResult",
    "ToolUse",
    "Transcript",
    "Turn",
    "read_transcript",
    "session_summary",
    "strip_private",
]

# A transcript past this is refused: a day-long session is tens of MB.
MAX_TRANSCRIPT_BYTES = 256 * 1024 * 1024
# What is kept of one tool result (a tool's output can be a whole file): enough for
# its first lines, which say whether and why it failed.
_RESULT_CHARS = 2000
# Tools whose input names a file they change.
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_PRIVATE = re.compile(r"<private>.*?(?:</private>|\Z)", re.IGNORECASE | re.DOTALL)
_STRAY_CLOSE = re.compile(r"</private>", re.IGNORECASE)
_COMMAND = re.compile(r"<command-name>(.*?)</command-name>", re.DOTALL)
_COMMAND_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
# User lines Claude Code writes itself: a local command's output, an interruption.
_GENERATED = ("<local-command-stdout>", "<local-command-stderr>", "[Request interrupted")


def strip_private(text: str) -> str:
    """``text`` without its ``<private>…</private>`` spans (case aside). An opening tag
    that is never closed hides the rest of the text: a forgotten close tag must not
    leak what it was meant to hide."""
    if "<" not in text:
        return text
    return _STRAY_CLOSE.sub("", _PRIVATE.sub("", text))


@dataclass
class ToolUse:
    id: str
    name: str
    input: dict


@dataclass
class ToolResult:
    tool_use_id: str
    text: str  # its first _RESULT_CHARS characters, private spans removed
    is_error: bool


@dataclass
class Turn:
    """One line of the conversation: ``user`` (a request in words), ``assistant`` (text
    and tool calls) or ``tool`` (the results of those calls)."""

    role: str
    text: str = ""
    timestamp: str = ""
    tool_uses: list[ToolUse] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)


@dataclass
class Transcript:
    path: str
    session_id: str = ""
    cwd: str = ""
    turns: list[Turn] = field(default_factory=list)
    skipped_lines: int = 0
    size: int = 0


def _text_of(content: object) -> str:
    """The text of a ``content`` value: a string, or the ``text`` blocks of a list."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = [
        block["text"]
        for block in content
        if isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    ]
    return "\n\n".join(parts)


def _request_text(text: str) -> str:
    """What the user asked, from a user line's text ('' for generated lines)."""
    text = text.strip()
    if text.startswith(_GENERATED):
        return ""
    command = _COMMAND.search(text)
    if command:  # a slash command: "/name args"
        args = _COMMAND_ARGS.search(text)
        return " ".join(p for p in (command[1].strip(), args[1].strip() if args else "") if p)
    return text


def _blocks(content: object) -> list[dict]:
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _add(turns: list[Turn], role: str, timestamp: str) -> Turn:
    """A new turn. Lines are never merged into the turn before: Claude Code writes an
    assistant message one content block per line, and a capture that grows only at its
    end needs each block where it came."""
    turn = Turn(role, timestamp=timestamp)
    turns.append(turn)
    return turn


def _read_line(record: dict, transcript: Transcript) -> None:
    kind = record.get("type")
    if kind not in ("user", "assistant"):
        return
    if record.get("isMeta") or record.get("isSidechain") or record.get("isCompactSummary"):
        return
    message = record.get("message")
    if not isinstance(message, dict):
        return
    if not transcript.session_id and isinstance(record.get("sessionId"), str):
        transcript.session_id = record["sessionId"]
    if not transcript.cwd and isinstance(record.get("cwd"), str):
        transcript.cwd = record["cwd"]
    stamp = record.get("timestamp") if isinstance(record.get("timestamp"), str) else ""
    content = message.get("content")
    turns = transcript.turns
    if kind == "assistant":
        text = strip_private(_text_of(content)).strip()
        uses = [
            ToolUse(
                str(b.get("id") or ""),
                str(b.get("name") or "?"),
                b["input"] if isinstance(b.get("input"), dict) else {},
            )
            for b in _blocks(content)
            if b.get("type") == "tool_use"
        ]
        if not text and not uses:
            return
        turn = _add(turns, "assistant", stamp)
        turn.text, turn.tool_uses = text, uses
        return
    results = [
        ToolResult(
            str(b.get("tool_use_id") or ""),
            strip_private(_text_of(b.get("content")))[:_RESULT_CHARS],
            b.get("is_error") is True,
        )
        for b in _blocks(content)
        if b.get("type") == "tool_result"
    ]
    if results:
        _add(turns, "tool", stamp).tool_results = results
    text = _request_text(strip_private(_text_of(content)))
    if text:
        _add(turns, "user", stamp).text = text


def read_transcript(path: str | Path, *, max_bytes: int = MAX_TRANSCRIPT_BYTES) -> Transcript:
    """The conversation of a Claude Code JSONL transcript, read line by line.

    Raises ``InvalidInputError`` when the file cannot be read or is over ``max_bytes``.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InvalidInputError(
            f"cannot read the transcript {path}: {exc.strerror or exc}",
            fix="pass the path of a Claude Code session file (~/.claude/projects/…/*.jsonl)",
        ) from None
    if not path.is_file():
        raise InvalidInputError(f"the transcript {path} is not a file")
    if size > max_bytes:
        raise InvalidInputError(
            f"the transcript {path} is {size:,} bytes, over the {max_bytes:,} this reads"
        )
    transcript = Transcript(str(path), size=size)
    try:
        with path.open("rb") as handle:
            for raw in handle:
                if not raw.strip():
                    continue
                try:
                    record = json.loads(raw.decode("utf-8", "replace"))
                except ValueError:
                    transcript.skipped_lines += 1
                    continue
                if isinstance(record, dict):
                    _read_line(record, transcript)
                else:
                    transcript.skipped_lines += 1
    except OSError as exc:
        raise InvalidInputError(
            f"cannot read the transcript {path}: {exc.strerror or exc}"
        ) from None
    return transcript


def _first_line(text: str, limit: int = 200) -> str:
    for line in text.splitlines():
        if line.strip():
            line = " ".join(line.split())
            return line if len(line) <= limit else line[: limit - 1] + "…"
    return ""


def edited_file(use: ToolUse) -> str:
    """The file an edit tool call changes ('' for other calls)."""
    if use.name not in EDIT_TOOLS:
        return ""
    value = use.input.get("file_path") or use.input.get("notebook_path")
    return value if isinstance(value, str) else ""


def failed_commands(transcript: Transcript) -> list[tuple[ToolUse, ToolResult]]:
    """Every ``Bash`` call whose result is an error, with that result, in order."""
    calls = {
        use.id: use
        for turn in transcript.turns
        for use in turn.tool_uses
        if use.name == "Bash" and use.id
    }
    return [
        (calls[result.tool_use_id], result)
        for turn in transcript.turns
        for result in turn.tool_results
        if result.is_error and result.tool_use_id in calls
    ]


def _unique_tail(items: list[str], keep: int) -> list[str]:
    seen: dict[str, None] = {}
    for item in items:
        seen.pop(item, None)
        seen[item] = None
    return list(seen)[-keep:]


def session_summary(transcript: Transcript) -> dict:
    """What a handoff needs from a session: the last request, the assistant's last
    text, the files its edits touched, the commands that failed and the todos still
    open in its last todo list (all private spans already removed)."""
    requests = [t.text for t in transcript.turns if t.role == "user" and t.text]
    replies = [t.text for t in transcript.turns if t.role == "assistant" and t.text]
    uses = [use for turn in transcript.turns for use in turn.tool_uses]
    files = [name for name in map(edited_file, uses) if name]
    failed = []
    for use, result in failed_commands(transcript):
        command = _first_line(strip_private(str(use.input.get("command") or "")))
        error = _first_line(result.text)
        if command:
            failed.append(f"{command} — {error}" if error else command)
    todos: list[str] = []
    for use in uses:
        if use.name == "TodoWrite" and isinstance(use.input.get("todos"), list):
            todos = [
                strip_private(str(item.get("content") or "")).strip()
                for item in use.input["todos"]
                if isinstance(item, dict) and item.get("status") != "completed"
            ]
            todos = [todo for todo in todos if todo]
    return {
        "session_id": transcript.session_id,
        "cwd": transcript.cwd,
        "exchanges": len(requests),
        "last_request": requests[-1][:2000] if requests else "",
        "last_summary": replies[-1][:4000] if replies else "",
        "files_touched": _unique_tail(files, 30),
        "failed_commands": _unique_tail(failed, 10),
        "open_todos": todos[:20],
    }
