"""Cross-language glossary: a query's words in the vault's other languages.

People ask in one language about a note written in another: "how do I restart pgbouncer"
about a German runbook "PgBouncer neu starten", "인증서 갱신" about an English note on
certificate renewal. BM25 cannot bridge that; a glossary row can. Each row is one concept
and its forms in several languages (``glossary_data.ROWS``, plus the vault's own
``.mnemosyne/glossary.txt`` in the same format). When a query holds one form of a
concept, :meth:`Glossary.translations` returns the terms of its other forms that the
index holds; the ranking scores them at ``RankingParams.w_glossary`` (below the query's
own words), and a note holding one of them covers the query word it translates, for
the full-match tier and the verdict: "레디스" alone finds the note about Redis.

How a form is found in a query:
- Latin-script forms by their terms, in order: ``"on-call"`` is the terms ``on call``
  and matches those two query words side by side, whatever the inflection the stemmer
  removes ("certificates" finds "certificate").
- Hangul, Han and kana forms by substring, longest first, inside a query's script run:
  Chinese and Japanese write no spaces, and Korean particles follow the word ("교훈이"
  holds "교훈"). Longest first keeps "로그인" (log-in) from also reading as "로그" (log).

What a form contributes: its terms, with a Hangul/Han/kana run reduced to the run if the
index holds it, else its two-character parts (single characters match too much). A form
whose Latin terms are not all in the index adds nothing (a partial phrase misleads).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .errors import ConfigError
from .tokenizer import (
    has_cjk,
    is_hiragana,
    is_script_run,
    is_stopword,
    normalize,
    query_units,
    stem,
)

__all__ = ["VAULT_GLOSSARY", "Glossary", "builtin_glossary", "builtin_rows", "parse_rows"]

VAULT_GLOSSARY = ".mnemosyne/glossary.txt"  # a vault's own rows, added to the built-in ones

_SEPARATOR = "|"
# Rows beyond this are refused: the glossary is read on every search that uses it.
MAX_ROWS = 20_000


@dataclass(frozen=True)
class _Form:
    """One written form of a concept: its term sequence and what it adds to a query."""

    key: tuple[str, ...]  # unit wholes, in order ("on", "call")
    text: str  # as written in the row

    @property
    def units(self) -> list[tuple[str, ...]]:
        """The form's query units (whole, *parts), analysed when first needed."""
        return _units_of(self.text)


