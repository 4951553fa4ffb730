"""The always-loaded memory INDEX: a small map of *when* to read *which* note.

An agent starts every session cold. The INDEX is the text it keeps resident: one route
per line, ``trigger -> document`` ("restoring the database" -> ``runbooks/postgres-restore.md``).
It is opt-in per vault: the folder ``.mnemosyne/memory-index/`` is the marker, and a
vault without it behaves exactly as before.

Routes live in ``.mnemosyne/memory-index/routes.json``::

    {"format": "mnemosyne-memory-index/1",
     "routes": [{"trigger": "restoring the database", "path": "runbooks/postgres-restore.md"}]}

* ``register`` is additive and idempotent (the same trigger and path twice is one route);
  nothing ever evicts a route — only an explicit edit of the file does.
* ``render`` gives the resident text within a token budget (estimated as UTF-8 bytes / 4,
  ``markdown.estimate_tokens``). When the flat list outgrows the budget it renders a
  two-level topic map instead (topics are the routes' parent folders); every route stays
  reachable through ``read(topic=...)``. Over budget even then, it warns and still lists
  every topic: a route is never dropped.
* ``open`` returns the complete documents an exact trigger names, else falls back to
  ordinary search and says so (``fallback: true``).
* ``matching(task)`` gives the routes a task's words cover (``trigger_matches``), read
  through the project's tokenizer as search reads a query: "restoring the database" is
  delivered for "I need to restore the database", "데이터베이스 복원" for
  "데이터베이스를 복원해야 합니다", "恢复数据库" for "我需要恢复数据库".
* ``check`` reports orphans (notes no route reaches), dangling routes (to notes that are
  gone) and coverage problems, without writing.
* ``split`` previews or applies a lossless split of one long note into routed topic notes;
  ``import_memory_md`` turns a Claude Code ``MEMORY.md`` into routes. Both are plans
  (``change_plans``): preview, then apply with the plan id as one journaled transaction.

The INDEX is resident text an agent carries into every session, so every trigger is
redacted with the vault's redactor on the way in (``register``, ``split``, the import)
and again on the way out (a routes file written by an older version or by hand): no
route, rendered INDEX or split part's file name holds a secret's text.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import unicodedata
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from .atomic import atomic_write_bytes, ensure_no_symlink
from .change_plans import Plan, apply_plan, require_vault, vault_config, vault_redactor
from .discovery import discover
from .errors import InvalidInputError, InvalidPathError, NoteNotFoundError, WriteRefusedError
from .frontmatter import parse_frontmatter
from .journal import FileChange
from .markdown import estimate_tokens, parse_markdown
from .redact import MARK_RE, Redactor
from .tokenizer import is_hiragana, is_stopword, query_units, tokenize
from .vault_lock import VaultLock
from .vault_paths import check_note_path, slugify, zone_of

__all__ = [
    "DEFAULT_INDEX_BUDGET",
    "INDEX_DIR",
    "INDEX_FORMAT",
    "ROUTES_FILE",
    "MemoryIndex",
    "normalize_trigger",
    "trigger_matches",
]

INDEX_FORMAT = "mnemosyne-memory-index/1"
INDEX_DIR = ".mnemosyne/memory-index"
ROUTES_FILE = f"{INDEX_DIR}/routes.json"
# ~1,200 tokens: a resident text small next to any model's context (about 40-60 routes
# rendered flat); past it the topic map keeps the INDEX to one line per folder.
DEFAULT_INDEX_BUDGET = 1200
ESTIMATE = "UTF-8 bytes / 4"
MAX_TRIGGER_CHARS = 200
ROOT_TOPIC = "."
# A note is "long" enough to be worth splitting past this many sections' worth of text;
# split() itself only needs two headings at the split level.
# "- [Title](file.md) — hook" as Claude Code writes it; a path with spaces is written
# "<a b.md>" or "a%20b.md" (CommonMark link destinations).
_MEMORY_MD_LINE = re.compile(
    r"^\s*[-*+]\s+\[([^\]]+)\]\(\s*(<[^<>\n]+>|[^)\s]+)\s*\)\s*(?:[-—–:]+\s*(.*))?$"
)
# A unit of a trigger written as a script run or an identifier ("데이터베이스",
# "恢复数据库", "pg_hba.conf") is covered by a task holding at least this share of its
# parts of two or more characters — the share search asks of a query unit
# (``ranking.RankingParams.part_coverage``), so a trigger and a search agree on what a
# task mentions. Single Han/kana characters do not count: "数据分析" would otherwise
# cover "数据库" through 数 and 据.
TRIGGER_PART_COVERAGE = 0.6
# A trigger needs this many content units before its stopwords may be left out: "on
# call" must not be delivered for every task that says "call".
MIN_CONTENT_UNITS = 2


def normalize_trigger(trigger: object) -> str:
    """A trigger as stored: NFC, trimmed, inner whitespace collapsed (case preserved)."""
    if not isinstance(trigger, str):
        raise InvalidInputError(f"a trigger must be a string, got {type(trigger).__name__}")
    text = " ".join(unicodedata.normalize("NFC", trigger).split())
    if not text:
        raise InvalidInputError("a trigger must not be empty — e.g. 'restoring the database'")
    if len(text) > MAX_TRIGGER_CHARS:
        raise InvalidInputError(
            f"a trigger is at most {MAX_TRIGGER_CHARS} characters ({len(text)} given) — "
            "name the situation in a few words"
        )
    return text


def _fold(trigger: str) -> str:
    return normalize_trigger(trigger).casefold()


def _content_units(units: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The units a task must cover: stopwords and Japanese grammar (hiragana-only runs)
    left out when at least ``MIN_CONTENT_UNITS`` other units remain, else every unit."""
    content = [u for u in units if not is_stopword(u[0]) and not is_hiragana(u[0])]
    return content if len(content) >= MIN_CONTENT_UNITS else units


