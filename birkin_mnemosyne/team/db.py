"""The team index's tables in PostgreSQL, and the one way this package connects to them.

Everything lives in one schema (``mnemosyne`` unless the URL's ``?schema=`` names
another), so a team can keep its index beside other data. The tables hold what the
local index holds, in rows a person can query::

    meta             key -> jsonb: schema version, recipe, the change counter "seq"
    repos            one row per repository: its head sha, last ingest, counts
    notes            one row per note: <repo>/<path>, blob sha, the index's note fields
                     (jsonb), field lengths, its sections' id range, the redacted text
                     (whole, and its body), the sha256 of the file's bytes
    sections         one row per section: heading, offsets, field lengths, stale mark,
                     the redacted text
    section_postings (term, note) -> the sections of the note holding the term (0 = its
                     first; its ids are first_sid on) and their tf codes
    field_postings   (term, note) -> title/tags tf code
    removed          note ids that left, with the change that removed them
    ingest_runs      one row per ingest of a repository: when, head, counts, error

Terms are the project's own tokenizer's (``document.index_terms``), never Postgres's
stemmers, so the team index scores exactly as the local one does. A tf code is the
local index's: body tf in the low byte, heading (or title) tf in the next.

Every change is announced on the channel ``mnemosyne:<schema>`` (``NOTIFY``, at
commit): a search process listening there reloads without asking before each search.

Note and section ids grow from sequences; a changed note is stored under a new id, as
the local index does, so postings stay sorted by id. Writers take one advisory lock
(``writer_lock``): changes commit in id order and every reader sees them in order.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..errors import ExtraNotInstalledError, IndexBackendError

__all__ = [
    "SCHEMA_VERSION",
    "channel",
    "IndexBackendError",
    "connect",
    "ensure_schema",
    "is_index_url",
    "split_url",
    "writer_lock",
]

SCHEMA_VERSION = 1
# The advisory lock every writer of a team index holds (a constant key: "mnem").
WRITER_LOCK_KEY = 0x6D6E656D
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def channel(schema: str) -> str:
    """The notification channel a schema's writers announce changes on."""
    return f"mnemosyne:{schema}"


def is_index_url(value: str | None) -> bool:
    return bool(value) and str(value).startswith(("postgresql://", "postgres://"))


def split_url(url: str) -> tuple[str, str]:
    """(the URL psycopg connects with, the schema) — ``?schema=`` is ours, not libpq's."""
    if not is_index_url(url):
        raise IndexBackendError(
            f"not a PostgreSQL URL: {url!r} — pass postgresql://user@host:port/database"
        )
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = "mnemosyne"
    rest = []
    for key, value in query:
        if key == "schema":
            schema = value
        else:
            rest.append((key, value))
    if not _SCHEMA_NAME.match(schema):
        raise IndexBackendError(
            f"schema {schema!r} in the index URL is not a plain lower-case SQL name"
        )
    return urlunsplit(parts._replace(query=urlencode(rest))), schema


def _psycopg():
    try:
        import psycopg
    except ImportError:
        raise ExtraNotInstalledError("postgres", "a PostgreSQL team index") from None
    return psycopg


def connect(url: str, *, autocommit: bool = False):
    """A psycopg connection to the team index at ``url`` with its schema on the path."""
    psycopg = _psycopg()
    dsn, schema = split_url(url)
    try:
        conn = psycopg.connect(dsn, autocommit=autocommit, connect_timeout=10)
    except psycopg.Error as exc:
        where = urlsplit(dsn)._replace(netloc=urlsplit(dsn).hostname or "").geturl()
        raise IndexBackendError(
            f"cannot connect to the team index at {where}: {str(exc).strip().splitlines()[0]}"
        ) from None
    conn.execute(f"SET search_path TO {schema}, public")
    if not autocommit:
        conn.commit()
    return conn


def db_errors():
    """The exception class psycopg raises for every database error."""
    return _psycopg().Error


