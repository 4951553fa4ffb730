import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.markdown import (
    Heading,
    ParsedMarkdown,
    Section,
    WikiLink,
    estimate_tokens,
    parse_markdown,
    section_stamp,
    strip_markup,
)

# The large inputs below parse in about a second when parsing is linear; a quadratic
# regression would take minutes (no timing assertions: benchmarks measure speed).


def check_tiling(text: str, parsed: ParsedMarkdown) -> None:
    sections = parsed.sections
    if not text:
        assert sections == ()
        return
    assert sections[0].start == 0
    assert sections[-1].end == len(text)
    for previous, section in zip(sections, sections[1:], strict=False):
        assert section.start == previous.end
    for section in sections:
        assert section.start < section.end
        assert section.line == text.count("\n", 0, section.start) + 1


def slices(text: str, parsed: ParsedMarkdown) -> list[str]:
    return [text[s.start : s.end] for s in parsed.sections]


# ------------------------------------------------------------------------ tokens


def test_estimate_tokens_is_utf8_bytes_over_four_rounded_up():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("é") == 1  # 2 bytes
    assert estimate_tokens("数据库") == 3  # 9 bytes
    assert estimate_tokens("\ud800") == 1  # a lone surrogate does not raise


# ---------------------------------------------------------------------- headings


def test_atx_headings():
    text = (
        "# Title\n"
        "## Closing hashes ##\n"
        "### Not closing#\n"
        "   #### Three spaces\n"
        "    # four spaces is code\n"
        "#NoSpace\n"
        "####### seven\n"
        "##\n"
        "#\tTab\n"
        "###### Six ###   \n"
        "## # \n"
    )
    parsed = parse_markdown(text)
    assert parsed.headings == (
        Heading(1, "Title", 1),
        Heading(2, "Closing hashes", 2),
        Heading(3, "Not closing#", 3),
        Heading(4, "Three spaces", 4),
        Heading(2, "", 8),
        Heading(1, "Tab", 9),
        Heading(6, "Six", 10),
        Heading(2, "", 11),
    )
    assert parsed.h1 == "Title"


def test_crlf_headings_and_offsets():
    text = "# T\r\nlead\r\n## A\r\nbody\r\n### B\r\n"
    parsed = parse_markdown(text)
    assert [(h.level, h.text, h.line) for h in parsed.headings] == [
        (1, "T", 1),
        (2, "A", 3),
        (3, "B", 5),
    ]
    assert slices(text, parsed) == ["# T\r\nlead\r\n", "## A\r\nbody\r\n", "### B\r\n"]
    check_tiling(text, parsed)


# ------------------------------------------------------------------------ fences


def test_headings_and_links_inside_fences_are_ignored():
    text = (
        "## Real\n"
        "```bash\n"
        "# a shell comment\n"
        "echo [[not-a-link]]\n"
        "```\n"
        "~~~\n"
        "## also code\n"
        "~~~\n"
        "[[real-link]]\n"
    )
    parsed = parse_markdown(text)
    assert [h.text for h in parsed.headings] == ["Real"]
    assert [link.target for link in parsed.links] == ["real-link"]
    assert parsed.warnings == ()


def test_fence_closes_only_with_same_character_and_enough_length():
    text = (
        "````md\n"
        "```\n"  # too short: still inside
        "~~~~\n"  # wrong character
        "# inside\n"
        "```` trailing\n"  # text after the run: not a closer
        "`````\n"  # longer closes
        "# outside\n"
    )
    parsed = parse_markdown(text)
    assert [h.text for h in parsed.headings] == ["outside"]
    assert parsed.warnings == ()


def test_nested_looking_fences():
    text = "~~~\n```\n# in\n```\n~~~\n# out\n```python\n~~~\n# in2\n```\n# out2\n"
    parsed = parse_markdown(text)
    assert [h.text for h in parsed.headings] == ["out", "out2"]


def test_fence_with_indent_and_backtick_info():
    text = "   ```\n# in\n   ```\n``` a`b\n# not in a fence\n"
    parsed = parse_markdown(text)
    assert [h.text for h in parsed.headings] == ["not in a fence"]
    assert parse_markdown("    ```\n# heading\n").headings == (Heading(1, "heading", 2),)


