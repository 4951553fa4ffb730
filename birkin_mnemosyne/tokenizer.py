"""Text analysis: the one place that turns note and query text into index terms.

The indexer calls :func:`tokenize` on every note and the engine calls :func:`query_units` on
every query. Both run the same analysis, so a query term lines up with the document term
for the same text (rule 8).

Rules, each with the example that motivated it:

1. **Normalise.** NFKC, then casefold, then Latin accent folding: ``"ＡＢＣ"`` -> ``"abc"``,
   ``"ﬁle"`` -> ``"file"``, ``"Café"`` -> ``"cafe"``, ``"Résumé"`` -> ``"resume"``,
   ``"Straße"`` -> ``"strasse"``. Folding strips combining marks from Latin letters only,
   plus a few letters Unicode does not decompose (``ø ł đ ħ æ œ ð þ ı``), so a user typing
   without accents finds the accented word. Hangul syllables and kana are never
   decomposed: ``"가"`` stays one syllable and ``"ガ"`` keeps its dakuten.
2. **Light prefix stem** (:func:`stem`) for purely Latin-letter words of 5 letters or more:
   drop a plural ``-s``/``-ies``, then at most one common ending (``-ing -ed -ion -ment
   -ness -ly -en``), keep the first 7 letters, and drop a final ``-e``. So ``restoring``,
   ``restored``, ``restores`` and ``restore`` all give ``restor``; ``database(s)`` give
   ``databas``; ``configuration``, ``configure``, ``configured`` and Spanish
   ``configuración`` give ``configu``; German ``Datenbanken`` and ``Datenbank`` give
   ``datenba``. A stem is never shorter than 4 letters (``files`` -> ``file``, not
   ``fil``). Trade-off, accepted: the 7-letter cap merges some unrelated words
   (``internal`` and ``international`` both give ``interna``), and some true relatives
   still miss (``config`` vs ``configu``, ``based`` vs ``base``). BM25 with short queries
   tolerates the merges better than it tolerates missing an inflected form.
3. **Identifiers** are kept whole (normalised, never stemmed) and also split into parts,
   each part analysed like a word: ``max_connections`` -> ``max_connections``, ``max``,
   ``connect``; ``pg_hba.conf``; ``os.path.join``; ``/etc/nginx/nginx.conf`` ->
   ``etc/nginx/nginx.conf`` (a leading ``/`` or ``./`` is not kept), ``etc``, ``nginx``,
   ``nginx.conf``, ``nginx``, ``conf`` (a path, e-mail or host segment that is itself
   compound is emitted too); ``db1:5432``; ``alice@example.com``; ``v1.2.3``; ``14.2``;
   ``HTTP_503``. Hyphenated words are identifiers only when they carry a digit or three or
   more parts (``ERR-CONN-42``, ``2026-03-02``, ``state-of-the-art``); ``well-known`` is
   just the two words. Error codes and hashes without separators (``ECONNREFUSED``,
   ``E1102``, ``0x80070005``, ``3f9a2c1d``) are single terms; an all-capitals word is
   emitted unstemmed *and* stemmed, so ``ECONNREFUSED`` matches ``econnrefused``. A
   separator at either end is not part of the identifier: in ``see nginx.conf.`` the
   term is ``nginx.conf``; Markdown ``_emphasis_`` gives ``emphasis``. CamelCase keeps the
   lowercased whole plus its parts: ``getUserName`` -> ``getusername``, ``get``,
   ``user``, ``name``; ``PostgreSQL`` -> ``postgresql``, ``postgr``, ``sql``;
   ``HTTPServer`` -> ``http`` + ``server``; ``OAuth2Client`` -> ``oauth2`` + ``client``.
4. **Hangul** runs give the run plus its adjacent bigrams: ``"데이터베이스"`` ->
   ``데이터베이스``, ``데이``, ``이터``, ``터베``, ``베이``, ``이스``, so ``데이터베이스를``
   (with a particle) still shares every bigram with ``데이터베이스``.
5. **Han and kana** runs give the run, its unigrams, then its bigrams: ``"数据库"`` ->
   ``数据库``, ``数``, ``据``, ``库``, ``数据``, ``据库``. Japanese runs are cut where the
   character class changes (Han / hiragana / katakana; the prolonged sound mark ``ー``
   belongs to the run it continues): ``データベースを再起動する`` -> runs ``データベース``,
   ``を``, ``再起動``, ``する``. This makes katakana loanwords and kanji compounds whole terms
   and leaves particles as their own short units; it gives up bigrams across the
   boundary (``動す``), which mostly pair a kanji with inflecting okurigana anyway.
6. **Numbers** keep their digits: ``5432``; ``2026-03-02`` -> ``2026-03-02``, ``2026``,
   ``03``, ``02``.
7. **Everything else** (punctuation, symbols, emoji, controls, lone surrogates) only
   separates terms. No ``str`` input raises. Terms longer than 128 characters are dropped
   (a base64 blob is not a search term; a SHA-512 hex digest still fits) and script runs
   are cut every 128 characters.
8. **Query = document.** :func:`query_units` runs the same analysis and groups the terms
   per source unit; the set of its terms equals the set of :func:`tokenize` terms.
9. **Closed compounds, query side.** Given the index's vocabulary, :func:`query_units`
   cuts a long query word whose two halves the vault holds and adds the halves' stems
   as parts of its unit: ``Plattenwarnung`` -> ``platten`` (the whole, capped at 7
   letters), ``platt``, ``warnung``; ``Betriebstagebuch`` -> ``betrieb`` +
   ``tagebuc`` (a linking ``-s``/``-es``/``-n``/``-en``/``-e`` is dropped from the
   head). Documents are not split: without the vault's vocabulary every cut of a long
   word would have to be indexed, and on the dev split that junk cost more than it
   found (English questions matched German tails; more false absences).
10. **Other inflections, query side.** A query word whose stem the vault lacks gets the
   stem of another inflection that it holds (:func:`inflected_form`): ``ersetzt`` ->
   ``ersetz`` (``ersetzen``), ``Regeln`` -> ``regel``, ``getauscht`` -> ``tausch``. The
   light stem handles English endings; German verb and plural endings it leaves on.

:func:`tokenize` keeps stopwords; the index leaves them out (``document.index_terms``)
and the ranking skips them in queries. :data:`STOPWORDS` lists them.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from typing import NamedTuple

__all__ = [
    "MONTH_NAMES",
    "STOPWORDS",
    "is_hiragana",
    "is_stopword",
    "name_words",
    "normalize",
    "query_units",
    "split_compound",
    "stem",
    "tokenize",
]

# Longest term kept: 128 fits a SHA-512 hex digest and any sane identifier or path.
_MAX_TERM_CHARS = 128
# Chunks longer than this are analysed but not memoised (they are almost always unique).
_MAX_CACHED_CHUNK = 96
# Memo of chunk -> terms. Vault text is Zipfian, so a modest memo serves most words.
_CACHE_LIMIT = 200_000

# ---------------------------------------------------------------------------- character classes

_HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
_HANGUL_BOUNDS = (
    ("\uac00", "\ud7ff"),
    ("\u1100", "\u11ff"),
    ("\u3130", "\u318f"),
    ("\ua960", "\ua97f"),
)
_HAN = (
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\U00020000-\U0003ffff"
)
# The prolonged sound mark U+30FC sits in both kana classes so that "すごーい" and "データ"
# each stay one run. NFKC composes (semi-)voiced marks into the kana ("ｶﾞ" -> "ガ"); one
# left over ("ア\u3099") cannot start or join a run and is dropped like punctuation.
_KATAKANA = "\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff\u32d0-\u32fe\U0001b000-\U0001b16f"
_HIRAGANA = "\u3041-\u3096\u309d-\u309f\u30fc"
_CJK = _HANGUL + _HAN + _KATAKANA + _HIRAGANA

# Letters written with Latin script; used to decide where combining marks are stripped.
_LATIN_RANGES = (
    (0x00C0, 0x024F),
    (0x1E00, 0x1EFF),
    (0x2C60, 0x2C7F),
    (0xA720, 0xA7FF),
    (0xAB30, 0xAB6F),
)
_COMBINING = "\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f"

# Letters that carry no decomposable mark but that a user would type without it.
_EXTRA_FOLDS = {
    "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D", "ħ": "h", "Ħ": "H",
    "ŧ": "t", "Ŧ": "T", "ð": "d", "Ð": "D", "þ": "th", "Þ": "TH", "ı": "i",
    "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE",
}  # fmt: skip


def _latin_fold_table() -> dict[int, str]:
    """Map each accented Latin letter to its bare form ("é" -> "e", "Ǣ" -> "AE")."""
    table: dict[int, str] = {}
    for lo, hi in _LATIN_RANGES:
        for code in range(lo, hi + 1):
            char = chr(code)
            bare = "".join(
                c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)
            )
            bare = "".join(_EXTRA_FOLDS.get(c, c) for c in bare)
            if bare and bare != char:
                table[code] = bare
    return table


def _mark_class() -> str:
    """Combining marks that continue a word (Devanagari vowel signs, Hebrew points, ...).

    Python's ``\\w`` excludes marks, which would cut "हिन्दी" at every vowel sign. Only the
    BMP blocks where scripts written with marks live are scanned (a few ms); the table
    follows the running Python's Unicode version. Supplementary-plane marks (Brahmi,
    Chakma, ...) are left out on purpose: one code point above U+FFFF stops ``sre`` from
    using a bitmap for the class, and scanning for marks became 10x slower.
    """
    windows = ((0x0300, 0x2000), (0x20D0, 0x2100), (0x2CEF, 0x2E00), (0xA66F, 0xAB00))
    windows += ((0xFB1E, 0xFB1F), (0xFE20, 0xFE30))
    codes = [
        code
        for lo, hi in windows
        for code in range(lo, hi)
        if unicodedata.category(chr(code))[0] == "M" and not chr(code).isalnum()
    ]
    ranges: list[str] = []
    start = prev = codes[0]
    for code in [*codes[1:], -1]:
        if code == prev + 1:
            prev = code
            continue
        ranges.append(f"\\u{start:04x}" if start == prev else f"\\u{start:04x}-\\u{prev:04x}")
        start = prev = code
    return "".join(ranges)


_CONNECTORS = "-./:@\\\\"  # regex class body: - . / : @ and backslash
_EDGE_CHARS = "_-./:@\\"
_EDGE_RE = re.compile(f"[{_CONNECTORS}_]")
_SPACE_RE = re.compile(r"\s")
_LEADING_NON_WORD_RE = re.compile(r"^[\W_]+")
_NOT_HYPHEN_RE = re.compile(r"[./:@\\_]")
_SEGMENT_SPLIT_RE = re.compile(r"[/\\@:]+")
_PIECE_SPLIT_RE = re.compile(r"[-._]+")

_LATIN_CLASS = "".join(f"\\u{lo:04x}-\\u{hi:04x}" for lo, hi in _LATIN_RANGES)
_FOLD_TABLE = _latin_fold_table()
_FOLDABLE_RE = re.compile(f"[{_LATIN_CLASS}]+")
_COMBINING_RE = re.compile(f"[{_COMBINING}]")
# What follows a Latin letter up to the next word character or space: its combining marks,
# then perhaps punctuation. Only the marks are looked at (see _strip_latin_marks).
_AFTER_LATIN_RE = re.compile(f"(?<=[A-Za-z{_LATIN_CLASS}])[^\\w\\s]+")

# A chunk: words (runs of \w) joined by connector runs, so a connector at either end
# (sentence punctuation, a leading "./") is never part of it. \w also covers Hangul, Han
# and kana; _analyse cuts such chunks into script runs. Plain \w keeps this scan at
# ~20 MB/s; the variant that lets combining marks continue a word is 60% slower, so it
# only runs on text that has such marks.
_CHUNK_RE = re.compile(f"\\w+(?:[{_CONNECTORS}]+\\w+)*")


class _Patterns(NamedTuple):
    marks: re.Pattern[str]
    chunks_with_marks: re.Pattern[str]
    cjk: re.Pattern[str]
    script_runs: re.Pattern[str]


@functools.cache
def _patterns() -> _Patterns:
    """Compile the non-ASCII regexes on first use.

    Classes reaching high into the BMP make ``sre`` build 64K-entry tables; compiling them
    costs 25-45 ms, which ASCII-only work and commands that never tokenise should not pay.
    """
    marks = _mark_class()
    word = f"\\w+(?:[{marks}]+\\w*)*"
    runs = [
        f"[{script}]{{1,{_MAX_TERM_CHARS}}}" for script in (_HANGUL, _HAN, _KATAKANA, _HIRAGANA)
    ]
    # A prolonged sound mark that opens a chunk joins the run it goes on with: "ーぁ" (a
    # bigram of "ぁーぁ") is one hiragana run, as it was inside "ぁーぁ", not "ー" + "ぁ".
    runs[2] = f"(?=\u30fc*[{_KATAKANA.replace(chr(0x30FC), '')}]){runs[2]}"
    return _Patterns(
        marks=re.compile(f"[{marks}]"),
        chunks_with_marks=re.compile(f"{word}(?:[{_CONNECTORS}]+{word})*"),
        cjk=re.compile(f"[{_CJK}]"),
        script_runs=re.compile("|".join([*runs, f"[^{_CJK}]+"])),
    )


_HIRAGANA_ONLY_RE = re.compile(f"[{_HIRAGANA}]+")
_KATAKANA_ONLY_RE = re.compile(f"[{_KATAKANA}]+")
_HANGUL_ONLY_RE = re.compile(f"[{_HANGUL}]+")


def is_hiragana(term: str) -> bool:
    """Whether a term is written in hiragana alone: in Japanese that is mostly grammar
    (particles, endings, auxiliaries: "は", "どの", "けている"), content words being
    written in kanji and katakana."""
    return bool(term) and _HIRAGANA_ONLY_RE.fullmatch(term) is not None


def is_katakana(term: str) -> bool:
    """Whether a term is written in katakana alone: a loanword or a run of them
    ("ポート", "サポートマクロ")."""
    return bool(term) and _KATAKANA_ONLY_RE.fullmatch(term) is not None


def is_hangul(term: str) -> bool:
    """Whether a term is written in Hangul alone: one Korean word with its particles
    ("데이터베이스가"), Korean being written with spaces between words."""
    return bool(term) and _HANGUL_ONLY_RE.fullmatch(term) is not None


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds a Hangul, Han or kana character."""
    return not text.isascii() and bool(_patterns().cjk.search(text))


