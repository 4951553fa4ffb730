"""``note_edits``: the text of prepend, find-and-replace, section replacement and link
retargeting, without a vault."""

from __future__ import annotations

import pytest

from birkin_mnemosyne.errors import (
    AmbiguousSectionError,
    InvalidInputError,
    MatchCountError,
    SectionNotFoundError,
    error_dict,
)
from birkin_mnemosyne.markdown import parse_markdown
from birkin_mnemosyne.note_edits import (
    find_replace_in_note,
    find_section,
    prepend_to_note,
    replace_note_section,
    retarget_links,
)

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
NOTE = "---\ntitle: Runbook\nupdated: 2026-01-01T00:00:00Z\n---\n\n# Runbook\n\nIntro.\n"


def same(text):
    return text


def edit(function, text, *args, **options):
    warnings: list[str] = []
    options.setdefault("now", T0)
    options.setdefault("sources", [])
    return function(text, *args, warnings=warnings, **options), warnings


# -- prepend -----------------------------------------------------------------------------


def test_prepend_goes_right_after_the_frontmatter_and_sets_updated():
    text, warnings = edit(prepend_to_note, NOTE, "TL;DR: restore from the dump.\n\n")
    assert text == (
        "---\ntitle: Runbook\nupdated: 2026-03-02T10:00:00Z\n---\n\n"
        "TL;DR: restore from the dump.\n\n# Runbook\n\nIntro.\n"
    )
    assert warnings == []


def test_prepend_without_frontmatter_keeps_crlf_and_adds_no_fields():
    text, _ = edit(prepend_to_note, "# Old\r\n\r\nBody\r\n", "first\nsecond")
    assert text == "first\r\nsecond\r\n\r\n# Old\r\n\r\nBody\r\n"


def test_prepend_merges_sources_and_refuses_empty_text():
    text, _ = edit(prepend_to_note, NOTE, "x", sources=["ticket 7"])
    assert "sources:\n  - ticket 7\n" in text
    with pytest.raises(InvalidInputError, match="empty"):
        edit(prepend_to_note, NOTE, "\n\n")


# -- find and replace ----------------------------------------------------------------------


def test_find_replace_changes_the_body_only_and_every_match():
    note = "---\ntitle: pool size\n---\npool size 40; the pool size matters\n"
    text, _ = edit(
        find_replace_in_note, note, "pool size", "pool_size", expected_count=2, where="a.md"
    )
    assert text.startswith("---\ntitle: pool size\n")  # the frontmatter is not searched
    assert text.endswith("pool_size 40; the pool_size matters\n")


@pytest.mark.parametrize(
    ("expected", "hint"),
    [(1, "add surrounding text until it matches only where"), (3, "pass the number found")],
)
def test_find_replace_refuses_another_count_naming_both(expected, hint):
    note = "a cat, a cat\n"
    with pytest.raises(MatchCountError) as caught:
        edit(find_replace_in_note, note, "cat", "dog", expected_count=expected, where="x.md")
    assert caught.value.found == 2 and caught.value.expected == expected
    message = str(caught.value)
    assert f"found 2 matches of the text, expected {expected}" in message and hint in message
    assert "nothing was changed" in caught.value.message  # the problem, without the fix


def test_find_replace_without_a_match_explains_redaction_marks():
    with pytest.raises(MatchCountError) as caught:
        edit(find_replace_in_note, NOTE, "Outro.", "x", expected_count=1, where="x.md")
    assert "found 0 matches" in caught.value.message
    assert str(caught.value).endswith(
        "line breaks included: read it again with VaultMemory.get_note()"
    )
    assert error_dict(caught.value, "mcp")["hint"].endswith("read it again with memory_get_note")
    assert (error_dict(caught.value)["found"], error_dict(caught.value)["expected"]) == (0, 1)
    with pytest.raises(MatchCountError, match=r"\[REDACTED\] mark.*never the mark"):
        edit(
            find_replace_in_note,
            "password: hunter2\n",
            "password: [REDACTED:password]",
            "x",
            expected_count=1,
            where="x.md",
        )


def test_find_replace_matches_across_crlf_lines():
    note = "one\r\ntwo\r\nthree\r\n"
    text, _ = edit(find_replace_in_note, note, "one\ntwo", "1\n2", expected_count=1, where="x.md")
    assert text == "1\r\n2\r\nthree\r\n"


