"""Note text for ``VaultMemory``: checking input, building and editing notes, reading parts.

Pure functions (no I/O, no clock): ``memory`` reads the bytes, calls these, and writes the
result with ``atomic``. Keeping them apart keeps the facade about *when* and *under which
lock* something is written, and this module about *what* is written.

Conventions (documented for users in docs/reference/notes.md):

* A new note is ``<frontmatter>\\n<body>\\n`` with ``\\n`` line endings; an edited note keeps
  the line-ending style of its first line break.
* Times are UTC, written ``YYYY-MM-DDTHH:MM:SSZ``.
* ``append`` adds ``## YYYY-MM-DD``; when the note already has a heading with that date,
  ``## YYYY-MM-DD HH:MM`` (repeated headings are allowed after that).
"""

from __future__ import annotations

import datetime as dt
import difflib
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping

from .document import decode_note, index_terms
from .errors import (
    AmbiguousKeyError,
    InvalidInputError,
    InvalidPathError,
    LabelError,
    NoteNotFoundError,
)
from .frontmatter import Frontmatter, parse_frontmatter, render_frontmatter, set_frontmatter_key
from .labels import matches_labels, normalize_label, normalize_labels
from .markdown import Heading, parse_markdown
from .vault_paths import ARCHIVE_DIR, check_note_path, note_stem, slugify

__all__ = [
    "ARCHIVE_PREFIX",
    "DEFAULT_MAX_NOTE_BYTES",
    "DEFAULT_NOTE_TYPE",
    "NEAR_DUPLICATE_JACCARD",
    "OUTLINE_MIN_CHARS",
    "OUTLINE_MIN_HEADINGS",
    "KeyIndex",
    "append_to_note",
    "archived_matches",
    "check_body",
    "check_links",
    "check_size",
    "check_strings",
    "check_title",
    "clean_key",
    "distinctive_query",
    "fold_name",
    "iso_utc",
    "jaccard",
    "new_note_text",
    "note_labels",
    "note_title",
    "outline_of",
    "parse_note",
    "plan_id",
    "relabel",
    "replace_note_body",
    "heading_span",
    "section_span",
    "term_set",
    "without_md",
]

# A note is text an agent reads whole: 1 MiB is ~250k tokens, far past any context
# window, so a larger write is almost surely a mistake (a log, a binary). Configurable
# as budgets.max_note_bytes in .mnemosyne/config.json.
DEFAULT_MAX_NOTE_BYTES = 1024 * 1024
DEFAULT_NOTE_TYPE = "note"
# get_note adds an outline unasked when a note has more headings than this ...
OUTLINE_MIN_HEADINGS = 4
# ... or more characters than this (~1,000 tokens: past that, reading a section is cheaper).
OUTLINE_MIN_CHARS = 4000
# Two notes whose index-term sets share at least half their union (Jaccard >= 0.5) are
# reported as near-duplicates. A rewrite of the same fact in new words usually keeps
# more than half its content terms; two notes on one topic that say different things
# usually share well under half. A first guess, to be checked on the benchmark vaults.
NEAR_DUPLICATE_JACCARD = 0.5
MAX_TITLE_CHARS = 300
MAX_ITEM_CHARS = 2000  # one tag, source or link

_DRIVE_RE = re.compile(r"^[A-Za-z]:[\\/]")
_NEWLINE_RE = re.compile(r"\r\n?")


# --- input checks ----------------------------------------------------------------------


def _one_line(value: str, what: str) -> None:
    if "\x00" in value:
        raise InvalidInputError(f"{what} contains a NUL character; remove it")
    for char in value:
        if unicodedata.category(char) in ("Cc", "Zl", "Zp") and char != "\t":
            raise InvalidInputError(
                f"{what} must be one line without control characters, got {value[:60]!r}"
            )


