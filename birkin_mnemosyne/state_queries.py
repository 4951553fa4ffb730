"""State questions: the newest sections on a subject, and one host's history.

A search ranks notes by how well they match; a state question ("what is the pool size
now?", "what happened to db1 lately?") wants the *newest* record instead. Both
operations here work on **sections** and order them by when each was written:

``latest(query)``
    The sections that hold every content unit of the query (a unit is covered as
    search decides it: its whole term, or at least ``part_coverage`` of its parts;
    title and tag terms count for every section of their note), newest first, then by
    BM25F score. When no section holds them all, the most common units (lowest idf)
    are dropped one at a time until something matches; the shape names them in
    ``dropped_terms``. Stale (superseded) sections and notes are kept and flagged.

``host_history(host)``
    A host's journal sections and host-record sections, newest first. The host is
    named by its host note (``type: host``, or a note in a ``hosts/`` folder): its
    title, file name, frontmatter ``host:`` or any of its ``aliases``. Journal notes
    are ``type: journal``, notes in a ``journal/`` folder, or notes whose file name
    starts with a date; their sections count when they mention one of the host's
    names. The host note's sections are its record, and a dated line in it
    (``- 2026-06-19: ...``, ``| 2026-02-18 | ... |``) is also an entry of its own.

When a section was written, and which notes are host records and journal entries, come
from ``note_kinds`` (shared with ranking).

Every text returned is redacted: titles and headings as the index holds them,
snippets from ``Mnemosyne._section_text``, aliases through the engine's redactor.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from .document import decode_note, index_terms
from .engine import MAX_LIMIT, MAX_QUERY_CHARS, Mnemosyne
from .errors import AmbiguousKeyError, InvalidInputError, NoteNotFoundError
from .frontmatter import parse_frontmatter
from .index import Index, IndexCorruptError
from .note_kinds import SectionStamps, is_host, is_journal
from .ranking import QueryPlan, plan_query
from .redact import lookup_mark
from .snippets import make_snippet
from .tokenizer import query_units
from .vault_paths import check_zone, note_stem

__all__ = ["DEFAULT_HISTORY_LIMIT", "DEFAULT_LATEST_LIMIT", "StateQueries"]

DEFAULT_LATEST_LIMIT = 10
DEFAULT_HISTORY_LIMIT = 20
MAX_HOST_CHARS = 300
# A dated line of a host record: a bullet or a table row that starts with a full date.
_DATED_LINE = re.compile(r"^[ \t]*(?:[-*+][ \t]+|\|[ \t]*)\**(\d{4}-\d{2}-\d{2})(?!\d)")
_SNIPPET_CHARS = 240


@dataclass(frozen=True)
class HostNote:
    """A host note and the names it answers to (casefolded for matching)."""

    nid: int
    path: str
    title: str
    name: str  # what the host is called: frontmatter host:, else the title
    primary: tuple[str, ...]  # title, file name, host:, path without .md
    aliases: tuple[str, ...]


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip().casefold()


def _strings(value) -> list[str]:
    """A frontmatter value as a list of strings (a comma list, a YAML list, a scalar)."""
    if value is None or isinstance(value, (bool, dict)):
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [
            str(v).strip() for v in value if isinstance(v, (str, int, float)) and str(v).strip()
        ]
    return [str(value)]


def _check_text(value: object, what: str, limit: int) -> str:
    if not isinstance(value, str):
        raise InvalidInputError(f"the {what} must be a string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"the {what} is empty — pass the words to look for")
    if len(value) > limit:
        raise InvalidInputError(
            f"the {what} is {len(value):,} characters; the limit is {limit:,} — shorten it"
        )
    return value


def _check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_LIMIT:
        raise InvalidInputError(
            f"{{=limit}} must be a whole number from 1 to {MAX_LIMIT}, got {limit!r}"
        )
    return limit


class StateQueries:
    """``latest`` and ``host_history`` over one engine's index (see the module docstring)."""

    def __init__(self, engine: Mnemosyne) -> None:
        self.engine = engine
        self._hosts: tuple[object, list[HostNote]] | None = None  # (keys dict, host notes)

    # -- latest --------------------------------------------------------------------------

    def latest(
        self,
        query: str,
        limit: int = DEFAULT_LATEST_LIMIT,
        *,
        zone: str | None = None,
        include_archive: bool = False,
    ) -> dict:
        """The newest sections holding every query term (relaxed when none does)."""
        query = _check_text(query, "query", MAX_QUERY_CHARS)
        limit = _check_limit(limit)
        folder = check_zone(zone) if zone else None
        engine = self.engine
        index, plan, scores = self._plan(query)
        allowed = self.engine._note_filter(index, folder, [], include_archive)
        covering = [self._covering(index, plan, scores, u, allowed) for u in range(len(plan.units))]
        active = list(range(len(plan.units)))
        dropped: list[int] = []
        found: dict[int, float] = {}
        while active:
            found = _all_of([covering[u] for u in active])
            if found:
                break
            # A unit no allowed section holds goes first; then the most common one.
            drop = min(active, key=lambda u: (bool(covering[u]), self._unit_idf(plan, scores, u)))
            active.remove(drop)
            dropped.append(drop)
        stamps = SectionStamps(index)
        ranked = sorted(found.items(), key=lambda item: (index.sec_note[item[0]], item[0]))
        ranked.sort(key=lambda item: (stamps.of(item[0]) or "", item[1]), reverse=True)
        weights = self._weights(plan, scores, active)
        words = self._query_words(query)
        return {
            "query": engine.redactor.redact(query),
            "hits": [
                self._section_hit(index, sid, score, stamps.of(sid), weights)
                for sid, score in ranked[:limit]
            ],
            "dropped_terms": [self._term(plan, u, words) for u in dropped],
            "matched_terms": [self._term(plan, u, words) for u in active],
            "index": engine.freshness(),
        }

    # -- host_history --------------------------------------------------------------------

    def host_history(
        self, host: str, topic: str | None = None, limit: int = DEFAULT_HISTORY_LIMIT
    ) -> dict:
        """A host's journal sections and host-record entries, newest first."""
        host = _check_text(host, "host", MAX_HOST_CHARS)
        if topic is not None:
            topic = _check_text(topic, "topic", MAX_QUERY_CHARS)
        limit = _check_limit(limit)
        engine = self.engine
        record = self._find_host(host)
        index = engine.index
        # The sections naming the host: every unit of one of its names.
        named: dict[int, float] = {}
        weights: dict[str, float] = {}
        for name in dict.fromkeys((record.name, *record.aliases)):
            _, plan, scores = self._plan(name)
            if not plan.units:
                continue
            units = range(len(plan.units))
            for sid, value in _all_of(
                [self._covering(index, plan, scores, u) for u in units]
            ).items():
                named[sid] = max(named.get(sid, 0.0), value)
            weights.update(self._weights(plan, scores, units))
        topical: dict[int, float] | None = None
        topic_plan: QueryPlan | None = None
        if topic is not None:
            _, plan, scores = self._plan(topic)
            units = range(len(plan.units))
            topical = _all_of([self._covering(index, plan, scores, u) for u in units])
            topic_plan = plan
            weights.update(self._weights(plan, scores, units))

        stamps = SectionStamps(index)
        entries: list[tuple[str, str, float, int, int, dict | None]] = []
        # (date, kind, score, sid, line, ready entry or None = a whole section)
        for sid, value in named.items():
            nid = index.sec_note[sid]
            meta = index.notes[nid]
            if nid == record.nid or meta["archived"] or not is_journal(meta):
                continue
            if topical is not None:
                if sid not in topical:
                    continue
                value += topical[sid]
            entries.append((stamps.of(sid) or "", "journal", value, sid, index.sec_line[sid], None))
        for sid in index.note_sections(record.nid):
            value = 0.0
            if topical is not None and sid in topical:
                value = topical[sid]
            text = engine._section_text(index, record.nid, sid)
            for line_no, day, line in _dated_lines(text or ""):
                if topic_plan is not None and not _line_covers(
                    line, topic_plan, engine.ranking.part_coverage
                ):
                    continue
                entry = self._record_hit(index, sid, day, line, index.sec_line[sid] + line_no)
                entries.append((day, "host_record", value, sid, entry["line"], entry))
            if topical is None or sid in topical:
                stamp = stamps.of(sid) or ""
                entries.append((stamp, "host_record", value, sid, index.sec_line[sid], None))
        entries.sort(key=lambda e: (index.notes[index.sec_note[e[3]]]["path"], e[4]))
        # Newest first; on the same day a journal entry before the record, then by score.
        entries.sort(key=lambda e: (e[0], e[1] == "journal", e[2]), reverse=True)
        out = []
        for stamp, kind, value, sid, _, ready in entries[:limit]:
            entry = ready or self._section_hit(index, sid, value, stamp or None, weights)
            entry["kind"] = kind
            out.append(entry)
        return {
            "host": record.name,
            "host_note": {
                "key": engine.key_of(record.path),
                "path": record.path,
                "title": record.title,
            },
            "aliases": list(record.aliases),
            "entries": out,
            "index": engine.freshness(),
        }

    # -- journal entries ----------------------------------------------------------------

    def journal_entries(self, limit: int = DEFAULT_HISTORY_LIMIT, *, window=None) -> dict:
        """Every journal note's dated sections, newest first (``window``: a
        ``time_bounds.TimeWindow`` the day must fall in)."""
        limit = _check_limit(limit)
        engine = self.engine
        index = engine.index
        stamps = SectionStamps(index)
        found: list[tuple[str, str, int, int]] = []  # (stamp, path, line, sid)
        for nid, meta in enumerate(index.notes):
            if meta is None or meta["archived"] or not is_journal(meta):
                continue
            for sid in index.note_sections(nid):
                stamp = stamps.of(sid)
                if stamp is None or (window is not None and not window.contains_day(stamp[:10])):
                    continue
                found.append((stamp, meta["path"], index.sec_line[sid], sid))
        found.sort(key=lambda e: (e[1], e[2]))
        found.sort(key=lambda e: e[0], reverse=True)  # newest first; a note's in its order
        out = []
        for stamp, _, line, sid in found:
            if len(out) == limit:
                break
            text = engine._section_text(index, index.sec_note[sid], sid) or ""
            # the heading is a field of its own; a section of headings only is no entry
            body = " ".join(
                " ".join(
                    row for row in text.splitlines() if not row.lstrip().startswith("#")
                ).split()
            )
            if not body:
                continue
            if len(body) > _SNIPPET_CHARS:
                body = body[: _SNIPPET_CHARS - 1].rstrip() + "…"
            out.append(self._hit(index, sid, line, stamp, body, 0.0))
        return {"entries": out, "index": engine.freshness()}

    def hosts(self) -> list[HostNote]:
        """The vault's host notes with their names (re-read after an index change)."""
        engine = self.engine
        keys = engine.keys()  # a new dict after every change of the index
        if self._hosts is not None and self._hosts[0] is keys:
            return self._hosts[1]
        index = engine.index
        redact = engine.redactor.redact
        found = []
        for path in sorted(keys):
            nid = index.by_path[path]
            meta = index.notes[nid]
            if not is_host(meta):
                continue
            data = engine._read(path)
            fields = {}
            if data is not None:
                fields = parse_frontmatter(decode_note(data)[0]).data
                fields = fields if isinstance(fields, dict) else {}
            own = [redact(v) for v in _strings(fields.get("host"))]
            aliases = [redact(v) for key in ("aliases", "alias") for v in _strings(fields.get(key))]
            title = str(meta["title"])
            primary = [title, note_stem(path), *own, path[:-3]]
            found.append(
                HostNote(
                    nid=nid,
                    path=path,
                    title=title,
                    name=own[0] if own else title,
                    primary=tuple(dict.fromkeys(_fold(p) for p in primary if p.strip())),
                    aliases=tuple(dict.fromkeys(a for a in aliases if a.strip())),
                )
            )
        self._hosts = (keys, found)
        return found

    def _find_host(self, host: str) -> HostNote:
        wanted = _fold(host)
        hosts = self.hosts()
        for tier in ("primary", "aliases"):
            matches = [
                h
                for h in hosts
                if wanted in (h.primary if tier == "primary" else {_fold(a) for a in h.aliases})
            ]
            if len(matches) == 1:
                return matches[0]
            if matches:
                paths = [h.path for h in matches]
                raise AmbiguousKeyError(
                    f"{host!r} names {len(matches)} hosts: {', '.join(paths)} — pass the host "
                    "note's key or path",
                    candidates=paths,
                )
        if not hosts:
            raise NoteNotFoundError(
                f"no host {host!r}: the vault has no host notes — a host note has "
                "'type: host' in its frontmatter or lives in a hosts/ folder"
            )
        names = {}
        for h in hosts:
            for name in (h.name, *h.aliases):
                names.setdefault(_fold(name), h.name)
        close = list(
            dict.fromkeys(
                names[n] for n in difflib.get_close_matches(wanted, names, n=5, cutoff=0.6)
            )
        )
        if close:
            hint = f"did you mean: {', '.join(close)}?"
        else:
            listed = sorted({h.name for h in hosts})
            more = f" (and {len(listed) - 10} more)" if len(listed) > 10 else ""
            hint = f"known hosts: {', '.join(listed[:10])}{more}"
        raise NoteNotFoundError(f"no host {host!r} — {hint}", candidates=close)

    # -- shared --------------------------------------------------------------------------

    def _plan(self, text: str) -> tuple[Index, QueryPlan, list]:
        """The index, the query plan of ``text`` and its terms' scores (search's units,
        without expansions or glossary forms). A damaged block rebuilds once."""
        engine = self.engine
        for attempt in range(2):
            index = engine.index
            try:
                units, _ = engine.query_units(text, index)
                plan = plan_query(units, index, params=engine.ranking)
                return index, plan, [index.term_scores(t, engine.bm25) for t in plan.terms]
            except IndexCorruptError as exc:
                if attempt:
                    raise
                engine._warn(f"rebuilding the search index: cache is damaged ({exc})")
                engine.refresh(full=True)
        raise AssertionError("unreachable")

    def _covering(
        self,
        index: Index,
        plan: QueryPlan,
        scores: list,
        unit: int,
        allowed: Callable[[int], bool] | None = None,
    ) -> dict[int, float]:
        """section id -> score of the unit there, for the live sections covering it: its
        whole term, or at least ``part_coverage`` of its parts (as search counts a unit)."""
        whole, parts = plan.unit_terms[unit]
        out = dict(scores[whole].contrib.items())
        if parts:
            counts: Counter = Counter()
            sums: Counter = Counter()
            for p in parts:
                for sid, value in scores[p].contrib.items():
                    counts[sid] += 1
                    sums[sid] += value
            need = self.engine.ranking.part_coverage * len(parts)
            for sid, count in counts.items():
                if count >= need and sid not in out:
                    out[sid] = sums[sid]
        sec_note = index.sec_note
        keep: dict[int, bool] = {}

        def live(sid: int) -> bool:
            nid = sec_note[sid]
            if nid < 0:
                return False
            ok = keep.get(nid)
            if ok is None:
                ok = keep[nid] = allowed(nid) if allowed is not None else True
            return ok

        return {sid: value for sid, value in out.items() if live(sid)}

    @staticmethod
    def _unit_idf(plan: QueryPlan, scores: list, unit: int) -> float:
        whole, parts = plan.unit_terms[unit]
        if scores[whole].df or not parts:
            return scores[whole].idf
        present = [scores[p].idf for p in parts if scores[p].df]
        return sum(present) / len(present) if present else scores[whole].idf

    @staticmethod
    def _weights(plan: QueryPlan, scores: list, units) -> dict[str, float]:
        """term -> idf of the units' terms, to centre snippets on the rarest of them."""
        out = {}
        for u in units:
            whole, parts = plan.unit_terms[u]
            for slot in (whole, *parts):
                out[plan.terms[slot]] = scores[slot].idf or 0.1
        return out

    def _query_words(self, query: str) -> dict[str, str]:
        """index term -> the query word it came from, read from the *redacted* query."""
        words: dict[str, str] = {}
        for word in self.engine.redactor.redact(query).split():
            for unit in query_units(word):
                words.setdefault(unit[0], word.strip(".,;:!?()[]{}\"'`"))
        # a hidden value looked up by its digest is named by its mark
        for _, _, term in self.engine.redactor.lookups(query):
            words[term] = lookup_mark(term)
        return words

    @staticmethod
    def _term(plan: QueryPlan, unit: int, words: dict[str, str]) -> str:
        """The query word of a unit, as written; "[REDACTED]" when it came from a part
        of the query the redactor hides (a secret is never echoed, not even as a term)."""
        return words.get(plan.units[unit][0]) or "[REDACTED]"

    def _section_hit(
        self, index: Index, sid: int, score: float, stamp: str | None, weights: dict
    ) -> dict:
        text = self.engine._section_text(index, index.sec_note[sid], sid)
        snippet = make_snippet(text, weights) if text else ""
        return self._hit(index, sid, index.sec_line[sid], stamp, snippet, score)

    def _record_hit(self, index: Index, sid: int, day: str, line: str, line_no: int) -> dict:
        snippet = " ".join(line.split())
        if len(snippet) > _SNIPPET_CHARS:
            snippet = snippet[: _SNIPPET_CHARS - 1].rstrip() + "…"
        return self._hit(index, sid, line_no, day, snippet, 0.0)

    def _hit(
        self, index: Index, sid: int, line: int, date: str | None, snippet: str, score: float
    ) -> dict:
        """The shared hit shape of ``latest`` and ``host_history`` entries."""
        meta = index.notes[index.sec_note[sid]]
        return {
            "key": self.engine.key_of(meta["path"]),
            "path": meta["path"],
            "title": meta["title"],
            "zone": meta["zone"],
            "heading": index.sec_heading[sid],
            "line": line,
            "date": date,
            "stale": bool(meta["stale"] or index.sec_stale[sid]),
            "archived": bool(meta["archived"]),
            "labels": list(meta["labels"] or []),
            "snippet": snippet,
            "score": round(score, 4),
        }


def _all_of(maps: list[dict[int, float]]) -> dict[int, float]:
    """The sections in every map, with their summed scores."""
    if not maps:
        return {}
    maps = sorted(maps, key=len)
    out = dict(maps[0])
    for other in maps[1:]:
        out = {sid: value + other[sid] for sid, value in out.items() if sid in other}
        if not out:
            break
    return out


def _dated_lines(text: str):
    """(line offset in the section, day, line) of each line starting with a full date."""
    for offset, line in enumerate(text.splitlines()):
        match = _DATED_LINE.match(line)
        if match:
            yield offset, match.group(1), line


def _line_covers(line: str, plan: QueryPlan, need: float) -> bool:
    """Whether one line holds every unit of a plan (whole term or enough parts)."""
    terms = set(index_terms(line))
    for whole, parts in plan.unit_terms:
        if plan.terms[whole] in terms:
            continue
        if not parts or sum(plan.terms[p] in terms for p in parts) < need * len(parts):
            return False
    return True
