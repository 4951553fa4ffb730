"""Read one note file into what the index needs: metadata, sections and field terms.

The pipeline per file: read bytes (size limit, binary check, UTF-8 with a warning on
invalid bytes) -> split frontmatter -> **redact the body** (nothing after this point
ever sees a secret) -> parse Markdown sections -> tokenize the fields of each section.
Offsets of sections refer to the redacted body, so snippets can be cut from it again
without re-parsing.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import hashlib
import posixpath
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .config import VaultConfig
from .diagnostics import Diagnostic
from .errors import LabelError
from .frontmatter import parse_frontmatter
from .labels import normalize_label
from .markdown import Section, parse_markdown
from .redact import LOOKUP_FAMILIES, Redactor, lookup_term
from .reflexes import REFLEX_HEADINGS, reflexes_of
from .tokenizer import MONTH_NAMES, STOPWORDS, tokenize
from .vault_paths import ARCHIVE_DIR, zone_of

__all__ = ["NoteDoc", "SectionDoc", "index_terms", "parse_note_bytes", "read_note", "redacted_body"]

_BINARY_SNIFF = 8192
_DATE_IN_NAME = re.compile(r"(\d{4}-\d{2}-\d{2})")
_MONTH_IN_NAME = re.compile(r"(?<!\d)\d{4}-(0[1-9]|1[0-2])(?!\d)")
# A dated note is also found by its month's name (``tokenizer.MONTH_NAMES``): "March
# ops log" finds "2026-03-betriebstagebuch.md". CJK months are written with digits
# ("3月", "3월") and already meet the date's own terms.
# A section is stale (superseded) when its heading, or the start of its first non-blank
# line ("> **Deprecated:** use ...", "Status: obsolete", "DO NOT USE"), says so, in any
# of the vault languages the tokenizer knows.
_STALE_WORDS = re.compile(
    r"\b(?:superseded|deprecated|obsolete|outdated|no longer (?:valid|true|used|in use)"
    r"|do not use|don't use|replaced by"
    r"|veraltet|überholt|abgelöst|ersetzt durch|nicht mehr (?:gültig|verwenden|benutzen)"
    r"|obsolet[oa]s?|desactualizad[oa]s?|reemplazad[oa]s? por|sustituid[oa]s? por|en desuso"
    r"|no usar|ya no se usa|obsolète|remplacée? par)\b"
    r"|폐기|구버전|더 이상 사용하지|사용 중단|대체됨"
    r"|廃止|非推奨|旧手順|使用しない|使わない"
    r"|已废弃|废弃|已过时|过时|弃用|不再使用|已被取代",
    re.IGNORECASE,
)
_LEAD_MARKUP = re.compile(
    r"^[\s>*_\-\[\]!:]*(?:(?:status|note|warning|hinweis|nota|estado)\W+)?", re.IGNORECASE
)
# how far into the first line a marker may stand
_STALE_LEAD_CHARS = 24


def _marks_stale(heading: str | None, text: str) -> bool:
    """Whether a section's heading or the start of its first non-blank line below the
    heading marks it (``text`` is the section from its heading line on)."""
    if heading and _STALE_WORDS.search(heading):
        return True
    for line in text.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            lead = line[_LEAD_MARKUP.match(line).end() :]
            found = _STALE_WORDS.search(lead)
            return found is not None and found.start() <= _STALE_LEAD_CHARS
    return False


_LINK_ALIAS_RE = re.compile(r"\[\[([^\[\]|\n]+)\|[^\[\]\n]+\]\]")
_STALE_STATUS = frozenset({"superseded", "deprecated", "obsolete", "outdated", "archived", "stale"})


@dataclass
class SectionDoc:
    heading: str
    chain: tuple[str, ...]
    start: int
    end: int
    line: int
    body_tf: Counter
    heading_tf: Counter
    body_len: int
    heading_len: int
    stale: bool = False


@dataclass
class NoteDoc:
    path: str
    mtime_ns: int
    size: int
    version: str
    title: str
    zone: str
    archived: bool
    note_type: str | None
    tags: list[str]
    labels: list[str]
    date: str | None
    created: str | None
    updated: str | None
    stale: bool
    superseded_by: str | None
    links: list[str]
    title_tf: Counter
    tags_tf: Counter
    sections: list[SectionDoc] = field(default_factory=list)
    warnings: list[Diagnostic] = field(default_factory=list)
    indexed: bool = True  # False when the file was skipped (binary, too large, unreadable)
    body_offset: int = (
        0  # where the body starts in the decoded text (section offsets are from here)
    )
    aliases: list[str] = field(default_factory=list)  # frontmatter aliases (redacted)
    # declared reflex triggers, ``[kind, value]`` (``reflexes.reflexes_of``; redacted)
    reflexes: list[list[str]] = field(default_factory=list)


def index_terms(text: str) -> list[str]:
    """Terms as the index stores them: ``tokenize`` minus stopwords.

    Stopwords are left out of the index: they are a quarter of all postings and the
    longest lists, while BM25 gives them almost no weight (their idf is near zero).
    """
    return [t for t in tokenize(text) if t not in STOPWORDS]


def _length(counts) -> int:
    """A field's BM25 length: its terms, less single Han/kana characters.

    A CJK run is indexed as the run, its characters and its bigrams; counting every
    character again made a Chinese or Japanese section look three times as long as an
    English one saying as much, so an English word in it scored far lower.
    """
    return sum(n for term, n in counts if len(term) > 1 or term < "\u1100")


# Frontmatter keys whose values are not searched words: they are the title, tags and
# aliases (fields of their own), labels, dates, states, the note type and where the
# content came from. The values of every other key ("owner: alice", "ip: 10.0.4.12",
# "os: Debian 12") are searched with the tags.
_NOT_SEARCHED = frozenset(
    {
        "title",
        "tags",
        "aliases",
        "alias",
        "labels",
        "type",
        "status",
        "date",
        "created",
        "updated",
        "superseded_by",
        "reflexes",
        "source",
        "sources",
    }
)


def _field_values(raw) -> list[str]:
    """The words of a frontmatter value: a string or number, or a list of them
    (nested mappings and true/false carry no words)."""
    items = raw if isinstance(raw, list) else [raw]
    return [
        str(item).strip()
        for item in items
        if isinstance(item, (str, int, float)) and not isinstance(item, bool) and str(item).strip()
    ]


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def _as_date(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()[:10]
    match = re.match(r"\s*(\d{4}-\d{2}-\d{2})", str(value))
    return match.group(1) if match else None


def _title_from_name(path: str) -> str:
    stem = posixpath.splitext(posixpath.basename(path))[0]
    return re.sub(r"[-_]+", " ", stem).strip() or stem


def _note_type(meta: dict, path: str, type_rules) -> str | None:
    declared = meta.get("type")
    if isinstance(declared, str) and declared.strip():
        return declared.strip()
    return VaultConfig(type_rules=tuple(type_rules)).type_for(path)


def _skipped(path: str, mtime_ns: int, size: int, version: str, diag: Diagnostic) -> NoteDoc:
    return NoteDoc(
        path=path,
        mtime_ns=mtime_ns,
        size=size,
        version=version,
        title=_title_from_name(path),
        zone=zone_of(path),
        archived=path.startswith(ARCHIVE_DIR + "/"),
        note_type=None,
        tags=[],
        labels=[],
        date=None,
        created=None,
        updated=None,
        stale=False,
        superseded_by=None,
        links=[],
        title_tf=Counter(),
        tags_tf=Counter(),
        warnings=[diag],
        indexed=False,
    )


def decode_note(data: bytes) -> tuple[str, bool]:
    """Decode note bytes as UTF-8; invalid bytes become U+FFFD. Returns (text, was_valid)."""
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="replace"), False


def redacted_body(data: bytes, redactor: Redactor) -> str:
    """The redacted body text of a note."""
    text, _ = decode_note(data)
    return redactor.redact(parse_frontmatter(text).body)


def _section_redaction(redactor: Redactor, findings: list):
    """(memoized redact for headings, whether a span [start, end) holds a finding)."""
    if not findings:
        return (lambda text: text), (lambda start, end: False)
    memo: dict[str, str] = {}

    def redact(text: str) -> str:
        out = memo.get(text)
        if out is None:
            out = memo[text] = redactor.redact(text)
        return out

    # ``findings`` are sorted and disjoint, so their ends ascend too.
    starts = [start for _, start, _ in findings]
    ends = [end for _, _, end in findings]

    def touched(start: int, end: int) -> bool:
        i = bisect.bisect_right(ends, start)
        return i < len(starts) and starts[i] < end

    return redact, touched


def parse_note_bytes(
    path: str,
    data: bytes,
    *,
    mtime_ns: int,
    redactor: Redactor,
    type_rules=(),
    max_file_bytes: int | None = None,
) -> NoteDoc:
    """Parse one note's bytes. Never raises on bad content: problems become warnings."""
    size = len(data)
    version = hashlib.sha256(data).hexdigest()
    if max_file_bytes is not None and size > max_file_bytes:
        return _skipped(
            path,
            mtime_ns,
            size,
            version,
            Diagnostic(
                "too_large",
                f"skipped: {size:,} bytes is over the {max_file_bytes:,}-byte limit "
                "(raise max_file_bytes in .mnemosyne/config.json or split the note)",
                path,
            ),
        )
    if b"\x00" in data[:_BINARY_SNIFF]:
        return _skipped(
            path,
            mtime_ns,
            size,
            version,
            Diagnostic("binary_file", "skipped: looks binary (NUL bytes), not Markdown text", path),
        )
    text, valid = decode_note(data)
    warnings: list[Diagnostic] = []
    if not valid:
        warnings.append(
            Diagnostic(
                "not_utf8", "invalid UTF-8 bytes were replaced with U+FFFD; re-save as UTF-8", path
            )
        )
    fm = parse_frontmatter(text)
    warnings.extend(
        Diagnostic(w.code, redactor.redact(w.message), path, w.line) for w in fm.warnings
    )
    meta = fm.data if isinstance(fm.data, dict) else {}
    # Sections are cut from the raw body (offsets stay valid for later reads) and each
    # section is redacted before it is tokenized; a secret never spans a heading.
    body = fm.body
    md = parse_markdown(body)
    # Lines inside the body are offset by the frontmatter block in the file.
    line_shift = fm.body_offset and text.count("\n", 0, fm.body_offset)
    warnings.extend(
        Diagnostic(
            w.code, redactor.redact(w.message), path, (w.line + line_shift) if w.line else w.line
        )
        for w in md.warnings
    )
    note_type = _note_type(meta, path, type_rules)

    title_raw = meta.get("title")
    title = str(title_raw).strip() if title_raw not in (None, "") else (md.h1 or "").strip()
    if not title:
        title = _title_from_name(path)
    title = redactor.redact(title)
    tags = [t.lstrip("#") for t in _as_list(meta.get("tags"))]
    aliases = _as_list(meta.get("aliases")) + _as_list(meta.get("alias"))
    fields = [
        value
        for key, raw in meta.items()
        if str(key).lower() not in _NOT_SEARCHED
        for value in _field_values(raw)
    ]
    # Declared reflexes (frontmatter or a "Reflexes" section), kept for the hooks.
    reflexes = [
        [kind, redactor.redact(value)]
        for kind, value in reflexes_of(
            meta.get("reflexes"),
            (
                (sec.heading, body[sec.start : sec.end])
                for sec in md.sections
                if sec.heading.casefold() in REFLEX_HEADINGS
            ),
        )
    ]
    # A section's triggers are in its body already; the frontmatter's join the tags.
    if "reflexes" in meta:
        fields += [v for kind, v in reflexes_of(meta["reflexes"], ()) if kind != "file"]
    tags_text = redactor.redact(" ".join(tags + aliases + fields))
    labels = []
    for raw_label in _as_list(meta.get("labels")):
        try:
            labels.append(normalize_label(redactor.redact(raw_label)))
        except LabelError as exc:
            message = redactor.redact(f"label ignored: {exc}")
            warnings.append(Diagnostic("invalid_label", message, path))
    labels = sorted(set(labels))
    status = str(meta.get("status", "")).strip().lower()
    superseded_by = meta.get("superseded_by")
    superseded_by = redactor.redact(str(superseded_by).strip()) if superseded_by else None
    created = _as_date(meta.get("created"))
    updated = _as_date(meta.get("updated"))
    name_date = _DATE_IN_NAME.search(posixpath.basename(path))
    date = (
        _as_date(meta.get("date"))
        or updated
        or created
        or (name_date.group(1) if name_date else None)
    )

    if date:
        month = int(date[5:7])
    else:
        month_match = _MONTH_IN_NAME.search(posixpath.basename(path))
        month = int(month_match.group(1)) if month_match else 0
    if 1 <= month <= 12:  # a frontmatter date is only checked for its shape
        tags_text += " " + MONTH_NAMES[month - 1]

    h1 = md.h1
    # Most notes hold no secret: one scan of the whole body lets their sections skip
    # redaction. In a note with findings, only the sections a finding falls in have
    # their text redacted; headings (few distinct ones: a chain repeats its parents)
    # are redacted through a memo. Redacting every section and every chain element
    # anew cost a 100,000-heading note with one secret five scans a section.
    findings = redactor.findings(body)
    redact, touched = _section_redaction(redactor, findings)
    # A hidden run id or commit id stays findable by value: its section holds the
    # value's digest as a term (``redact.lookup_term``), never the value.
    lookups = [
        (start, lookup_term(family, body[start:end]))
        for family, start, end in findings
        if family in LOOKUP_FAMILIES
    ]
    sections: list[SectionDoc] = []
    # A note with no body (frontmatter only, empty) still gets one empty section, so
    # its title, tags and file name make it findable.
    md_sections = md.sections or (Section("", (), 0, 0, len(body), 1, 0),)
    for sec in md_sections:
        chain = tuple(sec.chain)
        # The H1 is the note's title field; keep it out of the headings field so a
        # title word is not counted twice in every section.
        own = chain[1:] if (h1 is not None and chain and chain[0] == h1) else chain
        text = body[sec.start : sec.end]
        if touched(sec.start, sec.end):
            text = redactor.redact(text)
            heading = redact(sec.heading)
        else:
            # A heading spelled out in a span the scan found clean is clean.
            heading = sec.heading if sec.heading in text else redact(sec.heading)
        raw_heading = sec.heading
        chain = tuple(heading if c == raw_heading else redact(c) for c in chain)
        own = tuple(heading if c == raw_heading else redact(c) for c in own)
        heading_terms = index_terms(" ".join(own)) if own else []
        section_text = text
        body_tf = Counter(index_terms(_LINK_ALIAS_RE.sub(r"\1", text)))
        if lookups and touched(sec.start, sec.end):
            body_tf.update(term for start, term in lookups if sec.start <= start < sec.end)
        # The section's own heading line (or the H1 in the lead section) is counted in
        # the headings (or title) field, not a second time in the body.
        own_line = heading or (redact(h1) if h1 else None)
        if own_line and sec.part <= 1:
            for term in index_terms(own_line):
                left = body_tf.get(term, 0) - 1
                if left > 0:
                    body_tf[term] = left
                else:
                    body_tf.pop(term, None)
        body_len = _length(body_tf.items())
        sections.append(
            SectionDoc(
                heading=heading,
                chain=chain,
                start=sec.start,
                end=sec.end,
                line=sec.line + line_shift,
                body_tf=body_tf,
                heading_tf=Counter(heading_terms),
                body_len=body_len,
                heading_len=_length((t, 1) for t in heading_terms),
                stale=_marks_stale(own[-1] if own else None, section_text)
                if sec.part <= 1
                else bool(own and _STALE_WORDS.search(own[-1])),
            )
        )
    return NoteDoc(
        path=path,
        mtime_ns=mtime_ns,
        size=size,
        version=version,
        title=title,
        zone=zone_of(path),
        archived=path.startswith(ARCHIVE_DIR + "/"),
        note_type=redactor.redact(note_type) if note_type else None,
        tags=tags + aliases,
        labels=labels,
        date=date,
        created=created,
        updated=updated,
        stale=status in _STALE_STATUS or superseded_by is not None,
        superseded_by=superseded_by,
        links=sorted({redactor.redact(link.target) for link in md.links if link.target}),
        title_tf=Counter(index_terms(title)),
        tags_tf=Counter(index_terms(tags_text)),
        sections=sections,
        warnings=warnings,
        body_offset=fm.body_offset,
        aliases=[redactor.redact(alias) for alias in aliases],
        reflexes=reflexes,
    )