def is_script_run(text: str) -> bool:
    """Whether ``text`` is one Hangul, Han, katakana or hiragana run: one query unit."""
    patterns = _patterns()
    return bool(patterns.cjk.match(text) and patterns.script_runs.fullmatch(text))


def _chunks(prepared: str) -> list[str]:
    """The chunks of prepared text, in order."""
    if not prepared.isascii():
        patterns = _patterns()
        if patterns.marks.search(prepared):
            return patterns.chunks_with_marks.findall(prepared)
    return _CHUNK_RE.findall(prepared)


# ------------------------------------------------------------------------------- normalisation


def _fold_run(match: re.Match[str]) -> str:
    return match.group().translate(_FOLD_TABLE)


def _strip_latin_marks(match: re.Match[str]) -> str:
    """Drop the Latin-block accents from the marks that follow a Latin letter.

    The whole mark sequence is searched, not just its head: in "A\u3099\u0300" NFKC
    orders the dakuten (class 8) before the grave (class 230) and would compose "À" on a
    second pass, so stopping at the dakuten made ``normalize`` non-idempotent.
    """
    run = match.group()
    kept: list[str] = []
    for index, char in enumerate(run):
        if not unicodedata.category(char).startswith("M"):
            return "".join(kept) + run[index:]
        if not _COMBINING_RE.match(char):
            kept.append(char)
    return "".join(kept)


