import datetime as dt
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.errors import InvalidInputError
from birkin_mnemosyne.frontmatter import (
    Frontmatter,
    parse_frontmatter,
    parse_yaml_subset,
    render_frontmatter,
    set_frontmatter_key,
)


def data_of(text: str) -> dict:
    parsed = parse_frontmatter(text)
    assert parsed.present, parsed.warnings
    return parsed.data


def problem_of(text: str):
    parsed = parse_frontmatter(text)
    assert not parsed.present
    assert parsed.data == {}
    assert parsed.body == text.removeprefix("\ufeff")
    assert [w.code for w in parsed.warnings] == ["invalid_frontmatter"]
    return parsed.warnings[0]


# ---------------------------------------------------------------- block detection


def test_basic_block_and_body():
    text = "---\ntitle: Hello\n---\n# Body\n"
    parsed = parse_frontmatter(text)
    assert parsed == Frontmatter({"title": "Hello"}, "# Body\n", 21, True, ())
    assert text[parsed.body_offset :] == parsed.body


def test_no_frontmatter_is_not_a_warning():
    parsed = parse_frontmatter("# Just a note\n---\nkey: v\n---\n")
    assert parsed == Frontmatter({}, "# Just a note\n---\nkey: v\n---\n", 0, False, ())


def test_empty_text():
    assert parse_frontmatter("") == Frontmatter({}, "", 0, False, ())


def test_bom_is_removed_from_body_and_counted_in_offset():
    text = "\ufeff---\na: 1\n---\nbody"
    parsed = parse_frontmatter(text)
    assert parsed.data == {"a": 1}
    assert parsed.body == "body"
    assert parsed.body_offset == len(text) - 4
    plain = parse_frontmatter("\ufeffjust text")
    assert (plain.body, plain.body_offset, plain.present) == ("just text", 1, False)


def test_crlf():
    text = "---\r\ntitle: Hello\r\ntags:\r\n  - a\r\n  - b\r\n---\r\nbody\r\n"
    parsed = parse_frontmatter(text)
    assert parsed.data == {"title": "Hello", "tags": ["a", "b"]}
    assert parsed.body == "body\r\n"
    assert text[parsed.body_offset :] == parsed.body


def test_frontmatter_only_without_body():
    assert parse_frontmatter("---\na: 1\n---").body == ""
    parsed = parse_frontmatter("---\na: 1\n---\n")
    assert (parsed.data, parsed.body, parsed.body_offset) == ({"a": 1}, "", 13)


def test_empty_block():
    assert parse_frontmatter("---\n---\nx").data == {}
    assert parse_frontmatter("---\n# only a comment\n\n---\nx").present


def test_opening_and_closing_markers():
    assert data_of("---   \na: 1\n---  \n") == {"a": 1}
    assert data_of("---\na: 1\n...\nbody") == {"a": 1}
    assert not parse_frontmatter("----\na: 1\n----\n").present
    assert not parse_frontmatter("--- a: 1\n---\n").present
    assert not parse_frontmatter("\n---\na: 1\n---\n").present
    assert not parse_frontmatter(" ---\na: 1\n---\n").present


def test_unclosed_block_is_invalid():
    warning = problem_of("---\ntitle: x\n\n# Body\n")
    assert warning.line == 1
    assert "never closed" in warning.message
    assert problem_of("---").line == 1
    assert problem_of("---\n").line == 1


# ------------------------------------------------------------------------ scalars


def test_scalar_types():
    text = (
        "---\n"
        "s: hello world\n"
        "i: -12\n"
        "plus: +3\n"
        "f: 0.5\n"
        "e: 1e3\n"
        "inf: .inf\n"
        "ninf: -.inf\n"
        "t: true\n"
        "F: False\n"
        "yes: yes\n"
        "n1: null\n"
        "n2: ~\n"
        "n3:\n"
        "d: 2026-03-02\n"
        "bad_date: 2026-13-45\n"
        "dt: 2026-03-02T10:00:00Z\n"
        "url: https://example.com/a#b\n"
        "colon: Note: about x\n"
        "---\n"
    )
    assert data_of(text) == {
        "s": "hello world",
        "i": -12,
        "plus": 3,
        "f": 0.5,
        "e": 1000.0,
        "inf": math.inf,
        "ninf": -math.inf,
        "t": True,
        "F": False,
        "yes": "yes",
        "n1": None,
        "n2": None,
        "n3": None,
        "d": dt.date(2026, 3, 2),
        "bad_date": "2026-13-45",
        "dt": "2026-03-02T10:00:00Z",
        "url": "https://example.com/a#b",
        "colon": "Note: about x",
    }
    assert math.isnan(data_of("---\nx: .nan\n---\n")["x"])


