"""From section scores to ranked notes, and the "no strong match" verdict.

Order of a result list (``rank``)::

    key(note) = (covers_every_required_unit, base * multipliers)

* **Query units** come from ``tokenizer.query_units``: one per word, identifier or
  script run. A unit is *covered* by a note when its whole term occurs in it, or at
  least ``part_coverage`` of its parts do (Hangul/Han bigrams, identifier parts), so
  "데이터베이스를" is covered by a note saying "데이터베이스".
* **Required units** are the query's non-stopword units that occur somewhere in the
  vault (a word no note contains cannot separate notes). A note covering every
  required unit ranks above every note that does not, so an exact lookup never loses
  to a partial match however popular or repetitive the partial match is, unless its
  score is under ``full_min_share`` of the best partial match's (a note that only
  scatters the query's words over its sections).
* A query with a word from ``CURRENT_WORDS`` ("current", "now", "현재", …) asks for
  the current state: such words score but are no units, superseded notes do not hold
  the first tier, recency weighs more and fades faster, and the section naming the
  state is shown (``pick_section``).
* **base** = best section score + ``second_weight`` x second-best section score +
  ``whole_weight`` x the note read as one document (``TermScores.whole``): a note
  answers through its best section; the rest of it is corroboration.
* **multipliers** are bounded (``_Factors``): the kind's prior (journals; the kinds
  of record the query names, ``KIND_WORDS``, get ``kind_named_boost``), stale or
  superseded (``stale_factor``), recency of the shown section's date (at most
  ``1 + recency_boost``), and the usage/zone multiplier from dynamics (bounded there).
  Their product never exceeds ``max_multiplier_ratio()``, so within a tier a note whose
  base score is that many times higher always wins.
* Last, a superseded note listed above its successor moves to just below it.

The verdict (``verdict``) withholds the hits only on evidence of absence: a query word
shaped like a name that no note mentions (``missing_names``), or no match at all; else
it grades the top hit's ``confidence`` from its idf-weighted coverage and its score
against what the query could achieve. Every threshold was chosen on the Tessellate dev
vault; docs/explanation/search.md gives the measurements.
"""

from __future__ import annotations

import bisect
import datetime as _dt
import functools
import heapq
import itertools
import math
import operator
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .index import Index, TermScores
from .note_kinds import kind_of, newest_date, section_stamps
from .tokenizer import (
    MONTH_NAMES,
    has_cjk,
    is_hangul,
    is_hiragana,
    is_katakana,
    is_stopword,
    query_units,
    tokenize,
)

__all__ = [
    "QueryPlan",
    "RankedNote",
    "RankingParams",
    "defer_to_linked",
    "missing_names",
    "plan_query",
    "rank",
    "verdict",
]

EXPANSION_TIERS = ("synonyms", "keywords", "related", "note_line")
# The verdict's reason when no note holds a word of the query.
NO_WORD_NOTE = "no note holds any word of the query"

# Words that ask for the current state of something rather than name a topic: "what is
# the current retention policy", "현재 온콜 규칙", "今どうやる". They score like any word
# but are no query unit (a note is not the answer because its title says "current"),
# and they turn on ``QueryPlan.current``: superseded notes leave the first tier.
# "latest" is not one: it names things ("restic restore latest", "image:latest").
CURRENT_WORDS = frozenset(
    unit[0]
    for unit in query_units(
        """current currently now nowadays today still yet anymore
        aktuell aktuelle derzeit derzeitige heute momentan jetzt zurzeit noch mehr
        actual actualmente vigente hoy ahora todavía aún
        현재 지금 요즘 최신 아직 現在 今 いま 現行 最新 まだ 现在 目前 当前 仍然"""
    )
)
# In a Han, kana or Hangul run the same words stand without spaces ("盘现在用了").
CURRENT_IN_RUNS = ("现在", "目前", "当前", "現在", "現行", "현재", "지금", "요즘", "아직")
# Headings that name a record's current state ("Status", "Decision", "New procedure
# (current since ...)", "현재 설정"): a current-state question is answered there rather
# than in the note's context or history, when such a section matches well enough.
STATE_HEADING_WORDS = CURRENT_WORDS | frozenset(
    unit[0]
    for unit in query_units(
        """status state decision decided new latest stand entscheidung neu neue aktueller
        estado decisión nuevo nueva situación 상태 결정 신규 状態 決定 新 現状 状态 决定 现状"""
    )
)
# The words by which a query names a kind of record (``note_kinds.KINDS``), as index
# terms: "which failover procedure should I follow" asks for a runbook.
KIND_WORDS = {
    unit[0]: kind
    for kind, words in (
        ("runbook", "runbook runbooks playbook playbooks procedure procedures sop"),
        ("lesson", "lesson lessons postmortem postmortems"),
        ("decision", "decision decisions decide decided adr adrs"),
        ("host", "host hosts"),
        ("journal", "journal journals diary logbook"),
    )
    for unit in query_units(words)
}
# A month's name in a query ("the disk incident in February") dates the question; like
# the words above it scores (dated notes carry their month's names) without being a
# unit the answer must cover.
MONTH_WORDS = frozenset(unit[0] for unit in query_units(" ".join(MONTH_NAMES)))
_SCORE_ONLY = CURRENT_WORDS | MONTH_WORDS