def check_title(title: object) -> tuple[str, str]:
    """Return ``(title, slug)`` for a new note, or raise a message saying what to change.

    A title is one line of text. It may contain ``/`` ("CI/CD pipeline") but must not
    look like a path (``../x``, ``/etc/x``, ``C:\\x``): the folder is chosen with ``zone``.
    """
    if not isinstance(title, str) or not title.strip():
        raise InvalidInputError(
            "the title is empty — give the note a short title, e.g. 'Restore the database'"
        )
    title = unicodedata.normalize("NFC", title.strip())
    _one_line(title, "the title")
    if len(title) > MAX_TITLE_CHARS:
        raise InvalidInputError(
            f"the title is {len(title)} characters; the limit is {MAX_TITLE_CHARS} — "
            "shorten it and put the rest in the body"
        )
    parts = re.split(r"[\\/]", title)
    if (
        title[0] in "/\\~"
        or _DRIVE_RE.match(title)
        or any(part.strip() in (".", "..") for part in parts)
    ):
        raise InvalidPathError(
            f"the title {title!r} looks like a path — give a plain title such as "
            "'Restore notes' and choose the folder with zone='ops'",
            rule="traversal",
        )
    slug = slugify(title)
    if not slug:
        raise InvalidInputError(
            f"the title {title!r} has no letters or digits to name a file after — "
            "use a title with at least one word"
        )
    return title, slug


def check_body(body: object, *, max_bytes: int, allow_empty: bool = False) -> str:
    """The body with ``\\n`` line endings; refuses non-text, empty (or only white space)
    unless ``allow_empty`` (a replacement that deletes), NUL bytes and oversize bodies."""
    if not isinstance(body, str):
        raise InvalidInputError(f"the body must be text (str), got {type(body).__name__}")
    if not body.strip() and not allow_empty:
        raise InvalidInputError(
            "the body is empty — pass the text the note should hold (to archive a note, use forget)"
        )
    if "\x00" in body:
        raise InvalidInputError(
            "the body contains a NUL character (binary data?) — notes are Markdown text"
        )
    check_size(len(body.encode("utf-8", "surrogatepass")), max_bytes, "the body")
    return _NEWLINE_RE.sub("\n", body)


def check_size(size: int, max_bytes: int, what: str) -> None:
    if size > max_bytes:
        raise InvalidInputError(
            f"{what} would be {size:,} bytes; the limit is {max_bytes:,} "
            "(budgets.max_note_bytes in .mnemosyne/config.json) — split it into several notes"
        )


def check_strings(value: object, what: str, *, split_commas: bool = False) -> list[str]:
    """A list of one-line strings from ``None``, a string or an iterable (order kept, deduped)."""
    if value is None:
        return []
    if isinstance(value, str):
        items: Iterable = value.split(",") if split_commas else [value]
    elif isinstance(value, (bytes, dict)) or not isinstance(value, Iterable):
        raise InvalidInputError(f"{what} must be a list of strings, got {type(value).__name__}")
    else:
        items = value
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise InvalidInputError(f"{what} must be strings, got {type(item).__name__} {item!r}")
        item = unicodedata.normalize("NFC", item.strip())
        if not item:
            continue
        _one_line(item, f"an entry of {what}")
        if len(item) > MAX_ITEM_CHARS:
            raise InvalidInputError(
                f"an entry of {what} is {len(item)} characters; the limit is {MAX_ITEM_CHARS}"
            )
        if item not in out:
            out.append(item)
    return out


def check_links(links: object) -> list[str]:
    """Link targets (note keys or titles) that can sit inside ``[[...]]``."""
    targets = check_strings(links, "links")
    for target in targets:
        if any(bracket in target for bracket in "[]"):
            raise InvalidInputError(
                f"link {target!r} contains '[' or ']' — give the target only, e.g. 'restore-db'"
            )
    return targets