def test_huge_integer_stays_text():
    digits = "9" * 5000
    assert data_of(f"---\nx: {digits}\n---\n") == {"x": digits}


def test_keys_are_always_strings():
    assert data_of("---\n1: one\ntrue: yes\nnull: z\n---\n") == {
        "1": "one",
        "true": "yes",
        "null": "z",
    }


def test_quoted_strings():
    text = (
        "---\n"
        "single: 'it''s # not a comment'\n"
        'double: "tab\\there \\u00e9 \\x41 \\U0001F600 \\"q\\" \\\\ \\/"\n'
        "empty: ''\n"
        'number: "12"\n'
        '"quoted key": 1\n'
        "'k: v': 2\n"
        "---\n"
    )
    assert data_of(text) == {
        "single": "it's # not a comment",
        "double": 'tab\there é A 😀 "q" \\ /',
        "empty": "",
        "number": "12",
        "quoted key": 1,
        "k: v": 2,
    }


def test_multiline_quoted_and_plain_values_fold():
    text = (
        "---\n"
        'a: "first\n'
        "  second\n"
        "\n"
        '  third"\n'
        "b: plain words\n"
        "  continue here\n"
        "c: 'x\n"
        "   y'\n"
        'd: "joined\\\n'
        '   up"\n'
        "---\n"
    )
    assert data_of(text) == {
        "a": "first second\nthird",
        "b": "plain words continue here",
        "c": "x y",
        "d": "joinedup",
    }


def test_comments():
    text = (
        "# leading comment\n"
        "a: 1 # trailing\n"
        "b: x#not-a-comment\n"
        "c: # only a comment\n"
        "d: 'q' # after quotes\n"
        "e: [1, 2] # after a list\n"
        "   # indented comment\n"
    )
    assert data_of("---\n" + text + "---\n") == {
        "a": 1,
        "b": "x#not-a-comment",
        "c": None,
        "d": "q",
        "e": [1, 2],
    }


# -------------------------------------------------------------------- collections


def test_flow_lists_and_mappings():
    text = (
        "---\n"
        'tags: [a, "b, c", 3, true, null, 2026-01-02]\n'
        "labels: [project:atlas, person:mina]\n"
        "empty: []\n"
        "map: {k: v, n: 1, 'q': [x, y], bare}\n"
        "nested: [[1, 2], [], {a: b}]\n"
        "multi: [one,\n"
        "  two, # comment\n"
        "  three]\n"
        "trailing: [a, b,]\n"
        "---\n"
    )
    assert data_of(text) == {
        "tags": ["a", "b, c", 3, True, None, dt.date(2026, 1, 2)],
        "labels": ["project:atlas", "person:mina"],
        "empty": [],
        "map": {"k": "v", "n": 1, "q": ["x", "y"], "bare": None},
        "nested": [[1, 2], [], {"a": "b"}],
        "multi": ["one", "two", "three"],
        "trailing": ["a", "b"],
    }


def test_block_lists_and_nested_maps():
    text = (
        "---\n"
        "tags:\n"
        "  - one\n"
        "  - 'two'\n"
        "  -\n"
        "  - [x]\n"
        "compact:\n"
        "- a\n"
        "- b\n"
        "db:\n"
        "  host: db1\n"
        "  port: 5432\n"
        "  # comment inside\n"
        "  options:\n"
        "    ssl: true\n"
        "after: end\n"
        "---\n"
    )
    assert data_of(text) == {
        "tags": ["one", "two", None, ["x"]],
        "compact": ["a", "b"],
        "db": {"host": "db1", "port": 5432, "options": {"ssl": True}},
        "after": "end",
    }


def test_eval_cases_file_shape():
    text = (
        "# Retrieval cases\n"
        "cases:\n"
        "  # a comment between items\n"
        "  - q: how do I restore the database?\n"
        "    expect:\n"
        "      - path: runbooks/postgres-restore.md\n"
        "        heading: Verify\n"
        "      - path: hosts/db1.md\n"
        "\n"
        '  - q: "FATAL: could not connect"\n'
        "    expect: []\n"
        "  - - nested\n"
        "    - list\n"
    )
    data, diagnostics = parse_yaml_subset(text)
    assert diagnostics == []
    assert data == {
        "cases": [
            {
                "q": "how do I restore the database?",
                "expect": [
                    {"path": "runbooks/postgres-restore.md", "heading": "Verify"},
                    {"path": "hosts/db1.md"},
                ],
            },
            {"q": "FATAL: could not connect", "expect": []},
            ["nested", "list"],
        ]
    }