def _fold_latin(text: str) -> str:
    """Strip accents from Latin letters only (rule 1); other scripts are left untouched."""
    # Translating only the matched runs: str.translate over a whole 2 MB note with a dict
    # table took 0.2 s, about as long as the rest of tokenize.
    text = _FOLDABLE_RE.sub(_fold_run, text)
    if _COMBINING_RE.search(text):
        text = _AFTER_LATIN_RE.sub(_strip_latin_marks, text)
    return text


def normalize(text: str) -> str:
    """NFKC + casefold + Latin accent folding: ``"Résumé"`` -> ``"resume"``.

    NFKC runs again after casefolding because casefold can leave a decomposed sequence
    ("ΐ" casefolds to three code points); that keeps ``normalize`` idempotent.
    """
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return _fold_latin(text)


def _prepare(text: str) -> str:
    """Compatibility-normalise and accent-fold, but keep case (CamelCase needs it)."""
    if text.isascii():
        return text
    if not unicodedata.is_normalized("NFKC", text):
        # One full-width comma forces NFKC to rebuild the whole string; normalising only
        # the lines that need it was 3.5x faster on a 5 MB note. Cutting after a line
        # break is safe: a line break never composes with what follows it.
        text = "".join(
            line if unicodedata.is_normalized("NFKC", line) else unicodedata.normalize("NFKC", line)
            for line in text.splitlines(keepends=True)
        )
    return _fold_latin(text)


