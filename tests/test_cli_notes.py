"""Writing and moving one note from the CLI: remember, append, replace, forget, restore,
rezone — their exit codes and JSON shapes."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from birkin_mnemosyne.cli import main

WRITE_KEYS = {"key", "path", "version", "created", "near_duplicates", "warnings"}
JOURNALED_KEYS = {"transaction_id", "state", "paths"}


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run ``mnemosyne`` in-process; ``stdin=`` is what is piped in."""

    def run(*argv, stdin=None):
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


def test_remember_from_body_and_stdin(vault, cli):
    v = ["--vault", vault.root]
    code, out, _ = cli(
        *v,
        "remember",
        "Kafka retention",
        "--zone",
        "ops",
        "--body",
        "Topics keep 7 days.",
        "--tag",
        "kafka",
        "--label",
        "project:atlas",
        "--source",
        "incident 42",
        "--type",
        "runbook",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and set(data) >= WRITE_KEYS and data["created"] is True
    text = (vault.root / "ops" / "kafka-retention.md").read_text(encoding="utf-8")
    assert "Topics keep 7 days." in text and "project:atlas" in text and "incident 42" in text
    code, out, _ = cli(*v, "remember", "Shopping", stdin="buy milk\n")
    assert code == 0 and out.startswith("created shopping.md\n")
    assert "buy milk" in (vault.root / "shopping.md").read_text(encoding="utf-8")


def test_remember_refuses_to_overwrite_with_exit_3(vault, cli):
    v = ["--vault", vault.root]
    assert cli(*v, "remember", "Note", "--body", "one")[0] == 0
    before = (vault.root / "note.md").read_bytes()
    code, _, err = cli(*v, "remember", "Note", "--body", "two")
    assert code == 3 and err.startswith("mnemosyne: error: note 'note' already exists")
    assert (vault.root / "note.md").read_bytes() == before


def test_remember_without_a_body_on_a_terminal_exits_2(vault, cli, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    code, _, err = cli("--vault", vault.root, "remember", "Note")
    assert code == 2 and "--body" in err and err.count("\n") == 1
    assert not (vault.root / "note.md").exists()


def test_remember_with_empty_input_stores_nothing_and_exits_2(vault, cli):
    v = ["--vault", vault.root]
    code, out, err = cli(*v, "remember", "Note", stdin="")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "standard input was empty" in err and "--body TEXT" in err
    code, _, err = cli(*v, "remember", "Note", "--body", "  ")
    assert code == 2 and "the body is empty" in err
    assert cli(*v, "remember", "Note", "--body", "x")[0] == 0
    code, _, err = cli(*v, "append", "note", stdin="\n\n")
    assert code == 2 and "standard input was empty" in err
    assert not (vault.root / "note.md").read_text(encoding="utf-8").count("## ")


def test_remember_from_dev_null_in_a_real_process(vault):
    proc = subprocess.run(
        [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(vault.root), "remember", "X"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "standard input was empty" in proc.stderr
    assert not list(vault.root.rglob("*.md"))


def test_remember_under_evidence_required_is_refused(vault, cli):
    vault.write(".mnemosyne/config.json", '{"evidence_required": true}')
    code, _, err = cli("--vault", vault.root, "remember", "Note", "--body", "x")
    assert code == 3 and "source" in err


def test_append_and_replace_with_expected_version(vault, cli):
    v = ["--vault", vault.root]
    cli(*v, "remember", "Note", "--body", "first")
    code, out, _ = cli(*v, "append", "note", "--body", "second", "--json")
    assert code == 0 and json.loads(out)["created"] is False
    assert "second" in (vault.root / "note.md").read_text(encoding="utf-8")
    version = json.loads(cli(*v, "show", "note", "--json")[1])["version"]
    code, out, err = cli(*v, "replace", "note", "--expected-version", "0" * 64, stdin="third")
    assert code == 3 and "changed since you read it" in err
    code, out, _ = cli(*v, "replace", "note", "--expected-version", version, stdin="third")
    assert code == 0 and out.startswith("replaced note.md")
    text = (vault.root / "note.md").read_text(encoding="utf-8")
    assert "third" in text and "first" not in text


def test_write_errors_map_to_exit_codes(vault, cli):
    v = ["--vault", vault.root]
    code, _, err = cli(*v, "append", "ghost", "--body", "x")
    assert code == 1 and "no note 'ghost'" in err
    code, _, err = cli(*v, "replace", "ghost", "--body", "x")
    assert code == 2 and "--expected-version" in err  # argparse: a required option
    code, _, err = cli(*v, "replace", "ghost", "--expected-version", "abc", "--body", "x")
    assert code == 2 and "64-hex-digit" in err
    code, _, err = cli(*v, "remember", "Bad", "--zone", "../out", "--body", "x")
    assert code == 2 and err.count("\n") == 1


def test_forget_previews_then_archives_and_restore_brings_it_back(vault, cli):
    vault.write("ops/note.md", "# Note\n\nkeep me\n")
    original = (vault.root / "ops" / "note.md").read_bytes()
    v = ["--vault", vault.root]
    code, out, err = cli(*v, "forget", "note")
    assert code == 0 and "would archive ops/note.md -> _archive/ops/note.md" in out
    assert "--yes" in err and (vault.root / "ops" / "note.md").exists()
    code, out, _ = cli(*v, "forget", "note", "--json")
    assert json.loads(out)["mode"] == "preview"
    code, out, _ = cli(*v, "forget", "note", "--yes", "--json")
    data = json.loads(out)
    assert code == 0 and set(data) >= JOURNALED_KEYS and data["mode"] == "applied"
    assert not (vault.root / "ops" / "note.md").exists()
    code, out, _ = cli(*v, "restore", "note")
    assert code == 0 and out.startswith("restored _archive/ops/note.md -> ops/note.md")
    assert "mnemosyne undo " in out
    assert (vault.root / "ops" / "note.md").read_bytes() == original
    cli(*v, "forget", "note", "--yes")
    code, out, _ = cli(*v, "restore", "ops/note.md", "--zone", "kept", "--json")
    data = json.loads(out)
    assert code == 0 and set(data) >= JOURNALED_KEYS and data["path"] == "kept/note.md"
    assert (vault.root / "kept" / "note.md").read_bytes() == original
    code, _, err = cli(*v, "restore", "note")
    assert code == 1 and "no archived note" in err


def test_every_note_command_finds_a_note_by_its_title(vault, cli):
    v = ["--vault", vault.root]
    assert cli(*v, "remember", "Keep me", "--zone", "ops", "--body", "first")[0] == 0
    code, out, _ = cli(*v, "show", "Keep me", "--json")
    assert code == 0 and json.loads(out)["path"] == "ops/keep-me.md"
    version = json.loads(out)["version"]
    code, out, _ = cli(*v, "replace", "KEEP ME", "--expected-version", version, "--body", "2nd")
    assert code == 0 and out.startswith("replaced ops/keep-me.md")
    assert cli(*v, "rezone", "keep me", "kept")[0] == 0
    code, out, _ = cli(*v, "forget", "Keep me", "--yes", "--json")
    assert code == 0 and json.loads(out)["previous_path"] == "kept/keep-me.md"
    code, _, err = cli(*v, "show", "Keep me")
    assert code == 1 and "archived at _archive/kept/keep-me.md" in err
    code, out, _ = cli(*v, "restore", "Keep me", "--json")
    assert code == 0 and json.loads(out)["path"] == "kept/keep-me.md"


def test_a_title_of_two_notes_is_refused_with_both_paths(vault, cli):
    vault.write("a/one.md", "# Twin\n\none\n")
    vault.write("b/two.md", "# Twin\n\ntwo\n")
    code, out, err = cli("--vault", vault.root, "forget", "twin", "--yes")
    assert code == 2 and out == ""
    assert "title or alias of 2 notes: a/one.md, b/two.md" in err and err.count("\n") == 1
    assert (vault.root / "a" / "one.md").exists() and (vault.root / "b" / "two.md").exists()


def test_rezone_moves_and_refuses_an_occupied_target(vault, cli):
    vault.write("a/note.md", "# Note\n\nhere\n")
    vault.write("b/other.md", "# Other\n\nthere\n")
    v = ["--vault", vault.root]
    code, out, _ = cli(*v, "rezone", "note", "b", "--json")
    data = json.loads(out)
    assert code == 0 and data["path"] == "b/note.md" and set(data) >= JOURNALED_KEYS
    vault.write("a/note.md", "# Note again\n")
    code, _, err = cli(*v, "rezone", "b/note.md", "a")
    assert code == 3 and "already exists" in err
    code, _, err = cli(*v, "rezone", "b/note.md", "b")
    assert code == 2 and "already in zone" in err


def test_note_commands_in_a_real_process(vault):
    base = [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(vault.root)]
    made = subprocess.run(
        [*base, "remember", "Piped note", "--json"],
        input="text from a pipe\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["path"] == "piped-note.md"
    again = subprocess.run(
        [*base, "remember", "Piped note"], input="x", capture_output=True, text=True, timeout=60
    )
    assert again.returncode == 3 and again.stderr.count("\n") == 1
