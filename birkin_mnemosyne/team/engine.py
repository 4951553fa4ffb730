"""``Mnemosyne(vault, index="postgresql://...")``: search a team index instead of the vault's.

The engine is the local one with its storage swapped: the index comes from the team
database (``remote.load_index``), section texts and bodies from the rows ingest stored
(redacted before they were stored), and nothing is read from or written to the vault's
files or ``.mnemosyne/`` cache. The vault folder still gives the configuration
(ranking overrides, the glossary, ``repos``).

It never builds or refreshes the index from files: ``mnemosyne ingest`` does, from git.
It listens on the schema's channel: every change a writer commits is announced there,
and the first search after an announcement arrived asks the database for the change
counter and reloads when it moved (a search with nothing announced costs no round
trip; ``refresh()`` asks regardless). ``freshness`` compares each configured
repository's ``HEAD`` with the head the index holds.

The semantic leg is not served from the team index yet: ``mode`` is ``lexical`` and
``degraded_reason`` says why when hybrid search was asked for.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from contextlib import contextmanager
from urllib.parse import urlsplit

from ..engine import Mnemosyne, _iso
from ..index import Index
from ..progress import ProgressCallback
from .db import IndexBackendError, channel, connect, db_errors, split_url
from .remote import current_seq, follow_index, load_index

__all__ = ["TeamEngine", "LEXICAL_ONLY"]

LEXICAL_ONLY = "the team index serves lexical search only (its semantic leg is not built yet)"
_TEXT_CACHE = 2048
# Prefetch passes at most (each one round trip; a query needs two or three).
_PREFETCH_ROUNDS = 4
# Query texts remembered as prefetched (per index snapshot).
_PREFETCHED_TEXTS = 4096
_CONNECTION_OK = 0  # libpq's CONNECTION_OK (psycopg.pq.ConnStatus.OK)
# How long a working copy's HEAD, once read, stands for ``freshness``.
_HEAD_CHECK_S = 2.0


def _safe_url(url: str) -> str:
    """The URL without its password, for messages and ``stats``."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    user = f"{parts.username}@" if parts.username else ""
    return parts._replace(netloc=user + host).geturl()


