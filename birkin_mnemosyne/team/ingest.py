"""Ingest git repositories into a team index: the files stay canonical, the index is derived.

``ingest(url, repos, config=...)`` walks each repository's ``HEAD`` (``git``), compares
every note's blob sha with the one the index holds, and writes only what changed:

* a new path is parsed (the same parser, redaction and type rules as the local engine)
  and stored with its sections, postings, redacted body and section texts;
* a changed blob is stored anew under a new note id and the old one is removed;
* a path gone from the tree is removed (a rename is a removal and an addition: git
  records no renames in a tree).

Each document is one transaction holding the writer lock (``db.writer_lock``), so a
crash loses at most the document being written and readers never see half a note. A
repository's row records the head sha ingested, when, and the counts; ``ingest_runs``
keeps one row per repository per run, with the error when it failed. Running it again
with nothing committed writes nothing but that row: safe from a timer.
"""

from __future__ import annotations

import hashlib
import queue
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..config import VaultConfig
from ..document import decode_note as _decode
from ..document import parse_note_bytes, redacted_body
from ..index import _NOTE_FIELDS, note_record
from ..progress import ProgressCallback, phase
from ..redact import Redactor
from . import git
from .db import (
    WRITER_LOCK_KEY,
    IndexBackendError,
    connect,
    db_errors,
    ensure_schema,
    writer_lock,
)

__all__ = ["IngestReport", "RepoReport", "ingest", "recipe_of"]


@dataclass
class RepoReport:
    name: str
    head: str | None = None
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    seconds: float = 0.0
    error: str | None = None

    def to_dict(self) -> dict:
        return {
            "repo": self.name,
            "head": self.head,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "unchanged": self.unchanged,
            "seconds": round(self.seconds, 3),
            "error": self.error,
        }


@dataclass
class IngestReport:
    repos: list[RepoReport] = field(default_factory=list)
    clustered_s: float | None = None  # seconds spent clustering the postings, if it ran

    @property
    def ok(self) -> bool:
        return all(r.error is None for r in self.repos)

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "repos": [r.to_dict() for r in self.repos],
            "clustered_s": None if self.clustered_s is None else round(self.clustered_s, 2),
        }


def recipe_of(config: VaultConfig, redactor: Redactor) -> dict:
    """What the stored terms depend on: a team index built otherwise is rebuilt."""
    from ..engine import RECIPE_VERSION

    return {
        "recipe": RECIPE_VERSION,
        "redaction": redactor.fingerprint,
        "type_rules": [list(rule) for rule in config.type_rules],
        "max_file_bytes": config.max_file_bytes,
    }


def _redactor(config: VaultConfig) -> Redactor:
    from ..redact import load_secret_hashes

    hashes = load_secret_hashes(config.secret_hashes) if config.secret_hashes else None
    return Redactor(config.redaction_disabled, hashes)


def ingest(
    url: str,
    repos: Sequence[tuple[str, Path]],
    *,
    config: VaultConfig,
    pull: bool = False,
    rebuild: bool = False,
    on_progress: ProgressCallback | None = None,
    conn=None,
) -> IngestReport:
    """Bring the team index at ``url`` up to the ``HEAD`` of each of ``repos``.

    ``repos`` are (name, working copy) pairs; a repository indexed before but not
    named now is left as it is. ``pull`` fast-forwards each working copy first;
    ``rebuild`` drops the index and ingests everything again (what to do when the
    database was lost or its recipe changed). ``on_progress`` receives the phase
    ``ingest`` (documents written) of each repository with changes. ``conn`` is an open
    connection to use (a team write holds the writer lock on it).

    A working copy whose ``HEAD`` is behind the commit the index holds for it (or has
    diverged from it) is refused: ingesting it would take other machines' writes out
    of the index. Pull first (``pull``), or ``rebuild`` to index it as it is.
    """
    from .db import drop_schema, split_url

    if not repos:
        raise IndexBackendError(
            "no repositories to ingest — list them under 'repos' in .mnemosyne/config.json "
            "or pass --repo PATH"
        )
    redactor = _redactor(config)
    recipe = recipe_of(config, redactor)
    _, schema = split_url(url)
    report = IngestReport()
    own = conn is None
    conn = connect(url, autocommit=True) if own else conn
    try:
        if rebuild:
            drop_schema(conn, schema)
        ensure_schema(conn, schema, recipe)
        for name, path in repos:
            report.repos.append(_run(conn, name, Path(path), config, redactor, pull, on_progress))
        written = sum(r.added + r.changed for r in report.repos)
        held = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
        if written >= max(_CLUSTER_MIN, _CLUSTER_SHARE * held):
            report.clustered_s = _cluster(conn)
    finally:
        if own:
            conn.close()
    return report


