"""The CLI's error surface: an unexpected failure is exit 4, never mistaken for 'not found'."""

from __future__ import annotations

import pytest

from birkin_mnemosyne.cli import main


def test_internal_error_exits_4_with_one_line(vault, capsys, monkeypatch):
    import birkin_mnemosyne.engine as engine_module

    vault.write("a.md", "# A\n\nzebra\n")

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(engine_module.Mnemosyne, "search_response", broken)
    assert main(["--vault", str(vault.root), "search", "zebra"]) == 4
    err = capsys.readouterr().err
    assert err.startswith("mnemosyne: internal error: RuntimeError: boom") and err.count("\n") == 1
    assert main(["-v", "--vault", str(vault.root), "search", "zebra"]) == 4
    assert "Traceback" in capsys.readouterr().err


def test_reindex_reports_an_unwritable_cache(vault, capsys, monkeypatch):
    import birkin_mnemosyne.index_store as store_module

    vault.write("a.md", "# A\n\nzebra\n")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(store_module, "write_block_file", refuse)
    assert main(["--vault", str(vault.root), "reindex"]) == 0
    assert "not cached" in capsys.readouterr().err


# The least each subcommand needs to get as far as opening the vault.
ARGUMENTS = {
    "search": ["x"],
    "latest": ["x"],
    "host-history": ["x"],
    "show": ["x"],
    "related": ["x"],
    "list": [],
    "recent": [],
    "status": [],
    "digest": [],
    "remember": ["Title", "--body", "x"],
    "append": ["x", "--body", "x"],
    "replace": ["x", "--expected-version", "0" * 64, "--body", "x"],
    "edit": ["x", "prepend", "--body", "x"],
    "forget": ["x"],
    "restore": ["x"],
    "rezone": ["x", "zone"],
    "move": ["x", "y"],
    "label": ["--label", "a:b"],
    "undo": ["--last"],
    "journal": [],
    "reindex": [],
    "import-chatgpt": ["{tmp}/conversations.json"],
    "import-obsidian": ["{tmp}/obsidian"],
    "index": ["check"],
    "startup": [],
    "handoff": ["latest", "--project", "p"],
    "eval": ["{tmp}/cases.yaml"],
    "curate": ["--plan", "{tmp}/plan.json"],
    "review": [],
    "capacity": [],
    "semantic": ["status"],
    "capture": ["{tmp}/session.jsonl"],
    "serve": [],
    "ingest": ["--index", "postgresql://nobody@127.0.0.1:1/none"],
}


# Commands that do not open an existing vault: init creates it, path only names it, hermes
# and claude install a plugin elsewhere; hook fails open (exit 0) by design — Claude Code
# reads exit 2 as "block" (tests/test_claude_hooks.py checks it).
NO_VAULT = {"init", "path", "hermes", "claude", "hook"}


def test_every_command_is_covered_here():
    from birkin_mnemosyne.cli.main import build_parser, subcommands

    assert set(subcommands(build_parser())) - NO_VAULT == set(ARGUMENTS)


@pytest.mark.parametrize("command", sorted(ARGUMENTS))
def test_a_missing_vault_is_exit_2_and_never_created(command, tmp_path, capsys):
    (tmp_path / "conversations.json").write_text("[]", encoding="utf-8")
    (tmp_path / "obsidian").mkdir()
    missing = tmp_path / "no-vault"
    argv = [command, *ARGUMENTS[command], "--vault", str(missing)]
    code = main([arg.replace("{tmp}", str(tmp_path)) for arg in argv])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("mnemosyne: error: ") and err.count("\n") == 1
    assert not missing.exists()


