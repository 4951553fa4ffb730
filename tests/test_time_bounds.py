"""``time_bounds``: reading since/until and which days and moments fall in a window."""

from __future__ import annotations

import datetime as dt

import pytest

from birkin_mnemosyne.errors import InvalidInputError
from birkin_mnemosyne.time_bounds import iso_of_ns, parse_bound, time_window

NS = 1_000_000_000
NOW = 1_772_445_600.0  # 2026-03-02T10:00:00Z
DAY_START = 1_772_409_600 * NS  # 2026-03-02T00:00:00Z
DAY = 86_400 * NS


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-02", DAY_START),
        ("2026-03-02T10:00", DAY_START + 10 * 3600 * NS),
        ("2026-03-02T10:00:30Z", DAY_START + (10 * 3600 + 30) * NS),
        ("2026-03-02 12:00+02:00", DAY_START + 10 * 3600 * NS),
        ("7d", int(NOW * NS) - 7 * DAY),
        ("12h", int(NOW * NS) - 12 * 3600 * NS),
        ("2W", int(NOW * NS) - 14 * DAY),
    ],
)
def test_bounds_are_read_as_utc_moments(text, expected):
    assert parse_bound(text, name="since", now=NOW) == expected


def test_a_day_as_until_reaches_its_last_moment():
    assert parse_bound("2026-03-02", name="until", now=NOW, end=True) == DAY_START + DAY - 1
    assert parse_bound(dt.date(2026, 3, 2), name="until", now=NOW, end=True) == DAY_START + DAY - 1
    assert parse_bound(dt.datetime(2026, 3, 2, 10), name="since", now=NOW) == NOW * NS


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "2026-03", "7", "-7d", "", 5, None])
def test_malformed_bounds_name_every_accepted_form(bad):
    with pytest.raises(InvalidInputError) as caught:
        parse_bound(bad, name="since", now=NOW)
    message = str(caught.value)
    assert message.startswith("since must be a date (2026-03-02)") and "7d" in message


def test_days_count_whole_and_moments_inclusive_at_both_ends():
    window = time_window("2026-03-02T18:00", "2026-03-03", now=NOW)
    assert not window.contains_day("2026-03-01")
    assert window.contains_day("2026-03-02")  # its evening is inside
    assert window.contains_day("2026-03-03")
    assert not window.contains_day("2026-03-04")
    evening = DAY_START + 18 * 3600 * NS
    assert window.contains(evening) and not window.contains(evening - 1)
    assert window.contains(DAY_START + 2 * DAY - 1) and not window.contains(DAY_START + 2 * DAY)
    assert not window.contains_day("not a day")


def test_open_ends_and_no_window():
    assert time_window(None, None, now=NOW) is None
    since_only = time_window("2026-03-02", None, now=NOW)
    assert since_only.contains(10**20) and not since_only.contains(DAY_START - 1)
    until_only = time_window(None, "2026-03-02", now=NOW)
    assert until_only.contains(0) and until_only.contains_day("1999-01-01")


def test_a_window_that_ends_before_it_starts_is_refused():
    with pytest.raises(InvalidInputError, match="since .* is after until .* swap them"):
        time_window("2026-03-03", "2026-03-02", now=NOW)
    assert time_window("2026-03-02", "2026-03-02", now=NOW).contains_day("2026-03-02")


def test_iso_of_ns():
    assert iso_of_ns(DAY_START + 61 * NS + 999) == "2026-03-02T00:01:01Z"