# ------------------------------------------------------------------------------------ stemming

# (suffix, shortest stem left) tried in order, at most one removed. -ly, -ment and -en ask
# for a 5-letter stem: "family" is not "fami", "document" is not "docu", "listen" is not
# "list", while "quickly" -> "quick", "deployment" -> "deploy", "Datenbanken" -> "datenbank".
# English -er is left out on purpose: "filter" would become "filt" while "filtered"
# stays "filter".
_SUFFIXES = (
    ("ment", 5),
    ("ness", 4),
    ("ing", 4),
    ("ion", 4),
    ("ed", 4),
    ("ly", 5),
    ("en", 5),
)
_SUFFIX_ENDINGS = tuple(suffix for suffix, _ in _SUFFIXES)
_MIN_STEM = 4
_STEM_PREFIX = 7


def stem(word: str) -> str:
    """Light prefix stem of a normalised word (rule 2): ``"restoring"`` -> ``"restor"``.

    Words shorter than 5 letters, or with anything but ASCII letters (digits, other
    scripts), come back unchanged. Steps: (1) plural ``-ies`` -> ``-y`` or ``-s`` (not
    ``-ss -us -is``: "process", "status", "redis"); (2) one suffix from ``_SUFFIXES``,
    undoubling a final consonant after ``-ing``/``-ed`` ("embedding" -> "embed",
    "stopped" -> "stop", but "installed" -> "install"); (3) keep 7 letters; (4) drop a
    final ``e`` ("restore" -> "restor", so it meets "restored").
    """
    if len(word) < 5 or not word.isascii() or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) >= 6:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix, shortest in _SUFFIXES if word.endswith(_SUFFIX_ENDINGS) else ():
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest:
            word = word[: -len(suffix)]
            if (
                suffix in ("ing", "ed")
                and len(word) >= _MIN_STEM
                and word[-1] == word[-2]
                and word[-1] not in "aeiouylsz"
            ):
                word = word[:-1]
            break
    word = word[:_STEM_PREFIX]
    if word.endswith("e") and len(word) > _MIN_STEM:
        word = word[:-1]
    return word


