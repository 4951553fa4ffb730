"""The Hermes provider's session memory: INDEX and handoff in prefetch, captured handoffs."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "agent.memory_provider",
    reason='hermes-agent is not installed: pip install -e ".[hermes]"',
)

from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore  # noqa: E402
from birkin_mnemosyne.hermes_plugin import MnemosyneMemoryProvider  # noqa: E402
from birkin_mnemosyne.memory_index import MemoryIndex  # noqa: E402


@pytest.fixture(autouse=True)
def _hermes_env(monkeypatch, tmp_path):
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))


@pytest.fixture
def ops(vault):
    vault.write("runbooks/postgres-restore.md", "# Postgres restore\n\nUse pg_restore.\n")
    MemoryIndex(vault.root).register("restoring the database", "runbooks/postgres-restore.md")
    return vault


def start(tmp_path, vault_root, **config):
    provider = MnemosyneMemoryProvider(config={"vault": str(vault_root), **config})
    provider.initialize("s1", hermes_home=str(tmp_path / "hermes-home"), agent_context="primary")
    return provider


def test_prefetch_adds_index_and_latest_handoff_for_a_bound_project(ops, tmp_path):
    HandoffStore(ops.root).capture(HandoffScope("atlas"), {"next_step": "swap the databases"})
    unbound = start(tmp_path, ops.root)
    assert "Memory INDEX" not in unbound.prefetch("hello there")
    unbound.shutdown()
    bound = start(tmp_path, ops.root, project_key="atlas")
    text = bound.prefetch("hello there")
    assert "restoring the database -> runbooks/postgres-restore.md" in text
    assert "swap the databases" in text
    bound.shutdown()


def test_session_end_and_pre_compress_capture_when_configured(ops, tmp_path):
    messages = [
        {"role": "user", "content": "restore staging"},
        {"role": "assistant", "content": "Restored staging from the dump."},
    ]
    quiet = start(tmp_path, ops.root, project_key="atlas")
    quiet.on_session_end(messages)
    assert HandoffStore(ops.root).latest(HandoffScope("atlas")) is None
    quiet.shutdown()
    provider = start(tmp_path, ops.root, project_key="atlas", capture_handoffs=True)
    provider.on_pre_compress(messages)
    provider.on_pre_compress(messages)  # the same content again is one handoff
    provider.on_session_end(messages)
    resume = HandoffStore(ops.root).resume(HandoffScope("atlas"))
    assert resume["captures"] == 2
    assert resume["latest"]["fields"]["work_done"] == "Restored staging from the dump."
    provider.shutdown()
