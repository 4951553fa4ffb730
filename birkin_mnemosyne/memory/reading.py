"""Reading the vault: notes, searches, listings, links and the session digest.

None of these records usage: a caller marks a note it actually used with
``record_access`` (``usage``).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from .. import notes_io as nio
from ..digest import excerpt_of, gather_digest, render_digest
from ..engine import MAX_LIMIT, MAX_QUERY_CHARS
from ..errors import AmbiguousKeyError, InvalidInputError, MnemosyneError, NoteNotFoundError
from ..graph import LinkGraph
from ..labels import label_counts, matches_labels, parse_label_filter
from ..markdown import parse_markdown
from ..time_bounds import TimeWindow, time_window
from ..vault_paths import check_zone, zone_of
from .base import MemoryBase, check_int

MAX_LIST_LIMIT = 200
# The link graph: notes at most (a whole-vault picture stays drawable), links deep.
DEFAULT_GRAPH_LIMIT = 2000
MAX_GRAPH_LIMIT = 10_000
MAX_GRAPH_DEPTH = 3
# get_notes reads at most this many notes in one call (each may be 20,000 characters
# through the MCP door: 50 is already a large share of any context).
MAX_GET_KEYS = 50
DEFAULT_DIGEST_LIMIT = 5
DEFAULT_DIGEST_BUDGET = 800
DEFAULT_RELATED_LIMIT = 5


class ReadingMixin(MemoryBase):
    """``get_note``, ``search``, ``list_notes``, ``related`` and ``render_digest``."""

    def get_note(
        self,
        key_or_path: str,
        *,
        section: str | None = None,
        outline: bool = False,
        max_chars: int | None = None,
        offset: int = 0,
    ) -> dict:
        """A note's (redacted) body, whole, one section, a slice, or only its outline.

        Does not record access: call ``record_access`` for a note that was used.
        """
        offset = check_int(offset, "offset", 0)
        if max_chars is not None:
            max_chars = check_int(max_chars, "max_chars", 1)
        path = self.resolve(key_or_path)
        data = self._read(path)
        text, fm = nio.parse_note(data)
        md = parse_markdown(fm.body)
        redact = self.engine.redactor.redact
        shift = text.count("\n", 0, fm.body_offset)
        # The blank line that follows a frontmatter block is layout, not text.
        chosen = fm.body.lstrip("\r\n") if fm.present else fm.body
        if section is not None:
            start, end = nio.section_span(fm.body, md.headings, section, redact)
            chosen = fm.body[start:end]
        full = redact(chosen)
        headings = nio.outline_of(md.headings, shift, redact)
        show_outline = (
            outline
            or len(md.headings) >= nio.OUTLINE_MIN_HEADINGS
            or len(full) > nio.OUTLINE_MIN_CHARS
        )
        part = "" if outline else full[offset : None if max_chars is None else offset + max_chars]
        labels, _ = nio.note_labels(fm.data)
        return {
            "key": self.engine.key_of(path),
            "path": path,
            "title": redact(nio.note_title(fm.data, md.h1, path)),
            "zone": zone_of(path),
            "version": self._version_of(path, data),
            "labels": labels,
            "text": part,
            "total_chars": len(full),
            "returned_chars": len(part),
            "truncated": len(part) < len(full),
            "offset": offset,
            "outline": headings if show_outline else [],
            "section": section,
        }

    def search(self, query: str, limit: int = 8, **options) -> list[dict]:
        """The engine's hits (see ``Mnemosyne.search_response`` for the options)."""
        return self.search_response(query, limit, **options)["hits"]

    def search_response(self, query: str, limit: int = 8, **options) -> dict:
        """The engine's whole search response, ranked with this vault's usage."""
        self._sync_usage()
        return self.engine.search_response(query, limit, **options)

    def list_notes(
        self,
        zone: str | None = None,
        labels: Iterable[str] | str | None = None,
        page: int = 1,
        limit: int | None = 20,
        *,
        since: str | dt.date | None = None,
        until: str | dt.date | None = None,
        now: float | None = None,
        repos: Iterable[str] | None = None,
    ) -> dict:
        """Live notes, newest first (``updated``, else ``date``, else file time).

        ``zone`` includes its subfolders; ``labels`` is an AND filter; ``since`` /
        ``until`` keep the notes whose time (the one they are ordered by) falls in that
        window, both ends included (``time_bounds``: ``2026-03-02``,
        ``2026-03-02T10:15Z``, ``7d``; ``now`` is what ``7d`` counts back from).
        ``limit=None`` lists every note on one page, past the cap of 200. ``repos``
        keeps the notes of those repositories of a team index.
        ``label_counts`` counts labels over every note that passed the filters, not only
        this page.
        """
        page = check_int(page, "page", 1)
        if limit is not None:
            limit = check_int(limit, "limit", 1, MAX_LIST_LIMIT)
        elif page != 1:
            raise InvalidInputError("limit=None lists every note on page 1; leave page out")
        folder = check_zone(zone) if zone else None
        required = parse_label_filter(labels) if labels else []
        window = time_window(since, until, now=self._now(now))
        wanted_repos = self.engine.check_repos(repos)
        index = self.engine.index
        keys = self.engine.keys()
        eligible = []
        for path in keys:
            if wanted_repos and path.split("/", 1)[0] not in wanted_repos:
                continue
            meta = index.notes[index.by_path[path]]
            if folder is not None and not (
                meta["zone"] == folder or meta["zone"].startswith(folder + "/")
            ):
                continue
            if required and not matches_labels(meta["labels"] or [], required):
                continue
            if window is not None and not _in_window(meta, window):
                continue
            eligible.append(meta)

        def newest(meta: dict) -> tuple:
            stamp = dt.datetime.fromtimestamp(meta["mtime_ns"] / 1e9, dt.timezone.utc)
            return (meta["updated"] or meta["date"] or stamp.date().isoformat(), meta["mtime_ns"])

        eligible.sort(key=lambda meta: meta["path"])
        eligible.sort(key=newest, reverse=True)
        start = 0 if limit is None else (page - 1) * limit
        stop = len(eligible) if limit is None else start + limit
        return {
            "notes": [
                {
                    "key": keys[meta["path"]],
                    "path": meta["path"],
                    "title": meta["title"],
                    "zone": meta["zone"],
                    "labels": list(meta["labels"] or []),
                    "date": meta["date"],
                    "updated": meta["updated"],
                }
                for meta in eligible[start:stop]
            ],
            "total": len(eligible),
            "page": page,
            "limit": limit,
            "label_counts": label_counts(meta["labels"] or [] for meta in eligible),
        }

    def get_notes(
        self,
        keys: Iterable[str],
        *,
        section: str | None = None,
        outline: bool = False,
        max_chars: int | None = None,
        offset: int = 0,
    ) -> dict:
        """Several notes read at once, as ``get_note`` reads each (same options).

        Returns ``{"notes": [note read, ...], "errors": [...]}`` in the order asked (a
        note named twice is read once); a key that names no note, or names several, or
        a note without that ``section`` is an entry of ``errors`` (``key``,
        ``error_type``, ``message``, ``candidates``) instead of failing the others. At most
        ``MAX_GET_KEYS`` keys.
        """
        if isinstance(keys, str) or not isinstance(keys, Iterable):
            raise InvalidInputError("keys must be a list of note keys or paths, e.g. ['a', 'b']")
        wanted = list(keys)
        if not wanted:
            raise InvalidInputError("give at least one note key or path")
        if len(wanted) > MAX_GET_KEYS:
            raise InvalidInputError(
                f"{len(wanted)} keys asked for; at most {MAX_GET_KEYS} are read at once — "
                "split the list"
            )
        notes: list[dict] = []
        errors: list[dict] = []
        seen: set[str] = set()
        for key in wanted:
            try:
                note = self.get_note(
                    key, section=section, outline=outline, max_chars=max_chars, offset=offset
                )
            except (NoteNotFoundError, AmbiguousKeyError) as exc:
                # The problem only: its fix would name the library's calls at every door.
                errors.append(
                    {
                        "key": key,
                        "error_type": type(exc).__name__,
                        "message": exc.message,
                        "candidates": list(exc.candidates),
                    }
                )
                continue
            if note["path"] not in seen:
                seen.add(note["path"])
                notes.append(note)
        return {"notes": notes, "errors": errors}

    def related(self, key: str, *, limit: int = DEFAULT_RELATED_LIMIT) -> dict:
        """Notes connected to one, from its parsed wikilinks and its words.

        ``outbound``: the notes its links point to (with the ``target`` as written);
        ``backlinks``: the notes whose links point to it; ``unresolved``: its links that
        name no live note (``candidates`` lists the notes an ambiguous target matches);
        ``neighbours``: up to ``limit`` notes that share its words (a search for its
        title and first distinct terms) but are not linked either way. Links resolve as
        in ``LinkGraph``. Reading never records usage.
        """
        limit = check_int(limit, "limit", 0, MAX_LIST_LIMIT)
        path = self.resolve(key)
        index = self.engine.index
        graph = self._link_graph()
        keys = graph.keys

        def brief(other: str) -> dict:
            meta = index.notes[index.by_path[other]]
            return {
                "key": keys[other],
                "path": other,
                "title": meta["title"],
                "zone": meta["zone"],
            }

        outbound, seen = [], set()
        for target, other in graph.outbound.get(path, []):
            if other not in seen:
                seen.add(other)
                outbound.append({**brief(other), "target": target})
        backlinks = [brief(other) for other in sorted(set(graph.backlinks.get(path, [])))]
        linked = seen | {row["path"] for row in backlinks} | {path}
        return {
            **brief(path),
            "outbound": outbound,
            "backlinks": backlinks,
            "unresolved": [
                {"target": target, "candidates": candidates}
                for target, candidates in graph.unresolved.get(path, [])
            ],
            "neighbours": self._neighbours(path, linked, limit) if limit else [],
        }

    def _link_graph(self) -> LinkGraph:
        """The live notes' resolved wikilinks, kept until the index changes."""
        index = self.engine.index
        keys = self.engine.keys()
        if self._links is None or self._links.keys is not keys:
            notes = {p: index.notes[index.by_path[p]] for p in keys}
            self._links = LinkGraph(keys, notes)
        return self._links

    def link_graph(
        self, key: str | None = None, *, depth: int = 1, limit: int = DEFAULT_GRAPH_LIMIT
    ) -> dict:
        """The wikilink graph: around note ``key`` (the notes within ``depth`` links of
        it, either direction), or of the whole vault without a key; at most ``limit``
        notes, nearest first (``truncated`` says some were left out).

        ``nodes``: key, title, zone and ``links`` (the note's resolved links, both
        directions, in the whole vault); ``edges``: ``[from_key, to_key]`` for each
        resolved link between two listed notes, once. Archived notes are not in it.
        """
        depth = check_int(depth, "depth", 1, MAX_GRAPH_DEPTH)
        limit = check_int(limit, "limit", 1, MAX_GRAPH_LIMIT)
        graph = self._link_graph()
        keys = graph.keys
        index = self.engine.index

        def around(path: str) -> set[str]:
            """The notes ``path`` links to or is linked from."""
            return {target for _, target in graph.outbound.get(path, ())} | set(
                graph.backlinks.get(path, ())
            )

        links = {path: len(around(path)) for path in keys} if key is None else None
        if key is None:
            center = None
            # the most linked notes first, then by path: a cut keeps the hubs
            order = sorted(keys, key=lambda p: (-links[p], p))
        else:
            center = self.resolve(key)
            if center not in keys:
                raise InvalidInputError(
                    f"{key!r} is archived: the link graph holds live notes only"
                )
            order, seen, ring = [center], {center}, [center]
            for _ in range(depth):
                ring = sorted({o for p in ring for o in around(p)} - seen)
                seen.update(ring)
                order.extend(ring)
        listed = order[:limit]
        chosen = set(listed)
        edges = sorted(
            {
                (keys[source], keys[target])
                for source in listed
                for _, target in graph.outbound.get(source, [])
                if target in chosen
            }
        )
        nodes = []
        for path in listed:
            meta = index.notes[index.by_path[path]]
            nodes.append(
                {
                    "key": keys[path],
                    "path": path,
                    "title": meta["title"],
                    "zone": meta["zone"],
                    "links": links[path] if links is not None else len(around(path)),
                }
            )
        return {
            "center": keys[center] if center is not None else None,
            "nodes": nodes,
            "edges": [list(edge) for edge in edges],
            "truncated": len(order) > len(listed),
        }

    def _neighbours(self, path: str, linked: set[str], limit: int) -> list[dict]:
        try:
            _, fm = nio.parse_note((self.vault / path).read_bytes())
        except OSError:
            return []
        title = nio.note_title(fm.data, None, path)
        query = nio.distinctive_query(title, fm.body)[:MAX_QUERY_CHARS]
        try:
            response = self.search_response(query, min(limit + len(linked), MAX_LIMIT))
        except MnemosyneError:  # e.g. a note without a searchable word
            return []
        return [
            {
                "key": hit["key"],
                "path": hit["path"],
                "title": hit["title"],
                "zone": hit["zone"],
                "score": hit["score"],
            }
            for hit in response["hits"]
            if hit["path"] not in linked
        ][:limit]

    def render_digest(
        self,
        limit: int = DEFAULT_DIGEST_LIMIT,
        budget_tokens: int = DEFAULT_DIGEST_BUDGET,
        *,
        now: float | None = None,
    ) -> str:
        """A compact text summary for a session start (see ``digest``): identity and
        preferences first, then zones by activity, at most ``limit`` notes per group,
        within ``budget_tokens`` (estimated as UTF-8 bytes / 4)."""
        limit = check_int(limit, "limit", 1)
        budget_tokens = check_int(budget_tokens, "budget_tokens", 1)
        when = self._now(now)
        self._sync_usage()
        model = self.usage.model
        index = self.engine.index
        keys = self.engine.keys()
        redact = self.engine.redactor.redact

        def excerpt(path: str) -> str:
            try:
                _, fm = nio.parse_note((self.vault / path).read_bytes())
            except OSError:
                return ""
            return excerpt_of(redact(fm.body))

        about, groups = gather_digest(
            ((key, index.notes[index.by_path[path]]) for path, key in keys.items()),
            activation=lambda path: model.activation(self.usage.usage(path), when),
            zone_activity=lambda zone: model.zone_value(self.usage.zone_activity(zone), when),
            excerpt=excerpt,
            limit=limit,
        )
        return render_digest(
            vault_name=self.vault.name,
            identity=about,
            zones=groups,
            note_count=len(keys),
            budget_tokens=budget_tokens,
            redact=redact,
        )


def _in_window(meta: dict, window: TimeWindow) -> bool:
    """The note's listing time is in the window: its frontmatter ``updated`` or ``date``
    (a day, which counts whole), else its file's modification time."""
    day = meta["updated"] or meta["date"]
    return window.contains_day(day) if day else window.contains(meta["mtime_ns"])