class TeamEngine(Mnemosyne):
    """A ``Mnemosyne`` whose index is a team index in PostgreSQL (see the module)."""

    def __init__(self, vault, *, index: str, **kwargs) -> None:
        super().__init__(vault, **kwargs)
        split_url(index)  # a malformed URL fails here, before any connection
        self.index_url = index
        self._conn = None
        self._stale = True  # a change may have been missed: ask the database
        self._seq: int | None = None
        self._polled: float | None = None  # monotonic time of the last counter check
        self._loaded_at: float | None = None
        self._texts: dict[tuple, str | None] = {}
        self._prefetched_for: dict[tuple, None] = {}  # (what, snapshot, text) done
        self._repo_rows: list | None = None  # the repos table, as of the last poll
        self._heads: dict[str, tuple[float, str | None]] = {}  # repo -> (read at, HEAD)

    # -- the connection ----------------------------------------------------------------

    def _db(self):
        if self._conn is None or self._conn.closed:
            conn = connect(self.index_url, autocommit=True)
            # Listening before anything is read: no change committed after the read
            # goes unheard. A new connection may have missed some: ask once.
            conn.execute(f'LISTEN "{channel(split_url(self.index_url)[1])}"')
            conn.add_notify_handler(self._heard)
            self._conn = conn
            self._stale = True
            remote = self._index.derived.get("remote_terms") if self._index is not None else None
            if remote is not None:  # a reconnection: the index reads through the new one
                remote._conn = conn
        return self._conn

    def _drop_connection(self) -> None:
        """Forget the connection (closed first: a broken one too); the next use opens one."""
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except db_errors():
                pass

    def _heard(self, notify) -> None:
        self._stale = True

    def _changes_heard(self) -> bool:
        """Whether a writer announced a change since the last look (no round trip: the
        announcements already on the socket are read)."""
        conn = self._db()
        try:
            pgconn = conn.pgconn
            pgconn.consume_input()
            while pgconn.notifies() is not None:
                self._stale = True
            lost = pgconn.status != _CONNECTION_OK
        except db_errors():
            lost = True
        if lost:  # the server went away or ended the session: a new connection, asked
            self._drop_connection()
            self._db()
        stale, self._stale = self._stale, False
        return stale

    @contextmanager
    def _database(self, *, reading: bool = False, forget_index: bool = False):
        """A block of database work: its errors become ``IndexBackendError`` (the
        connection is dropped, the next use opens one; ``forget_index`` also drops the
        index, which the failed work left half changed)."""
        try:
            yield
        except db_errors() as exc:
            self._drop_connection()
            if forget_index:
                self._index = None
            where = _safe_url(self.index_url)
            what = (
                f"cannot read the team index at {where}"
                if reading
                else (f"the team index at {where} failed")
            )
            raise IndexBackendError(f"{what}: {str(exc).strip().splitlines()[0]}") from None

    def _query(self, sql: str, params=()) -> list:
        with self._database():
            return self._db().execute(sql, params).fetchall()

    def close(self) -> None:
        """Close the database connection (also done when the engine is collected)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        self._index = None
        self._texts.clear()

    def __del__(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()

    # -- loading and following the database ---------------------------------------------

    def _load(self) -> Index:
        if self._index is None:
            with self._database(reading=True):
                conn = self._db()
                if not self._query(
                    "SELECT 1 FROM information_schema.tables WHERE table_schema = %s "
                    "AND table_name = 'notes'",
                    [split_url(self.index_url)[1]],
                ):
                    raise IndexBackendError(
                        f"the team index at {_safe_url(self.index_url)} is empty — "
                        "fill it first: mnemosyne ingest"
                    )
                self._index, self._seq = load_index(conn)
                self._check_recipe()
            self._loaded_at = time.time()
            self._polled = time.monotonic()
            self._texts.clear()
            self._changed()
        return self._index

    def _check_recipe(self) -> None:
        """Warn when the index was ingested with other indexing settings than this
        vault's configuration gives (another version's tokenizer, redaction, type
        rules): queries are tokenized here, the notes were there."""
        from .ingest import recipe_of

        rows = self._query("SELECT value FROM meta WHERE key = 'recipe'")
        if rows and rows[0][0] != recipe_of(self.config, self.redactor):
            self._warn(
                "the team index was ingested with other indexing settings (tokenizer "
                "version, redaction or type rules) than this vault's: results may miss "
                "notes — rebuild it with this version: mnemosyne ingest --rebuild"
            )

    def _follow(self, index: Index) -> Index:
        """Before each search: when a writer announced a change (or the connection is
        new), one round trip for the change counter (reload when it moved) and the
        repositories' rows (``freshness``); else nothing."""
        if not self._changes_heard() and self._repo_rows is not None:
            self._polled = time.monotonic()
            return index
        rows = self._query(
            "SELECT (SELECT value::text::bigint FROM meta WHERE key = 'seq'), "
            "(SELECT coalesce(json_agg(json_build_array(name, head_sha, ingested_at, counts) "
            "ORDER BY name), '[]') FROM repos)"
        )
        self._polled = time.monotonic()
        self._repo_rows = rows[0][1] if rows else []
        if rows and rows[0][0] != self._seq:
            with self._database(reading=True, forget_index=True):
                self._seq = follow_index(index, self._db(), self._seq)
            self._changed()
        return index

    def search_response(self, query: str, limit: int | None = 8, **options) -> dict:
        """The local engine's search over the team index; a connection the server
        ended (a restart, an idle timeout) is opened again and the search retried once."""
        try:
            return super().search_response(query, limit, **options)
        except IndexBackendError:
            if self._conn is not None and not self._conn.broken:
                raise
            self._drop_connection()
            return super().search_response(query, limit, **options)

    def needs_build(self) -> bool:
        return False  # ingest builds the team index; a search never does

    def refresh(
        self,
        *,
        full: bool = False,
        paths: Iterable[str] | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> dict:
        """Take what writers committed since the index was read (files are ingest's)."""
        before = self._seq
        if full:
            self._index = None
        self._stale = True  # ask the database, announced or not
        index = self._follow(self._load())
        return {"changed": self._seq != before or full, "notes": self._count_live(index)}

    def _maybe_refresh(self) -> None:
        if self._index is None:
            self._load()
            return
        self._follow(self._index)

    def _clean_temp_files(self, where, *, locked: bool = False) -> None:
        return None

    @property
    def _built_at(self) -> float | None:
        return self._loaded_at

    @property
    def _updated_at(self) -> float | None:
        return self._loaded_at

    # -- texts -------------------------------------------------------------------------

    def _read(self, path: str) -> bytes | None:
        return None  # the team index holds redacted text, never a file's bytes

    def _body(self, path: str) -> str | None:
        key = ("body", self._seq, path)
        if key not in self._texts:
            rows = self._query("SELECT body FROM notes WHERE path = %s", [path])
            self._remember(key, rows[0][0] if rows else None)
        return self._texts[key]

    def stored_note(self, path: str) -> tuple[bytes, str] | None:
        """(the note's redacted text as UTF-8, the sha256 of its file), None if not held:
        what ``VaultMemory.get_note`` reads in place of the file."""
        rows = self._query("SELECT text, version FROM notes WHERE path = %s", [path])
        if not rows or rows[0][0] is None:
            return None
        return rows[0][0].encode("utf-8"), rows[0][1]

    def _section_text(self, index: Index, nid: int, sid: int) -> str | None:
        key = ("section", sid)
        if key not in self._texts:
            rows = self._query("SELECT text FROM sections WHERE sid = %s", [sid])
            self._remember(key, rows[0][0] if rows else None)
        return self._texts[key]

    def _remember(self, key, value) -> None:
        self._texts[key] = value
        if len(self._texts) > _TEXT_CACHE:
            self._texts.pop(next(iter(self._texts)))

    # -- fewer round trips -------------------------------------------------------------

    def _prefetched(self, index: Index, key: tuple, ask) -> None:
        """Fetch, a batch per round trip, the terms ``ask(known)`` will look up.

        ``ask`` runs with a ``known`` that answers from the postings already held and
        notes every other term it is asked about; those are fetched together and
        ``ask`` runs again, until it asks about nothing new (a term found can lead to
        more: a word's parts, a concept's other forms). The real pass that follows
        finds every answer held.
        """
        remote = index.derived.get("remote_terms")
        if remote is None or key in self._prefetched_for:
            return
        for _ in range(_PREFETCH_ROUNDS):
            asked: list[str] = []

            def known(term: str, asked: list[str] = asked) -> bool:
                if remote.holds(term):
                    return remote.has(term)
                asked.append(term)
                return False

            ask(known)
            if not asked:
                break
            with self._database():
                remote.check(asked)
        # a text asked again (a repeated query) needs no pass: its terms are held
        self._prefetched_for[key] = None
        if len(self._prefetched_for) > _PREFETCHED_TEXTS:
            self._prefetched_for.pop(next(iter(self._prefetched_for)))

    def _before_scoring(self, index: Index, terms: list[str]) -> None:
        remote = index.derived.get("remote_terms")
        if remote is not None:
            with self._database():
                remote.prefetch(terms)

    def query_units(self, text: str, index: Index):
        from ..tokenizer import query_units

        key = ("units", self._seq, text)
        self._prefetched(index, key, lambda known: query_units(text, known=known))
        return super().query_units(text, index)

    def _translations(self, units, index: Index):
        if units and self.ranking.w_glossary > 0:
            glossary = self.glossary
            key = ("translations", self._seq, id(glossary), tuple(units))
            self._prefetched(index, key, lambda known: glossary.translations(units, known, memo={}))
        return super()._translations(units, index)

    # -- semantic leg ------------------------------------------------------------------

    def _semantic_index(self):
        self._semantic_reason = LEXICAL_ONLY if self.semantic else None
        return None

    # -- reports -----------------------------------------------------------------------

    def repo_heads(self) -> list[dict]:
        """Per repository the index holds: the head ingested and, for a configured one
        with a working copy here, the working copy's ``HEAD`` and whether they agree
        (the ``HEAD`` is read again at most every ``_HEAD_CHECK_S`` seconds)."""
        from . import git

        if self._repo_rows is None:
            self._follow(self._load())
        configured = dict(self.config.repos)
        if (self.vault / ".git").exists() and self.vault not in configured.values():
            # the vault is a clone: the repository ingest names by its folder
            configured.setdefault(self.vault.name, self.vault)
        out = []
        for name, indexed, ingested_at, counts in self._repo_rows or []:
            entry = {
                "repo": name,
                "indexed_head": indexed,
                "ingested_at": ingested_at,
                "notes": (counts or {}).get("notes"),
                "head": None,
                "current": None,
            }
            folder = configured.get(name)
            if folder is not None:
                head = self._heads.get(name)
                if head is None or time.monotonic() - head[0] > _HEAD_CHECK_S:
                    try:
                        head = self._heads[name] = (time.monotonic(), git.head(folder))
                    except git.GitError:
                        head = None
                if head is not None:
                    entry["head"] = head[1]
                    entry["current"] = head[1] == indexed
            out.append(entry)
        return out

    def freshness(self) -> dict:
        """The local shape, for the team index: ``fresh`` unless a configured
        repository's working copy here is at another commit than the index holds
        (``stale_repos``; ``repos`` lists every repository with both heads). The index
        itself is the database's state as of this search."""
        index = self._load()
        heads = self.repo_heads()
        stale = [h["repo"] for h in heads if h["current"] is False]
        return {
            "fresh": not stale,
            "notes": self._count_live(index),
            "built_at": _iso(self._loaded_at),
            "checked_at": _iso(time.time()) if self._polled is not None else None,
            "stale_files": None,
            # writers announce their changes at commit: the next search takes them
            "check_interval_s": 0.0,
            "staleness_window_s": 0.0,
            "checking": False,
            "backend": "postgresql",
            "repos": heads,
            "stale_repos": stale,
        }

    def stats(self) -> dict:
        out = super().stats()
        size = self._query(
            "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s "
            "AND c.relkind = 'r'",
            [split_url(self.index_url)[1]],
        )
        out["cache"] = {"path": _safe_url(self.index_url), "bytes": int(size[0][0])}
        return out

    def current_seq(self) -> int:
        return current_seq(self._db())