def _run(conn, name, path: Path, config, redactor, pull: bool, on_progress) -> RepoReport:
    """One repository's ingest, recorded in ``ingest_runs`` (its error too)."""
    started = time.perf_counter()
    one = RepoReport(name)
    run_id = conn.execute(
        "INSERT INTO ingest_runs (repo, started_at) VALUES (%s, now()) RETURNING id", [name]
    ).fetchone()[0]
    try:
        if pull:
            git.pull(path)
        _ingest_repo(conn, name, path, config, redactor, one, on_progress)
    except (git.GitError, IndexBackendError) as exc:
        one.error = str(exc)
    except db_errors() as exc:
        one.error = f"database error: {str(exc).strip().splitlines()[0]}"
    one.seconds = time.perf_counter() - started
    conn.execute(
        "UPDATE ingest_runs SET finished_at = now(), head_sha = %s, added = %s, "
        "changed = %s, removed = %s, unchanged = %s, error = %s WHERE id = %s",
        [one.head, one.added, one.changed, one.removed, one.unchanged, one.error, run_id],
    )
    return one


# After an ingest that wrote at least this many notes, and this share of those held, the
# postings tables are rewritten in term order (CLUSTER): notes are stored one at a time,
# so a term's rows lie scattered over the table, and a search reading a common term's
# rows read one page per note. Measured at 100k generated notes: a term in 47,589 notes
# read 46,406 pages and took 540 ms; clustered, 174 ms.
_CLUSTER_MIN = 1000
_CLUSTER_SHARE = 0.25


def _cluster(conn) -> float:
    """Rewrite the postings tables in term order (searches wait meanwhile)."""
    started = time.perf_counter()
    with writer_lock(conn):
        conn.execute("CLUSTER section_postings USING section_postings_pkey")
        conn.execute("CLUSTER field_postings USING field_postings_pkey")
    conn.execute("ANALYZE section_postings")
    conn.execute("ANALYZE field_postings")
    return time.perf_counter() - started


def indexed_head(conn, name: str) -> str | None:
    """The commit of repository ``name`` the team index holds (None: never ingested)."""
    row = conn.execute("SELECT head_sha FROM repos WHERE name = %s", [name]).fetchone()
    return row[0] if row else None


def _ingest_repo(conn, name, path: Path, config, redactor, one: RepoReport, on_progress) -> None:
    from psycopg.types.json import Jsonb

    one.head = git.head(path)
    held_head = indexed_head(conn, name)
    if held_head and one.head != held_head and not git.descends_from(path, one.head, held_head):
        raise IndexBackendError(
            f"{path} is at {(one.head or 'no commit')[:12]}, behind or beside the commit the "
            f"team index holds for {name!r} ({held_head[:12]}): ingesting it would drop "
            "other machines' changes — pull first (mnemosyne ingest --pull), or "
            "--rebuild to index this copy as it is"
        )
    tree = git.note_blobs(path, one.head) if one.head else {}
    held = {
        rel: (sha, nid)
        for rel, sha, nid in conn.execute(
            "SELECT rel_path, blob_sha, nid FROM notes WHERE repo = %s", [name]
        ).fetchall()
    }
    gone = sorted(set(held) - set(tree))
    todo = sorted(rel for rel, sha in tree.items() if held.get(rel, (None,))[0] != sha)
    one.unchanged = len(tree) - len(todo)
    progress = phase(on_progress, "ingest", len(gone) + len(todo)) if gone or todo else None
    for rel in gone:
        with writer_lock(conn):
            conn.execute("SELECT remove_note(%s, next_change())", [held[rel][1]])
        one.removed += 1
        if progress:
            progress.advance()
    # git answers in the order asked; this thread parses the next notes while the
    # writer's thread waits for the database to store the last (a bounded queue)
    with _Writer(conn, Jsonb) as writer:
        for rel, (sha, data) in zip(todo, git.blobs(path, [tree[rel] for rel in todo])):
            writer.put(_rows_of(name, rel, sha, data, config, redactor))
            if rel in held:
                one.changed += 1
            else:
                one.added += 1
            if progress:
                progress.advance()
    if progress:
        progress.finish()
    with writer_lock(conn):
        counts = {"notes": len(tree)}
        conn.execute(
            "INSERT INTO repos (name, origin, head_sha, ingested_at, counts) "
            "VALUES (%s, %s, %s, now(), %s) ON CONFLICT (name) DO UPDATE SET "
            "origin = EXCLUDED.origin, head_sha = EXCLUDED.head_sha, "
            "ingested_at = EXCLUDED.ingested_at, counts = EXCLUDED.counts",
            [name, str(path), one.head, Jsonb(counts)],
        )
        conn.execute("SELECT pg_notify('mnemosyne:' || current_schema(), 'repos')")


