"""Snippets: the densest piece is the centre, and remembering a section changes nothing."""

from __future__ import annotations

from birkin_mnemosyne import snippets
from birkin_mnemosyne.snippets import make_snippet

TEXT = (
    "## Restore\n\nStop the API first. Take the nightly dump from the backup host. "
    "Restore it into a scratch database.\n```bash\npg_restore -d scratch dump\n```\n"
    "Check the row counts. Swap the databases when the counts match.\n"
)


def test_the_piece_with_the_rarest_terms_is_the_centre():
    assert make_snippet(TEXT, {"dump": 1.0}, max_chars=40).startswith("…Take the nightly dump")
    assert make_snippet(TEXT, {"swap": 1.0}, max_chars=40).startswith("…Swap the databases")
    # the heading and fence lines are not part of the snippet
    assert "##" not in make_snippet(TEXT, {"restor": 1.0})
    assert "```" not in make_snippet(TEXT, {"restor": 1.0}, max_chars=400)


def test_a_remembered_section_cuts_the_same_snippets_as_a_new_one():
    queries = [{"dump": 1.0}, {"swap": 1.0}, {"check": 0.5, "count": 2.0}, {}]
    fresh = []
    for weights in queries:
        snippets._prepared.clear()
        fresh.append(make_snippet(TEXT, weights, max_chars=60))
    again = [make_snippet(TEXT, weights, max_chars=60) for weights in queries * 2]
    assert again == fresh * 2
    assert len(set(fresh)) == 3  # the empty query shows the first lines, as "dump" does


def test_the_remembered_sections_stay_within_their_character_budget(monkeypatch):
    monkeypatch.setattr(snippets, "_PREPARED_MAX_CHARS", 1000)
    monkeypatch.setattr(snippets, "_prepared", {})
    monkeypatch.setattr(snippets, "_prepared_chars", 0)
    for i in range(50):
        make_snippet(f"Section {i}. " + "word " * 40, {"word": 1.0})
    assert 0 < sum(len(text) for text in snippets._prepared) <= 1000
    assert snippets._prepared_chars == sum(len(text) for text in snippets._prepared)
    # a section larger than the whole budget is cut but not remembered
    make_snippet("big " * 600, {"big": 1.0})
    assert all(not text.startswith("big") for text in snippets._prepared)
