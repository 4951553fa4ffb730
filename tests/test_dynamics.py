"""Tests for birkin_mnemosyne.dynamics: decay, reinforcement, bounds and the state file."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.dynamics import (
    MAX_BOOST,
    USAGE_FORMAT,
    NoteUsage,
    UsageModel,
    UsageStore,
    ZoneActivity,
)
from birkin_mnemosyne.errors import InvalidInputError

DAY = 86_400.0
T0 = 1_770_000_000.0  # a fixed "now" in early 2026; tests never read the clock
MODEL = UsageModel()

gaps = st.floats(min_value=-30 * DAY, max_value=3 * 365 * DAY, allow_nan=False)
histories = st.lists(gaps, max_size=25)


def replay(gap_list, model=MODEL, start=T0):
    """Reinforce a note at T0 + cumulative gaps; return the usage and the final time."""
    usage, now = None, start
    for gap in gap_list:
        now += gap
        usage = model.reinforce(usage, now)
    return usage, now


def replay_zone(gap_list, model=MODEL, start=T0):
    activity, now = None, start
    for gap in gap_list:
        now += gap
        activity = model.touch_zone(activity, now)
    return activity, now


# --- retention ----------------------------------------------------------------------


def test_retention_oracle():
    usage = NoteUsage(strength=0.5, stability_days=3.0, last_access=T0, accesses=1)
    assert MODEL.retention(usage, T0) == 1.0
    assert MODEL.retention(usage, T0 + 3 * DAY) == pytest.approx(math.exp(-1))
    assert MODEL.retention(usage, T0 + 6 * DAY) == pytest.approx(math.exp(-2))
    assert MODEL.retention(usage, T0 - DAY) == 1.0  # clock went backwards


def test_retention_prior_for_no_history():
    assert MODEL.retention(None, T0) == UsageModel.PRIOR_RETENTION
    assert 0.0 <= UsageModel.PRIOR_RETENTION <= 1.0


@given(histories, st.floats(0, 400 * DAY), st.floats(0, 400 * DAY))
def test_decay_is_monotone_in_age(history, age_a, age_b):
    usage, now = replay([0.0, *history])
    younger, older = sorted((age_a, age_b))
    last = usage.last_access
    assert MODEL.retention(usage, last + younger) >= MODEL.retention(usage, last + older)
    assert MODEL.note_multiplier(usage, last + younger) >= MODEL.note_multiplier(
        usage, last + older
    )
    assert 0.0 <= MODEL.retention(usage, last + older) <= 1.0


# --- reinforcement ------------------------------------------------------------------


def test_first_access():
    usage = MODEL.reinforce(None, T0)
    assert usage == NoteUsage(
        strength=UsageModel.STRENGTH_STEP,
        stability_days=UsageModel.INITIAL_STABILITY_DAYS,
        last_access=T0,
        accesses=1,
    )


def test_reinforcement_increases_stability_and_strength():
    first = MODEL.reinforce(None, T0)
    second = MODEL.reinforce(first, T0 + 2 * DAY)
    assert second.stability_days > first.stability_days
    assert second.strength > first.strength
    assert second.accesses == 2
    assert second.last_access == T0 + 2 * DAY


def test_reinforcement_oracle():
    first = MODEL.reinforce(None, T0)
    second = MODEL.reinforce(first, T0 + 3 * DAY)
    forgotten = 1 - math.exp(-1)
    assert second.stability_days == pytest.approx(3.0 * (1 + 2.0 * forgotten))
    assert second.strength == pytest.approx(0.35 + 0.35 * forgotten * 0.65)


def test_spacing_effect():
    first = MODEL.reinforce(None, T0)
    massed = MODEL.reinforce(first, T0 + 60)
    spaced = MODEL.reinforce(first, T0 + 5 * DAY)
    assert spaced.stability_days > massed.stability_days
    assert spaced.strength > massed.strength
    # A burst of re-reads barely moves stability: the agent has not shown it needs
    # the note again after a gap.
    burst, _ = replay([0.0] + [10.0] * 50)
    assert burst.stability_days < UsageModel.INITIAL_STABILITY_DAYS * 1.01
    assert burst.accesses == 51


def test_stability_is_capped():
    usage, _ = replay([0.0] + [400 * DAY] * 12)
    assert usage.stability_days == UsageModel.MAX_STABILITY_DAYS


@given(histories, gaps)
def test_reinforcement_never_weakens(history, gap):
    usage, now = replay([0.0, *history])
    after = MODEL.reinforce(usage, now + gap)
    assert after.stability_days >= usage.stability_days
    assert after.strength >= usage.strength
    assert after.last_access >= usage.last_access
    assert after.accesses == usage.accesses + 1


def test_reinforce_rejects_non_finite_time():
    with pytest.raises(InvalidInputError):
        MODEL.reinforce(None, math.nan)


# --- note multiplier ----------------------------------------------------------------


def test_unused_note_multiplier_is_exactly_one():
    assert MODEL.note_multiplier(None, T0) == 1.0


def test_note_multiplier_lifts_then_fades_to_one():
    usage = MODEL.reinforce(None, T0)
    assert MODEL.note_multiplier(usage, T0) == pytest.approx(1 + 0.15 * 0.35)
    assert MODEL.note_multiplier(usage, T0 + 3650 * DAY) == 1.0


@given(histories, st.floats(-DAY, 10 * 365 * DAY))
def test_multiplier_bounds_hold_for_any_history(history, query_offset):
    usage, now = replay(history)
    activity, _ = replay_zone(history)
    when = now + query_offset
    note = MODEL.note_multiplier(usage, when)
    zone = MODEL.zone_multiplier(activity, when)
    assert UsageModel.NOTE_MULTIPLIER_MIN <= note <= UsageModel.NOTE_MULTIPLIER_MAX
    assert UsageModel.ZONE_MULTIPLIER_MIN <= zone <= UsageModel.ZONE_MULTIPLIER_MAX
    assert 1.0 <= note * zone <= MAX_BOOST


@given(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(allow_nan=False, allow_infinity=False),
)
def test_multiplier_bounds_hold_for_damaged_records(strength, stability, last, now):
    usage = NoteUsage(strength=strength, stability_days=stability, last_access=last, accesses=3)
    activity = ZoneActivity(value=stability, updated=last)
    assert 1.0 <= MODEL.note_multiplier(usage, now) <= UsageModel.NOTE_MULTIPLIER_MAX
    assert 1.0 <= MODEL.zone_multiplier(activity, now) <= UsageModel.ZONE_MULTIPLIER_MAX
    assert 0.0 <= MODEL.retention(usage, now) <= 1.0


def test_max_boost_is_the_ratio_of_extremes():
    assert math.isclose(MAX_BOOST, 1.15 * 1.05)
    assert UsageModel().max_boost == MAX_BOOST

    class Wider(UsageModel):
        NOTE_MULTIPLIER_MIN = 0.9

    assert Wider().max_boost == pytest.approx(1.15 * 1.05 / 0.9)


# --- zones --------------------------------------------------------------------------


def test_zone_activity_decays_with_half_life():
    activity = MODEL.touch_zone(None, T0)
    assert activity == ZoneActivity(value=1.0, updated=T0)
    half_life = UsageModel.ZONE_HALF_LIFE_DAYS * DAY
    assert MODEL.zone_value(activity, T0 + half_life) == pytest.approx(0.5)
    assert MODEL.zone_value(activity, T0 + 2 * half_life) == pytest.approx(0.25)


def test_touch_zone_decays_then_adds_one():
    half_life = UsageModel.ZONE_HALF_LIFE_DAYS * DAY
    activity = MODEL.touch_zone(ZoneActivity(value=4.0, updated=T0), T0 + half_life)
    assert activity.value == pytest.approx(3.0)
    assert activity.updated == T0 + half_life


def test_zone_multiplier_rises_with_activity_and_decays():
    assert MODEL.zone_multiplier(None, T0) == 1.0
    busy, now = replay_zone([DAY] * 30)
    quiet, _ = replay_zone([DAY] * 2)
    assert MODEL.zone_multiplier(busy, now) > MODEL.zone_multiplier(quiet, now) > 1.0
    assert MODEL.zone_multiplier(busy, now + 365 * DAY) < 1.0001
    later = [MODEL.zone_multiplier(busy, now + day * DAY) for day in range(0, 100, 7)]
    assert later == sorted(later, reverse=True)


def test_zone_steady_state_matches_rate():
    # One access a day for a long time: value -> 1 / (1 - 2^(-1/14)) ~ 20.7.
    busy, now = replay_zone([DAY] * 400)
    assert MODEL.zone_value(busy, now) == pytest.approx(1 / (1 - 0.5 ** (1 / 14)), rel=1e-3)


# --- staleness ----------------------------------------------------------------------


def test_is_stale():
    once = MODEL.reinforce(None, T0)
    assert not MODEL.is_stale(once, T0 + 30 * DAY)
    assert MODEL.is_stale(once, T0 + 200 * DAY)
    # Untracked notes: stale only when known to be old.
    assert not MODEL.is_stale(None, T0 + 1000 * DAY)
    assert MODEL.is_stale(None, T0 + 200 * DAY, created=T0)
    assert not MODEL.is_stale(None, T0 + 100 * DAY, created=T0)
    # A recently created (or restored) note is not stale whatever its old usage says.
    assert not MODEL.is_stale(once, T0 + 200 * DAY, created=T0 + 150 * DAY)


def test_a_well_established_note_is_not_stale_after_half_a_year():
    strong, now = replay([0.0] + [30 * DAY] * 8)
    assert strong.stability_days > 180
    assert not MODEL.is_stale(strong, now + 200 * DAY)
    assert MODEL.is_stale(strong, now + 5 * 365 * DAY)


# --- the store ----------------------------------------------------------------------


@pytest.fixture
def state_dir(tmp_path):
    return tmp_path / ".mnemosyne" / "state"


def test_store_starts_empty_without_a_file(state_dir):
    store = UsageStore(state_dir)
    store.load()
    assert store.usage("a.md") is None
    assert store.multiplier("a.md", "", T0) == 1.0
    assert store.warnings == []
    assert not state_dir.exists()  # reading writes nothing


def test_store_round_trip(state_dir):
    store = UsageStore(state_dir)
    store.record_access("ops/restore.md", "ops", now=T0)
    usage = store.record_access("ops/restore.md", "ops", now=T0 + 2 * DAY)
    store.record_access("inbox-note.md", "", now=T0 + 2 * DAY)
    data = json.loads((state_dir / "usage.json").read_text("utf-8"))
    assert data["format"] == USAGE_FORMAT
    assert set(data["notes"]) == {"ops/restore.md", "inbox-note.md"}
    assert set(data["zones"]) == {"ops", ""}
    assert data["notes"]["ops/restore.md"]["accesses"] == 2

    again = UsageStore(state_dir)
    again.load()
    assert again.usage("ops/restore.md") == usage
    assert again.zone_activity("ops") == store.zone_activity("ops")
    now = T0 + 3 * DAY
    assert again.multiplier("ops/restore.md", "ops", now) == store.multiplier(
        "ops/restore.md", "ops", now
    )
    assert again.warnings == []


def test_store_loads_lazily_so_a_first_write_keeps_old_state(state_dir):
    UsageStore(state_dir).record_access("a.md", "", now=T0)
    store = UsageStore(state_dir)  # no load() call
    store.record_access("b.md", "", now=T0 + DAY)
    reread = UsageStore(state_dir)
    assert reread.usage("a.md") is not None
    assert reread.usage("b.md") is not None


def test_store_multiplier_is_the_product_and_bounded(state_dir):
    store = UsageStore(state_dir)
    for day in range(20):
        store.record_access("hot.md", "work", now=T0 + day * DAY)
    now = T0 + 20 * DAY
    expected = MODEL.note_multiplier(store.usage("hot.md"), now) * MODEL.zone_multiplier(
        store.zone_activity("work"), now
    )
    assert store.multiplier("hot.md", "work", now) == expected
    assert 1.0 < store.multiplier("hot.md", "work", now) <= MAX_BOOST
    # A never-used note in the busy zone still gets the zone's lift, nothing more.
    assert store.multiplier("cold.md", "work", now) == MODEL.zone_multiplier(
        store.zone_activity("work"), now
    )


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe\x00garbage",
        b'{"format": "someone-else/3", "notes": {}}',
        b"[1, 2, 3]",
        b'{"format": "mnemosyne-usage/1", "notes": [], "zones": {}}',
    ],
)
def test_corrupt_file_is_moved_aside_with_a_warning(state_dir, content):
    state_dir.mkdir(parents=True)
    (state_dir / "usage.json").write_bytes(content)
    store = UsageStore(state_dir)
    store.load()
    assert store.usage("a.md") is None
    assert len(store.warnings) == 1
    assert "moved it to usage.json.corrupt-" in store.warnings[0]
    kept = list(state_dir.glob("usage.json.corrupt-*"))
    assert len(kept) == 1
    assert kept[0].read_bytes() == content
    assert not (state_dir / "usage.json").exists()
    # The store works on; the next access starts a fresh, valid file.
    store.record_access("a.md", "", now=T0)
    assert json.loads((state_dir / "usage.json").read_text("utf-8"))["format"] == USAGE_FORMAT


def test_two_corrupt_files_in_a_row_are_both_kept(state_dir):
    state_dir.mkdir(parents=True)
    for content in (b"first", b"second"):
        (state_dir / "usage.json").write_bytes(content)
        UsageStore(state_dir).load()
    kept = sorted(path.read_bytes() for path in state_dir.glob("usage.json.corrupt-*"))
    assert kept == [b"first", b"second"]


def test_malformed_entries_are_dropped_and_the_original_kept(state_dir):
    state_dir.mkdir(parents=True)
    good = {"strength": 0.5, "stability_days": 3.0, "last_access": T0, "accesses": 2}
    document = {
        "format": USAGE_FORMAT,
        "notes": {
            "good.md": good,
            "nan.md": {**good, "strength": "high"},
            "neg.md": {**good, "accesses": -1},
            "big.md": {**good, "strength": 7.0},
        },
        "zones": {"ops": {"value": 2.0, "updated": T0}, "bad": {"value": -1, "updated": T0}},
    }
    original = json.dumps(document)
    (state_dir / "usage.json").write_text(original, "utf-8")
    store = UsageStore(state_dir)
    store.load()
    assert store.usage("good.md") == NoteUsage(0.5, 3.0, T0, 2)
    assert store.usage("nan.md") is None
    assert store.zone_activity("ops") == ZoneActivity(2.0, T0)
    assert store.zone_activity("bad") is None
    assert "4 malformed entries" in store.warnings[0]
    (kept,) = state_dir.glob("usage.json.corrupt-*")
    assert kept.read_text("utf-8") == original


def test_rename_carries_usage(state_dir):
    store = UsageStore(state_dir)
    usage = store.record_access("ops/restore.md", "ops", now=T0)
    store.rename("ops/restore.md", "_archive/ops/restore.md")
    assert store.usage("ops/restore.md") is None
    assert store.usage("_archive/ops/restore.md") == usage
    reread = UsageStore(state_dir)
    assert reread.usage("_archive/ops/restore.md") == usage
    store.rename("missing.md", "elsewhere.md")  # no history: nothing happens
    assert store.usage("elsewhere.md") is None


def test_rename_many_moves_a_folder_in_one_call(state_dir):
    store = UsageStore(state_dir)
    store.record_access("a/one.md", "a", now=T0)
    store.record_access("a/two.md", "a", now=T0)
    store.rename_many([("a/one.md", "b/one.md"), ("a/two.md", "b/two.md")])
    assert store.usage("b/one.md") is not None
    assert store.usage("b/two.md") is not None
    assert store.usage("a/one.md") is None


def test_forget_path(state_dir):
    store = UsageStore(state_dir)
    store.record_access("gone.md", "", now=T0)
    store.forget_path("gone.md")
    store.forget_path("never.md")
    assert store.usage("gone.md") is None
    assert UsageStore(state_dir).usage("gone.md") is None


def test_stale_lists_paths_in_the_given_order(state_dir):
    store = UsageStore(state_dir)
    store.record_access("old.md", "", now=T0)
    store.record_access("fresh.md", "", now=T0 + 300 * DAY)
    now = T0 + 320 * DAY
    candidates = [
        ("untracked-old.md", T0 - 400 * DAY),
        ("fresh.md", T0),
        ("old.md", T0 - DAY),
        ("untracked-unknown.md", None),
    ]
    assert store.stale(candidates, now) == ["untracked-old.md", "old.md"]


@pytest.mark.parametrize(
    ("path", "zone", "now"),
    [("", "", T0), (None, "", T0), ("a.md", None, T0), ("a.md", "", math.inf)],
)
def test_record_access_rejects_bad_arguments(state_dir, path, zone, now):
    with pytest.raises(InvalidInputError):
        UsageStore(state_dir).record_access(path, zone, now=now)


def test_store_uses_the_given_model(state_dir):
    class Flat(UsageModel):
        NOTE_MULTIPLIER_MAX = 1.0
        ZONE_MULTIPLIER_MAX = 1.0

    store = UsageStore(state_dir, model=Flat())
    store.record_access("a.md", "", now=T0)
    assert store.multiplier("a.md", "", T0) == 1.0


@settings(max_examples=25)
@given(st.lists(st.tuples(st.sampled_from(["a.md", "b.md", "c/d.md"]), gaps), max_size=10))
def test_store_round_trip_property(tmp_path_factory, events):
    state_dir = tmp_path_factory.mktemp("state")
    store = UsageStore(state_dir)
    now = T0
    for path, gap in events:
        now += gap
        store.record_access(path, path.rpartition("/")[0], now=now)
    reread = UsageStore(state_dir)
    for path in ("a.md", "b.md", "c/d.md"):
        assert reread.usage(path) == store.usage(path)