def test_block_scalars():
    text = (
        "---\n"
        "literal: |\n"
        "  line one\n"
        "    indented\n"
        "\n"
        "  line three\n"
        "folded: >-\n"
        "  folded\n"
        "  together\n"
        "\n"
        "  new paragraph\n"
        "keep: |+\n"
        "  kept\n"
        "\n"
        "empty: |\n"
        "next: 1\n"
        "---\n"
    )
    assert data_of(text) == {
        "literal": "line one\n  indented\n\nline three\n",
        "folded": "folded together\nnew paragraph",
        "keep": "kept\n\n",
        "empty": "",
        "next": 1,
    }


def test_value_on_the_next_line():
    assert data_of("---\ndescription:\n  a long\n  text\nx: 1\n---\n") == {
        "description": "a long text",
        "x": 1,
    }


def test_duplicate_keys_warn_and_last_wins():
    parsed = parse_frontmatter("---\na: 1\nb: 2\na: 3\n---\n")
    assert parsed.present
    assert parsed.data == {"a": 3, "b": 2}
    assert [(w.code, w.line) for w in parsed.warnings] == [("duplicate_key", 4)]
    assert "line 2" in parsed.warnings[0].message


def test_indented_top_level_is_accepted():
    assert data_of("---\n  a: 1\n  b: 2\n---\n") == {"a": 1, "b": 2}


# ---------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("---\njust text\n---\n", 2, "key: value"),
        ("---\na: 1\nb:2\n---\n", 3, "space after ':'"),
        ("---\n- a\n- b\n---\n", 2, "list"),
        ("---\na: 1\n\tb: 2\n---\n", 3, "tab"),
        ("---\na:\n\t- x\n---\n", 3, "tab"),
        ("---\na: 1\n  b: 2\n---\n", 3, "indented under a key"),
        ("---\na:\n  b: 1\n    c: 2\n---\n", 4, "indented under a key"),
        ("---\na: [1, 2\nb: 3\n---\n", 2, "unclosed flow list"),
        ("---\na: {x: 1\n---\n", 2, "unclosed flow mapping"),
        ("---\na: [1 2] 3\n---\n", 2, "unexpected text"),
        ("---\na: [1,, 2]\n---\n", 2, "empty entry"),
        ('---\na: "open\n---\n', 2, "unterminated double-quoted"),
        ("---\na: 'open\n---\n", 2, "unterminated single-quoted"),
        ('---\na: "bad \\q"\n---\n', 2, "unknown escape"),
        ('---\na: "\\u12"\n---\n', 2, "hex digits"),
        ('---\na: "ok" trailing\n---\n', 2, "unexpected text"),
        ('---\nx: 1\na: "a\n  b" c\n---\n', 4, "unexpected text"),
        ("---\na: |x\n---\n", 2, "block scalar"),
        ("---\nlist:\n  - a\n  b: c\n---\n", 4, "indentation"),
        ("---\n: v\n---\n", 2, "key: value"),
        ("---\n" + "a: " + "[" * 100 + "]" * 100 + "\n---\n", 2, "nested"),
    ],
)
def test_invalid_frontmatter(text, line, words):
    warning = problem_of(text)
    assert warning.line == line
    assert words in warning.message


def test_deep_block_nesting_is_refused_not_a_recursion_error():
    lines = "".join(" " * i + f"k{i}:\n" for i in range(200))
    warning = problem_of("---\n" + lines + "---\n")
    assert "nested" in warning.message


def test_nul_bytes_and_control_characters_do_not_raise():
    parsed = parse_frontmatter("---\na: x\x00y\nb\x00: 1\n---\nbody\x00")
    assert parsed.data == {"a": "x\x00y", "b\x00": 1}
    assert parsed.body == "body\x00"
    parse_frontmatter("---\n\x00\n---\n")
    parse_frontmatter("\x00---\n")


def test_very_long_lines():
    value = "word " * 200_000
    assert data_of(f"---\na: {value}\n---\n")["a"] == value.strip()
    spaces = "a" + " " * 200_000 + "b"
    assert data_of(f"---\n{spaces}: 1\n---\n") == {spaces: 1}
    problem_of("---\nx" + " " * 200_000 + "\n---\n")


@given(st.text())
@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow])
def test_parse_never_raises_on_any_text(body):
    for text in (body, "---\n" + body + "\n---\n", "---\n" + body):
        parsed = parse_frontmatter(text)
        assert text[parsed.body_offset :] == parsed.body
        if not parsed.present:
            assert parsed.data == {}


