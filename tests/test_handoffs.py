"""HandoffStore: idempotent capture, refused id reuse, scopes, resume and fold."""

from __future__ import annotations

import json

import pytest

from birkin_mnemosyne.errors import InvalidInputError, NoteExistsError
from birkin_mnemosyne.handoffs import HandoffFields, HandoffScope, HandoffStore


class Clock:
    def __init__(self) -> None:
        self.now = 1_780_000_000.0

    def __call__(self) -> float:
        self.now += 3600
        return self.now


@pytest.fixture
def store(vault):
    return HandoffStore(vault.root, clock=Clock())


def test_capture_stores_a_readable_record(store):
    scope = HandoffScope("Atlas", "Ünïcode task")
    record = store.capture(scope, {"work_done": "migrated", "decisions": "use v2"}, capture_id="c1")
    assert record["replayed"] is False and record["sequence"] == 1
    assert record["fields"]["decisions"] == ["use v2"]
    files = list((store.vault / ".mnemosyne/handoffs").rglob("*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text(encoding="utf-8"))
    assert data["scope"] == {"project_key": "Atlas", "task_key": "Ünïcode task"}
    assert "Atlas" not in str(files[0])  # keys never become paths


def test_identical_retry_returns_the_original(store):
    scope = HandoffScope("atlas")
    first = store.capture(scope, HandoffFields(work_done="x", next_step="y"), capture_id="c1")
    again = store.capture(scope, {"work_done": "x", "next_step": "y"}, capture_id="c1")
    assert again["replayed"] is True
    assert again["created"] == first["created"] and again["sequence"] == 1


def test_reusing_an_id_for_other_content_is_refused(store):
    scope = HandoffScope("atlas")
    store.capture(scope, {"work_done": "x"}, capture_id="c1")
    with pytest.raises(NoteExistsError):
        store.capture(scope, {"work_done": "different"}, capture_id="c1")


def test_fields_are_validated(store):
    with pytest.raises(InvalidInputError, match="valid: work_done"):
        store.capture(HandoffScope("a"), {"wrk": "x"})
    with pytest.raises(InvalidInputError):
        store.capture(HandoffScope("a"), {})
    with pytest.raises(InvalidInputError):
        HandoffScope("")


def test_soft_budget_warns_and_hard_limit_refuses(vault):
    store = HandoffStore(vault.root, clock=Clock(), soft_budget_tokens=10)
    record = store.capture(HandoffScope("a"), {"work_done": "x" * 200})
    assert record["warnings"]
    with pytest.raises(InvalidInputError, match="1 MiB"):
        store.capture(HandoffScope("a"), {"work_done": "x" * (1024 * 1024)})


def test_scopes_are_isolated(store):
    a, b, a_task = HandoffScope("atlas"), HandoffScope("ATLAS"), HandoffScope("atlas", "t")
    store.capture(a, {"work_done": "a"}, capture_id="same")
    store.capture(b, {"work_done": "b"}, capture_id="same")
    assert store.latest(a)["fields"]["work_done"] == "a"
    assert store.latest(b)["fields"]["work_done"] == "b"
    assert store.latest(a_task) is None
    assert store.resume(a)["captures"] == 1


def test_latest_and_resume(store):
    scope = HandoffScope("atlas")
    for n in range(5):
        store.capture(scope, {"work_done": f"step {n}", "next_step": f"next {n}"})
    assert store.latest(scope)["fields"]["work_done"] == "step 4"
    resume = store.resume(scope, history=2)
    assert [h["work_done"] for h in resume["history"]] == ["step 3", "step 2"]
    assert "Next step: next 4" in resume["text"]


def test_fold_preview_apply_undo(store):
    scope = HandoffScope("atlas")
    for n in range(5):
        store.capture(scope, {"work_done": f"step {n}"}, capture_id=f"c{n}")
    root = store.vault / ".mnemosyne/handoffs"
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    preview = store.fold(scope, keep=2)
    assert preview["mode"] == "preview" and preview["folded_ids"] == ["c0", "c1", "c2"]
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    applied = store.fold(scope, keep=2, apply=True, plan_id=preview["plan_id"])
    assert applied["state"] == "committed"
    assert store.resume(scope)["captures"] == 2
    summary = (store.vault / applied["summary_path"]).read_text(encoding="utf-8")
    assert all(f"step {n}" in summary for n in range(3))
    assert store.latest(scope)["fields"]["work_done"] == "step 4"
    # a folded id stays used
    assert store.capture(scope, {"work_done": "step 0"}, capture_id="c0")["replayed"]
    store.undo(applied["transaction_id"])
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    assert store.fold(scope, keep=5, apply=True)["state"] == "unchanged"


# -- secrets are redacted on write and on read ---------------------------------------

GHP = "ghp_" + "a1B2" * 9
PW = "hunter2" + "-zebra-41"


def test_capture_stores_and_serves_fields_redacted(store):
    scope = HandoffScope("atlas")
    fields = {
        "work_done": f"rotated the bot token {GHP}",
        "decisions": [f"password: {PW}", "keep v2"],
        "next_step": "tell ops",
    }
    record = store.capture(scope, fields, capture_id="s1")
    assert GHP not in json.dumps(record) and PW not in json.dumps(record)
    assert record["fields"]["decisions"] == ["password: [REDACTED:key_value]", "keep v2"]
    assert any("2 secret(s)" in w for w in record["warnings"])
    on_disk = "".join(p.read_text() for p in (store.vault / ".mnemosyne").rglob("*.json"))
    assert GHP not in on_disk and PW not in on_disk
    served = json.dumps([store.latest(scope), store.resume(scope)])
    assert GHP not in served and PW not in served
    # A retry with the same raw fields is recognised as the same handoff.
    assert store.capture(scope, fields, capture_id="s1")["replayed"] is True


def test_a_record_written_unredacted_is_served_redacted(store):
    scope = HandoffScope("atlas")
    store.capture(scope, {"work_done": "first"}, capture_id="old")
    file = next((store.vault / ".mnemosyne/handoffs").rglob("*.json"))
    record = json.loads(file.read_text(encoding="utf-8"))
    record["fields"]["next_step"] = f"use {GHP}"  # as an older version stored it
    file.write_text(json.dumps(record), encoding="utf-8")
    served = json.dumps([store.latest(scope), store.resume(scope)])
    assert GHP not in served and "[REDACTED:github_token]" in served
    store.capture(scope, {"work_done": "second"}, capture_id="new")
    preview = store.fold(scope, keep=1)
    applied = store.fold(scope, keep=1, apply=True, plan_id=preview["plan_id"])
    summary = store.vault / applied["summary_path"]
    assert GHP not in summary.read_text(encoding="utf-8")
