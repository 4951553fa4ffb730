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
from .db import IndexBackendError, connect, db_errors, ensure_schema, writer_lock

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

    @property
    def ok(self) -> bool:
        return all(r.error is None for r in self.repos)

    def to_dict(self) -> dict:
        return {"ok": self.ok, "repos": [r.to_dict() for r in self.repos]}


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
) -> IngestReport:
    """Bring the team index at ``url`` up to the ``HEAD`` of each of ``repos``.

    ``repos`` are (name, working copy) pairs; a repository indexed before but not
    named now is left as it is (``forget`` removes one). ``pull`` fast-forwards each
    working copy first; ``rebuild`` drops the index and ingests everything again (what
    to do when the database was lost or its recipe changed). ``on_progress`` receives
    the phase ``ingest`` (documents written) of each repository with changes.
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
    with connect(url, autocommit=True) as conn:
        if rebuild:
            drop_schema(conn, schema)
        ensure_schema(conn, schema, recipe)
        for name, path in repos:
            started = time.perf_counter()
            one = RepoReport(name)
            report.repos.append(one)
            run_id = conn.execute(
                "INSERT INTO ingest_runs (repo, started_at) VALUES (%s, now()) RETURNING id",
                [name],
            ).fetchone()[0]
            try:
                if pull:
                    git.pull(Path(path))
                _ingest_repo(conn, name, Path(path), config, redactor, one, on_progress)
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
    return report


def _ingest_repo(conn, name, path: Path, config, redactor, one: RepoReport, on_progress) -> None:
    from psycopg.types.json import Jsonb

    one.head = git.head(path)
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
            seq = _next_seq(conn)
            _remove(conn, held[rel][1], seq)
        one.removed += 1
        if progress:
            progress.advance()
    # git answers in the order asked: one blob in memory at a time
    for rel, (sha, data) in zip(todo, git.blobs(path, [tree[rel] for rel in todo])):
        rows = _rows_of(name, rel, sha, data, config, redactor)
        with writer_lock(conn):
            seq = _next_seq(conn)
            old = conn.execute(
                "SELECT nid FROM notes WHERE repo = %s AND rel_path = %s", [name, rel]
            ).fetchone()
            if old is not None:
                _remove(conn, old[0], seq)
            _store(conn, rows, seq, Jsonb)
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


def _next_seq(conn) -> int:
    """Count one change (inside the writer lock): what readers poll to see changes."""
    return conn.execute(
        "UPDATE meta SET value = to_jsonb(value::text::bigint + 1) WHERE key = 'seq' "
        "RETURNING value::text::bigint"
    ).fetchone()[0]


def _remove(conn, nid: int, seq: int) -> None:
    for table in ("section_postings", "field_postings", "sections", "notes"):
        conn.execute(f"DELETE FROM {table} WHERE nid = %s", [nid])
    conn.execute(
        "INSERT INTO removed (nid, seq) VALUES (%s, %s) ON CONFLICT (nid) DO NOTHING", [nid, seq]
    )


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


def _store(conn, rows: _Rows, seq: int, Jsonb) -> None:
    """The note's rows under a new note id and a contiguous run of section ids."""
    nid = conn.execute("SELECT nextval('note_ids')").fetchone()[0]
    count = len(rows.sections)
    first = conn.execute("SELECT nextval('section_ids')").fetchone()[0]
    if count > 1:
        conn.execute("SELECT setval('section_ids', %s)", [first + count - 1])
    tlen, glen = sum(rows.title_tf.values()), sum(rows.tags_tf.values())
    conn.execute(
        "INSERT INTO notes (nid, repo, rel_path, path, blob_sha, meta, first_sid, "
        "section_count, tlen, glen, body, text, version, seq) VALUES (%s, %s, %s, %s, %s, "
        "%s, %s, %s, %s, %s, %s, %s, %s, %s)",
        [
            nid,
            rows.repo,
            rows.rel,
            rows.meta["path"],
            rows.sha,
            Jsonb(rows.meta),
            first,
            count,
            tlen,
            glen,
            rows.body,
            rows.text,
            rows.version,
            seq,
        ],
    )
    postings: dict[str, tuple[list[int], list[int]]] = {}
    with conn.cursor().copy(
        "COPY sections (sid, nid, heading, start_char, end_char, line, body_len, "
        "heading_len, stale, text) FROM STDIN"
    ) as copy:
        for offset, (sec, text) in enumerate(zip(rows.sections, rows.texts)):
            heading, start, end, line, blen, hlen, stale, body_tf, heading_tf = sec
            sid = first + offset
            copy.write_row((sid, nid, heading, start, end, line, blen, hlen, stale, text))
            # the local index's codes: body tf in the low byte, heading tf above it
            for term, tf in body_tf.items():
                code = min(tf, 255) | (min(heading_tf.get(term, 0), 255) << 8)
                slot = postings.setdefault(term, ([], []))
                slot[0].append(sid)
                slot[1].append(code)
            for term, tf in heading_tf.items():
                if term not in body_tf:
                    slot = postings.setdefault(term, ([], []))
                    slot[0].append(sid)
                    slot[1].append(min(tf, 255) << 8)
    if postings:
        with conn.cursor().copy(
            "COPY section_postings (term, nid, sids, codes) FROM STDIN"
        ) as copy:
            for term, (sids, codes) in postings.items():
                copy.write_row((term, nid, sids, codes))
    if rows.sections and (rows.title_tf or rows.tags_tf):
        with conn.cursor().copy("COPY field_postings (term, nid, code) FROM STDIN") as copy:
            for term in rows.title_tf.keys() | rows.tags_tf.keys():
                code = min(rows.title_tf.get(term, 0), 255) | (
                    min(rows.tags_tf.get(term, 0), 255) << 8
                )
                copy.write_row((term, nid, code))