# ------------------------------------------------------------------------------ chunk analysis


def _camel_parts(piece: str) -> list[str]:
    """Split a cased piece at case changes: ``getUserName`` -> get/User/Name.

    A capital run is cut before its last letter only if at least two capitals stay in
    front: ``HTTPServer`` -> HTTP/Server and ``IOError`` -> IO/Error, but ``OAuth2Client``
    keeps ``OAuth2`` and ``IPv6`` stays whole. A digit followed by a capital also cuts
    (``Base64Encoder``).
    """
    parts: list[str] = []
    start = 0
    run = 0  # capitals seen in a row before position i
    for i in range(1, len(piece)):
        prev, char = piece[i - 1], piece[i]
        run = run + 1 if prev.isupper() else 0
        if char.isupper():
            nxt = piece[i + 1] if i + 1 < len(piece) else ""
            if (prev.islower() or prev.isdigit()) or (run >= 2 and nxt.islower()):
                parts.append(piece[start:i])
                start = i
    parts.append(piece[start:])
    return parts


def _trim(compound: str) -> str:
    """Drop separators at both ends, and marks left in front: "_emphasis_" -> "emphasis".

    A chunk may start with "_" followed by a combining mark ("_\u093a_0"); once the "_" is
    gone the mark would lead the term, and re-analysing that term would lose it.
    """
    compound = compound.strip(_EDGE_CHARS)
    if compound and not compound[0].isalnum():
        compound = _LEADING_NON_WORD_RE.sub("", compound).rstrip(_EDGE_CHARS)
    return compound


def _word_unit(piece: str) -> list[str]:
    """Terms of one alphanumeric piece (no connectors): the whole first, then its parts."""
    if not piece[:1].isalnum():
        # "_\u0300": stripping the underscore left a bare combining mark in front.
        piece = _LEADING_NON_WORD_RE.sub("", piece)
    if not piece or len(piece) > _MAX_TERM_CHARS:
        return []
    whole = normalize(piece)
    if not whole or len(whole) > _MAX_TERM_CHARS or _SPACE_RE.search(whole):
        return []
    rest = piece[1:]
    if rest != rest.lower() and not piece.isupper():
        subpieces = _camel_parts(piece)
        if len(subpieces) > 1:
            return [whole, *(stem(normalize(s)) for s in subpieces)]
    stemmed = stem(whole)
    if stemmed != whole and piece.isupper():
        return [whole, stemmed]  # ECONNREFUSED: the code as written, and the word
    return [stemmed]


def _compound_whole(compound: str) -> str | None:
    """The whole term of a compound, or None when it is just words in a row.

    "well-known" is two words; "ERR-CONN-42", "2026-03-02" and "state-of-the-art" are names,
    and so is anything joined by ``. _ / : @ \\``.
    """
    whole = normalize(compound)
    if len(whole) > _MAX_TERM_CHARS or _SPACE_RE.search(whole):
        return None
    if _NOT_HYPHEN_RE.search(compound):
        return whole
    pieces = [piece for piece in compound.split("-") if piece]
    if len(pieces) >= 3 or any(c.isdigit() for c in compound):
        return whole
    return None


def _identifier_units(chunk: str) -> list[list[str]]:
    """Units of a chunk with connectors or underscores (rule 3)."""
    segments = [s for s in _SEGMENT_SPLIT_RE.split(chunk) if s]
    whole = _compound_whole(chunk)
    if whole is None:
        return [
            unit
            for segment in segments
            for piece in _PIECE_SPLIT_RE.split(segment)
            if (unit := _word_unit(piece))
        ]
    unit = [whole]
    for segment in segments:
        if len(segments) > 1:
            segment = _trim(segment)
            if _EDGE_RE.search(segment) and (segment_whole := _compound_whole(segment)):
                unit.append(segment_whole)  # "nginx.conf" inside "/etc/nginx/nginx.conf"
        for piece in _PIECE_SPLIT_RE.split(segment):
            if piece:
                unit.extend(_word_unit(piece))
    return [[whole, *(term for term in unit[1:] if term != whole)]]


def _is_hangul(char: str) -> bool:
    return any(lo <= char <= hi for lo, hi in _HANGUL_BOUNDS)


