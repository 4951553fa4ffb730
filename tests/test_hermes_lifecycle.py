"""The provider driven by Hermes Agent itself: installed with ``install_plugin`` into a
temporary ``HERMES_HOME``, found by ``plugins.memory.load_memory_provider``, run by
``agent.memory_manager.MemoryManager`` as Hermes's agent loop runs it. No network.

Needs hermes-agent (the ``hermes`` extra pins the version these tests were written for):
``pip install -e ".[hermes]"``.
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "agent.memory_provider",
    reason='hermes-agent is not installed: pip install -e ".[hermes]"',
)

import plugins.memory as hermes_memory  # noqa: E402
import yaml  # noqa: E402
from agent.memory_manager import (  # noqa: E402
    MemoryManager,
    build_memory_context_block,
    sanitize_context,
)
from toolsets import _HERMES_CORE_TOOLS  # noqa: E402

import birkin_mnemosyne.hermes_plugin as package_plugin  # noqa: E402
from birkin_mnemosyne.hermes_install import install_plugin  # noqa: E402
from birkin_mnemosyne.hermes_plugin.tool_schemas import TOOL_NAMES  # noqa: E402
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402

RESTORE = """\
# Restore PostgreSQL from the nightly dump

## Restore into a scratch database first

Run pg_restore --jobs 4 into atlas_restore, then compare the row counts.
"""
PREFERENCES = """\
# Communication preferences

