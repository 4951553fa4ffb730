"""The read-only CLI surface: search, status, reindex, --version, errors."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

from conftest import EXAMPLE_VAULT

from birkin_mnemosyne import __version__
from birkin_mnemosyne.cli import main


def _note(vault):
    vault.write("runbooks/restore.md", "# Restore\n\n## Steps\n\nRun pg_restore on the dump.\n")
    vault.write("inbox.md", "buy milk\n")


def test_search_json_shape_and_exit_codes(vault, capsys):
    _note(vault)
    assert main(["--vault", str(vault.root), "search", "pg_restore dump", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["hits"][0]["path"] == "runbooks/restore.md"
    assert main(["search", "kafka", "--json", "--vault", str(vault.root)]) == 1
    assert json.loads(capsys.readouterr().out)["no_strong_match"] is True


def test_search_text_output(vault, capsys):
    _note(vault)
    assert main(["--vault", str(vault.root), "search", "restore", "--limit", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1. Restore\n") and "runbooks/restore.md" in out
    assert "\033[" not in out  # no colour when stdout is not a terminal


def test_a_first_build_slower_than_the_check_interval_is_not_called_stale(
    vault, capsys, monkeypatch
):
    from birkin_mnemosyne.engine import Mnemosyne

    _note(vault)
    # every check looks older than the interval by the time the answer is printed,
    # as after a first build of thousands of notes
    monkeypatch.setattr(Mnemosyne, "_check_interval", lambda self: 0.0)
    assert main(["--vault", str(vault.root), "search", "restore"]) == 0
    captured = capsys.readouterr()
    assert "runbooks/restore.md" in captured.out and "stale" not in captured.err


def test_the_stale_note_says_what_was_checked_and_when():
    from birkin_mnemosyne.cli.read_commands import _stale_note

    now = 1_780_000_000.0
    at = lambda t: dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat()  # noqa: E731
    fresh = {"fresh": True, "checked_at": at(now - 600), "checking": False}
    assert _stale_note(fresh, now) is None
    # checked by this command (it began after the command did): as fresh as it gets
    assert _stale_note({"fresh": False, "checked_at": at(now + 3), "checking": False}, now) is None
    # answered from an older check while a new one runs
    older = {"fresh": False, "checked_at": at(now - 600), "checking": True}
    assert "a check for edits since is running" in _stale_note(older, now)
    assert at(now - 600) in _stale_note(older, now)
    # an older check and none running: the index may miss edits
    lost = {"fresh": False, "checked_at": at(now - 600), "checking": False}
    assert "run `mnemosyne reindex`" in _stale_note(lost, now)


def test_vault_from_environment(vault, capsys, monkeypatch):
    _note(vault)
    monkeypatch.setenv("MNEMOSYNE_VAULT", str(vault.root))
    assert main(["search", "milk"]) == 0
    assert "inbox.md" in capsys.readouterr().out


def test_missing_vault_exits_2_with_one_line(tmp_path, capsys):
    code = main(["--vault", str(tmp_path / "none"), "search", "x"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("mnemosyne: error: vault not found") and err.count("\n") == 1
    assert not (tmp_path / "none").exists()


def test_invalid_input_exits_2(vault, capsys):
    _note(vault)
    assert main(["--vault", str(vault.root), "search", "x", "--limit", "0"]) == 2
    assert "limit" in capsys.readouterr().err


def test_status_and_reindex(vault, capsys):
    _note(vault)
    vault.write_bytes("bad.md", b"\x00binary")
    assert main(["--vault", str(vault.root), "reindex", "--full", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == 3
    assert main(["--vault", str(vault.root), "status"]) == 0
    out = capsys.readouterr().out
    assert "notes:    3" in out and "bad.md" in out and "binary" in out


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: mnemosyne" in capsys.readouterr().err


def test_real_subprocess_on_the_example_vault():
    query = "restore the database from last night's dump"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "birkin_mnemosyne",
            "--vault",
            str(EXAMPLE_VAULT),
            "search",
            query,
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["hits"][0]["path"] == "runbooks/postgres-restore.md"
    version = subprocess.run(
        [sys.executable, "-m", "birkin_mnemosyne", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert version.stdout.strip() == f"mnemosyne {__version__}"


def test_broken_pipe_exits_quietly(vault):
    for i in range(300):
        vault.write(f"n{i}.md", f"# Note {i}\n\nshared words {i}\n")
    script = (
        "import sys; from birkin_mnemosyne.cli import main; "
        f"sys.exit(main(['--vault', {str(vault.root)!r}, 'search', 'shared words', '--limit', '200']))"
    )
    proc = subprocess.run(
        f'{sys.executable} -c "{script}" | head -c 10',
        shell=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr


def test_search_says_why_there_is_no_strong_match(tmp_path, capsys):
    import shutil

    from conftest import EXAMPLE_VAULT

    from birkin_mnemosyne.cli import main

    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".mnemosyne"))
    code = main(["--vault", str(root), "search", "is there anything about Kafka?"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("No strong match: 'Kafka' appears nowhere in the vault.")


def test_search_in_a_zone_that_does_not_exist_names_the_zones(tmp_path, capsys):
    import shutil

    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".mnemosyne"))
    code = main(["--vault", str(root), "search", "nginx", "--zone", "runbook"])
    out = capsys.readouterr().out
    assert code == 1
    assert out.startswith("No strong match: no note is in zone 'runbook' (the zones are: ")
    assert "runbooks" in out