# -- sections ------------------------------------------------------------------------------

SECTIONS = """\
# Guide

## Prepare

Stop the API.

## Verify

Check the counts.

### Details

Rows per table.

## Rollback

Swap back.
"""


def test_replace_section_keeps_the_heading_and_the_next_sections():
    text, _ = edit(
        replace_note_section,
        SECTIONS,
        "verify",
        "Compare with yesterday.\n",
        redact=same,
        where="g.md",
    )
    assert text == SECTIONS.replace(
        "Check the counts.\n\n### Details\n\nRows per table.\n",
        "Compare with yesterday.\n",
    )


def test_replace_section_of_the_last_heading_and_with_empty_text():
    text, _ = edit(
        replace_note_section, SECTIONS, "Rollback", "Undo it.", redact=same, where="g.md"
    )
    assert text.endswith("## Rollback\n\nUndo it.\n")
    text, _ = edit(replace_note_section, SECTIONS, "Prepare", "", redact=same, where="g.md")
    assert "## Prepare\n\n## Verify" in text


def test_a_missing_heading_lists_the_headings():
    md = parse_markdown(SECTIONS)
    with pytest.raises(SectionNotFoundError) as caught:
        find_section(md.headings, "Deploy", same, "g.md")
    assert caught.value.candidates == ["Guide", "Prepare", "Verify", "Details", "Rollback"]
    assert "no section 'Deploy' in g.md — headings: 'Guide', 'Prepare'" in str(caught.value)


def test_a_shared_heading_is_ambiguous_unless_its_level_is_given():
    text = "# Notes\n\n## Notes\n\nsecond\n\n### Notes\n\nthird\n"
    headings = parse_markdown(text).headings
    with pytest.raises(AmbiguousSectionError) as caught:
        find_section(headings, "notes", same, "n.md")
    assert caught.value.candidates == [
        "# Notes (line 1)",
        "## Notes (line 3)",
        "### Notes (line 7)",
    ]
    assert "'# Notes'" in str(caught.value)  # the fix names a level
    assert find_section(headings, "## NOTES", same, "n.md") == 1
    twice = parse_markdown("## A\n\nx\n\n## a\n\ny\n").headings
    with pytest.raises(AmbiguousSectionError, match="rename one of them"):
        find_section(twice, "## A", same, "n.md")


def test_a_heading_is_found_by_its_redacted_text_too():
    headings = parse_markdown("## token sk-live-123\n\nx\n").headings
    redact = lambda text: text.replace("sk-live-123", "[REDACTED]")  # noqa: E731
    assert find_section(headings, "token [REDACTED]", redact, "s.md") == 0
    with pytest.raises(SectionNotFoundError) as caught:
        find_section(headings, "nope", redact, "s.md")
    assert "sk-live" not in str(caught.value) and caught.value.candidates == ["token [REDACTED]"]


# -- links ---------------------------------------------------------------------------------


def test_retarget_links_keeps_sections_aliases_embeds_and_code():
    text = (
        "See [[old]], [[old#Verify|check it]] and ![[old]].\n"
        "| a | [[old\\|table alias]] |\n"
        "`[[old]]` stays, so does [[other]].\n"
        "```\n[[old]]\n```\n"
    )
    new, changes = retarget_links(
        text, lambda link: "new/place" if link.target == "old" else None, line_shift=4
    )
    assert new == (
        "See [[new/place]], [[new/place#Verify|check it]] and ![[new/place]].\n"
        "| a | [[new/place\\|table alias]] |\n"
        "`[[old]]` stays, so does [[other]].\n"
        "```\n[[old]]\n```\n"
    )
    assert [(line, old) for line, old, _ in changes] == [
        (5, "[[old]]"),
        (5, "[[old#Verify|check it]]"),
        (5, "![[old]]"),
        (6, "[[old\\|table alias]]"),
    ]


def test_retarget_links_without_a_change_returns_the_same_text():
    text = "plain [[x]]\n"
    assert retarget_links(text, lambda link: None) == (text, [])
    assert retarget_links(text, lambda link: "x") == (text, [])
