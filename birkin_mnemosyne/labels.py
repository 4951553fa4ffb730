"""Labels: ``namespace:value`` strings kept in a note's ``labels:`` frontmatter field.

A label has two parts, split at the first colon:

* the **namespace** is ASCII, lowercased on input, and matches
  ``[a-z][a-z0-9_-]{0,31}`` (``project``, ``person``, ``lang``, ``date``);
* the **value** is any text on one line, 1-128 characters after NFC normalization and
  stripping surrounding whitespace. Its spelling is kept (``project:Atlas`` stays
  ``Atlas``); further colons belong to the value (``url:https://example.org``).

A label *set* is NFC, sorted and de-duplicated. Filters compare the namespace exactly
(it is already lowercase) and the value caselessly, so ``project:atlas`` finds a note
labelled ``project:Atlas``.

Everything here is pure: no I/O, no clock. ``suggest_labels`` proposes labels from
facts a note already states (its folder, frontmatter fields, typed links, dates,
script); it never guesses with a model. The grammar is tabulated in
docs/reference/labels.md.
"""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping

from .errors import LabelError

__all__ = [
    "EXAMPLE_LABEL",
    "MAX_NAMESPACE_CHARS",
    "MAX_VALUE_CHARS",
    "label_counts",
    "matches_labels",
    "normalize_label",
    "normalize_labels",
    "parse_label_filter",
    "split_label",
    "suggest_labels",
]

EXAMPLE_LABEL = "project:Atlas"
MAX_NAMESPACE_CHARS = 32
MAX_VALUE_CHARS = 128

_NAMESPACE_RE = re.compile(rf"[a-z][a-z0-9_-]{{0,{MAX_NAMESPACE_CHARS - 1}}}")
# Line and paragraph separators split a line as surely as "\n" does (str.splitlines).
_LINE_BREAK_CATEGORIES = {"Zl", "Zp"}
_LINE_BREAK_CONTROLS = set("\n\r\v\f\x1c\x1d\x1e\x85")


def _show(raw: str) -> str:
    """``repr`` of a label for an error message, shortened so the message stays readable."""
    return repr(raw if len(raw) <= 60 else raw[:57] + "...")


def split_label(raw: str) -> tuple[str, str]:
    """Validate one label and return its normalized ``(namespace, value)``.

    Raises ``LabelError`` naming the broken rule and showing a valid label.
    """
    if not isinstance(raw, str):
        raise LabelError(
            f"a label must be text, got {type(raw).__name__} — "
            f"write labels as namespace:value, e.g. {EXAMPLE_LABEL!r}"
        )
    text = unicodedata.normalize("NFC", raw).strip()
    if ":" not in text:
        raise LabelError(
            f"label {_show(raw)} has no ':' between namespace and value — "
            f"write labels as namespace:value, e.g. {EXAMPLE_LABEL!r}"
        )
    namespace, value = text.split(":", 1)
    namespace = namespace.strip()
    # Only ASCII is lowercased, so the namespace rule judges what the user typed rather
    # than what str.lower() makes of non-ASCII letters.
    if namespace.isascii():
        namespace = namespace.lower()
    if not _NAMESPACE_RE.fullmatch(namespace):
        raise LabelError(
            f"label {_show(raw)}: namespace {namespace!r} must be 1-{MAX_NAMESPACE_CHARS} "
            "ASCII letters, digits, '_' or '-', starting with a letter — "
            f"e.g. {EXAMPLE_LABEL!r}"
        )
    value = value.strip()
    if not value:
        raise LabelError(
            f"label {_show(raw)} has an empty value after ':' — "
            f"give the value after the namespace, e.g. {EXAMPLE_LABEL!r}"
        )
    for char in value:
        category = unicodedata.category(char)
        if char in _LINE_BREAK_CONTROLS or category in _LINE_BREAK_CATEGORIES:
            raise LabelError(
                f"label {_show(raw)}: the value must be on one line (it holds a line "
                f"break) — e.g. {EXAMPLE_LABEL!r}"
            )
        if category == "Cc":
            raise LabelError(
                f"label {_show(raw)}: the value holds the control character "
                f"U+{ord(char):04X}; remove it — e.g. {EXAMPLE_LABEL!r}"
            )
    if len(value) > MAX_VALUE_CHARS:
        raise LabelError(
            f"label {_show(raw)}: the value is {len(value)} characters, the limit is "
            f"{MAX_VALUE_CHARS} — shorten it, e.g. {EXAMPLE_LABEL!r}"
        )
    return namespace, value


