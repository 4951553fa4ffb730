"""``VaultMemory``: the facade every door (CLI, MCP server, Hermes) calls.

One method per user-facing operation, each returning a plain JSON-able dict (the shapes
are in DESIGN.md and docs/reference/notes.md). Nothing that writes a note bypasses it:

* every write holds the vault's cross-process lock (``vault_lock.VaultLock``) and goes
  through ``atomic.atomic_write_bytes`` (temp file, fsync, rename, fsync the folder), so a
  crash leaves the old or the new bytes, never a torn file;
* conditional writes check ``expected_version`` (the sha256 of the file's bytes) under
  that lock, right before writing;
* moves and multi-file edits (archive, restore, rezone, label apply) are journaled
  (``journal.Journal``) and can be undone byte for byte; crash recovery runs on open;
* after a write the engine's index is refreshed for the touched paths at once;
* usage (``record_access``) lives in ``.mnemosyne/state/`` (``dynamics.UsageStore``) and
  lifts ranking by a bounded multiplier (at most ``dynamics.MAX_BOOST``).

Key resolution is strict: exact path, exact key, or a case-insensitive match that names
exactly one note. Anything else is an error listing candidates; nothing is guessed.
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import math
import os
import posixpath
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

from . import notes_io as nio
from .atomic import atomic_write_bytes
from .digest import excerpt_of, gather_digest, render_digest
from .dynamics import MAX_BOOST, UsageStore
from .engine import MAX_LIMIT, MAX_QUERY_CHARS, Mnemosyne
from .errors import (
    AmbiguousKeyError,
    ConfigError,
    InvalidInputError,
    InvalidPathError,
    JournalError,
    MnemosyneError,
    NoteExistsError,
    NoteNotFoundError,
    VersionConflictError,
    WriteRefusedError,
)
from .frontmatter import parse_frontmatter, set_frontmatter_key
from .graph import LinkGraph
from .journal import FileChange, Journal, check_transaction_id
from .labels import label_counts, matches_labels, normalize_labels, parse_label_filter
from .labels import suggest_labels as _suggest_labels
from .markdown import parse_markdown
from .redact import MARK_RE
from .vault_lock import DEFAULT_TIMEOUT, VaultLock
from .vault_paths import check_note_path, check_zone, note_stem, slugify, zone_of

__all__ = ["WRITE_MODES", "VaultMemory"]

STATE_DIR = Path(".mnemosyne") / "state"
WRITE_MODES = ("create", "append", "replace")
MAX_LIST_LIMIT = 200
# Notes read to look for near-duplicates after a write (the top search hits).
NEAR_DUPLICATE_CANDIDATES = 5
# Label plans kept in memory for label_apply(plan_id) (a CLI passes the arguments again).
PLANS_KEPT = 32
DEFAULT_DIGEST_LIMIT = 5
DEFAULT_DIGEST_BUDGET = 800
DEFAULT_RELATED_LIMIT = 5
_VERSION_RE = re.compile(r"[0-9a-f]{64}")
_OPTIONS = ("vault_path", "evidence_required", "refresh_interval", "lock_timeout", "recover")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check_int(value: object, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidInputError(f"{name} must be a whole number >= {low}, got {value!r}")
    if high is not None and value > high:
        raise InvalidInputError(f"{name} must be at most {high}, got {value!r}")
    return value


def _date_seconds(text: str | None) -> float | None:
    try:
        day = dt.date.fromisoformat(str(text)[:10])
    except ValueError:
        return None
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp()


class VaultMemory:
    """Read, write, move, label and undo notes of one vault.

    ``VaultMemory("~/vault")`` or ``VaultMemory({"vault_path": "~/vault", ...})`` (the
    dict form takes the keyword names below as keys). ``evidence_required`` overrides
    the vault configuration; ``clock`` (unix seconds) is injected by tests and is the
    default ``now`` of every method that takes one; ``recover=False`` skips crash
    recovery on open.
    """

    def __init__(
        self,
        vault_path: str | os.PathLike | dict,
        *,
        evidence_required: bool | None = None,
        clock: Callable[[], float] = time.time,
        refresh_interval: float = 2.0,
        lock_timeout: float = DEFAULT_TIMEOUT,
        recover: bool = True,
    ) -> None:
        if isinstance(vault_path, dict):
            options = dict(vault_path)
            unknown = sorted(set(options) - set(_OPTIONS))
            if unknown or "vault_path" not in options:
                raise InvalidInputError(
                    "VaultMemory options need 'vault_path'"
                    + (f"; unknown option(s) {', '.join(map(str, unknown))}" if unknown else "")
                    + f" — valid options: {', '.join(_OPTIONS)}"
                )
            vault_path = options["vault_path"]
            if evidence_required is None:
                evidence_required = options.get("evidence_required")
            refresh_interval = options.get("refresh_interval", refresh_interval)
            lock_timeout = options.get("lock_timeout", lock_timeout)
            recover = options.get("recover", recover)
        if evidence_required is not None and not isinstance(evidence_required, bool):
            raise InvalidInputError(
                f"evidence_required must be true or false, got {evidence_required!r}"
            )
        self._clock = clock
        self._lock_timeout = lock_timeout
        self.engine = Mnemosyne(
            vault_path,
            refresh_interval=refresh_interval,
            usage_multiplier=self._usage_multiplier,
            usage_max=MAX_BOOST,
            clock=clock,
        )
        self.vault: Path = self.engine.vault
        self.config = self.engine.config
        self.evidence_required = (
            self.config.evidence_required if evidence_required is None else evidence_required
        )
        self.max_note_bytes = self._max_note_bytes()
        self.usage = UsageStore(self.vault / STATE_DIR)
        self._journal = Journal(self.vault, lock_timeout=lock_timeout)
        VaultLock(self.vault, timeout=lock_timeout)  # validates lock_timeout early
        self._plans: OrderedDict[str, dict] = OrderedDict()
        self._usage_signature: tuple | None = None
        self._key_index: nio.KeyIndex | None = None
        self._links: LinkGraph | None = None
        self.recovered: list[dict] = self._journal.recover() if recover else []
        touched = sorted({p for report in self.recovered for p in report.get("paths", [])})
        if touched:
            self.engine.refresh(paths=touched)

    def __repr__(self) -> str:
        return f"VaultMemory({str(self.vault)!r})"

    def close(self) -> None:
        """Release the engine's open cache file (``with VaultMemory(v) as memory:`` does it)."""
        close = getattr(self.engine, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> VaultMemory:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- plumbing ----------------------------------------------------------------------

    def _max_note_bytes(self) -> int:
        value = self.config.budgets.get("max_note_bytes", nio.DEFAULT_MAX_NOTE_BYTES)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(
                f"{self.config.source}: 'budgets.max_note_bytes' must be a positive whole "
                f"number of bytes, got {value!r}"
            )
        return value

    def _lock(self) -> VaultLock:
        return VaultLock(self.vault, timeout=self._lock_timeout)

    def _now(self, now: float | None) -> float:
        when = self._clock() if now is None else now
        if isinstance(when, bool) or not isinstance(when, (int, float)) or not math.isfinite(when):
            raise InvalidInputError(f"now must be a finite unix time in seconds, got {now!r}")
        return float(when)

    def _usage_multiplier(self, path: str, zone: str) -> float:
        return self.usage.multiplier(path, zone, self._clock())

    def _sync_usage(self) -> None:
        """Re-read the usage file when another process (or this one) changed it."""
        try:
            st = self.usage.path.stat()
            signature: tuple | None = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            signature = None
        if signature != self._usage_signature:
            self.usage.load()
            self._usage_signature = signature

    def _read(self, path: str) -> bytes:
        try:
            return (self.vault / path).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            self.engine.refresh(paths=[path])
            raise NoteNotFoundError(
                f"note {path} is gone (deleted or moved since it was indexed) — search again"
            ) from None

    def _write(self, path: str, data: bytes) -> None:
        try:
            atomic_write_bytes(self.vault / path, data, root=self.vault)
        except InvalidPathError:
            raise
        except OSError as exc:
            raise WriteRefusedError(
                f"could not write {path}: {exc.strerror or exc} — nothing was changed"
            ) from exc

    def _occupant(self, path: str) -> str | None:
        """The existing file at ``path``, also when it differs only in letter case."""
        full = self.vault / path
        if os.path.lexists(full):
            return path
        if full.parent.is_dir():
            wanted = full.name.casefold()
            with os.scandir(full.parent) as entries:
                for entry in entries:
                    if entry.name.casefold() == wanted:
                        return posixpath.join(posixpath.dirname(path), entry.name)
        return None

    def _type_for(self, path: str) -> str:
        return self.config.type_for(path) or nio.DEFAULT_NOTE_TYPE

    # -- key resolution ----------------------------------------------------------------

    def _keys(self) -> nio.KeyIndex:
        keys = self.engine.keys()  # a new dict after every change of the index
        if self._key_index is None or self._key_index.keys is not keys:
            self._key_index = nio.KeyIndex(keys)
        return self._key_index

    def resolve(self, key_or_path: str) -> str:
        """The vault-relative path of a live note, by exact path, exact key, or a
        case-insensitive key/path/file-name match naming exactly one note.

        Raises ``NoteNotFoundError`` (with up to 5 close keys as ``candidates``, for the
        message only) or ``AmbiguousKeyError`` (``candidates`` = the matching paths).
        """
        raw = nio.clean_key(key_or_path)
        path = self._keys().lookup(raw)
        if path is None:
            self.engine.refresh()  # another process may have written it just now
            path = self._keys().lookup(raw)
        if path is not None:
            return path
        close = self._keys().close_keys(raw)
        archived = nio.archived_matches(raw, self._archived_paths())
        if archived:
            hint = f" — it is archived at {archived[0]}; bring it back with restore({raw!r})"
        elif close:
            hint = f" — did you mean: {', '.join(close)}?"
        else:
            hint = " — list_notes() or search() shows the keys"
        raise NoteNotFoundError(f"no note {raw!r}{hint}", candidates=close)

    def _archived_paths(self) -> list[str]:
        paths = self.engine.note_paths(include_archive=True)
        return [p for p in paths if p.startswith(nio.ARCHIVE_PREFIX)]

    def _resolve_archived(self, key_or_path: str) -> str:
        raw = nio.clean_key(key_or_path)
        for attempt in range(2):
            matches = nio.archived_matches(raw, self._archived_paths())
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise AmbiguousKeyError(
                    f"{raw!r} names {len(matches)} archived notes: {', '.join(matches)} — "
                    "pass the _archive/ path of the one you mean",
                    candidates=matches,
                )
            if attempt == 0:
                self.engine.refresh()
        originals = [nio.without_md(p[len(nio.ARCHIVE_PREFIX) :]) for p in self._archived_paths()]
        close = difflib.get_close_matches(raw, originals, n=5, cutoff=0.6)
        hint = f" — archived notes like it: {', '.join(close)}" if close else ""
        raise NoteNotFoundError(f"no archived note {raw!r}{hint}", candidates=close)

    # -- writing notes -----------------------------------------------------------------

    def write_note(
        self,
        title: str,
        body: str,
        *,
        mode: str = "create",
        zone: str | None = None,
        note_type: str | None = None,
        tags: Iterable[str] | str | None = None,
        labels: Iterable[str] | str | None = None,
        links: Iterable[str] | None = None,
        source: Iterable[str] | str | None = None,
        expected_version: str | None = None,
        now: float | None = None,
    ) -> dict:
        """Create a note, append a dated section to one, or replace one's body.

        ``create`` never overwrites; ``replace`` needs ``expected_version`` (from
        ``get_note``); ``append`` needs no version. For ``append``/``replace`` the
        ``title`` names the note (key, path, or the title it was created with).
        Returns the write shape with ``near_duplicates``.
        """
        if mode not in WRITE_MODES:
            raise InvalidInputError(f"mode must be one of {', '.join(WRITE_MODES)}; got {mode!r}")
        when = self._now(now)
        body = nio.check_body(body, max_bytes=self.max_note_bytes)
        fields = {
            "note_type": self._check_type(note_type),
            "tags": (
                None
                if tags is None
                else [t.lstrip("#") for t in nio.check_strings(tags, "tags", split_commas=True)]
            ),
            "labels": None if labels is None else normalize_labels(labels),
            "links": nio.check_links(links),
            "sources": nio.check_strings(source, "source"),
        }
        if self.evidence_required and not fields["sources"]:
            raise WriteRefusedError(
                "this vault requires evidence for every write: pass source='where this "
                "came from' (a URL, a file, a conversation id) — set by evidence_required"
            )
        if expected_version is not None and not (
            isinstance(expected_version, str) and _VERSION_RE.fullmatch(expected_version)
        ):
            raise InvalidInputError(
                f"expected_version must be the 64-hex-digit version from get_note, got "
                f"{expected_version!r}"
            )
        if mode == "replace" and expected_version is None:
            raise InvalidInputError(
                "replace needs expected_version: read the note with get_note() and pass its "
                "version, so a change made since is never overwritten"
            )
        warnings: list[str] = []
        if MARK_RE.search(body):
            # get_note serves redacted text: writing it back stores the marks, not the
            # secrets they stood for. Allowed (it may be wanted), but said out loud.
            warnings.append(
                "the body contains [REDACTED] marks (from a redacted read): the note now "
                "holds the marks, not the values they replaced"
            )
        with self._lock():
            if mode == "create":
                path, text = self._create(title, body, zone, fields, when, warnings)
            else:
                path, text = self._edit(
                    title, body, zone, mode, expected_version, fields, when, warnings
                )
            self.engine.refresh(paths=[path])
            data = (self.vault / path).read_bytes()
        return {
            "key": self.engine.key_of(path),
            "path": path,
            "version": _sha256(data),
            "created": mode == "create",
            "mode": mode,
            "near_duplicates": self._near_duplicates(path, text),
            "warnings": warnings,
        }

    @staticmethod
    def _check_type(note_type: object) -> str | None:
        if note_type is None:
            return None
        values = nio.check_strings(note_type, "note_type") if isinstance(note_type, str) else []
        if len(values) != 1:
            raise InvalidInputError(f"note_type must be one word or phrase, got {note_type!r}")
        return values[0]

    def _create(self, title, body, zone, fields, when, warnings) -> tuple[str, str]:
        title, slug = nio.check_title(title)
        folder = check_zone(zone)
        path = check_note_path(f"{folder}/{slug}.md" if folder else f"{slug}.md")
        occupant = self._occupant(path)
        if occupant is not None:
            self.engine.refresh(paths=[occupant])
            version = _sha256(self._read(occupant))
            key = self.engine.key_of(occupant)
            raise NoteExistsError(
                f"note {key!r} already exists at {occupant} (version {version}) — add to it "
                "with mode='append', rewrite it with mode='replace' and expected_version, "
                "or choose another title",
                key=key,
                version=version,
            )
        text = nio.new_note_text(
            title=title,
            body=body,
            note_type=fields["note_type"] or self._type_for(path),
            tags=fields["tags"] or [],
            labels=fields["labels"] or [],
            sources=fields["sources"],
            links=fields["links"],
            now=when,
        )
        data = text.encode("utf-8")
        nio.check_size(len(data), self.max_note_bytes, f"note {path}")
        self._write(path, data)
        live = self.engine.keys()  # path -> key of every live note
        twins = [p for p in live if p != path and note_stem(p).casefold() == slug.casefold()]
        if twins:
            warnings.append(
                f"another note has the file name {slug}.md ({', '.join(sorted(twins))}); "
                "keys of notes sharing a name are their paths without .md"
            )
        return path, text

    def _edit(self, title, body, zone, mode, expected, fields, when, warnings) -> tuple[str, str]:
        path = self._resolve_for_write(title, zone)
        data = self._read(path)
        current = _sha256(data)
        if expected is not None and expected != current:
            raise VersionConflictError(
                f"{path} changed since you read it (expected version {expected[:12]}…, it is "
                f"now {current[:12]}…) — read it again with get_note() and redo the change",
                current_version=current,
            )
        text, valid = nio.decode_note(data)
        if not valid:
            raise WriteRefusedError(
                f"{path} is not valid UTF-8; re-save it as UTF-8 before writing to it, so "
                "no byte is lost"
            )
        edit = nio.append_to_note if mode == "append" else nio.replace_note_body
        text = edit(
            text,
            body,
            now=when,
            links=fields["links"],
            note_type=fields["note_type"],
            tags=fields["tags"],
            labels=fields["labels"],
            sources=fields["sources"],
            warnings=warnings,
        )
        new = text.encode("utf-8")
        nio.check_size(len(new), self.max_note_bytes, f"note {path}")
        self._write(path, new)
        return path, text

    def _resolve_for_write(self, title: object, zone: str | None) -> str:
        folder = None if zone is None else check_zone(zone)
        raw = nio.clean_key(title)
        try:
            path = self.resolve(raw)
        except NoteNotFoundError as missing:
            slug = slugify(raw)
            path = None
            if slug and slug != raw:
                try:
                    path = self.resolve(f"{folder}/{slug}" if folder else slug)
                except NoteNotFoundError:
                    path = None
            if path is None:
                raise NoteNotFoundError(
                    f"{missing} (to make a new note, use mode='create')",
                    candidates=missing.candidates,
                ) from None
        if folder is not None and zone_of(path) != folder:
            raise InvalidInputError(
                f"note {path} is in zone {zone_of(path)!r}, not {folder!r} — leave zone out, "
                "or move the note first with rezone()"
            )
        return path

    def _near_duplicates(self, path: str, text: str) -> list[dict]:
        """Other notes whose index terms overlap this one's by at least NEAR_DUPLICATE_JACCARD."""
        fm = parse_frontmatter(text)
        title = nio.note_title(fm.data, None, path)
        mine = nio.term_set(title, fm.body)
        if not mine:
            return []
        query = nio.distinctive_query(title, fm.body)[:MAX_QUERY_CHARS]
        try:
            response = self.engine.search_response(query, NEAR_DUPLICATE_CANDIDATES + 1)
        except MnemosyneError:
            return []
        found = []
        for hit in (response["hits"] or response["best_weak"])[: NEAR_DUPLICATE_CANDIDATES + 1]:
            if hit["path"] == path:
                continue
            try:
                _, other_fm = nio.parse_note((self.vault / hit["path"]).read_bytes())
            except OSError:
                continue
            other = nio.term_set(nio.note_title(other_fm.data, None, hit["path"]), other_fm.body)
            similarity = nio.jaccard(mine, other)
            if similarity >= nio.NEAR_DUPLICATE_JACCARD:
                found.append(
                    {"key": hit["key"], "path": hit["path"], "similarity": round(similarity, 3)}
                )
        found.sort(key=lambda row: (-row["similarity"], row["path"]))
        return found[:NEAR_DUPLICATE_CANDIDATES]

    # -- reading -----------------------------------------------------------------------

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
        offset = _check_int(offset, "offset", 0)
        if max_chars is not None:
            max_chars = _check_int(max_chars, "max_chars", 1)
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
            "version": _sha256(data),
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
        limit: int = 20,
    ) -> dict:
        """Live notes, newest first (``updated``, else ``date``, else file time).

        ``zone`` includes its subfolders; ``labels`` is an AND filter. ``label_counts``
        counts labels over every note that passed the filters, not only this page.
        """
        page = _check_int(page, "page", 1)
        limit = _check_int(limit, "limit", 1, MAX_LIST_LIMIT)
        folder = check_zone(zone) if zone else None
        required = parse_label_filter(labels) if labels else []
        index = self.engine.index
        keys = self.engine.keys()
        eligible = []
        for path in keys:
            meta = index.notes[index.by_path[path]]
            if folder is not None and not (
                meta["zone"] == folder or meta["zone"].startswith(folder + "/")
            ):
                continue
            if required and not matches_labels(meta["labels"] or [], required):
                continue
            eligible.append(meta)

        def newest(meta: dict) -> tuple:
            stamp = dt.datetime.fromtimestamp(meta["mtime_ns"] / 1e9, dt.timezone.utc)
            return (meta["updated"] or meta["date"] or stamp.date().isoformat(), meta["mtime_ns"])

        eligible.sort(key=lambda meta: meta["path"])
        eligible.sort(key=newest, reverse=True)
        start = (page - 1) * limit
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
                for meta in eligible[start : start + limit]
            ],
            "total": len(eligible),
            "page": page,
            "limit": limit,
            "label_counts": label_counts(meta["labels"] or [] for meta in eligible),
        }

    def related(self, key: str, *, limit: int = DEFAULT_RELATED_LIMIT) -> dict:
        """Notes connected to one, from its parsed wikilinks and its words.

        ``outbound``: the notes its links point to (with the ``target`` as written);
        ``backlinks``: the notes whose links point to it; ``unresolved``: its links that
        name no live note (``candidates`` lists the notes an ambiguous target matches);
        ``neighbours``: up to ``limit`` notes that share its words (a search for its
        title and first distinct terms) but are not linked either way. Links resolve as
        in ``LinkGraph``. Reading never records usage.
        """
        limit = _check_int(limit, "limit", 0, MAX_LIST_LIMIT)
        path = self.resolve(key)
        index = self.engine.index
        keys = self.engine.keys()
        if self._links is None or self._links.keys is not keys:
            notes = {p: index.notes[index.by_path[p]] for p in keys}
            self._links = LinkGraph(keys, notes)
        graph = self._links

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

    # -- moving notes (journaled) --------------------------------------------------------

    def _move(self, operation: str, old: str, new: str, data: bytes, meta: dict) -> dict:
        try:
            result = self._journal.transaction(
                operation,
                [FileChange(old, data, None), FileChange(new, None, data)],
                meta={"moves": [[old, new]], **meta},
            )
        except OSError as exc:
            raise WriteRefusedError(
                f"could not move {old} to {new}: {exc.strerror or exc} — nothing was changed"
            ) from exc
        self._carry_usage([(old, new)])
        self.engine.refresh(paths=[old, new])
        return result

    def _carry_usage(self, moves: list[tuple[str, str]]) -> None:
        """Move usage records along with their notes (the caller holds the lock)."""
        self.usage.load()
        self.usage.rename_many(moves)
        self._usage_signature = None

    def _moved(self, result: dict, old: str, new: str) -> dict:
        return {
            "mode": "applied",
            "transaction_id": result["transaction_id"],
            "state": result["state"],
            "operation": result["operation"],
            "paths": result["paths"],
            "key": self.engine.key_of(new),
            "path": new,
            "previous_path": old,
        }

    def rezone(self, key: str, zone: str) -> dict:
        """Move a note to ``<zone>/<same file name>`` (journaled; refused if taken)."""
        folder = check_zone(zone)
        with self._lock():
            path = self.resolve(key)
            name = posixpath.basename(path)
            target = check_note_path(f"{folder}/{name}" if folder else name)
            if target == path:
                raise InvalidInputError(f"{path} is already in zone {folder!r}")
            self._refuse_occupied(target)
            result = self._move("rezone", path, target, self._read(path), {"zone": folder})
        return self._moved(result, path, target)

    def _refuse_occupied(self, target: str) -> None:
        occupant = self._occupant(target)
        if occupant is None:
            return
        data = self._read(occupant) if (self.vault / occupant).is_file() else b""
        raise NoteExistsError(
            f"{occupant} already exists — move or rename it first; nothing was changed",
            key=self.engine.key_of(occupant),
            version=_sha256(data),
        )

    def forget(self, key: str, *, confirm: bool = False) -> dict:
        """Archive a note to ``_archive/<its path>``; only a preview unless ``confirm``.

        The preview writes nothing (and takes no lock); it names the move and warns when
        the archive already holds a note at that path (``confirm`` would be refused).
        """
        if not confirm:
            path = self.resolve(key)
            target = f"{nio.ARCHIVE_PREFIX}{path}"
            version = _sha256(self._read(path))
            occupant = self._occupant(target)
            return {
                "mode": "preview",
                "plan_id": _sha256(f"archive\0{path}\0{version}".encode())[:16],
                "key": self.engine.key_of(path),
                "path": path,
                "version": version,
                "moves": [{"from": path, "to": target}],
                "warnings": [f"{occupant} already exists: forget would be refused"]
                if occupant
                else [],
            }
        with self._lock():
            path = self.resolve(key)
            target = f"{nio.ARCHIVE_PREFIX}{path}"
            self._refuse_occupied(target)
            key_before = self.engine.key_of(path)
            result = self._move("archive", path, target, self._read(path), {"key": key_before})
        return {**self._moved(result, path, target), "key": key_before}

    def _restore_target(self, archived: str, zone: str | None) -> str:
        original = archived[len(nio.ARCHIVE_PREFIX) :]
        if zone is not None:
            folder = check_zone(zone)
            name = posixpath.basename(original)
            original = f"{folder}/{name}" if folder else name
        return check_note_path(original)

    def restore(self, key: str, zone: str | None = None, *, confirm: bool = True) -> dict:
        """Bring an archived note back byte-exact, to its original path or to ``zone``.

        ``confirm=False`` only previews (writes nothing, takes no lock): what would move
        where, and a warning when the target is taken (the restore would be refused).
        """
        if not confirm:
            archived = self._resolve_archived(key)
            target = self._restore_target(archived, zone)
            occupant = self._occupant(target)
            return {
                "mode": "preview",
                "key": self.engine.key_of(archived),
                "path": archived,
                "moves": [{"from": archived, "to": target}],
                "warnings": [f"{occupant} already exists: restore would be refused"]
                if occupant
                else [],
            }
        with self._lock():
            archived = self._resolve_archived(key)
            target = self._restore_target(archived, zone)
            self._refuse_occupied(target)
            result = self._move("restore", archived, target, self._read(archived), {})
        return self._moved(result, archived, target)

    # -- usage -------------------------------------------------------------------------

    def record_access(self, key: str, now: float | None = None) -> dict:
        """Record that a note was actually used (reinforces it; lifts its zone)."""
        when = self._now(now)
        with self._lock():
            path = self.resolve(key)
            self.usage.load()
            self.usage.record_access(path, zone_of(path), now=when)
            self._usage_signature = None
        return self.usage_of(path, now=when)

    def usage_of(self, key: str, *, now: float | None = None) -> dict:
        """A note's usage record and its ranking multiplier at ``now``."""
        when = self._now(now)
        path = self.resolve(key)
        self._sync_usage()
        zone = zone_of(path)
        usage = self.usage.usage(path)
        model = self.usage.model
        return {
            "key": self.engine.key_of(path),
            "path": path,
            "zone": zone,
            "accesses": usage.accesses if usage else 0,
            "strength": usage.strength if usage else 0.0,
            "stability_days": usage.stability_days if usage else None,
            "last_access": usage.last_access if usage else None,
            "activation": model.activation(usage, when),
            "multiplier": self.usage.multiplier(path, zone, when),
        }

    def stale(self, now: float | None = None) -> dict:
        """Long-unused, weak notes (``UsageModel.is_stale``); "touched" is the later of the
        frontmatter ``updated``/``created`` dates, else the file's modification time."""
        when = self._now(now)
        self._sync_usage()
        index = self.engine.index
        keys = self.engine.keys()
        touched = {}
        for path in keys:
            meta = index.notes[index.by_path[path]]
            dates = [_date_seconds(meta[f]) for f in ("updated", "created") if meta[f]]
            dates = [d for d in dates if d is not None]
            touched[path] = max(dates) if dates else meta["mtime_ns"] / 1e9
        notes = []
        for path in self.usage.stale(sorted(touched.items()), when):
            meta = index.notes[index.by_path[path]]
            usage = self.usage.usage(path)
            notes.append(
                {
                    "key": keys[path],
                    "path": path,
                    "title": meta["title"],
                    "zone": meta["zone"],
                    "accesses": usage.accesses if usage else 0,
                    "last_access": nio.iso_utc(usage.last_access) if usage else None,
                    "touched": nio.iso_utc(touched[path]),
                }
            )
        return {"notes": notes, "total": len(notes)}

    # -- labels ------------------------------------------------------------------------

    def label_preview(
        self,
        paths: Iterable[str] | str,
        *,
        add: Iterable[str] | str | None = None,
        remove: Iterable[str] | str | None = None,
        set: Iterable[str] | str | None = None,  # shadows the builtin: the documented name
        clear: bool = False,
        suggest: bool = False,
    ) -> dict:
        """Plan a label change for some notes; writes nothing. Apply with ``label_apply``."""
        plan = self._label_plan(paths, add, remove, set, clear, suggest)
        self._plans[plan["plan_id"]] = plan
        self._plans.move_to_end(plan["plan_id"])
        while len(self._plans) > PLANS_KEPT:
            self._plans.popitem(last=False)
        return self._plan_view("preview", plan)

    def label_apply(
        self,
        plan_id: str | None = None,
        paths: Iterable[str] | str | None = None,
        *,
        add: Iterable[str] | str | None = None,
        remove: Iterable[str] | str | None = None,
        set: Iterable[str] | str | None = None,  # shadows the builtin: the documented name
        clear: bool = False,
        suggest: bool = False,
    ) -> dict:
        """Apply a previewed label plan as one journaled transaction.

        Pass the ``plan_id`` of a preview made by this object, or the same arguments as
        the preview (with its ``plan_id`` to make sure nothing changed since). A plan whose
        notes changed since the preview is refused with ``VersionConflictError``.
        """
        with self._lock():
            if paths is not None:
                plan = self._label_plan(paths, add, remove, set, clear, suggest)
                if plan_id is not None and plan["plan_id"] != plan_id:
                    raise VersionConflictError(
                        f"the notes changed since preview {plan_id} (the same change now plans "
                        f"as {plan['plan_id']}) — review label_preview() again",
                        current_version=plan["plan_id"],
                    )
            else:
                if not isinstance(plan_id, str) or plan_id not in self._plans:
                    raise InvalidInputError(
                        f"unknown plan id {plan_id!r} — run label_preview() again, or pass the "
                        "same paths and options as the preview along with its plan_id"
                    )
                plan = self._plans[plan_id]
                for change in plan["files"]:
                    try:
                        current = (self.vault / change.path).read_bytes()
                    except OSError:
                        current = None
                    if current != change.before:
                        raise VersionConflictError(
                            f"{change.path} changed since preview {plan_id} — run "
                            "label_preview() again",
                            current_version=_sha256(current) if current is not None else "",
                        )
            view = self._plan_view("applied", plan)
            if not plan["files"]:
                view.update(transaction_id=None, state="unchanged", paths=[])
                return view
            try:
                result = self._journal.transaction(
                    "label", plan["files"], meta={"plan_id": plan["plan_id"]}
                )
            except JournalError as exc:
                raise VersionConflictError(str(exc)) from exc
            except OSError as exc:
                raise WriteRefusedError(
                    f"could not apply label plan {plan['plan_id']}: {exc.strerror or exc} — "
                    "the journal put every file back"
                ) from exc
            self._plans.pop(plan["plan_id"], None)
            self.engine.refresh(paths=result["paths"])
        view.update(
            transaction_id=result["transaction_id"], state=result["state"], paths=result["paths"]
        )
        return view

    @staticmethod
    def _plan_view(mode: str, plan: dict) -> dict:
        return {
            "mode": mode,
            "plan_id": plan["plan_id"],
            "operation": "label",
            "changes": plan["changes"],
            "unchanged": plan["unchanged"],
            "warnings": plan["warnings"],
        }

    def _label_plan(self, paths, add, remove, set_labels, clear, suggest) -> dict:
        if isinstance(paths, str):
            paths = [paths]
        if paths is None or not isinstance(paths, Iterable):
            raise InvalidInputError("paths must be a list of note keys or paths")
        wanted = list(paths)
        if not wanted:
            raise InvalidInputError("give at least one note key or path to label")
        if clear and set_labels is not None:
            raise InvalidInputError("pass either set= or clear=True, not both")
        if not (add or remove or set_labels is not None or clear or suggest):
            raise InvalidInputError(
                "nothing to change: pass add=, remove=, set=, clear=True or suggest=True"
            )
        added, removed = normalize_labels(add), normalize_labels(remove)
        replacement = None if set_labels is None else normalize_labels(set_labels)
        resolved: list[str] = []
        for item in wanted:
            path = self.resolve(item)
            if path not in resolved:
                resolved.append(path)
        files, changes, unchanged, warnings = [], [], [], []
        for path in resolved:
            data = self._read(path)
            text, valid = nio.decode_note(data)
            if not valid:
                raise WriteRefusedError(f"{path} is not valid UTF-8; re-save it as UTF-8 first")
            fm = parse_frontmatter(text)
            current, new, malformed = nio.relabel(
                fm.data,
                clear=clear,
                replacement=replacement,
                added=[*added, *(self._suggested(path, fm) if suggest else [])],
                removed=removed,
            )
            if malformed:
                warnings.append(f"{path}: malformed label(s) {malformed} will be dropped")
            if new == current and not malformed:
                unchanged.append(path)
                continue
            try:
                after = set_frontmatter_key(text, "labels", new).encode("utf-8")
            except InvalidInputError as exc:
                raise InvalidInputError(f"{path}: {exc}") from None
            files.append(FileChange(path, data, after))
            changes.append(
                {"key": self.engine.key_of(path), "path": path, "before": current, "after": new}
            )
        return {
            "plan_id": nio.plan_id(files),
            "files": files,
            "changes": changes,
            "unchanged": unchanged,
            "warnings": warnings,
        }

    def _suggested(self, path: str, fm) -> list[str]:
        declared = fm.data.get("type")
        meta = self.engine.note_meta(path) or {}
        return _suggest_labels(
            path=path,
            zone=zone_of(path),
            note_type=declared if isinstance(declared, str) else meta.get("note_type"),
            frontmatter=fm.data,
            body=fm.body,
            links=[link.target for link in parse_markdown(fm.body).links if link.target],
        )

    def suggest_labels(self, key: str) -> list[str]:
        """Deterministic label suggestions for a note (``labels.suggest_labels``)."""
        path = self.resolve(key)
        _, fm = nio.parse_note(self._read(path))
        return self._suggested(path, fm)

    # -- journal -----------------------------------------------------------------------

    def undo(self, transaction_id: str) -> dict:
        """Put back the exact bytes and paths of a journaled operation.

        Refused (``JournalError``) when a file changed since the operation.
        """
        transaction_id = check_transaction_id(transaction_id)
        with self._lock():
            entry = self._journal.get(transaction_id)
            result = self._journal.undo(transaction_id)
            moves = entry["meta"].get("moves") or []
            back = [
                (new, old)
                for old, new in (m for m in moves if isinstance(m, list) and len(m) == 2)
                if isinstance(old, str) and isinstance(new, str)
            ]
            if back:
                self._carry_usage(back)
            self.engine.refresh(paths=result["paths"])
        return {**result, "operation": entry["operation"]}

    def journal(self, limit: int = 20) -> dict:
        """Recent journaled operations, newest first."""
        return {"transactions": self._journal.list(_check_int(limit, "limit", 0))}

    # -- reports -----------------------------------------------------------------------

    def status(self) -> dict:
        """Engine ``stats()`` plus recovery, journal and usage-state warnings."""
        self._sync_usage()
        stats = self.engine.stats()
        extra = []
        for report in self.recovered:
            problems = "; ".join(report.get("problems") or [])
            done = ", ".join(report.get("restored") or []) or "nothing to restore"
            extra.append(
                {
                    "code": "recovered" if not problems else "recovery_failed",
                    "message": (
                        f"crash recovery: transaction {report['transaction_id']} "
                        f"({report.get('operation')}) is {report['state']}: restored {done}"
                        + (f"; problems: {problems}" if problems else "")
                    ),
                    "path": "",
                    "line": None,
                }
            )
        recent = self._journal.list(20)
        for row in recent:
            if row["state"] in ("corrupt", "damaged", "recovery_failed", "prepared"):
                extra.append(
                    {
                        "code": "journal",
                        "message": f"journal entry {row['transaction_id']} is {row['state']} — "
                        "see docs/reference/journal.md",
                        "path": "",
                        "line": None,
                    }
                )
        for message in self.usage.warnings:
            extra.append({"code": "usage_state", "message": message, "path": "", "line": None})
        stats["warnings"] = [*stats["warnings"], *extra]
        stats["recovered"] = list(self.recovered)
        stats["journal"] = {"recent": recent[:5]}
        stats["evidence_required"] = self.evidence_required
        return stats

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
        limit = _check_int(limit, "limit", 1)
        budget_tokens = _check_int(budget_tokens, "budget_tokens", 1)
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
