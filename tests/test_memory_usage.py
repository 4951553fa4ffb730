"""``VaultMemory`` usage dynamics, staleness, the digest and status."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.dynamics import MAX_BOOST
from birkin_mnemosyne.markdown import estimate_tokens
from birkin_mnemosyne.memory import VaultMemory
from birkin_mnemosyne.ranking import RankingParams

T0 = 1_772_445_600.0  # 2026-03-02T10:00:00Z
DAY = 86_400.0
SECRET = "ghp_" + "A1b2" * 9


class Clock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


# --- record_access and decay -------------------------------------------------------------


def test_record_access_reinforces_and_persists(vault):
    vault.write("ops/restore.md", "restore\n")
    memory = VaultMemory(vault.root, clock=Clock())
    first = memory.record_access("restore")
    assert first["accesses"] == 1 and first["last_access"] == T0
    assert 1.0 < first["multiplier"] <= MAX_BOOST
    second = memory.record_access("restore", now=T0 + 3 * DAY)
    assert second["accesses"] == 2 and second["stability_days"] > first["stability_days"]
    state = json.loads((vault.root / ".mnemosyne/state/usage.json").read_text())
    assert state["notes"]["ops/restore.md"]["accesses"] == 2
    assert set(state["zones"]) == {"ops"}
    # Another VaultMemory (another process) sees the same state.
    assert VaultMemory(vault.root).usage_of("restore", now=T0 + 3 * DAY)["accesses"] == 2


def test_searching_does_not_record_access(vault):
    vault.write("ops/restore.md", "restore the database\n")
    memory = VaultMemory(vault.root, clock=Clock())
    memory.search("restore database")
    memory.get_note("restore")
    assert memory.usage_of("restore")["accesses"] == 0


def test_decay_is_monotone_in_age_and_access_never_lowers(vault):
    vault.write("n.md", "note\n")
    memory = VaultMemory(vault.root)
    state = vault.root / ".mnemosyne/state/usage.json"

    @settings(max_examples=30, deadline=None)
    @given(
        gaps=st.lists(st.floats(0, 400, allow_nan=False), min_size=1, max_size=6),
        ages=st.lists(st.floats(0, 2000, allow_nan=False), min_size=2, max_size=6),
    )
    def check(gaps, ages):
        state.unlink(missing_ok=True)
        memory.usage.load()
        now = T0
        for gap in gaps:
            now += gap * DAY
            before = memory.usage_of("n", now=now)["multiplier"]
            after = memory.record_access("n", now=now)["multiplier"]
            assert after >= before - 1e-12
        values = [memory.usage_of("n", now=now + age * DAY)["multiplier"] for age in sorted(ages)]
        assert all(a >= b - 1e-12 for a, b in zip(values, values[1:]))
        assert all(1.0 <= v <= MAX_BOOST for v in values)

    check()


# --- the bounded multiplier --------------------------------------------------------------


def access_heavily(memory: VaultMemory, key: str, clock: Clock, times: int = 25) -> None:
    for _ in range(times):
        clock.now += 5 * DAY  # spaced: each access counts fully
        memory.record_access(key, now=clock.now)


def test_a_full_match_beats_a_popular_partial_match(vault):
    vault.write(
        "ref/full.md",
        "A long page about many things. " * 20
        + "Somewhere it mentions alpha, then beta, and finally gamma.\n",
    )
    vault.write("hot/popular.md", "---\ntitle: Alpha alpha\n---\nalpha alpha alpha alpha\n")
    clock = Clock()
    memory = VaultMemory(vault.root, clock=clock)
    access_heavily(memory, "popular", clock)
    assert memory.usage_of("popular")["multiplier"] > 1.15
    hits = memory.search("alpha beta gamma")
    assert [h["path"] for h in hits][:2] == ["ref/full.md", "hot/popular.md"]


def test_within_a_tier_a_clearly_better_match_is_never_overtaken(vault):
    vault.write("docs/strong.md", "---\ntitle: Kafka\n---\nkafka kafka partitions kafka\n")
    vault.write(
        "docs/weak.md",
        "Notes on many systems and tools used by the team. " * 12 + "Also kafka once.\n",
    )
    clock = Clock()
    memory = VaultMemory(vault.root, clock=clock)
    base = {h["path"]: h["score"] for h in memory.search("kafka")}
    needed = RankingParams().max_multiplier_ratio(MAX_BOOST)
    params = RankingParams()
    assert needed == pytest.approx(MAX_BOOST * 1.05 / (0.7 * params.prior_journal))
    assert base["docs/strong.md"] > needed * base["docs/weak.md"]

    access_heavily(memory, "weak", clock)
    assert memory.search("kafka")[0]["path"] == "docs/strong.md"
    # The worst case: the weak note at the largest multiplier usage can ever give.
    memory.engine.usage_multiplier = lambda path, zone: MAX_BOOST if "weak" in path else 1.0
    assert memory.search("kafka")[0]["path"] == "docs/strong.md"


def test_usage_does_reorder_a_near_tie(vault):
    for name in ("one", "two"):
        vault.write(f"{name}/note.md", "deploy the web service with blue green switch\n")
    clock = Clock()
    memory = VaultMemory(vault.root, clock=clock)
    loser = memory.search("blue green deploy")[1]["path"]
    access_heavily(memory, loser, clock, times=3)
    assert memory.search("blue green deploy")[0]["path"] == loser


# --- stale -------------------------------------------------------------------------------


def test_stale_lists_long_unused_weak_notes(vault):
    vault.write("old/forgotten.md", "---\ncreated: 2025-01-01\n---\nold\n")
    vault.write("old/used.md", "---\ncreated: 2025-01-01\n---\nold but used\n")
    vault.write("new/fresh.md", "---\ncreated: 2026-02-20\n---\nnew\n")
    memory = VaultMemory(vault.root, clock=Clock())
    memory.record_access("used", now=T0 - DAY)
    report = memory.stale()
    assert [n["path"] for n in report["notes"]] == ["old/forgotten.md"]
    assert report["total"] == 1
    assert report["notes"][0]["accesses"] == 0 and report["notes"][0]["last_access"] is None
    assert report["notes"][0]["touched"] == "2025-01-01T00:00:00Z"
    later = memory.stale(now=T0 + 3 * 365 * DAY)
    assert {n["path"] for n in later["notes"]} == {
        "old/forgotten.md",
        "old/used.md",
        "new/fresh.md",
    }


def test_a_corrupt_usage_file_is_moved_aside_with_a_warning(vault):
    vault.write("a.md", "a\n")
    vault.write(".mnemosyne/state/usage.json", "{not json")
    memory = VaultMemory(vault.root, clock=Clock())
    assert memory.search("a", exact=True)[0]["path"] == "a.md"
    [warning] = [w for w in memory.status()["warnings"] if w["code"] == "usage_state"]
    assert "moved it to usage.json.corrupt-" in warning["message"]
    assert list((vault.root / ".mnemosyne/state").glob("usage.json.corrupt-*"))
    assert memory.record_access("a")["accesses"] == 1


# --- digest ------------------------------------------------------------------------------


@pytest.fixture
def digest_vault(vault):
    vault.write(
        "preferences/style.md",
        f"---\ntitle: Answer style\n---\nPrefers short answers in British English. {SECRET}\n",
    )
    vault.write("me.md", "---\ntitle: Who I am\ntype: profile\n---\nA backend engineer.\n")
    for i in range(4):
        vault.write(f"ops/runbook-{i}.md", f"---\ntitle: Ops runbook {i}\n---\nsteps\n")
    vault.write("web/page.md", "---\ntitle: Web page\n---\nhtml\n")
    vault.write(f"secrets/{SECRET[:8]}.md", f"---\ntitle: Token {SECRET}\n---\nx\n")
    return vault


def test_digest_puts_identity_first_then_busy_zones(digest_vault):
    clock = Clock()
    memory = VaultMemory(digest_vault.root, clock=clock)
    for _ in range(3):
        memory.record_access("web/page", now=clock.now)
    memory.record_access("runbook-2", now=clock.now)
    text = memory.render_digest(limit=2, budget_tokens=2000)
    assert "UTF-8 bytes / 4" in text
    assert SECRET not in text and "[REDACTED" in text
    identity = text.index("## Identity and preferences")
    assert identity < text.index("## web") < text.index("## ops")
    assert "Answer style (style): Prefers short answers in British English." in text
    assert "Who I am (me): A backend engineer." in text
    ops = text[text.index("## ops") :]
    assert ops.splitlines()[1] == "- Ops runbook 2 (runbook-2)"  # most used first
    assert "## secrets — 1 note\n" in text
    assert "more notes not shown" in text  # ops lists 2 of its 4 notes


@pytest.mark.parametrize("budget", [5, 20, 40, 80, 160])
def test_digest_stays_within_its_budget(digest_vault, budget):
    memory = VaultMemory(digest_vault.root, clock=Clock())
    text = memory.render_digest(budget_tokens=budget)
    assert estimate_tokens(text) <= budget
    assert len(text.encode("utf-8")) <= budget * 4
    if "## " in text:
        assert text.index("## ") == text.index("## Identity and preferences")


# --- status ------------------------------------------------------------------------------


def test_status_is_engine_stats_plus_memory_reports(vault):
    vault.write("a.md", "a\n")
    memory = VaultMemory(vault.root, clock=Clock())
    done = memory.rezone("a", "z")
    status = memory.status()
    assert {"notes", "zones", "index", "warnings", "mode"} <= set(status)
    assert status["notes"] == 1 and status["zones"] == {"z": 1}
    assert status["recovered"] == [] and status["evidence_required"] is False
    assert status["journal"]["recent"][0]["transaction_id"] == done["transaction_id"]
    json.dumps(status)  # JSON-able
