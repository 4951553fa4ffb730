"""The tools the Hermes provider gives the agent, in OpenAI function format.

Every name carries the ``mnemosyne_`` prefix: Hermes drops a memory-provider tool whose
name shadows one of its core tools (``toolsets._HERMES_CORE_TOOLS``, among them
``memory``), and the prefix keeps clear of any other provider's tools too.
"""

from __future__ import annotations

__all__ = [
    "EDIT_SCHEMA",
    "GET_DEFAULT_CHARS",
    "GET_SCHEMA",
    "HISTORY_DEFAULT_LIMIT",
    "HOST_HISTORY_SCHEMA",
    "LATEST_DEFAULT_LIMIT",
    "LATEST_SCHEMA",
    "MOVE_SCHEMA",
    "RECENT_DEFAULT_LIMIT",
    "RECENT_SCHEMA",
    "REMEMBER_SCHEMA",
    "SCHEMAS",
    "SEARCH_DEFAULT_LIMIT",
    "SEARCH_SCHEMA",
    "TOOL_NAMES",
]

TOOL_NAMES = (
    "mnemosyne_search",
    "mnemosyne_latest",
    "mnemosyne_host_history",
    "mnemosyne_get",
    "mnemosyne_remember",
    "mnemosyne_edit",
    "mnemosyne_move",
    "mnemosyne_recent",
)
SEARCH_DEFAULT_LIMIT = 5
# Sections are shorter than notes: a few more of them fit the same context.
LATEST_DEFAULT_LIMIT = 8
HISTORY_DEFAULT_LIMIT = 10
# A note read returns at most this many characters unless asked (the rest: offset=).
GET_DEFAULT_CHARS = 6000
RECENT_DEFAULT_LIMIT = 10
_WHEN = "a day (2026-03-02), a UTC time (2026-03-02T10:15Z) or a span back from now (7d, 12h, 2w)"

SEARCH_SCHEMA = {
    "name": "mnemosyne_search",
    "description": (
        "Search the Mnemosyne vault: the user's long-term Markdown notes (runbooks, "
        "decisions, hosts, projects, lessons, preferences). Returns one hit per note with "
        "its key, best section and a snippet, and no_strong_match=true when nothing matched "
        "well (then best_weak lists near misses). Secrets appear as [REDACTED:...]. For "
        "the current state of something use mnemosyne_latest; for one host's story, "
        "mnemosyne_host_history."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {
                "type": "string",
                "description": "Words, an identifier or an error message; with exact=true "
                "a literal substring.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "description": f"At most this many hits (default {SEARCH_DEFAULT_LIMIT}).",
            },
            "zone": {
                "type": "string",
                "description": "Only notes in this folder and its subfolders, e.g. runbooks.",
            },
            "repos": {
                "type": "array",
                "items": {"type": "string"},
                "description": "With a team index: only notes of these repositories, "
                "e.g. platform.",
            },
            "labels": {
                "type": "array",
                "items": {"type": "string"},
                "description": "Only notes carrying all of these namespace:value labels, "
                "e.g. project:atlas.",
            },
            "exact": {
                "type": "boolean",
                "description": "Match a literal substring (case-insensitive) instead of "
                "ranked words.",
            },
        },
        "required": ["query"],
    },
}

LATEST_SCHEMA = {
    "name": "mnemosyne_latest",
    "description": (
        "The newest sections of the Mnemosyne vault holding every word of the query: for "
        "'what is X now', 'the current value of Y', 'when did Z last happen'. Sections, "
        "newest first (date and time from their headings, else the note's date), each with "
        "its key, heading, date, snippet and stale flag. When no section holds every word "
        "the most common words are dropped and listed in dropped_terms."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "The words every section must hold."},
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "description": f"At most this many sections (default {LATEST_DEFAULT_LIMIT}).",
            },
            "zone": {
                "type": "string",
                "description": "Only notes in this folder and its subfolders, e.g. journal.",
            },
        },
        "required": ["query"],
    },
}

HOST_HISTORY_SCHEMA = {
    "name": "mnemosyne_host_history",
    "description": (
        "What happened to one host, newest first: the journal sections that mention it "
        "(by its host note's name or an alias, kind=journal) and its host note's sections "
        "and dated lines (kind=host_record). An unknown host is an error listing close "
        "host names."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "host": {"type": "string", "description": "The host's name or any alias."},
            "topic": {
                "type": "string",
                "description": "Only entries that also hold these words, e.g. backup.",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "description": f"At most this many entries (default {HISTORY_DEFAULT_LIMIT}).",
            },
        },
        "required": ["host"],
    },
}

GET_SCHEMA = {
    "name": "mnemosyne_get",
    "description": (
        "Read one note of the Mnemosyne vault by its key (from a search hit or recalled "
        "context) or its path: the whole text, one section, or a slice; or several notes at "
        "once with keys (then notes holds each and errors the keys that named none). Long "
        "notes come back truncated=true with total_chars; read on with offset. The version "
        "it returns is what mnemosyne_remember and mnemosyne_edit need to replace text."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "key": {"type": "string", "description": "The note's key or vault path."},
            "keys": {
                "type": "array",
                "items": {"type": "string"},
                "maxItems": 50,
                "description": "Instead of key: several notes' keys, read in one call.",
            },
            "section": {
                "type": "string",
                "description": "Only the section under this heading.",
            },
            "offset": {
                "type": "integer",
                "minimum": 0,
                "description": "Start at this character (default 0).",
            },
            "max_chars": {
                "type": "integer",
                "minimum": 1,
                "description": f"At most this many characters (default {GET_DEFAULT_CHARS}).",
            },
            "outline": {
                "type": "boolean",
                "description": "Only the list of headings, no text.",
            },
        },
        "required": [],  # key or keys: the provider asks for one when neither is given
    },
}