def normalize_label(raw: str) -> str:
    """Return the canonical spelling of one label: ``"Project: Atlas"`` -> ``"project:Atlas"``."""
    namespace, value = split_label(raw)
    return f"{namespace}:{value}"


def normalize_labels(raw: Iterable[str] | str | None) -> list[str]:
    """Normalize a label set: sorted, de-duplicated, each label canonical.

    ``raw`` may be ``None`` (no labels), an iterable of labels, or one string of
    comma-separated labels (``"project:Atlas, person:Mina"``, as typed on a command
    line); a value that itself holds a comma must therefore be passed in a list.
    Blank entries are skipped, so a trailing comma is harmless. Two spellings that
    differ only in case (``project:Atlas``, ``project:atlas``) are both kept: spelling
    is preserved, and filters compare caselessly anyway.
    """
    if raw is None:
        return []
    if isinstance(raw, str):
        items: Iterable[object] = raw.split(",")
    elif isinstance(raw, (bytes, Mapping)):
        raise LabelError(
            f"labels must be a list of namespace:value strings, got {type(raw).__name__} — "
            f"e.g. [{EXAMPLE_LABEL!r}, 'person:Mina']"
        )
    else:
        items = raw
    found: set[str] = set()
    for item in items:
        if isinstance(item, str) and not item.strip():
            continue
        found.add(normalize_label(item))  # a non-string item raises LabelError
    return sorted(found)


def parse_label_filter(raw: Iterable[str] | None) -> list[str]:
    """Normalize the labels of an AND filter (``search(labels=[...])``, ``--label``)."""
    return normalize_labels(raw)


def _match_key(label: str) -> tuple[str, str] | None:
    """Caseless comparison key of a label, or ``None`` when it is malformed.

    Caseless matching follows the Unicode recipe: normalize, casefold, normalize again
    (casefolding can undo composition, e.g. for characters with a combining dot).
    """
    try:
        namespace, value = split_label(label)
    except LabelError:
        return None
    return namespace, unicodedata.normalize("NFC", value.casefold())


def matches_labels(note_labels: Iterable[str], required: Iterable[str]) -> bool:
    """True when the note carries every required label (an AND filter).

    The namespace is compared exactly (both sides are lowercased on normalization); the
    value is compared after NFC + ``str.casefold``, so ``project:ATLAS`` matches
    ``project:Atlas`` and ``person:STRASSE`` matches ``person:Straße``. A malformed label
    on the note never matches; a malformed required label raises ``LabelError``. An empty
    requirement matches every note.
    """
    wanted = set()
    for label in required:
        namespace, value = split_label(label)
        wanted.add((namespace, unicodedata.normalize("NFC", value.casefold())))
    if not wanted:
        return True
    have = {key for key in map(_match_key, note_labels) if key is not None}
    return wanted <= have


def label_counts(label_lists: Iterable[Iterable[str]]) -> dict[str, int]:
    """How many notes carry each label, most common first (ties alphabetical).

    Each inner iterable is one note's labels; a label counts once per note. Malformed
    labels are skipped rather than raised: counting describes a vault as it is.
    """
    counts: Counter[str] = Counter()
    for labels in label_lists:
        seen = set()
        for label in labels:
            try:
                seen.add(normalize_label(label))
            except LabelError:
                continue
        counts.update(seen)
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


# --- suggestions ---------------------------------------------------------------------

# Frontmatter keys (and Dataview inline-field keys) that name an entity, and the label
# namespace each one feeds. Plural spellings are accepted because notes use both.
_ENTITY_FIELDS = {
    "project": "project",
    "projects": "project",
    "person": "person",
    "people": "person",
    "owner": "person",
    "host": "host",
    "hosts": "host",
}
# Top-level folders whose notes stand for one entity each, so a link into them is typed.
_ENTITY_FOLDERS = {
    "project": "project",
    "projects": "project",
    "person": "person",
    "persons": "person",
    "people": "person",
    "host": "host",
    "hosts": "host",
}
_DATE_FIELDS = ("date", "created")
_INBOX_ZONES = {"", "inbox"}