_DDL = """
CREATE SCHEMA IF NOT EXISTS {schema};
SET search_path TO {schema}, public;
CREATE TABLE IF NOT EXISTS meta (key text PRIMARY KEY, value jsonb NOT NULL);
CREATE SEQUENCE IF NOT EXISTS note_ids;
CREATE SEQUENCE IF NOT EXISTS section_ids;
CREATE TABLE IF NOT EXISTS repos (
    name text PRIMARY KEY,
    origin text NOT NULL,
    head_sha text,
    ingested_at timestamptz,
    counts jsonb NOT NULL DEFAULT '{{}}'
);
CREATE TABLE IF NOT EXISTS notes (
    nid integer PRIMARY KEY,
    repo text NOT NULL,
    rel_path text NOT NULL,
    path text NOT NULL UNIQUE,
    blob_sha text NOT NULL,
    meta jsonb NOT NULL,
    first_sid integer NOT NULL,
    section_count integer NOT NULL,
    tlen integer NOT NULL,
    glen integer NOT NULL,
    body text,
    text text,
    version text NOT NULL,
    seq bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS notes_repo ON notes (repo, rel_path);
CREATE INDEX IF NOT EXISTS notes_seq ON notes (seq);
CREATE TABLE IF NOT EXISTS sections (
    sid integer PRIMARY KEY,
    nid integer NOT NULL,
    heading text NOT NULL,
    start_char integer NOT NULL,
    end_char integer NOT NULL,
    line integer NOT NULL,
    body_len integer NOT NULL,
    heading_len integer NOT NULL,
    stale boolean NOT NULL,
    text text
);
CREATE INDEX IF NOT EXISTS sections_nid ON sections (nid);
CREATE TABLE IF NOT EXISTS section_postings (
    term text NOT NULL,
    nid integer NOT NULL,
    sections integer[] NOT NULL,
    codes integer[] NOT NULL,
    PRIMARY KEY (term, nid)
);
CREATE INDEX IF NOT EXISTS section_postings_nid ON section_postings (nid);
CREATE TABLE IF NOT EXISTS field_postings (
    term text NOT NULL,
    nid integer NOT NULL,
    code integer NOT NULL,
    PRIMARY KEY (term, nid)
);
CREATE INDEX IF NOT EXISTS field_postings_nid ON field_postings (nid);
CREATE TABLE IF NOT EXISTS removed (nid integer PRIMARY KEY, seq bigint NOT NULL);
CREATE INDEX IF NOT EXISTS removed_seq ON removed (seq);
CREATE TABLE IF NOT EXISTS ingest_runs (
    id bigserial PRIMARY KEY,
    repo text NOT NULL,
    started_at timestamptz NOT NULL,
    finished_at timestamptz,
    head_sha text,
    added integer NOT NULL DEFAULT 0,
    changed integer NOT NULL DEFAULT 0,
    removed integer NOT NULL DEFAULT 0,
    unchanged integer NOT NULL DEFAULT 0,
    error text
);
INSERT INTO meta VALUES ('seq', '0') ON CONFLICT DO NOTHING;
-- A change's number; readers listening on the schema's channel hear of it at commit.
CREATE OR REPLACE FUNCTION next_change() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_seq bigint;
BEGIN
    UPDATE meta SET value = to_jsonb(value::text::bigint + 1) WHERE key = 'seq'
    RETURNING value::text::bigint INTO v_seq;
    PERFORM pg_notify('mnemosyne:' || current_schema(), v_seq::text);
    RETURN v_seq;
END $$;
CREATE OR REPLACE FUNCTION remove_note(v_nid integer, v_seq bigint) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM section_postings WHERE nid = v_nid;
    DELETE FROM field_postings WHERE nid = v_nid;
    DELETE FROM sections WHERE nid = v_nid;
    DELETE FROM notes WHERE nid = v_nid;
    INSERT INTO removed (nid, seq) VALUES (v_nid, v_seq) ON CONFLICT (nid) DO NOTHING;
END $$;
-- One note written in one statement (so one transaction and one round trip): the
-- writer lock, a change number, a new note id and a run of section ids, the old
-- version of the note removed, its rows stored. Returns whether it replaced one.
CREATE OR REPLACE FUNCTION store_note(
    v_repo text, v_rel text, v_path text, v_sha text, v_meta jsonb, v_tlen integer,
    v_glen integer, v_body text, v_text text, v_version text, v_sections jsonb,
    v_postings jsonb, v_fields jsonb, v_lock bigint
) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_seq bigint;
    v_nid integer;
    v_first integer;
    v_count integer := jsonb_array_length(v_sections);
    v_old integer;
BEGIN
    PERFORM pg_advisory_xact_lock(v_lock);
    v_seq := next_change();
    SELECT nid INTO v_old FROM notes WHERE repo = v_repo AND rel_path = v_rel;
    IF v_old IS NOT NULL THEN
        PERFORM remove_note(v_old, v_seq);
    END IF;
    v_nid := nextval('note_ids');
    v_first := nextval('section_ids');
    IF v_count > 1 THEN
        PERFORM setval('section_ids', v_first + v_count - 1);
    END IF;
    INSERT INTO notes (nid, repo, rel_path, path, blob_sha, meta, first_sid, section_count,
                       tlen, glen, body, text, version, seq)
    VALUES (v_nid, v_repo, v_rel, v_path, v_sha, v_meta, v_first, v_count, v_tlen, v_glen,
            v_body, v_text, v_version, v_seq);
    INSERT INTO sections (sid, nid, heading, start_char, end_char, line, body_len,
                          heading_len, stale, text)
    SELECT v_first + (o - 1)::integer, v_nid, s->>0, (s->>1)::integer, (s->>2)::integer,
           (s->>3)::integer, (s->>4)::integer, (s->>5)::integer, (s->>6)::boolean, s->>7
    FROM jsonb_array_elements(v_sections) WITH ORDINALITY AS t(s, o);
    INSERT INTO section_postings (term, nid, sections, codes)
    SELECT p->>0, v_nid, (p->>1)::integer[], (p->>2)::integer[]
    FROM jsonb_array_elements(v_postings) AS p;
    INSERT INTO field_postings (term, nid, code)
    SELECT f->>0, v_nid, (f->>1)::integer FROM jsonb_array_elements(v_fields) AS f;
    RETURN v_old IS NOT NULL;
END $$;
"""