REMEMBER_SCHEMA = {
    "name": "mnemosyne_remember",
    "description": (
        "Save a note worth keeping beyond this session in the Mnemosyne vault (a runbook, "
        "a decision and its reason, a host's details, a lesson). mode=create (default) "
        "makes a new note and never overwrites one; mode=append adds a dated section to an "
        "existing note (title = its key); mode=replace rewrites a note's body and needs "
        "expected_version from mnemosyne_get. Use the built-in memory tool for short facts "
        "that must be in every prompt; this vault is searched when relevant."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "title": {
                "type": "string",
                "description": "The new note's title, or the key of the note to append to "
                "or replace.",
            },
            "body": {"type": "string", "description": "Markdown text of the note."},
            "mode": {"type": "string", "enum": ["create", "append", "replace"]},
            "zone": {
                "type": "string",
                "description": "Folder for a new note, e.g. runbooks or decisions "
                "(default: the vault's top level).",
            },
            "tags": {"type": "array", "items": {"type": "string"}},
            "labels": {
                "type": "array",
                "items": {"type": "string"},
                "description": "namespace:value labels, e.g. project:atlas.",
            },
            "source": {
                "type": "string",
                "description": "Where this came from (a URL, a file, a ticket); default: "
                "this Hermes session.",
            },
            "expected_version": {
                "type": "string",
                "description": "For mode=replace: the version mnemosyne_get returned.",
            },
        },
        "required": ["title", "body"],
    },
}

EDIT_SCHEMA = {
    "name": "mnemosyne_edit",
    "description": (
        "Change part of a Mnemosyne note without rewriting it. operation=prepend puts content "
        "first (after the frontmatter); find_replace replaces the exact text find by content, "
        "refused unless it occurs expected_count times (default 1; the error says how many "
        "it found); replace_section replaces the text under heading section by content and "
        "needs expected_version from mnemosyne_get (a missing or shared heading is an error "
        "listing the headings). Matching is on the stored text: [REDACTED] marks never match. "
        "Undoable like every write."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "key": {"type": "string", "description": "The note's key or vault path."},
            "operation": {"type": "string", "enum": ["prepend", "find_replace", "replace_section"]},
            "content": {"type": "string", "description": "The new Markdown text."},
            "find": {"type": "string", "description": "For find_replace: the exact text."},
            "expected_count": {
                "type": "integer",
                "minimum": 1,
                "description": "For find_replace: how many times find must occur.",
            },
            "section": {
                "type": "string",
                "description": "For replace_section: the heading, e.g. Verify or '## Verify'.",
            },
            "expected_version": {
                "type": "string",
                "description": "The version mnemosyne_get returned; required for replace_section.",
            },
            "source": {
                "type": "string",
                "description": "Where this came from; default: this Hermes session.",
            },
        },
        "required": ["key", "operation", "content"],
    },
}

MOVE_SCHEMA = {
    "name": "mnemosyne_move",
    "description": (
        "Move or rename a Mnemosyne note; the [[wikilinks]] to it in other notes are "
        "rewritten. Without confirm=true only returns the plan (each link change by note "
        "and line); call again with confirm=true and its plan_id to apply it, refused if "
        "anything changed since. Refused when the target exists or is outside the vault."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "key": {"type": "string", "description": "The note's key or vault path."},
            "to": {
                "type": "string",
                "description": "The new vault path, e.g. runbooks/db-restore (.md optional).",
            },
            "title": {
                "type": "string",
                "description": "A new title; without to, the file is renamed after it.",
            },
            "confirm": {"type": "boolean", "description": "Apply the plan (default false)."},
            "plan_id": {"type": "string", "description": "The plan_id of the preview."},
        },
        "required": ["key"],
    },
}

RECENT_SCHEMA = {
    "name": "mnemosyne_recent",
    "description": (
        "The Mnemosyne notes changed most recently, newest first, each with what changed "
        "(created, edited, moved, archived, restored, or modified outside these tools) and "
        "when."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": 50,
                "description": f"At most this many notes (default {RECENT_DEFAULT_LIMIT}).",
            },
            "since": {"type": "string", "description": f"Only changes from then on: {_WHEN}."},
            "until": {"type": "string", "description": f"Only changes up to then: {_WHEN}."},
        },
        "required": [],
    },
}

SCHEMAS = (
    SEARCH_SCHEMA,
    LATEST_SCHEMA,
    HOST_HISTORY_SCHEMA,
    GET_SCHEMA,
    REMEMBER_SCHEMA,
    EDIT_SCHEMA,
    MOVE_SCHEMA,
    RECENT_SCHEMA,
)
