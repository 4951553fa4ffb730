"""``claude.install`` and ``mnemosyne claude``: hooks and the MCP server in Claude Code's
settings, the shipped plugin, and (when it can be found) the real ``claude`` binary.

HOME and the project are temporary folders passed explicitly; the real home is never
read or written (conftest's autouse fixture points HOME at a temporary folder too).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from birkin_mnemosyne import _version
from birkin_mnemosyne.claude import hooks as claude_hooks
from birkin_mnemosyne.claude import install as claude_install
from birkin_mnemosyne.claude.install import (
    HOOK_TABLE,
    PLUGIN_DIR,
    hook_command,
    hook_settings,
    install,
    plugin_hooks,
    server_entry,
    uninstall,
)
from birkin_mnemosyne.errors import InvalidInputError, WriteRefusedError

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = PLUGIN_DIR / "scripts" / "launch.py"
EVENTS = [spec.event for spec in HOOK_TABLE]

# Someone's settings before we arrive: other hooks (one on an event we use), other
# keys, unicode, numbers.
USER_SETTINGS = {
    "$schema": "https://json.schemastore.org/claude-code-settings.json",
    "permissions": {"allow": ["Bash(git status)"], "deny": []},
    "env": {"EDITOR": "vim", "NOTE": "café ☕"},
    "hooks": {
        "PreToolUse": [
            {
                "matcher": "Bash",
                "hooks": [{"type": "command", "command": "~/bin/guard.sh", "timeout": 3}],
            }
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    },
    "cleanupPeriodDays": 30,
}
USER_SERVERS = {
    "mcpServers": {
        "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"},
        "notes-by-hand": {"command": "mnemosyne-mcp", "args": ["--vault", "/srv/notes"]},
    }
}
# ~/.claude.json holds much of Claude Code's state besides mcpServers.
CLAUDE_STATE = {
    "numStartups": 12,
    "installMethod": "npm",
    "projects": {
        "/home/me/src/api": {
            "allowedTools": [],
            "mcpServers": {"local-one": {"type": "stdio", "command": "x", "args": []}},
            "hasTrustDialogAccepted": True,
        }
    },
    "mcpServers": {"github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/"}},
    "userID": "ab" * 32,
    "tipsHistory": {"new-user-warmup": 7},
}


@pytest.fixture(autouse=True)
def _no_claude_config_dir(monkeypatch):
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def home(tmp_path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def vault_dir(tmp_path) -> Path:
    path = tmp_path / "vault"
    path.mkdir()
    return path


def write_json(path: Path, data, *, indent=4) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False), encoding="utf-8")
    return path


def read_json(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def our_settings(vault=None) -> dict:
    return {"hooks": hook_settings(lambda event: hook_command(event, vault=vault))}


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: bytes and mtime."""
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def key_order(data) -> list:
    """Every object's keys in order, depth first: key order is part of "kept as it was"."""
    if isinstance(data, dict):
        return [list(data), *[key_order(v) for v in data.values()]]
    if isinstance(data, list):
        return [key_order(v) for v in data]
    return []


# --- the table, the plugin and the owner's hook runtime agree ------------------------


def test_the_table_registers_the_hook_runtimes_events_in_its_order():
    assert tuple(EVENTS) == claude_hooks.EVENTS
    assert len(set(EVENTS)) == len(EVENTS)


def test_each_timeout_leaves_the_hook_time_to_give_up_first():
    for spec in HOOK_TABLE:
        assert isinstance(spec.timeout, int) and spec.timeout > 0, spec
        assert claude_hooks.TIME_BUDGET_S[spec.event] < spec.timeout, spec


def test_the_table_is_what_the_task_asks_for():
    table = {spec.event: (spec.matcher, spec.timeout) for spec in HOOK_TABLE}
    assert table == {
        "SessionStart": ("startup|resume|clear|compact", 60),
        "UserPromptSubmit": (None, 10),
        "PreToolUse": ("Edit|Write|MultiEdit|NotebookEdit|Bash", 5),
        "PostToolUse": ("Bash", 5),
        "PostToolUseFailure": ("*", 5),
        "PreCompact": (None, 30),
        "SessionEnd": (None, 30),
    }