def test_unclosed_fence_ends_at_next_heading_with_warning():
    text = (
        "intro\n"
        "```python\n"  # line 2, never closed
        "x = 1  [[hidden]]\n"
        "## Next\n"
        "[[visible]]\n"
    )
    parsed = parse_markdown(text)
    assert [(w.code, w.line) for w in parsed.warnings] == [("unclosed_fence", 2)]
    assert "line 2" in parsed.warnings[0].message
    assert [h.text for h in parsed.headings] == ["Next"]
    assert [link.target for link in parsed.links] == ["visible"]


def test_unclosed_fence_recovery_respects_closed_inner_fences():
    text = (
        "````\n"  # unclosed: no later run of 4+ backticks
        "```\n"
        "# inside a real fence\n"
        "```\n"
        "[[hidden]]\n"
        "## Heading ends it\n"
        "```\n"
        "code\n"
        "```\n"
        "[[shown]]\n"
    )
    parsed = parse_markdown(text)
    assert [h.text for h in parsed.headings] == ["Heading ends it"]
    assert [link.target for link in parsed.links] == ["shown"]
    assert [w.line for w in parsed.warnings] == [1]


def test_unclosed_fence_runs_to_end_of_text():
    parsed = parse_markdown("text\n~~~\n[[a]]\n# no")
    assert parsed.headings == (Heading(1, "no", 4),)
    parsed = parse_markdown("text\n~~~\n[[a]]\nmore\n")
    assert parsed.links == ()
    assert [w.line for w in parsed.warnings] == [2]


def test_many_unclosed_fences_stay_linear():
    text = "````x\n## h\n" * 10_000  # an info string: never a closer
    parsed = parse_markdown(text)
    assert len(parsed.warnings) == 10_000
    assert len(parsed.headings) == 10_000


# ------------------------------------------------------------------------- links


def test_wikilinks():
    text = (
        "See [[note]], [[folder/other#Section|the alias]] and ![[image.png]].\n"
        "Same note: [[#Local heading]]; with block [[n#^abc]]; empty [[ ]].\n"
        "Table | [[a\\|b]] |\n"
        "Code `[[in-code]]` and ``[[x]] ` [[still-code]]`` then [[after]]\n"
        "Unmatched ` backtick [[counted]]\n"
    )
    parsed = parse_markdown(text)
    assert parsed.links == (
        WikiLink("note", None, None, 1),
        WikiLink("folder/other", "Section", "the alias", 1),
        WikiLink("image.png", None, None, 1),
        WikiLink("", "Local heading", None, 2),
        WikiLink("n", "^abc", None, 2),
        WikiLink("a", None, "b", 3),
        WikiLink("after", None, None, 4),
        WikiLink("counted", None, None, 5),
    )


def test_links_on_a_very_long_line_are_linear():
    text = "[[a]] `code` " * 30_000
    parsed = parse_markdown(text)
    assert len(parsed.links) == 30_000


# ---------------------------------------------------------------------- sections


def test_sections_with_title_chain_and_levels():
    text = (
        "# Postgres restore\n"
        "lead text\n"
        "## Prepare\n"
        "p\n"
        "#### Small\n"
        "still prepare\n"
        "### Sub\n"
        "s\n"
        "## Verify\n"
        "v\n"
    )
    parsed = parse_markdown(text)
    check_tiling(text, parsed)
    assert [(s.heading, s.chain, s.level, s.line, s.part) for s in parsed.sections] == [
        ("", ("Postgres restore",), 0, 1, 0),
        ("Prepare", ("Postgres restore", "Prepare"), 2, 3, 0),
        ("Sub", ("Postgres restore", "Prepare", "Sub"), 3, 7, 0),
        ("Verify", ("Postgres restore", "Verify"), 2, 9, 0),
    ]
    assert slices(text, parsed)[1] == "## Prepare\np\n#### Small\nstill prepare\n"


def test_no_lead_section_when_text_starts_with_a_cut():
    parsed = parse_markdown("## A\nx\n### B\n")
    assert [(s.heading, s.chain, s.start) for s in parsed.sections] == [
        ("A", ("A",), 0),
        ("B", ("A", "B"), 7),
    ]
    assert parsed.h1 is None


