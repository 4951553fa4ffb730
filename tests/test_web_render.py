"""The web page's Markdown renderer: what it builds, and that note text stays inert."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.web.render import render_note, slug


def html_of(text: str) -> str:
    return render_note(text)[0]


def test_headings_get_unique_ids_and_make_the_outline():
    html, outline = render_note("# Restore\n\n## Steps\n\ntext\n\n## Steps\n")
    assert '<h1 id="h-restore">Restore</h1>' in html
    assert '<h2 id="h-steps">' in html and '<h2 id="h-steps-2">' in html
    assert outline == [
        {"heading": "Restore", "level": 1, "anchor": "h-restore"},
        {"heading": "Steps", "level": 2, "anchor": "h-steps"},
        {"heading": "Steps", "level": 2, "anchor": "h-steps-2"},
    ]


def test_slugs_keep_letters_of_any_script():
    assert slug("디스크 용량 부족") == "디스크-용량-부족"
    assert slug("!!!") == "section"


def test_blocks_paragraphs_lists_tasks_quotes_code_tables_rules():
    html = html_of(
        "one\ntwo\n\n- a\n  - b\n- [x] done\n\n1. first\n2. second\n\n> quoted *it*\n\n"
        "```bash\necho <hi> && ls\n```\n\n| h1 | h2 |\n|---|---|\n| c1 | c2 |\n\n---\n"
    )
    assert "<p>one\ntwo</p>" in html
    assert "<ul><li>a<ul><li>b</li></ul></li>" in html
    assert '<li class="task"><input type="checkbox" disabled checked> done' in html
    assert "<ol><li>first</li><li>second</li></ol>" in html
    assert "<blockquote><p>quoted <em>it</em></p></blockquote>" in html
    assert '<pre><code class="language-bash">echo &lt;hi&gt; &amp;&amp; ls</code></pre>' in html
    assert "<th>h1</th><th>h2</th>" in html and "<td>c1</td><td>c2</td>" in html
    assert "<hr>" in html


def test_inline_marks():
    html = html_of("**bold** *em* ~~gone~~ `x < y` [[db1#Backups|the db]] [[Other note]]")
    assert "<strong>bold</strong> <em>em</em> <del>gone</del> <code>x &lt; y</code>" in html
    assert '<a href="#/note/db1?anchor=h-backups" class="wikilink">the db</a>' in html
    assert '<a href="#/note/Other%20note" class="wikilink">Other note</a>' in html


def test_links_keep_only_safe_targets():
    html = html_of(
        "[site](https://example.org/a?b=1&c=2) [mail](mailto:a@b.c) [bad](javascript:void) "
        "[paren](javascript:alert(1)) "
        "[data](data:text/html,x) [rel](../runbooks/restore.md#steps) ![pic](https://x.org/p.png)"
    )
    assert '<a href="https://example.org/a?b=1&amp;c=2" rel="noopener noreferrer"' in html
    assert 'href="mailto:a@b.c"' in html
    assert "javascript:" not in re.findall(r'href="([^"]*)"', html).__str__()
    assert 'href="data:' not in html
    assert '<span class="link-blocked" title="javascript:void">bad</span>' in html
    assert "[paren](javascript:alert(1))" in html  # not a link at all: plain text
    assert '<a href="#/note/runbooks%2Frestore?anchor=h-steps" class="wikilink">rel</a>' in html
    assert "<img" not in html and "[image: pic]" in html


def test_raw_html_and_attribute_breakouts_stay_text():
    html = html_of(
        "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n"
        '[x](https://a.org/"onmouseover="alert(1))\n\n[[a"><script>|b]]'
    )
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    assert re.findall(r"<[^<>]*onmouseover", html) == []  # in text, never in a tag
    assert '<a href="#/note/a%22%3E%3Cscript%3E" class="wikilink">b</a>' in html


def test_redaction_marks_are_set_apart():
    html = html_of("key: [REDACTED:aws-access-key]")
    assert '<span class="redacted">[REDACTED:aws-access-key]</span>' in html


def test_frontmatter_is_folded_and_escaped():
    html = html_of("---\ntitle: <b>x</b>\nstatus: superseded\n---\n# T\n")
    assert html.startswith('<details class="frontmatter"><summary>frontmatter</summary><pre>')
    assert "&lt;b&gt;x&lt;/b&gt;" in html and '<h1 id="h-t">T</h1>' in html


def test_deep_nesting_does_not_recurse_without_end():
    html = html_of(">" * 5000 + " deep")
    assert "deep" in html
    html = html_of("*" * 5000 + "x" + "*" * 5000)
    assert "x" in html


ALLOWED_TAGS = {
    "a", "blockquote", "br", "code", "del", "details", "div", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "input", "li", "ol", "p", "pre", "span", "strong", "summary", "table",
    "tbody", "td", "th", "thead", "tr", "ul",
}  # fmt: skip
ALLOWED_ATTRS = {"href", "rel", "class", "title", "id", "type", "disabled", "checked"}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>\"'&[]()!*_`~#-|:/ \nabjs=x;")), max_size=200))
def test_whatever_the_text_only_known_tags_and_attributes_come_out(text):
    html = html_of(text)
    for tag, attrs in re.findall(r"<([a-zA-Z0-9]+)([^<>]*)>", html):
        assert tag in ALLOWED_TAGS, (text, tag)
        names = re.findall(r'\s([a-zA-Z-]+)(?:="[^"]*")?', attrs)
        assert set(names) <= ALLOWED_ATTRS, (text, attrs)
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith(("#/note/", "http://", "https://", "mailto:")), (text, href)


@pytest.mark.parametrize("text", ["", "\n\n", "   ", "#", "```", "|a|\n|--|"])
def test_edge_inputs_render(text):
    html, outline = render_note(text)
    assert isinstance(html, str) and isinstance(outline, list)
