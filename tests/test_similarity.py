"""The near-duplicate join finds exactly the pairs (and similarities, and order) that
comparing every pair finds: on random sets, on a generated vault with planted
near-duplicates, and on the bundled example vault."""

from __future__ import annotations

import itertools
import random

import pytest
from conftest import EXAMPLE_VAULT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from birkin_mnemosyne import similarity
from birkin_mnemosyne.discovery import discover
from birkin_mnemosyne.errors import InvalidInputError
from birkin_mnemosyne.frontmatter import parse_frontmatter
from birkin_mnemosyne.notes_io import jaccard, term_set
from birkin_mnemosyne.similarity import similar_pairs


def brute_force(sets: dict, threshold: float) -> list[tuple[str, str, float]]:
    """The oracle: every pair compared with ``jaccard``, sorted as ``similar_pairs`` sorts."""
    pairs = []
    for a, b in itertools.combinations(sorted(sets), 2):
        value = jaccard(set(sets[a]), set(sets[b]))
        if value >= threshold:
            pairs.append((a, b, value))
    pairs.sort(key=lambda pair: (-pair[2], pair[0], pair[1]))
    return pairs


# Both representations of a term (a bit vector, a list of holders) and the window shift
# are exercised: the defaults, and every shared term as a vector with a shift each step.
@pytest.fixture(params=["defaults", "vectors"])
def layout(request, monkeypatch):
    if request.param == "vectors":
        monkeypatch.setattr(similarity, "DENSE_MIN_SETS", 2)
        monkeypatch.setattr(similarity, "_REBASE_MIN", 1)
    return request.param


_term_sets = st.dictionaries(
    st.text("abcdefghij", min_size=1, max_size=3),
    st.sets(st.sampled_from("pqrstuvwxyz0123456789"), max_size=12),
    max_size=40,
)


# The layout fixture only patches two constants, the same for every generated input.
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    sets=_term_sets,
    threshold=st.one_of(
        st.sampled_from([0.35, 0.5, 0.8, 1.0, 1 / 3, 2 / 3]),
        st.floats(min_value=0.01, max_value=1.0),
    ),
)
def test_random_sets_give_the_brute_force_answer(layout, sets, threshold):
    assert similar_pairs(sets, threshold) == brute_force(sets, threshold)


# --- a generated vault with planted near-duplicates ---------------------------------------

_COMMON = [
    "the",
    "server",
    "database",
    "backup",
    "restore",
    "service",
    "user",
    "request",
    "error",
    "config",
    "file",
    "disk",
    "memory",
    "network",
    "connection",
    "query",
    "table",
    "index",
    "cache",
    "queue",
    "job",
    "worker",
    "deploy",
    "release",
    "version",
    "update",
    "change",
    "issue",
    "problem",
    "fix",
    "test",
    "check",
    "log",
    "alert",
    "team",
    "customer",
    "data",
    "report",
    "time",
    "day",
    "week",
    "night",
    "first",
    "last",
    "new",
    "old",
    "main",
    "primary",
    "replica",
    "node",
    "cluster",
    "run",
    "start",
    "stop",
    "keep",
    "make",
    "need",
    "use",
    "see",
    "find",
    "read",
    "write",
    "open",
    "close",
    "move",
    "copy",
    "delete",
    "create",
]


def _word(rng: random.Random) -> str:
    # Zipf-like: common words most of the time, a long tail of rare made-up ones.
    if rng.random() < 0.8:
        return _COMMON[min(int(rng.paretovariate(1.1)) - 1, len(_COMMON) - 1)]
    return "".join(rng.choice("bcdfghklmnprstvz") + rng.choice("aeiou") for _ in range(3))


def _paragraphs(rng: random.Random, count: int) -> list[str]:
    return [" ".join(_word(rng) for _ in range(rng.randint(8, 40))) for _ in range(count)]


