"""Review questions (duplicates, overlaps, conflicts, retire) and capacity budgets."""

from __future__ import annotations

import hashlib

import pytest

from birkin_mnemosyne.curation import capacity, load_budgets, review
from birkin_mnemosyne.errors import ConfigError, InvalidInputError, PlanError
from birkin_mnemosyne.memory import VaultMemory

NOW = 1_800_000_000.0


def _tree(root) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*.md")
        if ".mnemosyne" not in p.parts
    }


@pytest.fixture
def memory(vault):
    vault.write(
        "kafka.md",
        "# Kafka retention\nKafka topics keep messages for seven days by default.\n",
        dedent=False,
    )
    vault.write(
        "kafka-copy.md",
        "# Kafka retention\nKafka topics keep messages for seven days by default!\n",
        dedent=False,
    )
    vault.write(
        "cache.md",
        "# Redis cache\nThe redis cache expires keys after one hour for sessions.\n",
        dedent=False,
    )
    vault.write(
        "cache-old.md",
        "# Redis cache\nThe redis cache no longer expires keys after one hour for sessions.\n",
        dedent=False,
    )
    vault.write("prefs/tea.md", "# Tea\nI prefer green tea.\n", dedent=False)
    vault.write("prefs/editor.md", "# Editor\nI use vim.\n", dedent=False)
    with VaultMemory(vault.root, clock=lambda: NOW) as mem:
        yield mem


def _by_kind(found):
    return {q["kind"]: q for q in found["questions"]}


def test_questions_find_duplicates_and_conflicts(memory):
    found = review.questions(memory, now=NOW)
    kinds = _by_kind(found)
    dup = kinds["duplicate"]
    assert {n["path"] for n in dup["notes"]} == {"kafka.md", "kafka-copy.md"}
    assert [c["id"] for c in dup["choices"]] == ["keep_both", "drop_first", "drop_second", "merge"]
    assert dup["evidence"]["method"] == "lexical" and dup["evidence"]["similarity"] >= 0.8
    conflict = kinds["conflict"]
    assert {n["path"] for n in conflict["notes"]} == {"cache.md", "cache-old.md"}
    assert "retire" not in kinds


def test_apply_drop_then_undo_restores_bytes(memory):
    before = _tree(memory.vault)
    question = _by_kind(review.questions(memory, now=NOW))["duplicate"]
    dropped = question["notes"][1]["path"]
    result = review.apply(memory, question["id"], "drop_second", now=NOW)
    assert result["transaction_id"] and not (memory.vault / dropped).exists()
    assert (memory.vault / "_archive" / dropped).exists()
    review.undo(memory, result["transaction_id"])
    assert _tree(memory.vault) == before


def test_merge_needs_an_approved_body(memory):
    question = _by_kind(review.questions(memory, now=NOW))["duplicate"]
    with pytest.raises(InvalidInputError, match="approved merged body"):
        review.apply(memory, question["id"], "merge", now=NOW)
    kept, other = (n["path"] for n in question["notes"])
    result = review.apply(
        memory, question["id"], "merge", body="# Kafka retention\nSeven days.\n", now=NOW
    )
    assert (memory.vault / kept).read_text() == "# Kafka retention\nSeven days.\n"
    assert (memory.vault / "_archive" / other).exists()
    assert len(result["paths"]) == 3


def test_keep_both_is_remembered_and_stale_ids_refused(memory):
    question = _by_kind(review.questions(memory, now=NOW))["conflict"]
    with pytest.raises(InvalidInputError, match="valid: keep_both"):
        review.apply(memory, question["id"], "burn_it", now=NOW)
    assert review.apply(memory, question["id"], "keep_both", now=NOW)["state"] == "unchanged"
    assert "conflict" not in _by_kind(review.questions(memory, now=NOW))
    dup = _by_kind(review.questions(memory, now=NOW))["duplicate"]
    (memory.vault / "kafka.md").write_text("# Kafka retention\nNow fourteen days.\n")
    with pytest.raises(PlanError, match="no longer applies"):
        review.apply(memory, dup["id"], "drop_first", now=NOW)


def test_capacity_over_budget_adds_retire_questions(memory):
    report = capacity(memory, {"max_protected_notes": 1, "max_active_notes": 100}, now=NOW)
    assert report["protected_notes"] == {"count": 2, "budget": 1, "over": True}
    assert report["active_notes"]["over"] is False
    assert report["over_budget"] == ["max_protected_notes"]
    assert len(report["retire_candidates"]) == 1
    assert report["vault_bytes"]["count"] > 0
    found = review.questions(memory, budgets={"max_protected_notes": 1}, now=NOW)
    retire = _by_kind(found)["retire"]
    path = retire["notes"][0]["path"]
    assert path in {"prefs/tea.md", "prefs/editor.md"}
    assert (memory.vault / path).exists()  # nothing is removed automatically
    result = review.apply(memory, retire["id"], "retire", budgets={"max_protected_notes": 1})
    assert (memory.vault / "_archive" / path).exists()
    review.undo(memory, result["transaction_id"])
    assert (memory.vault / path).exists()


def test_capacity_within_budget(memory):
    report = capacity(memory, now=NOW)
    assert report["over_budget"] == [] and report["retire_candidates"] == []
    assert report["active_notes"] == {"count": 6, "budget": None, "over": False}


@pytest.mark.parametrize("raw", ["0", "-3", "ten", "1.5"])
def test_invalid_budget_env_is_a_clear_error(raw):
    with pytest.raises(ConfigError, match="MNEMOSYNE_MAX_ACTIVE_NOTES"):
        load_budgets(env={"MNEMOSYNE_MAX_ACTIVE_NOTES": raw})


def test_budget_options_win_over_env():
    env = {"MNEMOSYNE_MAX_VAULT_BYTES": "1000", "MNEMOSYNE_MAX_ACTIVE_NOTES": "9"}
    budgets = load_budgets({"max_active_notes": 5}, env=env)
    assert budgets == {"max_active_notes": 5, "max_protected_notes": None, "max_vault_bytes": 1000}
    with pytest.raises(ConfigError, match="valid: max_active_notes"):
        load_budgets({"max_notes": 5}, env={})
    with pytest.raises(ConfigError):
        load_budgets({"max_active_notes": True}, env={})