yaml_lines = st.lists(
    st.sampled_from(
        [
            "a: 1",
            "b:",
            "  - x",
            "  - y: 1",
            "    z: [1, {q: 'r'}]",
            "- item",
            "  c: d",
            "    deep: 'x''y'",
            'e: "multi',
            '  line"',
            "f: |",
            "  text",
            "g: [open,",
            "  close]",
            "# comment",
            "",
            "\tbad",
            "h: {k: v}",
            "- - n",
            "  -",
            "i: >-",
            "'j': \"k\"",
        ]
    ),
    max_size=12,
)


@given(yaml_lines)
@settings(max_examples=100)
def test_parse_never_raises_on_yaml_like_lines(lines):
    text = "\n".join(lines)
    parse_yaml_subset(text)
    parsed = parse_frontmatter("---\n" + text + "\n---\nbody")
    if parsed.present:
        assert parsed.body == "body"
    else:
        assert [w.code for w in parsed.warnings] == ["invalid_frontmatter"]


# ------------------------------------------------------------------ parse_yaml_subset


def test_parse_yaml_subset_diagnostics():
    assert parse_yaml_subset("") == ({}, [])
    assert parse_yaml_subset("---\na: 1\n") == ({"a": 1}, [])
    assert parse_yaml_subset("a: 1\n...\n") == ({"a": 1}, [])
    data, diagnostics = parse_yaml_subset("a: 1\nb\n")
    assert data == {}
    assert [(d.code, d.line) for d in diagnostics] == [("invalid_yaml", 2)]
    data, diagnostics = parse_yaml_subset("a: 1\n---\nb: 2\n")
    assert data == {}
    assert diagnostics[0].line == 2
    data, diagnostics = parse_yaml_subset("a: 1\na: 2\n")
    assert data == {"a": 2}
    assert [d.code for d in diagnostics] == ["duplicate_key"]


# -------------------------------------------------------------------------- render

short_text = st.text(max_size=12)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | short_text
    | st.dates()
    | st.sampled_from(["", " ", "yes", "No", "~", "null", "- x", "a: b", "#c", "007", "1e5"])
)
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(short_text, children, max_size=3)
    ),
    max_leaves=8,
)
documents = st.dictionaries(short_text, values, max_size=5)


@given(documents, st.text(max_size=30))
@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
def test_render_round_trip(data, body):
    text = render_frontmatter(data) + body
    parsed = parse_frontmatter(text)
    assert parsed.warnings == ()
    assert parsed.data == data
    assert parsed.body == body


def test_render_examples():
    data = {
        "title": "Weekly sync",
        "tags": ["a", "b, c"],
        "when": dt.date(2026, 3, 2),
        "n": 3,
        "empty": [],
        "db": {"host": "db1", "opts": {}},
        "cases": [{"q": "x", "expect": [{"path": "p"}]}],
        "quoted": "yes",
        "nothing": None,
        "tuple": (1, 2),
    }
    assert render_frontmatter(data) == (
        "---\n"
        "title: Weekly sync\n"
        "tags:\n"
        "  - a\n"
        "  - b, c\n"
        "when: 2026-03-02\n"
        "n: 3\n"
        "empty: []\n"
        "db:\n"
        "  host: db1\n"
        "  opts: {}\n"
        "cases:\n"
        "  - q: x\n"
        "    expect:\n"
        "      - path: p\n"
        'quoted: "yes"\n'
        "nothing: null\n"
        "tuple:\n"
        "  - 1\n"
        "  - 2\n"
        "---\n"
    )
    assert render_frontmatter({}) == "---\n---\n"


def test_render_special_values():
    text = render_frontmatter(
        {"nan": math.nan, "dt": dt.datetime(2026, 3, 2, 10, 30), "s": "a\nb\x00\u2028"}
    )
    data = data_of(text)
    assert math.isnan(data["nan"])
    assert data["dt"] == "2026-03-02T10:30:00"
    assert data["s"] == "a\nb\x00\u2028"


@pytest.mark.parametrize("bad", [{1: "x"}, {"a": object()}, {"a": {2: 3}}, {"a": b"x"}])
def test_render_rejects_unsupported_types(bad):
    with pytest.raises(InvalidInputError):
        render_frontmatter(bad)


def test_render_rejects_non_dict():
    with pytest.raises(InvalidInputError):
        render_frontmatter(["a"])


# ------------------------------------------------------------- set_frontmatter_key