def test_h3_without_h2_and_lead_without_h1():
    parsed = parse_markdown("lead\n### Deep\n")
    assert [(s.heading, s.chain, s.level) for s in parsed.sections] == [
        ("", (), 0),
        ("Deep", ("Deep",), 3),
    ]


def test_later_h1_cuts_as_level_one_and_resets_chain():
    text = "# One\n## A\n# Two\nx\n## B\n"
    parsed = parse_markdown(text)
    assert parsed.h1 == "One"
    assert [(s.heading, s.chain, s.level) for s in parsed.sections] == [
        ("", ("One",), 0),
        ("A", ("One", "A"), 2),
        ("Two", ("Two",), 1),
        ("B", ("Two", "B"), 2),
    ]


def test_empty_and_heading_free_text():
    assert parse_markdown("") == ParsedMarkdown(None, (), (), (), ())
    parsed = parse_markdown("just text\n")
    assert parsed.sections == (Section("", (), 0, 0, 10, 1, 0),)


def test_long_section_is_split_at_paragraphs():
    paragraph = "word " * 40 + "\n"  # 201 bytes, about 51 tokens
    text = "## Long\n" + "\n".join([paragraph] * 10)
    parsed = parse_markdown(text, max_section_tokens=120)
    check_tiling(text, parsed)
    parts = parsed.sections
    assert [s.part for s in parts] == list(range(1, len(parts) + 1))
    assert len(parts) == 5
    for section in parts:
        assert (section.heading, section.chain, section.level) == ("Long", ("Long",), 2)
        assert estimate_tokens(text[section.start : section.end]) <= 120
        assert text[section.start] != "\n"
    assert parse_markdown(text).sections[0].part == 0
    assert len(parse_markdown(text, max_section_tokens=0).sections) == 1


def test_split_never_cuts_inside_a_fence():
    fence = "```\n" + "\n\n".join(["code line " * 10] * 30) + "\n```\n"
    text = "## S\nintro\n\n" + fence + "\nafter one\n\nafter two\n"
    parsed = parse_markdown(text, max_section_tokens=50)
    check_tiling(text, parsed)
    fence_start = text.index("```")
    fence_end = text.index("```\n", fence_start + 3) + 4
    for section in parsed.sections:
        assert not fence_start < section.start < fence_end
    whole = [s for s in parsed.sections if s.start <= fence_start and s.end >= fence_end]
    assert len(whole) == 1  # the oversized fence stays in one part


def test_split_respects_unclosed_fence_region():
    text = "## S\n" + "~~~\n" + "x\n\n" * 400 + "## T\n"
    parsed = parse_markdown(text, max_section_tokens=20)
    assert [s.heading for s in parsed.sections] == ["S", "T"]


def test_split_with_multibyte_text_and_crlf():
    paragraph = "数据库迁移导致锁表。" * 5 + "\r\n"
    text = "## 经过\r\n" + "\r\n".join([paragraph] * 8)
    parsed = parse_markdown(text, max_section_tokens=60)
    check_tiling(text, parsed)
    assert len(parsed.sections) > 1
    for section in parsed.sections:
        assert estimate_tokens(text[section.start : section.end]) <= 60


def test_split_with_a_long_run_of_blank_lines_at_the_end_is_linear():
    text = "## A\n" + "word\n\n" * 1000 + " \n" * 200_000
    parsed = parse_markdown(text, max_section_tokens=10)
    check_tiling(text, parsed)
    last = parsed.sections[-1]
    assert text[last.start : last.end].startswith("word\n")  # no part of blank lines only


# ------------------------------------------------------------------ performance


def test_100k_headings_parse_fast():
    text = "# Title\n" + "".join(f"## Heading {i}\nbody\n" for i in range(100_000))
    parsed = parse_markdown(text)
    assert len(parsed.headings) == 100_001
    assert len(parsed.sections) == 100_001
    assert parsed.sections[-1] == Section(
        "Heading 99999", ("Title", "Heading 99999"), 2, len(text) - 22, len(text), 200_000, 0
    )