@dataclass(frozen=True)
class RankingParams:
    second_weight: float = 0.2
    # Weight of the note read as one document (``TermScores.whole``): a paraphrase spreads
    # its words over a note's sections, where no one section holds them all. Tessellate
    # dev (with full_min_share 0.9): 0.6 lifted para MRR 0.666 -> 0.676 and mixed
    # 0.787 -> 0.798 (overall 0.803 -> 0.805) and cost state 0.782 -> 0.748 and ja
    # 0.903 -> 0.870; 0.4-0.7 within 0.007 of each other.
    whole_weight: float = 0.6
    stale_factor: float = 0.7
    recency_boost: float = 0.05
    recency_half_life_days: float = 180.0
    # A current-state question ("which host is primary now?") wants the newest record:
    # recency weighs more and fades faster, by the date of the section that matched.
    # Tessellate dev (boost x half-life x prior_journal grid, 0.5-2 x 30-60 x 0.7-1):
    # 1.0 / 30 days lifted state MRR 0.706 -> 0.739; 2.0 gained more (0.773) but lets
    # one date outweigh a threefold better match, 0.5 gained less.
    current_recency_boost: float = 1.0
    current_half_life_days: float = 30.0
    # Priors of the kinds of record (``note_kinds``): journals and index pages retell
    # what the host records, runbooks and lessons say. Tessellate dev: journal 0.85
    # lifted MRR 0.789 -> 0.793 (para +0.007), 0.7 the same overall but cost state;
    # an index prior changed nothing there and stays neutral.
    prior_journal: float = 0.85
    prior_index: float = 1.0
    # Among a note's sections scoring at least this share of its best, an unmarked one
    # is shown before a stale one, and a newer one before an older one.
    section_tie_share: float = 0.9
    state_section_share: float = 0.5
    # A current-state question: the newest journal section among the first five hits
    # scoring at least this share of the top one leads (``_newest_journal_first``).
    # Tessellate dev: 0.6-0.8 alike, state 0.751 -> 0.777, overall 0.811 -> 0.814 (one
    # question 4th -> 1st, one 3rd -> 4th); 0.5 and 0.9 gained less; 0 turns it off.
    state_journal_share: float = 0.7
    # ... and only when its section holds at least this share of the query words the top
    # hit's section holds (``_newest_journal_first``). Tessellate dev, after the shared
    # translation idf: state 0.817 -> 0.837, overall 0.832 -> 0.834 (one question 2nd ->
    # 1st, no other moved); 0.5-0.75 alike; 1.0 (as many) lost two journal leads that
    # held 3 of the top's 4 words and were the answer.
    state_journal_units: float = 0.5
    # A query naming a kind of record ("which failover procedure", "the ADR on", "手順",
    # "절차"; ``KIND_WORDS`` and their glossary forms) multiplies that kind's prior, and
    # a current-state question naming another kind than journals skips the newest-
    # journal rule. Tessellate dev: skipping the rule alone lifted MRR 0.819 -> 0.820
    # (one state question 4th -> 3rd); with 1.3 0.825, state 0.807 -> 0.834, zh 0.748 ->
    # 0.783 (the failover procedure 3rd -> 1st, a retraining "步骤" 3rd -> 1st), no
    # question lower; 1.1 and 1.2 gained less, 1.5 the same.
    kind_named_boost: float = 1.3
    part_coverage: float = 0.6
    # The verdict (``verdict``): calibrated on the Tessellate dev vault, see
    # docs/explanation/search.md.
    # A query naming something no note mentions is absent when those names carry more
    # than this share of its idf weight (1.0: never; the BEIR benchmarks, which have no
    # unanswerable questions, set it).
    absent_name_share: float = 0.0
    absent_coverage: float = 0.0
    absent_ratio: float = 0.0
    weak_coverage: float = 0.45
    weak_ratio: float = 0.15
    high_coverage: float = 0.8
    high_ratio: float = 0.5
    also_min_share: float = 0.25
    # A note covering every required unit leads only while its score is at least this
    # share of the best partial match's. Scale-test dev split: 0.6 and 0.75 lifted ko
    # (1k) and ja (10k). Tessellate dev, where long journals cover a question's words in
    # passing: 0.8-0.9 lifted MRR 0.806 -> 0.811 (state 0.701 -> 0.728); 0.9 demotes a
    # note found only through translations (which score at w_glossary) too easily.
    full_min_share: float = 0.8
    # ... and a note that covers some word only through a translation (scored at
    # w_glossary) while its score is at least this share of that floor: the share
    # translations score at, w_glossary, so a note found through translations alone
    # meets the floor a native match of the same strength would. Tessellate dev, with
    # the relief in proportion to the words translations carry (``_tiers``): 0.5 and
    # 0.6 alike (no question moved); 0.5 puts the demo's "데이터베이스 복원" restore
    # runbook above a Korean lesson holding one of its two words. 1.0 (off) gave MRR
    # 0.828 before the proportional relief.
    translated_full_share: float = 0.5
    # Weight of a one-character part (a Han or kana unigram, a one-digit identifier
    # part). A long CJK run has a unigram per character; at full weight they outscored
    # the rare word beside them ("DiskUsageHigh 告警响了之后该看哪份文档"). Dev split:
    # 0.3 lifted MRR 0.836 -> 0.850 (1k) and 0.804 -> 0.820 (10k), zh +0.05, no slice
    # lower; scaling every part of a long unit by 1/sqrt(parts/2) gained less and cost ja.
    # Hiragana-only units and parts (Japanese grammar) weigh the same.
    w_char_part: float = 0.3
    # Weight of the parts of a Latin-script query word the vault also holds whole (the
    # halves of "database", a camel or identifier piece). Tessellate dev: 0.3 and 0.6
    # lifted MRR 0.808 -> 0.811 / 0.814 (mixed +0.013 / +0.026); 0.3 also puts the
    # restore runbook first for the demo's "restore database", 0.6 does not. A katakana
    # word the vault holds whole counts the same way: "ポート" (port) is no match for the
    # ポー/ート inside "サポート" (support). Tessellate dev: state 0.742 -> 0.751 (the
    # WireGuard port question 9th -> 3rd); ja 0.849 -> 0.833, one question that had led
    # only by counting the bigrams of "エラー" beside the word; overall 0.812 -> 0.811.
    # Han and Hangul runs keep their bigrams at full weight (no effect measured there:
    # a compound is rarely held whole).
    w_known_part: float = 0.3
    # Expansion tiers score below the query's own words (weights < 1).
    w_synonyms: float = 0.6
    w_keywords: float = 0.5
    w_related: float = 0.35
    w_note_line: float = 0.25
    # Other-language forms of a query word, from the cross-language glossary (glossary.py).
    # 0 turns the glossary off. Dev split: 0.5 lifted MRR 0.861 -> 0.904 (1k) and
    # 0.836 -> 0.865 (10k), code-switched +0.18 / +0.09; 0.3 and 0.7 each scored lower.
    w_glossary: float = 0.5
    # For the verdict, the share of a unit that a translation of it covers. Dev split:
    # 1.0 cut false absence most (-0.069 at 1k, -0.020 at 10k); 0.5 and 0.75 cost the
    # same one absence case at 1k and saved fewer answers.
    glossary_credit: float = 1.0
    # A translation held by more than this share of the notes covers but does not score.
    # Dev split: 0.3 changed no result and saved ~8% of warm query time at 10k; 0.2 and
    # 0.1 lost code-switched questions.
    glossary_max_share: float = 0.3

    @classmethod
    def from_overrides(cls, overrides: dict | None) -> RankingParams:
        if not overrides:
            return cls()
        valid = cls.__dataclass_fields__
        return cls(**{k: float(v) for k, v in overrides.items() if k in valid})

    def max_multiplier_ratio(
        self, usage_ratio: float = 1.0, *, current: bool = False, names_kind: bool = False
    ) -> float:
        """Largest possible ratio between two notes' multiplier products (of a query
        asking for the current state when ``current``, naming a kind of record when
        ``names_kind``)."""
        boost = self.current_recency_boost if current else self.recency_boost
        prior = min(self.prior_journal, self.prior_index, 1.0)
        named = max(self.kind_named_boost, 1.0) if names_kind else 1.0
        return (1.0 + boost) * named / (self.stale_factor * prior) * usage_ratio


@dataclass
class QueryPlan:
    """What to score: the query's content units and their terms, plus expansion terms.

    Stopwords are not indexed, so a unit whose whole term is a stopword is dropped and
    stopword parts are left out of the units that remain.
    """

    units: list[tuple[str, ...]]  # content units: (whole, *parts)
    terms: list[str]
    weights: list[float]
    unit_terms: list[tuple[int, list[int]]] = field(default_factory=list)  # (whole, parts)
    required: list[int] = field(default_factory=list)  # units present in the vault
    # unit -> its other-language forms (glossary), each a tuple of term slots; a note
    # holding every term of one form covers the unit
    alternatives: dict[int, list[tuple[int, ...]]] = field(default_factory=dict)
    translated: set[int] = field(default_factory=set)  # slots only translations asked for
    # unit -> the query word it came from, for units written like names (a product, a
    # host, an address: ``tokenizer.name_words``); the verdict asks whether the vault
    # mentions them at all
    named: dict[int, str] = field(default_factory=dict)
    current: bool = False  # the query asks for the current state (``CURRENT_WORDS``)
    # the kinds of record the query names ("which failover procedure", "the ADR on"):
    # by a word of ``KIND_WORDS`` or a glossary form of one ("절차", "手順")
    kinds: frozenset[str] = frozenset()
    # one entry per glossary concept the query holds: (the slots of the query words it
    # translates, its forms as tuples of slots); ``weigh_translations`` reads them
    concepts: list[tuple[tuple[int, ...], list[tuple[int, ...]]]] = field(default_factory=list)
    expanded: bool = False  # expansion terms were added (they never demote a full match)


@dataclass
class RankedNote:
    nid: int
    score: float
    base: float
    full: bool
    best_sid: int
    also_sids: list[int]
    best_section_score: float


