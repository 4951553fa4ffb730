"""Wikilinks between notes, resolved: outbound links, backlinks, unresolved links.

``VaultMemory.related`` builds a ``LinkGraph`` from the engine's index metadata and
keeps it until the index changes.
"""

from __future__ import annotations

import unicodedata

from . import notes_io as nio
from .vault_paths import note_stem, zone_of

__all__ = ["LinkGraph"]


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


class LinkGraph:
    """Every live note's wikilinks, resolved, for ``VaultMemory.related``.

    Built from the index metadata (``links`` holds each note's link targets, with
    ``#section`` and ``|alias`` already stripped by ``markdown.parse_markdown``) and
    rebuilt whenever the engine's ``keys()`` map is replaced, which happens on any change
    of the index.

    A target resolves as a wikilink does: by path (``.md`` optional), else by file-name
    stem, else by title, each compared case-insensitively. The first of those levels that
    matches decides; when it matches several notes, the one in the linking note's own
    folder wins, and if that does not settle it the link stays unresolved with the
    matching paths as ``candidates``.
    """

    def __init__(self, keys: dict[str, str], notes: dict[str, dict]) -> None:
        self.keys = keys
        self.levels: tuple[dict[str, list[str]], ...] = ({}, {}, {})
        for path in sorted(keys):
            names = (nio.without_md(path), note_stem(path), notes[path]["title"] or "")
            for level, name in zip(self.levels, names):
                if name:
                    level.setdefault(_fold(name), []).append(path)
        self.outbound: dict[str, list[tuple[str, str]]] = {}
        self.unresolved: dict[str, list[tuple[str, list[str]]]] = {}
        self.backlinks: dict[str, list[str]] = {}
        for path in sorted(keys):
            for target in notes[path]["links"] or []:
                found, candidates = self.resolve(target, zone_of(path))
                if found is None:
                    self.unresolved.setdefault(path, []).append((target, candidates))
                elif found != path:  # a note linking to itself is not related to itself
                    self.outbound.setdefault(path, []).append((target, found))
                    self.backlinks.setdefault(found, []).append(path)

    def resolve(self, target: str, zone: str) -> tuple[str | None, list[str]]:
        """``(path, [])`` for a resolved target, else ``(None, candidates)``."""
        name = target.strip().replace("\\", "/").lstrip("/")
        folded = _fold(nio.without_md(name))
        for level in self.levels:
            matches = level.get(folded)
            if not matches:
                continue
            if len(matches) == 1:
                return matches[0], []
            local = [p for p in matches if zone_of(p) == zone]
            if len(local) == 1:
                return local[0], []
            return None, list(matches)
        return None, []
