"""First-run onboarding (``mnemosyne init``): complete frontmatter, report overlaps, import.

``plan_init`` previews and writes nothing; ``apply_init`` writes exactly that plan as one
journaled transaction (undo it with ``Journal(vault).undo(transaction_id)``). Running it
again on an unchanged vault plans nothing and writes nothing.

What the plan holds
===================

=========================  ==============================================================
part                       rule
=========================  ==============================================================
vault folder               may not exist yet: the preview says so (``create_vault``) and
                           ``apply_init`` creates it (folder creation is not journaled)
frontmatter completion     for every note (``discovery.discover``: hidden folders,
                           ``_archive/`` and ``.mnemosyne/`` are skipped) *add* the keys
                           among ``title``, ``type``, ``tags`` that are absent. A key that
                           is present, even empty, is never rewritten; the bytes after the
                           frontmatter block stay identical. ``title``: the first H1, else
                           the file name; ``type``: the vault's ``type_rules``, else the
                           top-level folder singularised (``runbooks/pg/x.md`` ->
                           ``runbook``), else ``note`` for the inbox; ``tags``: ``[]``
duplicates                 pairs of notes whose index-term sets have a Jaccard similarity
                           >= 0.5 (``notes_io.NEAR_DUPLICATE_JACCARD``), found by the
                           exact join of ``similarity.similar_pairs``; reported only,
                           never merged. Planned imports take part
import (``import_dir``)    every file below the folder goes to
                           ``imports/<folder name>/<relative path>``: ``.md`` copied byte
                           for byte; ``.txt``/``.json`` become ``<stem>.md`` holding
                           frontmatter (``title`` = file name, ``type: import``,
                           ``source`` = relative path, ``tags: []``) and the text in a
                           fence (``source_files.fence_text``; lossless); other files are
                           skipped and counted
=========================  ==============================================================

Refusals (symbolic links, invalid UTF-8, NUL bytes, oversize files, and target
collisions: two sources mapping to one target case-insensitively, or a different file
already at the target) are listed in ``refused`` and never block the accepted files.
Imported files are kept exactly as they came: their frontmatter is not completed by the
same ``init`` (a later ``init`` without ``--import`` completes them like any note), and
credentials found in them are reported in ``credentials`` but not redacted — the copy is
lossless, and the index and every read redact them anyway. A note with invalid UTF-8 or
invalid frontmatter is listed in ``skipped_notes`` and left alone.

The duplicate report does not change what is written, so it is worked out once, when
the result is shown: ``apply_init`` builds the plan twice (once to check it, once under
the vault lock) but tokenizes and compares the notes only for the result it returns,
after the files are written. Both functions take ``on_progress`` (``progress``): the
phases ``read``, ``tokenize``, ``duplicates`` and, when applying, ``write``.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from pathlib import Path

from .change_plans import (
    Plan,
    Target,
    apply_plan,
    check_plan_id,
    existing_notes,
    resolve_targets,
    vault_config,
    vault_redactor,
)
from .config import VaultConfig
from .errors import InvalidInputError, InvalidPathError, VersionConflictError
from .frontmatter import parse_frontmatter, render_frontmatter, set_frontmatter_key
from .journal import FileChange
from .markdown import parse_markdown
from .notes_io import DEFAULT_NOTE_TYPE, NEAR_DUPLICATE_JACCARD, note_title, term_set
from .progress import ProgressCallback, phase
from .redact import Redactor
from .similarity import similar_pairs
from .source_files import (
    SourceRefused,
    check_source_folder,
    decode_source_text,
    fence_text,
    read_source_bytes,
    walk_source,
)
from .vault_paths import check_zone, slugify

__all__ = ["IMPORTS_DIR", "apply_init", "plan_init", "similar_pairs", "singular"]

IMPORTS_DIR = "imports"
OPERATION = "init"
# Pairs beyond this many are counted in the summary but not listed (a vault full of
# copies of one template would otherwise list n*(n-1)/2 pairs).
MAX_DUPLICATES_LISTED = 200
_WRAPPED = {".txt": "text", ".json": "json"}
_IMPORT_TYPE = "import"


def singular(word: str) -> str:
    """A folder name made singular, simply: ``runbooks`` -> ``runbook``, ``stories`` ->
    ``story``; words ending in ``ss``, ``us`` or ``is`` are kept (``status``, ``analysis``)."""
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("sses"):
        return word[:-2]
    if len(word) > 1 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def _note_type(path: str, config: VaultConfig) -> str:
    configured = config.type_for(path)
    if configured:
        return configured
    if "/" not in path:
        return DEFAULT_NOTE_TYPE
    return singular(slugify(path.split("/", 1)[0])) or DEFAULT_NOTE_TYPE


def _complete_frontmatter(
    text: str, parsed, path: str, config: VaultConfig
) -> tuple[str, dict] | str:
    """``(new text, added keys)``; ``(text, {})`` when complete; a reason string if invalid.
    ``parsed`` is ``parse_frontmatter(text)``."""
    problems = [w for w in parsed.warnings if w.code == "invalid_frontmatter"]
    if problems:
        return f"{problems[0].message} (line {problems[0].line}) — fix it, then run init again"
    missing = [key for key in ("title", "type", "tags") if key not in parsed.data]
    if not missing:
        return text, {}
    added: dict = {}
    for key in missing:
        if key == "title":
            added[key] = note_title({}, parse_markdown(parsed.body).h1, path)
        elif key == "type":
            added[key] = _note_type(path, config)
        else:
            added[key] = []
    if parsed.present:
        for key, value in added.items():
            text = set_frontmatter_key(text, key, value)
        return text, added
    first_break = text.find("\n")
    newline = "\r\n" if first_break > 0 and text[first_break - 1] == "\r" else "\n"
    block = render_frontmatter(added)
    if newline != "\n":
        block = block.replace("\n", newline)
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    return bom + block + text[len(bom) :], added


def _terms(parsed, path: str) -> set[str]:
    """The index terms of a note (title as the index sees it, then the body)."""
    h1 = parse_markdown(parsed.body).h1 if parsed.data.get("title") in (None, "") else None
    return term_set(note_title(parsed.data, h1, path), parsed.body)


class _Memo:
    """The per-note work of a build, kept for the next build of the same apply: a note
    whose bytes are the same is not parsed twice. A reading is the parsed frontmatter
    and what ``_complete_frontmatter`` made of the text."""

    def __init__(self) -> None:
        self.readings: dict[str, tuple[bytes, tuple]] = {}

    def reading(self, path: str, data: bytes, text: str, config: VaultConfig) -> tuple:
        kept = self.readings.get(path)
        if kept is not None and kept[0] == data:
            return kept[1]
        parsed = parse_frontmatter(text)
        reading = (parsed, _complete_frontmatter(text, parsed, path, config))
        self.readings[path] = (data, reading)
        return reading


def _add_duplicates(plan: Plan, notes: dict, on_progress: ProgressCallback | None) -> None:
    """Compare the notes (path -> parsed frontmatter) and put the pairs in the plan's view."""
    term_sets = {}
    with phase(on_progress, "tokenize", len(notes)) as tokenizing:
        for path, parsed in notes.items():
            term_sets[path] = _terms(parsed, path)
            tokenizing.advance()
    pairs = similar_pairs(term_sets, NEAR_DUPLICATE_JACCARD, on_progress=on_progress)
    plan.extra["duplicates"] = [
        {"a": a, "b": b, "similarity": round(similarity, 3)}
        for a, b, similarity in pairs[:MAX_DUPLICATES_LISTED]
    ]
    # In the summary's usual place (after the additions), not at its end.
    summary = dict(plan.summary)
    plan.summary.clear()
    for key, value in summary.items():
        plan.summary[key] = value
        if key == "frontmatter_additions":
            plan.summary["duplicates"] = len(pairs)
    if len(pairs) > MAX_DUPLICATES_LISTED:
        plan.warnings.append(
            f"{len(pairs)} duplicate candidates; the {MAX_DUPLICATES_LISTED} most similar are listed"
        )


