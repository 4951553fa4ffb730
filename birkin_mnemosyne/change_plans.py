"""Preview, then apply: plans of whole-file changes, applied as one journaled transaction.

Onboarding and the importers all work the same way. A *builder* reads the vault (and
the source being imported) and returns a ``Plan``: the exact bytes every touched file
holds now and would hold after, with one human-readable row per file. Building never
writes anything — not even ``.mnemosyne/`` — and never depends on the clock, so a
preview and the apply that follows it plan the same bytes.

``apply_plan`` takes the vault's writer lock, builds the plan again, refuses with
``VersionConflictError`` when the caller's ``plan_id`` (from the preview) no longer
matches, and writes every change in **one** ``Journal.transaction``: the whole operation
is undone with one ``Journal(vault).undo(transaction_id)``. A plan with no changes writes
nothing at all, which is what makes re-running an import or ``init`` a no-op.

A plan id is the SHA-256 (hex) of a canonical JSON of the operation and, per file, its
path and the SHA-256 of its bytes before and after (``null`` = absent)::

    {"operation": "init", "changes": [["notes/a.md", "<sha before>", "<sha after>"], ...]}

serialised with sorted keys, no spaces and the changes in path order.

Where an imported file lands is checked by ``resolve_targets``: a target is refused
when two sources map to it (compared case-insensitively, since the vault may be synced
to a case-insensitive disk), when the vault already holds a different file there (or
one whose name differs only by case), when its path breaks a path rule, or when a link
or a file stands in its way. A target that already holds exactly the planned bytes is
*unchanged*: that file was imported before.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from .atomic import ensure_no_symlink
from .config import VaultConfig, load_config
from .discovery import discover
from .errors import (
    InvalidInputError,
    InvalidPathError,
    JournalError,
    VaultNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)
from .journal import FileChange, Journal
from .notes_io import iso_utc
from .progress import ProgressCallback
from .redact import Redactor, load_secret_hashes
from .vault_lock import LOCK_FILE, VaultLock
from .vault_paths import check_note_path

__all__ = [
    "Plan",
    "Target",
    "apply_plan",
    "check_plan_id",
    "compute_plan_id",
    "existing_notes",
    "require_vault",
    "resolve_targets",
    "vault_config",
    "vault_redactor",
]

_PLAN_ID_RE = re.compile(r"[0-9a-f]{64}")


def _sha256(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def compute_plan_id(operation: str, files: list[FileChange]) -> str:
    """The SHA-256 hex id of a plan (see the module docstring for the canonical form)."""
    rows = sorted([change.path, _sha256(change.before), _sha256(change.after)] for change in files)
    canonical = json.dumps(
        {"operation": operation, "changes": rows}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def check_plan_id(plan_id: object) -> str | None:
    """``plan_id`` (lowercased) if it is ``None`` or 64 hex digits, else InvalidInputError."""
    if plan_id is None:
        return None
    if isinstance(plan_id, str) and _PLAN_ID_RE.fullmatch(plan_id.strip().lower()):
        return plan_id.strip().lower()
    raise InvalidInputError(
        f"invalid plan id {plan_id!r}: a plan id is the 64 hex digits the preview printed"
    )


@dataclass
class Plan:
    """What an operation would write; ``view()`` is the preview shape callers see."""

    operation: str
    vault: Path
    files: list[FileChange] = field(default_factory=list)
    changes: list[dict] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    extra: dict = field(default_factory=dict)  # operation-specific keys of the view
    # Report-only parts of the view (they never change ``files``), worked out by the
    # first ``view()``: a plan built only to be checked never pays for them.
    deferred: list[Callable[[Plan], None]] = field(default_factory=list)

    def add(self, change: FileChange, row: dict) -> None:
        self.files.append(change)
        self.changes.append(row)

    def defer(self, fill: Callable[[Plan], None]) -> None:
        """Run ``fill(plan)`` before the first ``view()`` (it may update ``extra``,
        ``summary`` and ``warnings``, never ``files``)."""
        self.deferred.append(fill)

    @property
    def plan_id(self) -> str:
        return compute_plan_id(self.operation, self.files)

    def view(self, mode: str = "preview") -> dict:
        while self.deferred:
            self.deferred.pop(0)(self)
        order = sorted(range(len(self.changes)), key=lambda i: self.changes[i]["path"])
        return {
            "mode": mode,
            "operation": self.operation,
            "plan_id": self.plan_id,
            "vault": str(self.vault),
            "changes": [self.changes[i] for i in order],
            "summary": dict(self.summary),
            "refused": sorted(self.refused, key=lambda r: r["source"]),
            "warnings": list(self.warnings),
            **self.extra,
        }


def require_vault(vault: str | Path) -> Path:
    """The vault folder as a Path; ``VaultNotFoundError`` when it is not a folder."""
    path = Path(vault).expanduser()
    if not path.is_dir():
        raise VaultNotFoundError(
            f"vault folder not found: {path} — create it first (mnemosyne init) or check the path"
        )
    return path


def vault_config(vault: Path) -> VaultConfig:
    """The vault's configuration; the defaults for a vault that does not exist yet."""
    return load_config(vault) if vault.is_dir() else VaultConfig()


def vault_redactor(config: VaultConfig) -> Redactor:
    """The redactor the vault's index uses (disabled families, secret-hash file)."""
    hashes = load_secret_hashes(config.secret_hashes) if config.secret_hashes else None
    return Redactor(config.redaction_disabled, hashes)