def _covered(unit: tuple[str, ...], terms: set[str]) -> bool:
    if unit[0] in terms:
        return True
    parts = [p for p in unit[1:] if len(p) > 1 and not is_stopword(p)]
    return bool(parts) and sum(p in terms for p in parts) >= TRIGGER_PART_COVERAGE * len(parts)


def _task_terms(task: str, known=None) -> set[str]:
    """The task's terms (``tokenize``), plus the halves of its closed compounds and
    other inflections that ``known`` (the triggers' terms) holds (``query_units``)."""
    terms = set(tokenize(task))
    if known is not None:
        for unit in query_units(task, known=known):
            terms.update(unit)
    return terms


def _may_gain_parts(unit: tuple[str, ...], prefixes: set[str]) -> bool:
    """Whether ``query_units(known=...)`` could give this unit a part the task holds.

    It adds parts only to a one-term word of ASCII letters: the stems of a compound's
    halves (tokenizer rule 9) or of another inflection (rule 10). Each begins with the
    word's first three letters, as its own stem does (``stem`` keeps them), except after
    a participle "ge-", so a word whose three letters begin no task term cannot gain one.
    """
    head = unit[0]
    if len(unit) > 1 or not (head.isascii() and head.isalpha()):
        return False
    return head[:3] in prefixes or head.startswith("ge")


def _trigger_covered(trigger: str, terms: set[str], prefixes: set[str] | None = None) -> bool:
    units = query_units(trigger)
    if not units:
        return False
    missing = [u for u in _content_units(units) if not _covered(u, terms)]
    if not missing:
        return True
    # Compounds and other inflections (query_units with known=) cost stem look-ups per
    # word; most triggers of a large INDEX share nothing with the task and skip them.
    prefixes = {t[:3] for t in terms} if prefixes is None else prefixes
    if not all(_may_gain_parts(u, prefixes) for u in missing):
        return False
    units = query_units(trigger, known=terms.__contains__)
    return all(_covered(u, terms) for u in _content_units(units))


