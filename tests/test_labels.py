"""Tests for birkin_mnemosyne.labels: grammar, sets, filters, suggestions, counts."""

from __future__ import annotations

import datetime as dt
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from birkin_mnemosyne.errors import InvalidInputError, LabelError
from birkin_mnemosyne.labels import (
    EXAMPLE_LABEL,
    label_counts,
    matches_labels,
    normalize_label,
    normalize_labels,
    parse_label_filter,
    split_label,
    suggest_labels,
)

namespaces = st.builds(
    str.__add__,
    st.sampled_from("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    st.text(alphabet="abcxyzXYZ0129_-", max_size=31),
)
values = st.text(
    alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), min_size=1, max_size=40
).filter(str.strip)
labels = st.builds(lambda ns, value: f"{ns}:{value}", namespaces, values)


def suggest(**overrides):
    arguments = {
        "path": "note.md",
        "zone": "",
        "note_type": None,
        "frontmatter": {},
        "body": "",
    }
    arguments.update(overrides)
    return suggest_labels(**arguments)


# --- the grammar --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Project:Atlas", "project:Atlas"),
        ("  project : Atlas  ", "project:Atlas"),
        ("PERSON:Mina Park", "person:Mina Park"),
        ("url:https://example.org/a:b", "url:https://example.org/a:b"),
        ("a:x", "a:x"),
        ("my_ns-2:x", "my_ns-2:x"),
        ("x" * 32 + ":v", "x" * 32 + ":v"),
        ("host:" + "h" * 128, "host:" + "h" * 128),
        ("lang:한국어", "lang:한국어"),
    ],
)
def test_normalize_label_accepts(raw, expected):
    assert normalize_label(raw) == expected


def test_normalize_label_applies_nfc():
    decomposed = "person:Jose\u0301"
    assert normalize_label(decomposed) == "person:Jos\u00e9"


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        ("Atlas", "no ':'"),
        ("", "no ':'"),
        (":Atlas", "namespace"),
        ("1project:Atlas", "namespace"),
        ("pro ject:Atlas", "namespace"),
        ("projé:Atlas", "namespace"),
        ("\u0130d:x", "namespace"),  # "İ" lowercases to "i" plus a combining dot
        ("x" * 33 + ":v", "namespace"),
        ("project:", "empty value"),
        ("project:   ", "empty value"),
        ("project:At\nlas", "one line"),
        ("project:At\u2028las", "one line"),
        ("project:At\x00las", "control character"),
        ("project:" + "a" * 129, "limit is 128"),
    ],
)
def test_normalize_label_rejects_with_rule_and_example(raw, rule):
    with pytest.raises(LabelError) as caught:
        normalize_label(raw)
    message = str(caught.value)
    assert rule in message
    assert EXAMPLE_LABEL in message
    assert isinstance(caught.value, InvalidInputError)


def test_normalize_label_rejects_non_text():
    with pytest.raises(LabelError, match="must be text"):
        normalize_label(42)  # type: ignore[arg-type]


def test_split_label():
    assert split_label("Date: 2026-03 ") == ("date", "2026-03")


@given(labels)
def test_normalize_label_is_idempotent(raw):
    once = normalize_label(raw)
    assert normalize_label(once) == once
    assert unicodedata.is_normalized("NFC", once)


# --- label sets ---------------------------------------------------------------------


def test_normalize_labels_sorts_and_deduplicates():
    assert normalize_labels(["person:Mina", "Project:Atlas", "project:Atlas"]) == [
        "person:Mina",
        "project:Atlas",
    ]


def test_normalize_labels_keeps_distinct_spellings():
    assert normalize_labels(["project:Atlas", "project:atlas"]) == [
        "project:Atlas",
        "project:atlas",
    ]


def test_normalize_labels_accepts_comma_separated_text():
    assert normalize_labels("project:Atlas, person:Mina,") == ["person:Mina", "project:Atlas"]


@pytest.mark.parametrize("empty", [None, "", [], ()])
def test_normalize_labels_empty(empty):
    assert normalize_labels(empty) == []


