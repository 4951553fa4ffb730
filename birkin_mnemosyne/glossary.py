"""Cross-language glossary: a query's words in the vault's other languages.

People ask in one language about a note written in another: "how do I restart pgbouncer"
about a German runbook "PgBouncer neu starten", "인증서 갱신" about an English note on
certificate renewal. BM25 cannot bridge that; a glossary row can. Each row is one concept
and its forms in several languages (``glossary_data.ROWS``, plus the vault's own
``.mnemosyne/glossary.txt`` in the same format). When a query holds one form of a
concept, :meth:`Glossary.expansions` returns the terms of its other forms that the index
holds, and the ranking scores them at ``RankingParams.w_glossary`` (below the query's
own words). For the weak-match verdict a query word counts as found in a note that holds
one of its translations, so "레디스" alone finds the note about Redis; a full match
still needs the query's own words.

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .errors import ConfigError
from .tokenizer import is_script_run, is_stopword, normalize, query_units, stem

__all__ = ["VAULT_GLOSSARY", "Glossary", "is_cjk", "builtin_glossary", "builtin_rows", "parse_rows"]

VAULT_GLOSSARY = ".mnemosyne/glossary.txt"  # a vault's own rows, added to the built-in ones

_SEPARATOR = "|"
# Rows beyond this are refused: the glossary is read on every search that uses it.
MAX_ROWS = 20_000


def is_cjk(term: str) -> bool:
    return not term.isascii() and any(
        "\u1100" <= c <= "\u11ff"
        or "\u3040" <= c <= "\u30ff"
        or "\u3130" <= c <= "\u318f"
        or "\u3400" <= c <= "\u9fff"
        or "\uac00" <= c <= "\ud7af"
        or "\uf900" <= c <= "\ufaff"
        for c in term
    )


@dataclass(frozen=True)
class _Form:
    """One written form of a concept: its term sequence and what it adds to a query."""

    key: tuple[str, ...]  # unit wholes, in order ("on", "call")
    text: str  # as written in the row

    @property
    def units(self) -> list[tuple[str, ...]]:
        """The form's query units (whole, *parts), analysed when first needed."""
        return _units_of(self.text)


@dataclass
class Glossary:
    """Concepts (rows of equivalent forms) and the look-ups that find them in a query."""

    concepts: list[list[_Form]] = field(default_factory=list)
    _latin: dict[str, list[tuple[tuple[str, ...], int]]] = field(default_factory=dict)
    _cjk: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # first char

    @classmethod
    def from_rows(cls, rows: Iterable[list[str]]) -> Glossary:
        glossary = cls()
        for forms in rows:
            glossary._add([f for f in (_form(text) for text in forms) if f is not None])
        # Longest form first, so "로그인" wins over "로그" and "object storage" over "object".
        for entries in glossary._cjk.values():
            entries.sort(key=lambda entry: -len(entry[0]))
        for entries in glossary._latin.values():
            entries.sort(key=lambda entry: -len(entry[0]))
        return glossary

    def _add(self, forms: list[_Form]) -> None:
        forms = list({form.key: form for form in reversed(forms)}.values())[::-1]
        if len(forms) < 2:
            return
        concept = len(self.concepts)
        self.concepts.append(forms)
        for form in forms:
            if len(form.key) == 1 and is_cjk(form.key[0]):
                # a one-word Hangul/Han/kana form: found inside a run (``_scan_run``)
                run = form.key[0]
                self._cjk.setdefault(run[0], []).append((run, concept))
            else:
                self._latin.setdefault(form.key[0], []).append((form.key, concept))

    def __len__(self) -> int:
        return len(self.concepts)

    def concepts_in(self, units: list[tuple[str, ...]]) -> list[tuple[int, tuple[str, ...]]]:
        """The concepts whose forms the query units hold: (concept, the form's key)."""
        found: dict[int, tuple[str, ...]] = {}
        wholes = [unit[0] for unit in units]
        i = 0
        while i < len(wholes):
            whole = wholes[i]
            step = 0
            for key, concept in self._latin.get(whole, ()):
                if len(key) < step:
                    break  # a longer form matched here: shorter ones are inside it
                if tuple(wholes[i : i + len(key)]) == key:
                    found.setdefault(concept, key)
                    step = len(key)
            if not step and is_cjk(whole):
                self._scan_run(whole, found)
            i += step or 1
        return list(found.items())

    def _scan_run(self, run: str, found: dict[int, tuple[str, ...]]) -> None:
        start = 0
        while start < len(run):
            for form, concept in self._cjk.get(run[start], ()):
                if run.startswith(form, start):
                    found.setdefault(concept, (form,))
                    start += len(form)
                    break
            else:
                start += 1

    def translations(
        self, units: list[tuple[str, ...]], known: Callable[[str], bool]
    ) -> list[tuple[tuple[str, ...], list[tuple[str, ...]]]]:
        """Per concept found in the query: (the form found, the index terms of each of its
        other forms). A form sharing a term with the query is left out: the query's own
        terms score at full weight already.
        """
        own = {term for unit in units for term in unit}
        found = []
        for concept, matched in self.concepts_in(units):
            forms: dict[tuple[str, ...], None] = {}
            for form in self.concepts[concept]:
                if form.key == matched:
                    continue
                terms = tuple(_form_terms(form, known))
                if terms and not own.intersection(terms):
                    forms.setdefault(terms, None)
            if forms:
                found.append((matched, list(forms)))
        return found

    def expansions(self, units: list[tuple[str, ...]], known: Callable[[str], bool]) -> list[str]:
        """All the terms :meth:`translations` adds, each once."""
        terms = (t for _, forms in self.translations(units, known) for form in forms for t in form)
        return list(dict.fromkeys(terms))


@functools.lru_cache(maxsize=4096)
def _units_of(text: str) -> list[tuple[str, ...]]:
    return query_units(text)


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
        if is_cjk(whole):
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
