"""The documentation points only at what the repository holds.

Every relative Markdown link in the README, docs/, benchmarks/ and integrations/ names a
file or folder of this checkout (and, for a ``.md`` target, an anchor one of its
headings makes), and no page names a project file that is not in the repository.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Note folders of demo and benchmark vaults: their links are wikilinks between notes.
VAULTS = ("examples/vault", "benchmarks/retrieval/gold")
# Files of a user's setup that the docs talk about (Claude Code's auto-memory, Hermes's
# built-in memory, a vault's own index page): not files of this project.
USER_FILES = {"MEMORY.md", "USER.md", "INDEX.md"}

_FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
_CODE = re.compile(r"`[^`\n]*`")
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_PROJECT_FILE = re.compile(r"\b[A-Z][A-Z0-9_-]+\.md\b")


def _pages() -> list[Path]:
    pages = [ROOT / "README.md"]
    for folder in ("docs", "benchmarks", "integrations", "examples"):
        pages += sorted((ROOT / folder).rglob("*.md"))
    return [
        p
        for p in pages
        if not any(p.relative_to(ROOT).as_posix().startswith(v + "/") for v in VAULTS)
        and not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
    ]


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@functools.cache
def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M):
        anchor = _anchor(heading)
        n = 0
        while (anchor if n == 0 else f"{anchor}-{n}") in found:
            n += 1
        found.add(anchor if n == 0 else f"{anchor}-{n}")
    return found


def _links(page: Path) -> list[str]:
    text = _CODE.sub("", _FENCE.sub("", page.read_text(encoding="utf-8")))
    return _LINK.findall(text)


def test_the_scan_finds_the_pages_and_their_links():
    pages = {p.relative_to(ROOT).as_posix() for p in _pages()}
    assert {"README.md", "docs/tutorial.md", "docs/reference/python-api.md"} <= pages
    assert "benchmarks/startup/RESULTS.md" in pages
    assert not [p for p in pages if p.startswith(VAULTS)]
    assert "docs/reference/python-api.md" in _links(ROOT / "README.md")
    assert "key-resolution" in _anchors(ROOT / "docs" / "reference" / "notes.md")


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_names_a_file_of_the_repository(page):
    broken = []
    for target in _links(page):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:, ...
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if ROOT not in file.parents and file != ROOT:
            broken.append(f"{target}: outside the repository")
        elif not file.exists():
            broken.append(f"{target}: no such file")
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(f"{target}: no heading makes #{anchor}")
    assert not broken, broken


@functools.cache
def _file_names() -> frozenset[str]:
    return frozenset(p.name for p in ROOT.rglob("*.md") if ".git" not in p.parts)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_names_a_project_file_the_repository_lacks(page):
    names = set(_PROJECT_FILE.findall(page.read_text(encoding="utf-8"))) - USER_FILES
    assert names <= _file_names(), sorted(names - _file_names())