def trigger_matches(trigger: str, task: str) -> bool:
    """Whether ``task`` covers every content unit of ``trigger``.

    Both are read by the project's tokenizer (``tokenizer.query_units``): words are
    stemmed ("restoring" ~ "restore", "Datenbanken" ~ "Datenbank"), stopwords and
    Japanese particles are left out of a trigger with two or more content words, a
    closed compound meets its halves ("Plattenwarnung" ~ "Platte Warnung"), and a
    Hangul, Han or kana run is covered by the task's bigrams ("데이터베이스" by
    "데이터베이스를"). A unit is covered when the task holds it whole or at least
    ``TRIGGER_PART_COVERAGE`` of its multi-character parts. No word is ever fuzzy-matched,
    and one shared word never suffices for a trigger of two or more content words.
    """
    terms = _task_terms(task, known=set(tokenize(trigger)).__contains__)
    return _trigger_covered(trigger, terms)


def _topic(path: str) -> str:
    return zone_of(path) or ROOT_TOPIC


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _encode_routes(routes: list[dict]) -> bytes:
    data = {"format": INDEX_FORMAT, "routes": routes}
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _sorted_routes(routes: list[dict]) -> list[dict]:
    return sorted(routes, key=lambda r: (_topic(r["path"]), r["trigger"].casefold(), r["path"]))


def _route_line(route: dict) -> str:
    return f"- {route['trigger']} -> {route['path']}"


