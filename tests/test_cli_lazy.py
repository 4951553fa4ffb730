"""The CLI imports only the module of the command it runs (``cli.main.COMMAND_MODULES``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from birkin_mnemosyne.cli.main import COMMAND_MODULES, _command_of, build_parser, subcommands


def test_the_table_names_every_command_of_every_module_in_help_order():
    listed = [(module, name) for module, names in COMMAND_MODULES for name in names]
    registered = [
        (parser.get_default("handler").__module__.rsplit(".", 1)[1], name)
        for name, parser in subcommands(build_parser()).items()
    ]
    assert listed == registered


@pytest.mark.parametrize("module,names", COMMAND_MODULES)
def test_one_command_builds_only_its_modules_commands(module, names):
    assert list(subcommands(build_parser(names[0]))) == list(names)


@pytest.mark.parametrize(
    "argv,command",
    [
        (["search", "x"], "search"),
        (["--vault", "/v", "-q", "hook", "SessionStart"], "hook"),
        (["--vault=/v", "--verbose", "path"], "path"),
        (["--help"], None),
        (["--version"], None),
        (["-vq", "search", "x"], None),
        ([], None),
        (["--vault"], None),
        (["serach", "x"], "serach"),
    ],
)
def test_the_command_is_read_from_the_global_options_before_it(argv, command):
    assert _command_of(argv) == command


PROBE = """
import json, sys
from birkin_mnemosyne.cli.main import main
code = main(sys.argv[1:])
print(json.dumps([code, sorted(m for m in sys.modules if m.endswith("_commands"))]))
"""


def _run(*argv: str, stdin: str = "") -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    code, modules = json.loads(done.stdout.splitlines()[-1])
    return code, modules, done.stderr


def test_a_search_and_a_hook_import_no_other_command_module(tmp_path):
    (tmp_path / "a.md").write_text("# Restore\n\nRestore the database.\n", encoding="utf-8")
    code, modules, _ = _run("--vault", str(tmp_path), "search", "restore")
    assert (code, modules) == (0, ["birkin_mnemosyne.cli.read_commands"])
    payload = json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "restore it"})
    code, modules, _ = _run("--vault", str(tmp_path), "hook", "UserPromptSubmit", stdin=payload)
    assert (code, modules) == (0, ["birkin_mnemosyne.cli.hook_commands"])


def test_an_unknown_command_still_gets_the_full_parsers_error(tmp_path):
    code, modules, err = _run("--vault", str(tmp_path), "serach", "x")
    assert code == 2
    assert "invalid choice: 'serach'" in err and "search" in err
    assert len(modules) == len(COMMAND_MODULES)