def ensure_schema(conn, schema: str, recipe: dict) -> None:
    """Create the tables if missing; IndexBackendError when they are another version's
    or were built with another recipe (tokenizer, redaction, type rules)."""
    from psycopg.types.json import Jsonb

    with writer_lock(conn):
        conn.execute(_DDL.format(schema=schema))
        rows = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        version = rows.get("schema_version")
        if version is None:
            conn.execute("INSERT INTO meta VALUES ('schema_version', %s)", [Jsonb(SCHEMA_VERSION)])
            conn.execute("INSERT INTO meta VALUES ('recipe', %s)", [Jsonb(recipe)])
        elif version != SCHEMA_VERSION:
            raise IndexBackendError(
                f"the team index in schema {schema!r} is of version {version}; this "
                f"birkin-mnemosyne writes version {SCHEMA_VERSION} — rebuild it: "
                "mnemosyne ingest --rebuild"
            )
        elif rows.get("recipe") != recipe:
            raise IndexBackendError(
                f"the team index in schema {schema!r} was built with other indexing "
                "settings (tokenizer, redaction or type rules) — rebuild it: "
                "mnemosyne ingest --rebuild"
            )


def drop_schema(conn, schema: str) -> None:
    with writer_lock(conn):
        conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@contextmanager
def writer_lock(conn):
    """One transaction holding the team index's writer lock (released at its end).

    Every writer, on every machine, takes it: changes are serialized by the database.
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [WRITER_LOCK_KEY])
        yield conn
