"""Review questions: the vault asks the user about likely duplicates, overlaps, conflicts
and (over a capacity budget) protected notes that might be retired.

``questions(vault)`` finds note pairs with lexical evidence (Jaccard similarity of their
index terms, ``catalog.duplicate_pairs``) and phrases each as a question with choices:

| kind | evidence | choices |
|---|---|---|
| ``conflict`` | similarity >= ``CONFLICT_AT`` and only one of the two negates | keep both, drop one (archive), merge |
| ``duplicate`` | similarity >= ``DUPLICATE_AT`` | the same |
| ``overlap`` | similarity >= ``OVERLAP_AT`` | the same |
| ``retire`` | a capacity budget is exceeded | keep, retire (archive) |

``apply(vault, question_id, answer, body=...)`` executes the chosen answer through the
journal (one transaction; ``undo(vault, transaction_id)`` restores every byte). A merge
writes the *approved* ``body`` into the kept note and archives the other. "Keep" answers
are remembered in ``.mnemosyne/state/review.json`` so the question is not asked again.
A question id covers both notes' versions: once either note changes, the old id no
longer applies and the questions must be listed again.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from ..atomic import atomic_write_text
from ..errors import InvalidInputError, JournalError, PlanError, VersionConflictError
from ..frontmatter import parse_frontmatter
from ..journal import FileChange, Journal
from ..notes_io import ARCHIVE_PREFIX
from ..vault_lock import DEFAULT_TIMEOUT, VaultLock
from .capacity import capacity_of, load_budgets
from .catalog import duplicate_pairs
from .snapshot import Snapshot, open_parts, take_snapshot

__all__ = ["REVIEW_FORMAT", "apply", "questions", "undo"]

REVIEW_FORMAT = "mnemosyne-review/1"
REVIEW_STATE = Path(".mnemosyne") / "state" / "review.json"
# Similarity thresholds on the Jaccard of index terms. 0.5 is notes_io's
# NEAR_DUPLICATE_JACCARD (the write path's near-duplicate warning); 0.8 means nearly
# every term is shared; 0.35 with a negation on one side only is worth asking about.
DUPLICATE_AT = 0.8
OVERLAP_AT = 0.5
CONFLICT_AT = 0.35
MAX_QUESTIONS = 50
_NEGATION = re.compile(
    r"\b(not|never|no longer|don't|doesn't|isn't|aren't|won't|cannot|can't|stopped|deprecated)\b",
    re.IGNORECASE,
)


def _qid(kind: str, *parts: str) -> str:
    return hashlib.sha256("\0".join((kind, *parts)).encode("utf-8")).hexdigest()[:12]


def _dismissed(vault: Path) -> set[str]:
    try:
        data = json.loads((vault / REVIEW_STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    if not isinstance(data, dict) or data.get("format") != REVIEW_FORMAT:
        return set()
    return {item for item in data.get("dismissed", []) if isinstance(item, str)}


def _dismiss(vault: Path, question_id: str) -> None:
    kept = sorted(_dismissed(vault) | {question_id})
    atomic_write_text(
        vault / REVIEW_STATE,
        json.dumps({"format": REVIEW_FORMAT, "dismissed": kept}, indent=1) + "\n",
        root=vault,
    )


def _negates(snapshot: Snapshot, path: str) -> bool:
    text = snapshot.notes[path].text or ""
    return bool(_NEGATION.search(parse_frontmatter(text).body))


def _brief(snapshot: Snapshot, path: str) -> dict:
    info = snapshot.notes[path]
    return {
        "key": info.key,
        "path": path,
        "title": info.title,
        "version": info.version,
        "protected": info.protected,
    }


def _pair_question(snapshot: Snapshot, pair: dict) -> dict | None:
    a, b = pair["a"], pair["b"]
    # Keep the stronger (more used, then more linked to) note as the merge target.
    na, nb = snapshot.notes[a], snapshot.notes[b]
    if (nb.activation, len(nb.backlinks)) > (na.activation, len(na.backlinks)):
        a, b = b, a
    similarity = pair["similarity"]
    # A negation on one side only makes a near-copy a conflict, not a duplicate.
    if _negates(snapshot, a) != _negates(snapshot, b):
        kind = "conflict"
    elif similarity >= DUPLICATE_AT:
        kind = "duplicate"
    elif similarity >= OVERLAP_AT:
        kind = "overlap"
    else:
        return None
    ta, tb = snapshot.notes[a].title or a, snapshot.notes[b].title or b
    wording = {
        "duplicate": f"{ta!r} and {tb!r} look like the same note. Keep both, drop one, or merge?",
        "overlap": f"{ta!r} and {tb!r} cover much of the same ground. Keep both, drop one, "
        "or merge?",
        "conflict": f"{ta!r} and {tb!r} are about the same thing but one of them negates it. "
        "Which one still holds?",
    }[kind]
    return {
        "id": _qid(kind, a, b, snapshot.notes[a].version, snapshot.notes[b].version),
        "kind": kind,
        "question": wording,
        "notes": [_brief(snapshot, a), _brief(snapshot, b)],
        "evidence": {
            "similarity": similarity,
            "shared_terms": pair["shared_terms"],
            "method": "lexical",
        },
        "choices": [
            {"id": "keep_both", "effect": "change nothing and stop asking"},
            {"id": "drop_first", "effect": f"archive {a}"},
            {"id": "drop_second", "effect": f"archive {b}"},
            {
                "id": "merge",
                "effect": f"write the approved body into {a}, archive {b}",
                "needs_body": True,
            },
        ],
    }


def _retire_question(snapshot: Snapshot, path: str, over: list[str]) -> dict:
    info = snapshot.notes[path]
    return {
        "id": _qid("retire", path, info.version),
        "kind": "retire",
        "question": f"The vault is over its {', '.join(over)} budget. {info.title or path!r} "
        f"is one of the oldest, least-used protected notes ({info.protected}). Retire it to "
        "the archive?",
        "notes": [_brief(snapshot, path)],
        "evidence": {"activation": round(info.activation, 3), "protected": info.protected},
        "choices": [
            {"id": "keep", "effect": "change nothing and stop asking"},
            {"id": "retire", "effect": f"archive {path}"},
        ],
    }


def _questions(parts, snapshot: Snapshot, budgets: Mapping[str, int | None]) -> list[dict]:
    dismissed = _dismissed(parts.vault)
    found = []
    for pair in duplicate_pairs(snapshot, threshold=CONFLICT_AT, limit=MAX_QUESTIONS * 4):
        question = _pair_question(snapshot, pair)
        if question is not None and question["id"] not in dismissed:
            found.append(question)
    report = capacity_of(parts, snapshot, budgets)
    for path in report["retire_candidates"]:
        question = _retire_question(snapshot, path, report["over_budget"])
        if question["id"] not in dismissed:
            found.append(question)
    return found[:MAX_QUESTIONS]


def questions(
    vault,
    *,
    budgets: Mapping[str, object] | None = None,
    now: float | None = None,
    clock: Callable[[], float] = time.time,
) -> dict:
    """Open review questions: ``{"questions": [...], "total": n}``."""
    resolved = load_budgets(budgets)
    parts = open_parts(vault)
    snapshot = take_snapshot(parts, clock() if now is None else now)
    found = _questions(parts, snapshot, resolved)
    return {"questions": found, "total": len(found)}


def _archive_change(snapshot: Snapshot, path: str) -> list[FileChange]:
    target = f"{ARCHIVE_PREFIX}{path}"
    if (snapshot.vault / target).exists():
        raise VersionConflictError(f"{target} already exists — restore or move it first")
    data = snapshot.notes[path].data
    return [FileChange(path, data, None), FileChange(target, None, data)]


def apply(
    vault,
    question_id: str,
    answer: str,
    *,
    body: str | None = None,
    budgets: Mapping[str, object] | None = None,
    now: float | None = None,
    clock: Callable[[], float] = time.time,
) -> dict:
    """Execute ``answer`` (a choice id) to question ``question_id``.

    Returns ``{"mode": "applied", "question_id", "answer", "transaction_id", "state",
    "paths"}``; ``transaction_id`` is None for a "keep" answer (nothing is written).
    """
    if not isinstance(question_id, str) or not question_id:
        raise InvalidInputError("question_id must be the id of a listed review question")
    resolved = load_budgets(budgets)
    parts = open_parts(vault)
    timeout = parts.lock_timeout or DEFAULT_TIMEOUT
    with VaultLock(parts.vault, timeout=timeout):
        snapshot = take_snapshot(parts, clock() if now is None else now)
        match = next(
            (q for q in _questions(parts, snapshot, resolved) if q["id"] == question_id), None
        )
        if match is None:
            raise PlanError(
                f"review question {question_id!r} no longer applies (a note changed, or it was "
                "answered) — list the review questions again"
            )
        valid = [choice["id"] for choice in match["choices"]]
        if answer not in valid:
            raise InvalidInputError(
                f"answer {answer!r} is not a choice of question {question_id} — valid: "
                f"{', '.join(valid)}",
                valid_choices=valid,
            )
        paths = [note["path"] for note in match["notes"]]
        result = {"mode": "applied", "question_id": question_id, "answer": answer}
        if answer in ("keep_both", "keep"):
            _dismiss(parts.vault, question_id)
            return {**result, "transaction_id": None, "state": "unchanged", "paths": []}
        if answer in ("drop_first", "retire"):
            changes = _archive_change(snapshot, paths[0])
        elif answer == "drop_second":
            changes = _archive_change(snapshot, paths[1])
        else:  # merge
            if not isinstance(body, str) or not body.strip():
                raise InvalidInputError(
                    "a merge needs the approved merged body (body=...) — write it, show it "
                    "to the user, then apply"
                )
            kept = snapshot.notes[paths[0]]
            if kept.text is None:
                raise PlanError(f"{paths[0]} is not valid UTF-8; re-save it as UTF-8 first")
            offset = parse_frontmatter(kept.text).body_offset
            merged = kept.text[:offset] + body.strip("\n") + "\n"
            changes = [FileChange(paths[0], kept.data, merged.encode("utf-8"))]
            changes += _archive_change(snapshot, paths[1])
        moves = [
            [old.path, new.path]
            for old, new in zip(changes, changes[1:])
            if old.after is None and new.before is None
        ]
        try:
            done = Journal(parts.vault, lock_timeout=timeout).transaction(
                "review", changes, meta={"moves": moves, "question_id": question_id}
            )
        except JournalError as exc:
            raise VersionConflictError(str(exc)) from exc
        if moves:
            parts.usage.load()
            parts.usage.rename_many([(old, new) for old, new in moves])
        parts.engine.refresh(paths=done["paths"])
    return {
        **result,
        "transaction_id": done["transaction_id"],
        "state": done["state"],
        "paths": done["paths"],
    }


def undo(vault, transaction_id: str) -> dict:
    """Undo a review (or curation) transaction byte for byte."""
    if hasattr(vault, "undo") and hasattr(vault, "engine"):
        return vault.undo(transaction_id)  # VaultMemory: also moves usage records back
    parts = open_parts(vault)
    result = Journal(parts.vault).undo(transaction_id)
    parts.engine.refresh(paths=result["paths"])
    return result