def test_plugin_hooks_json_is_the_table():
    shipped = read_json(PLUGIN_DIR / "hooks" / "hooks.json")
    assert shipped == plugin_hooks()
    for spec in HOOK_TABLE:
        (group,) = shipped["hooks"][spec.event]
        assert group.get("matcher") == spec.matcher
        (handler,) = group["hooks"]
        assert handler["timeout"] == spec.timeout
        assert handler["command"] == (
            f'python3 "${{CLAUDE_PLUGIN_ROOT}}/scripts/launch.py" hook {spec.event}'
        )


def test_plugin_manifest_version_is_the_packages():
    manifest = read_json(PLUGIN_DIR / ".claude-plugin" / "plugin.json")
    assert manifest["name"] == "mnemosyne"
    assert manifest["version"] == _version.__version__
    market = read_json(PLUGIN_DIR / ".claude-plugin" / "marketplace.json")
    (entry,) = market["plugins"]
    assert entry["name"] == "mnemosyne" and entry["source"] == "./"
    assert entry["version"] == _version.__version__
    assert market["name"] == "birkin-mnemosyne" and market["owner"]["name"]


def test_plugin_mcp_server_runs_the_launcher():
    servers = read_json(PLUGIN_DIR / ".mcp.json")["mcpServers"]
    assert servers == {
        "mnemosyne": {
            "command": "python3",
            "args": ["${CLAUDE_PLUGIN_ROOT}/scripts/launch.py", "mcp"],
        }
    }
    assert LAUNCHER.is_file()