def _import_folder_zone(folder: Path) -> str:
    name = folder.resolve().name
    try:
        zone = check_zone(name)
    except InvalidPathError:
        zone = ""
    if not zone or "/" in zone:
        zone = slugify(name) or "folder"
    return f"{IMPORTS_DIR}/{zone}"


def _plan_imports(
    plan: Plan,
    vault: Path,
    import_dir: str | Path,
    config: VaultConfig,
    redactor: Redactor,
    existing: dict[str, str],
) -> tuple[set[str], dict[str, str]]:
    """Plan the import; returns the case-folded target paths it owns and new texts."""
    folder = check_source_folder(import_dir, vault, what="import folder")
    zone = _import_folder_zone(folder)
    walked = walk_source(folder)
    plan.refused.extend(walked.refused)
    targets: list[Target] = []
    texts: dict[str, str] = {}
    credentials: Counter = Counter()
    skipped_other = 0
    for entry in walked.files:
        suffix = posixpath.splitext(entry.rel)[1].lower()
        if suffix != ".md" and suffix not in _WRAPPED:
            skipped_other += 1
            continue
        try:
            data = read_source_bytes(entry, max_bytes=config.max_file_bytes)
            text = decode_source_text(data)
        except SourceRefused as exc:
            plan.refused.append({"source": entry.rel, "reason": exc.reason})
            continue
        credentials.update(redactor.count(text))
        if suffix == ".md":
            path, after, kind = f"{zone}/{entry.rel}", data, "markdown"
            detail = "copy the Markdown file byte for byte"
        else:
            kind = _WRAPPED[suffix]
            path = f"{zone}/{entry.rel[: -len(suffix)]}.md"
            name = posixpath.basename(entry.rel)
            front = {"title": name, "type": _IMPORT_TYPE, "source": entry.rel, "tags": []}
            after = (render_frontmatter(front) + "\n" + fence_text(text, kind)).encode("utf-8")
            detail = f"wrap the {kind} file in a code fence (lossless)"
        texts[path] = after.decode("utf-8")
        targets.append(
            Target(
                entry.rel,
                path,
                after,
                {"kind": f"import_{kind}", "source": entry.rel, "detail": detail},
            )
        )
    before = len(plan.files)
    unchanged = resolve_targets(vault, targets, existing, plan)
    imports = [
        {"source": row["source"], "path": row["path"], "kind": row["kind"][len("import_") :]}
        for row in plan.changes[before:]
    ]
    owned = {target.path.casefold() for target in unchanged}
    owned.update(change.path.casefold() for change in plan.files[before:])
    plan.extra["imports"] = imports
    plan.extra["credentials"] = dict(sorted(credentials.items()))
    plan.summary.update(
        imports=len(imports),
        already_imported=len(unchanged),
        skipped_other_files=skipped_other,
        hidden_skipped=walked.hidden_skipped,
    )
    if credentials:
        plan.warnings.append(
            f"{sum(credentials.values())} credential(s) found in the files to import "
            f"({', '.join(sorted(credentials))}); imports are copied losslessly, so they are "
            "kept — search and reads redact them, but remove them from the source if they "
            "should not be stored"
        )
    planned_texts = {change.path: texts[change.path] for change in plan.files[before:]}
    return owned, planned_texts


