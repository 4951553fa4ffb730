"""StartupReader: complete bundles, failures instead of partial ones, verify()."""

from __future__ import annotations

import json

import pytest

from birkin_mnemosyne.errors import InvalidInputError, NoteNotFoundError
from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore
from birkin_mnemosyne.memory_index import MemoryIndex
from birkin_mnemosyne.startup import StartupReader


@pytest.fixture
def ops(vault):
    vault.write(
        "runbooks/postgres-restore.md", "# Postgres restore\n\n" + "Use pg_restore.\n" * 400
    )
    vault.write("people/alice.md", "# Alice\n\nOwns billing.\n")
    vault.write("inbox.md", "# Inbox\n")
    index = MemoryIndex(vault.root)
    index.register("restoring the database", "runbooks/postgres-restore.md")
    index.register("billing owner", "people/alice.md")
    HandoffStore(vault.root, clock=lambda: 1_780_000_000.0).capture(
        HandoffScope("atlas"), {"next_step": "restore staging"}, capture_id="h1"
    )
    return vault


def test_bundle_holds_index_handoff_files_and_task_matches_complete(ops):
    reader = StartupReader(ops.root)
    bundle = reader.read(
        ["inbox.md"], task="We are restoring the database today", project_key="atlas"
    )
    assert bundle["index"]["mode"] == "flat"
    assert bundle["handoff"]["capture_id"] == "h1"
    paths = [f["path"] for f in bundle["files"]]
    assert paths == ["inbox.md", "runbooks/postgres-restore.md"]
    full = (ops.root / "runbooks/postgres-restore.md").read_text(encoding="utf-8")
    assert bundle["files"][1]["text"] == full  # complete, never truncated
    assert bundle["files"][1]["reason"] == "trigger"
    assert [r["path"] for r in bundle["receipt"]["files"]] == paths
    assert bundle["estimated_tokens"] > bundle["files"][1]["estimated_tokens"]
    assert bundle["estimate"] == "UTF-8 bytes / 4"


def test_missing_required_file_fails_the_read(ops):
    with pytest.raises(NoteNotFoundError, match="missing"):
        StartupReader(ops.root).read(["inbox.md", "nope.md"])


def test_limits_are_enforced(ops):
    with pytest.raises(InvalidInputError, match="limit of 1"):
        StartupReader(ops.root, max_files=1).read(["inbox.md", "people/alice.md"])
    with pytest.raises(InvalidInputError, match="per-file"):
        StartupReader(ops.root, max_file_bytes=100).read(["runbooks/postgres-restore.md"])
    with pytest.raises(InvalidInputError, match="total"):
        StartupReader(ops.root, max_total_bytes=6000).read(
            ["runbooks/postgres-restore.md", "people/alice.md"]
        )


def test_verify_detects_an_edited_source(ops):
    reader = StartupReader(ops.root)
    bundle = reader.read(["people/alice.md"], project_key="atlas")
    assert reader.verify(bundle)["exact"]
    ops.write("people/alice.md", "# Alice\n\nOwns billing and payroll.\n")
    report = reader.verify(bundle)
    assert not report["exact"] and report["changed"] == ["people/alice.md"]


def test_verify_sees_a_new_handoff(ops):
    reader = StartupReader(ops.root)
    bundle = reader.read([], project_key="atlas")
    HandoffStore(ops.root).capture(HandoffScope("atlas"), {"work_done": "more"})
    assert reader.verify(bundle)["handoff_changed"]


def test_a_vault_without_the_index_still_reads_files(vault):
    vault.write("a.md", "# A\n")
    bundle = StartupReader(vault.root).read(["a"], task="anything")
    assert bundle["index"] is None and [f["path"] for f in bundle["files"]] == ["a.md"]
    assert not (vault.root / ".mnemosyne").exists()


def test_a_trigger_matches_only_when_all_its_words_occur_in_the_task(ops):
    reader = StartupReader(ops.root)
    assert reader.read([], task="the database is slow")["files"] == []
    bundle = reader.read([], task="who is the BILLING owner?")
    assert [f["path"] for f in bundle["files"]] == ["people/alice.md"]


def test_a_bundle_never_serves_a_planted_secret(vault):
    ghp = "ghp_" + "a1B2" * 9
    password = "hunter2" + "-zebra-41"
    vault.write("ops/deploy.md", f"# Deploy\n\npassword: {password}\n")
    index = MemoryIndex(vault.root)
    index.register(f"deploying with {ghp}", "ops/deploy.md")
    HandoffStore(vault.root).capture(HandoffScope("atlas"), {"next_step": f"revoke {ghp}"})
    bundle = StartupReader(vault.root).read(
        ["ops/deploy.md"], task=f"deploying with {ghp}", project_key="atlas"
    )
    served = json.dumps(bundle)
    assert ghp not in served and password not in served
    assert bundle["handoff"]["fields"]["next_step"] == "revoke [REDACTED:github_token]"
    assert StartupReader(vault.root).verify(bundle)["exact"]