def read_note(
    root: Path,
    path: str,
    *,
    redactor: Redactor,
    type_rules=(),
    max_file_bytes: int | None = None,
) -> NoteDoc:
    """Read and parse ``root / path``; an unreadable file becomes a skipped note with a warning."""
    full = root / path
    try:
        st = full.stat()
        if max_file_bytes is not None and st.st_size > max_file_bytes:
            return _skipped(
                path,
                st.st_mtime_ns,
                st.st_size,
                "",
                Diagnostic(
                    "too_large",
                    f"skipped: {st.st_size:,} bytes is over the {max_file_bytes:,}-byte limit "
                    "(raise max_file_bytes in .mnemosyne/config.json or split the note)",
                    path,
                ),
            )
        with open(full, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return _skipped(
            path, 0, 0, "", Diagnostic("unreadable", f"skipped: cannot read ({exc.strerror})", path)
        )
    return parse_note_bytes(
        path,
        data,
        mtime_ns=st.st_mtime_ns,
        redactor=redactor,
        type_rules=type_rules,
        max_file_bytes=max_file_bytes,
    )


def parse_batch(
    root: str,
    paths: list[str],
    redaction_disabled: tuple[str, ...],
    secret_hashes: str | None,
    type_rules: tuple,
    max_file_bytes: int | None,
) -> list[NoteDoc]:
    """Parse many notes (a worker-process entry point for large rebuilds)."""
    from .redact import Redactor, load_secret_hashes

    hashes = load_secret_hashes(secret_hashes) if secret_hashes else None
    redactor = Redactor(redaction_disabled, hashes)
    base = Path(root)
    return [
        read_note(
            base, path, redactor=redactor, type_rules=type_rules, max_file_bytes=max_file_bytes
        )
        for path in paths
    ]
