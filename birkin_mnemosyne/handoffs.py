"""Scoped session handoffs: immutable checkpoints of where a session left off.

A handoff belongs to a scope — a ``project_key`` and an optional ``task_key``, free
strings kept exactly as given (case and Unicode preserved). Keys are never used as paths:
a scope's folder is named by the SHA-256 of its keys, and every record repeats its
scope, checked on read, so two projects never see each other's handoffs.

Layout under ``.mnemosyne/handoffs/`` (ordinary search never indexes hidden folders)::

    <scope-id>/captures/<sha256(capture_id)[:32]>.json   one immutable record each
    <scope-id>/archive/<same name>.json                  records folded into a summary
    <scope-id>/summaries/<date>-summary.md               folded history, readable Markdown

A record (``format`` ``mnemosyne-handoff/1``) holds ``capture_id``, ``scope``,
``created`` (UTC), ``sequence`` (1, 2, ... within the scope), ``fields`` and
``content_sha256`` (of the canonical JSON of the fields). ``capture`` with a used
``capture_id`` returns the original record when the fields are identical (a retry) and
is refused otherwise. ``fold`` summarises older captures into one dated note and moves
them to ``archive/`` as one journaled, undoable transaction (preview, then apply).

Handoffs are served back into new sessions, so their fields are redacted with the vault's
redactor before they are stored (``content_sha256`` is of the redacted fields) and again
whenever a record is read (a record written by an older version may still hold a
secret): ``capture``, ``latest``, ``resume`` and the fold summary never show one.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .atomic import atomic_write_bytes, ensure_no_symlink
from .change_plans import Plan, apply_plan, require_vault, vault_config, vault_redactor
from .errors import InvalidInputError, NoteExistsError, WriteRefusedError
from .journal import FileChange, Journal
from .markdown import estimate_tokens
from .notes_io import iso_utc
from .redact import Redactor
from .vault_lock import VaultLock

__all__ = [
    "DEFAULT_SOFT_BUDGET",
    "HANDOFF_DIR",
    "HANDOFF_FORMAT",
    "MAX_RECORD_BYTES",
    "HandoffFields",
    "HandoffScope",
    "HandoffStore",
]

HANDOFF_FORMAT = "mnemosyne-handoff/1"
HANDOFF_DIR = ".mnemosyne/handoffs"
DEFAULT_SOFT_BUDGET = 2000  # estimated tokens (UTF-8 bytes / 4) per record
MAX_RECORD_BYTES = 1024 * 1024
MAX_KEY_CHARS = 200
MAX_CAPTURE_ID_CHARS = 200
TEXT_FIELDS = ("work_done", "next_step")
LIST_FIELDS = ("decisions", "open_items", "open_questions", "links")
FIELD_NAMES = ("work_done", "decisions", "open_items", "open_questions", "next_step", "links")
_LABELS = {
    "work_done": "Work done",
    "decisions": "Decisions",
    "open_items": "Open items",
    "open_questions": "Open questions",
    "next_step": "Next step",
    "links": "Links",
}


def _check_key(value: object, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{what} must be a non-empty string, e.g. 'atlas'")
    if "\x00" in value or len(value) > MAX_KEY_CHARS:
        raise InvalidInputError(f"{what} must be at most {MAX_KEY_CHARS} characters, without NUL")
    return value


@dataclass(frozen=True)
class HandoffScope:
    """Whose handoff: a project and, optionally, one task in it (kept exactly as given)."""

    project_key: str
    task_key: str | None = None

    def __post_init__(self) -> None:
        _check_key(self.project_key, "project_key")
        if self.task_key is not None:
            _check_key(self.task_key, "task_key")

    @property
    def scope_id(self) -> str:
        canonical = json.dumps([self.project_key, self.task_key], ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:32]

    def to_dict(self) -> dict:
        return {"project_key": self.project_key, "task_key": self.task_key}


@dataclass(frozen=True)
class HandoffFields:
    """What a session hands over. Lists accept a single string too."""

    work_done: str = ""
    decisions: list[str] = field(default_factory=list)
    open_items: list[str] = field(default_factory=list)
    open_questions: list[str] = field(default_factory=list)
    next_step: str = ""
    links: list[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, data: dict) -> HandoffFields:
        if not isinstance(data, dict):
            raise InvalidInputError("handoff fields must be a JSON object")
        unknown = sorted(set(data) - set(FIELD_NAMES))
        if unknown:
            raise InvalidInputError(
                f"unknown handoff field(s) {', '.join(unknown)} — valid: {', '.join(FIELD_NAMES)}",
                valid_choices=FIELD_NAMES,
            )
        values: dict = {}
        for name in TEXT_FIELDS:
            value = data.get(name) or ""
            if not isinstance(value, str):
                raise InvalidInputError(f"{name} must be a string")
            values[name] = value
        for name in LIST_FIELDS:
            value = data.get(name) or []
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise InvalidInputError(f"{name} must be a list of strings")
            values[name] = [v for v in value if v.strip()]
        fields = cls(**values)
        if not any(values.values()):
            raise InvalidInputError(
                "a handoff needs at least one field — e.g. work_done or next_step"
            )
        return fields

    def to_dict(self) -> dict:
        return {name: getattr(self, name) for name in FIELD_NAMES}


def _redact_fields(fields: dict, redactor: Redactor) -> dict:
    """Every text of a handoff's fields, redacted (other values kept as they are)."""
    redacted = {}
    for name, value in fields.items():
        if isinstance(value, str):
            value = redactor.redact(value)
        elif isinstance(value, list):
            value = [redactor.redact(v) if isinstance(v, str) else v for v in value]
        redacted[name] = value
    return redacted