def existing_notes(vault: Path, warnings: list[str] | None = None) -> dict[str, str]:
    """Every visible note of the vault, keyed by its case-folded path."""
    if not vault.is_dir():
        return {}
    problems: list[str] = []
    found = discover(vault, problems=problems)
    if warnings is not None:
        warnings.extend(problems)
    return {path.casefold(): path for path in found}


@dataclass
class Target:
    """One planned file: where it goes, what it would hold, where it came from."""

    source: str
    path: str
    after: bytes
    row: dict  # the ``changes`` row (path and action are filled in by resolve_targets)


def _target_problem(vault: Path, path: str, existing: dict[str, str]) -> tuple[str, bytes | None]:
    """``("", current bytes or None)`` when ``path`` can receive a file, else the reason."""
    other = existing.get(path.casefold())
    if other is not None and other != path:
        return f"the vault already has {other}, whose name differs only by case", None
    target = vault / path
    try:
        ensure_no_symlink(target, root=vault)
    except InvalidPathError:
        return "a symbolic link in the vault stands where the file would go", None
    for parent in target.relative_to(vault).parents:
        if parent.parts and (vault / parent).exists() and not (vault / parent).is_dir():
            return f"the vault has a file named {parent.as_posix()} where a folder is needed", None
    if target.is_dir():
        return "the vault has a folder of that name", None
    try:
        return "", target.read_bytes()
    except FileNotFoundError:
        return "", None
    except OSError as exc:
        return f"cannot read the vault file there ({exc.strerror})", None


def resolve_targets(
    vault: Path, targets: list[Target], existing: dict[str, str], plan: Plan
) -> list[Target]:
    """Add the creatable targets to ``plan``, refuse the rest; returns the unchanged ones.

    Refusals are recorded in ``plan.refused`` with the source they came from; they never
    block the accepted files (see the module docstring for the rules).
    """
    groups: dict[str, list[Target]] = {}
    for target in targets:
        groups.setdefault(target.path.casefold(), []).append(target)
    unchanged: list[Target] = []
    for group in groups.values():
        if len(group) > 1:
            names = ", ".join(sorted(t.source for t in group))
            for target in group:
                plan.refused.append(
                    {
                        "source": target.source,
                        "reason": f"{len(group)} sources would become {target.path} "
                        f"(names that differ only by case or extension: {names}) — rename "
                        "all but one",
                    }
                )
            continue
        target = group[0]
        try:
            check_note_path(target.path)
        except InvalidPathError as exc:
            plan.refused.append({"source": target.source, "reason": str(exc)})
            continue
        problem, current = _target_problem(vault, target.path, existing)
        if problem:
            plan.refused.append({"source": target.source, "reason": f"{target.path}: {problem}"})
        elif current == target.after:
            unchanged.append(target)
        elif current is not None:
            plan.refused.append(
                {
                    "source": target.source,
                    "reason": f"{target.path} already exists with different content — move "
                    "it away (or rename the source) to import this file",
                }
            )
        else:
            plan.add(
                FileChange(target.path, None, target.after),
                {"path": target.path, "action": "create", **target.row},
            )
    return unchanged


def _clock(now: float | None) -> Callable[[], datetime] | None:
    if now is None:
        return None
    iso_utc(now)  # validates: a finite unix time
    moment = datetime.fromtimestamp(now, timezone.utc)
    return lambda: moment


def _check_current(plan: Plan, plan_id: str | None) -> str:
    current = plan.plan_id
    if plan_id is not None and plan_id != current:
        raise VersionConflictError(
            f"the vault changed since the preview (plan {plan_id[:16]} now plans as "
            f"{current[:16]}) — preview again",
            current_version=current,
        )
    return current


def _unchanged(plan: Plan) -> dict:
    view = plan.view("applied")
    view.update(transaction_id=None, state="unchanged", paths=[])
    return view


def apply_plan(
    vault: Path,
    build: Callable[[], Plan],
    *,
    plan_id: str | None,
    now: float | None,
    first: Plan | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict:
    """Rebuild the plan under the vault lock and write it as one journaled transaction.

    Returns the plan's view with ``mode="applied"``, ``transaction_id`` (``None`` when
    there was nothing to write), ``state`` (``committed`` or ``unchanged``) and
    ``paths``. Raises ``VersionConflictError`` when ``plan_id`` is given and the vault
    or the source changed since that preview. ``first`` is a plan the caller already
    built without the lock (it is checked, then built again under the lock).
    ``on_progress`` receives the journal's ``write`` phase; the view (and whatever the
    plan deferred to it) is worked out after the lock is released.
    """
    plan_id = check_plan_id(plan_id)
    clock = _clock(now)
    if first is None and not (vault / LOCK_FILE).exists():
        # Taking the lock creates the lock file. A vault we never wrote to has none yet,
        # so check first: a refused or empty apply must leave the folder as it was.
        first = build()
    if first is not None:
        _check_current(first, plan_id)
        if not first.files:
            return _unchanged(first)
    with VaultLock(vault):
        plan = build()
        current = _check_current(plan, plan_id)
        if not plan.files:
            return _unchanged(plan)
        meta = {"plan_id": current, "summary": plan.summary}
        try:
            result = Journal(vault, clock=clock).transaction(
                plan.operation, plan.files, meta=meta, on_progress=on_progress
            )
        except JournalError as exc:
            raise VersionConflictError(str(exc), current_version=current) from exc
        except OSError as exc:
            raise WriteRefusedError(
                f"could not apply the {plan.operation} plan: {exc.strerror or exc} — the "
                "journal put every file back"
            ) from exc
    view = plan.view("applied")
    view.update(
        transaction_id=result["transaction_id"], state=result["state"], paths=result["paths"]
    )
    return view