class MemoryIndex:
    """The memory INDEX of one vault (see the module docstring)."""

    def __init__(self, vault: str | os.PathLike, *, budget_tokens: int = DEFAULT_INDEX_BUDGET):
        self.vault = require_vault(vault).resolve()
        if not isinstance(budget_tokens, int) or budget_tokens < 1:
            raise InvalidInputError(
                f"{{=budget_tokens}} must be a positive integer, got {budget_tokens!r}"
            )
        self.budget_tokens = budget_tokens

    @property
    def redactor(self) -> Redactor:
        """The vault's redactor, read afresh so a changed configuration applies at once."""
        return vault_redactor(vault_config(self.vault))

    def _trigger(self, trigger: object, redactor: Redactor | None = None) -> str:
        """A trigger as stored and compared: normalized, then redacted."""
        return (redactor or self.redactor).redact(normalize_trigger(trigger))

    def __repr__(self) -> str:
        return f"MemoryIndex({str(self.vault)!r})"

    # -- state ---------------------------------------------------------------------------

    @property
    def enabled(self) -> bool:
        """True when the vault opted in (``.mnemosyne/memory-index/`` exists)."""
        return (self.vault / INDEX_DIR).is_dir()

    def enable(self) -> dict:
        """Opt the vault in: create the marker folder (idempotent)."""
        folder = self.vault / INDEX_DIR
        ensure_no_symlink(folder, root=self.vault)
        created = not folder.is_dir()
        folder.mkdir(parents=True, exist_ok=True)
        return {"enabled": True, "created": created, "path": INDEX_DIR}

    def _raw(self) -> bytes | None:
        file = self.vault / ROUTES_FILE
        ensure_no_symlink(file, root=self.vault)
        try:
            return file.read_bytes()
        except FileNotFoundError:
            return None

    def _parse(self, raw: bytes | None) -> list[dict]:
        if raw is None:
            return []
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise WriteRefusedError(
                f"{ROUTES_FILE} is not valid JSON ({exc}) — fix or move the file aside"
            ) from None
        if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT:
            raise WriteRefusedError(
                f"{ROUTES_FILE} is not a {INDEX_FORMAT!r} file — fix or move it aside"
            )
        routes = data.get("routes")
        if not isinstance(routes, list) or not all(
            isinstance(r, dict)
            and isinstance(r.get("trigger"), str)
            and isinstance(r.get("path"), str)
            for r in routes
        ):
            raise WriteRefusedError(
                f"{ROUTES_FILE}: 'routes' must be a list of {{trigger, path}} objects"
            )
        redact = self.redactor.redact
        return [{"trigger": redact(r["trigger"]), "path": r["path"]} for r in routes]

    def routes(self) -> list[dict]:
        """Every route, sorted by topic, trigger and path."""
        return _sorted_routes(self._parse(self._raw()))

    def _check_target(self, path: object) -> str:
        if not isinstance(path, str):
            raise InvalidInputError(f"a route's document must be a note path, got {path!r}")
        raw = path.strip()
        if raw and not raw.lower().endswith(".md"):
            raw += ".md"
        return check_note_path(raw)

    # -- writing -------------------------------------------------------------------------

    def register(self, trigger: str, path: str) -> dict:
        """Add the route ``trigger -> path`` (opting the vault in); idempotent.

        The document must exist. Returns ``{"trigger","path","created","routes"}``.
        """
        text = self._trigger(trigger)
        target = self._check_target(path)
        file = self.vault / target
        ensure_no_symlink(file, root=self.vault)
        if not file.is_file():
            raise NoteNotFoundError(
                f"no note at {target}",
                fix="register a route to an existing note ({list_notes} shows them)",
            )
        with VaultLock(self.vault):
            routes = self._parse(self._raw())
            exists = any(
                r["trigger"].casefold() == text.casefold() and r["path"] == target for r in routes
            )
            if not exists:
                routes.append({"trigger": text, "path": target})
                self.enable()
                atomic_write_bytes(
                    self.vault / ROUTES_FILE,
                    _encode_routes(_sorted_routes(routes)),
                    root=self.vault,
                )
        return {"trigger": text, "path": target, "created": not exists, "routes": len(routes)}

    # -- reading -------------------------------------------------------------------------

    def render(self, budget_tokens: int | None = None) -> dict:
        """The resident INDEX text: flat when it fits ``budget_tokens``, else a topic map.

        Returns ``{"mode": "flat"|"topics"|"empty", "text", "estimated_tokens",
        "budget_tokens", "estimate", "over_budget", "routes", "topics", "warnings"}``.
        """
        budget = self.budget_tokens if budget_tokens is None else budget_tokens
        if not isinstance(budget, int) or budget < 1:
            raise InvalidInputError(
                f"{{=budget_tokens}} must be a positive integer, got {budget!r}"
            )
        routes = self.routes()
        topics: dict[str, list[dict]] = {}
        for route in routes:
            topics.setdefault(_topic(route["path"]), []).append(route)
        warnings: list[str] = []
        if not routes:
            mode = "empty"
            text = "# Memory INDEX\n\n(no routes yet — `mnemosyne index register TRIGGER PATH`)\n"
        else:
            mode = "flat"
            lines = ["# Memory INDEX", "", "When the situation matches, read the note:", ""]
            text = "\n".join(lines + [_route_line(r) for r in routes]) + "\n"
            if estimate_tokens(text) > budget:
                mode = "topics"
                lines = [
                    "# Memory INDEX (topic map)",
                    "",
                    f"{len(routes)} routes in {len(topics)} topics; read a topic's routes "
                    "with read(topic=...) (CLI: mnemosyne index read --topic TOPIC):",
                    "",
                ]
                for name, members in topics.items():
                    sample = "; ".join(r["trigger"] for r in members[:3])
                    more = "; ..." if len(members) > 3 else ""
                    lines.append(f"- {name} ({len(members)} routes): {sample}{more}")
                text = "\n".join(lines) + "\n"
                if estimate_tokens(text) > budget:
                    # Shorter lines still list every topic: a topic is never dropped.
                    lines = lines[:4] + [f"- {n} ({len(m)} routes)" for n, m in topics.items()]
                    text = "\n".join(lines) + "\n"
        tokens = estimate_tokens(text)
        over = tokens > budget
        if over:
            warnings.append(
                f"the INDEX is {tokens} estimated tokens, over its budget of {budget} — "
                "every route is kept; raise the budget or group notes into fewer folders"
            )
        return {
            "mode": mode,
            "text": text,
            "estimated_tokens": tokens,
            "budget_tokens": budget,
            "estimate": ESTIMATE,
            "over_budget": over,
            "routes": len(routes),
            "topics": sorted(topics),
            "warnings": warnings,
        }

    def read(self, topic: str | None = None, *, budget_tokens: int | None = None) -> dict:
        """``render()`` without a topic; with one, every route of that topic (complete)."""
        if topic is None:
            return self.render(budget_tokens)
        if not isinstance(topic, str):
            raise InvalidInputError(f"topic must be a folder name, got {topic!r}")
        wanted = topic.strip().strip("/") or ROOT_TOPIC
        routes = [r for r in self.routes() if _topic(r["path"]) == wanted]
        if not routes:
            known = sorted({_topic(r["path"]) for r in self.routes()})
            raise NoteNotFoundError(
                f"no routes in topic {wanted!r} — topics: {', '.join(known) or '(none)'}",
                candidates=known,
            )
        text = (
            "\n".join([f"# Memory INDEX: {wanted}", ""] + [_route_line(r) for r in routes]) + "\n"
        )
        return {
            "mode": "topic",
            "topic": wanted,
            "text": text,
            "routes": routes,
            "estimated_tokens": estimate_tokens(text),
            "estimate": ESTIMATE,
            "warnings": [],
        }

    def matching(self, task: str) -> list[dict]:
        """Routes whose trigger ``task`` covers (``trigger_matches``), in ``routes()`` order."""
        if not isinstance(task, str):
            raise InvalidInputError("task must be a string describing the work")
        routes = self.routes()
        vocabulary = {term for r in routes for term in tokenize(r["trigger"])}
        terms = _task_terms(task, known=vocabulary.__contains__)
        prefixes = {t[:3] for t in terms}
        return [r for r in routes if _trigger_covered(r["trigger"], terms, prefixes)]

    def document(self, path: str, *, redact: Redactor | None = None) -> dict:
        """One complete document: its text (redacted), sha256 and size of its bytes."""
        file = self.vault / path
        ensure_no_symlink(file, root=self.vault)
        data = file.read_bytes()
        text = data.decode("utf-8", "replace")
        redactor = redact or self.redactor
        return {
            "path": path,
            "text": redactor.redact(text),
            "sha256": _sha256(data),
            "bytes": len(data),
            "estimated_tokens": estimate_tokens(text),
        }

    def open(self, trigger: str, *, limit: int = 5) -> dict:
        """The complete documents an exact trigger names; else a search, flagged.

        Returns ``{"trigger","matched","fallback","documents","hits","missing"}``.
        """
        text = self._trigger(trigger)
        routes = [r for r in self.routes() if r["trigger"].casefold() == text.casefold()]
        documents, missing = [], []
        redactor = self.redactor
        for route in routes:
            try:
                documents.append(self.document(route["path"], redact=redactor))
            except (FileNotFoundError, IsADirectoryError):
                missing.append(route["path"])
        hits: list[dict] = []
        if not documents:
            from .engine import Mnemosyne  # search only on a miss: it builds an index

            engine = Mnemosyne(self.vault)
            try:
                hits = engine.search(text, limit=limit)
            finally:
                engine.close()
        return {
            "trigger": text,
            "matched": bool(documents),
            "fallback": not documents,
            "documents": documents,
            "hits": hits,
            "missing": missing,
        }

    def check(self) -> dict:
        """Orphans, dangling routes and coverage problems; writes nothing."""
        routes = self.routes()
        notes = set(discover(self.vault))
        routed = {r["path"] for r in routes}
        dangling = [r for r in routes if r["path"] not in notes]
        orphans = sorted(notes - routed)
        by_trigger: dict[str, set[str]] = {}
        for route in routes:
            by_trigger.setdefault(route["trigger"].casefold(), set()).add(route["path"])
        problems = []
        for route in dangling:
            problems.append(f"route {route['trigger']!r} -> {route['path']}: the note is gone")
        for trigger, paths in sorted(by_trigger.items()):
            if len(paths) > 1:
                problems.append(
                    f"trigger {trigger!r} routes to {len(paths)} notes ({', '.join(sorted(paths))})"
                    " — open() returns all of them; narrow the trigger if that is not meant"
                )
        covered = len(routed & notes)
        return {
            "enabled": self.enabled,
            "ok": not dangling,
            "routes": len(routes),
            "notes": len(notes),
            "coverage": {
                "routed_notes": covered,
                "notes": len(notes),
                "ratio": round(covered / len(notes), 4) if notes else 1.0,
            },
            "orphans": orphans,
            "dangling": dangling,
            "problems": problems,
        }

    # -- plans: split and MEMORY.md import --------------------------------------------------

    def _routes_change(self, add: list[dict], plan: Plan) -> list[dict]:
        before = self._raw()
        routes = self._parse(before)
        keys = {(r["trigger"].casefold(), r["path"]) for r in routes}
        added = []
        for route in add:
            if (route["trigger"].casefold(), route["path"]) not in keys:
                keys.add((route["trigger"].casefold(), route["path"]))
                routes.append(route)
                added.append(route)
        if added:
            plan.add(
                FileChange(ROUTES_FILE, before, _encode_routes(_sorted_routes(routes))),
                {
                    "path": ROUTES_FILE,
                    "action": "modify" if before else "create",
                    "routes_added": len(added),
                },
            )
        return added

    def _build_split(self, note: str) -> Plan:
        source = self._check_target(note)
        plan = Plan("index-split", self.vault)
        file = self.vault / source
        ensure_no_symlink(file, root=self.vault)
        try:
            data = file.read_bytes()
        except FileNotFoundError:
            raise NoteNotFoundError(
                f"no note at {source}", fix="check the path ({list_notes} shows them)"
            ) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError(f"{source} is not UTF-8 text; it cannot be split") from None
        front = parse_frontmatter(text)
        headings = parse_markdown(front.body).headings
        levels = sorted({h.level for h in headings if h.level >= 2})
        level = next((lv for lv in levels if sum(h.level == lv for h in headings) >= 2), None)
        if level is None:
            raise InvalidInputError(
                f"{source} has fewer than two headings at one level (## or deeper) — "
                "nothing to split it by"
            )
        line_starts = [0] + [m.end() for m in re.finditer("\n", front.body)]
        cuts = [front.body_offset + line_starts[h.line - 1] for h in headings if h.level == level]
        # The part's file name, its route and its link are made from the redacted heading:
        # a heading that holds a secret must not put it in a path or in the INDEX.
        redactor = self.redactor
        titles = [redactor.redact(h.text) for h in headings if h.level == level]
        if any(not text[cut:].lstrip(" ").startswith("#") for cut in cuts):
            # parse_markdown counts lines by "\n"; a heading must start where we cut.
            raise InvalidInputError(f"{source}: cannot locate its headings exactly — not splitting")
        stem = PurePosixPath(source).stem
        folder = PurePosixPath(source).parent / stem
        bounds = [0, *cuts, len(text)]
        coverage, links, new_routes = [], [], []
        offset = 0
        existing = set(discover(self.vault))
        for index, (start, end) in enumerate(zip(bounds, bounds[1:])):
            piece = text[start:end].encode("utf-8")
            if index == 0:
                target = source
            else:
                slug = slugify(titles[index - 1]) or "part"
                target = str(folder / f"{index:02d}-{slug}.md")
                check_note_path(target)
                if target in existing or (self.vault / target).exists():
                    raise WriteRefusedError(
                        f"{target} already exists — move it away before splitting {source}"
                    )
                plan.add(
                    FileChange(target, None, piece),
                    {
                        "path": target,
                        "action": "create",
                        "heading": titles[index - 1],
                        "bytes": len(piece),
                    },
                )
                links.append((target, titles[index - 1]))
                new_routes.append(
                    {"trigger": self._trigger(titles[index - 1], redactor), "path": target}
                )
            coverage.append(
                {
                    "start": offset,
                    "end": offset + len(piece),
                    "bytes": len(piece),
                    "sha256": _sha256(piece),
                    "target": target,
                }
            )
            offset += len(piece)
        if (
            offset != len(data)
            or b"".join((text[s:e].encode("utf-8") for s, e in zip(bounds, bounds[1:]))) != data
        ):
            raise InvalidInputError(f"{source}: the split would not be lossless — not splitting")
        head = text[: bounds[1]]
        newline = "\r\n" if "\r\n" in text else "\n"
        if head and not head.endswith("\n"):
            head += newline
        index_lines = [f"{newline}## Split into topic notes{newline}{newline}"]
        for target, title in links:
            # A mark's brackets would end the wikilink early: name it in plain words.
            title = MARK_RE.sub("(redacted)", title)
            index_lines.append(f"- [[{target[:-3]}|{title}]]{newline}")
        after = (head + "".join(index_lines)).encode("utf-8")
        plan.add(
            FileChange(source, data, after),
            {"path": source, "action": "modify", "kept_bytes": coverage[0]["bytes"]},
        )
        added = self._routes_change(new_routes, plan)
        plan.summary = {
            "source": source,
            "parts": len(links),
            "bytes": len(data),
            "routes_added": len(added),
        }
        plan.extra = {
            "coverage": coverage,
            "routes": new_routes,
            "covered_bytes": offset,
            "source_bytes": len(data),
            "lossless": True,
        }
        return plan

    def split(self, note: str, *, apply: bool = False, plan_id: str | None = None) -> dict:
        """Preview (default) or apply a lossless split of ``note`` into routed topic notes.

        The note keeps its frontmatter and lead and gains links to the parts; each section
        at the first heading level that occurs twice becomes its own note under
        ``<folder>/<stem>/`` holding exactly its bytes, routed by its heading. The
        ``coverage`` table accounts for every source byte. Applied as one journaled
        transaction (``Journal(vault).undo(transaction_id)`` reverses it)."""
        if not apply:
            return self._build_split(note).view()
        return apply_plan(self.vault, lambda: self._build_split(note), plan_id=plan_id, now=None)

    def find_memory_md(self) -> str | None:
        """``MEMORY.md`` at the vault root (as Claude Code's auto-memory writes it), if any."""
        for name in ("MEMORY.md", "memory.md"):
            if (self.vault / name).is_file():
                return name
        return None

    def _build_import(self, source: str) -> Plan:
        plan = Plan("index-import", self.vault)
        file = self.vault / source
        ensure_no_symlink(file, root=self.vault)
        text = file.read_bytes().decode("utf-8", "replace")
        base = PurePosixPath(source).parent
        routes, skipped = [], []
        redactor = self.redactor
        for number, line in enumerate(text.splitlines(), 1):
            match = _MEMORY_MD_LINE.match(line)
            if not match:
                continue
            title, link, hook = match.group(1), match.group(2), match.group(3)
            link = link[1:-1] if link.startswith("<") else unquote(link)
            try:
                target = check_note_path(str(base / link) if str(base) != "." else link)
            except InvalidPathError as exc:
                skipped.append({"line": number, "reason": redactor.redact(str(exc))})
                continue
            if not (self.vault / target).is_file():
                skipped.append(
                    {"line": number, "reason": redactor.redact(f"{target} does not exist")}
                )
                continue
            trigger = self._trigger((hook or title)[:MAX_TRIGGER_CHARS], redactor)
            routes.append({"trigger": trigger, "path": target})
        added = self._routes_change(routes, plan)
        plan.summary = {"source": source, "lines": len(routes), "routes_added": len(added)}
        plan.extra = {"routes": added, "skipped": skipped}
        return plan

    def import_memory_md(
        self, path: str | None = None, *, apply: bool = False, plan_id: str | None = None
    ) -> dict:
        """Preview or apply routes from a ``MEMORY.md`` (``- [Title](file.md) — hook``)."""
        source = path if path is not None else self.find_memory_md()
        if source is None:
            raise NoteNotFoundError("no MEMORY.md at the vault root — pass its path")
        source = check_note_path(source)
        if not (self.vault / source).is_file():
            raise NoteNotFoundError(f"no file at {source}")
        if not apply:
            return self._build_import(source).view()
        return apply_plan(self.vault, lambda: self._build_import(source), plan_id=plan_id, now=None)


def index_path(vault: str | os.PathLike) -> Path:
    """Where a vault's routes file lives."""
    return Path(vault) / ROUTES_FILE