def generated_vault(seed: int = 11, notes: int = 240) -> dict[str, str]:
    """Note texts by path: ordinary notes, edited copies, one-liners and template notes."""
    rng = random.Random(seed)
    texts: dict[str, str] = {}
    for i in range(notes):
        body = "\n\n".join(_paragraphs(rng, rng.randint(1, 6)))
        texts[f"zone{i % 7}/note-{i}.md"] = f"# {_word(rng)} {_word(rng)}\n\n{body}\n"
    originals = sorted(texts)
    for i, path in enumerate(rng.sample(originals, notes // 10)):
        parts = texts[path].split("\n\n")
        kind = i % 3
        if kind == 0 and len(parts) > 2:  # a paragraph dropped
            del parts[rng.randrange(1, len(parts))]
        elif kind == 1:  # a few words changed
            words = " ".join(parts).split(" ")
            for _ in range(3):
                words[rng.randrange(len(words))] = _word(rng)
            parts = [" ".join(words)]
        else:  # a line appended
            parts.append(" ".join(_paragraphs(rng, 1)))
        texts[f"copies/{i}-{path.replace('/', '-')}"] = "\n\n".join(parts)
    for i in range(30):  # one-liners of common words, differing by a word or two
        texts[f"inbox/short-{i}.md"] = " ".join(rng.sample(_COMMON[:25], rng.randint(2, 6)))
    for i in range(20):  # a template filled in
        texts[f"journal/day-{i}.md"] = (
            "## Standup\n\n- yesterday: "
            + " ".join(_word(rng) for _ in range(4))
            + "\n- today: "
            + " ".join(_word(rng) for _ in range(4))
            + "\n- blockers: none\n"
        )
    return texts


def _term_sets_of(texts: dict[str, str]) -> dict[str, set[str]]:
    sets = {}
    for path, text in texts.items():
        parsed = parse_frontmatter(text)
        sets[path] = term_set(str(parsed.data.get("title", "")), parsed.body)
    return sets


@pytest.mark.parametrize("threshold", [0.35, 0.5, 0.8])
def test_a_generated_vault_gives_the_brute_force_answer(layout, threshold):
    sets = _term_sets_of(generated_vault())
    expected = brute_force(sets, threshold)
    assert len(expected) >= 10  # the planted pairs are there to be found
    assert similar_pairs(sets, threshold) == expected


def test_the_example_vault_gives_the_brute_force_answer(layout):
    texts = {
        path: (EXAMPLE_VAULT / path).read_text(encoding="utf-8") for path in discover(EXAMPLE_VAULT)
    }
    sets = _term_sets_of(texts)
    for threshold in (0.1, 0.2, 0.35, 0.5):
        assert similar_pairs(sets, threshold) == brute_force(sets, threshold)
    assert brute_force(sets, 0.1)  # some pairs, so the comparison means something


# --- edges ---------------------------------------------------------------------------------


def test_empty_sets_are_never_similar_and_equal_sets_are_one():
    sets = {"a": set(), "b": set(), "c": {"x", "y"}, "d": {"y", "x"}}
    assert similar_pairs(sets, 1.0) == [("c", "d", 1.0)]
    assert similar_pairs({}, 0.5) == []


@pytest.mark.parametrize("threshold", [0, -0.5, 1.01, float("nan"), True, "0.5"])
def test_a_threshold_outside_zero_to_one_is_refused(threshold):
    with pytest.raises(InvalidInputError, match="above 0 and at most 1"):
        similar_pairs({"a": {"x"}}, threshold)


def test_progress_counts_every_set_compared_once():
    sets = _term_sets_of(generated_vault(notes=60))
    events = []
    similar_pairs(sets, 0.5, on_progress=events.append)
    assert {event.phase for event in events} == {"duplicates"}
    assert all(event.total == len(sets) for event in events)
    done = [event.done for event in events]
    assert done[0] == 0 and done[-1] == len(sets) and done == sorted(done)
    assert events[-1].finished and not any(event.finished for event in events[:-1])
