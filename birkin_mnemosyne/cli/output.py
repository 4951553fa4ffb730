"""Printing helpers shared by the subcommands: JSON, highlighting, warnings (progress
lines are ``progress_view.ProgressLine``)."""

from __future__ import annotations

import json
import re
import sys

from ..tokenizer import has_cjk, is_stopword, normalize, stem


def print_json(data) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def highlight(text: str, words: list[str], enabled: bool) -> str:
    """Bold the query's words in ``text`` (only on a terminal).

    A word matches where a word starts ("restore" marks "restored", "the" never marks
    "other"); a CJK word, which has no spaces around it, matches anywhere."""
    if not enabled or not words:
        return text
    folded = [
        re.escape(w) if has_cjk(w) else r"(?<!\w)" + re.escape(w)
        for w in sorted(set(words), key=len, reverse=True)
        if len(w) > 1
    ]
    if not folded:
        return text
    pattern = re.compile("(" + "|".join(folded) + ")", re.IGNORECASE)
    return pattern.sub(lambda m: f"\033[1m{m.group(0)}\033[0m", text)


def query_words(query: str) -> list[str]:
    """The words of ``query`` worth marking: stopwords ("the", "from") are not searched
    for, so they are not marked either."""
    return [w for w in re.split(r"\W+", normalize(query)) if w and not is_stopword(stem(w))]


def warn(message: str) -> None:
    """One ``mnemosyne: warning:`` line on stderr (stdout carries only results)."""
    print(f"mnemosyne: warning: {message}", file=sys.stderr)


def note(message: str) -> None:
    """A hint for the person at the terminal, on stderr."""
    print(f"mnemosyne: {message}", file=sys.stderr)


def print_transaction(result: dict) -> None:
    """The journaled shape, with the command that undoes it."""
    tid = result.get("transaction_id")
    if tid is None:
        print("nothing changed")
        return
    print(f"transaction: {tid} ({result.get('state', 'committed')})")
    print(f"undo with:   mnemosyne undo {tid}")


def describe_labels(labels: list[str]) -> str:
    return ", ".join(labels) if labels else "(none)"
