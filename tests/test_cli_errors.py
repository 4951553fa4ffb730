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
    "status": [],
    "digest": [],
    "remember": ["Title", "--body", "x"],
    "append": ["x", "--body", "x"],
    "replace": ["x", "--expected-version", "0" * 64, "--body", "x"],
    "forget": ["x"],
    "restore": ["x"],
    "rezone": ["x", "zone"],
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
}


# Commands that do not open an existing vault: init creates it, path only names it, hermes
# installs a plugin elsewhere.
NO_VAULT = {"init", "path", "hermes"}


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