def plan_query(
    units: list[tuple[str, ...]],
    index: Index,
    *,
    expansions: dict | None = None,
    expansion_units: Callable[[str], list[tuple[str, ...]]] | None = None,
    translations: list[tuple[tuple[str, ...], list[tuple[str, ...]]]] | None = None,
    names: dict[str, str] | None = None,
    params: RankingParams | None = None,
) -> QueryPlan:
    """Lay out the terms to score and which terms make up each query unit.

    ``translations`` are (query words, the index terms of each of their forms in other
    languages), from the glossary. They score at ``w_glossary`` like an expansion tier,
    and a note holding one such form covers the query unit it translates
    (``QueryPlan.alternatives``): for the full-match tier and for the verdict.
    """
    params = params or RankingParams()
    terms: list[str] = []
    weights: list[float] = []
    position: dict[str, int] = {}

    def slot(term: str, weight: float) -> int:
        if term not in position:
            position[term] = len(terms)
            terms.append(term)
            weights.append(weight)
        return position[term]

    plan = QueryPlan(units=[], terms=terms, weights=weights)
    topical = sum(
        1
        for unit in units
        if not is_stopword(unit[0]) and unit[0] not in _SCORE_ONLY and not is_hiragana(unit[0])
    )
    for unit in units:
        if topical and (
            unit[0] in CURRENT_WORDS
            or (has_cjk(unit[0]) and any(word in unit[0] for word in CURRENT_IN_RUNS))
        ):
            plan.current = True  # "jetzt" and "ahora" are stopwords too: not indexed
        if is_stopword(unit[0]):
            continue
        if unit[0] in _SCORE_ONLY and topical:
            slot(unit[0], 1.0)
            continue
        if topical and is_hiragana(unit[0]):
            # Japanese grammar between the content words ("は", "どの", "けている"):
            # it scores like a single character, and the answer need not hold it.
            # Tessellate dev: ja MRR 0.761 -> 0.875 (0.1 and 0.2 gave 0.847). Its
            # terms share that weight: "けている" and its six pieces are one ending,
            # not seven words (ja 0.833 -> 0.903, state 0.777 -> 0.804; a total of
            # 0.15 gave ja 0.875, 0.5 gave 0.897, 0.8 gave 0.823).
            terms_of_unit = list(dict.fromkeys(unit))
            for term in terms_of_unit:
                slot(term, params.w_char_part / len(terms_of_unit))
            continue
        parts = [p for p in unit[1:] if not is_stopword(p)]
        if names and unit[0] in names:
            plan.named[len(plan.units)] = names[unit[0]]
        plan.units.append((unit[0], *parts))
        # The parts of a word the vault holds whole ("database" -> data, base; the
        # bigrams of a katakana word) are where the pieces of a compound or an
        # identifier stand apart: they weigh like single characters beside the word.
        part_weight = (
            params.w_known_part
            if (not has_cjk(unit[0]) or is_katakana(unit[0])) and index.has_term(unit[0])
            else 1.0
        )
        if len(parts) > 1 and is_hangul(unit[0]):
            # Korean puts spaces between words: a Hangul unit is one word (with its
            # particles), and its bigrams share that word's weight as the glossary's
            # Hangul forms do. At full weight each, "데이터베이스" (five bigrams)
            # outweighed "복원" fivefold. Tessellate dev: ko MRR 0.907 -> 0.917, overall
            # 0.834 -> 0.835, no question lower.
            part_weight = min(part_weight, 1.0 / len(parts))
        plan.unit_terms.append(
            (
                slot(unit[0], 1.0),
                [
                    slot(
                        p,
                        params.w_char_part if len(p) == 1 or is_hiragana(p) else part_weight,
                    )
                    for p in parts
                ],
            )
        )
    if translations and params.w_glossary > 0:
        for source, forms in translations:
            # the units the found form stands in: its words, or a run holding it
            targets = [
                i
                for i, unit in enumerate(plan.units)
                if any(w == unit[0] or (has_cjk(w) and w in unit[0]) for w in source)
            ]
            concept_forms = []
            for form in forms:
                slots = []
                # A form of several terms (the Hangul bigrams of "데이터베이스") weighs as
                # one word: its terms share the weight.
                weight = params.w_glossary / len(form)
                for term in form:
                    if term not in position:
                        plan.translated.add(len(terms))
                    slots.append(slot(term, weight))
                for i in targets:
                    plan.alternatives.setdefault(i, []).append(tuple(slots))
                concept_forms.append(tuple(slots))
            plan.concepts.append((tuple(plan.unit_terms[i][0] for i in targets), concept_forms))
    for i, (whole, parts) in enumerate(plan.unit_terms):
        present = sum(1 for p in parts if index.has_term(terms[p]))
        if (
            index.has_term(terms[whole])
            or (parts and present / len(parts) >= params.part_coverage)
            or i in plan.alternatives  # its forms' terms are all in the index
        ):
            plan.required.append(i)
    plan.kinds = _named_kinds(units, translations)
    if expansions and expansion_units is not None:
        for tier in EXPANSION_TIERS:
            values = expansions.get(tier) or []
            if isinstance(values, str):
                values = [values]
            weight = getattr(params, f"w_{tier}")
            for value in values:
                for unit in expansion_units(str(value)):
                    for term in unit:
                        if term not in position and not is_stopword(term):
                            slot(term, weight)
                            plan.expanded = True
    return plan


def weigh_translations(plan: QueryPlan, scores: list[TermScores]) -> None:
    """Score a concept's translations with the concept's idf, not each form's own.

    A form's idf says how rare that *spelling* is, and in a vault written mostly in one
    language that is how rare the language is: "restaurar" in the one Spanish runbook of
    an English vault outweighed "restore" in every English one, so a German question
    found the Spanish note first. A concept is as common as its most common form (the
    query's own word included), so every translated slot scores at that idf: its weight
    is scaled by concept idf / own idf, as search engines score synonyms as one term
    (the document frequency of the most common one). The query's own words keep theirs.
    Tessellate dev, with the translation floor of ``_tiers``: MRR 0.830 -> 0.832, para
    0.699 -> 0.705, mixed 0.813 -> 0.825, state 0.834 -> 0.817 (one question 1st -> 2nd:
    a journal entering the top five took the newest-journal rule's lead).
    """
    for sources, forms in plan.concepts:
        idfs = [scores[s].idf for s in sources if scores[s].df]
        for form in forms:
            # a form of several terms is as rare as its rarest term (the notes holding it
            # hold all of them)
            if all(scores[t].df for t in form):
                idfs.append(max(scores[t].idf for t in form))
        if not idfs:
            continue
        shared = min(idfs)
        for form in forms:
            for t in form:
                if t in plan.translated and scores[t].df and scores[t].idf > shared:
                    plan.weights[t] *= shared / scores[t].idf


def _named_kinds(units, translations) -> frozenset[str]:
    """The kinds of record the query's words name, directly or through a glossary form."""
    kinds = {KIND_WORDS[unit[0]] for unit in units if unit[0] in KIND_WORDS}
    for _source, forms in translations or ():
        kinds.update(
            KIND_WORDS[form[0]] for form in forms if len(form) == 1 and form[0] in KIND_WORDS
        )
    return frozenset(kinds)


def _covering_notes(
    plan: QueryPlan,
    unit: int,
    scores: list[TermScores],
    part_coverage: float,
    within: set | None = None,
) -> set:
    """The notes holding query unit ``unit`` (as ``_holds_unit`` says), of ``within``
    only when given: set operations over the terms' note ids instead of a look-up per
    note and term."""
    whole, parts = plan.unit_terms[unit]
    if within is None:
        covered = set(scores[whole].note_best)
    else:
        covered = _among(within, scores[whole].note_best)
    if parts:
        need = part_coverage * len(parts)
        if within is not None and need <= 0:
            return set(within)
        counts: Counter = Counter()
        for p in parts:
            held = scores[p].note_best
            counts.update(held.keys() if within is None else _among(within, held))
        covered.update(nid for nid, c in counts.items() if c >= need)
    for form in plan.alternatives.get(unit, ()):
        first = scores[form[0]].note_best
        holding = set(first) if within is None else _among(within, first)
        for term in form[1:]:
            if not holding:
                break
            holding = _among(holding, scores[term].note_best)
        covered |= holding
    return covered


def _among(notes: set, held) -> set:
    """The notes of ``notes`` that ``held`` (a ``SortedMap`` of note ids) holds: a
    look-up per note when they are few, else one C-level pass over ``held``'s ids."""
    if len(notes) * 16 < len(held):
        return {nid for nid in notes if nid in held}
    return notes.intersection(held.keys())


def _holds_unit(
    plan: QueryPlan, unit: int, has: Callable[[int], bool], part_coverage: float
) -> bool:
    """Whether something holds query unit ``unit``, ``has(slot)`` saying whether it
    holds the term in that slot of ``plan.terms``: the unit's word, enough of its parts
    (``part_coverage``), or every term of one of its translations."""
    whole, parts = plan.unit_terms[unit]
    if has(whole):
        return True
    if parts and sum(1 for p in parts if has(p)) >= part_coverage * len(parts):
        return True
    return any(all(has(t) for t in form) for form in plan.alternatives.get(unit, ()))


def _translation_in(plan: QueryPlan, unit: int, key: int, scores, field: str = "note_best") -> bool:
    """Whether note ``key`` (section ``key`` with ``field="contrib"``) holds every term
    of one of the unit's translations."""
    return any(
        all(key in getattr(scores[t], field) for t in form)
        for form in plan.alternatives.get(unit, ())
    )


def _translated_share(plan: QueryPlan, scores: list[TermScores]) -> Callable[[int], float]:
    """The share of the query's required words a note covers only through a
    translation of them (0.0: it holds every word it covers as written)."""
    units = [
        scores[plan.unit_terms[unit][0]].note_best
        for unit in plan.required
        if unit in plan.alternatives
    ]
    if not units:
        return lambda nid: 0.0
    required = len(plan.required)
    return lambda nid: sum(1 for held in units if nid not in held) / required


