"""The tools the Hermes provider gives the agent, in OpenAI function format.

Every name carries the ``mnemosyne_`` prefix: Hermes drops a memory-provider tool whose
name shadows one of its core tools (``toolsets._HERMES_CORE_TOOLS``, among them
``memory``), and the prefix keeps clear of any other provider's tools too.
"""

from __future__ import annotations

__all__ = [
    "GET_DEFAULT_CHARS",
    "GET_SCHEMA",
    "HISTORY_DEFAULT_LIMIT",
    "HOST_HISTORY_SCHEMA",
    "LATEST_DEFAULT_LIMIT",
    "LATEST_SCHEMA",
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
)
SEARCH_DEFAULT_LIMIT = 5
# Sections are shorter than notes: a few more of them fit the same context.
LATEST_DEFAULT_LIMIT = 8
HISTORY_DEFAULT_LIMIT = 10
# A note read returns at most this many characters unless asked (the rest: offset=).
GET_DEFAULT_CHARS = 6000

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
        "context) or its path: the whole text, one section, or a slice. Long notes come "
        "back truncated=true with total_chars; read on with offset. The version it returns "
        "is what mnemosyne_remember needs to replace the note."
    ),
    "parameters": {
        "type": "object",
        "properties": {
            "key": {"type": "string", "description": "The note's key or vault path."},
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
        "required": ["key"],
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

SCHEMAS = (SEARCH_SCHEMA, LATEST_SCHEMA, HOST_HISTORY_SCHEMA, GET_SCHEMA, REMEMBER_SCHEMA)
