"""``hermes_install`` and ``mnemosyne hermes install``: the plugin folder in $HERMES_HOME.

Standard library only: these run whether or not hermes-agent is installed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from pathlib import Path

import pytest

from birkin_mnemosyne import hermes_install
from birkin_mnemosyne.cli import hermes_commands
from birkin_mnemosyne.cli.common import CommandError
from birkin_mnemosyne.errors import InvalidInputError, WriteRefusedError
from birkin_mnemosyne.hermes_install import (
    default_hermes_home,
    hermes_python,
    install_plugin,
    plugin_files,
)

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_PLUGIN = ROOT / "birkin_mnemosyne" / "hermes_plugin"
NO_HERMES = lambda name: None  # noqa: E731 - a `which` that finds no `hermes` command


@pytest.fixture(autouse=True)
def _no_hermes_home(monkeypatch):
    monkeypatch.delenv("HERMES_HOME", raising=False)


@pytest.fixture
def home(tmp_path) -> Path:
    path = tmp_path / "hermes"
    path.mkdir()
    return path


def install(home: Path, **options) -> dict:
    return install_plugin(home, check_python=False, **options)


def test_plugin_files_are_the_packaged_files():
    files = plugin_files()
    assert list(files) == ["__init__.py", "plugin.yaml"]
    for name, data in files.items():
        assert data == (PACKAGE_PLUGIN / name).read_bytes()
    init = files["__init__.py"].decode()
    # Hermes's cheap scan for a memory provider folder reads the first 8 KiB.
    assert "register_memory_provider" in init[:8192] and "MemoryProvider" in init[:8192]
    manifest = files["plugin.yaml"].decode()
    assert "\nname: mnemosyne\n" in manifest and "\nkind: exclusive\n" in manifest
    # Listing pip_dependencies would make `hermes memory setup` install the unrelated
    # PyPI project that holds the name.
    assert "\npip_dependencies" not in manifest


def test_integrations_folder_is_the_same_plugin():
    """integrations/hermes/ can be copied by hand: the same bytes the installer writes."""
    for name, data in plugin_files().items():
        assert (ROOT / "integrations" / "hermes" / name).read_bytes() == data, name
    assert (ROOT / "integrations" / "hermes" / "README.md").is_file()


def test_plugin_yaml_takes_the_chosen_name():
    manifest = plugin_files("notes")["plugin.yaml"].decode()
    assert "\nname: notes\n" in manifest and "name: mnemosyne" not in manifest
    assert plugin_files("notes")["__init__.py"] == plugin_files()["__init__.py"]


def test_install_writes_the_plugin_folder(home):
    result = install(home)
    target = home / "plugins" / "mnemosyne"
    assert result == {
        "name": "mnemosyne",
        "hermes_home": str(home),
        "plugin_dir": str(target),
        "state": "installed",
        "files": ["__init__.py", "plugin.yaml"],
        "backup": None,
        "warnings": [],
        "next_steps": [
            f"HERMES_HOME={home} hermes config set memory.provider mnemosyne",
            f"HERMES_HOME={home} hermes memory status",
        ],
    }
    for name, data in plugin_files().items():
        assert (target / name).read_bytes() == data
    assert sorted(p.name for p in target.iterdir()) == ["__init__.py", "plugin.yaml"]


def test_install_again_changes_nothing(home):
    install(home)
    target = home / "plugins" / "mnemosyne" / "__init__.py"
    before = target.stat().st_mtime_ns
    assert install(home)["state"] == "unchanged"
    assert target.stat().st_mtime_ns == before


def test_an_earlier_install_is_updated_in_place(home):
    install(home)
    old = home / "plugins" / "mnemosyne" / "__init__.py"
    old.write_text("# birkin_mnemosyne.hermes_plugin, an older release\n", encoding="utf-8")
    (old.parent / "notes.txt").write_text("kept", encoding="utf-8")
    result = install(home)
    assert result["state"] == "updated" and result["backup"] is None
    assert old.read_bytes() == plugin_files()["__init__.py"]
    assert (old.parent / "notes.txt").read_text(encoding="utf-8") == "kept"


def test_another_plugin_of_that_name_is_refused(home):
    other = home / "plugins" / "mnemosyne"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("class OtherProvider: ...\n", encoding="utf-8")
    with pytest.raises(WriteRefusedError, match="--force"):
        install(home)
    assert (other / "__init__.py").read_text(encoding="utf-8") == "class OtherProvider: ...\n"
    assert sorted(p.name for p in (home / "plugins").iterdir()) == ["mnemosyne"]


def test_force_moves_the_other_plugin_aside(home):
    other = home / "plugins" / "mnemosyne"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("class OtherProvider: ...\n", encoding="utf-8")
    when = dt.datetime(2026, 3, 9, 14, 30, 5, tzinfo=dt.timezone.utc)
    result = install(home, force=True, now=when)
    backup = home / "plugins" / ".mnemosyne.replaced-20260309T143005Z"
    assert result["state"] == "replaced" and result["backup"] == str(backup)
    # A dot folder: Hermes's plugin scan skips it, so it is not offered as a provider.
    assert (backup / "__init__.py").read_text(encoding="utf-8") == "class OtherProvider: ...\n"
    assert (other / "__init__.py").read_bytes() == plugin_files()["__init__.py"]
    # A second replacement in the same second keeps both earlier folders.
    (other / "__init__.py").write_text("class Third: ...\n", encoding="utf-8")
    again = install(home, force=True, now=when)
    assert again["backup"] == str(backup) + "-2"
    assert (backup / "__init__.py").exists()


def test_a_file_in_the_way_is_refused(home):
    (home / "plugins").mkdir()
    (home / "plugins" / "mnemosyne").write_text("not a folder", encoding="utf-8")
    with pytest.raises(WriteRefusedError):
        install(home)


def test_install_under_another_name(home):
    result = install(home, name="birkin-notes")
    target = home / "plugins" / "birkin-notes"
    assert result["plugin_dir"] == str(target)
    assert "name: birkin-notes" in (target / "plugin.yaml").read_text(encoding="utf-8")
    assert "memory.provider birkin-notes" in result["next_steps"][0]


@pytest.mark.parametrize("name", ["", "Mnemosyne", "_hidden", ".dot", "a/b", "x" * 65, 3])
def test_names_hermes_would_skip_or_misread_are_refused(home, name):
    with pytest.raises(InvalidInputError, match="plugin name"):
        install(home, name=name)


@pytest.mark.parametrize("name", ["honcho", "holographic", "builtin"])
def test_names_of_bundled_providers_are_refused(home, name):
    with pytest.raises(InvalidInputError, match="bundled with Hermes"):
        install(home, name=name)


def test_a_missing_hermes_home_is_an_error(tmp_path):
    with pytest.raises(InvalidInputError, match="no Hermes home folder"):
        install(tmp_path / "absent")
    assert not (tmp_path / "absent").exists()


def test_default_hermes_home(monkeypatch, tmp_path):
    if sys.platform == "win32":
        pytest.skip("the default is under %LOCALAPPDATA% on Windows")
    assert default_hermes_home() == Path.home() / ".hermes"
    monkeypatch.setenv("HERMES_HOME", str(tmp_path))
    assert default_hermes_home() == tmp_path
    (tmp_path / "plugins").mkdir()
    result = install_plugin(check_python=False)
    assert result["plugin_dir"] == str(tmp_path / "plugins" / "mnemosyne")
    assert result["next_steps"][0] == "hermes config set memory.provider mnemosyne"


def _fake_hermes(tmp_path: Path, first_line: str) -> Path:
    script = tmp_path / "bin" / "hermes"
    script.parent.mkdir(exist_ok=True)
    script.write_text(f"{first_line}\nprint('hermes')\n", encoding="utf-8")
    return script


def test_hermes_python_reads_the_commands_interpreter(tmp_path):
    script = _fake_hermes(tmp_path, "#!/opt/hermes/venv/bin/python3 -s")
    assert hermes_python(lambda name: str(script)) == "/opt/hermes/venv/bin/python3"
    env = _fake_hermes(tmp_path, "#!/usr/bin/env python3")
    assert hermes_python(lambda name: str(env)) is None  # the launcher hides it
    shell = _fake_hermes(tmp_path, "#!/bin/sh")
    assert hermes_python(lambda name: str(shell)) is None
    assert hermes_python(NO_HERMES) is None
    assert hermes_python(lambda name: str(tmp_path / "gone")) is None


def test_install_warns_when_hermes_runs_a_python_without_the_library(home, tmp_path):
    missing = tmp_path / "no-such-venv" / "bin" / "python3"
    script = _fake_hermes(tmp_path, f"#!{missing}")
    result = install_plugin(home, which=lambda name: str(script))
    assert result["state"] == "installed"
    [warning] = result["warnings"]
    assert str(missing) in warning and "pip install -e" in warning


def test_install_is_quiet_when_hermes_runs_this_python(home, tmp_path):
    script = _fake_hermes(tmp_path, f"#!{sys.executable}")
    assert install_plugin(home, which=lambda name: str(script))["warnings"] == []
    assert install_plugin(home, which=NO_HERMES)["warnings"] == []


# -- the command line ------------------------------------------------------------------


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="mnemosyne")
    sub = parser.add_subparsers(dest="command")
    command = hermes_commands.register(sub)
    assert command.prog == "mnemosyne hermes"
    assert (hermes_commands.register,) == hermes_commands.REGISTER
    return parser.parse_args(argv)


@pytest.fixture
def no_hermes_on_path(monkeypatch):
    monkeypatch.setattr(hermes_install.shutil, "which", NO_HERMES)


def test_cli_install_prints_json(home, capsys, no_hermes_on_path):
    args = _parse(["hermes", "install", "--hermes-home", str(home), "--json"])
    assert args.handler(args) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["state"] == "installed"
    assert result["plugin_dir"] == str(home / "plugins" / "mnemosyne")


def test_cli_install_prints_the_next_steps(home, capsys, no_hermes_on_path):
    args = _parse(["hermes", "install", "--hermes-home", str(home), "--name", "notes"])
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"installed the notes memory provider in {home / 'plugins' / 'notes'}")
    assert f"HERMES_HOME={home} hermes config set memory.provider notes" in out
    args.handler(args)
    assert capsys.readouterr().out.startswith("already up to date: the notes memory provider")


def test_cli_force_reports_where_the_old_folder_went(home, capsys, no_hermes_on_path):
    (home / "plugins" / "mnemosyne").mkdir(parents=True)
    args = _parse(["hermes", "install", "--hermes-home", str(home)])
    with pytest.raises(WriteRefusedError):
        args.handler(args)
    args = _parse(["hermes", "install", "--hermes-home", str(home), "--force"])
    assert args.handler(args) == 0
    out = capsys.readouterr().out
    assert "the folder's previous contents are in" in out and ".mnemosyne.replaced-" in out


def test_cli_hermes_without_an_action_says_which(home):
    args = _parse(["hermes"])
    with pytest.raises(CommandError, match="install"):
        args.handler(args)


def test_cli_install_help_names_every_option(capsys):
    with pytest.raises(SystemExit):
        _parse(["hermes", "install", "--help"])
    out = capsys.readouterr().out
    for option in ("--hermes-home", "--name", "--force", "--json", "example"):
        assert option in out