def _build(
    vault: Path,
    import_dir: str | Path | None,
    *,
    memo: _Memo | None = None,
    on_progress: ProgressCallback | None = None,
) -> Plan:
    if vault.exists() and not vault.is_dir():
        raise InvalidInputError(f"{vault} is a file, not a folder — give the vault folder")
    plan = Plan(OPERATION, vault)
    config = vault_config(vault)
    existing = existing_notes(vault, plan.warnings)
    plan.summary["create_vault"] = not vault.exists()
    if not vault.exists():
        plan.warnings.append(f"the vault folder {vault} does not exist; applying creates it")
    owned: set[str] = set()
    new_texts: dict[str, str] = {}
    plan.extra.update(imports=[], credentials={})
    if import_dir is not None:
        owned, new_texts = _plan_imports(
            plan, vault, import_dir, config, vault_redactor(config), existing
        )
    memo = _Memo() if memo is None else memo
    additions: list[dict] = []
    skipped: list[dict] = []
    compared: dict[str, object] = {}  # path -> parsed frontmatter, for the duplicate check
    paths = sorted(existing.values())
    reading = phase(on_progress, "read", len(paths))
    for path in paths:
        reading.advance()
        try:
            data = (vault / path).read_bytes()
        except OSError as exc:
            skipped.append({"path": path, "reason": f"cannot read it ({exc.strerror})"})
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            skipped.append({"path": path, "reason": "not valid UTF-8 — re-save it as UTF-8"})
            continue
        parsed, completed = memo.reading(path, data, text, config)
        compared[path] = parsed
        if path.casefold() in owned:
            continue
        if isinstance(completed, str):
            skipped.append({"path": path, "reason": completed})
            continue
        new_text, added = completed
        if added:
            plan.add(
                FileChange(path, data, new_text.encode("utf-8")),
                {
                    "path": path,
                    "action": "update",
                    "kind": "frontmatter",
                    "detail": "add " + ", ".join(added),
                },
            )
            additions.append({"path": path, "add": added})
    reading.finish()
    for path, text in new_texts.items():
        compared[path] = parse_frontmatter(text)
    for note in skipped:
        plan.warnings.append(f"{note['path']} left alone: {note['reason']}")
    plan.extra.update(
        notes_found=len(existing),
        frontmatter_additions=additions,
        duplicates=[],
        skipped_notes=skipped,
    )
    plan.summary.update(
        notes_found=len(existing),
        frontmatter_additions=len(additions),
        skipped_notes=len(skipped),
        refused=len(plan.refused),
        changes=len(plan.files),
    )
    # Filled in when the plan is shown: the files and the plan id never depend on it.
    plan.defer(lambda plan: _add_duplicates(plan, compared, on_progress))
    return plan


