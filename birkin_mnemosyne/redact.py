"""Secret redaction: the gate every text passes before it is indexed, cached or served.

A ``Redactor`` finds secrets by family (private-key blocks, vendor tokens, credentials in
URLs, ``password: x`` pairs, long hex strings, exact secrets known only by their salted
hash) and replaces each with a mark naming its family, ``[REDACTED:private_key]``.
Indexing redacts note text before tokenizing it; snippets and note reads redact again on
the way out, so neither the index nor the cache ever holds a secret's text.

* ``FAMILIES`` lists every family in priority order, most specific first. Where spans of
  two families overlap, the earlier family keeps its span and the later one keeps only
  what lies outside it: spans never overlap and nothing matched is left showing.
* Marks already in a text are never matched again, and a scan repeats on its own output
  until it finds nothing new, so ``redact(redact(x)) == redact(x)`` by construction.
* Every pattern starts with a literal (``-----BEGIN``, ``eyJ``, ``://``, a separator), so
  ``re`` jumps between occurrences instead of trying every position. On 5 MB of prose
  this measured about 10x faster than patterns that start with a word boundary.

``write_secret_hashes`` runs where the real secrets live; only salted SHA-256 hashes
travel to the vault machine, where ``load_secret_hashes`` reads them. The file format is
documented in ``docs/reference/redaction.md``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets as _random
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .atomic import atomic_write_text
from .errors import RedactionError

__all__ = [
    "DEFAULT_REDACTOR",
    "FAMILIES",
    "HASH_FILE_FORMAT",
    "LOOKUP_FAMILIES",
    "MARK_RE",
    "Redactor",
    "SecretHashes",
    "hash_secret",
    "load_secret_hashes",
    "lookup_mark",
    "lookup_term",
    "mark",
    "redact_text",
    "write_secret_hashes",
]

#: Every family, most specific first (the order settles overlaps). ``secret_hash`` runs
#: only when a hash file is configured.
FAMILIES: tuple[str, ...] = (
    "private_key",
    "secret_hash",
    "github_token",
    "slack_token",
    "stripe_key",
    "sk_api_key",
    "google_api_key",
    "aws_key",
    "telegram_bot_token",
    "prefixed_token",
    "jwt",
    "url_credentials",
    "bearer_token",
    "key_value",
    "hex",
)

#: Bump whenever a pattern changes what it matches: it is part of ``Redactor.fingerprint``,
#: so a cache built under older rules is detected and rebuilt.
RULES_VERSION = 2  # 2: prefixed_token (issue 15)

HASH_FILE_FORMAT = "mnemosyne-secret-hashes/1"
_HASH_FILE_KEYS = ("format", "algorithm", "salt", "min_length", "hashes")
DEFAULT_MIN_LENGTH = 8
#: Longer candidates are never hashed: secrets are short, and this bounds work per token.
MAX_CANDIDATE_LENGTH = 512
_MIN_SALT_BYTES = 8
_SALT_BYTES = 16
_VERDICT_CACHE_SIZE = 100_000  # tokens whose hash verdict is remembered (~10 MB at most)

#: A redaction mark (also the bare ``[REDACTED]`` other tools write). Text inside a mark
#: is never matched again.
MARK_RE = re.compile(r"\[REDACTED(?::[a-z0-9_]+)?\]")

Span = tuple[int, int]
Finding = tuple[str, int, int]


def mark(family: str) -> str:
    """The text that replaces a secret of ``family``."""
    return f"[REDACTED:{family}]"


#: Families whose hidden values can still be looked up by value: the index keeps a
#: digest of each (``lookup_term``) where the value stood, and a query holding the
#: same value asks for that digest. Only runs of 32+ hex digits of 2.5+ bits of
#: entropy per digit (80+ bits), mostly commit ids, run ids, digests and trace ids: a
#: digest of such a value cannot be turned back into it, nor found by guessing values.
#: A shorter or chosen secret (a password, a key's value) keeps no digest.
LOOKUP_FAMILIES = frozenset({"hex"})
_LOOKUP_PERSON = b"mnemo-lookup-1"


def lookup_term(family: str, value: str) -> str:
    """The index term standing for a hidden value of a ``LOOKUP_FAMILIES`` family.

    It starts with "#", which the tokenizer never keeps, so no word can collide with
    it; the value is case-folded first (hex is written in either case).
    """
    digest = hashlib.blake2b(
        value.lower().encode("utf-8", "surrogatepass"), digest_size=12, person=_LOOKUP_PERSON
    )
    return f"#{family}:{digest.hexdigest()}"


def lookup_mark(term: str) -> str:
    """The mark a ``lookup_term`` is shown as ("[REDACTED:hex]"): never the digest."""
    return mark(term[1 : term.index(":")])


# ------------------------------------------------------------------- vendor patterns

_B64URL = "A-Za-z0-9_-"
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")
_DIGITS = frozenset("0123456789")

# Lookbehinds sit after the leading literal (``sk-(?<![A-Za-z0-9]sk-)``) rather than
# before it, so the literal stays a prefix ``re`` can search for.

# private_key: PEM blocks (PKCS#1/#8, OpenSSH, EC, DSA, encrypted, PGP). An unterminated
# block runs to the end of the text: better to hide too much than half a key.
_PEM_RE = re.compile(
    r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
    r".*?(?:-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)
# github_token: ghp_ (personal), gho_ (OAuth), ghu_/ghs_ (app), ghr_ (refresh) and
# fine-grained github_pat_, per GitHub's "Behind GitHub's new authentication token
# formats" (2021).
_GITHUB_RE = re.compile(
    r"g(?:h[pousr]_(?<![A-Za-z0-9]gh[pousr]_)[A-Za-z0-9]{30,255}"
    r"|ithub_pat_(?<![A-Za-z0-9]github_pat_)[A-Za-z0-9_]{40,255})(?![A-Za-z0-9_])"
)
# slack_token: bot/user/app/refresh tokens, and the secret path of a webhook URL (the
# host stays readable).
_SLACK_RE = re.compile(
    r"x(?:ox[abposre]-(?<![A-Za-z0-9]xox.-)|app-[0-9]-(?<![A-Za-z0-9]xapp-.-))"
    r"[A-Za-z0-9-]{10,250}"
)
_SLACK_WEBHOOK_RE = re.compile(
    r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<v>[A-Za-z0-9_/-]{8,300})"
)
# stripe_key: secret and restricted keys (live and test) and webhook signing secrets.
# The key search starts at "_live_"/"_test_" and looks back for "sk"/"rk".
_STRIPE_KEY_RE = re.compile(
    r"_(?:live|test)_(?<=[sr]k_(?:live|test)_)(?<![A-Za-z0-9][sr]k_(?:live|test)_)"
    r"[A-Za-z0-9]{16,247}(?![A-Za-z0-9])"
)
_STRIPE_WEBHOOK_RE = re.compile(r"whsec_(?<![A-Za-z0-9]whsec_)[A-Za-z0-9]{24,100}(?![A-Za-z0-9])")
# sk_api_key: "sk-" keys (OpenAI sk-/sk-proj-/sk-svcacct-, Anthropic sk-ant-api03-, and
# the providers that copied the shape). A digit or capital is required (_find_sk) so
# that a slug such as "sk-learn-style-pipelines-explained" is left alone.
_SK_RE = re.compile(rf"sk-(?<![A-Za-z0-9]sk-)[{_B64URL}]{{20,400}}")
_UPPER_OR_DIGIT_RE = re.compile(r"[A-Z0-9]")
# google_api_key: "AIza" + 35 characters.
_GOOGLE_RE = re.compile(rf"AIza(?<![A-Za-z0-9]AIza)[{_B64URL}]{{35}}(?![{_B64URL}])")
# aws_key: access key ids, AKIA (long-term) and ASIA (temporary); the secret access key
# is found by its name, with the key_value shapes (see _find_aws).
_AWS_ID_RE = re.compile(r"A[KS]IA(?<![A-Za-z0-9]A[KS]IA)[A-Z0-9]{16}(?![A-Za-z0-9])")
_AWS_SECRET_RE = re.compile(r"[A-Za-z0-9/+=]{40}")
# telegram_bot_token: "<bot id, 8-10 digits>:<35 characters starting AA>".
_TELEGRAM_RE = re.compile(rf":AA(?<=[0-9]:AA)[{_B64URL}]{{33}}(?![{_B64URL}])")
# jwt: header.payload.signature in base64url; the header is JSON, so it starts "eyJ".
# Up to four dots also covers JWE's five parts.
_JWT_RE = re.compile(
    rf"eyJ(?<![{_B64URL}]eyJ)[{_B64URL}]{{8,}}\.[{_B64URL}]{{8,}}(?:\.[{_B64URL}]*){{1,3}}"
)
# url_credentials: scheme://user:password@host. Only the password is hidden (a user name
# helps the reader and is rarely secret), unless the user name itself looks like a token.
_URL_USERINFO_RE = re.compile(r"://(?P<user>[^\s/?#@:\[\]]{0,256})(?::(?P<pw>[^\s/?#]{1,256}))?@")
_TOKENISH_RE = re.compile(r"[A-Za-z0-9_.~-]{20,}")
# hex: >= 32 hex digits between word boundaries: MD5 and longer digests, raw keys, and
# also 40-character git commit ids (turn the family off for a record of commits). Runs
# are seeded at a digit with 16 hex characters on one side, because a digit is rarer
# in prose than the letters a-f (measured 1.7x faster); a 32-character run without any
# digit, which a random hex string has with probability (6/16)**32, is not matched.
_HEX_SEED_RE = re.compile(r"[0-9](?:(?=[0-9a-fA-F]{16})|(?<=[0-9a-fA-F]{17}))")
_HEX_RUN_RE = re.compile(r"[0-9a-fA-F]+")
_MIN_HEX = 32


# prefixed_token: the shape most vendors now share and the families above do not all
# name (GitLab glpat-, Hugging Face hf_, npm npm_, PyPI pypi-, DigitalOcean dop_v1_, and
# any "<vendor>_<random>" key): a short lowercase prefix, "_" or "-", then a long run
# that looks random. Searched from the separator (a literal) and checked in Python
# (_random_looking). The run must hold >= 20 letters/digits with one segment of >= 16,
# so UUIDs (8-4-4-4-12) and snake_case words stay. Then, measured on 20,000 random runs
# of each vendor shape against identifiers such as getUserAccountSettings:
# * hex needs digits and letters and 2.5 bits of entropy per character (random 20-digit
#   hex: 0.1% below 2.7; "aaaa1111bbbb" has 1.6);
# * other runs need two character classes, a class switch at >= 0.2 of the characters
#   (random base62 is ~0.6, its 0.1st percentile 0.26; "ubuntu2204jammyjellyfish" 0.09),
#   3 bits of entropy, and, when they mix cases, fewer than 95% of their letters in
#   CamelCase words (pieces of >= 3 letters with a vowel): an identifier is ~100% words,
#   a random 20-character run 90% at its 99.9th percentile.
_PREFIX_SEPARATOR_RE = re.compile(r"[_-](?<=[a-z0-9][_-])(?=[A-Za-z0-9_-]{20})")
_TOKEN_RUN_RE = re.compile(r"[A-Za-z0-9_-]+")
_PREFIX_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")
_LOWER_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyz")
_RUN_CHARS = _WORD_CHARS | {"-"}
_MAX_PREFIX = 10
_MIN_RANDOM_CHARS = 20
_MIN_RANDOM_SEGMENT = 16
_MIN_HEX_ENTROPY = 2.5
_MIN_CLASS_SWITCHES = 0.2
_MIN_ENTROPY_BITS = 3.0
_MAX_WORD_SHARE = 0.95
_LOWER_HEX = frozenset("0123456789abcdef")
_UPPER_HEX = frozenset("0123456789ABCDEF")
_SEGMENT_SPLIT_RE = re.compile(r"[_-]+")
_WORD_PIECE_RE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
_VOWELS = frozenset("aeiouyAEIOUY")


def _char_class(char: str) -> int:
    return 0 if char.isdigit() else 1 if char.islower() else 2


def _entropy(chars: str) -> float:
    """Shannon entropy of ``chars`` in bits per character."""
    size = len(chars)
    return -sum(n / size * math.log2(n / size) for n in map(chars.count, set(chars)))


def _word_share(chars: str) -> float:
    """The share of letters in CamelCase pieces that read like words (3+ letters, a vowel)."""
    letters = sum(char.isalpha() for char in chars)
    words = sum(
        len(piece)
        for piece in _WORD_PIECE_RE.findall(chars)
        if len(piece) >= 3 and piece[0].isalpha() and not _VOWELS.isdisjoint(piece)
    )
    return words / letters if letters else 0.0


def _random_looking(body: str) -> bool:
    """True when ``body`` (what follows a token prefix) reads as a random secret."""
    segments = [part for part in _SEGMENT_SPLIT_RE.split(body) if part]
    chars = "".join(segments)
    if len(chars) < _MIN_RANDOM_CHARS or max(map(len, segments)) < _MIN_RANDOM_SEGMENT:
        return False
    distinct = set(chars)
    if distinct <= _LOWER_HEX or distinct <= _UPPER_HEX:
        return (
            not distinct <= _DIGITS
            and not distinct.isdisjoint(_DIGITS)
            and (_entropy(chars) >= _MIN_HEX_ENTROPY)
        )
    classes = [_char_class(char) for char in chars]
    kinds = set(classes)
    if len(kinds) < 2:
        return False
    switches = sum(a != b for a, b in zip(classes, classes[1:])) / (len(classes) - 1)
    if switches < _MIN_CLASS_SWITCHES or _entropy(chars) < _MIN_ENTROPY_BITS:
        return False
    return not {1, 2} <= kinds or _word_share(chars) < _MAX_WORD_SHARE


def _prefixed_in_run(run: str) -> Span | None:
    """The prefixed token in ``run`` (a maximal stretch of letters, digits, "_", "-").

    Each separator is tried in turn with the segment before it as the prefix, so
    ``MY_tk_<hex>`` finds ``tk_<hex>``; the first that fits wins (the longest body).
    """
    segments = _SEGMENT_SPLIT_RE.split(run)
    if max(map(len, segments)) < _MIN_RANDOM_SEGMENT:
        return None  # the common case, snake_case and kebab-case words: one split
    end = len(run.rstrip("_-"))
    for separator in _SEGMENT_SPLIT_RE.finditer(run, 0, end):
        prefix_start = run.rfind("_", 0, separator.start()) + 1
        prefix_start = max(prefix_start, run.rfind("-", 0, separator.start()) + 1)
        prefix = run[prefix_start : separator.start()]
        if (
            0 < len(prefix) <= _MAX_PREFIX
            and prefix[0] in _LOWER_LETTERS
            and _PREFIX_CHARS.issuperset(prefix)
            and _random_looking(run[separator.end() : end])
        ):
            return prefix_start, end
    return None


def _find_prefixed(scan: _Scan) -> list[Span]:
    text = scan.text
    spans = []
    position = 0
    while True:
        separator = _PREFIX_SEPARATOR_RE.search(text, position)
        if separator is None:
            return spans
        start = separator.start()
        while start > 0 and text[start - 1] in _RUN_CHARS:
            start -= 1
        end = position = _TOKEN_RUN_RE.match(text, separator.start()).end()
        found = _prefixed_in_run(text[start:end])
        if found is not None:
            spans.append((start + found[0], start + found[1]))


def _regex_spans(pattern: re.Pattern[str], text: str, group: str | int = 0) -> list[Span]:
    return [match.span(group) for match in pattern.finditer(text)]


def _find_sk(scan: _Scan) -> list[Span]:
    return [
        match.span()
        for match in _SK_RE.finditer(scan.text)
        if _UPPER_OR_DIGIT_RE.search(scan.text, match.start() + 3, match.end())
    ]


def _find_telegram(scan: _Scan) -> list[Span]:
    text = scan.text
    spans = []
    for match in _TELEGRAM_RE.finditer(text):
        digits = match.start()
        while digits > 0 and match.start() - digits < 11 and text[digits - 1] in _DIGITS:
            digits -= 1
        before = text[digits - 1] if digits else ""
        if 8 <= match.start() - digits <= 10 and before not in _WORD_CHARS and before != ":":
            spans.append((digits, match.end()))
    return spans


def _find_url_credentials(scan: _Scan) -> list[Span]:
    spans = []
    for match in _URL_USERINFO_RE.finditer(scan.text):
        password, user = match.group("pw"), match.group("user")
        if password is not None:
            if not _is_placeholder(password):
                spans.append(match.span("pw"))
        elif _TOKENISH_RE.fullmatch(user) and any(char.isdigit() for char in user):
            spans.append(match.span("user"))
    return spans


def _find_hex(scan: _Scan) -> list[Span]:
    text = scan.text
    spans = []
    covered = -1
    for seed in _HEX_SEED_RE.finditer(text):
        if seed.start() < covered:
            continue  # another digit of a run already handled
        start = seed.start()
        while start > 0 and text[start - 1] in _HEX_CHARS:
            start -= 1
        end = covered = _HEX_RUN_RE.match(text, seed.start()).end()
        if end - start < _MIN_HEX:
            continue
        if (start and text[start - 1] in _WORD_CHARS) or (
            end < len(text) and text[end] in _WORD_CHARS
        ):
            continue
        run = text[start:end]
        if run.islower() or run.isupper() or run.isdigit():  # one case, like real hex
            spans.append((start, end))
    return spans


# ------------------------------------------------------------------ keyed secrets
#
# key_value, bearer_token (Authorization headers) and aws_key (secret access keys) all
# look for a key, a separator and a value. Keys are found backwards from the separator:
# ":" and "=" are literals rare in prose, so running reversed patterns on the reversed
# text lets ``re`` jump from separator to separator, where a forward search must try
# every letter that can start a key word (measured ~10x slower on 5 MB of SciFact).
#
# A key ends with a stem ("password", "secret", "token", "api_key", ...) and at most two
# suffixes ("_key", "_base", "_value", "_hash"); anything may come before the stem
# (PGPASSWORD, db.password, clientSecret). Then an optional closing quote or Markdown
# emphasis, spaces, and the separator. So "token_count: 5", "passwordless: true",
# "max_tokens: 4096" and "the password policy says" do not match.
_KEY_TAIL_REVERSED = (
    r"(?P<pre>[ \t]{0,64})(?P<close>[\"'`]|\*\*|__)?(?:(?:yek|esab|eulav|hsah)[_-]?){0,2}"
    r"(?:(?P<stem>d(?:ro)?wssap|esarhpssap|dwp|terces|nekot|s?laitnederc"
    r"|yek[_-]?(?:ipa|ssecca|etavirp|htua))|(?P<auth>noitazirohtua))"
)
_KEY_PATTERNS_REVERSED = tuple(
    re.compile(separator + _KEY_TAIL_REVERSED, re.IGNORECASE)
    for separator in (
        r":(?<![:=]:)",  # "key: v" (not "::", and ":=" is the next pattern's)
        r"=(?<![=>]=):?",  # "key = v" and "key := v" (not "==" nor "=>")
        r">=",  # "key => v"
    )
)
_AUTHORITY_END = frozenset(" \t\r\n/?#@")
_AFTER_SEPARATOR_RE = re.compile(r"[ \t]*(?:\*\*|__)?[ \t]*")
_AUTH_SCHEME_RE = re.compile(
    r"[\"'`]?(?:(?:bearer|basic|token|bot|apikey|digest)[ \t]+)?", re.IGNORECASE
)
_HEADER_VALUE_RE = re.compile(r"[^\s\"'`<>,;]+")
# A bare "bearer <token>" outside a header counts only when the token looks like one
# (>= 12 token characters with a digit), so "the bearer of bad news" survives.
# Searched from "earer" (a literal ``re`` can jump to) and checked backwards for the "b":
# "bearer", "Bearer" and "BEARER" are the spellings people write.
_BEARER_RES = (
    re.compile(r"earer(?<=[bB]earer)[ \t]+"),
    re.compile(r"EARER(?<=BEARER)[ \t]+"),
)
_BEARER_VALUE_RE = re.compile(r"[A-Za-z0-9._~+/-]{12,1024}=*(?![A-Za-z0-9._~+/=-])")
# The command-line shape: --password VALUE, --db-token VALUE, --api-key VALUE.
_FLAG_RE = re.compile(
    r"--(?:[a-z0-9]+-)*(?:passw(?:or)?d|passphrase|secret|token|api-?key|access-?key)[ \t]+",
    re.IGNORECASE,
)
_FLAG_VALUE_RE = re.compile(r"[^\s`\"']+")

_MAX_VALUE = 1024  # bounds the work per key; a longer "value" is prose, not a secret
_MAX_BLOCK = 16384  # bounds a YAML block scalar (password: |) read line by line
_QUOTED_RES = {
    '"': re.compile(r'"((?:[^"\\\r\n]|\\.)*)'),
    "'": re.compile(r"'([^'\r\n]*)"),
    "`": re.compile(r"`([^`\r\n]*)"),
}
_COMPACT_VALUE_RE = re.compile(r"[^\s&;`\"']+")
_REST_OF_LINE_RE = re.compile(r"[^\r\n]*")
_BLOCK_SCALAR_RE = re.compile(r"[|>][+-]?[0-9]?")
# Values that are clearly not secrets: empty markers, references to where the secret
# lives, and text already masked by hand.
_PLACEHOLDER_RE = re.compile(
    r"\$\{?[A-Z_][A-Z0-9_]*\}?"  # $DB_PASSWORD, ${DB_PASSWORD}
    r"|%[A-Z_][A-Z0-9_]*%"  # %DB_PASSWORD%
    r"|\$?\{\{[^{}]*\}\}"  # {{ vault_pw }}, ${{ secrets.TOKEN }}
    r"|<[^<>]*>"  # <your-token>
    r"|\*{3,}|x{3,}|X{3,}|\u2022{3,}|\.\.\.|\u2026"
)
_PLACEHOLDER_WORDS = frozenset(
    {"", "~", "null", "none", "nil", "true", "false", "undefined", '""', "''", 'b""', "b''"}
)
# A bare value that is code rather than a secret: a call or subscript (get_token(),
# os.environ["PW"]) or a type annotation (password: str). Digits rule out the call
# shape, since tokens carry them and code names mostly do not. An attribute path alone
# (self.password_grant) is still redacted: a dotted passphrase looks the same.
_CODE_VALUE_RE = re.compile(
    r"[A-Za-z_]+(?:\.[A-Za-z_]+)*[(\[].*"
    r"|(?:str|bytes|int|float|bool|Any|Optional|Union|dict|list|tuple|Callable)"
    r"(?:(?:[\[\]),|]| =| \|).*)?"
    r"|typing\..*"
)
_IDENTIFIER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.")


def _is_placeholder(value: str) -> bool:
    """True for values that hold no secret, including one already redacted.

    A value that starts with a mark is left alone: otherwise each rescan of redacted
    text would find the value again and hide the next ``_MAX_VALUE`` characters.
    """
    return (
        value.lower() in _PLACEHOLDER_WORDS
        or value.startswith("[REDACTED")
        or _PLACEHOLDER_RE.fullmatch(value) is not None
    )


@dataclass(frozen=True)
class _Keyed:
    """A value found after a key: ``kind`` is "auth" (Authorization), "aws" or "kv"."""

    kind: str
    start: int
    end: int


def _quoted_value(text: str, pos: int, limit: int) -> Span | None:
    quote = text[pos]
    start, end = _QUOTED_RES[quote].match(text, pos, limit).span(1)
    if end >= len(text) or text[end] != quote:  # unterminated: runs to the end of line
        end = start + len(text[start:end].rstrip())
    if _is_placeholder(text[start:end]):
        return None
    return start, end


def _block_scalar(text: str, key_start: int, line_end: int) -> Span | None:
    """The lines of a YAML block scalar (``password: |``) indented deeper than its key."""
    line_start = text.rfind("\n", 0, key_start) + 1
    key_line = text[line_start:key_start]
    indent = len(key_line) - len(key_line.lstrip(" \t"))
    first = last = -1
    pos = line_end + 1
    stop = min(len(text), line_end + _MAX_BLOCK)
    while pos < stop:
        end = text.find("\n", pos, stop)
        end = stop if end < 0 else end
        line = text[pos:end]
        body = line.lstrip(" \t")
        if body.strip():
            if len(line) - len(body) <= indent:
                break
            if first < 0:
                first = pos + len(line) - len(body)
            last = pos + len(line.rstrip())
        pos = end + 1
    if first < 0 or text.startswith("[REDACTED", first):
        return None
    return first, last


def _value_span(text: str, pos: int, *, compact: bool, key_start: int) -> Span | None:
    """The secret part of the value starting at ``pos``; None when there is none.

    Quoted values end at their quote. Without spaces around the separator (env files,
    URLs, ``--password=x``) a value ends at whitespace, ``&`` or ``;``. Otherwise (YAML,
    INI, prose) it runs to the end of the line, less a `` #`` comment or a table cell
    border, since an unquoted YAML value may hold spaces.
    """
    limit = min(len(text), pos + _MAX_VALUE)
    if pos >= limit or text[pos] in "\r\n":
        return None
    if text[pos] in _QUOTED_RES:
        return _quoted_value(text, pos, limit)
    ident_start, ident_end = _identifier_span(text, key_start)
    opener = text[ident_start - 1] if ident_start else ""  # a quote the key sits in
    if compact:
        value = _COMPACT_VALUE_RE.match(text, pos, limit)
        value = value.group().rstrip(".,:)]}>") if value else ""
    else:
        value = _REST_OF_LINE_RE.match(text, pos, limit).group()
        for cut in (" #", "\t#", " |"):
            index = value.find(cut)
            if index >= 0:
                value = value[:index]
        value = value.rstrip().rstrip(",;")
        if opener in _QUOTED_RES and value.endswith(opener):
            value = value[:-1].rstrip()  # x = "password: abc" - the string's own quote
        if _BLOCK_SCALAR_RE.fullmatch(value):
            line_end = text.find("\n", pos)
            return _block_scalar(text, key_start, len(text) if line_end < 0 else line_end)
    if _is_placeholder(value) or _CODE_VALUE_RE.fullmatch(value):
        return None
    if value.rpartition(".")[2].lower() == text[ident_start:ident_end].rpartition(".")[2].lower():
        return None  # passwd = passwd, self.token = token: a variable handed on
    return pos, pos + len(value)


def _identifier_span(text: str, inside: int) -> Span:
    """The dotted identifier around ``inside`` (``self.passwd``), at most 128 each way."""
    start = end = inside
    while start > 0 and inside - start < 128 and text[start - 1] in _IDENTIFIER_CHARS:
        start -= 1
    while end < len(text) and end - inside < 128 and text[end] in _IDENTIFIER_CHARS:
        end += 1
    return start, end


def _in_url_authority(text: str, position: int) -> bool:
    """True when ``position`` lies in the user-info part of a URL (``scheme://HERE@``)."""
    window = text[max(0, position - 256) : position]
    scheme = window.rfind("://")
    return scheme >= 0 and not any(char in _AUTHORITY_END for char in window[scheme + 3 :])


def _scan_keyed(text: str, reversed_text: str) -> list[_Keyed]:
    size = len(text)
    found = []
    for pattern in _KEY_PATTERNS_REVERSED:
        for match in pattern.finditer(reversed_text):
            separator_end = size - match.start()
            key_start = size - match.end()
            after = _AFTER_SEPARATOR_RE.match(text, separator_end)
            compact = not (match.group("pre") or after.group().strip("*_"))  # no spaces
            if match.group("auth"):
                value_start = _AUTH_SCHEME_RE.match(text, after.end()).end()
                value = _HEADER_VALUE_RE.match(text, value_start, value_start + _MAX_VALUE)
                if value and not (
                    _is_placeholder(value.group()) or _CODE_VALUE_RE.fullmatch(value.group())
                ):
                    found.append(_Keyed("auth", *value.span()))
                continue
            stem = match.group("stem").lower()
            if key_start and text[key_start - 1].isdigit():
                continue  # "1Password: ..." names a product
            if _in_url_authority(text, key_start):
                continue  # scheme://x-access-token:SECRET@host is url_credentials' job
            if stem == "dwp" and (
                separator_end - key_start != 4 or text.startswith(("/", "~"), after.end())
            ):
                continue  # "pwd: /home/me", "PWD=/home/me" are directories; "Pwd=x;" is not
            value_start = after.end()
            ident_start = _identifier_span(text, key_start)[0]
            if (
                ident_start
                and value_start < size
                and text[value_start] in _QUOTED_RES
                and text[value_start] == text[ident_start - 1]
                and not match.group("close")
            ):
                continue  # prompt='Password: ' - the key sits in a string that ends here
            span = _value_span(text, value_start, compact=compact, key_start=key_start)
            if span is None:
                continue
            kind = "kv"
            if stem.replace("_", "").replace("-", "") == "yekssecca":
                key = text[max(0, key_start - 7) : key_start].lower().rstrip("_-")
                if key.endswith("secret"):
                    kind = "aws"
            found.append(_Keyed(kind, *span))
    return found


def _find_flags(scan: _Scan) -> list[Span]:
    text = scan.text
    spans = []
    for match in _FLAG_RE.finditer(text):
        pos = match.end()
        if pos >= len(text) or text[pos] == "-":
            continue  # the next flag, not a value
        if text[pos] in _QUOTED_RES:
            span = _quoted_value(text, pos, min(len(text), pos + _MAX_VALUE))
        else:
            value = _FLAG_VALUE_RE.match(text, pos, pos + _MAX_VALUE)
            span = value.span() if value and not _is_placeholder(value.group()) else None
        if span:
            spans.append(span)
    return spans


def _find_key_values(scan: _Scan) -> list[Span]:
    spans = [(item.start, item.end) for item in scan.keyed() if item.kind != "auth"]
    return spans + _find_flags(scan) if "--" in scan.text else spans


def _find_bearer(scan: _Scan) -> list[Span]:
    text = scan.text
    spans = [(item.start, item.end) for item in scan.keyed() if item.kind == "auth"]
    for pattern in _BEARER_RES if "earer" in text or "EARER" in text else ():
        for match in pattern.finditer(text):
            word_start = match.start() - 1
            if word_start and text[word_start - 1] in _WORD_CHARS:
                continue
            value = _BEARER_VALUE_RE.match(text, match.end())
            if value and any(char in _DIGITS for char in value.group()):
                spans.append(value.span())
    return spans


def _find_aws(scan: _Scan) -> list[Span]:
    text = scan.text
    spans = _regex_spans(_AWS_ID_RE, text) if "AKIA" in text or "ASIA" in text else []
    for item in scan.keyed():
        if item.kind == "aws" and _AWS_SECRET_RE.fullmatch(text, item.start, item.end):
            spans.append((item.start, item.end))
    return spans


class _Scan:
    """One text under scan, with the work several families share done at most once."""

    __slots__ = ("_keyed", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self._keyed: list[_Keyed] | None = None

    def keyed(self) -> list[_Keyed]:
        if self._keyed is None:
            text = self.text
            self._keyed = _scan_keyed(text, text[::-1]) if ":" in text or "=" in text else []
        return self._keyed


def _gated(needles: tuple[str, ...], find: Callable[[_Scan], list[Span]]) -> Callable:
    """Run ``find`` only when one of ``needles`` occurs: ``in`` costs far less than a
    regex call on the short texts most notes are (28 vs 20 MB/s, SciFact note by note)."""
    return lambda scan: find(scan) if any(needle in scan.text for needle in needles) else []


def _spans_of(pattern: re.Pattern[str], group: str | int = 0, shift: int = 0) -> Callable:
    """Spans of ``group`` in each match, started ``shift`` characters earlier."""

    def find(scan: _Scan) -> list[Span]:
        return [(start - shift, end) for start, end in _regex_spans(pattern, scan.text, group)]

    return find


def _either(*finders: Callable[[_Scan], list[Span]]) -> Callable:
    return lambda scan: [span for find in finders for span in find(scan)]


_PATTERN_FINDERS: dict[str, Callable[[_Scan], list[Span]]] = {
    "private_key": _gated(("-----BEGIN",), _spans_of(_PEM_RE)),
    "github_token": _gated(("_",), _spans_of(_GITHUB_RE)),
    "slack_token": _gated(
        ("xox", "xapp-", "hooks.slack.com"),
        _either(_spans_of(_SLACK_RE), _spans_of(_SLACK_WEBHOOK_RE, "v")),
    ),
    "stripe_key": _gated(
        ("_live_", "_test_", "whsec_"),
        _either(_spans_of(_STRIPE_KEY_RE, shift=2), _spans_of(_STRIPE_WEBHOOK_RE)),
    ),
    "sk_api_key": _gated(("sk-",), _find_sk),
    "google_api_key": _gated(("AIza",), _spans_of(_GOOGLE_RE)),
    "aws_key": _find_aws,
    "telegram_bot_token": _gated((":AA",), _find_telegram),
    "prefixed_token": _gated(("_", "-"), _find_prefixed),
    "jwt": _gated(("eyJ",), _spans_of(_JWT_RE)),
    "url_credentials": _gated(("://",), _find_url_credentials),
    "bearer_token": _find_bearer,
    "key_value": _find_key_values,
    "hex": _find_hex,
}


# ------------------------------------------------------------------- overlap handling


def _subtract(candidates: list[Span], blocked: list[Span]) -> list[Span]:
    """The parts of ``candidates`` (sorted by start) outside ``blocked`` (sorted, disjoint)."""
    pieces = []
    first = 0
    for start, end in candidates:
        while first < len(blocked) and blocked[first][1] <= start:
            first += 1
        cursor = start
        index = first
        while index < len(blocked) and blocked[index][0] < end:
            block_start, block_end = blocked[index]
            if block_start > cursor:
                pieces.append((cursor, block_start))
            cursor = max(cursor, block_end)
            index += 1
        if cursor < end:
            pieces.append((cursor, end))
    return pieces


def _union(spans: list[Span], text: str) -> list[Span]:
    """Merge the overlapping spans of one family, trimming whitespace off their edges."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start >= end:
            continue
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _apply(text: str, findings: list[Finding]) -> tuple[str, list[int], list[int]]:
    """Replace the spans; also say where each mark ends, in the output and in ``text``."""
    pieces = []
    mark_ends = []
    source_ends = []
    cursor = length = 0
    for family, start, end in findings:
        replacement = mark(family)
        pieces += (text[cursor:start], replacement)
        length += start - cursor + len(replacement)
        mark_ends.append(length)
        source_ends.append(end)
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces), mark_ends, source_ends


# ---------------------------------------------------------------------- secret hashes


@dataclass(frozen=True)
class SecretHashes:
    """Salted SHA-256 hashes of exact secrets, as read from a hash file.

    ``hashes`` are lowercase hex digests of ``salt + secret`` (UTF-8); tokens shorter
    than ``min_length`` are never hashed.
    """

    salt: bytes
    hashes: frozenset[str]
    min_length: int = DEFAULT_MIN_LENGTH

    def digest(self) -> str:
        """A stable digest of the whole configuration (salt, length floor, hashes)."""
        canonical = json.dumps([self.salt.hex(), self.min_length, sorted(self.hashes)])
        return hashlib.sha256(canonical.encode("ascii")).hexdigest()

    def __repr__(self) -> str:  # short, and without the salt
        return f"SecretHashes(<{len(self.hashes)} hashes>, min_length={self.min_length})"


def hash_secret(secret: str, salt: bytes) -> str:
    """Hex SHA-256 of ``salt`` followed by ``secret`` encoded as UTF-8."""
    return hashlib.sha256(salt + secret.encode("utf-8", "surrogatepass")).hexdigest()


_CANDIDATE_OPEN = "\"'([{<`*"
_CANDIDATE_CLOSE = "\"')]}>`*.,;:!?"
_KEY_SEPARATOR_RE = re.compile(r"[=:]+")
_UNSEEN = object()


def _token_candidates(token: str) -> Iterator[Span]:
    """Spans in ``token`` to hash: all of it, without wrapping punctuation, a value."""
    yield 0, len(token)
    start, end = 0, len(token)
    while start < end and token[start] in _CANDIDATE_OPEN:
        start += 1
    while end > start and token[end - 1] in _CANDIDATE_CLOSE:
        end -= 1
    if (start, end) != (0, len(token)):
        yield start, end
    separator = _KEY_SEPARATOR_RE.search(token, start, end)
    if separator:
        value_start = separator.end()
        while value_start < end and token[value_start] in _CANDIDATE_OPEN:
            value_start += 1
        yield value_start, end


def _hash_finder(hashes: SecretHashes) -> Callable[[_Scan], list[Span]]:
    shortest = hashes.min_length
    token_re = re.compile(rf"\S{{{shortest},}}")
    targets = frozenset(bytes.fromhex(value) for value in hashes.hashes)
    salted = hashlib.sha256(hashes.salt)

    def match_token(token: str) -> Span | None:
        for start, end in _token_candidates(token):
            if shortest <= end - start <= MAX_CANDIDATE_LENGTH:
                digest = salted.copy()
                digest.update(token[start:end].encode("utf-8", "surrogatepass"))
                if digest.digest() in targets:
                    return start, end
        return None

    # Verdicts outlive one call: a vault repeats its vocabulary, so most tokens of a
    # note were hashed for an earlier one. Bounded; thread-safe as dict get/set are.
    verdicts: dict[str, object] = {}

    def find(scan: _Scan) -> list[Span]:
        # Hash each distinct token once; look for positions only when one matched.
        hits = {}
        for token in set(token_re.findall(scan.text)):
            span = verdicts.get(token, _UNSEEN)
            if span is _UNSEEN:
                if len(verdicts) >= _VERDICT_CACHE_SIZE:
                    verdicts.clear()
                span = verdicts[token] = match_token(token)
            if span is not None:
                hits[token] = span
        if not hits:
            return []
        spans = []
        for token in token_re.finditer(scan.text):
            span = hits.get(token.group())
            if span is not None:
                spans.append((token.start() + span[0], token.start() + span[1]))
        return spans

    return find


def load_secret_hashes(path: str | os.PathLike) -> SecretHashes:
    """Read and check a hash file; any problem raises ``RedactionError`` (fail closed)."""
    where = os.fspath(path)
    try:
        with open(where, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise RedactionError(
            f"secret-hash file not found: {where} — generate it with write_secret_hashes() "
            "where the secrets live and copy it here, or stop configuring it"
        ) from None
    except OSError as exc:
        raise RedactionError(f"cannot read secret-hash file {where}: {exc}") from None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise _hash_file_error(where, f"not UTF-8 JSON ({exc})") from None
    return _parse_hash_file(data, where)


def _hash_file_error(where: str, problem: str) -> RedactionError:
    return RedactionError(
        f"secret-hash file {where}: {problem} — expected "
        f'{{"format": "{HASH_FILE_FORMAT}", "algorithm": "sha256", "salt": "<hex>", '
        '"min_length": 8, "hashes": ["<64 hex>", ...]}; regenerate it with '
        "write_secret_hashes()"
    )


def _parse_hash_file(data: object, where: str) -> SecretHashes:
    def check(ok: bool, problem: str) -> None:
        if not ok:
            raise _hash_file_error(where, problem)

    if not isinstance(data, dict):
        raise _hash_file_error(where, "the top level is not a JSON object")
    unknown = sorted(set(data) - set(_HASH_FILE_KEYS))
    missing = [key for key in _HASH_FILE_KEYS if key not in data]
    check(not unknown, f"unknown key(s) {', '.join(map(repr, unknown))}")
    check(not missing, f"missing key(s) {', '.join(map(repr, missing))}")
    check(
        data["format"] == HASH_FILE_FORMAT,
        f"format is {data['format']!r}, this version reads {HASH_FILE_FORMAT!r}",
    )
    check(data["algorithm"] == "sha256", f"algorithm is {data['algorithm']!r}, not 'sha256'")
    salt_hex = data["salt"]
    check(
        isinstance(salt_hex, str) and re.fullmatch(r"(?:[0-9a-fA-F]{2})+", salt_hex) is not None,
        "salt is not a hex string",
    )
    salt = bytes.fromhex(salt_hex)
    check(len(salt) >= _MIN_SALT_BYTES, f"salt is shorter than {_MIN_SALT_BYTES} bytes")
    min_length = data["min_length"]
    check(
        type(min_length) is int and 1 <= min_length <= MAX_CANDIDATE_LENGTH,
        f"min_length is not an integer from 1 to {MAX_CANDIDATE_LENGTH}",
    )
    hashes = data["hashes"]
    check(isinstance(hashes, list), "hashes is not a list")
    for index, value in enumerate(hashes):
        check(
            isinstance(value, str) and re.fullmatch(r"[0-9a-fA-F]{64}", value) is not None,
            f"hashes[{index}] is not a 64-character hex SHA-256 digest",
        )
    return SecretHashes(salt, frozenset(value.lower() for value in hashes), min_length)


def write_secret_hashes(
    secrets: Iterable[str],
    path: str | os.PathLike,
    *,
    salt: bytes | None = None,
    min_length: int = DEFAULT_MIN_LENGTH,
) -> None:
    """Write the hash file for ``secrets``; run it where the secrets live.

    Surrounding whitespace is stripped and blank entries skipped. A secret that could
    never match (shorter than ``min_length``, longer than 512 characters, or holding
    whitespace, since matching compares whitespace-free tokens) raises
    ``RedactionError`` instead of being silently useless. The file is replaced
    atomically; a random 16-byte salt is drawn when ``salt`` is None.
    """
    if isinstance(secrets, str):
        raise RedactionError("secrets must be an iterable of strings, not one string")
    salt = _random.token_bytes(_SALT_BYTES) if salt is None else salt
    if not isinstance(salt, bytes) or len(salt) < _MIN_SALT_BYTES:
        raise RedactionError(f"salt must be bytes of length >= {_MIN_SALT_BYTES}, or None")
    if type(min_length) is not int or not 1 <= min_length <= MAX_CANDIDATE_LENGTH:
        raise RedactionError(f"min_length must be an integer from 1 to {MAX_CANDIDATE_LENGTH}")
    hashes = set()
    for number, secret in enumerate(secrets, start=1):
        if not isinstance(secret, str):
            raise RedactionError(f"secret #{number} is not a string")
        secret = secret.strip()
        if not secret:
            continue
        if any(char.isspace() for char in secret):
            raise RedactionError(
                f"secret #{number} contains whitespace and could never match — "
                "hash matching compares whitespace-free tokens"
            )
        if not min_length <= len(secret) <= MAX_CANDIDATE_LENGTH:
            raise RedactionError(
                f"secret #{number} has {len(secret)} characters and could never match — "
                f"only lengths {min_length} to {MAX_CANDIDATE_LENGTH} are hashed "
                "(lower min_length to include it)"
            )
        hashes.add(hash_secret(secret, salt))
    document = {
        "format": HASH_FILE_FORMAT,
        "algorithm": "sha256",
        "salt": salt.hex(),
        "min_length": min_length,
        "hashes": sorted(hashes),
    }
    atomic_write_text(path, json.dumps(document, indent=2) + "\n")


# --------------------------------------------------------------------------- redactor


class Redactor:
    """Finds and replaces secrets. Immutable, so one instance can serve many threads.

    ``disabled`` names families to skip (``["hex"]`` for a record full of commit ids);
    ``secret_hashes`` turns on exact-secret matching (the ``secret_hash`` family).
    """

    def __init__(
        self, disabled: Iterable[str] = (), secret_hashes: SecretHashes | None = None
    ) -> None:
        names = (disabled,) if isinstance(disabled, str) else tuple(disabled)
        unknown = [name for name in names if name not in FAMILIES]
        if unknown:
            raise RedactionError(
                f"unknown redaction family {', '.join(map(repr, unknown))} — "
                f"valid families: {', '.join(FAMILIES)}"
            )
        self.disabled: frozenset[str] = frozenset(names)
        self.secret_hashes = secret_hashes
        finders = []
        for family in FAMILIES:
            if family in self.disabled:
                continue
            if family != "secret_hash":
                finders.append((family, _PATTERN_FINDERS[family]))
            elif secret_hashes is not None:
                finders.append((family, _hash_finder(secret_hashes)))
        self._finders = tuple(finders)
        #: The families that run, in priority order.
        self.enabled: tuple[str, ...] = tuple(family for family, _ in finders)
        described = {
            "rules": RULES_VERSION,
            "families": list(self.enabled),
            "hashes": secret_hashes.digest() if "secret_hash" in self.enabled else None,
        }
        digest = hashlib.sha256(json.dumps(described, sort_keys=True).encode("ascii"))
        #: Changes whenever redaction output could change (rules, families, hash file),
        #: so a cache built under another configuration can be detected.
        self.fingerprint: str = f"redact{RULES_VERSION}-{digest.hexdigest()[:16]}"

    def __repr__(self) -> str:
        return (
            f"Redactor(disabled={sorted(self.disabled)!r}, "
            f"secret_hashes={self.secret_hashes!r}, fingerprint={self.fingerprint!r})"
        )

    def _scan_once(self, text: str) -> list[Finding]:
        """One pass of every family in priority order, outside marks and earlier spans."""
        scan = _Scan(text)
        blocked = _regex_spans(MARK_RE, text) if "[REDACTED" in text else []
        found: list[Finding] = []
        for family, find in self._finders:
            candidates = find(scan)
            if not candidates:
                continue
            candidates.sort()
            pieces = _union(_subtract(candidates, blocked), text)
            if pieces:
                found += [(family, start, end) for start, end in pieces]
                blocked = sorted(blocked + pieces)  # two sorted runs: a linear merge
        found.sort(key=lambda finding: finding[1])
        return found

    def _resolve(self, text: str) -> tuple[list[Finding], str]:
        """Every finding in ``text``'s coordinates, and the redacted text.

        Hiding one secret can expose another shape (a value that now ends at a mark), so
        the scan repeats on its own output until it finds nothing. Each round hides at
        least one character no mark covered, so the loop ends; and since later rounds
        never touch marks, their spans map back onto untouched stretches of ``text``.
        """
        findings = self._scan_once(text)
        if not findings:
            return [], text
        while True:
            redacted, mark_ends, source_ends = _apply(text, findings)
            more = self._scan_once(redacted)
            if not more:
                return findings, redacted
            for family, start, end in more:
                index = bisect_right(mark_ends, start) - 1
                shift = source_ends[index] - mark_ends[index] if index >= 0 else 0
                findings.append((family, start + shift, end + shift))
            findings.sort(key=lambda finding: finding[1])

    def findings(self, text: str) -> list[Finding]:
        """``(family, start, end)`` of every span ``redact`` replaces: sorted, disjoint."""
        return self._resolve(text)[0]

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``[REDACTED:<family>]``."""
        return self._resolve(text)[1]

    def lookups(self, text: str) -> list[tuple[int, int, str]]:
        """``(start, end, lookup_term)`` of the hidden values in ``text`` that stay
        findable by value (``LOOKUP_FAMILIES``), in text order."""
        return [
            (start, end, lookup_term(family, text[start:end]))
            for family, start, end in self.findings(text)
            if family in LOOKUP_FAMILIES
        ]

    def count(self, text: str) -> dict[str, int]:
        """How many spans of each family ``redact`` replaces (only families found)."""
        counts = dict.fromkeys(self.enabled, 0)
        for family, _, _ in self.findings(text):
            counts[family] += 1
        return {family: number for family, number in counts.items() if number}


DEFAULT_REDACTOR = Redactor()


def redact_text(text: str) -> str:
    """Redact ``text`` with every family on and no hash file (``DEFAULT_REDACTOR``)."""
    return DEFAULT_REDACTOR.redact(text)