_WIKILINK = r"\[\[[^\[\]\n]+\]\]"
# Dataview inline field whose value is one or more wikilinks: "project:: [[Atlas]]",
# "[people:: [[Mina]], [[Joon]]]". Only the links directly after "::" are typed.
_TYPED_LINKS_RE = re.compile(
    r"(?<![\w-])(?P<key>[A-Za-z][\w-]*)[ \t]*::[ \t]*"
    rf"(?P<links>{_WIKILINK}(?:[ \t]*,[ \t]*{_WIKILINK})*)"
)
_WIKILINK_RE = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_ISO_DATE_RE = re.compile(r"(\d{4})-(\d{2})(?:-(\d{2}))?(?![\d])")
_FILENAME_DATE_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?!\d)")
_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_INLINE_CODE_RE = re.compile(r"`[^`\n]*`")
_URL_RE = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://\S+")

# Script detection reads at most this many characters: a share is stable long before
# the end of a big note, and suggesting labels must stay cheap.
_LANG_SAMPLE_CHARS = 20_000
# "Unmistakable": at least this many CJK characters, and at least this share of letters.
_LANG_MIN_CHARS = 10
_LANG_MIN_SHARE = 0.5
# Japanese prose is roughly a third kana or more; below a tenth the text may be
# Chinese quoting a Japanese name, so no language is suggested.
_JA_MIN_KANA_SHARE = 0.1


def _link_target(link: str) -> str:
    """The note name a link target points at: ``"people/Mina.md#Notes|M"`` -> ``"Mina"``."""
    target = re.split(r"[|#^]", link, maxsplit=1)[0].strip()
    target = target.rstrip("/").rsplit("/", 1)[-1].strip()
    if target.lower().endswith(".md"):
        target = target[:-3].strip()
    return target


def _field_values(value: object) -> list[str]:
    """Texts in a frontmatter field: a string (comma-separated) or a list of strings."""
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [str(value)]
    if isinstance(value, str):
        # Only split outside wikilinks: "[[Kim, Mina]]" is one name.
        if "[[" in value:
            return [match.group(0) for match in _WIKILINK_RE.finditer(value)]
        return [part for part in value.split(",") if part.strip()]
    if isinstance(value, (list, tuple)):
        return [item for entry in value for item in _field_values(entry)]
    return []


def _month_label(value: object) -> str | None:
    """``date:YYYY-MM`` from a date, a datetime or an ISO-8601 string, else ``None``."""
    if isinstance(value, (_dt.date, _dt.datetime)):
        return f"date:{value.year:04d}-{value.month:02d}"
    if not isinstance(value, str):
        return None
    match = _ISO_DATE_RE.match(value.strip())
    if not match:
        return None
    year, month, day = match.groups()
    try:
        _dt.date(int(year), int(month), int(day) if day else 1)
    except ValueError:
        return None
    return f"date:{year}-{month}"


def _prose(body: str) -> str:
    """The body without fenced code, inline code and URLs (which are mostly ASCII)."""
    lines = []
    fence = ""
    for line in body.splitlines():
        match = _FENCE_RE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = ""
            continue
        if match:
            fence = match.group(1)
            continue
        lines.append(line)
    text = "\n".join(lines)
    return _URL_RE.sub(" ", _INLINE_CODE_RE.sub(" ", text))


def _is_hangul(code: int) -> bool:
    return (
        0xAC00 <= code <= 0xD7A3  # syllables
        or 0x1100 <= code <= 0x11FF  # jamo
        or 0x3130 <= code <= 0x318F  # compatibility jamo
        or 0xA960 <= code <= 0xA97F
        or 0xD7B0 <= code <= 0xD7FF
    )


def _is_kana(code: int) -> bool:
    return (
        0x3040 <= code <= 0x30FF  # hiragana, katakana
        or 0x31F0 <= code <= 0x31FF  # katakana phonetic extensions
        or 0xFF66 <= code <= 0xFF9D  # half-width katakana
    )


def _is_han(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF
        or 0x3400 <= code <= 0x4DBF
        or 0xF900 <= code <= 0xFAFF
        or 0x20000 <= code <= 0x3FFFF
    )