class Glossary:
    """Concepts (rows of equivalent forms) and the look-ups that find them in a query.

    Forms are analysed lazily, a first-character bucket at a time: a glossary has
    thousands of forms, and a query touches the buckets of a few words only, so the
    first search of a process pays for those, not for all of them.
    """

    def __init__(self) -> None:
        self.rows: list[list[str]] = []
        self._buckets: dict[str, list[tuple[str, int]]] = {}  # first char -> (text, row)
        self._forms: dict[str, _Form | None] = {}  # text -> analysed form
        # analysed buckets' forms by their first term (Latin) or first character (CJK),
        # longest first, so "로그인" wins over "로그" and "object storage" over "object"
        self._latin: dict[str, list[tuple[tuple[str, ...], int]]] = {}
        self._cjk: dict[str, list[tuple[str, int]]] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_rows(cls, rows: Iterable[list[str]]) -> Glossary:
        glossary = cls()
        for forms in rows:
            row = len(glossary.rows)
            glossary.rows.append(list(forms))
            for text in forms:
                first = _bucket_of(text)
                if first:
                    glossary._buckets.setdefault(first, []).append((text, row))
        return glossary

    def __len__(self) -> int:
        return len(self.rows)

    def _form(self, text: str) -> _Form | None:
        if text not in self._forms:
            self._forms[text] = _form(text)
        return self._forms[text]

    def _open(self, first: str) -> None:
        """Analyse the forms starting with ``first`` (once) into the look-up tables.

        The bucket leaves ``_buckets`` only once the tables hold it, and each table entry
        is replaced, never changed in place: a search in another thread either waits
        for the lock or sees complete lists.
        """
        with self._lock:
            entries = self._buckets.get(first)
            if not entries:
                return
            latin: dict[str, list[tuple[tuple[str, ...], int]]] = {}
            cjk: dict[str, list[tuple[str, int]]] = {}
            for text, row in entries:
                form = self._form(text)
                if form is None:
                    continue
                if len(form.key) == 1 and has_cjk(form.key[0]):
                    # one Hangul/Han/kana run: found inside a query run (``_scan_run``)
                    cjk.setdefault(form.key[0][0], []).append((form.key[0], row))
                else:
                    latin.setdefault(form.key[0], []).append((form.key, row))
            for table, added in ((self._latin, latin), (self._cjk, cjk)):
                for name, new in added.items():
                    merged = set(table.get(name, ())) | set(new)
                    table[name] = sorted(merged, key=lambda entry: (-len(entry[0]), entry))
            del self._buckets[first]

    def forms_of(self, row: int) -> list[_Form]:
        """The analysed forms of one row, each key once."""
        forms = (self._form(text) for text in self.rows[row])
        return list({form.key: form for form in forms if form is not None}.values())

    def concepts_in(self, units: list[tuple[str, ...]]) -> list[tuple[int, tuple[str, ...]]]:
        """The rows whose forms the query units hold: (row, the form's key)."""
        found: dict[int, tuple[str, ...]] = {}
        wholes = [unit[0] for unit in units]
        i = 0
        while i < len(wholes):
            whole = wholes[i]
            if whole[:1] in self._buckets:
                self._open(whole[0])
            step = 0
            for key, row in self._latin.get(whole, ()):
                if len(key) < step:
                    break  # a longer form matched here: shorter ones are inside it
                if _holds_form(wholes, i, key):
                    found.setdefault(row, key)
                    step = len(key)
            if not step and has_cjk(whole):
                self._scan_run(whole, found)
            i += step or 1
        return list(found.items())

    def _scan_run(self, run: str, found: dict[int, tuple[str, ...]]) -> None:
        start = 0
        while start < len(run):
            if run[start] in self._buckets:
                self._open(run[start])
            for form, row in self._cjk.get(run[start], ()):
                if run.startswith(form, start):
                    found.setdefault(row, (form,))
                    start += len(form)
                    break
            else:
                start += 1

    def translations(
        self,
        units: list[tuple[str, ...]],
        known: Callable[[str], bool],
        *,
        memo: dict | None = None,
    ) -> list[tuple[tuple[str, ...], list[tuple[str, ...]]]]:
        """Per concept found in the query: (the form found, the index terms of each of its
        other forms). A form sharing a term with the query is left out: the query's own
        terms score at full weight already.

        ``memo`` (the caller's, kept while ``known`` gives the same answers) remembers
        each concept's other forms as index terms.
        """
        own = {term for unit in units for term in unit}
        found = []
        for concept, matched in self.concepts_in(units):
            key = (concept, matched)
            others = memo.get(key) if memo is not None else None
            if others is None:
                others = [
                    terms
                    for form in self.forms_of(concept)
                    if form.key != matched and (terms := tuple(_form_terms(form, known)))
                ]
                if memo is not None:
                    memo[key] = others
            forms = dict.fromkeys(terms for terms in others if not own.intersection(terms))
            if forms:
                found.append((matched, list(forms)))
        return found

    def expansions(self, units: list[tuple[str, ...]], known: Callable[[str], bool]) -> list[str]:
        """All the terms :meth:`translations` adds, each once."""
        terms = (t for _, forms in self.translations(units, known) for form in forms for t in form)
        return list(dict.fromkeys(terms))


