"""Pydantic models of the tools' results and of search expansions.

Each result model mirrors one shared shape of DESIGN.md with extra keys allowed: the SDK
checks a tool's structured content against it and publishes it as the ``outputSchema``.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Expansion lists are the only inputs the library does not bound itself.
MAX_EXPANSION_ITEMS = 32
MAX_EXPANSION_CHARS = 4000


class Shape(BaseModel):
    model_config = ConfigDict(extra="allow")


class IndexFreshness(Shape):
    fresh: bool = Field(description="true when the vault was scanned within the refresh interval")
    notes: int = Field(description="live notes in the index")
    built_at: str | None = None
    checked_at: str | None = Field(
        default=None, description="when the last stat pass over the files began"
    )
    stale_files: int | None = None
    check_interval_s: float | None = Field(
        default=None, description="seconds between stat passes (longer for a big vault)"
    )
    staleness_window_s: float | None = Field(
        default=None,
        description="the longest an edit made outside this server can go unseen; "
        "writes through it are seen at once",
    )


class SearchHit(Shape):
    key: str = Field(description="pass it to memory_get_note / memory_related")
    path: str
    title: str
    zone: str = Field(description="the note's folder; '' is the inbox")
    heading: str = Field(description="the best-matching section ('' = the note's lead)")
    also: list[str] = Field(description="other matching sections of the same note")
    score: float
    provenance: str = Field(description="keyword, semantic or both")
    snippet: str = Field(description="redacted excerpt of the best section")
    labels: list[str]
    date: str | None = None
    stale: bool = Field(description="superseded or outdated: check before relying on it")


class SearchResult(Shape):
    query: str
    mode: str = Field(description="lexical or hybrid")
    degraded_reason: str | None = None
    hits: list[SearchHit] = Field(description="one per note, best first; [] when weak")
    no_strong_match: bool = Field(
        description="true when nothing matched well; hits is then empty and best_weak "
        "holds the closest notes. Not proof that the memory lacks the answer."
    )
    best_weak: list[SearchHit]
    index: IndexFreshness


class DatedSection(Shape):
    key: str = Field(description="pass it to memory_get_note (with section=heading)")
    path: str
    title: str
    zone: str
    heading: str
    line: int
    date: str | None = Field(
        None, description="when the section was written (its headings, else the note's date)"
    )
    stale: bool = Field(description="superseded or outdated: check before relying on it")
    snippet: str = Field(description="redacted excerpt")
    score: float


class LatestResult(Shape):
    query: str
    hits: list[DatedSection] = Field(description="sections, newest first, then by score")
    dropped_terms: list[str] = Field(
        description="query words left out because no section held every word"
    )
    matched_terms: list[str]
    index: IndexFreshness


class HostEntry(DatedSection):
    kind: Literal["journal", "host_record"]


class HostNoteRef(Shape):
    key: str
    path: str
    title: str


class HostHistoryResult(Shape):
    host: str
    host_note: HostNoteRef | None
    aliases: list[str]
    entries: list[HostEntry] = Field(description="newest first")
    index: IndexFreshness


class OutlineEntry(Shape):
    level: int
    heading: str
    line: int


class NoteRead(Shape):
    key: str
    path: str
    title: str
    zone: str
    version: str = Field(description="sha256 of the file; pass as expected_version to replace")
    labels: list[str]
    text: str = Field(description="the (redacted) body, or the slice asked for")
    total_chars: int
    returned_chars: int
    truncated: bool = Field(description="true when text is not the whole selection")
    offset: int
    outline: list[OutlineEntry]
    section: str | None = None


class NoteReadError(Shape):
    key: str = Field(description="the key asked for")
    error_type: str
    message: str = Field(description="why it was not read")
    candidates: list[str]


class GetNoteResult(Shape):
    """With ``key`` a string, one note read: ``key``, ``path``, ``title``, ``zone``,
    ``version`` (pass it as expected_version to replace), ``labels``, ``text``,
    ``total_chars``, ``returned_chars``, ``truncated``, ``offset``, ``outline``,
    ``section``. With a list, ``notes`` (each such a read) and ``errors``."""

    # The single-note fields are not declared again: NoteRead's schema twice (and each
    # field optional) doubled this tool's listing in the full set.
    notes: list[dict[str, Any]] | None = None
    errors: list[NoteReadError] | None = None


class ListedNote(Shape):
    key: str
    path: str
    title: str
    zone: str
    labels: list[str]
    date: str | None = None
    updated: str | None = None


class NoteList(Shape):
    notes: list[ListedNote]
    total: int
    page: int
    limit: int
    label_counts: dict[str, int]


class NearDuplicate(Shape):
    key: str
    path: str
    similarity: float


class WriteResult(Shape):
    key: str
    path: str
    version: str = Field(description="the note's new version")
    created: bool
    transaction_id: str | None = Field(
        None, description="memory_undo with it puts the note's previous bytes back"
    )
    near_duplicates: list[NearDuplicate] = Field(
        description="existing notes very like this one: consider merging into them"
    )
    warnings: list[str]


class LinkedNote(Shape):
    key: str
    path: str
    title: str
    zone: str


class OutboundLink(LinkedNote):
    target: str = Field(description="the link target as written in the note")


class UnresolvedLink(Shape):
    target: str
    candidates: list[str] = Field(description="notes an ambiguous target matches")


class Neighbour(LinkedNote):
    score: float


class RelatedNotes(LinkedNote):
    outbound: list[OutboundLink]
    backlinks: list[LinkedNote]
    unresolved: list[UnresolvedLink]
    neighbours: list[Neighbour] = Field(
        description="notes sharing this note's words but not linked either way"
    )


class Move(Shape):
    from_: str = Field(alias="from")
    to: str


class MoveResult(Shape):
    mode: Literal["preview", "applied"]
    key: str
    path: str
    plan_id: str | None = None
    moves: list[Move] | None = None
    warnings: list[str] | None = None
    transaction_id: str | None = Field(None, description="pass to memory_undo to reverse it")
    state: str | None = None
    paths: list[str] | None = None
    previous_path: str | None = None


class UndoResult(Shape):
    transactions: list[dict[str, Any]] | None = Field(
        None, description="recent journaled operations, newest first (when listing)"
    )
    transaction_id: str | None = None
    state: str | None = None
    operation: str | None = None
    paths: list[str] | None = None
    description: str | None = Field(
        None, description="what was (or, in a preview, would be) undone, in one line"
    )


class UsageResult(Shape):
    key: str
    path: str
    zone: str
    accesses: int
    multiplier: float = Field(description="the note's ranking factor now (1.0 = no lift)")


class Diagnostic(Shape):
    code: str
    message: str
    path: str
    line: int | None = None


class StatusResult(Shape):
    vault: str
    notes: int
    archived: int
    zones: dict[str, int]
    index: IndexFreshness
    warnings: list[Diagnostic]
    engine_warnings: list[str]
    mode: str = Field(description="lexical or hybrid")
    evidence_required: bool = Field(description="every write must give a source")
    read_only: bool = Field(description="this server offers no write tools")


class Expansions(BaseModel):
    """Extra words scored below the query's own (0.6, 0.5, 0.35, 0.25 of a query word)."""

    model_config = ConfigDict(extra="forbid")

    synonyms: list[Annotated[str, Field(max_length=MAX_EXPANSION_CHARS)]] = Field(
        default_factory=list, max_length=MAX_EXPANSION_ITEMS
    )
    keywords: list[Annotated[str, Field(max_length=MAX_EXPANSION_CHARS)]] = Field(
        default_factory=list, max_length=MAX_EXPANSION_ITEMS
    )
    related: list[Annotated[str, Field(max_length=MAX_EXPANSION_CHARS)]] = Field(
        default_factory=list, max_length=MAX_EXPANSION_ITEMS
    )
    note_line: str | None = Field(None, max_length=MAX_EXPANSION_CHARS)