def _full_matches(
    index: Index, plan: QueryPlan, scores: list[TermScores], params: RankingParams
) -> set:
    """The notes covering every required unit (the first tier's candidates).

    The set is built for the unit held by the fewest notes only; the others keep those
    of its members they hold (``_among``), never building the set of a common word's
    tens of thousands of notes."""
    if not plan.required:
        return set()
    need = params.part_coverage

    def size(unit: int) -> int:
        whole, parts = plan.unit_terms[unit]
        return (
            len(scores[whole].note_best)
            + sum(len(scores[p].note_best) for p in parts)
            + sum(len(scores[form[0]].note_best) for form in plan.alternatives.get(unit, ()))
        )

    units = sorted(plan.required, key=size)
    full = _covering_notes(plan, units[0], scores, need)
    for unit in units[1:]:
        if not full:
            break
        full = _covering_notes(plan, unit, scores, need, within=full)
    if plan.current and full:
        # "What is the current X": a superseded note does not hold the first tier.
        full = {nid for nid in full if not index.notes[nid].get("stale")}
    return full


class _Factors:
    """The bounded multipliers of one query's note scores, shared by ``rank`` and its
    reference: the kind's prior, stale, recency, and usage/zone (``multiplier``).

    ``of(nid, sid)`` is the factor of note ``nid`` shown through section ``sid``;
    ``bound(nid)`` is at least ``of(nid, sid)`` for every section of the note, and
    ``max`` at least ``bound(nid)`` for every note. Recency is of the note's date, or of
    the section's own date (``note_kinds.section_stamps``) when that is older: a stamp
    never dates a section after its note, so the bound holds.
    """

    def __init__(self, index, plan, params, multiplier, multiplier_max, today) -> None:
        self.index = index
        # Age is counted back from the vault's newest record when that is older than
        # today: a vault left alone for months has not grown stale all over, and its
        # newest journal entry is still its current state.
        if today is not None:
            newest = newest_date(index)
            if newest:
                try:
                    stamp = _dt.datetime.fromisoformat(newest).replace(tzinfo=_dt.timezone.utc)
                    today = min(today, stamp.timestamp() + 86400.0)
                except ValueError:
                    pass
        current = plan.current
        self.boost = params.current_recency_boost if current else params.recency_boost
        self.half_life = params.current_half_life_days if current else params.recency_half_life_days
        self.max = (1.0 + self.boost) * multiplier_max
        self.current = current
        # A current-state question is answered by one (the newest) section, not by a
        # note's history summed: the whole-note score is left out for it.
        self.whole_weight = 0.0 if current else params.whole_weight
        self.query_terms = frozenset(plan.terms[whole] for whole, _ in plan.unit_terms)
        self.plan = plan
        self.priors = {"journal": params.prior_journal, "index": params.prior_index}
        named = params.kind_named_boost if plan.kinds else 1.0
        for kind in plan.kinds:
            self.priors[kind] = self.priors.get(kind, 1.0) * named
        self.max *= named
        self.stamps = section_stamps(index) if today is not None else None

        # ``of`` and ``bound`` run for every note scored: closures over locals.
        notes, sec_stale = index.notes, index.sec_stale
        priors, stale_factor, boost = self.priors, params.stale_factor, self.boost
        stamps, half_life = self.stamps, self.half_life
        days: dict[str, float] = {}
        kinds: dict[int, float] = {}

        def recency(date: str) -> float:
            value = days.get(date)
            if value is None:
                value = days[date] = _recency(date, today, half_life)
            return value

        def prior(nid: int) -> float:
            value = kinds.get(nid)
            if value is None:
                value = kinds[nid] = priors.get(kind_of(index, nid), 1.0)
            return value

        def of(nid: int, sid: int) -> float:
            meta = notes[nid]
            factor = prior(nid)
            if meta.get("stale") or sec_stale[sid]:
                factor *= stale_factor
            date = meta.get("date")
            if today is not None and date:
                stamp = stamps.of(sid)
                if stamp and stamp[:10] < date[:10]:
                    date = stamp[:10]
                factor *= 1.0 + boost * recency(date)
            if multiplier is not None:
                factor *= multiplier(nid)
            return factor

        def bound(nid: int) -> float:
            meta = notes[nid]
            factor = prior(nid)
            if meta.get("stale"):
                factor *= stale_factor
            if today is not None and meta.get("date"):
                factor *= 1.0 + boost * recency(meta["date"])
            return factor * multiplier_max

        self.of = of
        self.bound = bound


_HEADING_TERMS: dict[str, frozenset[str]] = {}


def _heading_terms(heading: str) -> frozenset[str]:
    """The index terms of a heading (memoised: headings repeat across queries)."""
    terms = _HEADING_TERMS.get(heading)
    if terms is None:
        if len(_HEADING_TERMS) > 50_000:
            _HEADING_TERMS.clear()
        terms = _HEADING_TERMS[heading] = frozenset(tokenize(heading)) if heading else frozenset()
    return terms


def _names_state(heading: str) -> bool:
    """Whether a heading holds one of ``STATE_HEADING_WORDS``."""
    return bool(_heading_terms(heading) & STATE_HEADING_WORDS) or any(
        word in heading for word in CURRENT_IN_RUNS
    )


def _concept_forms(plan: QueryPlan) -> list[list[frozenset[str]]]:
    """The query's glossary concepts, each as its forms' term sets: a heading holding one
    names the concept as surely as one holding the query's own word."""
    return [
        [frozenset(plan.terms[slot] for slot in form) for form in forms]
        for _, forms in plan.concepts
    ]


def pick_section(
    by_section: dict[int, float], factors: _Factors, params: RankingParams
) -> tuple[float, int, float]:
    """(score of the section to show, that section, best score of the others).

    A stale section's score counts at ``stale_factor`` here, as it does in the note's
    factor: a current section scoring a little lower is the answer. Among sections
    within ``section_tie_share`` of the best, an unmarked one is shown before a stale
    one, a newer one (``section_stamps``) before an older one, then the higher score.
    """
    stale = factors.index.sec_stale
    stale_factor = params.stale_factor
    # One pass: the best section by its stale-discounted score, and the two best raw
    # scores (the second-best of the shown section is the best raw score of the others).
    best_value, best = -1.0, -1
    raw1, raw1_sid, raw2 = -1.0, -1, 0.0
    for sid, value in by_section.items():
        if value > raw1 or (value == raw1 and sid > raw1_sid):
            if raw1 > raw2:
                raw2 = raw1
            raw1, raw1_sid = value, sid
        elif value > raw2:
            raw2 = value
        if stale[sid]:
            value *= stale_factor
        if value > best_value or (value == best_value and sid > best):
            best_value, best = value, sid
    second = raw2 if best == raw1_sid else raw1
    if len(by_section) == 1:
        return by_section[best], best, 0.0
    floor = params.section_tie_share * best_value
    # another section's discounted score is at most its raw one, at most ``second``
    ties = second >= floor
    if factors.current:
        # A current-state question: the best matching section whose heading names the
        # current state, if it scores at least ``state_section_share`` of the best.
        headings = factors.index.sec_heading
        floor_state = params.state_section_share * best_value
        stated = [
            sid
            for sid, value in by_section.items()
            if value >= floor_state and _names_state(headings[sid]) and not stale[sid]
        ]
        if stated:
            best = max(stated, key=lambda sid: (by_section[sid], sid))
            second = max((v for sid, v in by_section.items() if sid != best), default=0.0)
            return by_section[best], best, second
    if ties:
        stamps = factors.stamps or section_stamps(factors.index)

        headings, query_terms = factors.index.sec_heading, factors.query_terms
        concept_forms = _concept_forms(factors.plan)

        def preference(sid: int) -> tuple:
            value = by_section[sid] * (stale_factor if stale[sid] else 1.0)
            heading = _heading_terms(headings[sid])
            named = len(heading & query_terms)
            if concept_forms and heading:
                named += sum(1 for forms in concept_forms if any(f <= heading for f in forms))
            return (not stale[sid], named, stamps.of(sid) or "", value, sid)

        best = max(
            (
                sid
                for sid, value in by_section.items()
                if (value * stale_factor if stale[sid] else value) >= floor
            ),
            key=preference,
        )
        second = max((v for sid, v in by_section.items() if sid != best), default=0.0)
    return by_section[best], best, second


def _ranked_note(
    index: Index,
    plan: QueryPlan,
    scores: list[TermScores],
    params: RankingParams,
    nid: int,
    is_full: bool,
    by_section: dict[int, float],
    whole: float,
    factors: _Factors,
) -> RankedNote:
    """A scored note from its sections' scores: best + ``second_weight`` x second +
    ``whole_weight`` x its whole-note score, times ``factors.of(nid, shown section)``,
    with the hit's also-sections."""
    section_scores = [(value, sid) for sid, value in by_section.items()]
    section_scores.sort(reverse=True)
    best_score, best, second = pick_section(by_section, factors, params)
    base = best_score + params.second_weight * second + factors.whole_weight * whole
    factor = factors.of(nid, best)
    headings = index.sec_heading
    also = [
        sid
        for value, sid in section_scores
        if sid != best
        and value >= params.also_min_share * best_score
        and headings[sid]
        and headings[sid] != headings[best]
    ][:2]
    return RankedNote(nid, base * factor, base, is_full, best, also, best_score)