def test_normalize_labels_raises_on_a_bad_member():
    with pytest.raises(LabelError, match="Atlas"):
        normalize_labels(["person:Mina", "Atlas"])


@pytest.mark.parametrize("wrong", [{"project": "Atlas"}, b"project:Atlas", [1]])
def test_normalize_labels_rejects_wrong_shapes(wrong):
    with pytest.raises(LabelError):
        normalize_labels(wrong)


@given(st.lists(labels, max_size=8))
def test_normalize_labels_is_a_canonical_set(raw):
    result = normalize_labels(raw)
    assert result == sorted(set(result))
    assert normalize_labels(result) == result
    assert normalize_labels(list(reversed(raw))) == result


def test_parse_label_filter_is_normalize_labels():
    assert parse_label_filter(["Person:Mina", "person:Mina"]) == ["person:Mina"]
    assert parse_label_filter(None) == []


# --- filters ------------------------------------------------------------------------


def test_matches_labels_is_an_and_filter():
    note = ["project:Atlas", "person:Mina"]
    assert matches_labels(note, ["project:Atlas"])
    assert matches_labels(note, ["project:Atlas", "person:Mina"])
    assert not matches_labels(note, ["project:Atlas", "person:Joon"])


def test_matches_labels_value_is_caseless_namespace_lowercased():
    assert matches_labels(["project:Atlas"], ["PROJECT:atlas"])
    assert matches_labels(["person:Straße"], ["person:STRASSE"])
    assert matches_labels(["person:Jos\u00e9"], ["person:JOSE\u0301"])
    assert not matches_labels(["project:Atlas"], ["person:Atlas"])


def test_matches_labels_empty_requirement_matches_all():
    assert matches_labels([], [])
    assert matches_labels(["x:y"], ())


def test_matches_labels_ignores_malformed_note_labels_and_rejects_bad_filters():
    assert not matches_labels(["Atlas", "bad"], ["project:Atlas"])
    with pytest.raises(LabelError):
        matches_labels(["project:Atlas"], ["Atlas"])


@given(st.lists(labels, min_size=1, max_size=6), st.data())
def test_a_note_matches_any_subset_of_its_labels(note, data):
    required = data.draw(st.lists(st.sampled_from(note), max_size=len(note)))
    assert matches_labels(note, required)
    assert matches_labels(note, normalize_labels(required))


# --- counts -------------------------------------------------------------------------


def test_label_counts_counts_notes_most_common_first():
    counts = label_counts(
        [
            ["project:Atlas", "Project:Atlas", "person:Mina"],
            ["project:Atlas"],
            ["person:Joon", "junk"],
        ]
    )
    assert counts == {"project:Atlas": 2, "person:Joon": 1, "person:Mina": 1}
    assert list(counts) == ["project:Atlas", "person:Joon", "person:Mina"]


# --- suggestions --------------------------------------------------------------------


def test_suggest_type_and_zone():
    assert suggest(note_type="runbook", zone="ops/db", path="ops/db/restore.md") == [
        "type:runbook",
        "zone:ops",
    ]


@pytest.mark.parametrize("zone", ["", "inbox", "Inbox/sub"])
def test_suggest_no_zone_label_for_the_inbox(zone):
    assert suggest(zone=zone) == []


def test_suggest_from_frontmatter_fields():
    frontmatter = {
        "Project": "Atlas",
        "people": ["Mina", "[[people/Joon Lee|Joon]]"],
        "owner": "Kim, Park",
        "host": "db-01",
        "title": "ignored",
        "tags": ["ignored"],
    }
    assert suggest(frontmatter=frontmatter) == [
        "host:db-01",
        "person:Joon Lee",
        "person:Kim",
        "person:Mina",
        "person:Park",
        "project:Atlas",
    ]


def test_suggest_skips_unusable_frontmatter_values():
    frontmatter = {"project": None, "person": True, "host": {"name": "x"}, "owner": "a\nb"}
    assert suggest(frontmatter=frontmatter) == []