NOTE = (
    "\ufeff---\r\n"
    "# a comment that must survive\r\n"
    "title:   Old title   # trailing comment\r\n"
    "tags: [a,   b]\r\n"
    "nested:\r\n"
    "  x: 1\r\n"
    "\r\n"
    "  # inner comment\r\n"
    "  y: 2\r\n"
    "compact:\r\n"
    "- one\r\n"
    "- two\r\n"
    "# closing comment\r\n"
    "last: 'z'\r\n"
    "---\r\n"
    "Body line\r\n"
    "---\r\n"
    "not: frontmatter\r\n"
)


def test_set_replaces_one_key_in_place_keeping_every_other_byte():
    result = set_frontmatter_key(NOTE, "title", "New title")
    assert result == NOTE.replace(
        "title:   Old title   # trailing comment\r\n", "title: New title\r\n"
    )
    assert data_of(result)["title"] == "New title"


def test_set_replaces_multi_line_values():
    result = set_frontmatter_key(NOTE, "nested", {"z": [1, 2]})
    old = "nested:\r\n  x: 1\r\n\r\n  # inner comment\r\n  y: 2\r\n"
    new = "nested:\r\n  z:\r\n    - 1\r\n    - 2\r\n"
    assert result == NOTE.replace(old, new)
    result = set_frontmatter_key(NOTE, "compact", ["three"])
    assert result == NOTE.replace("compact:\r\n- one\r\n- two\r\n", "compact:\r\n  - three\r\n")
    assert data_of(result)["compact"] == ["three"]


def test_set_adds_new_key_before_the_closing_line():
    result = set_frontmatter_key(NOTE, "status", "done")
    assert result == NOTE.replace("last: 'z'\r\n---\r\n", "last: 'z'\r\nstatus: done\r\n---\r\n")
    data = data_of(result)
    assert list(data)[-1] == "status"
    assert data["last"] == "z"


def test_set_none_deletes_the_key():
    result = set_frontmatter_key(NOTE, "tags", None)
    assert result == NOTE.replace("tags: [a,   b]\r\n", "")
    assert "tags" not in data_of(result)
    assert set_frontmatter_key(NOTE, "missing", None) == NOTE
    dupes = "---\na: 1\nb: 2\na: 3\n---\nbody"
    assert set_frontmatter_key(dupes, "a", None) == "---\nb: 2\n---\nbody"
    assert set_frontmatter_key(dupes, "a", 9) == "---\na: 1\nb: 2\na: 9\n---\nbody"


def test_set_on_a_note_without_frontmatter_prepends_a_block():
    assert set_frontmatter_key("# Title\n", "a", 1) == "---\na: 1\n---\n# Title\n"
    assert (
        set_frontmatter_key("\ufeffx\r\ny\r\n", "a", "b")
        == "\ufeff---\r\na: b\r\n---\r\nx\r\ny\r\n"
    )
    assert set_frontmatter_key("", "k", [1]) == "---\nk:\n  - 1\n---\n"
    assert set_frontmatter_key("# Title\n", "a", None) == "# Title\n"


def test_set_keys_needing_quotes():
    result = set_frontmatter_key("---\na: 1\n---\n", "odd: key", "yes")
    assert result == '---\na: 1\n"odd: key": "yes"\n---\n'
    assert data_of(result) == {"a": 1, "odd: key": "yes"}


def test_set_refuses_invalid_frontmatter():
    with pytest.raises(InvalidInputError, match="line 2"):
        set_frontmatter_key("---\njust text\n---\nbody", "a", 1)
    with pytest.raises(InvalidInputError, match="never closed"):
        set_frontmatter_key("---\na: 1\n", "a", 2)
    with pytest.raises(InvalidInputError):
        set_frontmatter_key("---\na: 1\n---\n", 3, 2)
    with pytest.raises(InvalidInputError):
        set_frontmatter_key("---\na: 1\n---\n", "a", object())


@given(
    documents, st.text(max_size=30), st.sampled_from(["\n", "\r\n"]), st.text(max_size=8), values
)
@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
def test_set_key_property(data, body, newline, key, value):
    text = render_frontmatter(data).replace("\n", newline) + body
    result = set_frontmatter_key(text, key, value)
    parsed = parse_frontmatter(result)
    expected = dict(data)
    expected[key] = value
    if value is None:  # None deletes
        del expected[key]
    assert parsed.data == expected
    assert parsed.body == body
    deleted = parse_frontmatter(set_frontmatter_key(result, key, None))
    expected.pop(key, None)
    assert deleted.data == expected
    assert deleted.body == body
