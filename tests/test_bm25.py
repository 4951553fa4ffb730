"""``bm25_scores``: hand-computed Okapi BM25 on a four-document corpus, and its inputs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from birkin_mnemosyne.bm25 import BM25_B, BM25_K1, bm25_scores, text_postings
from birkin_mnemosyne.tokenizer import tokenize

# doc -> term counts; lengths 3, 2, 4, 1 (average 2.5), as in test_index's oracle
POSTINGS = {
    "cat": {"d1": 2, "d3": 1, "d4": 1},
    "dog": {"d1": 1, "d2": 1},
    "fish": {"d3": 3},
    "bird": {"d2": 1},
}
DOCLENS = {"d1": 3, "d2": 2, "d3": 4, "d4": 1}


def _expected(tf: int, dl: int, df: int, n: int = 4, avgdl: float = 2.5) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl))


def test_scores_match_the_hand_computed_formula():
    scores = bm25_scores(["cat"], POSTINGS, DOCLENS, 2.5, 4)
    assert set(scores) == {"d1", "d3", "d4"}
    assert math.isclose(scores["d1"], _expected(2, 3, 3))
    assert math.isclose(scores["d3"], _expected(1, 4, 3))
    assert math.isclose(scores["d4"], _expected(1, 1, 3))
    # the literal numbers, so a change of formula or constant is noticed (k1 1.2, b 0.75)
    assert math.isclose(scores["d1"], 0.4643106, rel_tol=1e-6)  # = test_index n1
    assert math.isclose(scores["d4"], 0.4727017, rel_tol=1e-6)


def test_terms_add_up_count_once_and_unknown_terms_score_nothing():
    both = bm25_scores(["cat", "fish", "cat", "zebra"], POSTINGS, DOCLENS, 2.5, 4)
    assert math.isclose(both["d3"], _expected(1, 4, 3) + _expected(3, 4, 1))
    assert bm25_scores(["zebra"], POSTINGS, DOCLENS, 2.5, 4) == {}
    assert bm25_scores([], POSTINGS, DOCLENS, 2.5, 4) == {}


def test_weights_scale_single_terms():
    plain = bm25_scores(["cat", "dog"], POSTINGS, DOCLENS, 2.5, 4)
    weighted = bm25_scores(["cat", "dog"], POSTINGS, DOCLENS, 2.5, 4, {"dog": 0.5})
    assert math.isclose(weighted["d2"], plain["d2"] / 2)
    assert math.isclose(weighted["d4"], plain["d4"])  # cat only: unchanged


def test_k1_and_b_can_be_chosen():
    flat = bm25_scores(["cat"], POSTINGS, DOCLENS, 2.5, 4, b=0.0)
    # without length normalisation d3 (long) and d4 (short) score alike for one "cat"
    assert math.isclose(flat["d3"], flat["d4"])
    assert bm25_scores(["cat"], POSTINGS, DOCLENS, 2.5, 4, k1=0.0)["d1"] == pytest.approx(
        math.log(1 + 1.5 / 3.5)
    )


@given(st.permutations(["d1", "d2", "d3", "d4"]))
def test_scores_do_not_depend_on_document_order(order):
    shuffled = {t: {d: docs[d] for d in order if d in docs} for t, docs in POSTINGS.items()}
    terms = ["cat", "dog", "fish"]
    assert bm25_scores(terms, shuffled, DOCLENS, 2.5, 4) == pytest.approx(
        bm25_scores(terms, POSTINGS, DOCLENS, 2.5, 4)
    )


def test_text_postings_count_as_the_index_does():
    texts = {"a": "Restore the database", "b": "Rotate the certificates", "c": ""}
    postings, doclens, avgdl, n_docs = text_postings(texts)
    assert postings["restor"] == {"a": 1} and "the" not in postings  # stemmed, no stopwords
    assert doclens == {"a": 2, "b": 2, "c": 0} and n_docs == 3 and avgdl == pytest.approx(4 / 3)
    scores = bm25_scores(tokenize("restoring a database"), *text_postings(texts))
    assert list(scores) == ["a"]
    assert text_postings(["cat", "dog dog"]).doclens == {"0": 1, "1": 2}
    assert text_postings([]) == ({}, {}, 0.0, 0)
    with pytest.raises(TypeError, match="must be a str"):
        text_postings({"a": 3})
