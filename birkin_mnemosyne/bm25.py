"""Plain Okapi BM25 over a small term -> document -> count map, for callers' own texts.

The engine ranks a vault with BM25F over sections (``index``); this module is the
one-field form of the same maths for anything else: score a query against a handful of
texts, or against postings a caller keeps itself. It is the ``bm25_scores`` that
birkin-mnemosyne 0.7.2 exported, with the same positional arguments::

    bm25_scores(terms, postings, doclens, avgdl, n_docs, weights=None)

and ``text_postings`` builds those arguments from texts with the project's tokenizer::

    >>> texts = {"a": "Restore the database", "b": "Rotate the certificates"}
    >>> scores = bm25_scores(tokenize("restoring a database"), *text_postings(texts))
    >>> sorted(scores)
    ['a']

For a term *t* and a document *d* (Robertson & Zaragoza, "The Probabilistic Relevance
Framework: BM25 and Beyond", 2009, eq. 3.8; the idf is Lucene's non-negative form, as in
``index``)::

    score(t, d) = weight(t) * idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(d) / avgdl))
    idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from .index import BM25FParams
from .tokenizer import is_stopword, tokenize

__all__ = ["BM25_B", "BM25_K1", "Postings", "bm25_scores", "text_postings"]

# The engine's own constants (``index.BM25FParams``): k1, and the body field's b.
BM25_K1 = BM25FParams.k1
BM25_B = BM25FParams.b_body


class Postings(NamedTuple):
    """What ``bm25_scores`` reads after the query terms (so ``*postings`` fills them)."""

    postings: dict[str, dict[str, int]]  # term -> {document id: count}
    doclens: dict[str, int]  # document id -> terms in it
    avgdl: float
    n_docs: int


def text_postings(texts: Mapping[str, str] | Sequence[str]) -> Postings:
    """Postings of ``texts`` as the index would count them (``tokenize`` less stopwords).

    ``texts`` is ``{id: text}``, or a sequence whose positions become the ids
    ``"0"``, ``"1"``, ... A text that is not a string raises ``TypeError``.
    """
    items = texts.items() if isinstance(texts, Mapping) else enumerate(texts)
    postings: dict[str, dict[str, int]] = {}
    doclens: dict[str, int] = {}
    for key, text in items:
        if not isinstance(text, str):
            raise TypeError(f"text {key!r} must be a str, got {type(text).__name__}")
        doc = str(key)
        counts = Counter(t for t in tokenize(text) if not is_stopword(t))
        doclens[doc] = sum(counts.values())
        for term, count in counts.items():
            postings.setdefault(term, {})[doc] = count
    n_docs = len(doclens)
    avgdl = sum(doclens.values()) / n_docs if n_docs else 0.0
    return Postings(postings, doclens, avgdl, n_docs)


def bm25_scores(
    terms: Iterable[str],
    postings: Mapping[str, Mapping[str, int]],
    doclens: Mapping[str, int],
    avgdl: float,
    n_docs: int,
    weights: Mapping[str, float] | None = None,
    *,
    k1: float = BM25_K1,
    b: float = BM25_B,
) -> dict[str, float]:
    """``{document id: score}`` of every document holding at least one of ``terms``.

    A term repeated in ``terms`` counts once; a term with no postings scores nothing.
    ``weights`` scales single terms (a term it does not name weighs 1.0), e.g. to make
    expansion terms weaker than the query's own words. A document missing from
    ``doclens`` is taken to have the average length.
    """
    avgdl = avgdl or 1.0
    scores: dict[str, float] = {}
    for term in dict.fromkeys(terms):
        found = postings.get(term)
        if not found:
            continue
        df = len(found)
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        if weights is not None:
            idf *= weights.get(term, 1.0)
        for doc, tf in found.items():
            norm = k1 * (1.0 - b + b * doclens.get(doc, avgdl) / avgdl)
            scores[doc] = scores.get(doc, 0.0) + idf * tf * (k1 + 1.0) / (tf + norm)
    return scores
