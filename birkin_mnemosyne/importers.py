"""Bring an existing history in as notes: a ChatGPT export, an Obsidian vault.

Each importer has a ``plan_*`` function (a preview that writes nothing) and an
``apply_*`` function that writes exactly that plan as one journaled transaction (see
``change_plans``). Credentials found in the imported text are replaced in the copy by
``[REDACTED:<family>]`` with the vault's own redactor, and reported as a count per
family in ``credentials`` — never their text. Re-importing the same source plans
nothing: a note that already holds exactly the planned bytes is counted as
``already_imported``.

ChatGPT (``conversations.json``, alone or inside the export ``.zip``, read in memory)
=====================================================================================

One note per conversation, ``<zone>/YYYY-MM-DD-<slug>.md`` (the date is the
conversation's ``create_time`` in UTC, ``undated-<slug>.md`` without one; a taken name
gets ``-2``, ``-3``, ...). The note is::

    ---
    title: <title>
    type: conversation
    created: <create_time, YYYY-MM-DDTHH:MM:SSZ>
    source: chatgpt:<conversation id>
    tags:
      - chatgpt
    ---

    # <title>

    ### user
    ...
    ### assistant (alternative)
    ...

Every branch of the message tree is kept (a regenerated answer or an edited question is
a branch), all messages in ``create_time`` order (a message without a time follows its
parent). Messages off the path that ends at the export's ``current_node`` are marked
``(alternative)``. System messages, hidden ones, custom-instruction context and empty
messages are left out; parts that are not text become ``[non-text content omitted]``;
code the assistant ran is fenced. A conversation already imported (same ``source``) is
left alone when its note is unchanged and refused when the note differs (edited since,
or the conversation grew): importing never overwrites a note.

Obsidian (a vault folder)
=========================

Every ``.md`` note is copied to ``<zone>/<its relative path>`` byte for byte —
frontmatter, ``#tags`` and ``[[wikilinks]]`` as they are — except that credentials are
redacted. ``.obsidian/``, ``.trash/`` and every other hidden entry are skipped;
attachments (any other file) are left out and counted in ``attachments_skipped``.
Links, invalid UTF-8, oversize files and target collisions are refused
(``source_files``, ``change_plans``); refusals never block the other notes.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import os
import posixpath
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from .change_plans import (
    Plan,
    Target,
    apply_plan,
    existing_notes,
    require_vault,
    resolve_targets,
    vault_config,
    vault_redactor,
)
from .errors import InvalidInputError
from .frontmatter import parse_frontmatter, render_frontmatter
from .progress import ProgressCallback, phase
from .redact import Redactor, mark
from .source_files import (
    SourceRefused,
    check_source_folder,
    decode_source_text,
    fence_text,
    read_source_bytes,
    walk_source,
)
from .vault_paths import check_zone, slugify

__all__ = [
    "CHATGPT_ZONE",
    "MAX_EXPORT_BYTES",
    "OBSIDIAN_ZONE",
    "apply_chatgpt_import",
    "apply_obsidian_import",
    "plan_chatgpt_import",
    "plan_obsidian_import",
]

CHATGPT_ZONE = "imports/chatgpt"
OBSIDIAN_ZONE = "imports/obsidian"
# A ChatGPT export of several years is tens of MB; the cap only stops a wrong file (or a
# zip bomb) from filling memory.
MAX_EXPORT_BYTES = 1024 * 1024 * 1024
NON_TEXT = "[non-text content omitted]"
UNTITLED = "Untitled conversation"
_SLUG_CHARS = 60
# Message kinds that are the app's own context, not part of the conversation.
_SKIPPED_CONTENT = frozenset({"user_editable_context", "model_editable_context"})


class _Redaction:
    """Redacts texts with one redactor and counts what it hid, per family."""

    def __init__(self, redactor: Redactor) -> None:
        self.redactor = redactor
        self.counts: Counter = Counter()

    def __call__(self, text: str) -> str:
        findings = self.redactor.findings(text)
        if not findings:
            return text
        pieces, cursor = [], 0
        for family, start, end in findings:  # sorted and disjoint
            pieces += (text[cursor:start], mark(family))
            self.counts[family] += 1
            cursor = end
        pieces.append(text[cursor:])
        return "".join(pieces)


def _credentials_detail(counts: Counter) -> str:
    total = sum(counts.values())
    return f"{total} credential(s) redacted ({', '.join(sorted(counts))})"


def _finish(plan: Plan, redaction: _Redaction, unchanged: int) -> None:
    credentials = dict(sorted(redaction.counts.items()))
    plan.extra["credentials"] = credentials
    plan.summary.update(
        changes=len(plan.files),
        already_imported=unchanged,
        refused=len(plan.refused),
        credentials=sum(credentials.values()),
    )
    if credentials:
        plan.warnings.append(
            f"{sum(credentials.values())} credential(s) found and redacted in the copy: "
            + ", ".join(f"{family} x{count}" for family, count in credentials.items())
        )


# ---------------------------------------------------------------------------- ChatGPT


def _read_export(source: Path) -> bytes:
    if source.is_dir():
        inner = source / "conversations.json"
        if not inner.is_file():
            raise InvalidInputError(
                f"{source} holds no conversations.json — give the export .zip or the "
                "conversations.json inside it"
            )
        source = inner
    if not source.is_file():
        raise InvalidInputError(
            f"export not found: {source} — give the ChatGPT export .zip or its conversations.json"
        )
    if zipfile.is_zipfile(source):
        return _read_zip(source)
    if source.stat().st_size > MAX_EXPORT_BYTES:
        raise InvalidInputError(f"{source} is larger than {MAX_EXPORT_BYTES:,} bytes")
    return source.read_bytes()


def _read_zip(source: Path) -> bytes:
    try:
        with zipfile.ZipFile(source) as archive:
            names = [
                name
                for name in archive.namelist()
                if posixpath.basename(name) == "conversations.json"
                and not name.startswith("__MACOSX/")
            ]
            if not names:
                raise InvalidInputError(
                    f"{source} holds no conversations.json — is it a ChatGPT data export "
                    "(Settings > Data controls > Export data)?"
                )
            names.sort(key=lambda name: (name.count("/"), name))
            if len(names) > 1 and names[0].count("/") == names[1].count("/"):
                raise InvalidInputError(
                    f"{source} holds several conversations.json ({', '.join(names)}) — "
                    "extract the one to import and give its path"
                )
            with archive.open(names[0]) as member:
                data = member.read(MAX_EXPORT_BYTES + 1)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, OSError) as exc:
        raise InvalidInputError(f"cannot read the zip file {source}: {exc}") from None
    if len(data) > MAX_EXPORT_BYTES:
        raise InvalidInputError(
            f"conversations.json in {source} is over {MAX_EXPORT_BYTES:,} bytes"
        )
    return data


def _load_conversations(source: Path) -> list:
    data = _read_export(source)
    try:
        document = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"{source}: conversations.json is not UTF-8 (offset {exc.start}) — is it a "
            "ChatGPT export?"
        ) from None
    except json.JSONDecodeError as exc:
        raise InvalidInputError(
            f"{source}: conversations.json is not valid JSON (line {exc.lineno}, column "
            f"{exc.colno}: {exc.msg}) — re-download the export"
        ) from None
    if isinstance(document, dict) and "mapping" in document:
        document = [document]  # one conversation on its own
    if not isinstance(document, list):
        raise InvalidInputError(
            f"{source}: expected a list of conversations (ChatGPT's conversations.json), "
            f"got a JSON {type(document).__name__}"
        )
    return document


def _time(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) and 0 <= value < 1e11 else None


def _utc(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc)


@dataclass
class _Message:
    time: float
    position: int
    role: str
    text: str
    alternative: bool


def _message_text(message: dict) -> str:
    content = message.get("content")
    if not isinstance(content, dict):
        return ""
    kind = content.get("content_type")
    if kind in _SKIPPED_CONTENT:
        return ""
    parts = content.get("parts")
    if isinstance(parts, list):
        pieces = []
        for part in parts:
            if isinstance(part, str):
                pieces.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                pieces.append(part["text"])
            elif part is not None:
                pieces.append(NON_TEXT)
        return "\n\n".join(piece for piece in pieces if piece.strip())
    text = content.get("text")
    if isinstance(text, str):
        if kind == "code":
            language = content.get("language")
            language = language if isinstance(language, str) and language.isalnum() else ""
            return fence_text(text, "" if language == "unknown" else language).rstrip("\n")
        return text
    return NON_TEXT if kind not in (None, "text") else ""


def _role(message: dict) -> str:
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    return role if isinstance(role, str) and role.isidentifier() else "unknown"


def _hidden(message: dict) -> bool:
    metadata = message.get("metadata")
    return (
        isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation") is True
    )


def _messages(conversation: dict, warnings: list[str], label: str) -> list[_Message]:
    """Every visible message of every branch, in time order (see the module docstring)."""
    nodes = {key: node for key, node in conversation["mapping"].items() if isinstance(node, dict)}

    def parent_of(key: str) -> str | None:
        parent = nodes[key].get("parent")
        return parent if isinstance(parent, str) and parent in nodes and parent != key else None

    children: dict[str, list[str]] = {key: [] for key in nodes}
    for key in nodes:
        parent = parent_of(key)
        if parent is not None:
            children[parent].append(key)
    for key, kids in children.items():
        declared = nodes[key].get("children")
        rank = {c: i for i, c in enumerate(declared)} if isinstance(declared, list) else {}
        kids.sort(key=lambda c: (rank.get(c, len(rank)), c))

    start = _time(conversation.get("create_time")) or 0.0
    times: dict[str, float] = {}
    order: list[str] = []
    stack = [(key, start) for key in sorted(k for k in nodes if parent_of(k) is None)][::-1]
    while stack:
        key, inherited = stack.pop()
        if key in times:
            continue
        message = nodes[key].get("message")
        own = _time(message.get("create_time")) if isinstance(message, dict) else None
        times[key] = inherited if own is None else own
        order.append(key)
        stack.extend((child, times[key]) for child in reversed(children[key]))
    if len(order) < len(nodes):
        warnings.append(f"{label}: {len(nodes) - len(order)} message(s) in a cycle were left out")

    position = {key: i for i, key in enumerate(order)}
    current = conversation.get("current_node")
    if not (isinstance(current, str) and current in position):
        leaves = [key for key in order if not children[key]]
        current = max(leaves, key=lambda k: (times[k], position[k])) if leaves else None
    main: set[str] = set()
    while current is not None and current not in main:
        main.add(current)
        current = parent_of(current)

    found = []
    for key in order:
        message = nodes[key].get("message")
        if not isinstance(message, dict) or _hidden(message):
            continue
        role = _role(message)
        text = _message_text(message) if role != "system" else ""
        if text.strip():
            found.append(_Message(times[key], position[key], role, text, key not in main))
    found.sort(key=lambda m: (m.time, m.position))
    return found


def _conversation_id(conversation: dict) -> str:
    for field in ("conversation_id", "id"):
        value = conversation.get(field)
        if isinstance(value, str) and value.strip() and value.isprintable():
            return value.strip()
    canonical = json.dumps(conversation, sort_keys=True, ensure_ascii=True, default=str)
    return "sha256-" + hashlib.sha256(canonical.encode("ascii")).hexdigest()[:16]


def _one_line(text: str) -> str:
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def _render_conversation(
    conversation: dict, source_id: str, messages: list[_Message], redact: _Redaction
) -> tuple[str, str]:
    """``(redacted title, note text)``."""
    raw_title = conversation.get("title")
    title = _one_line(raw_title) if isinstance(raw_title, str) else ""
    title = redact(title) if title else UNTITLED
    front: dict = {"title": title, "type": "conversation"}
    created = _time(conversation.get("create_time"))
    if created is not None:
        front["created"] = _utc(created).strftime("%Y-%m-%dT%H:%M:%SZ")
    front.update(source=f"chatgpt:{source_id}", tags=["chatgpt"])
    pieces = [render_frontmatter(front), f"\n# {title}\n"]
    for message in messages:
        heading = message.role + (" (alternative)" if message.alternative else "")
        body = redact(message.text.strip("\r\n").rstrip())
        pieces.append(f"\n### {heading}\n\n{body}\n")
    return title, "".join(pieces)


def _existing_sources(vault: Path, zone: str, existing: dict[str, str], prefix: str) -> dict:
    """``source`` frontmatter value -> note path, for the notes already in ``zone``."""
    found: dict[str, str] = {}
    folder = zone + "/" if zone else ""
    for path in sorted(existing.values()):
        if not path.startswith(folder):
            continue
        try:
            text = (vault / path).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        source = parse_frontmatter(text).data.get("source")
        if isinstance(source, str) and source.startswith(prefix):
            found.setdefault(source, path)
    return found


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _free_name(folder: str, stem: str, taken: set[str]) -> str:
    number = 1
    while True:
        name = f"{folder}{stem}{'' if number == 1 else f'-{number}'}.md"
        if name.casefold() not in taken:
            taken.add(name.casefold())
            return name
        number += 1


def _build_chatgpt(
    vault: Path, source: Path, zone: str, on_progress: ProgressCallback | None = None
) -> Plan:
    plan = Plan("import-chatgpt", vault)
    conversations = _load_conversations(source)
    config = vault_config(vault)
    redact = _Redaction(vault_redactor(config))
    existing = existing_notes(vault, plan.warnings)
    imported = _existing_sources(vault, zone, existing, "chatgpt:")
    taken = set(existing)
    folder = zone + "/" if zone else ""
    usable: list[tuple[float, str, int, dict]] = []
    for number, conversation in enumerate(conversations, start=1):
        label = f"conversation #{number}"
        if not isinstance(conversation, dict) or not isinstance(conversation.get("mapping"), dict):
            plan.refused.append(
                {"source": label, "reason": "not a ChatGPT conversation (no 'mapping' of messages)"}
            )
            continue
        when = _time(conversation.get("create_time")) or _time(conversation.get("update_time"))
        usable.append((when or 0.0, _conversation_id(conversation), number, conversation))
    if conversations and not usable:
        raise InvalidInputError(
            f"{source}: none of its {len(conversations)} entries is a ChatGPT conversation "
            "(each needs a 'mapping' of messages) — is this a ChatGPT conversations.json?"
        )
    usable.sort(key=lambda item: item[:3])
    targets: list[Target] = []
    seen: set[str] = set()
    unchanged = empty = messages_total = 0
    reading = phase(on_progress, "read", len(usable))
    for when, source_id, _number, conversation in usable:
        reading.advance()
        label = f"chatgpt:{source_id}"
        if source_id in seen:
            plan.refused.append({"source": label, "reason": "appears twice in the export"})
            continue
        seen.add(source_id)
        messages = _messages(conversation, plan.warnings, label)
        if not messages:
            empty += 1
            continue
        messages_total += len(messages)
        counted = Counter(redact.counts)
        title, text = _render_conversation(conversation, source_id, messages, redact)
        after = text.encode("utf-8")
        alternatives = sum(message.alternative for message in messages)
        detail = f"{len(messages)} message(s)"
        if alternatives:
            detail += f", {alternatives} on other branches"
        if redact.counts - counted:
            detail += f", {_credentials_detail(redact.counts - counted)}"
        if label in imported:
            path = imported[label]
            if _read_or_none(vault / path) == after:
                unchanged += 1
            else:
                plan.refused.append(
                    {
                        "source": label,
                        "reason": f"already imported as {path}, which differs from this export "
                        "(edited since, or the conversation continued) — move that note away "
                        "to import the conversation again",
                    }
                )
            continue
        date = _utc(when).strftime("%Y-%m-%d") if when else "undated"
        slug = slugify(title, max_len=_SLUG_CHARS) or "conversation"
        path = _free_name(folder, f"{date}-{slug}", taken)
        targets.append(
            Target(label, path, after, {"kind": "conversation", "source": label, "detail": detail})
        )
    reading.finish()
    unchanged += len(resolve_targets(vault, targets, existing, plan))
    if empty:
        plan.warnings.append(f"{empty} conversation(s) without any visible message were skipped")
    if not conversations:
        plan.warnings.append(f"{source} holds no conversations")
    plan.extra["conversations"] = len(conversations)
    plan.summary.update(conversations=len(conversations), messages=messages_total, empty=empty)
    _finish(plan, redact, unchanged)
    return plan


def plan_chatgpt_import(
    vault: str | Path,
    source: str | Path,
    *,
    zone: str = CHATGPT_ZONE,
    now: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict:
    """Preview importing a ChatGPT export (``.zip`` or ``conversations.json``); writes nothing.

    ``now`` is accepted for symmetry: a plan never depends on the time. ``on_progress``
    receives the ``read`` phase (conversations rendered).
    """
    vault = require_vault(vault)
    source = Path(os.path.expanduser(str(source)))
    return _build_chatgpt(vault, source, check_zone(zone), on_progress).view()


def apply_chatgpt_import(
    vault: str | Path,
    source: str | Path,
    *,
    plan_id: str | None = None,
    zone: str = CHATGPT_ZONE,
    now: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict:
    """Import a ChatGPT export as one journaled transaction (see the module docstring).

    ``plan_id`` (from the preview) makes it refuse with ``VersionConflictError`` when the
    vault or the export changed since; ``now`` (unix seconds) stamps the journal entry.
    ``on_progress`` receives ``read`` (once per build of the plan) and ``write``.
    """
    vault = require_vault(vault)
    path, zone = Path(os.path.expanduser(str(source))), check_zone(zone)

    def build() -> Plan:
        return _build_chatgpt(vault, path, zone, on_progress)

    return apply_plan(vault, build, plan_id=plan_id, now=now, on_progress=on_progress)


# --------------------------------------------------------------------------- Obsidian


def _build_obsidian(
    vault: Path, source: str | Path, zone: str, on_progress: ProgressCallback | None = None
) -> Plan:
    plan = Plan("import-obsidian", vault)
    folder = check_source_folder(source, vault, what="Obsidian vault")
    config = vault_config(vault)
    redact = _Redaction(vault_redactor(config))
    existing = existing_notes(vault, plan.warnings)
    walked = walk_source(folder)
    plan.refused.extend(walked.refused)
    prefix = zone + "/" if zone else ""
    targets: list[Target] = []
    notes = attachments = 0
    reading = phase(on_progress, "read", len(walked.files))
    for entry in walked.files:
        reading.advance()
        if not entry.rel.lower().endswith(".md"):
            attachments += 1
            continue
        notes += 1
        try:
            data = read_source_bytes(entry, max_bytes=config.max_file_bytes)
            text = decode_source_text(data)
        except SourceRefused as exc:
            plan.refused.append({"source": entry.rel, "reason": exc.reason})
            continue
        before = Counter(redact.counts)
        redacted = redact(text)
        found = redact.counts - before
        after = redacted.encode("utf-8") if found else data
        detail = _credentials_detail(found) if found else "copy the note byte for byte"
        targets.append(
            Target(
                entry.rel,
                prefix + entry.rel,
                after,
                {"kind": "note", "source": entry.rel, "detail": detail},
            )
        )
    reading.finish()
    unchanged = len(resolve_targets(vault, targets, existing, plan))
    plan.extra.update(notes=notes, attachments_skipped=attachments)
    plan.summary.update(
        notes=notes, attachments_skipped=attachments, hidden_skipped=walked.hidden_skipped
    )
    if attachments:
        plan.warnings.append(
            f"{attachments} attachment(s) (images, PDFs and other non-Markdown files) were "
            "left out; links to them stay in the notes"
        )
    _finish(plan, redact, unchanged)
    return plan


def plan_obsidian_import(
    vault: str | Path,
    source: str | Path,
    *,
    zone: str = OBSIDIAN_ZONE,
    now: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict:
    """Preview importing the notes of an Obsidian vault folder; writes nothing.
    ``on_progress`` receives the ``read`` phase (source files read)."""
    vault = require_vault(vault)
    return _build_obsidian(vault, source, check_zone(zone), on_progress).view()


def apply_obsidian_import(
    vault: str | Path,
    source: str | Path,
    *,
    plan_id: str | None = None,
    zone: str = OBSIDIAN_ZONE,
    now: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict:
    """Import an Obsidian vault's notes as one journaled transaction. ``on_progress``
    receives ``read`` (once per build of the plan) and ``write``."""
    vault = require_vault(vault)
    zone = check_zone(zone)

    def build() -> Plan:
        return _build_obsidian(vault, source, zone, on_progress)

    return apply_plan(vault, build, plan_id=plan_id, now=now, on_progress=on_progress)