_FIRST_BOUNDS = 64


def _by_bound(pool: dict[int, float], orders: dict, floor: Callable[[], float | None]):
    """``pool``'s (note, bound) pairs, highest bound first, in ``sorted``'s order, as
    far as the caller may need them.

    The top-k loop mostly stops within the first few dozen: those come from
    ``heapq.nlargest`` (same order as ``sorted``). Past them, ``floor()`` is a bound at
    or under which the loop stops anyway (None: no such bound yet): only the pairs
    above it are sorted (a long query over a large vault has tens of thousands of
    candidates, and sorting them all cost more than the scoring). ``_tiers`` may walk
    the same pool twice (its lead, then its top k): a whole order is remembered in
    ``orders``.
    """
    key = (id(pool), len(pool))
    order = orders.get(key)
    if order is not None:
        yield from order
        return
    if len(pool) <= 4 * _FIRST_BOUNDS:
        order = orders[key] = sorted(pool.items(), key=operator.itemgetter(1), reverse=True)
        yield from order
        return
    first = heapq.nlargest(_FIRST_BOUNDS, pool.items(), key=operator.itemgetter(1))
    yield from first
    cut = floor()
    if cut is None:
        order = orders[key] = sorted(pool.items(), key=operator.itemgetter(1), reverse=True)
        yield from order[_FIRST_BOUNDS:]
        return
    # Those above the cut, in the order a whole sort gives them (a stable sort of a
    # subsequence keeps its order), less the first ones already given.
    given = {nid for nid, _ in first}
    above = itertools.compress(pool.items(), map(cut.__lt__, pool.values()))
    for item in sorted(above, key=operator.itemgetter(1), reverse=True):
        if item[0] not in given:
            yield item


# A note is skipped on its own factor bound only when even ``bound x factor x slack``
# is under the k-th score: the slack is far above float rounding, so a note that could
# tie the k-th score is always scored.
_BOUND_SLACK = 1.0 + 1e-9


def _just_under(bound: float) -> float:
    """A little under ``bound``: a cut there keeps every note the exact test, made with
    other float operations, would keep."""
    return bound * (1.0 - 1e-9) - 1e-12


# MaxScore (``rank``): terms are left out of the summed bounds only when the query's
# terms hold at least this many notes together, and only terms whose largest bounds
# sum to under this share of the floor. SciFact x5 / x10 (26k / 52k notes, 300 claims,
# limit 10), in-process toggle, identical results: p50 5.7 / 6.7 ms against 6.4 / 9.6
# ms without it, p95 13.6 / 22.4 against 16.1 / 25.0; the 10k footprint vault and
# Tessellate unchanged (3.7 and 1.2-1.4 ms, within noise). At 5,000 postings the 10k
# vault's few long queries got slower (the floor's exact scores cost more than the
# sums saved); a share of 1.0 left so little margin that completing the bounds of the
# notes visited cost more than it saved (p95 22.6 against 17.2 ms at 26k).
_MAXSCORE_MIN_POSTINGS = 10_000
_MAXSCORE_SHARE = 0.5

# A translation held by more notes than this may be left unscored (``glossary_max_share``).
_GLOSSARY_SKIP_MIN_NOTES = 1000


def _scored_terms(
    index: Index, plan: QueryPlan, scores: list[TermScores], params: RankingParams
) -> list[tuple[TermScores, float]]:
    """(scores, weight) of the terms that score: those in some live note, less the
    translations found in more than ``glossary_max_share`` of the notes. Such a word
    ("server", "log") barely tells notes apart but costs the most to rank with; it
    still covers the query word it translates (``QueryPlan.alternatives``). When only
    such words would be left, they all score."""
    active = [(ts, w) for ts, w in zip(scores, plan.weights) if ts.df]
    if plan.translated:
        # Only where skipping saves time: in a small vault a topical word is in most
        # notes, and its translation is what finds the note written in another language.
        most = max(params.glossary_max_share * index.live_notes, _GLOSSARY_SKIP_MIN_NOTES)
        rare = [
            (ts, w)
            for i, (ts, w) in enumerate(zip(scores, plan.weights))
            if ts.df and not (i in plan.translated and len(ts.note_best) > most)
        ]
        return rare or active
    return active