def test_the_plugin_files_are_package_data():
    """pyproject.toml lists every file of the plugin folder, so a wheel carries them."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split('"birkin_mnemosyne.claude_plugin" = [', 1)[1].split("]", 1)[0]
    listed = set(re.findall(r'"([^"]+)"', block))
    shipped = {
        p.relative_to(PLUGIN_DIR).as_posix()
        for p in PLUGIN_DIR.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert listed == shipped


# --- the commands and entries written ---------------------------------------------------


def test_hook_command_runs_this_interpreter_quoted_for_a_shell(tmp_path):
    vault = tmp_path / "my notes" / "it's here"
    command = hook_command("SessionStart", python="/opt/py 3/bin/python", vault=vault)
    assert shlex.split(command) == [
        "/opt/py 3/bin/python",
        "-m",
        "birkin_mnemosyne",
        "--vault",
        str(vault),
        "hook",
        "SessionStart",
    ]
    assert shlex.split(hook_command("PreCompact")) == [
        os.path.abspath(sys.executable),
        "-m",
        "birkin_mnemosyne",
        "hook",
        "PreCompact",
    ]


def test_server_entry_prefers_the_mnemosyne_mcp_script_beside_python(tmp_path):
    bin_dir = tmp_path / "venv" / "bin"
    bin_dir.mkdir(parents=True)
    python = str(bin_dir / "python")
    assert server_entry(python=python) == {
        "type": "stdio",
        "command": python,
        "args": ["-m", "birkin_mnemosyne.mcp_main"],
    }
    (bin_dir / "mnemosyne-mcp").write_text("#!/bin/sh\n", encoding="utf-8")
    assert server_entry("/srv/notes", python=python) == {
        "type": "stdio",
        "command": str(bin_dir / "mnemosyne-mcp"),
        "args": ["--vault", "/srv/notes"],
    }


def test_mcp_main_runs_as_a_module():
    """The fallback command, ``python -m birkin_mnemosyne.mcp_main``, starts the server."""
    done = subprocess.run(
        [sys.executable, "-m", "birkin_mnemosyne.mcp_main", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and _version.__version__ in done.stdout


# --- project scope ----------------------------------------------------------------------


def test_project_install_writes_the_hooks_and_the_server(project, vault_dir):
    result = install("project", project_dir=project, vault=vault_dir)
    settings = project / ".claude" / "settings.json"
    servers = project / ".mcp.json"
    assert read_json(settings) == our_settings(vault_dir)
    assert read_json(servers) == {"mcpServers": {"mnemosyne": server_entry(vault_dir)}}
    assert result["action"] == "install" and result["scope"] == "project"
    assert result["state"] == "installed" and result["dry_run"] is False
    assert result["vault"] == str(vault_dir) and result["warnings"] == []
    first, second = result["files"]
    assert first["path"] == str(settings) and first["role"] == "hooks"
    assert first["state"] == "created"
    assert first["added"] == [f"hooks.{event}" for event in EVENTS]
    assert second == {
        "path": str(servers),
        "role": "mcp_servers",
        "state": "created",
        "added": ["mcpServers.mnemosyne"],
        "updated": [],
        "removed": [],
        "diff": second["diff"],
    }
    assert second["diff"].startswith(f"--- /dev/null\n+++ {servers}\n")
    assert settings.read_text(encoding="utf-8").endswith("}\n")
    assert "approve" in " ".join(result["next_steps"])


def test_install_again_changes_nothing(project, vault_dir):
    install("project", project_dir=project, vault=vault_dir)
    before = snapshot(project)
    result = install("project", project_dir=project, vault=vault_dir)
    assert result["state"] == "unchanged"
    assert [f["state"] for f in result["files"]] == ["unchanged", "unchanged"]
    assert all(f["diff"] == "" and not f["added"] and not f["updated"] for f in result["files"])
    assert snapshot(project) == before


def test_a_file_equal_in_meaning_is_not_reformatted(project, vault_dir):
    settings = write_json(project / ".claude" / "settings.json", our_settings(vault_dir), indent=8)
    before = settings.read_bytes()
    install("project", project_dir=project, vault=vault_dir)
    assert settings.read_bytes() == before


def test_another_vault_updates_our_entries_in_place(project, tmp_path):
    settings = write_json(project / ".claude" / "settings.json", USER_SETTINGS)
    write_json(project / ".mcp.json", USER_SERVERS)
    install("project", project_dir=project, vault=tmp_path / "old")
    result = install("project", project_dir=project, vault=tmp_path / "new")
    assert result["state"] == "updated"
    hooks_file, servers_file = result["files"]
    assert hooks_file["updated"] == [f"hooks.{event}" for event in EVENTS]
    assert hooks_file["added"] == [] and servers_file["updated"] == ["mcpServers.mnemosyne"]
    data = read_json(settings)
    # Ours stay after the user's own PreToolUse hook, now with the new vault.
    assert data["hooks"]["PreToolUse"][0] == USER_SETTINGS["hooks"]["PreToolUse"][0]
    command = data["hooks"]["PreToolUse"][1]["hooks"][0]["command"]
    assert str(tmp_path / "new") in command and str(tmp_path / "old") not in command
    assert len(data["hooks"]["PreToolUse"]) == 2
    servers = read_json(project / ".mcp.json")["mcpServers"]
    assert list(servers) == ["github", "notes-by-hand", "mnemosyne"]
    assert servers["mnemosyne"]["args"] == ["--vault", str(tmp_path / "new")]
    assert "-" + json.dumps(str(tmp_path / "old")) in servers_file["diff"].replace(" ", "")


def test_install_without_a_vault_leaves_the_lookup_to_run_time(project, vault_dir):
    install("project", project_dir=project, vault=vault_dir)
    result = install("project", project_dir=project)
    assert result["vault"] is None and result["state"] == "updated"
    data = read_json(project / ".claude" / "settings.json")
    for event in EVENTS:
        assert "--vault" not in data["hooks"][event][0]["hooks"][0]["command"]
    assert "--vault" not in read_json(project / ".mcp.json")["mcpServers"]["mnemosyne"]["args"]


def test_a_missing_vault_is_a_warning(project, tmp_path):
    result = install("project", project_dir=project, vault=tmp_path / "nowhere")
    assert result["state"] == "installed"
    (warning,) = result["warnings"]
    assert str(tmp_path / "nowhere") in warning and "init" in warning


def test_other_entries_are_kept_and_uninstall_restores_them(project, vault_dir):
    settings = write_json(project / ".claude" / "settings.json", USER_SETTINGS)
    servers = write_json(project / ".mcp.json", USER_SERVERS)
    install("project", project_dir=project, vault=vault_dir)
    data = read_json(settings)
    assert list(data) == list(USER_SETTINGS)  # our hooks join the existing "hooks" key
    assert list(data["hooks"]) == ["PreToolUse", "Stop", *[e for e in EVENTS if e != "PreToolUse"]]
    for key, value in USER_SETTINGS.items():
        if key != "hooks":
            assert data[key] == value
    assert data["hooks"]["Stop"] == USER_SETTINGS["hooks"]["Stop"]
    result = uninstall("project", project_dir=project)
    assert result["state"] == "removed"
    assert [f["state"] for f in result["files"]] == ["updated", "updated"]
    # In the file's order: PreToolUse was the user's first event.
    assert sorted(result["files"][0]["removed"]) == sorted(f"hooks.{e}" for e in EVENTS)
    assert read_json(settings) == USER_SETTINGS
    assert key_order(read_json(settings)) == key_order(USER_SETTINGS)
    assert read_json(servers) == USER_SERVERS
    assert key_order(read_json(servers)) == key_order(USER_SERVERS)


def test_uninstall_removes_the_files_install_created(project, vault_dir):
    install("project", project_dir=project, vault=vault_dir)
    result = uninstall("project", project_dir=project)
    assert [f["state"] for f in result["files"]] == ["deleted", "deleted"]
    assert result["files"][0]["diff"].splitlines()[1] == "+++ /dev/null"
    assert list(project.iterdir()) == []  # .claude/ too: it held only our file
    again = uninstall("project", project_dir=project)
    assert again["state"] == "unchanged" and again["next_steps"] == []


def test_uninstall_leaves_a_users_own_mnemosyne_hook_alone(project, vault_dir):
    own = {
        "hooks": {
            "SessionStart": [
                {"hooks": [{"type": "command", "command": "mnemosyne hook SessionStart"}]}
            ],
            "PreToolUse": [
                {
                    "matcher": "Edit",
                    "hooks": [
                        {"type": "command", "command": "mnemosyne --vault ~/n hook PreToolUse"},
                        # ours, added to the user's group by hand: only it goes
                        {"type": "command", "command": hook_command("PreToolUse")},
                    ],
                }
            ],
            # "hook SessionEnd" under another event is not our handler for that event
            "Stop": [{"hooks": [{"type": "command", "command": hook_command("SessionEnd")}]}],
        }
    }
    settings = write_json(project / ".claude" / "settings.json", own)
    install("project", project_dir=project, vault=vault_dir)
    data = read_json(settings)
    assert data["hooks"]["SessionStart"][0] == own["hooks"]["SessionStart"][0]
    assert len(data["hooks"]["SessionStart"]) == 2
    # Our handler in the user's group was updated there, not added a second time.
    assert len(data["hooks"]["PreToolUse"]) == 1
    assert data["hooks"]["PreToolUse"][0]["matcher"] == "Edit"
    assert "--vault" in data["hooks"]["PreToolUse"][0]["hooks"][1]["command"]
    uninstall("project", project_dir=project)
    data = read_json(settings)
    assert data["hooks"]["SessionStart"] == own["hooks"]["SessionStart"]
    assert data["hooks"]["PreToolUse"] == [
        {"matcher": "Edit", "hooks": [own["hooks"]["PreToolUse"][0]["hooks"][0]]}
    ]
    assert data["hooks"]["Stop"] == own["hooks"]["Stop"]


def test_an_empty_list_the_user_had_is_kept(project):
    before = {"hooks": {"SessionEnd": [], "Stop": []}, "model": "opus"}
    settings = write_json(project / ".claude" / "settings.json", before)
    install("project", project_dir=project)
    uninstall("project", project_dir=project)
    # SessionEnd held only ours after install; emptied by our removal, it goes.
    assert read_json(settings) == {"hooks": {"Stop": []}, "model": "opus"}


def test_duplicates_of_ours_collapse_to_one(project):
    twice = {"hooks": {"SessionEnd": [_ours("SessionEnd"), _ours("SessionEnd")]}}
    settings = write_json(project / ".claude" / "settings.json", twice)
    result = install("project", project_dir=project)
    assert result["files"][0]["updated"] == ["hooks.SessionEnd"]
    assert read_json(settings)["hooks"]["SessionEnd"] == our_settings()["hooks"]["SessionEnd"]


def _ours(event: str) -> dict:
    return {"hooks": [{"type": "command", "command": hook_command(event), "timeout": 1}]}


def test_keys_the_user_added_to_our_entries_are_kept(project, vault_dir):
    install("project", project_dir=project, vault=vault_dir)
    servers = project / ".mcp.json"
    data = read_json(servers)
    data["mcpServers"]["mnemosyne"]["env"] = {"MNEMOSYNE_MCP_TOOLS": "full"}
    write_json(servers, data)
    install("project", project_dir=project, vault=vault_dir / "other")
    entry = read_json(servers)["mcpServers"]["mnemosyne"]
    assert entry["env"] == {"MNEMOSYNE_MCP_TOOLS": "full"}
    assert entry["args"] == ["--vault", str(vault_dir / "other")]


def test_dry_run_writes_nothing_and_shows_the_diff(project, vault_dir):
    write_json(project / ".mcp.json", USER_SERVERS)
    before = snapshot(project)
    result = install("project", project_dir=project, vault=vault_dir, dry_run=True)
    assert snapshot(project) == before
    assert not (project / ".claude").exists()
    assert result["dry_run"] is True and result["state"] == "installed"
    hooks_file, servers_file = result["files"]
    assert hooks_file["state"] == "created" and servers_file["state"] == "updated"
    assert servers_file["added"] == ["mcpServers.mnemosyne"]
    assert f"+++ {project / '.mcp.json'}" in servers_file["diff"]
    assert '+    "mnemosyne": {' in servers_file["diff"]
    assert '"github"' in servers_file["diff"]  # context lines
    install("project", project_dir=project, vault=vault_dir)
    before = snapshot(project)
    result = uninstall("project", project_dir=project, dry_run=True)
    assert snapshot(project) == before
    assert [f["state"] for f in result["files"]] == ["deleted", "updated"]
    assert '-    "mnemosyne": {' in result["files"][1]["diff"]


@pytest.mark.parametrize(
    ("name", "text", "said"),
    [
        ("settings", "{ this is not json", "is not valid JSON"),
        ("settings", "[1, 2]", "holds a JSON array, not an object"),
        ("settings", '{"hooks": []}', "'hooks' is a JSON array, not an object"),
        ("settings", '{"hooks": {"SessionStart": {}}}', "hooks.SessionStart is a JSON object"),
        ("servers", '{"mcpServers": "none"}', "'mcpServers' is a JSON string"),
        ("servers", '{"mcpServers": {},}', "is not valid JSON"),
    ],
)
def test_a_broken_file_is_refused_and_nothing_is_written(project, name, text, said):
    path = project / (".claude/settings.json" if name == "settings" else ".mcp.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    before = snapshot(project)
    with pytest.raises(InvalidInputError) as caught:
        install("project", project_dir=project)
    assert str(path) in str(caught.value) and said in str(caught.value)
    assert "nothing was changed" in str(caught.value)
    assert snapshot(project) == before  # neither file written, nor the other created


def test_uninstall_refuses_a_broken_file_too(project):
    path = write_json(project / ".mcp.json", USER_SERVERS)
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text('{"hooks": 3}', encoding="utf-8")
    before = snapshot(project)
    with pytest.raises(InvalidInputError, match="settings.json"):
        uninstall("project", project_dir=project)
    assert snapshot(project) == before and path.exists()


def test_a_server_of_that_name_that_is_not_ours_is_refused(project):
    theirs = {"mcpServers": {"mnemosyne": {"command": "npx", "args": ["other-memory"]}}}
    write_json(project / ".mcp.json", theirs)
    before = snapshot(project)
    with pytest.raises(WriteRefusedError, match="already has an MCP server named 'mnemosyne'"):
        install("project", project_dir=project)
    assert snapshot(project) == before
    uninstall("project", project_dir=project)
    assert read_json(project / ".mcp.json") == theirs


def test_a_files_mode_is_kept_and_new_files_get_the_usual_one(project):
    settings = write_json(project / ".claude" / "settings.json", USER_SETTINGS)
    settings.chmod(0o640)
    install("project", project_dir=project)
    assert stat.S_IMODE(settings.stat().st_mode) == 0o640
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE((project / ".mcp.json").stat().st_mode) == 0o666 & ~mask


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_a_symlinked_settings_file_is_written_through(project, tmp_path):
    dotfiles = write_json(tmp_path / "dotfiles" / "settings.json", USER_SETTINGS)
    link = project / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    install("project", project_dir=project)
    assert link.is_symlink() and "SessionStart" in read_json(dotfiles)["hooks"]
    uninstall("project", project_dir=project)
    assert link.is_symlink() and read_json(dotfiles) == USER_SETTINGS


def test_a_missing_project_folder_is_refused(tmp_path):
    with pytest.raises(InvalidInputError, match="no project folder"):
        install("project", project_dir=tmp_path / "nope")
    with pytest.raises(InvalidInputError, match="one of project, user"):
        install("global")


# --- user scope -------------------------------------------------------------------------


def test_user_scope_round_trip_keeps_claude_codes_state(home, vault_dir):
    state_file = write_json(home / ".claude.json", CLAUDE_STATE, indent=2)
    result = install("user", home=home, vault=vault_dir)
    settings = home / ".claude" / "settings.json"
    assert [f["path"] for f in result["files"]] == [str(settings), str(state_file)]
    assert [f["state"] for f in result["files"]] == ["created", "updated"]
    data = read_json(state_file)
    expected = json.loads(json.dumps(CLAUDE_STATE))
    expected["mcpServers"]["mnemosyne"] = server_entry(vault_dir)
    assert data == expected and key_order(data) == key_order(expected)
    # The project's own servers inside ~/.claude.json are not ours to touch.
    assert data["projects"] == CLAUDE_STATE["projects"]
    assert read_json(settings) == our_settings(vault_dir)
    assert "restart Claude Code" in result["next_steps"][0]
    assert install("user", home=home, vault=vault_dir)["state"] == "unchanged"
    result = uninstall("user", home=home)
    assert [f["state"] for f in result["files"]] == ["deleted", "updated"]
    assert read_json(state_file) == CLAUDE_STATE
    assert key_order(read_json(state_file)) == key_order(CLAUDE_STATE)
    assert not settings.exists()


def test_a_claude_json_without_trailing_newline_keeps_none(home):
    state_file = home / ".claude.json"
    state_file.write_text(json.dumps({"numStartups": 1}, indent=2), encoding="utf-8")
    install("user", home=home)
    assert not state_file.read_text(encoding="utf-8").endswith("\n")


def test_claude_json_is_kept_even_when_emptied(home):
    install("user", home=home)
    state_file = home / ".claude.json"
    assert stat.S_IMODE(state_file.stat().st_mode) == 0o600
    result = uninstall("user", home=home)
    assert result["files"][1]["state"] == "updated"
    assert read_json(state_file) == {}


def test_user_scope_follows_claude_config_dir(monkeypatch, tmp_path):
    config = tmp_path / "claude-config"
    config.mkdir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    result = install("user")
    assert [f["path"] for f in result["files"]] == [
        str(config / "settings.json"),
        str(config / ".claude.json"),
    ]
    assert (config / ".claude.json").is_file()


def test_user_scope_defaults_to_the_home_folder():
    home = Path.home()  # conftest's temporary HOME
    install("user")
    assert "mnemosyne" in read_json(home / ".claude.json")["mcpServers"]
    assert (home / ".claude" / "settings.json").is_file()


# --- the command line -------------------------------------------------------------------


def test_cli_install_prints_a_summary(cli, project, vault_dir):
    code, out, err = cli("claude", "install", "--project-dir", project, "--vault", vault_dir)
    assert code == 0, err
    assert out.startswith("installed the mnemosyne hooks and MCP server (project scope)\n")
    assert f"created {project / '.mcp.json'}: +mcpServers.mnemosyne" in out
    assert "next:" in out and err == ""
    code, out, _ = cli("claude", "install", "--project-dir", project, "--vault", vault_dir)
    assert code == 0 and out.startswith("already up to date:")


def test_cli_install_json_shape(cli, project, vault_dir):
    code, out, _ = cli(
        "--vault", vault_dir, "claude", "install", "--project-dir", project, "--json"
    )
    assert code == 0
    result = json.loads(out)
    assert set(result) == {
        "action",
        "scope",
        "state",
        "dry_run",
        "vault",
        "files",
        "warnings",
        "next_steps",
    }
    assert result["vault"] == str(vault_dir) and result["state"] == "installed"
    assert {f["state"] for f in result["files"]} == {"created"}


def test_cli_project_is_the_current_folder_by_default(cli, project, monkeypatch):
    monkeypatch.chdir(project)
    code, out, err = cli("claude", "install")
    assert code == 0, err
    assert (project / ".claude" / "settings.json").is_file() and (project / ".mcp.json").is_file()


def test_cli_records_no_vault_unless_one_is_given(cli, project, vault_dir, monkeypatch):
    monkeypatch.setenv("MNEMOSYNE_VAULT", str(vault_dir))
    code, out, _ = cli("claude", "install", "--project-dir", project, "--json")
    assert code == 0 and json.loads(out)["vault"] is None
    other = vault_dir.parent / "other"
    code, out, _ = cli("claude", "--vault", other, "install", "--project-dir", project, "--json")
    assert code == 0 and json.loads(out)["vault"] == str(other)


def test_cli_dry_run_prints_the_diff_and_writes_nothing(cli, project, vault_dir):
    code, out, _ = cli(
        "claude", "install", "--project-dir", project, "--dry-run", "--vault", vault_dir
    )
    assert code == 0
    assert out.startswith("dry run of install (project scope), nothing written:\n")
    assert f"would create {project / '.claude' / 'settings.json'}" in out
    assert f"+++ {project / '.mcp.json'}" in out and "hook SessionStart" in out
    assert list(project.iterdir()) == []


def test_cli_uninstall(cli, project):
    cli("claude", "install", "--project-dir", project)
    code, out, _ = cli("claude", "uninstall", "--project-dir", project)
    assert code == 0 and out.startswith("removed the mnemosyne hooks and MCP server")
    assert f"deleted {project / '.mcp.json'}: -mcpServers.mnemosyne" in out
    code, out, _ = cli("claude", "uninstall", "--project-dir", project, "--json")
    assert code == 0 and json.loads(out)["state"] == "unchanged"


def test_cli_user_scope_uses_the_home_folder(cli):
    code, out, err = cli("claude", "install", "--user")
    assert code == 0, err
    assert "mnemosyne" in read_json(Path.home() / ".claude.json")["mcpServers"]
    code, _, _ = cli("claude", "uninstall", "--user")
    assert code == 0 and "mcpServers" not in read_json(Path.home() / ".claude.json")


def test_cli_errors_and_exit_codes(cli, project):
    (project / ".mcp.json").write_text("{oops", encoding="utf-8")
    code, out, err = cli("claude", "install", "--project-dir", project)
    assert code == 2 and out == ""
    assert err.startswith("mnemosyne: error: ") and err.count("\n") == 1
    assert str(project / ".mcp.json") in err
    code, _, err = cli("claude", "install", "--project-dir", project, "--json")
    assert code == 2 and json.loads(err)["error"]["error_type"] == "InvalidInputError"
    write_json(project / ".mcp.json", {"mcpServers": {"mnemosyne": {"command": "npx"}}})
    code, _, err = cli("claude", "install", "--project-dir", project)
    assert code == 3 and "already has an MCP server" in err
    code, _, err = cli("claude", "install", "--project-dir", project, "--user")
    assert code == 2 and "not allowed with argument" in err
    code, _, err = cli("claude")
    assert code == 2 and "choose an action" in err


def test_cli_plugin_path(cli):
    code, out, _ = cli("claude", "plugin-path")
    assert code == 0 and out == f"{PLUGIN_DIR}\n"
    assert (Path(out.strip()) / ".claude-plugin" / "plugin.json").is_file()
    code, out, _ = cli("claude", "plugin-path", "--json")
    assert json.loads(out) == {"plugin_dir": str(PLUGIN_DIR), "marketplace": "birkin-mnemosyne"}


# --- the plugin's launcher --------------------------------------------------------------


def _launch(launcher: Path, *argv: str, stdin: str = "{}", isolated: bool = True):
    # -S: no site-packages, so birkin_mnemosyne is importable only from where the
    # launcher finds it itself.
    flags = ["-S"] if isolated else []
    return subprocess.run(
        [sys.executable, *flags, str(launcher), *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=launcher.parent,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )


def test_launcher_fails_open_when_the_library_cannot_be_imported(tmp_path):
    copy = tmp_path / "plugin"
    shutil.copytree(PLUGIN_DIR, copy)
    done = _launch(copy / "scripts" / "launch.py", "hook", "SessionStart")
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "cannot import birkin_mnemosyne" in done.stderr and "pip install" in done.stderr
    server = _launch(copy / "scripts" / "launch.py", "mcp")
    assert server.returncode == 2 and "cannot import birkin_mnemosyne" in server.stderr
    # Bad arguments: a hook still fails open, anything else is a usage error.
    assert _launch(copy / "scripts" / "launch.py", "hook").returncode == 0
    assert _launch(copy / "scripts" / "launch.py").returncode == 2


def test_launcher_finds_the_package_it_sits_in(tmp_path):
    """Inside the package, the launcher imports it even without site-packages: a hook
    with a missing vault runs and fails open (exit 0, nothing on stdout)."""
    env_vault = tmp_path / "no-vault"
    done = subprocess.run(
        [sys.executable, "-S", str(LAUNCHER), "hook", "UserPromptSubmit"],
        input=json.dumps({"hook_event_name": "UserPromptSubmit", "prompt": "hello there"}),
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "MNEMOSYNE_VAULT": str(env_vault)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert "cannot import birkin_mnemosyne" not in done.stderr
    assert not env_vault.exists()


# --- the real Claude Code ---------------------------------------------------------------


def _claude_binary() -> str | None:
    given = os.environ.get("MNEMOSYNE_CLAUDE_BIN", "").strip()
    if given:
        return given if os.path.isfile(given) else None
    return shutil.which("claude")


def _claude_env(home: Path) -> dict[str, str]:
    """HOME a temporary folder, no credentials, no update checks or telemetry."""
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "USERPROFILE": str(home),
        "LANG": os.environ.get("LANG", "C.UTF-8"),
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
    }


# A first run of Claude Code or an MCP health check can be slow on a cold machine.
CLAUDE_TIMEOUT = 300


def _run(argv, *, env, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=CLAUDE_TIMEOUT, env=env, cwd=cwd
    )


@pytest.fixture
def claude_bin() -> str:
    binary = _claude_binary()
    if binary is None:
        pytest.skip(
            "no Claude Code CLI: set MNEMOSYNE_CLAUDE_BIN or put `claude` on PATH "
            "(npm install @anthropic-ai/claude-code@2.1.197; .ci/run does)"
        )
    return binary


@pytest.fixture
def claude_home(tmp_path, vault_dir) -> Path:
    home = tmp_path / "claude-home"
    home.mkdir()
    (vault_dir / "restore.md").write_text(
        "# Restore the database\n\nUse pg_restore from last night's dump.\n", encoding="utf-8"
    )
    return home


def _install_user(home: Path, vault: Path) -> None:
    env = {**os.environ, "HOME": str(home), "USERPROFILE": str(home)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    done = _run(
        [sys.executable, "-m", "birkin_mnemosyne", "claude", "install", "--user"]
        + ["--vault", str(vault)],
        env=env,
        cwd=home,
    )
    assert done.returncode == 0, done.stderr
    assert (home / ".claude.json").is_file()


def test_real_claude_lists_the_installed_server(claude_bin, claude_home, vault_dir):
    if importlib.util.find_spec("mcp") is None:
        pytest.skip('the MCP server needs the mcp extra: pip install -e ".[mcp]"')
    _install_user(claude_home, vault_dir)
    env = _claude_env(claude_home)
    listed = _run([claude_bin, "mcp", "list"], env=env, cwd=claude_home)
    assert listed.returncode == 0, listed.stderr
    line = next((s for s in listed.stdout.splitlines() if s.startswith("mnemosyne:")), "")
    assert str(vault_dir) in line, listed.stdout
    assert "Connected" in line, listed.stdout + listed.stderr


def test_real_claude_runs_the_installed_hooks(claude_bin, claude_home, vault_dir, tmp_path):
    """Claude Code runs SessionStart and UserPromptSubmit before it needs an account, so
    an offline `claude -p` shows that it reads our settings and runs our hooks."""
    _install_user(claude_home, vault_dir)
    project = tmp_path / "work"
    project.mkdir()
    log = tmp_path / "claude-debug.log"
    _run(
        [claude_bin, "-p", "how do I restore the database?", "--debug-file", str(log)],
        env=_claude_env(claude_home),
        cwd=project,
    )
    text = log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""
    assert re.search(r"Hook SessionStart\S* \(SessionStart\) success", text), text[-3000:]
    assert re.search(
        rf"{re.escape(str(vault_dir))} hook SessionEnd\] completed with status 0", text
    ), text[-3000:]


def test_real_claude_validates_and_installs_the_plugin(claude_bin, tmp_path):
    home = tmp_path / "claude-home"
    home.mkdir()
    env = _claude_env(home)
    help_text = _run([claude_bin, "plugin", "--help"], env=env, cwd=home).stdout
    if "validate" not in help_text:
        pytest.skip("this claude has no `plugin validate`")
    for target in (PLUGIN_DIR, PLUGIN_DIR / ".claude-plugin" / "plugin.json"):
        done = _run([claude_bin, "plugin", "validate", str(target)], env=env, cwd=home)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "Validation passed" in done.stdout, done.stdout
    added = _run([claude_bin, "plugin", "marketplace", "add", str(PLUGIN_DIR)], env=env, cwd=home)
    assert added.returncode == 0, added.stdout + added.stderr
    done = _run([claude_bin, "plugin", "install", "mnemosyne@birkin-mnemosyne"], env=env, cwd=home)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = _run([claude_bin, "plugin", "list"], env=env, cwd=home)
    assert "mnemosyne@birkin-mnemosyne" in listed.stdout, listed.stdout
    assert _version.__version__ in listed.stdout


def test_the_module_documents_its_table():
    """The docstring's file table names the files install writes."""
    doc = claude_install.__doc__
    for name in ("<project>/.claude/settings.json", "<project>/.mcp.json", "~/.claude.json"):
        assert name in doc