def _script_unit(run: str) -> list[str]:
    """Hangul: run + bigrams (rule 4). Han/kana: run + unigrams + bigrams (rule 5).

    The prolonged sound mark is no unigram of its own: "ー" alone means nothing, and it
    sits in a large share of katakana words.
    """
    bigrams = [run[i : i + 2] for i in range(len(run) - 1)] if len(run) > 2 else []
    if _is_hangul(run[0]):
        return [run, *bigrams]
    if len(run) == 1:
        return [run]
    return [run, *(char for char in run if char != "\u30fc"), *bigrams]


def _analyse(chunk: str) -> list[list[str]]:
    """Units of one regex chunk; each unit is [whole, *parts] (parts may repeat)."""
    if not chunk.isascii() and _patterns().cjk.search(chunk):
        # "PostgreSQL을" or "数据库.md": cut into script runs and the text between them.
        units = []
        for run in _patterns().script_runs.findall(chunk):
            if _patterns().cjk.match(run):
                units.append(_script_unit(run))
            else:
                for sub_chunk in _chunks(run):
                    units.extend(_analyse(sub_chunk))
        return units
    if (
        len(chunk) <= _MAX_TERM_CHARS
        and chunk.isascii()
        and chunk.isalpha()
        and chunk[1:].islower()
    ):
        return [[stem(chunk.lower())]]  # the common case: "word" or "Word"
    chunk = _trim(chunk)
    if not chunk:
        return []
    if not chunk.isalnum() and _EDGE_RE.search(chunk):
        return _identifier_units(chunk)
    unit = _word_unit(chunk)
    return [unit] if unit else []


_memo: dict[str, tuple[str, ...]] = {}


def tokenize(text: str) -> list[str]:
    """Document terms in text order, duplicates kept: ``"Restoring DBs"`` -> restor, dbs.

    One compiled regex finds the chunks; each distinct chunk is analysed once and memoised,
    so ordinary prose costs a dictionary look-up per word. (Doing the look-ups with
    ``map``/``chain`` in C measured slower than this loop, because of the set of misses.)
    """
    global _memo
    terms: list[str] = []
    extend = terms.extend
    memo = _memo
    for chunk in _chunks(_prepare(text)):
        found = memo.get(chunk)
        if found is None:
            found = tuple(term for unit in _analyse(chunk) for term in unit)
            if len(chunk) <= _MAX_CACHED_CHUNK:  # long chunks rarely repeat
                if len(memo) >= _CACHE_LIMIT:
                    memo = _memo = {}  # replaced, never cleared: other threads keep theirs
                memo[chunk] = found
        extend(found)
    return terms


def query_units(text: str, known: Callable[[str], bool] | None = None) -> list[tuple[str, ...]]:
    """The query's terms grouped per source unit, whole term first, parts after.

    ``"getUserName 数据库"`` -> ``[("getusername", "get", "user", "name"),
    ("数据库", "数", "据", "库", "数据", "据库")]``. Parts are de-duplicated in order, and a
    unit repeated in the query appears once.

    With ``known`` (does the index hold this term?), a closed compound word gets its two
    halves as parts (:func:`split_compound`): "Plattenwarnung" -> ("platten", "platt",
    "warnung"), so a note saying "Platte" and "Warnung" covers it; and a word the vault
    does not hold gets another inflection of it that the vault does hold as its one part
    (:func:`inflected_form`): "ersetzt" -> ("ersetzt", "ersetz").
    """
    units: dict[tuple[str, ...], None] = {}
    for chunk in _chunks(_prepare(text)):
        analysed = _analyse(chunk)
        if known is not None and len(analysed) == 1 and len(analysed[0]) == 1:
            word = normalize(chunk)
            if word.isascii() and word.isalpha() and len(word) <= _MAX_COMPOUND:
                extra = split_compound(word, known) if len(word) >= _MIN_COMPOUND else None
                if extra is None and not known(analysed[0][0]):
                    found = inflected_form(word, known)
                    extra = (found,) if found else None
                if extra:
                    analysed = [[analysed[0][0], *extra]]
        for unit in analysed:
            units.setdefault(tuple(dict.fromkeys(unit)), None)
    return list(units)


# Closed compounds (rule 9): German, Dutch and the Nordic languages write "Platten" +
# "Warnung" as one word, and the stem keeps only its first letters. A query word is cut
# where both halves are words the vault holds; the head may end in a linking element.
_MIN_COMPOUND = 8
# Longer words are not looked at: real compounds stay well under it, and every cut costs
# index look-ups (a pasted blob of letters would cost thousands).
_MAX_COMPOUND = 40
_MIN_HALF = 4
_LINKS = ("", "s", "es", "n", "en", "e")