def rank(
    index: Index,
    plan: QueryPlan,
    scores: list[TermScores],
    *,
    limit: int,
    params: RankingParams | None = None,
    allowed: Callable[[int], bool] | None = None,
    multiplier: Callable[[int], float] | None = None,
    multiplier_max: float = 1.0,
    today: float | None = None,
) -> list[RankedNote]:
    """The top ``limit`` notes, best first (see the module docstring for the order).

    Exact top-k with pruning. A note's upper bound is, per term, its best plus
    ``second_weight`` times its second-best section score, summed over the query's
    terms, times the largest possible multiplier; notes are scored exactly in
    decreasing bound order until the next bound cannot beat the k-th score. Notes
    covering every required unit are ranked first, so the rest are looked at only when
    they are too few or a far stronger partial match may demote them.

    Cheaper than ``_rank_reference``, same result: a note about to be scored is first
    checked against its own largest factor (its date's recency, whether it is stale)
    and skipped when that already puts it clearly under the k-th score; scoring a note
    computes only its score (memoised per query), the hit's details (its
    also-sections) are worked out for the notes returned.
    """
    params = params or RankingParams()
    active = _scored_terms(index, plan, scores, params)
    if not active:
        return []
    if not all(w > 0 for _, w in active) or not (
        0.0 < params.stale_factor <= 1.0
        and params.recency_boost >= 0.0
        and params.current_recency_boost >= 0.0
        and 0.0 < params.prior_journal <= 1.0
        and 0.0 < params.prior_index <= 1.0
    ):
        return _rank_reference(
            index,
            plan,
            scores,
            limit=limit,
            params=params,
            allowed=allowed,
            multiplier=multiplier,
            multiplier_max=multiplier_max,
            today=today,
        )
    sw = params.second_weight
    factors = _Factors(index, plan, params, multiplier, multiplier_max, today)
    bound_factor = factors.max

    full = _full_matches(index, plan, scores, params)

    note_first, note_count = index.note_first, index.note_count
    nw = factors.whole_weight
    term_bounds = [(ts.note_bounds(sw, nw), w) for ts, w in active]

    # Per term, the arrays behind its maps (ids ascending, see ``index.SortedMap``): one
    # bisect finds a note's entry, a second its sections' scores.
    columns = [
        (
            ts.note_best.keys(),
            ts.note_best.values(),
            ts.note_best_sid.values(),
            ts.second_all,
            ts.contrib.keys(),
            ts.contrib.values(),
            ts.whole,
            w,
        )
        for ts, w in active
    ]
    bisect_left = bisect.bisect_left

    def section_scores_of(nid: int) -> tuple[dict[int, float], float]:
        # Only the terms present in the note are visited; a term found in a single
        # section of it needs no look at the note's sections. Sections are added to in
        # term order, each term's in section order, as ``_rank_reference`` adds them;
        # the whole-note scores likewise in term order.
        by_section: dict[int, float] = {}
        whole = 0.0
        first = note_first[nid]
        for note_ids, best_values, best_sids, second_all, sids, values, wholes, w in columns:
            i = bisect_left(note_ids, nid)
            if i == len(note_ids) or note_ids[i] != nid:
                continue
            whole += w * wholes[i]
            if second_all[i] > 0.0:  # two or more sections hold the term
                lo = bisect_left(sids, first)
                hi = bisect_left(sids, first + note_count[nid], lo)
                for j in range(lo, hi):
                    sid = sids[j]
                    by_section[sid] = by_section.get(sid, 0.0) + w * values[j]
            else:
                sid = best_sids[i]
                by_section[sid] = by_section.get(sid, 0.0) + w * best_values[i]
        return by_section, whole

    scored: dict[int, float] = {}
    sections: dict[int, tuple[dict[int, float], float]] = {}

    def score_of(nid: int) -> float:
        """The note's exact score (as ``exact`` computes it), memoised per query."""
        score = scored.get(nid)
        if score is not None:
            return score
        by_section, whole = sections[nid] = section_scores_of(nid)
        best_score, best, second = pick_section(by_section, factors, params)
        score = scored[nid] = (best_score + sw * second + nw * whole) * factors.of(nid, best)
        return score

    def exact(nid: int, is_full: bool) -> RankedNote:
        by_section, whole = sections.get(nid) or section_scores_of(nid)
        return _ranked_note(index, plan, scores, params, nid, is_full, by_section, whole, factors)

    # MaxScore's non-essential terms (Turtle & Flood 1995; Lucene's disjunctions). Once
    # ``limit`` partial matches are known to score at least ``floor``, a note holding
    # only terms whose largest bounds sum to ``spill``, with ``spill * bound_factor``
    # under ``floor``, can never be among the results: those terms (the weakest) are
    # left out of the summed bounds, which saves touching their long lists. A summed
    # bound is then short by at most ``spill``: ``top_of`` stops on ``ub + spill``, and
    # completes a note's bound with look-ups in the left-out terms before it decides
    # to score it. Not when the full-match tier fills the page: the partial matches'
    # bounds then only gate the demotion check, and the floor's exact scores would be
    # wasted.
    spill, left_out, floor = 0.0, [], 0.0
    if (
        len(full) < limit
        and len(term_bounds) > 1
        and sum(len(tb) for tb, _ in term_bounds) >= _MAXSCORE_MIN_POSTINGS
    ):
        maxima = [w * ts.bound_max(sw, nw) for ts, w in active]
        strongest = max(range(len(maxima)), key=maxima.__getitem__)
        floor = _seed_floor(term_bounds[strongest][0], full, allowed, limit, score_of)
        if floor > 0.0:
            weakest_first = sorted(range(len(maxima)), key=maxima.__getitem__)
            cut = []
            for i in weakest_first[:-1]:  # the strongest term always stays
                reach = (spill + maxima[i]) * bound_factor * _BOUND_SLACK
                if reach >= _MAXSCORE_SHARE * floor:
                    break
                spill += maxima[i]
                cut.append(i)
            if cut:
                left_out = [term_bounds[i] for i in cut]
                gone = set(cut)
                term_bounds = [tb for i, tb in enumerate(term_bounds) if i not in gone]
            else:
                spill = 0.0
    # Upper bounds per candidate note, summed term by term over plain dicts (the
    # cheapest way to touch every candidate once), exactly as ``_rank_reference`` does.
    first_bounds, first_weight = term_bounds[0]
    if first_weight == 1.0:
        bounds = dict(first_bounds.items())  # 0.0 + 1.0 * value == value
    else:
        bounds = {nid: 0.0 + first_weight * value for nid, value in first_bounds.items()}
    for term_bound, w in term_bounds[1:]:
        get = bounds.get
        for nid, value in term_bound.items():
            bounds[nid] = get(nid, 0.0) + w * value
    if spill:
        for nid in full:
            if nid not in bounds:
                bounds[nid] = 0.0  # holds only left-out terms: at most ``spill``
    if floor > 0.0 and len(bounds) > 4 * _FIRST_BOUNDS:
        # A partial match whose bound cannot reach the floor is never visited: the
        # ``limit`` notes that set it come first in bound order and stop the walk
        # before it. Dropped before the pool is ordered (a hair under the line: a
        # note kept in doubt only costs its place in the order). Full matches stay.
        line = _just_under(floor / (bound_factor * _BOUND_SLACK) - spill)
        every = bounds
        bounds = dict(itertools.compress(every.items(), map(line.__le__, every.values())))
        for nid in full:
            if nid not in bounds and nid in every:
                bounds[nid] = every[nid]

    factor_bound = factors.bound

    orders: dict[tuple[int, int], list] = {}

    def top_of(pool: dict[int, float], is_full: bool, k: int) -> list[RankedNote]:
        if not pool or k <= 0:
            return []
        found: list[tuple[float, int]] = []

        def floor() -> float | None:
            # the loop below stops at a bound b with (b + spill) * bound_factor <= kth;
            # a little under kth / bound_factor - spill keeps every note it would visit
            if len(found) < k:
                return None
            return _just_under(found[0][0] / bound_factor - spill)

        for nid, ub in _by_bound(pool, orders, floor):
            if len(found) >= k:
                kth = found[0][0]
                if (ub + spill) * bound_factor <= kth:
                    break  # the pool is in bound order: no later note can do better
                if spill:
                    for term_bound, w in left_out:  # the note's whole bound
                        value = term_bound.get(nid)
                        if value is not None:
                            ub = ub + w * value
                    if ub * bound_factor <= kth:
                        continue
                # The note's own largest factor (its date, whether it is stale) may
                # already put it clearly below the k-th score: no need to score it.
                if ub * factor_bound(nid) * _BOUND_SLACK < kth:
                    continue
            if allowed is not None and not allowed(nid):
                continue
            item = (score_of(nid), -nid)
            if len(found) < k:
                heapq.heappush(found, item)
            elif item > found[0]:
                heapq.heapreplace(found, item)
        found.sort(reverse=True)
        return [exact(-neg, is_full) for _, neg in found]

    tiers = _tiers(
        full,
        bounds,
        top_of,
        plan,
        params,
        limit,
        bound_factor,
        _translated_share(plan, scores),
        spill,
    )
    return _reordered(scores, index, plan, params, tiers)


def _seed_floor(term_bound, full, allowed, limit, score_of) -> float:
    """A score ``limit`` partial matches are known to reach: the lowest exact score of
    ``limit`` allowed notes that are no full match, taken where ``term_bound`` (the
    strongest term's) is highest (0.0 when there are not that many among its best
    4 x ``limit``). The scores are memoised: the ranking does not compute them again."""
    picked: list[float] = []
    for nid, _ in heapq.nlargest(4 * limit, term_bound.items(), key=operator.itemgetter(1)):
        if nid in full or (allowed is not None and not allowed(nid)):
            continue
        picked.append(score_of(nid))
        if len(picked) == limit:
            return min(picked)
    return 0.0


def _rank_reference(
    index: Index,
    plan: QueryPlan,
    scores: list[TermScores],
    *,
    limit: int,
    params: RankingParams | None = None,
    allowed: Callable[[int], bool] | None = None,
    multiplier: Callable[[int], float] | None = None,
    multiplier_max: float = 1.0,
    today: float | None = None,
) -> list[RankedNote]:
    """``rank`` as first written: bounds of every candidate note, scored in bound order.

    Kept as the reference ``rank`` must agree with (tests) and for weights ``rank``'s
    pruning does not cover (a weight <= 0). Every candidate note gets an upper bound (per term, its
    best plus ``second_weight`` times its second-best section score, summed, times
    the largest possible multiplier); notes are scored exactly in decreasing bound
    order until the next bound cannot beat the k-th score. Notes covering every required unit are
    ranked first, so the rest are looked at only when they are too few.
    """
    params = params or RankingParams()
    active = _scored_terms(index, plan, scores, params)
    if not active:
        return []
    factors = _Factors(index, plan, params, multiplier, multiplier_max, today)
    bound_factor = factors.max

    full = _full_matches(index, plan, scores, params)

    def exact(nid: int, is_full: bool) -> RankedNote:
        # Only the terms present in the note are visited; a term found in a single
        # section of it needs no scan of the note's sections.
        by_section: dict[int, float] = {}
        for ts, w in active:
            best_value = ts.note_best.get(nid)
            if best_value is None:
                continue
            if nid in ts.note_second:
                contrib = ts.contrib
                for sid in index.note_sections(nid):
                    c = contrib.get(sid)
                    if c is not None:
                        by_section[sid] = by_section.get(sid, 0.0) + w * c
            else:
                sid = ts.note_best_sid[nid]
                by_section[sid] = by_section.get(sid, 0.0) + w * best_value
        whole = 0.0
        for ts, w in active:
            if nid in ts.note_best:
                whole += w * ts.whole_of(nid)
        return _ranked_note(index, plan, scores, params, nid, is_full, by_section, whole, factors)

    # Upper bounds per candidate note: best + sw * second <= sum over terms of
    # (best_t + sw * second_t), because the two sections take each term's score from
    # two different sections of the note. Summed term by term over plain dicts: the
    # cheapest way to touch every candidate once.
    bounds: dict[int, float] = {}
    for ts, w in active:
        get = bounds.get
        for nid, value in ts.note_bounds(params.second_weight, factors.whole_weight).items():
            bounds[nid] = get(nid, 0.0) + w * value

    def top_of(pool: dict[int, float], is_full: bool, k: int) -> list[RankedNote]:
        if not pool or k <= 0:
            return []
        found: list[tuple[float, int, RankedNote]] = []
        for nid, ub in sorted(pool.items(), key=operator.itemgetter(1), reverse=True):
            if len(found) >= k and ub * bound_factor <= found[0][0]:
                break
            if allowed is not None and not allowed(nid):
                continue
            note = exact(nid, is_full)
            item = (note.score, -nid, note)
            if len(found) < k:
                heapq.heappush(found, item)
            elif item[:2] > found[0][:2]:
                heapq.heapreplace(found, item)
        return [n for _, _, n in sorted(found, key=lambda x: (x[0], x[1]), reverse=True)]

    tiers = _tiers(
        full, bounds, top_of, plan, params, limit, bound_factor, _translated_share(plan, scores)
    )
    return _reordered(scores, index, plan, params, tiers)