Short answers first, then the explanation.
"""
# Hermes drains its background memory worker within this many seconds at most; a wait,
# not a speed requirement.
DRAIN_SECONDS = 60


@pytest.fixture(autouse=True)
def _forget_loaded_plugins():
    """Hermes caches a loaded plugin module by name; each test loads its own copy."""
    yield
    for name in list(sys.modules):
        if name.startswith(hermes_memory._USER_NAMESPACE):
            del sys.modules[name]


@pytest.fixture
def hermes_home(tmp_path, monkeypatch):
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    return home


@pytest.fixture
def notes(vault):
    vault.write("runbooks/postgres-restore.md", RESTORE)
    vault.write("preferences/communication.md", PREFERENCES)
    return vault


def configure(hermes_home: Path, **memory) -> None:
    (hermes_home / "config.yaml").write_text(
        yaml.safe_dump({"memory": {"provider": "mnemosyne", **memory}}), encoding="utf-8"
    )


def run(manager: MemoryManager, tool: str, **args) -> dict:
    return json.loads(manager.handle_tool_call(tool, args))


def test_a_whole_session_through_hermes(hermes_home, notes):
    assert install_plugin(hermes_home, check_python=False)["state"] == "installed"
    configure(hermes_home, mnemosyne={"vault": str(notes.root)})

    assert ("mnemosyne", True) in [
        (n, ok) for n, _, ok in hermes_memory.discover_memory_providers()
    ]
    provider = hermes_memory.load_memory_provider("mnemosyne")
    assert provider is not None and provider.name == "mnemosyne" and provider.is_available()

    manager = MemoryManager()
    manager.add_provider(provider)
    assert [s["name"] for s in manager.get_all_tool_schemas()] == list(TOOL_NAMES)
    assert all(manager.has_tool(name) for name in TOOL_NAMES)
    manager.initialize_all(session_id="s-1", platform="cli", agent_context="primary")
    assert provider.memory.vault == notes.root.resolve()

    prompt = manager.build_system_prompt()
    assert "# Mnemosyne memory" in prompt and "mnemosyne_search" in prompt
    assert "Communication preferences (communication)" in prompt  # the digest

    recalled = manager.prefetch_all("how do I restore the database from the dump?")
    assert "[postgres-restore]" in recalled and "atlas_restore" in recalled
    assert sanitize_context(recalled) == recalled
    fenced = build_memory_context_block(recalled)
    assert fenced.startswith("<memory-context>") and recalled in fenced
    assert manager.prefetch_all("is there anything about kafka consumer lag?") == ""

    found = run(manager, "mnemosyne_search", query="row counts after a restore")
    assert found["hits"][0]["key"] == "postgres-restore"
    note = run(
        manager,
        "mnemosyne_get",
        key="postgres-restore",
        section="Restore into a scratch database first",
    )
    assert "pg_restore --jobs 4" in note["text"]
    saved = run(
        manager,
        "mnemosyne_remember",
        title="Kafka retention",
        body="Topics keep 7 days.",
        zone="ops",
        labels=["project:atlas"],
    )
    assert saved["path"] == "ops/kafka-retention.md"
    assert (notes.root / "ops" / "kafka-retention.md").is_file()
    failed = run(manager, "mnemosyne_get", key="no-such-note")
    assert failed["error_type"] == "NoteNotFoundError"

    # Hermes runs sync on its background worker; flush_pending is its own barrier.
    manager.sync_all("how do I restore?", "Restore into a scratch database first.")
    manager.queue_prefetch_all("and then?")
    assert manager.flush_pending(timeout=DRAIN_SECONDS)

    manager.notify_memory_tool_write(
        {"success": True}, {"action": "add", "target": "user", "content": "Prefers tabs."}
    )
    assert "Prefers tabs." in (notes.root / "hermes" / "hermes-user-profile.md").read_text(
        encoding="utf-8"
    )

    summary = manager.on_pre_compress(
        [{"role": "user", "content": "restore"}, {"role": "assistant", "content": "done"}]
    )
    assert "[kafka-retention] Kafka retention" in summary
    assert "[postgres-restore]" in summary and "mnemosyne_get" in summary

    manager.on_session_end([{"role": "user", "content": "bye"}])
    manager.shutdown_all()
    assert manager.shutdown_drain_state["abandoned_writes"] == 0
    assert provider.memory is None

    with VaultMemory(notes.root) as memory:
        assert memory.usage_of("postgres-restore")["accesses"] == 1  # read with mnemosyne_get
        assert memory.usage_of("communication")["accesses"] == 0


def test_the_default_vault_lives_in_hermes_home(hermes_home):
    install_plugin(hermes_home, check_python=False)
    configure(hermes_home)
    provider = hermes_memory.load_memory_provider("mnemosyne")
    manager = MemoryManager()
    manager.add_provider(provider)
    manager.initialize_all(session_id="s-1", platform="cli", agent_context="primary")
    vault = hermes_home / "mnemosyne" / "vault"
    assert provider.memory.vault == vault.resolve()
    run(manager, "mnemosyne_remember", title="First note", body="Hello.")
    manager.shutdown_all()
    assert (vault / "first-note.md").is_file()


def test_a_plugin_installed_under_another_name(hermes_home, notes):
    install_plugin(hermes_home, name="vault-notes", check_python=False)
    (hermes_home / "config.yaml").write_text(
        yaml.safe_dump(
            {"memory": {"provider": "vault-notes", "vault-notes": {"vault": str(notes.root)}}}
        ),
        encoding="utf-8",
    )
    provider = hermes_memory.load_memory_provider("vault-notes")
    assert provider.name == "vault-notes"
    provider.initialize("s-1", hermes_home=str(hermes_home))
    assert provider.memory.vault == notes.root.resolve()
    provider.shutdown()


def test_a_cron_agent_reads_but_does_not_write(hermes_home, notes):
    install_plugin(hermes_home, check_python=False)
    configure(hermes_home, mnemosyne={"vault": str(notes.root)})
    manager = MemoryManager()
    manager.add_provider(hermes_memory.load_memory_provider("mnemosyne"))
    manager.initialize_all(session_id="cron-1", platform="cron", agent_context="cron")
    assert "[postgres-restore]" in manager.prefetch_all("restore the database dump")
    refused = run(manager, "mnemosyne_remember", title="From cron", body="x")
    assert refused["error_type"] == "WriteRefusedError"
    run(manager, "mnemosyne_get", key="postgres-restore")
    manager.sync_all("restore", "see postgres-restore")
    manager.on_memory_write("add", "memory", "cron learned something")
    assert manager.flush_pending(timeout=DRAIN_SECONDS)
    manager.shutdown_all()
    assert not (notes.root / "from-cron.md").exists() and not (notes.root / "hermes").exists()
    with VaultMemory(notes.root) as memory:
        assert memory.usage_of("postgres-restore")["accesses"] == 0


def test_tool_names_never_shadow_hermes_core_tools():
    assert not set(TOOL_NAMES) & set(_HERMES_CORE_TOOLS)
    assert "memory" in _HERMES_CORE_TOOLS  # why the names carry a prefix


def test_entry_point_for_newer_hermes_versions():
    """Hermes after 0.19 reads the ``hermes_agent.memory_providers`` group; its loader takes
    a module with ``register(ctx)`` and may load the package folder by path."""
    points = importlib.metadata.entry_points(group="hermes_agent.memory_providers")
    ours = [ep for ep in points if ep.value == "birkin_mnemosyne.hermes_plugin"]
    assert [ep.name for ep in ours] == ["mnemosyne"], (
        "the entry point is missing from the installed metadata: run pip install -e ."
    )
    module = ours[0].load()
    collector = hermes_memory._ProviderCollector()
    module.register(collector)
    assert collector.provider.name == "mnemosyne"
    # Loaded by path from the package folder (as newer Hermes does for an entry point's
    # package), the plugin keeps its default name and absolute imports.
    by_path = hermes_memory._load_provider_from_dir(Path(package_plugin.__file__).parent)
    assert by_path is not None and by_path.name == "mnemosyne"