def split_compound(word: str, known: Callable[[str], bool]) -> tuple[str, str] | None:
    """Stems of the two halves of ``word`` (normalised, ASCII letters), or None.

    Every cut leaving at least four letters a side is tried, with the head also
    stripped of a linking element ("betriebs|tagebuch" -> "betrieb" + "tagebuch"); a cut
    counts when ``known`` accepts both stems. The most balanced cut wins (the longer
    shorter half), then the longer tail: German compounds put the meaning at the end.
    """
    # Heads are looked up first: they share the word's first letters, so they sit in one
    # or two blocks of the index's term dictionary, while every tail may sit in another.
    seen: dict[str, bool] = {}

    def has(term: str) -> bool:
        found = seen.get(term)
        if found is None:
            found = seen[term] = known(term)
        return found

    best: tuple[int, int, str, str] | None = None
    for cut in range(_MIN_HALF, len(word) - _MIN_HALF + 1):
        head = word[:cut]
        for link in _LINKS:
            if head.endswith(link) and len(head) - len(link) >= _MIN_HALF:
                head_stem = stem(head[: len(head) - len(link)])
                if has(head_stem):
                    break
        else:
            continue
        tail = stem(word[cut:])
        if has(tail):
            rank = (min(cut - len(link), len(word) - cut), len(word) - cut)
            if best is None or rank > best[:2]:
                best = (*rank, head_stem, tail)
    return None if best is None else (best[2], best[3])


# Inflection endings (rule 10), longest first: German verb, noun and adjective endings
# that the light stem leaves on ("ersetzt" vs "ersetzen", "Regeln" vs "Regel"), and
# the forms a root is tried in.
_ENDINGS = (
    "ungen",
    "ung",
    "ern",
    "ten",
    "te",
    "et",
    "st",
    "en",
    "er",
    "es",
    "em",
    "e",
    "t",
    "s",
    "n",
)
_FORMS = ("", "en", "e", "t", "ung")
_MIN_ROOT = 4


def inflected_form(word: str, known: Callable[[str], bool]) -> str | None:
    """The stem of another inflection of ``word`` (normalised, ASCII letters) that
    ``known`` accepts, or None.

    Only asked for words whose own stem the vault lacks, so it never changes how a
    word the vault holds is matched. The word is stripped of a participle ``ge-`` and
    of one ending, and the root tried bare and with each of ``_FORMS``: "ersetzt" ->
    "ersetz" (from "ersetzen"), "Regeln" -> "regel", "getauscht" -> "tausch".
    """
    own = stem(word)
    bases = [word]
    if word.startswith("ge") and len(word) >= 7:
        bases.append(word[2:])
    for base in bases:
        for ending in ("", *_ENDINGS):
            if not base.endswith(ending) or len(base) - len(ending) < _MIN_ROOT:
                continue
            root = base[: len(base) - len(ending)]
            for form in _FORMS:
                candidate = stem(root + form)
                if candidate != own and known(candidate):
                    return candidate
    return None


# ----------------------------------------------------------------------------------- stopwords

# Function words only: articles, pronouns, particles, auxiliaries and modals, question
# words (each language has its "what/when/how/can" so conversational questions are not
# judged on them). Words that double as names or technical terms are left out even
# where they are function words in one language: "mit" (MIT licence), "man" (man page),
# "bin" (/usr/bin), "war" (WAR file), "über" (Uber), "plus", "sin".
_STOPWORD_TEXT = {
    "en": """a an the and or but if then else of to in on at by for from with without into
        onto over under about as is are was were be been being am do does did done have has
        had having it its this that these those there here which who whom whose what when
        where why how not no nor so than too very can could will would shall should may
        might must i me my we our you your he him his she her they them their us all any
        some each both few more most other such only own same just also via per up out off
        again once s t anything something everything nothing anyone someone""",
    "es": """el la los las un una unos unas y e o u de del al a en con por para sobre entre
        que quien como cuando donde es son fue ser estar esta este esto estos estas ese esa
        eso lo le les se su sus mi mis tu no si ya muy más pero también porque hay
        qué cuál cuáles cuándo dónde cómo quién quiénes cuánto cuánta cuántos me te nos
        yo nuestro nuestra nuestros nuestras puedo puede podemos debo debe debemos tengo
        tiene tenemos ahora todavía aún alguna alguno algún""",
    "de": """der die das den dem des ein eine einen einem einer eines und oder aber doch ist
        sind waren sein bist wird werden wurde nicht kein keine von zu zum zur auf aus bei
        nach vor für unter im in an am auch es sich wie als wenn dass ich du er sie wir
        ihr noch nur so schon da hier dort wann wo warum wieso weshalb wer wen wem welche
        welcher welches welchen welchem wofür wozu womit woran worauf kann kannst können
        konnte könnte darf dürfen muss müssen soll sollen sollte habe hat haben hatte
        hatten mein meine meinen meinem unser unsere unseren unserem uns mir mich dir dich
        ihm ihn ihnen denn mal bitte etwas gibt gab dies diese dieser dieses diesem diesen
        jetzt gerade eigentlich wieder um bis ob weil daraus damit dafür""",
    "fr": """le la les l un une des du de d et ou mais donc est sont être été à au aux avec
        dans pour par sur sans sous ce cet cette ces qui que qu quoi ne pas il elle ils elles
        nous vous je tu on se son sa ses leur leurs mon ma mes y en comme très""",
    # Korean particles written as separate words. Only single syllables (and one longer
    # word): a two-syllable entry such as "에서" would also be a Hangul bigram part, and
    # a stopword must never be the part of another unit. The same rule keeps every
    # Japanese particle out: each one is also a kana unigram or bigram.
    "ko": "은 는 이 가 을 를 의 에 와 과 도 로 및 그리고",
}