def _holds_form(wholes: list[str], i: int, key: tuple[str, ...]) -> bool:
    """Whether the query's unit wholes from ``i`` on spell the form ``key``.

    Term for term, except that a form ending in kana may end inside the query's last
    kana run: Japanese writes a verb's ending (okurigana) and the particles after it as
    one run, so "戻すには" holds the form "戻す" (units 戻 + す) as 戻 + すには.
    """
    n = len(key)
    if tuple(wholes[i : i + n]) == key:
        return True
    last = key[-1]
    if n < 2 or i + n > len(wholes) or not is_hiragana(last):
        return False
    end = wholes[i + n - 1]
    return tuple(wholes[i : i + n - 1]) == key[:-1] and is_hiragana(end) and end.startswith(last)


@functools.lru_cache(maxsize=4096)
def _units_of(text: str) -> list[tuple[str, ...]]:
    return query_units(text)


def _bucket_of(text: str) -> str:
    """The character a form's first term starts with: its first letter or digit, folded."""
    head = text[:1]
    if head.isascii():
        if head.isalnum():
            return head.lower()
        return next((c for c in normalize(text) if c.isalnum()), "")
    return next((c for c in normalize(text[:4]) if c.isalnum()), "")


def _form(text: str) -> _Form | None:
    # Two shortcuts give the key query_units would give, without analysing the form (a
    # glossary has thousands of forms, built on the first search): plain words are
    # their stems, one Hangul/Han/kana run is itself. tests/test_glossary.py checks
    # them against query_units for every shipped form.
    folded = normalize(text)
    words = text.split(" ")
    if folded.isascii() and all(w.isalpha() and w[1:] == w[1:].lower() for w in words):
        key = tuple(dict.fromkeys(stem(word) for word in folded.split(" ")))
    elif is_script_run(folded):
        key = (folded,)
    else:
        key = tuple(unit[0] for unit in _units_of(text))
    if not key or (len(key) == 1 and is_stopword(key[0])):
        return None
    return _Form(key=key, text=text)


def _form_terms(form: _Form, known: Callable[[str], bool]) -> list[str]:
    """What one form adds to a query: all its terms, or nothing."""
    terms: list[str] = []
    for unit in form.units:
        whole = unit[0]
        if has_cjk(whole):
            if len(whole) == 1:
                return []  # one Han or kana character matches too much
            if known(whole):
                terms.append(whole)
                continue
            pairs = [part for part in unit[1:] if len(part) == 2]
            if len(whole) == 2 or not pairs or not all(known(p) for p in pairs):
                return []
            terms.extend(pairs)
        elif is_stopword(whole):
            continue  # "copia de seguridad": "de" is not indexed
        elif known(whole):
            terms.append(whole)
        else:
            return []
    return terms


def parse_rows(text: str, source: str = "glossary") -> list[list[str]]:
    """Rows of ``"form | form | ..."``; blank lines and ``#`` comments are skipped."""
    rows: list[list[str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        forms = [form.strip() for form in line.split(_SEPARATOR)]
        forms = [form for form in forms if form]
        if len(forms) < 2:
            raise ConfigError(
                f"{source}, line {number}: a row needs two or more forms separated by "
                f"' | ', got {line!r}"
            )
        rows.append(forms)
        if len(rows) > MAX_ROWS:
            raise ConfigError(f"{source}: more than {MAX_ROWS:,} rows")
    return rows


_BUILTIN: tuple[list[list[str]], Glossary] | None = None


def _builtin() -> tuple[list[list[str]], Glossary]:
    global _BUILTIN
    if _BUILTIN is None:
        from .glossary_data import ROWS

        rows = parse_rows(ROWS, "glossary_data.ROWS")
        _BUILTIN = (rows, Glossary.from_rows(rows))
    return _BUILTIN


def builtin_rows() -> list[list[str]]:
    """The shipped rows (``glossary_data.ROWS``), parsed once per process."""
    return _builtin()[0]


def builtin_glossary() -> Glossary:
    """The shipped glossary, built once per process."""
    return _builtin()[1]
