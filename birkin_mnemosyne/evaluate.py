"""Measure search quality on a vault owner's own questions (``mnemosyne eval``).

A *case file* (JSON, or the YAML subset of ``yaml_subset``) lists questions and the
notes that answer them::

    cases:
      - q: how do I restore the database?
        expect:
          - path: runbooks/postgres-restore.md
            heading: Verify          # optional
      - q: is there anything about Kafka?
        expect: []                   # an absence case: nothing should match

=============  ========  =======  ==================================================
field          required  default  meaning
=============  ========  =======  ==================================================
``q``          yes                the question, as an agent would type it
``expect``     yes                acceptable answers; ``[]`` = the vault has none
``path``       yes                vault-relative path of an answering note
``heading``    no        any      case-insensitive part of the hit's heading (or of
                                  one of its ``also`` headings)
=============  ========  =======  ==================================================

Scoring (all over the answerable cases, i.e. those with a non-empty ``expect``):

* a result is *acceptable* when its path equals an expected path and, if a heading is
  given, that heading is a case-insensitive substring of the result's heading or of one
  of its ``also`` headings;
* a case's rank is the 1-based position of its first acceptable result among the top
  ``k`` hits; ``hit@1`` and ``hit@3`` are the shares of cases ranked 1 and 1-3, and
  MRR is the mean of ``1 / rank`` (0 when no acceptable result is in the top ``k``);
* a ``no_strong_match`` verdict on an answerable case is a miss (a *false absence*);
  the rank among ``best_weak`` is reported beside it for diagnosis only;
* an absence case is correct exactly when the verdict is ``no_strong_match``.

The self-quote guard: a note that contains the question verbatim (ignoring case and
runs of white space) may be a log that quotes the question rather than an answer to it.
Only questions of four words or more (or twelve CJK characters) are looked at: a short
lookup such as an error code is expected verbatim in its answer.
Such an acceptable hit in the top 3 is flagged, and the ``guarded`` figures recompute
every rank with those notes left out.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from .engine import Mnemosyne
from .errors import InvalidInputError

__all__ = ["Case", "Expectation", "evaluate", "load_cases", "parse_cases"]

DEFAULT_K = 10
# Results listed for every miss.
SHOWN_ON_MISS = 3


@dataclass(frozen=True)
class Expectation:
    path: str
    heading: str | None = None

    def accepts(self, hit: dict) -> bool:
        if hit["path"] != self.path:
            return False
        if self.heading is None:
            return True
        wanted = self.heading.casefold()
        return any(wanted in h.casefold() for h in [hit.get("heading") or "", *hit.get("also", [])])


@dataclass(frozen=True)
class Case:
    q: str
    expect: tuple[Expectation, ...] = field(default_factory=tuple)

    @property
    def absence(self) -> bool:
        return not self.expect


def _text(value, where: str, name: str) -> str:
    if isinstance(value, dt.date):  # an unquoted heading such as 2026-03-02
        return value.isoformat()
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise InvalidInputError(f"{where}: {name} must be text, got {value!r}")
    text = str(value).strip()
    if not text:
        raise InvalidInputError(f"{where}: {name} is empty")
    return text


def _expectation(item, where: str) -> Expectation:
    if isinstance(item, str):
        item = {"path": item}
    if not isinstance(item, dict) or "path" not in item:
        raise InvalidInputError(
            f"{where}: each expect item must be a mapping with a path, e.g. "
            "{path: runbooks/restore.md, heading: Verify}"
        )
    unknown = sorted(set(item) - {"path", "heading"})
    if unknown:
        raise InvalidInputError(
            f"{where}: unknown key(s) {', '.join(unknown)} in expect — valid: heading, path"
        )
    path = _text(item["path"], where, "path").replace("\\", "/").removeprefix("./")
    if not path.lower().endswith(".md"):
        path += ".md"
    heading = item.get("heading")
    return Expectation(path, None if heading is None else _text(heading, where, "heading"))


def parse_cases(data) -> list[Case]:
    """Cases from parsed JSON/YAML: ``{"cases": [...]}`` (or the bare list)."""
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"cases"})
        if unknown:
            raise InvalidInputError(
                f"unknown top-level key(s) {', '.join(unknown)} in the case file — valid: cases"
            )
        data = data.get("cases")
    if not isinstance(data, list) or not data:
        raise InvalidInputError(
            "the case file holds no cases — write `cases:` followed by a list of "
            "{q: question, expect: [{path: note.md}]} items"
        )
    cases = []
    for number, raw in enumerate(data, 1):
        where = f"case {number}"
        if not isinstance(raw, dict):
            raise InvalidInputError(f"{where}: a case must be a mapping with q and expect")
        unknown = sorted(set(raw) - {"q", "expect"})
        if unknown:
            raise InvalidInputError(
                f"{where}: unknown key(s) {', '.join(unknown)} — valid: expect, q"
            )
        if "q" not in raw or "expect" not in raw:
            raise InvalidInputError(
                f"{where}: a case needs both q and expect (expect: [] for an absence case)"
            )
        expect = raw["expect"]
        if expect is None:
            expect = []
        if not isinstance(expect, list):
            raise InvalidInputError(f"{where}: expect must be a list (expect: [] for absence)")
        cases.append(
            Case(_text(raw["q"], where, "q"), tuple(_expectation(e, where) for e in expect))
        )
    return cases


def load_cases(path: str | os.PathLike) -> list[Case]:
    """Read a case file: JSON when it ends in ``.json``, else the YAML subset."""
    file = Path(os.path.expanduser(str(path)))
    try:
        text = file.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InvalidInputError(
            f"case file not found: {file} — pass the path of a JSON or YAML case file"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"cannot read the case file {file}: {exc}") from None
    if file.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{file} is not valid JSON: {exc}") from None
    else:
        from .yaml_subset import parse_yaml_subset

        data, problems = parse_yaml_subset(text)
        if problems:
            raise InvalidInputError(
                f"{file}: {problems[0]} — fix the YAML (or write the cases as JSON)"
            )
    return parse_cases(data)


def _normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


# A lookup shorter than this ("ECONNREFUSED", "pg_hba.conf max_connections") is expected
# verbatim in its answer; only a question this long can be quoted by a log.
QUOTABLE_WORDS = 4
QUOTABLE_CJK_CHARS = 12
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def _quotable(question: str) -> bool:
    if len(question.split()) >= QUOTABLE_WORDS:
        return True
    return len(_CJK_CHAR.findall(question)) >= QUOTABLE_CJK_CHARS


class _Notes:
    """Note texts read once per run, for the self-quote guard."""

    def __init__(self, vault: Path) -> None:
        self.vault = vault
        self._texts: dict[str, str] = {}

    def quotes(self, path: str, question: str) -> bool:
        if path not in self._texts:
            try:
                raw = (self.vault / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                raw = ""
            self._texts[path] = _normalize(raw)
        return _normalize(question) in self._texts[path]


def _brief(hit: dict) -> dict:
    return {"path": hit["path"], "heading": hit.get("heading") or "", "score": hit["score"]}


def _first(results: list[dict], case: Case, skip=None) -> int | None:
    position = 0
    for hit in results:
        if skip is not None and skip(hit):
            continue
        position += 1
        if any(e.accepts(hit) for e in case.expect):
            return position
    return None


def _mark(rank: int | None) -> str:
    if rank == 1:
        return "rank 1"
    if rank is not None and rank <= 3:
        return "rank 2-3"
    return "miss"


def _judge(engine: Mnemosyne, case: Case, k: int, notes: _Notes) -> dict:
    response = engine.search_response(case.q, k)
    weak = response["no_strong_match"]
    hits = response["hits"]
    shown = hits or response["best_weak"]
    row = {
        "q": case.q,
        "expect": [
            {"path": e.path, **({"heading": e.heading} if e.heading else {})} for e in case.expect
        ],
        "kind": "absence" if case.absence else "answerable",
        "no_strong_match": weak,
        "top": [_brief(h) for h in shown[:SHOWN_ON_MISS]],
    }
    if case.absence:
        row.update(correct=weak, mark="correct" if weak else "miss")
        return row
    rank = _first(hits, case)
    quotable = _quotable(case.q)
    quoted = [h["path"] for h in hits if quotable and notes.quotes(h["path"], case.q)]
    self_quote = rank is not None and rank <= 3 and hits[rank - 1]["path"] in quoted
    guarded = _first(hits, case, skip=lambda h: h["path"] in quoted) if quoted else rank
    row.update(
        rank=rank,
        mark=_mark(rank),
        false_absence=weak,
        weak_rank=_first(response["best_weak"], case) if weak else None,
        self_quote=self_quote,
        guarded_rank=guarded,
    )
    return row


def _summary(ranks: list[int | None], k: int) -> dict:
    n = len(ranks)
    if not n:
        return {"hit_at_1": None, "hit_at_3": None, "mrr": None}
    return {
        "hit_at_1": round(sum(1 for r in ranks if r == 1) / n, 4),
        "hit_at_3": round(sum(1 for r in ranks if r is not None and r <= 3) / n, 4),
        "mrr": round(sum(1 / r for r in ranks if r is not None and r <= k) / n, 4),
    }


def evaluate(
    vault: str | os.PathLike | Mnemosyne,
    cases: list[Case] | str | os.PathLike,
    *,
    k: int = DEFAULT_K,
    ranking: dict | None = None,
) -> dict:
    """Run every case against the vault and score the answers (see the module doc).

    ``vault`` is a folder or an open ``Mnemosyne``; ``cases`` a list of ``Case`` or the
    path of a case file; ``ranking`` overrides ranking settings for this run only (as
    ``Mnemosyne(vault, ranking=...)``; not with an open engine).
    """
    if isinstance(cases, (str, os.PathLike)):
        cases = load_cases(cases)
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InvalidInputError(f"k must be a whole number of at least 1, got {k!r}")
    if isinstance(vault, Mnemosyne):
        if ranking:
            raise InvalidInputError(
                "ranking overrides need a vault path, not an open engine — pass the folder"
            )
        return _evaluate(vault, cases, k, {})
    with Mnemosyne(vault, ranking=ranking or None) as engine:
        return _evaluate(engine, cases, k, dict(ranking or {}))


def _evaluate(engine: Mnemosyne, cases: list[Case], k: int, ranking: dict) -> dict:
    notes = _Notes(engine.vault)
    known = set(engine.note_paths())
    warnings = [
        f"case {number}: {e.path} is not a note in the vault (a typo, or a moved note?)"
        for number, case in enumerate(cases, 1)
        for e in case.expect
        if e.path not in known
    ]
    rows = [_judge(engine, case, k, notes) for case in cases]
    answerable = [r for r in rows if r["kind"] == "answerable"]
    absence = [r for r in rows if r["kind"] == "absence"]
    summary = _summary([r["rank"] for r in answerable], k)
    summary.update(
        answerable=len(answerable),
        absence_cases=len(absence),
        absence_accuracy=(
            round(sum(r["correct"] for r in absence) / len(absence), 4) if absence else None
        ),
        false_absence_rate=(
            round(sum(r["false_absence"] for r in answerable) / len(answerable), 4)
            if answerable
            else None
        ),
        self_quoted=sum(r["self_quote"] for r in answerable),
    )
    return {
        "vault": str(engine.vault),
        "k": k,
        "ranking": ranking,
        "cases": len(rows),
        "summary": summary,
        "guarded": _summary([r["guarded_rank"] for r in answerable], k),
        "results": rows,
        "warnings": warnings,
    }
