"""``mnemosyne-mcp`` start-up: options, vault, token and extra checks (no server runs)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import birkin_mnemosyne
from birkin_mnemosyne import mcp_main
from birkin_mnemosyne.mcp_main import is_loopback, main, parse_address

ROOT = Path(__file__).resolve().parent.parent
GOOD_TOKEN = "s3cr3t-t0ken-0123456789"


def test_pyproject_declares_the_console_script():
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    scripts = pyproject.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    assert re.search(r'^mnemosyne-mcp = "birkin_mnemosyne\.mcp_main:main"$', scripts, re.M)


def test_the_launcher_imports_only_the_standard_library():
    code = (
        "import sys, birkin_mnemosyne.mcp_main\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'mcp', 'pydantic', 'anyio'}))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_a_missing_extra_names_the_pip_command(vault, monkeypatch, capsys):
    # Hide the SDK (installed or not): a None entry makes every import of it fail.
    for name in [m for m in sys.modules if m == "mcp" or m.startswith("mcp.")] + ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.delitem(sys.modules, "birkin_mnemosyne.mcp_server", raising=False)
    # ``from . import mcp_server`` takes the package attribute when it exists
    monkeypatch.delattr(birkin_mnemosyne, "mcp_server", raising=False)
    assert main(["--vault", str(vault.root)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert 'pip install "birkin-mnemosyne[mcp]"' in err
    assert err.startswith("mnemosyne-mcp: error:") and err.count("\n") == 1


def test_a_missing_vault_is_exit_2(tmp_path, monkeypatch, capsys):
    assert main(["--vault", str(tmp_path / "nope")]) == 2
    assert "vault not found" in capsys.readouterr().err
    monkeypatch.setenv("MNEMOSYNE_VAULT", str(tmp_path / "from-env"))
    assert main([]) == 2
    assert "from-env" in capsys.readouterr().err
    monkeypatch.delenv("MNEMOSYNE_VAULT")
    assert main([]) == 2
    assert ".birkin-mnemosyne" in capsys.readouterr().err  # the default, under $HOME


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1:8765", ("127.0.0.1", 8765)),
        ("localhost:1", ("localhost", 1)),
        ("[::1]:65535", ("::1", 65535)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
    ],
)
def test_parse_address(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["8765", ":8765", "host:", "host:0", "host:70000", "h:x"])
def test_bad_addresses_are_exit_2(vault, text, capsys):
    assert main(["--vault", str(vault.root), "--http", text]) == 2
    assert "--http wants HOST:PORT" in capsys.readouterr().err


def test_loopback_hosts():
    assert is_loopback("127.0.0.1") and is_loopback("127.0.0.2")
    assert is_loopback("::1") and is_loopback("LOCALHOST")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")
    assert not is_loopback("example.com") and not is_loopback("")


def test_a_network_address_without_a_token_refuses_to_start(vault, capsys):
    assert main(["--vault", str(vault.root), "--http", "0.0.0.0:8765"]) == 2
    err = capsys.readouterr().err
    assert "needs a bearer token" in err and "--token-file" in err
    assert mcp_main.TOKEN_ENV in err


def test_token_problems_are_exit_2(vault, tmp_path, monkeypatch, capsys):
    args = ["--vault", str(vault.root), "--http", "0.0.0.0:8765"]
    monkeypatch.setenv(mcp_main.TOKEN_ENV, "short")
    assert main(args) == 2
    assert "at least 16 characters" in capsys.readouterr().err
    monkeypatch.delenv(mcp_main.TOKEN_ENV)
    assert main([*args, "--token-file", str(tmp_path / "missing")]) == 2
    assert "cannot read the token file" in capsys.readouterr().err
    spaced = tmp_path / "spaced"
    spaced.write_text("two words here, quite long\n", encoding="utf-8")
    assert main([*args, "--token-file", str(spaced)]) == 2
    assert "without spaces" in capsys.readouterr().err
    assert main(["--vault", str(vault.root), "--token-file", str(spaced)]) == 2
    assert "--token-file is for --http" in capsys.readouterr().err


def test_read_token_prefers_the_file_and_strips_it(tmp_path, monkeypatch):
    monkeypatch.setenv(mcp_main.TOKEN_ENV, "env-token-0123456789abc")
    assert mcp_main.read_token(None) == "env-token-0123456789abc"
    path = tmp_path / "token"
    path.write_text(f"{GOOD_TOKEN}\n", encoding="utf-8")
    assert mcp_main.read_token(str(path)) == GOOD_TOKEN
    monkeypatch.delenv(mcp_main.TOKEN_ENV)
    assert mcp_main.read_token(None) is None


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--read-only" in out and "--evidence-required" in out and "--http" in out
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.startswith("mnemosyne-mcp ")


def test_capacity_budget_flags_are_validated_before_serving(tmp_path, capsys):
    from birkin_mnemosyne import mcp_main

    vault = tmp_path / "v"
    vault.mkdir()
    code = mcp_main.main(["--vault", str(vault), "--max-active-notes", "many"])
    assert code == 2
    err = capsys.readouterr().err
    assert "max_active_notes" in err and err.count("\n") == 1


def test_the_tool_set_comes_from_the_flag_then_the_environment(monkeypatch):
    assert mcp_main.resolve_tool_set(None) == "default"
    monkeypatch.setenv(mcp_main.TOOLS_ENV, "full")
    assert mcp_main.resolve_tool_set(None) == "full"
    assert mcp_main.resolve_tool_set("default") == "default"  # the flag wins


def test_an_unknown_tool_set_is_exit_2_before_serving(vault, monkeypatch, capsys):
    assert main(["--vault", str(vault.root), "--tools", "everything"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mnemosyne-mcp: error: --tools must be one of default, full")
    monkeypatch.setenv(mcp_main.TOOLS_ENV, "most")
    assert main(["--vault", str(vault.root)]) == 2
    assert "$MNEMOSYNE_MCP_TOOLS must be one of default, full; got 'most'" in (
        capsys.readouterr().err
    )
