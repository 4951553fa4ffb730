"""CurationPlan/1: the typed plan a curator model proposes, and how it is read.

A plan is JSON::

    {"format": "CurationPlan/1",
     "summary": "free text (inert)",
     "operations": [
       {"op": "rezone",    "note": "kafka-retention", "zone": "ops",  "reason": "..."},
       {"op": "link",      "note": "a", "target": "b",                "reason": "..."},
       {"op": "supersede", "note": "old-fact", "target": "new-fact",  "reason": "..."},
       {"op": "archive",   "note": "scratch",                         "reason": "..."}]}

| field | required | meaning |
|---|---|---|
| ``op`` | yes | one of ``OPERATIONS``; there is no delete |
| ``note`` | yes | key or vault-relative path of the note the operation changes |
| ``zone`` | rezone | the folder to move the note to (``""`` = inbox) |
| ``target`` | link, supersede | the note linked to / the note that replaces ``note`` |
| ``reason`` | no | free text, shown to the user, never interpreted |

Reading a plan never raises: every operation that cannot be used is *dropped* with a
reason code from ``DROP_REASONS``, and text that holds no JSON plan at all becomes an
empty plan (with ``parse_error`` set). Free text (``summary``, ``reason``) is kept as
data only: it is truncated, and nothing in the code branches on its content.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

__all__ = [
    "DROP_REASONS",
    "MAX_OPERATIONS",
    "OPERATIONS",
    "PLAN_FORMAT",
    "PLAN_SCHEMA",
    "Drop",
    "Operation",
    "ParsedPlan",
    "extract_plan",
    "parse_plan",
]

PLAN_FORMAT = "CurationPlan/1"
OPERATIONS = ("rezone", "link", "supersede", "archive")
# A curator proposes a pass of fixes, not a rewrite of the vault; longer plans are cut
# here (the rest dropped as "too_many_operations") so validation cost stays bounded.
MAX_OPERATIONS = 200
# Free text is shown to the user, never parsed: it is cut to this many characters.
MAX_TEXT_CHARS = 500

DROP_REASONS = {
    "malformed_plan": "the plan is not a CurationPlan/1 object",
    "malformed_operation": "the operation is not an object with string fields",
    "unknown_operation": f"the operation is not one of {', '.join(OPERATIONS)}",
    "too_many_operations": f"plans hold at most {MAX_OPERATIONS} operations",
    "outside_vault": "the path or zone points outside the vault or breaks a path rule",
    "unknown_note": "no live note has this key or path",
    "ambiguous_note": "the name is the key, title or alias of several notes; use a path",
    "no_change": "the note is already in that state",
    "self_reference": "a note cannot link to or be superseded by itself",
    "target_exists": "another file already occupies the destination",
    "protected": "the note is protected (warning, identity/preference, or filed and linked)",
    "conflict": "another accepted operation already changes one of these notes",
    "archive_cap": "over this call's archive budget (the strongest notes are kept)",
    "unreadable_note": "the note is not valid UTF-8 or its frontmatter is invalid",
}

PLAN_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": PLAN_FORMAT,
    "type": "object",
    "additionalProperties": False,
    "required": ["format", "summary", "operations"],
    "properties": {
        "format": {"type": "string", "enum": [PLAN_FORMAT]},
        "summary": {"type": "string"},
        "operations": {
            "type": "array",
            "maxItems": MAX_OPERATIONS,
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["op", "note", "zone", "target", "reason"],
                "properties": {
                    "op": {"type": "string", "enum": list(OPERATIONS)},
                    "note": {"type": "string"},
                    "zone": {"type": ["string", "null"]},
                    "target": {"type": ["string", "null"]},
                    "reason": {"type": "string"},
                },
            },
        },
    },
}

_FENCE_RE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Operation:
    """One well-formed operation as proposed (``note``/``target`` not yet resolved)."""

    index: int
    op: str
    note: str
    zone: str | None = None
    target: str | None = None
    reason: str = ""

    def as_dict(self) -> dict:
        row = {"index": self.index, "op": self.op, "note": self.note}
        if self.op == "rezone":
            row["zone"] = self.zone
        if self.op in ("link", "supersede"):
            row["target"] = self.target
        row["reason"] = self.reason
        return row


@dataclass(frozen=True)
class Drop:
    """An operation (or the whole plan, ``index`` None) that was not used, and why."""

    index: int | None
    reason: str
    detail: str
    operation: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {
            "index": self.index,
            "reason": self.reason,
            "detail": self.detail,
            "operation": self.operation,
        }


@dataclass
class ParsedPlan:
    summary: str
    operations: list[Operation]
    dropped: list[Drop]
    parse_error: str | None = None


def _text(value: object) -> str:
    return value[:MAX_TEXT_CHARS] if isinstance(value, str) else ""


def _echo(raw: object) -> dict:
    """A JSON-safe, bounded copy of a proposed operation for the drop report."""
    if not isinstance(raw, dict):
        return {"value": _text(repr(raw))}
    return {
        str(k)[:40]: (_text(v) if isinstance(v, str) else None if v is None else _text(repr(v)))
        for k, v in list(raw.items())[:8]
    }


def _parse_operation(index: int, raw: object) -> Operation | Drop:
    if not isinstance(raw, dict):
        return Drop(index, "malformed_operation", "an operation must be a JSON object", _echo(raw))
    op = raw.get("op")
    if not isinstance(op, str):
        return Drop(index, "malformed_operation", "'op' must be a string", _echo(raw))
    if op not in OPERATIONS:
        return Drop(
            index,
            "unknown_operation",
            f"unknown operation {op[:40]!r} — valid: {', '.join(OPERATIONS)}",
            _echo(raw),
        )
    note, zone, target = raw.get("note"), raw.get("zone"), raw.get("target")
    if not isinstance(note, str) or not note.strip():
        return Drop(index, "malformed_operation", "'note' must be a non-empty string", _echo(raw))
    if op == "rezone" and not isinstance(zone, str):
        return Drop(index, "malformed_operation", "rezone needs a string 'zone'", _echo(raw))
    if op in ("link", "supersede") and (not isinstance(target, str) or not target.strip()):
        return Drop(index, "malformed_operation", f"{op} needs a string 'target'", _echo(raw))
    reason = raw.get("reason")
    if reason is not None and not isinstance(reason, str):
        return Drop(index, "malformed_operation", "'reason' must be a string", _echo(raw))
    return Operation(
        index=index,
        op=op,
        note=note.strip(),
        zone=zone.strip() if op == "rezone" else None,
        target=target.strip() if op in ("link", "supersede") else None,
        reason=_text(reason),
    )


def parse_plan(plan: object) -> ParsedPlan:
    """Split a decoded plan into well-formed operations and drops; never raises.

    Accepts the plan object, or a bare list of operations. A plan naming another
    ``format`` is dropped whole (``malformed_plan``); a missing ``format`` is tolerated.
    """
    if isinstance(plan, list):
        plan = {"operations": plan}
    if not isinstance(plan, dict):
        return ParsedPlan("", [], [Drop(None, "malformed_plan", "a plan must be a JSON object")])
    fmt = plan.get("format", PLAN_FORMAT)
    raw_ops = plan.get("operations")
    if fmt != PLAN_FORMAT or not isinstance(raw_ops, list):
        detail = (
            f"format must be {PLAN_FORMAT!r}"
            if fmt != PLAN_FORMAT
            else "'operations' must be a list"
        )
        return ParsedPlan(_text(plan.get("summary")), [], [Drop(None, "malformed_plan", detail)])
    operations: list[Operation] = []
    dropped: list[Drop] = []
    for index, raw in enumerate(raw_ops):
        if index >= MAX_OPERATIONS:
            dropped.append(
                Drop(index, "too_many_operations", DROP_REASONS["too_many_operations"], _echo(raw))
            )
            continue
        parsed = _parse_operation(index, raw)
        (operations if isinstance(parsed, Operation) else dropped).append(parsed)
    return ParsedPlan(_text(plan.get("summary")), operations, dropped)


def _decode_objects(text: str):
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[{\[]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        yield value


def _looks_like_plan(value: object) -> bool:
    return isinstance(value, dict) and ("operations" in value or value.get("format"))


def extract_plan(output: str) -> tuple[object, str | None]:
    """The plan in a model's reply: ``(plan, None)``, or ``(empty plan, why)``.

    Fenced blocks (```json first) are tried before bare JSON anywhere in the text; the
    first object that looks like a plan (has ``operations`` or ``format``) wins.
    """
    empty = {"format": PLAN_FORMAT, "summary": "", "operations": []}
    if not isinstance(output, str):
        return empty, "the model returned no text"
    fences = sorted(
        _FENCE_RE.finditer(output), key=lambda m: 0 if m.group(1).lower() == "json" else 1
    )
    for candidate in [m.group(2) for m in fences] + [output]:
        for value in _decode_objects(candidate):
            if _looks_like_plan(value):
                return value, None
    return empty, "no CurationPlan/1 JSON object found in the model's reply"