def plan_init(
    vault: str | Path,
    *,
    import_dir: str | Path | None = None,
    now: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict:
    """Preview onboarding of ``vault`` (which need not exist yet); writes nothing.

    ``now`` is accepted for symmetry with ``apply_init``: a plan never depends on the
    time, so the preview and the apply agree on every byte. ``on_progress`` receives
    ``progress.ProgressEvent`` values (phases ``read``, ``tokenize``, ``duplicates``).
    """
    return _build(Path(vault).expanduser(), import_dir, on_progress=on_progress).view()


def apply_init(
    vault: str | Path,
    *,
    plan_id: str | None = None,
    import_dir: str | Path | None = None,
    now: float | None = None,
    on_progress: ProgressCallback | None = None,
) -> dict:
    """Apply the onboarding plan as one journaled transaction (creating the vault folder).

    With ``plan_id`` (from ``plan_init``) the plan is refused with
    ``VersionConflictError`` if the vault or the import folder changed since. ``now``
    (unix seconds) stamps the journal entry. The result adds ``created_vault``.
    ``on_progress`` receives the phases ``read`` (once per build), ``write``, then
    ``tokenize`` and ``duplicates``.
    """
    vault = Path(vault).expanduser()
    plan_id = check_plan_id(plan_id)
    memo = _Memo()

    def build() -> Plan:
        return _build(vault, import_dir, memo=memo, on_progress=on_progress)

    first = None
    if not vault.exists():
        # Check everything (the import folder, the plan id) before creating the folder.
        first = build()
        if plan_id is not None and first.plan_id != plan_id:
            raise VersionConflictError(
                f"the plan changed since the preview (plan {plan_id[:16]} now plans as "
                f"{first.plan_id[:16]}) — preview again",
                current_version=first.plan_id,
            )
        vault.mkdir(parents=True)
    result = apply_plan(
        vault, build, plan_id=plan_id, now=now, first=first, on_progress=on_progress
    )
    result["created_vault"] = first is not None
    result["summary"]["create_vault"] = first is not None
    return result