def iso_utc(now: float) -> str:
    if not isinstance(now, (int, float)) or isinstance(now, bool) or not math.isfinite(now):
        raise InvalidInputError(f"now must be a finite unix time in seconds, got {now!r}")
    moment = dt.datetime.fromtimestamp(now, dt.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- building and editing ----------------------------------------------------------------


def _newline_of(text: str) -> str:
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def _with_newline(text: str, newline: str) -> str:
    return text if newline == "\n" else text.replace("\n", newline)


def _related(links: list[str]) -> str:
    return "## Related\n\n" + "".join(f"- [[{link}]]\n" for link in links)


def _body_block(body: str, links: list[str]) -> str:
    """A body ending in exactly one line break, with the ``## Related`` list if any."""
    text = body.strip("\n")
    if links:
        text = (text + "\n\n" if text else "") + _related(links).rstrip("\n")
    return text + "\n" if text else ""


def new_note_text(
    *,
    title: str,
    body: str,
    note_type: str,
    tags: list[str],
    labels: list[str],
    sources: list[str],
    links: list[str],
    now: float,
) -> str:
    stamp = iso_utc(now)
    front = render_frontmatter(
        {
            "title": title,
            "type": note_type,
            "created": stamp,
            "updated": stamp,
            "tags": tags,
            "labels": labels,
            "sources": sources,
        }
    )
    block = _body_block(body, links)
    return front + ("\n" + block if block else "")


def _merge(existing: object, extra: list[str]) -> list[str]:
    values = existing if isinstance(existing, list) else [] if existing is None else [existing]
    out = [str(v) for v in values if v is not None and str(v).strip()]
    for item in extra:
        if item not in out:
            out.append(item)
    return out


def _set_fields(text: str, fields: dict, warnings: list[str]) -> str:
    """``set_frontmatter_key`` for each field; an invalid block is left alone with a warning."""
    for key, value in fields.items():
        try:
            text = set_frontmatter_key(text, key, value)
        except InvalidInputError as exc:
            warnings.append(f"frontmatter not updated: {exc}")
            break
    return text


def _field_updates(
    fm: Frontmatter,
    *,
    now: float,
    note_type: str | None,
    tags: list[str] | None,
    labels: list[str] | None,
    sources: list[str],
    merge: bool,
) -> dict:
    fields: dict = {}
    if note_type is not None:
        fields["type"] = note_type
    if tags is not None:
        fields["tags"] = _merge(fm.data.get("tags"), tags) if merge else tags
    if labels is not None:
        if merge:
            current, _ = note_labels(fm.data)
            labels = normalize_labels([*current, *labels])
        fields["labels"] = labels
    if sources:
        fields["sources"] = _merge(fm.data.get("sources"), sources)
    if fm.present or fields:
        fields["updated"] = iso_utc(now)
    return fields


def append_to_note(
    text: str,
    body: str,
    *,
    now: float,
    links: list[str],
    note_type: str | None = None,
    tags: list[str] | None = None,
    labels: list[str] | None = None,
    sources: list[str] = (),
    warnings: list[str],
) -> str:
    """``text`` plus a dated ``##`` section holding ``body`` (line endings kept)."""
    fm = parse_frontmatter(text)
    day = iso_utc(now)[:10]
    taken = {h.text for h in parse_markdown(fm.body).headings if h.level == 2}
    heading = day if day not in taken else f"{day} {iso_utc(now)[11:16]}"
    section = f"## {heading}\n\n" + body.strip("\n") + "\n"
    if links:
        section += "\nRelated: " + ", ".join(f"[[{link}]]" for link in links) + "\n"
    newline = _newline_of(text)
    if text and not text.endswith("\n"):
        text += newline
    gap = "" if not fm.body.strip() or text.endswith(newline * 2) else newline
    text = text + gap + _with_newline(section, newline)
    fields = _field_updates(
        fm,
        now=now,
        note_type=note_type,
        tags=tags,
        labels=labels,
        sources=list(sources),
        merge=True,
    )
    return _set_fields(text, fields, warnings)


def replace_note_body(
    text: str,
    body: str,
    *,
    now: float,
    links: list[str],
    note_type: str | None = None,
    tags: list[str] | None = None,
    labels: list[str] | None = None,
    sources: list[str] = (),
    warnings: list[str],
) -> str:
    """``text`` with its body replaced; frontmatter kept byte for byte except given fields."""
    fm = parse_frontmatter(text)
    head = text[: fm.body_offset]
    block = _body_block(body, links)
    if fm.present and block:
        block = "\n" + block
    text = head + _with_newline(block, _newline_of(text))
    fields = _field_updates(
        fm,
        now=now,
        note_type=note_type,
        tags=tags,
        labels=labels,
        sources=list(sources),
        merge=False,
    )
    return _set_fields(text, fields, warnings)


# --- reading -----------------------------------------------------------------------------


def note_labels(data: dict) -> tuple[list[str], list[str]]:
    """``(valid labels normalized, malformed raw labels)`` of a frontmatter mapping."""
    raw = data.get("labels")
    if raw is None:
        return [], []
    items = raw.split(",") if isinstance(raw, str) else raw if isinstance(raw, list) else [raw]
    valid, bad = set(), []
    for item in items:
        if item is None or (isinstance(item, str) and not item.strip()):
            continue
        try:
            valid.add(normalize_label(str(item)))
        except LabelError:
            bad.append(str(item))
    return sorted(valid), bad


def relabel(
    data: dict,
    *,
    clear: bool,
    replacement: list[str] | None,
    added: list[str],
    removed: list[str],
) -> tuple[list[str], list[str], list[str]]:
    """``(current, new, malformed)`` label sets of a note after a label operation.

    Order: start from the current set (empty with ``clear``, ``replacement`` with
    ``set=``), add ``added``, then drop every label matching one in ``removed``
    (namespace exact, value caseless, as filters compare).
    """
    current, malformed = note_labels(data)
    start = [] if clear else current if replacement is None else replacement
    new = [
        label
        for label in normalize_labels([*start, *added])
        if not any(matches_labels([label], [gone]) for gone in removed)
    ]
    return current, new, malformed


def note_title(data: dict, h1: str | None, path: str) -> str:
    """The note's title as the index sees it: frontmatter ``title``, else the H1, else the name."""
    raw = data.get("title")
    if raw not in (None, ""):
        return str(raw).strip()
    if h1 and h1.strip():
        return h1.strip()
    stem = path.rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.lower().endswith(".md") else stem
    return re.sub(r"[-_]+", " ", stem).strip() or stem


def outline_of(headings: Iterable[Heading], line_shift: int, redact) -> list[dict]:
    return [
        {"level": h.level, "heading": redact(h.text), "line": h.line + line_shift} for h in headings
    ]


def heading_span(body: str, headings: tuple[Heading, ...], index: int) -> tuple[int, int]:
    """``(start, end)`` in ``body`` of the section under ``headings[index]``: from its
    heading line to the next heading of the same or a higher level (its subsections
    included), the span ``get_note(section=)`` reads and ``replace_section`` rewrites."""
    heading = headings[index]
    line_starts = [0] + [m.end() for m in re.finditer("\n", body)]
    end = len(body)
    for later in headings[index + 1 :]:
        if later.level <= heading.level:
            end = line_starts[later.line - 1]
            break
    return line_starts[heading.line - 1], end


def section_span(body: str, headings: tuple[Heading, ...], name: str, redact) -> tuple[int, int]:
    """``(start, end)`` of the section under heading ``name`` (case-insensitive, exact).

    The section runs to the next heading of the same or a higher level. Raises
    ``NoteNotFoundError`` listing the headings when none matches.
    """
    wanted = unicodedata.normalize("NFC", str(name)).strip().casefold()
    for i, heading in enumerate(headings):
        if wanted in (heading.text.casefold(), redact(heading.text).casefold()):
            return heading_span(body, headings, i)
    names = [redact(h.text) for h in headings]
    listing = ", ".join(repr(n) for n in names[:30]) if names else "it has no headings"
    raise NoteNotFoundError(f"no section {name!r} — headings: {listing}", candidates=names[:30])


# --- names and keys ----------------------------------------------------------------------

ARCHIVE_PREFIX = ARCHIVE_DIR + "/"
MAX_KEY_CHARS = 1024
# Path rules that make a key argument an error rather than "not a path, try it as a key".
_HARD_PATH_RULES = frozenset({"traversal", "absolute", "backslash", "hidden", "reserved", "empty"})


def without_md(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def clean_key(key_or_path: object) -> str:
    """A key or path argument, stripped and NFC-normalized; refuses empty or absurd input."""
    if not isinstance(key_or_path, str) or not key_or_path.strip():
        raise InvalidInputError("give a note key or path, e.g. 'restore-db' or 'ops/restore-db.md'")
    raw = unicodedata.normalize("NFC", key_or_path.strip())
    if "\x00" in raw or len(raw) > MAX_KEY_CHARS:
        raise InvalidInputError(f"not a note key: {raw[:60]!r}")
    return raw


def fold_name(name: str) -> str:
    """A title or alias as key resolution compares it: NFC, caseless, spaces collapsed.

    Caseless matching after the Unicode recipe (normalise, casefold, normalise again), so
    "Straße", "STRASSE" and a decomposed "Straße" name the same note.
    """
    folded = unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())
    return " ".join(folded.split())


def _by_name(names: Mapping[str, Iterable[str]], paths) -> dict[str, set[str]]:
    """folded title/alias -> the paths (of ``paths``) whose note has that name."""
    found: dict[str, set[str]] = {}
    for path in paths:
        for name in names.get(path, ()):
            if isinstance(name, str) and name.strip():
                found.setdefault(fold_name(name), set()).add(path)
    return found


class KeyIndex:
    """Strict lookup of live notes over the engine's ``path -> key`` map.

    ``lookup`` tries, in order: the exact path (``.md`` optional), the exact key, then a
    case-insensitive match of key, path without ``.md`` or file-name stem, then an exact
    title or alias (compared by ``fold_name``: case-insensitive, NFC). A match naming
    several notes is ``AmbiguousKeyError`` with the paths as candidates; no substring
    or fuzzy match is ever taken (``close_keys`` only feeds error messages).

    ``names`` gives ``path -> (title, *aliases)`` (``Mnemosyne.note_names``); it is
    called only when a name gets past the key tiers.
    """

    def __init__(
        self,
        keys: dict[str, str],
        names: Callable[[], Mapping[str, Iterable[str]]] | None = None,
    ) -> None:
        self.keys = keys
        self.by_key = {key: path for path, key in keys.items()}
        folded: dict[str, set[str]] = {}
        for path, key in keys.items():
            for name in (key, without_md(path), note_stem(path)):
                folded.setdefault(name.casefold(), set()).add(path)
        self.folded = folded
        self._names = names
        self._titles: dict[str, set[str]] | None = None

    def lookup(self, raw: str) -> str | None:
        if raw == ARCHIVE_DIR or raw.startswith(ARCHIVE_PREFIX):
            raise NoteNotFoundError(
                f"{raw} is archived", fix="bring it back with {restore} to read or change it"
            )
        if "/" in raw or "\\" in raw or raw.lower().endswith(".md"):
            try:
                path = check_note_path(raw if raw.lower().endswith(".md") else raw + ".md")
            except InvalidPathError as exc:
                if exc.rule in _HARD_PATH_RULES:
                    raise
                path = None  # e.g. "what is 2/3?": not a path, maybe a key
            if path in self.keys:
                return path
        if raw in self.by_key:
            return self.by_key[raw]
        matches = self.folded.get(raw.casefold(), set()) | self.folded.get(
            without_md(raw).casefold(), set()
        )
        if len(matches) > 1:
            paths = sorted(matches)
            raise AmbiguousKeyError(
                f"{raw!r} names {len(paths)} notes: {', '.join(paths)} — pass the path of the "
                "one you mean",
                candidates=paths,
            )
        if matches:
            return next(iter(matches))
        return self._by_title(raw)

    def _by_title(self, raw: str) -> str | None:
        if self._names is None:
            return None
        if self._titles is None:
            self._titles = _by_name(self._names(), self.keys)
        matches = sorted(self._titles.get(fold_name(raw), ()))
        if len(matches) > 1:
            raise AmbiguousKeyError(
                f"{raw!r} is the title or alias of {len(matches)} notes: {', '.join(matches)} "
                "— pass the key or path of the one you mean",
                candidates=matches,
            )
        return matches[0] if matches else None

    def close_keys(self, raw: str, n: int = 5) -> list[str]:
        """Up to ``n`` keys that look like ``raw`` (difflib), for a not-found message."""
        folded = {key.casefold(): key for key in self.by_key}
        close = difflib.get_close_matches(raw.casefold(), folded, n=n, cutoff=0.6)
        return [folded[key] for key in close]


def archived_matches(
    raw: str, archived: list[str], names: Mapping[str, Iterable[str]] | None = None
) -> list[str]:
    """Archived paths that ``raw`` names: the ``_archive/`` path, the original path, or
    (case-insensitively) the original path without ``.md`` or the file-name stem; failing
    those, an archived note whose title or alias (``names``: path -> names) it is."""
    name = without_md(raw)
    if name.startswith(ARCHIVE_PREFIX):
        name = name[len(ARCHIVE_PREFIX) :]
    try:
        check_note_path(name + ".md")
    except InvalidPathError as exc:
        if exc.rule in _HARD_PATH_RULES:
            raise  # traversal and friends are errors here too
        name = None  # "what?" cannot be a path; it may still be a title
    if name is not None:
        exact = f"{ARCHIVE_PREFIX}{name}.md"
        if exact in archived:
            return [exact]
        folded = name.casefold()
        found = sorted(
            p
            for p in archived
            if without_md(p[len(ARCHIVE_PREFIX) :]).casefold() == folded
            or note_stem(p).casefold() == folded
        )
        if found:
            return found
    if names is None:
        return []
    return sorted(_by_name(names, archived).get(fold_name(raw), ()))


def plan_id(files: Iterable) -> str:
    """A plan's id: a hash of every planned file's path and before/after bytes, so the
    same plan made again gives the same id and a plan over changed files a new one."""
    digest = hashlib.sha256()
    for change in files:
        row = [
            change.path,
            hashlib.sha256(change.before).hexdigest() if change.before is not None else None,
            hashlib.sha256(change.after).hexdigest() if change.after is not None else None,
        ]
        digest.update(json.dumps(row).encode("utf-8") + b"\n")
    return digest.hexdigest()[:16]


# --- similarity --------------------------------------------------------------------------


def term_set(title: str, body: str) -> set[str]:
    """The index terms of a note, as a set (for near-duplicate similarity)."""
    return set(index_terms(title + "\n" + body))


def jaccard(a: set[str], b: set[str]) -> float:
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def distinctive_query(title: str, body: str, words: int = 24) -> str:
    """A search query for notes like this one: the title and the first distinct body terms."""
    seen: list[str] = []
    for term in index_terms(body):
        if term not in seen and len(term) > 2:
            seen.append(term)
            if len(seen) >= words:
                break
    return (title + " " + " ".join(seen)).strip()


def parse_note(data: bytes) -> tuple[str, Frontmatter]:
    text, _ = decode_note(data)
    return text, parse_frontmatter(text)
