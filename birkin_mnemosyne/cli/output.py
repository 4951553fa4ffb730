"""Printing helpers shared by the subcommands: JSON, highlighting, progress."""

from __future__ import annotations

import json
import re
import sys

from ..tokenizer import normalize


def print_json(data) -> None:
    json.dump(data, sys.stdout, ensure_ascii=False, indent=2, default=str)
    sys.stdout.write("\n")


def highlight(text: str, words: list[str], enabled: bool) -> str:
    """Bold the query's words in ``text`` (only on a terminal)."""
    if not enabled or not words:
        return text
    folded = [re.escape(w) for w in words if len(w) > 1]
    if not folded:
        return text
    pattern = re.compile("(" + "|".join(folded) + ")", re.IGNORECASE)
    return pattern.sub(lambda m: f"\033[1m{m.group(0)}\033[0m", text)


def query_words(query: str) -> list[str]:
    return [w for w in re.split(r"\W+", normalize(query)) if w]


class Progress:
    """A one-line progress bar on stderr, drawn only when stderr is a terminal."""

    def __init__(self, label: str, *, stream=None) -> None:
        self.label = label
        self.stream = stream or sys.stderr
        self.enabled = self.stream.isatty()
        self._last = -1

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled or total < 200:
            return
        percent = done * 100 // total
        if percent == self._last and done != total:
            return
        self._last = percent
        filled = percent * 30 // 100
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (30 - filled)}] {done}/{total}")
        if done == total:
            self.stream.write("\n")
        self.stream.flush()


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