# Month names in the Latin-script languages above; a dated note is indexed with its
# month's names (``document``), and a query's month names are score-only (``ranking``).
MONTH_NAMES = (
    "january januar enero janvier",
    "february februar febrero février",
    "march märz marzo mars",
    "april abril avril",
    "may mai mayo",
    "june juni junio juin",
    "july juli julio juillet",
    "august agosto août",
    "september septiembre septembre",
    "october oktober octubre octobre",
    "november noviembre novembre",
    "december dezember diciembre décembre",
)

# Each listed word is one unit; its head term is the normalised, stemmed word (the whole
# "です", not its unigrams). Built without the regexes so importing stays cheap.
STOPWORDS: frozenset[str] = frozenset(
    stem(normalize(word)) for words in _STOPWORD_TEXT.values() for word in words.split()
)
"""Normalised, stemmed forms of very common function words (en, es, de, fr, ko)."""


def is_stopword(term: str) -> bool:
    """Whether an analysed term (as :func:`tokenize` emits it) is a common function word."""
    return term in STOPWORDS


# -- words shaped like names ----------------------------------------------------------
#
# The absence verdict (``ranking.verdict``) asks whether the query names something the
# vault never mentions ("How do we reset Kafka consumer group offsets?"): a product, a
# tool, a host, an address. Such a word is told apart by its shape, not by a word list:
# an identifier (letters with digits, dots, slashes, underscores, @), a dotted number
# (an address or a version), CamelCase or an acronym, a Latin word inside a CJK or
# Hangul question, or a capitalised word inside a sentence. Capitals say nothing in
# German, where every noun has one, nor in a query written in title case.

_RAW_WORD_RE = re.compile(r"[^\s,;!?¿¡()\[\]{}\"'“”‘’«»—–、。，？！：；（）「」『』【】]+")
_IDENT_RE = re.compile(r"(?=.*[A-Za-z])(?=.*[0-9_./@:]).*[A-Za-z0-9]$")
_DOTTED_NUMBER_RE = re.compile(r"\d+(?:\.\d+){2,}$")
_CAMEL_RE = re.compile(r"[a-z][A-Z]|[A-Z]{2,}[a-z]|^[A-Z]{3,}$")
_GERMAN_ONLY = frozenset(_STOPWORD_TEXT["de"].split()) - frozenset(
    word for lang in ("en", "es", "fr") for word in _STOPWORD_TEXT[lang].split()
)
_SENTENCE_END = (".", ":", "!", "?", "…")


def name_words(text: str) -> dict[str, str]:
    """The query's words shaped like names: their whole terms -> the words as written.

    ``"Which Kafka topic carries appointment-created events?"`` -> ``{"kafka": "Kafka"}``;
    ``"Splunk 里的日志保留多少天？"`` -> ``{"splunk": "Splunk"}``; ``"floating IP
    10.40.1.100"`` -> ``{"10.40.1.100": "10.40.1.100"}``.
    """
    words = [w.strip(".-:") for w in _RAW_WORD_RE.findall(text)]
    raw = _RAW_WORD_RE.findall(text)
    cjk = has_cjk(text)
    inner = [
        w
        for i, w in enumerate(words)
        if i and w[:1].isalpha() and not raw[i - 1].endswith(_SENTENCE_END) and not has_cjk(w)
    ]
    capitals = sum(1 for w in inner if w[:1].isupper())
    german = any(w.lower() in _GERMAN_ONLY for w in words)
    capitals_tell = not german and capitals * 2 < len(inner)
    found: dict[str, str] = {}
    for i, word in enumerate(words):
        if len(word) < 3 or has_cjk(word) or not any(c.isalnum() for c in word):
            continue
        latin = any(c.isalpha() for c in word)
        if _DOTTED_NUMBER_RE.match(word) or (latin and _IDENT_RE.match(word) and "-" not in word):
            named = True
        elif not latin:
            named = False
        elif _CAMEL_RE.search(word) or (cjk and word.isascii()):
            named = True
        else:
            named = (
                capitals_tell
                and i > 0
                and word[:1].isupper()
                and not raw[i - 1].endswith(_SENTENCE_END)
            )
        if named:
            for unit in query_units(word):
                if not is_stopword(unit[0]):
                    found.setdefault(unit[0], word)
    return found