def test_suggest_from_typed_wikilinks_in_the_body():
    body = (
        "# Meeting\n"
        "project:: [[Atlas]]\n"
        "- [people:: [[Mina]], [[people/Joon.md|J]]] and [[Untyped]]\n"
        "subproject:: [[Nope]]\n"
        "related:: [[Other]]\n"
        "```\nproject:: [[InCode]]\n```\n"
        "project:: plain text, not a link\n"
    )
    assert suggest(body=body) == ["person:Joon", "person:Mina", "project:Atlas"]


def test_suggest_from_links_into_entity_folders():
    links = ["projects/Atlas.md", "people/Mina", "notes/projects/Deep", "Atlas", "hosts/db-01"]
    assert suggest(links=links) == ["host:db-01", "person:Mina", "project:Atlas"]


@pytest.mark.parametrize(
    ("frontmatter", "expected"),
    [
        ({"date": "2026-03-02"}, ["date:2026-03"]),
        ({"created": "2025-12-31T23:59:00Z"}, ["date:2025-12"]),
        ({"date": "2026-03"}, ["date:2026-03"]),
        ({"date": dt.date(2024, 2, 29)}, ["date:2024-02"]),
        ({"created": dt.datetime(2023, 7, 1, 12, 0)}, ["date:2023-07"]),
        ({"date": "2026-01-05", "created": "2020-01-01"}, ["date:2026-01"]),
        ({"date": "2026-13-01"}, []),
        ({"date": "2026-02-30"}, []),
        ({"date": "yesterday"}, []),
        ({"date": 2026}, []),
    ],
)
def test_suggest_month_from_frontmatter_date(frontmatter, expected):
    assert suggest(frontmatter=frontmatter) == expected


def test_suggest_month_from_a_daily_note_file_name():
    assert suggest(path="journal/2026-03-02.md") == ["date:2026-03"]
    assert suggest(path="journal/2026-03-02.md", frontmatter={"date": "2025-01-01"}) == [
        "date:2025-01"
    ]
    assert suggest(path="notes/v2026-03-02.md") == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("서버를 재시작하기 전에 백업을 확인하고 로그를 남긴다.", ["lang:ko"]),
        ("サーバーを再起動する前にバックアップを確認してください。", ["lang:ja"]),
        ("重启服务器之前请先确认备份是否完整并记录日志。", ["lang:zh"]),
        ("Restart the server after checking the backup and the logs.", []),
        ("A long English note that mentions 東京 once among many words here.", []),
        ("短い", []),  # too little text to be unmistakable
    ],
)
def test_suggest_language_only_when_unmistakable(body, expected):
    assert suggest(body=body) == expected


def test_suggest_language_ignores_code():
    body = "Restart notes in English.\n```\n# 서버를 재시작하기 전에 백업을 확인하고 로그를 남긴다\n```\n"
    assert suggest(body=body) == []


def test_suggest_is_deterministic_normalized_and_sorted():
    arguments = {
        "path": "ops/2026-03-02 standup.md",
        "zone": "ops",
        "note_type": "meeting",
        "frontmatter": {"project": "Atlas", "person": ["Mina", "Mina"]},
        "body": "host:: [[db-01]]\n",
        "links": ["people/Joon"],
    }
    first = suggest_labels(**arguments)
    assert first == suggest_labels(**arguments)
    assert first == normalize_labels(first)
    assert first == [
        "date:2026-03",
        "host:db-01",
        "person:Joon",
        "person:Mina",
        "project:Atlas",
        "type:meeting",
        "zone:ops",
    ]


@given(
    body=st.text(max_size=300),
    zone=st.text(max_size=20),
    note_type=st.none() | st.text(max_size=20),
    project=st.text(max_size=20),
)
def test_suggest_never_raises_and_returns_valid_labels(body, zone, note_type, project):
    result = suggest(body=body, zone=zone, note_type=note_type, frontmatter={"project": project})
    assert result == normalize_labels(result)
