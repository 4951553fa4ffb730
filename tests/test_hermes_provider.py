"""``MnemosyneMemoryProvider`` called directly: settings, vault location, tools, hooks.

The lifecycle through Hermes's own loader and ``MemoryManager`` is in
test_hermes_lifecycle.py. Both need hermes-agent (``pip install -e ".[hermes]"``).
"""

from __future__ import annotations

import json
import logging

import pytest

pytest.importorskip(
    "agent.memory_provider",
    reason='hermes-agent is not installed: pip install -e ".[hermes]"',
)

import yaml  # noqa: E402  (hermes-agent's dependency; present once the skip passed)
from agent.memory_manager import sanitize_context  # noqa: E402

from birkin_mnemosyne.engine import MAX_QUERY_CHARS  # noqa: E402
from birkin_mnemosyne.errors import ConfigError  # noqa: E402
from birkin_mnemosyne.hermes_plugin import MnemosyneMemoryProvider, register  # noqa: E402
from birkin_mnemosyne.hermes_plugin.settings import SETTINGS, parse_settings  # noqa: E402
from birkin_mnemosyne.hermes_plugin.tool_schemas import TOOL_NAMES  # noqa: E402
from birkin_mnemosyne.markdown import estimate_tokens  # noqa: E402
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402

RESTORE = """\
---
title: Restore PostgreSQL from the nightly dump
type: runbook
---
# Restore PostgreSQL from the nightly dump

## Restore into a scratch database first

Run pg_restore --jobs 4 into atlas_restore, then check the row counts.

## Swap the databases

Stop the API, rename atlas_restore to atlas, start the API again.
"""
DEPLOY = """\
# Roll back a release

Redeploy the previous image tag with the deploy script; watch the error rate.
"""


@pytest.fixture(autouse=True)
def _hermes_env(monkeypatch, tmp_path):
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))


@pytest.fixture
def hermes_home(tmp_path):
    return tmp_path / "hermes-home"


@pytest.fixture
def notes(vault):
    vault.write("runbooks/postgres-restore.md", RESTORE)
    vault.write("runbooks/deploy-rollback.md", DEPLOY)
    return vault


def start(hermes_home, vault_root=None, *, context="primary", **config) -> MnemosyneMemoryProvider:
    if vault_root is not None:
        config["vault"] = str(vault_root)
    provider = MnemosyneMemoryProvider(config=config)
    provider.initialize("session-1", hermes_home=str(hermes_home), agent_context=context)
    return provider


def call(provider, tool: str, **args) -> dict:
    result = provider.handle_tool_call(tool, args)
    assert isinstance(result, str)
    return json.loads(result)


# -- identity and settings ----------------------------------------------------------------


def test_contract_basics():
    provider = MnemosyneMemoryProvider()
    assert provider.name == "mnemosyne" and provider.is_available()
    assert [s["name"] for s in provider.get_tool_schemas()] == list(TOOL_NAMES)
    for schema in provider.get_tool_schemas():
        assert schema["name"].startswith("mnemosyne_")
        assert schema["parameters"]["type"] == "object"
        assert set(schema["parameters"]["required"]) <= set(schema["parameters"]["properties"])
    assert MnemosyneMemoryProvider(name="notes").name == "notes"


def test_register_hands_hermes_one_provider():
    class Context:
        provider = None

        def register_memory_provider(self, provider):
            self.provider = provider

    ctx = Context()
    register(ctx)
    assert isinstance(ctx.provider, MnemosyneMemoryProvider)
    assert ctx.provider.name == "mnemosyne"  # inside the package: the default name


def test_settings_defaults_and_wizard_strings():
    assert parse_settings(None) == {key: default for key, (default, _) in SETTINGS.items()}
    parsed = parse_settings(
        {"prefetch_limit": "5", "mirror_builtin": "false", "zone": "agents/hermes", "vault": ""}
    )
    assert parsed["prefetch_limit"] == 5 and parsed["mirror_builtin"] is False
    assert parsed["zone"] == "agents/hermes" and parsed["vault"] == ""


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"vualt": "~/notes"}, "unknown setting.*vualt.*valid settings: vault"),
        ({"prefetch_limit": -1}, "whole number"),
        ({"prefetch_budget": "lots"}, "whole number"),
        ({"mirror_builtin": "maybe"}, "true or false"),
        ({"vault": 3}, "must be text"),
        ({"zone": "../outside"}, "zone"),
        ("~/notes", "mapping"),
    ],
)
def test_invalid_settings_name_the_fix(raw, message):
    with pytest.raises(ConfigError, match=message):
        parse_settings(raw)


