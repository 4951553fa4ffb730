"""Session capture: a Claude Code transcript becomes one dated journal note.

``capture_transcript(memory, path)`` reads the JSONL (``transcript``, which has already
left out every ``<private>`` span), renders one ``##`` section per exchange (the request,
then in order what the assistant said, the tools it called, the calls that failed) and
writes the note through ``VaultMemory.write_note``: atomic, locked, journaled (so
``undo`` puts back the exact bytes). Every text is redacted with the vault's redactor
before it is written: a token pasted into a prompt or printed by a command never reaches
the vault.

The note's name comes from the session (``journal/2026-12-01-claude-code-session-0b9e4c2a.md``),
so capturing the same session again finds it:

* the same transcript renders the same body: nothing is written (``unchanged``);
* a transcript that grew renders a body the note's is the start of (the rendering only
  ever adds lines at its end): the body is replaced, under ``expected_version``
  (``updated``);
* a note whose body was edited since is never overwritten: ``WriteRefusedError``.

What is cut: a request or a reply past ``TEXT_CHARS`` characters, a tool's argument past
``ARG_CHARS``; tool output is not kept, except the first line of a failure.
"""

from __future__ import annotations

import re
import time
from datetime import datetime, timezone
from pathlib import Path

from ..change_plans import vault_redactor
from ..errors import InvalidInputError, NoteExistsError, WriteRefusedError
from ..frontmatter import parse_frontmatter
from ..memory.base import sha256_hex
from ..redact import MARK_RE
from .transcript import ToolUse, Transcript, Turn, read_transcript

__all__ = ["ARG_CHARS", "DEFAULT_ZONE", "TEXT_CHARS", "capture_transcript", "render_transcript"]