def _tiers(
    full: set,
    bounds: dict[int, float],
    top_of: Callable[[dict[int, float], bool, int], list[RankedNote]],
    plan: QueryPlan,
    params: RankingParams,
    limit: int,
    bound_factor: float,
    translated_share: Callable[[int], float],
    outside: float = 0.0,
) -> list[RankedNote]:
    """The result list from the candidates' bounds: the full-match tier, then the rest.

    ``top_of(pool, is_full, k)`` is the caller's exact top-k over a pool of bounds.
    ``bounds`` loses the full-match notes. A bound may be short by ``outside`` (``rank``
    leaves MaxScore's non-essential terms out), and a partial match missing from
    ``bounds`` has a bound of at most ``outside``.
    """
    full_pool = {nid: bounds[nid] for nid in full if nid in bounds}
    ranked = top_of(full_pool, True, limit)
    for nid in full_pool:
        del bounds[nid]
    if (
        ranked
        and bounds
        and not plan.expanded
        and ranked[-1].score
        < params.full_min_share * (max(bounds.values()) + outside) * bound_factor
    ):
        # A note that covers every unit only in passing must not outrank a far stronger
        # partial match. (Skipped when no partial match's upper bound could get there.)
        lead = top_of(bounds, False, 1)
        floor = params.full_min_share * lead[0].score if lead else 0.0
        if ranked[-1].score < floor:
            # A note covering a word only through a translation scores it at
            # w_glossary: it is not "in passing" for that, so its floor is lower, by
            # as much as translations carry of the query (all of its words: down to
            # ``translated_full_share`` of the floor; one word of seven: a seventh of
            # that). A weak note with one translated word is still a passing match.
            relief = 1.0 - params.translated_full_share

            def holds(note: RankedNote) -> bool:
                return note.score >= floor or note.score >= floor * (
                    1.0 - relief * translated_share(note.nid)
                )

            keep = [n for n in ranked if holds(n)]
            demoted = [replace(n, full=False) for n in ranked if not holds(n)]
            rest = top_of(bounds, False, limit)
            rest = sorted(demoted + rest, key=lambda n: (n.score, -n.nid), reverse=True)
            return (keep + rest)[:limit]
    if len(ranked) < limit:
        ranked += top_of(bounds, False, limit - len(ranked))
    return ranked


def _reordered(
    scores: list[TermScores],
    index: Index,
    plan: QueryPlan,
    params: RankingParams,
    ranked: list[RankedNote],
) -> list[RankedNote]:
    """The ranked notes after the moves that follow the scores: a superseded note below
    its successor, then a current-state question's newest journal section first."""
    return _newest_journal_first(index, plan, params, _yield_to_successors(index, ranked), scores)


def _successor_names(value: str) -> set[str]:
    """What a ``superseded_by`` value may name: ``[[adr-009|...]]``, ``decisions/adr-009``,
    ``adr-009.md``, casefolded, without ``.md`` or a folder."""
    names = set()
    for part in str(value).replace("[[", ",").replace("]]", ",").split(","):
        target = part.split("|", 1)[0].split("#", 1)[0].strip().strip("'\"")
        if target:
            target = target.casefold().removesuffix(".md")
            names.update({target, target.rsplit("/", 1)[-1]})
    return names


def _yield_to_successors(index: Index, ranked: list[RankedNote]) -> list[RankedNote]:
    """A superseded note listed above its successor (``superseded_by``) moves to just
    below it: the successor is the answer, the old note its history."""
    if len(ranked) < 2:
        return ranked
    notes = index.notes
    order = list(ranked)
    for note in ranked:
        successor = notes[note.nid].get("superseded_by")
        if not successor:
            continue
        names = _successor_names(successor)
        at = order.index(note)
        for later in range(at + 1, len(order)):
            path = str(notes[order[later].nid]["path"]).casefold().removesuffix(".md")
            if path in names or path.rsplit("/", 1)[-1] in names:
                order.insert(later, order.pop(at))  # lands right below the successor
                break
    return order


def _section_date(index: Index, note: RankedNote) -> str:
    """The date of the hit's shown section (its heading's stamp), else its note's."""
    stamp = section_stamps(index).of(note.best_sid)
    return str(stamp or index.notes[note.nid].get("date") or "")[:16]


def _section_units(
    plan: QueryPlan, scores: list[TermScores], params: RankingParams, sid: int
) -> int:
    """How many of the query's required units section ``sid`` holds: its word, enough
    of its parts (``part_coverage``), or every term of one of its translations."""

    def has(slot: int) -> bool:
        return sid in scores[slot].contrib

    return sum(1 for unit in plan.required if _holds_unit(plan, unit, has, params.part_coverage))


def _newest_journal_first(
    index: Index,
    plan: QueryPlan,
    params: RankingParams,
    ranked: list[RankedNote],
    scores: list[TermScores],
) -> list[RankedNote]:
    """For a current-state question, the newest dated journal section among the first
    hits that score at least ``state_journal_share`` of the top one goes first, when it
    is newer than the top hit: the journal's last word on a thing is its state now.
    Not when the question names another kind of record ("which procedure should I
    follow today?" asks for the runbook, not for the last journal entry about it)."""
    share = params.state_journal_share
    if not plan.current or share <= 0.0 or len(ranked) < 2:
        return ranked
    if plan.kinds and "journal" not in plan.kinds:
        return ranked
    floor = share * ranked[0].score
    newest, newest_date = None, _section_date(index, ranked[0])
    # The journal's last word on *the thing asked about*: a section holding under
    # ``state_journal_units`` of the query words the top hit's section holds is about
    # something else ("Reminders v2 at 100%" for "how are duplicate reminders prevented
    # today — is it still the Redis key?", 1 of 4).
    need = params.state_journal_units * _section_units(plan, scores, params, ranked[0].best_sid)
    for note in ranked[1:_STATE_JOURNAL_WINDOW]:
        if note.score < floor or kind_of(index, note.nid) != "journal":
            continue
        if _section_units(plan, scores, params, note.best_sid) < need:
            continue
        date = _section_date(index, note)
        if date > newest_date:
            newest, newest_date = note, date
    if newest is None:
        return ranked
    return [newest, *(note for note in ranked if note is not newest)]


# How far down a current-state question looks for a newer journal section.
_STATE_JOURNAL_WINDOW = 5


def _recency(date: str, today: float, half_life_days: float) -> float:
    """1.0 for today's date, halving every ``half_life_days``; 0 if unparsable."""
    import datetime as dt

    try:
        day = dt.date.fromisoformat(str(date)[:10])
    except ValueError:
        return 0.0
    age_days = max(0.0, today / 86400.0 - (day.toordinal() - dt.date(1970, 1, 1).toordinal()))
    return math.pow(0.5, age_days / half_life_days)


def _rarest(plan: QueryPlan, scores: list[TermScores]) -> float:
    """The largest idf among the query's own terms (translations left out)."""
    known = [ts.idf for i, ts in enumerate(scores) if ts.df and i not in plan.translated]
    return max(known) if known else 1.0


def _unit_weights(
    plan: QueryPlan, scores: list[TermScores], nid: int | None, params: RankingParams
):
    """Per content unit: (weight, covered share in note ``nid``), for the verdict.

    A unit's weight is its idf (a unit absent from the vault counts as the rarest term
    seen, so an unknown word weighs most). A unit found whole counts fully; else the
    idf-weighted share of its parts found in the note. Parts absent from the whole
    vault are left out: in a CJK run they are mostly question words ("怎么办").
    """
    rarest = _rarest(plan, scores)
    out = []
    for i, (whole, parts) in enumerate(plan.unit_terms):
        ws = scores[whole]
        if nid is not None and nid in ws.note_best:
            out.append((ws.idf if ws.df else rarest, 1.0))
            continue
        if nid is not None and _translation_in(plan, i, nid, scores):
            out.append((ws.idf if ws.df else rarest, params.glossary_credit))
            continue
        present = [scores[p] for p in parts if scores[p].df]
        if ws.df:
            weight = ws.idf
        elif present:
            weight = sum(p.idf for p in present) / len(present)
        else:
            out.append((rarest, 0.0))
            continue
        total = sum(p.idf for p in present)
        found = sum(p.idf for p in present if nid is not None and nid in p.note_best)
        out.append((weight, found / total if total else 0.0))
    return out