@dataclass
class _Rows:
    repo: str
    rel: str
    sha: str
    meta: dict
    title_tf: dict
    tags_tf: dict
    sections: list  # note_record section rows
    texts: list[str]  # redacted text per section
    body: str | None
    text: str | None  # the whole note, redacted
    version: str  # sha256 of the file's bytes


def _rows_of(repo, rel, sha, data: bytes, config: VaultConfig, redactor) -> _Rows:
    doc = parse_note_bytes(
        rel,
        data,
        mtime_ns=0,
        redactor=redactor,
        type_rules=config.type_rules,
        max_file_bytes=config.max_file_bytes,
    )
    values, warnings, title_tf, tags_tf, sections = note_record(doc)
    meta = dict(zip(_NOTE_FIELDS, values))
    full = f"{repo}/{rel}"
    meta["path"] = full
    meta["warnings"] = [{**w, "path": full} for w in warnings]
    texts: list[str] = []
    body = whole = None
    if doc.indexed:
        text = _decode(data)[0]
        offset = doc.body_offset or 0
        texts = [redactor.redact(text[offset + s[1] : offset + s[2]]) for s in sections]
        body = redacted_body(data, redactor)
        whole = redactor.redact(text)
    version = hashlib.sha256(data).hexdigest()
    return _Rows(repo, rel, sha, meta, title_tf, tags_tf, sections, texts, body, whole, version)


class _Writer:
    """Stores notes (``_store_note``) in order on a thread of its own, so parsing the next
    ones overlaps the database's work on the last. An error there stops the ingest: it
    is raised by the next ``put`` or at the end of the ``with`` block."""

    _STOP = object()

    def __init__(self, conn, Jsonb) -> None:
        self._conn, self._jsonb = conn, Jsonb
        self._queue: queue.Queue = queue.Queue(maxsize=_WRITE_AHEAD)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="mnemosyne-ingest", daemon=True)

    def __enter__(self) -> _Writer:
        self._thread.start()
        return self

    def _run(self) -> None:
        while True:
            rows = self._queue.get()
            if rows is self._STOP:
                return
            if self._error is None:
                try:
                    _store_note(self._conn, rows, self._jsonb)
                except BaseException as exc:  # handed to the ingesting thread
                    self._error = exc

    def _check(self) -> None:
        if self._error is not None:
            raise self._error

    def put(self, rows: _Rows) -> None:
        self._check()
        self._queue.put(rows)

    def __exit__(self, exc_type, exc, tb) -> None:
        self._queue.put(self._STOP)
        self._thread.join()
        if exc_type is None:
            self._check()


# Parsed notes waiting for the writer at most (each holds its texts and term counts).
_WRITE_AHEAD = 32


def _int_array(values: list[int]) -> str:
    """A PostgreSQL integer array literal ("{1,2,3}")."""
    return "{" + ",".join(map(str, values)) + "}"


def _store_note(conn, rows: _Rows, Jsonb) -> bool:
    """Write one note in one statement (``store_note`` in the database: the writer lock,
    a change number, the old version removed, the rows stored; one transaction). True
    when it replaced an older version. A posting names its section by its place in the
    note (the database assigns the note's run of section ids)."""
    postings: dict[str, tuple[list[int], list[int]]] = {}
    sections = []
    for offset, (sec, text) in enumerate(zip(rows.sections, rows.texts)):
        heading, start, end, line, blen, hlen, stale, body_tf, heading_tf = sec
        sections.append([heading, start, end, line, blen, hlen, stale, text])
        # the local index's codes: body tf in the low byte, heading tf above it
        for term, tf in body_tf.items():
            code = min(tf, 255) | (min(heading_tf.get(term, 0), 255) << 8)
            slot = postings.setdefault(term, ([], []))
            slot[0].append(offset)
            slot[1].append(code)
        for term, tf in heading_tf.items():
            if term not in body_tf:
                slot = postings.setdefault(term, ([], []))
                slot[0].append(offset)
                slot[1].append(min(tf, 255) << 8)
    title, tags = rows.title_tf, rows.tags_tf
    fields = (
        [
            [term, min(title.get(term, 0), 255) | (min(tags.get(term, 0), 255) << 8)]
            for term in title.keys() | tags.keys()
        ]
        if rows.sections
        else []
    )
    return conn.execute(
        "SELECT store_note(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [
            rows.repo,
            rows.rel,
            rows.meta["path"],
            rows.sha,
            Jsonb(rows.meta),
            sum(title.values()),
            sum(tags.values()),
            rows.body,
            rows.text,
            rows.version,
            Jsonb(sections),
            Jsonb(
                [
                    [term, _int_array(offsets), _int_array(codes)]
                    for term, (offsets, codes) in postings.items()
                ]
            ),
            Jsonb(fields),
            WRITER_LOCK_KEY,
        ],
    ).fetchone()[0]