DEFAULT_ZONE = "journal"
TEXT_CHARS = 4000
ARG_CHARS = 200
_HEADING_CHARS = 70
# A line the Markdown parser would read as a heading or a fence, inside quoted text.
_HEADING_LINE = re.compile(r"^( {0,3})(#{1,6})(?=\s|$)", re.MULTILINE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
# The argument a tool call is best known by, in order of preference.
_TOOL_ARGS = (
    "file_path",
    "notebook_path",
    "command",
    "pattern",
    "url",
    "path",
    "query",
    "description",
)


def _stamp(value: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc)


def _cut(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _quoted(text: str) -> str:
    """``text`` as it can stand inside a section: no line of it starts a heading (it
    would cut the note's sections apart), and an unclosed code fence is closed (it would
    swallow the rest of the note)."""
    text = _HEADING_LINE.sub(lambda m: f"{m[1]}\\{m[2]}", _cut(text, TEXT_CHARS))
    fences = _FENCE.findall(text)
    if len(fences) % 2:
        text += "\n" + fences[-1]
    return text


def _one_line(text: str, limit: int = ARG_CHARS) -> str:
    return _cut(" ".join(text.split()), limit).replace("`", "'")


def _tool_line(use: ToolUse) -> str:
    for name in _TOOL_ARGS:
        value = use.input.get(name)
        if isinstance(value, str) and value.strip():
            return f"- {use.name} `{_one_line(value)}`"
    return f"- {use.name}"


def _heading(turn: Turn, day: str) -> str:
    moment = _stamp(turn.timestamp)
    when = ""
    if moment is not None:
        when = (
            moment.strftime("%H:%M")
            if moment.strftime("%Y-%m-%d") == day
            else (moment.strftime("%Y-%m-%d %H:%M"))
        )
    first = next((line for line in turn.text.splitlines() if line.strip()), "")
    title = _one_line(first.lstrip("#> ").strip(), _HEADING_CHARS) or "request"
    return f"## {when} {title}".replace("  ", " ").rstrip()


def _start(transcript: Transcript) -> datetime | None:
    for turn in transcript.turns:
        moment = _stamp(turn.timestamp)
        if moment is not None:
            return moment
    return None


def render_transcript(transcript: Transcript, *, now: float | None = None) -> tuple[str, str]:
    """The note's title and body for a transcript (before redaction).

    The body only ever grows at its end as the session goes on: the header names only
    what is fixed at the start, and each turn adds its lines after the ones before.
    """
    start = _start(transcript) or datetime.fromtimestamp(
        time.time() if now is None else now, timezone.utc
    )
    day = start.strftime("%Y-%m-%d")
    session = transcript.session_id or Path(transcript.path).stem
    title = f"{day} Claude Code session {_one_line(session, 40)[:8]}"
    where = f" in `{_one_line(transcript.cwd)}`" if transcript.cwd else ""
    lines = [
        f"Claude Code session `{_one_line(session, 80)}`{where}, started {day} "
        f"{start.strftime('%H:%M')} UTC. Captured from its transcript by `mnemosyne "
        "capture`; private spans are left out.",
    ]
    names = {}
    for turn in transcript.turns:
        if turn.role == "user":
            lines += ["", _heading(turn, day), "", "**User:** " + _quoted(turn.text)]
        elif turn.role == "assistant":
            if turn.text:
                lines += ["", "**Claude:** " + _quoted(turn.text)]
            if turn.tool_uses:
                lines += [""] if turn.text or lines[-1].startswith("**") else []
                lines += [_tool_line(use) for use in turn.tool_uses]
            names.update((use.id, use) for use in turn.tool_uses if use.id)
        else:
            failed = [r for r in turn.tool_results if r.is_error]
            for result in failed:
                use = names.get(result.tool_use_id)
                what = _tool_line(use)[2:] if use else "a tool call"
                error = _one_line(next((x for x in result.text.splitlines() if x.strip()), ""))
                lines += ["", f"- failed: {what}" + (f" — {error}" if error else "")]
    body = "\n".join(lines) + "\n"
    # Blank lines between list items of one tool turn are not wanted; fold runs.
    body = re.sub(r"\n{3,}", "\n\n", body)
    return title, body


def _plain(text: str) -> str:
    """A body as compared: line endings and surrounding blank lines aside."""
    return text.replace("\r\n", "\n").strip("\n")


def capture_transcript(
    memory,
    path: str | Path,
    *,
    zone: str = DEFAULT_ZONE,
    now: float | None = None,
) -> dict:
    """Capture one Claude Code transcript into ``memory``'s vault (see the module doc).

    Returns the write shape (``key``, ``path``, ``version``, ``transaction_id``) with
    ``state`` (``created``, ``updated``, ``unchanged``), ``session_id``, ``exchanges``,
    ``skipped_lines`` and ``secrets_redacted``. Raises ``InvalidInputError`` for a transcript that cannot be
    read or holds no exchange, ``WriteRefusedError`` when the note was edited since.
    """
    transcript = read_transcript(path)
    exchanges = sum(1 for turn in transcript.turns if turn.role == "user")
    if not exchanges:
        raise InvalidInputError(
            f"the transcript {path} holds no exchange to capture (no user request in it)"
        )
    title, rendered = render_transcript(transcript, now=now)
    body = vault_redactor(memory.config).redact(rendered)
    secrets = len(MARK_RE.findall(body)) - len(MARK_RE.findall(rendered))
    facts = {
        "session_id": transcript.session_id,
        "exchanges": exchanges,
        "skipped_lines": transcript.skipped_lines,
        "secrets_redacted": secrets,
    }
    source = f"claude-code:{transcript.session_id}" if transcript.session_id else str(path)
    try:  # the note of this session is found by create's own rule: its name is taken
        result = memory.write_note(
            title,
            body,
            zone=zone,
            note_type="journal",
            tags=["claude-code"],
            source=source,
            now=now,
        )
        return _shaped(result, "created", facts)
    except NoteExistsError as exists:
        key = exists.key
    note_path = memory.resolve(key)
    data = (memory.vault / note_path).read_bytes()
    version = sha256_hex(data)
    held = _plain(parse_frontmatter(data.decode("utf-8", "replace")).body)
    new = _plain(body)
    if held == new:
        return {
            "key": key,
            "path": note_path,
            "version": version,
            "created": False,
            "mode": "unchanged",
            "transaction_id": None,
            "near_duplicates": [],
            "warnings": [],
            "state": "unchanged",
            **facts,
        }
    if not new.startswith(held):
        raise WriteRefusedError(
            f"{note_path} was edited since it was captured (its text is no longer the start "
            "of the session's), so capturing again would overwrite those edits — nothing was "
            "written",
            fix="move the edited note aside with {move} and capture again, or copy the new "
            "exchanges by hand",
        )
    result = memory.write_note(
        note_path, body, mode="replace", expected_version=version, source=source, now=now
    )
    return _shaped(result, "updated", facts)


def _shaped(result: dict, state: str, facts: dict) -> dict:
    """The write shape with the capture's facts. ``write_note``'s warning about redaction
    marks in the body is for a redacted read written back; here the marks are the
    capture's own doing, counted in ``secrets_redacted``."""
    warnings = [w for w in result["warnings"] if "[REDACTED] marks" not in w]
    return {**result, "warnings": warnings, "state": state, **facts}
