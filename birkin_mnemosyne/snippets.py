"""Snippets: the part of a section that best shows why it matched.

The section text (already redacted) is cut into sentence-sized pieces (a sentence ends
at ``.!?`` followed by white space, at CJK full stops, or at a line end), so a path
such as ``pg-nightly-dump.timer`` is never cut. The piece holding the most query
terms (weighted by idf, so a rare term counts more than a common one) is the centre;
neighbours are added until ``max_chars``. The result is the original text of that
span with white space collapsed to one line. A section that matched only through its
title or tags shows its first lines.
"""

from __future__ import annotations

import re

from .tokenizer import normalize

__all__ = ["make_snippet"]

_PIECE_END = re.compile(r"[.!?](?=\s)|[。！？]|\n")
_SPACE = re.compile(r"\s+")
_FENCE_LINE = re.compile(r"^[ \t]*(```|~~~)[^\n]*$", re.MULTILINE)
_FIRST_HEADING = re.compile(r"\A\s*#{1,6}[ \t][^\n]*\n?")


def _pieces(text: str) -> list[tuple[int, int]]:
    spans, start = [], 0
    for match in _PIECE_END.finditer(text):
        end = match.end()
        if text[start:end].strip():
            spans.append((start, end))
        start = end
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


# Sections come back across queries (the top notes of a small vault, a session's
# repeated questions): their pieces and normalised forms are kept, up to this many
# characters of section text.
_PREPARED_MAX_CHARS = 4_000_000
_prepared: dict[str, tuple[str, list[tuple[int, int]], list[str], str, dict]] = {}
_prepared_chars = 0


def _prepare(text: str) -> tuple[str, list[tuple[int, int]], list[str], str, dict]:
    """(the text without its first heading and fence lines, its pieces, each piece
    normalised, those joined, the snippets cut so far by centre and length), remembered
    per section text."""
    global _prepared_chars
    found = _prepared.get(text)
    if found is not None:
        return found
    body = _FENCE_LINE.sub("", _FIRST_HEADING.sub("", text))
    spans = _pieces(body)
    pieces = [normalize(body[start:end]) for start, end in spans]
    found = (body, spans, pieces, "\n".join(pieces), {})
    if len(text) <= _PREPARED_MAX_CHARS:
        while _prepared and _prepared_chars + len(text) > _PREPARED_MAX_CHARS:
            oldest = next(iter(_prepared))
            del _prepared[oldest]
            _prepared_chars -= len(oldest)
        _prepared[text] = found
        _prepared_chars += len(text)
    return found


def make_snippet(text: str, term_weights: dict[str, float], *, max_chars: int = 240) -> str:
    """Cut ``text`` around its densest run of query terms; at most ``max_chars``."""
    text, spans, pieces, joined, cut = _prepare(text)
    if not spans:
        return ""
    # Stems, bigrams and whole identifiers are substrings of the normalised text they
    # came from, so a substring test finds them without tokenizing every piece.
    # Only the terms the section holds: a term in no piece is not in their join either
    # (a term holds no line break), so one test each instead of one per piece. Tessellate
    # hits: ~20 query terms, a few of them in the section.
    weights = [(t, w) for t, w in term_weights.items() if t in joined]
    best, best_score = 0, 0.0
    for i, piece in enumerate(pieces):
        score = sum(w for t, w in weights if t in piece)
        if score > best_score:
            best, best_score = i, score
    snippet = cut.get((best, max_chars))
    if snippet is None:
        snippet = cut[best, max_chars] = _cut(text, spans, best, max_chars)
    return snippet


def _cut(text: str, spans: list[tuple[int, int]], centre: int, max_chars: int) -> str:
    """The pieces from ``centre`` on (then before it) up to ``max_chars``, on one line."""
    first = last = centre

    def length() -> int:
        return len(_SPACE.sub(" ", text[spans[first][0] : spans[last][1]]).strip())

    while length() < max_chars and (first > 0 or last < len(spans) - 1):
        if last < len(spans) - 1:
            last += 1
        else:
            first -= 1
    snippet = _SPACE.sub(" ", text[spans[first][0] : spans[last][1]]).strip()
    if len(snippet) > max_chars:
        snippet = snippet[: max_chars - 1].rstrip() + "…"
    return ("…" if first > 0 else "") + snippet