def _content_sha(fields: dict) -> str:
    canonical = json.dumps(fields, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def render_record(record: dict) -> str:
    """A record as Markdown (for people, prefetch and the fold summary)."""
    scope = record["scope"]
    where = scope["project_key"] + (f" / {scope['task_key']}" if scope["task_key"] else "")
    lines = [f"## Handoff {record['created']} ({where})", ""]
    for name in FIELD_NAMES:
        value = record["fields"].get(name)
        if not value:
            continue
        if isinstance(value, list):
            lines.append(f"{_LABELS[name]}:")
            lines += [f"- {item}" for item in value]
        else:
            lines.append(f"{_LABELS[name]}: {value}")
    return "\n".join(lines) + "\n"


class HandoffStore:
    """The handoffs of one vault. ``clock`` returns unix seconds (injected in tests)."""

    def __init__(
        self,
        vault: str | os.PathLike,
        *,
        clock: Callable[[], float] = time.time,
        soft_budget_tokens: int = DEFAULT_SOFT_BUDGET,
    ) -> None:
        self.vault = require_vault(vault).resolve()
        self.clock = clock
        self.soft_budget_tokens = soft_budget_tokens

    def __repr__(self) -> str:
        return f"HandoffStore({str(self.vault)!r})"

    # -- paths and reading ---------------------------------------------------------------

    def _dir(self, scope: HandoffScope, part: str) -> str:
        return f"{HANDOFF_DIR}/{scope.scope_id}/{part}"

    @staticmethod
    def _name(capture_id: str) -> str:
        return hashlib.sha256(capture_id.encode("utf-8")).hexdigest()[:32] + ".json"

    def _load(self, rel: str, scope: HandoffScope) -> dict | None:
        file = self.vault / rel
        ensure_no_symlink(file, root=self.vault)
        try:
            record = json.loads(file.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return None
        except (UnicodeDecodeError, ValueError):
            raise WriteRefusedError(f"handoff record {rel} is damaged — move it aside") from None
        if not isinstance(record, dict) or record.get("format") != HANDOFF_FORMAT:
            raise WriteRefusedError(f"handoff record {rel} is not a {HANDOFF_FORMAT} record")
        if record.get("scope") != scope.to_dict():
            return None  # another scope's record (a hash collision): never shown
        if isinstance(record.get("fields"), dict):
            record["fields"] = _redact_fields(record["fields"], self._redactor())
        return record

    def _redactor(self) -> Redactor:
        """The vault's redactor, read afresh so a changed configuration applies at once."""
        return vault_redactor(vault_config(self.vault))

    def _records(self, scope: HandoffScope, part: str = "captures") -> list[tuple[str, dict]]:
        folder = self.vault / self._dir(scope, part)
        if not folder.is_dir():
            return []
        found = []
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                rel = f"{self._dir(scope, part)}/{name}"
                record = self._load(rel, scope)
                if record is not None:
                    found.append((rel, record))
        return sorted(found, key=lambda item: (item[1]["sequence"], item[1]["created"]))

    def _next_sequence(self, scope: HandoffScope) -> int:
        numbers = [r["sequence"] for _, r in self._records(scope)]
        numbers += [r["sequence"] for _, r in self._records(scope, "archive")]
        return max(numbers, default=0) + 1

    # -- capture -------------------------------------------------------------------------

    def capture(
        self,
        scope: HandoffScope,
        fields: HandoffFields | dict,
        *,
        capture_id: str | None = None,
    ) -> dict:
        """Store one immutable checkpoint; returns the record plus ``replayed`` and
        ``warnings``. A retry with the same ``capture_id`` and fields returns the original;
        other fields under a used id raise ``NoteExistsError``."""
        if isinstance(fields, dict):
            fields = HandoffFields.from_dict(fields)
        if not isinstance(fields, HandoffFields):
            raise InvalidInputError("fields must be HandoffFields or a dict of them")
        raw_data = fields.to_dict()
        if not any(raw_data.values()):
            raise InvalidInputError("a handoff needs at least one field — e.g. work_done")
        redactor = self._redactor()
        data = _redact_fields(raw_data, redactor)
        hidden = sum(
            len(redactor.findings(text))
            for value in raw_data.values()
            for text in (value if isinstance(value, list) else [value])
        )
        if capture_id is None:
            capture_id = f"{iso_utc(self.clock()).replace(':', '')}-{secrets.token_hex(4)}"
        if not isinstance(capture_id, str) or not capture_id.strip():
            raise InvalidInputError("capture_id must be a non-empty string")
        if len(capture_id) > MAX_CAPTURE_ID_CHARS or "\x00" in capture_id:
            raise InvalidInputError(f"capture_id is at most {MAX_CAPTURE_ID_CHARS} characters")
        content = _content_sha(data)
        # A record stored before redaction of handoffs hashed the raw fields.
        accepted = {content, _content_sha(raw_data)}
        name = self._name(capture_id)
        with VaultLock(self.vault):
            for part in ("captures", "archive"):
                old = self._load(f"{self._dir(scope, part)}/{name}", scope)
                if old is None:
                    continue
                if old["capture_id"] != capture_id or old["content_sha256"] not in accepted:
                    raise NoteExistsError(
                        f"capture id {capture_id!r} was already used for a different handoff "
                        "— use a new capture_id (or omit it) for new content"
                    )
                return {**old, "replayed": True, "warnings": []}
            record = {
                "format": HANDOFF_FORMAT,
                "capture_id": capture_id,
                "scope": scope.to_dict(),
                "created": iso_utc(self.clock()),
                "sequence": self._next_sequence(scope),
                "fields": data,
                "content_sha256": content,
            }
            raw = (json.dumps(record, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
            if len(raw) > MAX_RECORD_BYTES:
                raise InvalidInputError(
                    f"the handoff is {len(raw)} bytes, over the hard limit of "
                    f"{MAX_RECORD_BYTES} (1 MiB) — keep details in notes and link them"
                )
            atomic_write_bytes(
                self.vault / self._dir(scope, "captures") / name, raw, root=self.vault
            )
        warnings = []
        if hidden:
            warnings.append(
                f"{hidden} secret(s) in the handoff were stored as [REDACTED] marks — keep "
                "credentials in a secret store and name where they live instead"
            )
        tokens = estimate_tokens(render_record(record))
        if tokens > self.soft_budget_tokens:
            warnings.append(
                f"the handoff is {tokens} estimated tokens (UTF-8 bytes / 4), over the soft "
                f"budget of {self.soft_budget_tokens} — shorter handoffs resume faster"
            )
        return {**record, "replayed": False, "warnings": warnings}

    # -- reading -------------------------------------------------------------------------

    def latest(self, scope: HandoffScope) -> dict | None:
        """The newest live record of ``scope``, or None."""
        records = self._records(scope)
        return records[-1][1] if records else None

    def resume(self, scope: HandoffScope, *, history: int = 3) -> dict:
        """The latest record, its Markdown, a short history and the fold summaries."""
        records = [r for _, r in self._records(scope)]
        latest = records[-1] if records else None
        older = records[:-1][-history:] if history > 0 else []
        summaries = []
        folder = self.vault / self._dir(scope, "summaries")
        if folder.is_dir():
            summaries = sorted(f"{self._dir(scope, 'summaries')}/{n}" for n in os.listdir(folder))
        return {
            "scope": scope.to_dict(),
            "latest": latest,
            "text": render_record(latest) if latest else "",
            "history": [
                {
                    "capture_id": r["capture_id"],
                    "created": r["created"],
                    "next_step": r["fields"].get("next_step", ""),
                    "work_done": (r["fields"].get("work_done", "").splitlines() or [""])[0][:200],
                }
                for r in reversed(older)
            ],
            "captures": len(records),
            "summaries": summaries,
        }

    # -- fold ----------------------------------------------------------------------------

    def _build_fold(self, scope: HandoffScope, keep: int) -> Plan:
        plan = Plan("handoff-fold", self.vault)
        records = self._records(scope)
        folded = records[:-keep] if keep > 0 else records
        plan.summary = {
            "scope": scope.to_dict(),
            "folded": len(folded),
            "kept": len(records) - len(folded),
        }
        if not folded:
            return plan
        date = folded[-1][1]["created"][:10]
        summary_rel = f"{self._dir(scope, 'summaries')}/{date}-summary.md"
        existing = self.vault / summary_rel
        before = existing.read_bytes() if existing.is_file() else None
        where = scope.project_key + (f" / {scope.task_key}" if scope.task_key else "")
        head = (
            f"# Handoff summary: {where}\n\n{len(folded)} captures from "
            f"{folded[0][1]['created']} to {folded[-1][1]['created']}, folded on {date}.\n\n"
        )
        body = "\n".join(render_record(r) for _, r in folded)
        text = (before.decode("utf-8") + "\n" if before else "") + head + body
        plan.add(
            FileChange(summary_rel, before, text.encode("utf-8")),
            {"path": summary_rel, "action": "modify" if before else "create"},
        )
        for rel, record in folded:
            data = (self.vault / rel).read_bytes()
            target = rel.replace("/captures/", "/archive/")
            plan.add(
                FileChange(rel, data, None),
                {
                    "path": rel,
                    "action": "archive",
                    "to": target,
                    "capture_id": record["capture_id"],
                },
            )
            plan.add(FileChange(target, None, data), {"path": target, "action": "create"})
        plan.extra = {
            "summary_path": summary_rel,
            "folded_ids": [r["capture_id"] for _, r in folded],
        }
        return plan

    def fold(
        self, scope: HandoffScope, *, keep: int = 3, apply: bool = False, plan_id: str | None = None
    ) -> dict:
        """Preview (default) or apply folding all but the newest ``keep`` captures into
        one dated summary note; the folded records move to ``archive/``. Journaled."""
        if not isinstance(keep, int) or isinstance(keep, bool) or keep < 0:
            raise InvalidInputError(f"{{=keep}} must be a whole number >= 0, got {keep!r}")
        if not apply:
            return self._build_fold(scope, keep).view()
        return apply_plan(
            self.vault, lambda: self._build_fold(scope, keep), plan_id=plan_id, now=self.clock()
        )

    def undo(self, transaction_id: str) -> dict:
        """Reverse a fold (any journaled transaction) byte for byte."""
        return Journal(self.vault).undo(transaction_id)