def test_config_schema_lists_every_setting():
    schema = MnemosyneMemoryProvider().get_config_schema()
    assert [field["key"] for field in schema] == list(SETTINGS)
    assert not any(field.get("secret") for field in schema)
    assert {"key": "mirror_builtin"}.items() <= schema[-1].items()
    assert schema[-1]["choices"] == ["true", "false"]


def test_save_config_writes_memory_section(hermes_home):
    (hermes_home / "config.yaml").write_text(
        "model:\n  default: some-model\nmemory:\n  provider: mnemosyne\n", encoding="utf-8"
    )
    provider = MnemosyneMemoryProvider()
    provider.save_config({"vault": "~/notes", "prefetch_limit": "4", "zone": ""}, str(hermes_home))
    data = yaml.safe_load((hermes_home / "config.yaml").read_text(encoding="utf-8"))
    assert data["model"] == {"default": "some-model"}
    assert data["memory"] == {
        "provider": "mnemosyne",
        "mnemosyne": {"vault": "~/notes", "prefetch_limit": 4},
    }
    assert provider.settings(hermes_home)["prefetch_limit"] == 4
    with pytest.raises(ConfigError):
        provider.save_config({"prefetch_limit": "many"}, str(hermes_home))


# -- where the vault is -------------------------------------------------------------------


def test_default_vault_is_made_under_hermes_home(hermes_home):
    provider = start(hermes_home)
    vault = hermes_home / "mnemosyne" / "vault"
    assert provider.problem == "" and provider.memory.vault == vault.resolve()
    assert vault.is_dir()
    assert "The vault is empty so far." in provider.system_prompt_block()
    assert provider.backup_paths() == []  # inside HERMES_HOME: `hermes backup` has it
    provider.shutdown()


def test_each_plugin_name_has_its_own_default_vault(hermes_home):
    provider = MnemosyneMemoryProvider(name="notes")
    provider.initialize("s", hermes_home=str(hermes_home))
    assert provider.memory.vault == (hermes_home / "notes" / "vault").resolve()
    provider.shutdown()


def test_vault_setting_wins_over_the_environment(hermes_home, notes, tmp_path, monkeypatch):
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setenv("MNEMOSYNE_VAULT", str(other))
    provider = start(hermes_home)
    assert provider.memory.vault == other.resolve()
    provider.shutdown()
    (hermes_home / "config.yaml").write_text(
        yaml.safe_dump({"memory": {"mnemosyne": {"vault": str(notes.root)}}}), encoding="utf-8"
    )
    provider = start(hermes_home)
    assert provider.memory.vault == notes.root.resolve()
    assert provider.backup_paths() == [str(notes.root.resolve())]
    provider.shutdown()
    assert not (hermes_home / "mnemosyne").exists()


def test_hermes_home_is_expanded_in_the_vault_setting(hermes_home):
    (hermes_home / "notes").mkdir()
    provider = start(hermes_home, vault="$HERMES_HOME/notes")
    assert provider.memory.vault == (hermes_home / "notes").resolve()
    provider.shutdown()


def test_a_missing_configured_vault_is_reported_not_created(hermes_home, tmp_path):
    warnings = []
    provider = MnemosyneMemoryProvider(config={"vault": str(tmp_path / "typo")})
    provider.initialize(
        "s", hermes_home=str(hermes_home), agent_context="primary", warning_callback=warnings.append
    )
    assert provider.memory is None and not (tmp_path / "typo").exists()
    [warning] = warnings
    assert "Mnemosyne memory is unavailable" in warning and "typo" in warning
    assert "Unavailable this session" in provider.system_prompt_block()
    assert provider.prefetch("anything") == ""
    error = call(provider, "mnemosyne_search", query="restore")
    assert error["error_type"] == "VaultNotFoundError" and "typo" in error["error"]
    assert provider.on_pre_compress([]) == ""
    provider.sync_turn("q", "a")  # nothing to do, and no exception


def test_an_invalid_config_file_is_reported(hermes_home):
    (hermes_home / "config.yaml").write_text(
        "memory:\n  mnemosyne:\n    prefetch: 3\n", encoding="utf-8"
    )
    provider = start(hermes_home)
    assert "unknown setting(s) prefetch" in provider.problem
    assert "prefetch_limit" in provider.problem