# ---------------------------------------------------------------- never raises


@pytest.mark.parametrize(
    "text",
    [
        "\x00",
        "# \x00\n```\x00\n",
        "\ufeff# Title\n",
        "\r\n\r\n",
        "```",
        "#",
        "[[",
        "]]",
        "[[|]]",
        "[[#]]",
        "\ud800 [[x]]",
        "a" * 1_000_000,
        "`" * 100_000,
        "#" * 100_000,
        "[[" * 50_000,
        "\n" * 100_000,
    ],
    ids=lambda text: repr(text[:12]) + ("..." if len(text) > 12 else ""),
)
def test_odd_inputs_do_not_raise(text):
    parsed = parse_markdown(text, max_section_tokens=10)
    check_tiling(text, parsed)


markdownish_lines = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "# Title",
                "## Section",
                "### Sub",
                "#### Minor",
                "```",
                "```python",
                "````",
                "~~~",
                "   ```",
                "",
                "   ",
                "text [[link]] more",
                "`code [[no]]`",
                "paragraph words here",
                "- item",
                "#not-heading",
            ]
        ),
        st.text(alphabet="#`~ [] \t\rab|", max_size=12),
    ),
    max_size=40,
)


@given(markdownish_lines, st.sampled_from(["\n", "\r\n"]), st.integers(0, 40))
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
def test_sections_tile_any_markdownish_text(lines, newline, limit):
    text = newline.join(lines)
    parsed = parse_markdown(text, max_section_tokens=limit)
    check_tiling(text, parsed)
    lines_of_headings = {h.line for h in parsed.headings}
    for section in parsed.sections:
        if section.level in (2, 3) and section.part <= 1:
            assert section.line in lines_of_headings
    for link in parsed.links:
        assert 1 <= link.line <= len(lines)


@given(st.text(max_size=200), st.integers(0, 20))
@settings(max_examples=60)
def test_any_text_parses(text, limit):
    check_tiling(text, parse_markdown(text, max_section_tokens=limit))


# ------------------------------------------------------------------ strip_markup


def test_strip_markup():
    text = (
        "## Heading ##\n"
        "```bash\n"
        "echo hi\n"
        "```\n"
        "> quoted **bold** and _em_ and `code`\n"
        "See [[note#Part|alias]], [[plain]], [[#Local]] and [site](https://x.y).\n"
        "snake_case stays, 2 * 3 stays, ~~gone~~ ==marked==\n"
        "Item ## stays in prose\r\n"
        "### CRLF heading #\r\n"
    )
    assert strip_markup(text) == (
        "Heading\n"
        "echo hi\n"
        "quoted bold and em and code\n"
        "See alias, plain, Local and site.\n"
        "snake_case stays, 2 * 3 stays, gone marked\n"
        "Item ## stays in prose\r\n"
        "CRLF heading\r\n"
    )


@pytest.mark.parametrize(
    "text",
    ["# " + " " * 200_000 + "x", "[a](" * 50_000, "*" * 200_000 + " "],
    ids=["blanks", "links", "stars"],
)
def test_strip_markup_is_linear(text):
    strip_markup(text)


@pytest.mark.parametrize(
    ("chain", "note_date", "expected"),
    [
        (("2026-01-13", "10:00 — PG17 kick-off"), "2026-01-13", "2026-01-13T10:00"),
        (
            ("March 2026", "Week 10", "03-02 09:40 — danube is back"),
            "2026-03-31",
            "2026-03-02T09:40",
        ),
        (("2026-06-03 — game day",), None, "2026-06-03"),
        (("2026年6月3日 障害",), None, "2026-06-03"),
        (("2026년 6월 3일 장애",), None, "2026-06-03"),
        (("Facts",), "2026-06-19", "2026-06-19"),
        (("Facts",), None, None),
        (("Port 8080:80 mapping",), "2026-01-01", "2026-01-01"),
        (("13-45 is no day",), "2026-01-01", "2026-01-01"),
    ],
)
def test_section_stamp_reads_dates_and_times_from_headings(chain, note_date, expected):
    assert section_stamp(chain, note_date) == expected
