"""Moving and renaming a note: ``move`` plans, then applies, one journaled transaction.

The plan holds every file the move touches: the note at its old path (removed) and its
new one (created, with a new ``title:`` when one is given), and every note whose
wikilinks would stop naming the note they name now. Those links are retargeted: the
target text changes to a name that resolves, after the move, to the same note (in the
link's own style where it can: a path stays a path, a file name a file name), and
``#section`` / ``|alias`` stay as written. A preview (the default) writes nothing; the
apply builds the plan again under the vault lock, refuses it when ``plan_id`` no longer
matches, and writes it all in one transaction, so one ``undo`` puts every byte back.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata

from .. import note_edits
from .. import notes_io as nio
from ..errors import (
    InvalidInputError,
    JournalError,
    VersionConflictError,
    WriteRefusedError,
)
from ..frontmatter import parse_frontmatter, set_frontmatter_key
from ..graph import LinkGraph
from ..journal import FileChange
from ..markdown import WikiLink, parse_markdown
from ..vault_paths import check_note_path, note_stem, zone_of
from .lifecycle import LifecycleMixin

# Characters that end or split a wikilink target: a note named with one cannot be linked.
_LINK_BREAKERS = "[]|#^"


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def _link_name(target: str) -> str:
    """A link target as ``LinkGraph.resolve`` compares it."""
    return _fold(nio.without_md(target.strip().replace("\\", "/").lstrip("/")))


class MovingMixin(LifecycleMixin):
    """``move``: a note to a new path or title, with the links to it rewritten."""

    def move(
        self,
        key: str,
        to: str | None = None,
        *,
        title: str | None = None,
        confirm: bool = False,
        plan_id: str | None = None,
    ) -> dict:
        """Move or rename a note and rewrite the wikilinks the move would break.

        ``to`` is the new vault-relative path (``.md`` optional; ending in ``/``: that
        folder, same file name); ``title`` sets the note's ``title:`` and, without ``to``,
        renames the file after it in the same folder. Only a preview unless ``confirm``:
        ``changes`` lists each rewritten link by file and line. With ``confirm``, the plan
        is built again under the lock and applied as one journaled transaction
        (``undo`` reverses all of it); ``plan_id`` from the preview makes the apply refuse
        (``VersionConflictError``) when anything it would touch changed since.
        Refused: a target that exists (``NoteExistsError``), leaves the vault, or lies in
        a hidden or reserved folder (``InvalidPathError``).
        """
        if not isinstance(confirm, bool):
            raise InvalidInputError(f"confirm must be true or false, got {confirm!r}")
        if not confirm:
            return self._move_view("preview", self._move_plan(key, to, title))
        with self._write_lock():
            plan = self._move_plan(key, to, title)
            if plan_id is not None and plan_id != plan["plan_id"]:
                raise VersionConflictError(
                    f"the notes changed since preview {plan_id} (the same move now plans as "
                    f"{plan['plan_id']})",
                    fix="preview it again with {move} and apply that plan",
                    current_version=plan["plan_id"],
                )
            old, new = plan["path"], plan["to"]
            meta = {"plan_id": plan["plan_id"], "key": plan["key"]}
            if old != new:
                meta["moves"] = [[old, new]]
            try:
                result = self._journal.transaction("move", plan["files"], meta=meta)
            except JournalError as exc:
                raise VersionConflictError(str(exc), current_version=plan["plan_id"]) from exc
            except OSError as exc:
                raise WriteRefusedError(
                    f"could not move {old} to {new}: {exc.strerror or exc} — the journal put "
                    "every file back"
                ) from exc
            if old != new:
                self._carry_usage([(old, new)])
            self.engine.refresh(paths=result["paths"])
            view = self._move_view("applied", plan)
            view.update(
                key=self.engine.key_of(new),
                path=new,
                previous_path=old,
                transaction_id=result["transaction_id"],
                state=result["state"],
                paths=result["paths"],
            )
        return view

    @staticmethod
    def _move_view(mode: str, plan: dict) -> dict:
        moved = plan["path"] != plan["to"]
        return {
            "mode": mode,
            "plan_id": plan["plan_id"],
            "operation": "move",
            "key": plan["key"],
            "path": plan["path"],
            "to": plan["to"],
            "title": plan["title"],
            "moves": [{"from": plan["path"], "to": plan["to"]}] if moved else [],
            "changes": plan["changes"],
            "warnings": plan["warnings"],
        }

    # -- the plan ----------------------------------------------------------------------

    def _move_target(self, path: str, to: object, title: object) -> tuple[str, str | None]:
        if to is None and title is None:
            raise InvalidInputError(
                "give the new path (to='runbooks/restore-db.md') or the new title "
                "(title='Restore the database'), or both"
            )
        new_title = slug = None
        if title is not None:
            new_title, slug = nio.check_title(title)
        if to is not None:
            raw = nio.clean_key(to)
            if raw.endswith("/"):
                raw += posixpath.basename(path)
            target = check_note_path(raw if raw.lower().endswith(".md") else raw + ".md")
        else:
            folder = posixpath.dirname(path)
            target = check_note_path(f"{folder}/{slug}.md" if folder else f"{slug}.md")
        if target == path and new_title is None:
            raise InvalidInputError(f"{path} is already there — give another path or a title")
        if any(char in note_stem(target) for char in _LINK_BREAKERS):
            raise InvalidInputError(
                f"{target}: a wikilink cannot name a file whose name holds any of "
                f"{' '.join(_LINK_BREAKERS)} — choose another name"
            )
        if target != path:
            occupant = self._occupant(target)
            if occupant == path:
                raise InvalidInputError(
                    f"{target} differs from {path} only in letter case, which some disks "
                    "cannot tell apart — move it to another name first, then to this one"
                )
            self._refuse_occupied(target)
        return target, new_title

    def _move_plan(self, key: str, to: object, title: object) -> dict:
        path = self.resolve(key)
        self.engine.refresh()  # every note's links as they are on disk now
        target, new_title = self._move_target(path, to, title)
        data = self._read(path)
        moved = data
        if new_title is not None:
            text = self._utf8(path, data, "give it a new title")
            try:
                moved = set_frontmatter_key(text, "title", new_title).encode("utf-8")
            except InvalidInputError as exc:
                raise InvalidInputError(f"{path}: {exc}") from None
        redact = self.engine.redactor.redact
        needed, graph, titles, after_titles = self._broken_links(path, target, moved)
        successors = self._successor_refs(path, target) if target != path else {}
        files: list[FileChange] = []
        changes: list[dict] = []
        warnings: list[str] = []
        for linker in sorted(needed.keys() | successors.keys()):
            before = moved if linker == path else self._read(linker)
            text, valid = nio.decode_note(before)
            if not valid:
                warnings.append(
                    f"{linker} is not valid UTF-8: its links to the moved note were left as "
                    "they are"
                )
                continue
            renamed: list[tuple[int, str, str]] = []
            if linker in successors:
                text, renamed = _retarget_successor(text, successors[linker], path, target)
                if not renamed:
                    warnings.append(
                        f"{linker}: its superseded_by names the moved note in a form that "
                        "cannot be rewritten; update it by hand"
                    )
            zone = zone_of(target) if linker == path else zone_of(linker)
            wanted = needed.get(linker, {})
            missed: list[str] = []

            def decide(link: WikiLink, wanted=wanted, zone=zone, missed=missed) -> str | None:
                found = wanted.get(redact(link.target))
                if found is None:
                    return None
                before, goal = found
                old_title, new_title = titles[before], after_titles[goal]
                form = _link_form(link.target, before, goal, zone, graph, old_title, new_title)
                if form is None:
                    missed.append(f"line {link.line}")
                return form

            fm = parse_frontmatter(text)
            shift = text.count("\n", 0, fm.body_offset)
            body, rewritten = note_edits.retarget_links(fm.body, decide, line_shift=shift)
            rewritten = renamed + rewritten
            if missed:
                warnings.append(
                    f"{linker}: no link text names the note unambiguously from there "
                    f"({', '.join(missed)}); those links were left as they are"
                )
            if not rewritten:
                continue
            after = (text[: fm.body_offset] + body).encode("utf-8")
            if linker == path:
                moved = after
            else:
                files.append(FileChange(linker, before, after))
            changes.append(
                {
                    "key": self.engine.key_of(linker),
                    "path": linker,
                    "links": [
                        {"line": line, "from": redact(old), "to": redact(new)}
                        for line, old, new in rewritten
                    ],
                }
            )
        if target != path:
            head = [FileChange(path, data, None), FileChange(target, None, moved)]
        elif moved != data:
            head = [FileChange(path, data, moved)]
        else:
            head = []
        files = head + files
        if not files:
            raise InvalidInputError(f"{path} already has the title {new_title!r}")
        return {
            "plan_id": nio.plan_id(files),
            "key": self.engine.key_of(path),
            "path": path,
            "to": target,
            "title": new_title,
            "files": files,
            "changes": changes,
            "warnings": warnings,
        }

    def _successor_refs(self, path: str, target: str) -> dict[str, str]:
        """{note: its ``superseded_by`` value} for the live notes whose value names
        ``path`` (by its path or file name, ``.md`` or not, in ``[[...]]`` or not), which
        the move would leave naming nothing: the note that supersedes them moves."""
        index = self.engine.index
        found = {}
        # read from the columns: a move looks at every note's value, builds no row
        for linker, value, gone in zip(
            index.note_column("path"),
            index.note_column("superseded_by"),
            index.note_column("archived"),
        ):
            if (
                value
                and not gone
                and linker not in (path, target)
                and _successor_parts(value, path)
            ):
                found[linker] = value
        return found

    def _utf8(self, path: str, data: bytes, what: str) -> str:
        text, valid = nio.decode_note(data)
        if not valid:
            raise WriteRefusedError(
                f"{path} is not valid UTF-8; re-save it as UTF-8 to {what}, so no byte is lost"
            )
        return text

    def _broken_links(
        self, path: str, target: str, moved: bytes
    ) -> tuple[dict[str, dict[str, tuple[str, str]]], LinkGraph, dict, dict]:
        """The links the move would break: ``{linking note: {target text: (the path it
        names now, the path it must name afterwards)}}``, with the link graph of the
        vault after the move and every live note's title before and after it.

        A link breaks when it resolves to a note now and would resolve to another note,
        or none, afterwards. Only three kinds can: links naming the moved note (its old
        path, file name or title), links naming what the moved note will be called (its
        new name may collide with theirs), and the moved note's own links (its folder
        decides ties between notes of the same name).
        """
        index = self.engine.index
        keys = self.engine.keys()
        titles = {p: index.notes[index.by_path[p]]["title"] or "" for p in keys}
        text, valid = nio.decode_note(moved)
        if valid:
            fm = parse_frontmatter(text)
            new_title = nio.note_title(fm.data, parse_markdown(fm.body).h1, target)
            new_title = self.engine.redactor.redact(new_title)
        else:
            new_title = titles[path]
        after_titles = {p: t for p, t in titles.items() if p != path}
        after_titles[target] = new_title

        def graph_of(names: dict[str, str]) -> LinkGraph:
            notes = {p: {"title": t, "links": []} for p, t in names.items()}
            return LinkGraph(dict.fromkeys(names, ""), notes)

        old_graph, new_graph = graph_of(titles), graph_of(after_titles)
        involved = {
            _fold(name)
            for name in (
                nio.without_md(path),
                note_stem(path),
                titles[path],
                nio.without_md(target),
                note_stem(target),
                new_title,
            )
            if name
        }
        needed: dict[str, dict[str, tuple[str, str]]] = {}
        for linker in keys:
            links = index.notes[index.by_path[linker]]["links"] or []
            own = linker == path
            for link in links:
                if not own and _link_name(link) not in involved:
                    continue
                before, _ = old_graph.resolve(link, zone_of(linker))
                if before is None:
                    continue  # unresolved now: nothing to keep
                goal = target if before == path else before
                after, _ = new_graph.resolve(link, zone_of(target) if own else zone_of(linker))
                if after != goal:
                    needed.setdefault(linker, {})[link] = (before, goal)
        return needed, new_graph, titles, after_titles


# What separates the note names in a ``superseded_by`` value ("[[adr-009|ADR 9]]",
# "decisions/adr-009.md", "a, b"): the name is what comes before a "|" or "#".
_SUCCESSOR_SPLIT = re.compile(r"(\[\[|\]\]|,|\|[^\]]*|#[^\],]*)")


def _successor_parts(value: str, path: str) -> list[int]:
    """Positions in ``re.split(_SUCCESSOR_SPLIT, value)`` of the names of ``path``."""
    full, stem = _fold(nio.without_md(path)), _fold(note_stem(path))
    out = []
    for i, part in enumerate(_SUCCESSOR_SPLIT.split(value)):
        if i % 2:
            continue  # a separator
        name = _fold(nio.without_md(part.strip().strip("'\"").replace("\\", "/").lstrip("/")))
        if name and name in (full, stem):
            out.append(i)
    return out


def _retarget_successor(
    text: str, value: str, path: str, target: str
) -> tuple[str, list[tuple[int, str, str]]]:
    """``text`` with its ``superseded_by`` naming ``target`` where it named ``path``, in
    the same form (a path stays a path, a file name a file name, ``.md`` kept), and the
    change as ``(line, old, new)``; ``(text, [])`` when the value is not a plain string
    the frontmatter holds as it was read."""
    parts = _SUCCESSOR_SPLIT.split(value)
    for i in _successor_parts(value, path):
        part = parts[i]
        core = part.strip().strip("'\"")
        suffix = ".md" if core.lower().endswith(".md") else ""
        bare = nio.without_md(core.replace("\\", "/").lstrip("/"))
        new = nio.without_md(target) if "/" in bare else note_stem(target)
        parts[i] = part.replace(core, new + suffix)
    new_value = "".join(parts)
    fm = parse_frontmatter(text)
    written = fm.data.get("superseded_by") if fm.present else None
    if not isinstance(written, str) or written.strip() != value.strip():
        return text, []  # a list, or a value the index holds redacted
    try:
        updated = set_frontmatter_key(text, "superseded_by", new_value)
    except InvalidInputError:
        return text, []
    head = text[: fm.body_offset].splitlines()
    line = next((n for n, row in enumerate(head, 1) if row.startswith("superseded_by:")), 1)
    return updated, [(line, f"superseded_by: {value}", f"superseded_by: {new_value}")]


def _link_form(
    original: str,
    before: str,
    goal: str,
    zone: str,
    graph: LinkGraph,
    old_title: str,
    new_title: str,
) -> str | None:
    """The link text that names ``goal`` from a note in ``zone`` after the move, in the
    style of ``original`` (which named ``before``) where that works: a path stays a path
    (``.md`` kept if it had one), a title a title, a file name a file name; else the file
    name, else the path without ``.md``."""
    written = original.strip().replace("\\", "/")
    forms = []
    if "/" in written or written.lower().endswith(".md"):
        suffix = ".md" if written.lower().endswith(".md") else ""
        forms.append(nio.without_md(goal) + suffix)
    elif _fold(written) == _fold(old_title) != _fold(note_stem(before)):
        forms.append(new_title)  # it named the note by its title
    forms += [note_stem(goal), nio.without_md(goal)]
    for form in forms:
        usable = form and not any(char in form for char in _LINK_BREAKERS)
        if usable and graph.resolve(form, zone)[0] == goal:
            return form
    return None