def _language_label(body: str) -> str | None:
    """``lang:ko`` / ``lang:ja`` / ``lang:zh`` when that script unmistakably dominates."""
    hangul = kana = han = other = 0
    for char in _prose(body[:_LANG_SAMPLE_CHARS]):
        if not char.isalpha():
            continue
        code = ord(char)
        if _is_hangul(code):
            hangul += 1
        elif _is_kana(code):
            kana += 1
        elif _is_han(code):
            han += 1
        else:
            other += 1
    cjk = hangul + kana + han
    if cjk < _LANG_MIN_CHARS or cjk < _LANG_MIN_SHARE * (cjk + other):
        return None
    if hangul * 2 >= cjk:
        return "lang:ko"
    if hangul:
        return None  # Hangul mixed with much Han or kana: not unmistakable
    if kana >= _JA_MIN_KANA_SHARE * (kana + han):
        return "lang:ja"
    if kana == 0:
        return "lang:zh"
    return None


def _add(found: set[str], namespace: str, value: str) -> None:
    """Add ``namespace:value`` if it is a valid label; suggestions never raise."""
    try:
        found.add(normalize_label(f"{namespace}:{value}"))
    except LabelError:
        pass


def suggest_labels(
    *,
    path: str,
    zone: str,
    note_type: str | None,
    frontmatter: Mapping,
    body: str,
    links: Iterable[str] = (),
) -> list[str]:
    """Propose labels from what a note already says, deterministically (no model).

    * ``type:<note_type>`` when a note type is given;
    * ``zone:<top-level folder>`` unless the note sits in the inbox (the vault root or
      a top-level ``inbox`` folder);
    * ``project:`` / ``person:`` / ``host:`` from the frontmatter fields ``project``,
      ``person``, ``people``, ``owner``, ``host`` (and plurals), whose values may be
      text, comma-separated text, lists, or wikilinks;
    * the same from Dataview inline fields holding wikilinks in the body
      (``project:: [[Atlas]]`` -> ``project:Atlas``), and from ``links`` whose target
      lives in a top-level ``projects/``, ``people/`` or ``hosts/`` folder;
    * ``date:YYYY-MM`` from the frontmatter ``date`` (else ``created``), or else from a
      file name that starts with an ISO date (daily notes);
    * ``lang:ko`` / ``lang:ja`` / ``lang:zh`` when Hangul, Japanese (kana present) or
      Chinese (Han without kana) dominates the prose outside code.

    Returns a normalized, sorted, de-duplicated list; values that would not be valid
    labels are dropped, never raised.
    """
    found: set[str] = set()
    if note_type:
        _add(found, "type", note_type)

    top = zone.replace("\\", "/").strip("/").split("/", 1)[0].strip()
    if top.lower() not in _INBOX_ZONES:
        _add(found, "zone", top)

    fields = {key.lower(): value for key, value in frontmatter.items() if isinstance(key, str)}
    for key, namespace in _ENTITY_FIELDS.items():
        for text in _field_values(fields.get(key)):
            link = _WIKILINK_RE.fullmatch(text.strip())
            _add(found, namespace, _link_target(link.group(1)) if link else text)

    for line in _prose_lines_with_fields(body):
        for match in _TYPED_LINKS_RE.finditer(line):
            namespace = _ENTITY_FIELDS.get(match.group("key").lower())
            if namespace is None:
                continue
            for link in _WIKILINK_RE.finditer(match.group("links")):
                _add(found, namespace, _link_target(link.group(1)))

    for link in links:
        parts = [part for part in link.replace("\\", "/").split("/") if part]
        if len(parts) >= 2:
            namespace = _ENTITY_FOLDERS.get(parts[0].lower())
            if namespace:
                _add(found, namespace, _link_target(parts[-1]))

    month = None
    for key in _DATE_FIELDS:
        month = _month_label(fields.get(key))
        if month:
            break
    if month is None:
        stem = path.replace("\\", "/").rsplit("/", 1)[-1]
        match = _FILENAME_DATE_RE.match(stem)
        if match:
            month = _month_label(match.group(0))
    if month:
        found.add(month)

    language = _language_label(body)
    if language:
        found.add(language)
    return sorted(found)


def _prose_lines_with_fields(body: str) -> list[str]:
    """Body lines outside fenced code that could hold an inline field (cheap pre-filter)."""
    return [line for line in _prose(body).splitlines() if "::" in line]