def test_only_a_primary_agent_creates_the_default_vault(hermes_home):
    provider = start(hermes_home, context="cron")
    assert provider.memory is None and "primary agent creates it" in provider.problem
    assert not (hermes_home / "mnemosyne").exists()


# -- tools --------------------------------------------------------------------------------


def test_search_returns_the_shared_search_shape(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    response = call(provider, "mnemosyne_search", query="restore the database dump")
    assert response["hits"][0]["key"] == "postgres-restore"
    assert set(response) >= {"query", "hits", "no_strong_match", "best_weak", "index"}
    narrowed = call(provider, "mnemosyne_search", query="restore", zone="runbooks", limit="1")
    assert len(narrowed["hits"]) == 1
    nothing = call(provider, "mnemosyne_search", query="kafka consumer lag")
    assert nothing["no_strong_match"] is True and nothing["hits"] == []
    exact = call(provider, "mnemosyne_search", query="atlas_restore", exact="true")
    assert [hit["key"] for hit in exact["hits"]] == ["postgres-restore"]
    provider.shutdown()


def test_get_reads_a_note_within_a_default_size(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    note = call(provider, "mnemosyne_get", key="postgres-restore")
    assert note["path"] == "runbooks/postgres-restore.md" and "pg_restore" in note["text"]
    part = call(provider, "mnemosyne_get", key="postgres-restore", section="Swap the databases")
    assert part["text"].lstrip().startswith("## Swap the databases")
    sliced = call(provider, "mnemosyne_get", key="postgres-restore", max_chars=20, offset="5")
    assert sliced["returned_chars"] == 20 and sliced["truncated"] is True
    provider.shutdown()


def test_remember_writes_a_note_with_this_session_as_source(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    done = call(provider, "mnemosyne_remember", title="Kafka retention", body="7 days.", zone="ops")
    assert done["path"] == "ops/kafka-retention.md" and done["created"] is True
    text = (notes.root / "ops" / "kafka-retention.md").read_text(encoding="utf-8")
    assert "hermes session session-1" in text and "7 days." in text
    more = call(
        provider, "mnemosyne_remember", title="kafka-retention", body="Not 3.", mode="append"
    )
    assert more["created"] is False and more["mode"] == "append"
    provider.shutdown()


def test_titles_name_notes_a_shared_title_lists_them_an_empty_body_is_refused(hermes_home, notes):
    notes.write("ops/rollback.md", "# Roll back a release\n\nthe other one\n")
    provider = start(hermes_home, notes.root)
    got = call(provider, "mnemosyne_get", key="restore postgresql from the nightly dump")
    assert got["path"] == "runbooks/postgres-restore.md"
    empty = call(provider, "mnemosyne_remember", title="Nothing", body="  ")
    assert empty["error_type"] == "InvalidInputError" and "the body is empty" in empty["error"]
    twice = call(provider, "mnemosyne_get", key="Roll back a release")
    assert twice["error_type"] == "AmbiguousKeyError"
    assert twice["candidates"] == ["ops/rollback.md", "runbooks/deploy-rollback.md"]
    provider.shutdown()


def test_library_errors_become_json_with_their_details(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    missing = call(provider, "mnemosyne_get", key="postgres-restor")
    assert missing["error_type"] == "NoteNotFoundError"
    assert missing["candidates"] == ["postgres-restore"] and "did you mean" in missing["error"]
    exists = call(
        provider, "mnemosyne_remember", title="Deploy rollback", body="x", zone="runbooks"
    )
    assert exists["error_type"] == "NoteExistsError"
    assert exists["key"] == "deploy-rollback" and len(exists["version"]) == 64
    stale = call(
        provider,
        "mnemosyne_remember",
        title="deploy-rollback",
        body="new",
        mode="replace",
        expected_version="0" * 64,
    )
    assert stale["error_type"] == "VersionConflictError" and len(stale["current_version"]) == 64
    assert stale["current_version"] == exists["version"] and exists["version"] in stale["message"]
    # The fix names this provider's own tools, never a Python function.
    assert stale["hint"] == "read it again with mnemosyne_get and redo the change"
    assert stale["operations"] == ["mnemosyne_get"] and stale["error"] == stale["message"]
    assert "mnemosyne_remember (mode='append')" in exists["hint"]
    bad = call(provider, "mnemosyne_search", query="restore", limit=0)
    assert bad["error_type"] == "InvalidInputError" and "limit" in bad["error"]
    nowhere = call(provider, "mnemosyne_get", key="zzzz-nothing-like-it")
    # No list tool here: the CLI command stands in, beside the provider's search tool.
    assert nowhere["hint"] == "`mnemosyne list` or mnemosyne_search shows the keys"
    assert "list_notes" not in nowhere["error"]
    provider.shutdown()


def test_malformed_calls_are_answered_not_raised(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    unknown_tool = call(provider, "memory", action="add")
    assert "mnemosyne_search" in unknown_tool["error"]
    missing = call(provider, "mnemosyne_get")
    assert "missing key" in missing["error"]
    extra = call(provider, "mnemosyne_search", query="x", top_k=3)
    assert "unknown argument(s) top_k" in extra["error"] and "limit" in extra["error"]
    assert "object" in json.loads(provider.handle_tool_call("mnemosyne_get", ["key"]))["error"]
    nulls = call(provider, "mnemosyne_search", query="restore", zone=None, limit=None)
    assert nulls["hits"]  # null arguments mean "not given"
    provider.shutdown()


def test_a_bug_becomes_an_internal_error_result(hermes_home, notes, monkeypatch):
    provider = start(hermes_home, notes.root)

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(provider.memory, "search_response", broken)
    result = call(provider, "mnemosyne_search", query="restore")
    assert result["error_type"] == "internal" and "RuntimeError: boom" in result["error"]
    provider.shutdown()


def test_non_primary_contexts_do_not_write(hermes_home, notes):
    provider = start(hermes_home, notes.root, context="subagent")
    assert "read-only" in provider.system_prompt_block()
    refused = call(provider, "mnemosyne_remember", title="Nope", body="x")
    assert refused["error_type"] == "WriteRefusedError" and "subagent" in refused["error"]
    assert call(provider, "mnemosyne_get", key="postgres-restore")["key"] == "postgres-restore"
    provider.on_memory_write("add", "user", "Likes tea.")
    provider.sync_turn("q", "see postgres-restore")
    provider.shutdown()
    assert not (notes.root / "nope.md").exists() and not (notes.root / "hermes").exists()
    with VaultMemory(notes.root) as memory:
        assert memory.usage_of("postgres-restore")["accesses"] == 0


# -- recall ---------------------------------------------------------------------------------


def test_prefetch_is_plain_compact_text(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    text = provider.prefetch("How do I restore the database from the dump?")
    assert "[postgres-restore] Restore PostgreSQL from the nightly dump" in text
    assert "runbooks/postgres-restore.md" in text and "atlas_restore" in text
    assert sanitize_context(text) == text  # not pre-wrapped: Hermes fences it itself
    assert "<memory-context>" not in text
    assert estimate_tokens(text) <= SETTINGS["prefetch_budget"][0]
    provider.shutdown()


def test_prefetch_says_nothing_without_a_strong_match(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    assert provider.prefetch("kafka consumer lag on the eu cluster") == ""
    assert provider.prefetch("   ") == ""
    assert provider.prefetch("restore " * MAX_QUERY_CHARS) != ""  # cut, not refused
    provider.shutdown()


def test_prefetch_keeps_within_its_budget(hermes_home, notes):
    provider = start(hermes_home, notes.root, prefetch_budget=60)
    text = provider.prefetch("restore the database dump")
    assert "[postgres-restore]" in text and estimate_tokens(text) <= 60
    assert "atlas_restore" not in text  # the snippet did not fit; the note's line did
    tiny = start(hermes_home, notes.root, prefetch_budget=10)
    assert tiny.prefetch("restore the database dump") == ""
    off = start(hermes_home, notes.root, prefetch_limit=0)
    assert off.prefetch("restore the database dump") == ""
    for each in (provider, tiny, off):
        each.shutdown()


def test_system_prompt_has_instructions_and_digest(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    block = provider.system_prompt_block()
    assert block.startswith("# Mnemosyne memory")
    for name in TOOL_NAMES:
        assert name in block
    assert "2 notes" in block and "# Memory digest" in block
    assert "Restore PostgreSQL from the nightly dump (postgres-restore)" in block
    quiet = start(hermes_home, notes.root, digest_budget=0)
    assert "# Memory digest" not in quiet.system_prompt_block()
    provider.shutdown()
    quiet.shutdown()


# -- after a turn -------------------------------------------------------------------------


def test_sync_turn_records_the_notes_the_turn_used(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    provider.prefetch("restore the database, or roll back the release?")
    call(provider, "mnemosyne_get", key="deploy-rollback")
    provider.sync_turn("q", "Roll back first.")
    provider.sync_turn("q", "Then follow postgres-restore to restore.")
    provider.sync_turn("q", "Nothing from the vault this time.")
    provider.shutdown()
    with VaultMemory(notes.root) as memory:
        assert memory.usage_of("deploy-rollback")["accesses"] == 1  # read in turn 1 only
        assert memory.usage_of("postgres-restore")["accesses"] == 1  # named in turn 2


def test_builtin_memory_writes_are_mirrored(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    provider.on_memory_write("add", "user", "Prefers short answers.")
    provider.on_memory_write(
        "replace", "user", "Prefers answers in Korean.", metadata={"old_text": "in English"}
    )
    provider.on_memory_write("remove", "memory", "db1 is the primary.")
    provider.on_memory_write("add", "memory", "   ")  # nothing to mirror
    provider.on_memory_write("staged", "memory", "ignored")
    profile = (notes.root / "hermes" / "hermes-user-profile.md").read_text(encoding="utf-8")
    assert "type: profile" in profile and "Prefers short answers." in profile
    assert "Prefers answers in Korean.\n\n(This replaces: in English)" in profile
    memory_note = (notes.root / "hermes" / "hermes-memory.md").read_text(encoding="utf-8")
    assert "No longer true (removed from Hermes's built-in memory): db1 is the primary." in (
        memory_note
    )
    assert "ignored" not in memory_note
    compressed = provider.on_pre_compress([])
    assert "[hermes-user-profile] Hermes user profile" in compressed
    provider.shutdown()


def test_mirroring_can_be_turned_off(hermes_home, notes):
    provider = start(hermes_home, notes.root, mirror_builtin=False)
    provider.on_memory_write("add", "user", "Prefers short answers.")
    provider.shutdown()
    assert not (notes.root / "hermes").exists()


def test_pre_compress_lists_written_read_and_recalled_notes(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    provider.prefetch("restore the database dump")
    call(provider, "mnemosyne_get", key="deploy-rollback")
    call(provider, "mnemosyne_remember", title="Kafka retention", body="7 days.")
    lines = provider.on_pre_compress([{"role": "user", "content": "hi"}]).splitlines()
    assert "keep their keys in the summary" in lines[0]
    assert lines[1:] == [
        "- [kafka-retention] Kafka retention (kafka-retention.md; written)",
        "- [deploy-rollback] Roll back a release (runbooks/deploy-rollback.md; read)",
        "- [postgres-restore] Restore PostgreSQL from the nightly dump "
        "(runbooks/postgres-restore.md; recalled)",
    ]
    provider.on_session_end([])
    assert provider.on_pre_compress([]) == ""
    provider.shutdown()


def test_pre_compress_falls_back_to_what_the_user_asked(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "the restore of the dump"}]},
        {"role": "assistant", "content": "Which database?"},
        {"role": "user", "content": "atlas, from the nightly dump"},
    ]
    text = provider.on_pre_compress(messages)
    assert "[postgres-restore]" in text and "related" in text
    assert provider.on_pre_compress([{"role": "user", "content": "kafka lag"}]) == ""
    provider.shutdown()


def test_session_switch_with_reset_forgets_the_bookkeeping(hermes_home, notes):
    provider = start(hermes_home, notes.root)
    provider.prefetch("restore the database dump")
    provider.on_session_switch("session-2", parent_session_id="session-1")
    assert "postgres-restore" in provider.on_pre_compress([])
    provider.on_session_switch("session-3", reset=True)
    assert provider.on_pre_compress([]) == ""
    call(provider, "mnemosyne_remember", title="New fact", body="x")
    assert "hermes session session-3" in (notes.root / "new-fact.md").read_text(encoding="utf-8")
    provider.shutdown()
    assert provider.memory is None and provider.prefetch("restore") == ""


def test_a_long_first_index_build_is_logged(hermes_home, notes, monkeypatch, caplog):
    # The first search builds the index: one line when it starts and one when it ends,
    # in the provider's log (MNEMOSYNE_PROGRESS_DELAY=0: even this small build counts).
    monkeypatch.setenv("MNEMOSYNE_PROGRESS_DELAY", "0")
    caplog.set_level(logging.INFO, logger="birkin_mnemosyne.hermes_plugin.provider")
    provider = start(hermes_home, notes.root)
    call(provider, "mnemosyne_search", query="restore")
    lines = [r.getMessage() for r in caplog.records if r.name.endswith("hermes_plugin.provider")]
    started = [line for line in lines if line.endswith("started") or ": started (" in line]
    done = [line for line in lines if ": done" in line]
    assert started and done, lines