def test_usage_errors_are_one_line_with_exit_2(capsys):
    assert main(["search"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mnemosyne: error: the following arguments are required: query")
    assert "mnemosyne search --help" in err and err.count("\n") == 1
    assert main(["frobnicate"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_help_and_version_return_0_in_process(capsys):
    assert main(["--help"]) == 0
    assert "exit status:" in capsys.readouterr().out
    assert main(["undo", "--help"]) == 0
    assert "example" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("mnemosyne ")


def test_ambiguous_key_is_exit_2(vault, capsys):
    vault.write("a/Deploy.md", "# One\n")
    vault.write("b/deploy.md", "# Two\n")
    assert main(["--vault", str(vault.root), "show", "deploy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mnemosyne: error: 'deploy' names 2 notes") and err.count("\n") == 1


# -- fixes name CLI commands; --json errors are JSON on stderr --------------------------


def _json_error(err: str) -> dict:
    import json

    assert err.count("\n") == 1, err  # one line, nothing else on stderr
    data = json.loads(err)
    assert set(data) == {"error"}
    return data["error"]


def test_fixes_name_the_cli_commands(vault, cli):
    vault.write("ops/deploy.md", "# Deploy\n\nRun the deploy script.\n")
    v = ["--vault", vault.root]
    code, _, err = cli(*v, "show", "zzzz-nothing-like-it")
    assert code == 1
    assert err.rstrip().endswith("`mnemosyne list` or `mnemosyne search` shows the keys")
    code, _, err = cli(*v, "replace", "deploy", "--expected-version", "0" * 64, "--body", "x")
    assert code == 3 and "read it again with `mnemosyne show` and redo the change" in err
    assert "get_note" not in err


def test_a_stale_version_with_json_is_the_shared_error_shape(vault, cli):
    import json

    vault.write("ops/deploy.md", "# Deploy\n\nRun the deploy script.\n")
    v = ["--vault", vault.root]
    current = json.loads(cli(*v, "show", "deploy", "--json")[1])["version"]
    code, out, err = cli(
        *v, "replace", "deploy", "--expected-version", "0" * 64, "--body", "x", "--json"
    )
    assert code == 3 and out == ""
    error = _json_error(err)
    assert error["error_type"] == "VersionConflictError"
    assert error["current_version"] == current  # in full
    assert error["hint"] == "read it again with `mnemosyne show` and redo the change"
    assert error["operations"] == ["mnemosyne show"]
    assert error["message"].endswith(error["hint"]) and current in error["message"]


def test_json_errors_keep_the_exit_codes_and_carry_the_fields(vault, cli):
    vault.write("a/Deploy.md", "# One\n")
    vault.write("b/deploy.md", "# Two\n")
    v = ["--vault", vault.root]
    code, _, err = cli(*v, "show", "deploy", "--json")
    ambiguous = _json_error(err)
    assert code == 2 and ambiguous["error_type"] == "AmbiguousKeyError"
    assert sorted(ambiguous["candidates"]) == ["a/Deploy.md", "b/deploy.md"]
    code, _, err = cli(*v, "show", "zzzz-nothing-like-it", "--json")
    missing = _json_error(err)
    assert code == 1 and missing["error_type"] == "NoteNotFoundError"
    assert missing["candidates"] == [] and missing["operations"] == [
        "mnemosyne list",
        "mnemosyne search",
    ]
    code, _, err = cli(*v, "remember", "Deploy", "--zone", "a", "--body", "x", "--json")
    exists = _json_error(err)
    assert code == 3 and exists["error_type"] == "NoteExistsError" and exists["key"]
    assert "`mnemosyne append`" in exists["hint"]


def test_json_errors_for_a_missing_vault_a_bad_option_and_a_bug(vault, cli, tmp_path, monkeypatch):
    code, _, err = cli("--vault", tmp_path / "nowhere", "status", "--json")
    missing = _json_error(err)
    assert code == 2 and missing["error_type"] == "VaultNotFoundError"
    assert "mnemosyne init" in missing["message"]
    code, _, err = cli("--vault", vault.root, "search", "x", "--limit", "many", "--json")
    usage = _json_error(err)
    assert code == 2 and usage["error_type"] == "CommandError" and "--limit" in usage["message"]
    # Without --json the same mistakes stay one plain line.
    code, _, err = cli("--vault", vault.root, "search", "x", "--limit", "many")
    assert code == 2 and err.startswith("mnemosyne: error: ")

    import birkin_mnemosyne.engine as engine_module

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    vault.write("a.md", "# A\n\nzebra\n")
    monkeypatch.setattr(engine_module.Mnemosyne, "search_response", broken)
    code, _, err = cli("--vault", vault.root, "search", "zebra", "--json")
    bug = _json_error(err)
    assert code == 4 and bug["error_type"] == "internal" and "RuntimeError: boom" in bug["message"]
