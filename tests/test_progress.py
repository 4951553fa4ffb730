"""``on_progress``: the event stream of a phase, and the index builds that report it."""

from __future__ import annotations

import pytest

from birkin_mnemosyne import Mnemosyne, engine
from birkin_mnemosyne.memory import VaultMemory
from birkin_mnemosyne.progress import STEPS, PhaseProgress, ProgressEvent, phase


def check_phase(events: list[ProgressEvent], name: str, total: int) -> None:
    """One phase's events: from 0 to ``total``, never backwards, finished only at the end."""
    mine = [event for event in events if event.phase == name]
    assert mine, f"no {name} events"
    assert {event.total for event in mine} == {total}
    done = [event.done for event in mine]
    assert done[0] == 0 and done[-1] == total and done == sorted(done)
    assert mine[-1].finished and not any(event.finished for event in mine[:-1])


# --- the event stream -----------------------------------------------------------------


def test_a_phase_goes_from_zero_to_its_total_thinned():
    events = []
    with PhaseProgress(events.append, "index", 10_000) as reporting:
        for _ in range(10_000):
            reporting.advance()
    check_phase(events, "index", 10_000)
    assert len(events) <= STEPS + 2


def test_a_phase_without_a_total_ends_with_the_count_it_reached():
    events = []
    with phase(events.append, "read", None) as reporting:
        reporting.advance(3)
        reporting.advance(4)
    assert events[0] == ProgressEvent("read", 0, None) and not events[0].finished
    assert events[-1] == ProgressEvent("read", 7, 7) and events[-1].finished


def test_an_empty_phase_is_one_finished_event_and_overshoot_is_capped():
    events = []
    with phase(events.append, "write", 0):
        pass
    assert events == [ProgressEvent("write", 0, 0)]
    events.clear()
    with phase(events.append, "write", 2) as reporting:
        reporting.advance(5)
    assert events == [ProgressEvent("write", 0, 2), ProgressEvent("write", 2, 2)]


def test_no_callback_costs_nothing_and_a_raising_callback_stops_the_work():
    with phase(None, "index", 5) as reporting:
        reporting.advance()  # a no-op stand-in

    def cancel(event):
        if event.done:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt), phase(cancel, "index", 3) as reporting:
        reporting.advance()


def test_events_name_their_phase_for_people():
    assert ProgressEvent("index", 1, 2).label == "indexing notes"
    assert ProgressEvent("something-new", 1, 2).label == "something-new"


# --- index builds -----------------------------------------------------------------------


@pytest.fixture
def notes(vault):
    for i in range(250):
        vault.write(f"zone{i % 4}/note-{i}.md", f"# Note {i}\n\nRestore database item {i}.\n")
    return vault


def test_a_first_build_reports_every_note_then_the_save(notes):
    events = []
    Mnemosyne(notes.root, on_progress=events.append).refresh()
    check_phase(events, "index", 250)
    check_phase(events, "index-save", 1)
    assert [e.phase for e in events if e.finished] == ["index", "index-save"]


def test_a_refresh_reports_only_the_changed_files_and_nothing_when_none(notes):
    search = Mnemosyne(notes.root, refresh_interval=0)
    search.refresh()
    events = []
    assert search.refresh(on_progress=events.append)["changed"] == 0
    assert events == []
    for i in range(3):
        notes.write(f"zone0/note-{i * 4}.md", f"# Note {i}\n\nChanged {i}.\n")
    search.on_progress = events.append
    search.refresh()
    check_phase(events, "index", 3)


def test_a_parallel_build_reports_as_the_workers_deliver(notes, monkeypatch):
    monkeypatch.setattr(engine, "PARALLEL_MIN", 10)
    monkeypatch.setattr(engine, "PARALLEL_BATCH", 20)
    monkeypatch.setattr(engine.os, "cpu_count", lambda: 2)
    events = []
    Mnemosyne(notes.root, on_progress=events.append).refresh()
    check_phase(events, "index", 250)


def test_the_first_search_through_vault_memory_reports_its_build(notes):
    events = []
    with VaultMemory(notes.root, on_progress=events.append) as memory:
        assert memory.search("restore database")
    check_phase(events, "index", 250)