def missing_names(
    plan: QueryPlan, scores: list[TermScores], params: RankingParams
) -> list[tuple[int, str]]:
    """The query's name-shaped words (``QueryPlan.named``) that no note mentions.

    A name is missing when its whole term is in no note and the glossary has no form of
    it the vault holds. Only an identifier's parts may stand in for it ("noshow-v3@champion"
    is found by "noshow", "v3", "champion" written apart), and then only its parts with
    a letter: the numbers of "10.40.1.100" are everywhere. CamelCase halves ("HubSpot"
    -> hub, spot) and CJK pieces never do.
    """
    missing = []
    for unit, word in plan.named.items():
        whole, parts = plan.unit_terms[unit]
        if scores[whole].df or unit in plan.alternatives:
            continue
        if parts and any(c in plan.terms[whole] for c in "-_./@:"):
            lettered = [p for p in parts if any(ch.isalpha() for ch in plan.terms[p])]
            found = sum(1 for p in lettered if scores[p].df)
            if lettered and found >= params.part_coverage * len(lettered):
                continue
        missing.append((unit, word))
    return missing


def verdict(
    plan: QueryPlan,
    scores: list[TermScores],
    top: RankedNote | None,
    *,
    params: RankingParams | None = None,
) -> dict:
    """The absence verdict, the top hit's confidence, and the signals behind them.

    ``no_strong_match`` (the hits are withheld, ``best_weak`` shows them) only on
    evidence that the vault cannot hold the answer:

    * no note matches at all; or
    * the query names something (``missing_names``) that appears nowhere in the vault:
      "How do we reset Kafka consumer group offsets?" in a vault without Kafka; or
    * every word is known but nothing holds them together: the top note covers under
      ``absent_coverage`` of the query's idf weight and its best section scores under
      ``absent_ratio`` of what the query could score.

    Otherwise the hits stand, and ``confidence`` says how well the top one matched:
    ``low`` under ``weak_coverage`` or ``weak_ratio``, ``high`` from ``high_coverage``
    and ``high_ratio``, else ``medium``.
    """
    params = params or RankingParams()
    weights = _unit_weights(plan, scores, top.nid if top else None, params)
    total = sum(w for w, _ in weights) or 1.0
    coverage = sum(w * c for w, c in weights) / total
    rarest = _rarest(plan, scores)
    absent = sum(
        rarest
        for i, (whole, parts) in enumerate(plan.unit_terms)
        if not scores[whole].df
        and not any(scores[p].df for p in parts)
        and i not in plan.alternatives
    )
    vault_coverage = 1.0 - absent / total
    # What the query could score: each unit once in an average section.
    achievable = sum(w for w, _ in weights)
    ratio = (top.best_section_score / achievable) if (top and achievable) else 0.0
    missing_units = missing_names(plan, scores, params)
    missing = [word for _, word in missing_units]
    missing_share = sum(weights[unit][0] for unit, _ in missing_units) / total
    note = None
    if missing and missing_share > params.absent_name_share:
        weak = True
        quoted = ", ".join(f"'{word}'" for word in missing[:3])
        verb = "appears" if len(missing) == 1 else "appear"
        note = f"{quoted} {verb} nowhere in the vault"
    elif top is None:
        weak = True
        note = NO_WORD_NOTE
    elif coverage < params.absent_coverage and ratio < params.absent_ratio:
        weak = True
        note = "no note holds these words together"
    else:
        weak = False
    if weak or coverage < params.weak_coverage or ratio < params.weak_ratio:
        confidence = "low"
    elif coverage >= params.high_coverage and ratio >= params.high_ratio:
        confidence = "high"
    else:
        confidence = "medium"
    return {
        "no_strong_match": weak,
        "confidence": confidence,
        "absence_note": note,
        "signals": {
            "top_coverage": round(coverage, 3),
            "vault_coverage": round(max(vault_coverage, 0.0), 3),
            "top_ratio": round(min(ratio, 1.0), 3),
            "missing_names": missing,
        },
    }


# A wikilink as ``markdown`` reads it: ``[[target]]``, ``[[target#section|label]]``.
_LINK_RE = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")


@functools.lru_cache(maxsize=4096)
def _link_names(link: str) -> tuple[str, str]:
    """A wikilink's target as a path and as a file stem, casefolded, without ``.md``."""
    name = link.split("|", 1)[0].split("#", 1)[0].strip().casefold()
    name = name.replace("\\", "/").lstrip("/").removesuffix(".md")
    return name, name.rsplit("/", 1)[-1]


def defer_to_linked(
    index: Index,
    plan: QueryPlan,
    scores: list[TermScores],
    params: RankingParams,
    ranked: list[RankedNote],
    section_text: Callable[[int, int], str | None],
) -> list[RankedNote]:
    """A hit whose shown section names a query word on a line that links another hit
    moves that hit to just above itself, when the linked hit covers every query word
    and is more about them: its title and file name hold more of the query's units.

    The words around a link describe its target (anchor text): "복원 절차는
    [[postgres-restore]] 참고" (for the restore procedure see ...), "Redis needs a
    failover plan: [[redis-failover]]". The note that holds the words in passing and
    points elsewhere for them is not the answer; the note it points to is. A citation
    is no pointer: a runbook step citing the lesson behind it ("two recipients
    ([[lessons/sops-two-recipients]])") keeps its place when its own title is as much
    about the query, and so does a runbook citing the journal of its incident.
    ``section_text(nid, sid)`` is the section's text, redacted, or None.
    """
    if len(ranked) < 2 or not plan.required:
        return ranked
    # Only a full match (``RankedNote.full``) below the top can move up.
    targets = [note for note in ranked[1:] if note.full]
    if not targets:
        return ranked
    notes = index.notes
    by_name: dict[str, RankedNote] = {}
    for note in targets:
        meta = notes[note.nid]
        path = str(meta["path"]).casefold().removesuffix(".md")
        for name in (path, path.rsplit("/", 1)[-1], str(meta.get("title") or "").casefold()):
            if name:
                by_name.setdefault(name, note)
    terms = plan.terms

    def units_in(text: str) -> int:
        """How many of the query's required units ``text`` holds."""
        held = set(tokenize(text))

        def has(slot: int) -> bool:
            return terms[slot] in held

        return sum(
            1 for unit in plan.required if _holds_unit(plan, unit, has, params.part_coverage)
        )

    def names_query_word(line: str) -> bool:
        # The line as read: a link shows its label, a bare link its target (which the
        # target's own name already scores).
        shown = _LINK_RE.sub(
            lambda m: m.group(1).split("|", 1)[1] if "|" in m.group(1) else " ", line
        )
        return units_in(shown) > 0

    title_units: dict[int, int] = {}

    def about(nid: int) -> int:
        """How many query units the note's title and file name hold."""
        if nid not in title_units:
            meta = notes[nid]
            stem = str(meta["path"]).rsplit("/", 1)[-1].removesuffix(".md")
            title_units[nid] = units_in(f"{meta.get('title') or ''} {stem}")
        return title_units[nid]

    def target_of(link: str) -> RankedNote | None:
        name, stem = _link_names(link)
        return by_name.get(name) or by_name.get(stem)

    def linked_hit(note: RankedNote, place: dict[int, int]) -> RankedNote | None:
        # Cheap first: the note's links (from the index) must name a hit ranked below
        # it and more about the query before its section is read.
        at = place[note.nid]
        candidates = set()
        for link in notes[note.nid].get("links") or ():
            hit = target_of(link)
            if hit is not None and place[hit.nid] > at and about(hit.nid) > about(note.nid):
                candidates.add(hit.nid)
        if not candidates:
            return None
        text = section_text(note.nid, note.best_sid)
        if not text or "[[" not in text:
            return None
        need = None
        for line in text.splitlines():
            if "[[" not in line:
                continue
            hits = [h for h in map(target_of, _LINK_RE.findall(line)) if h and h.nid in candidates]
            if not hits or not names_query_word(line):
                continue
            if need is None:
                need = max(len(plan.required), _section_units(plan, scores, params, note.best_sid))
            for hit in hits:
                if _section_units(plan, scores, params, hit.best_sid) >= need:
                    return hit
        return None

    order = list(ranked)
    place = {note.nid: i for i, note in enumerate(order)}
    for note in ranked:
        hit = linked_hit(note, place)
        if hit is not None:
            order.pop(place[hit.nid])
            order.insert(place[note.nid], hit)
            place = {n.nid: i for i, n in enumerate(order)}
    return order
