"""The read-only CLI commands: show, list, status, digest, path, and vault lookup."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from birkin_mnemosyne.cli.output import highlight, query_words

NOTE_READ_KEYS = {
    "key",
    "path",
    "title",
    "zone",
    "version",
    "labels",
    "text",
    "total_chars",
    "returned_chars",
    "truncated",
    "outline",
}


@pytest.fixture
def notes(vault):
    vault.write(
        "runbooks/restore.md",
        """
        ---
        labels: [project:atlas]
        date: 2026-03-02
        ---
        # Restore

        ## Steps

        Run pg_restore on the dump.

        ## Verify

        Count the rows.
        """,
    )
    vault.write("inbox.md", "# Inbox\n\nbuy milk\n")
    return vault


def test_show_prints_the_note_with_its_version(notes, cli):
    code, out, _ = cli("--vault", notes.root, "show", "restore")
    assert code == 0
    assert "path:    runbooks/restore.md" in out and "labels:  project:atlas" in out
    assert "Run pg_restore on the dump." in out
    code, out, _ = cli("--vault", notes.root, "show", "restore", "--json")
    data = json.loads(out)
    assert set(data) >= NOTE_READ_KEYS and len(data["version"]) == 64


def test_show_section_outline_and_slices(notes, cli):
    code, out, _ = cli("--vault", notes.root, "show", "restore", "--section", "Verify", "--json")
    assert code == 0 and json.loads(out)["text"].strip() == "## Verify\n\nCount the rows."
    code, out, _ = cli("--vault", notes.root, "show", "restore", "--outline")
    assert code == 0 and "Verify (line" in out and "Count the rows" not in out
    code, out, err = cli("--vault", notes.root, "show", "restore", "--max-chars", "5")
    assert code == 0 and "continue with --offset 5" in err


def test_show_unknown_note_or_section_exits_1(notes, cli):
    code, _, err = cli("--vault", notes.root, "show", "restor")
    assert code == 1 and err.startswith("mnemosyne: error: no note 'restor'")
    assert "did you mean: restore" in err and err.count("\n") == 1
    code, _, err = cli("--vault", notes.root, "show", "restore", "--section", "Nope")
    assert code == 1 and err.count("\n") == 1


def test_list_filters_and_exit_codes(notes, cli):
    code, out, _ = cli("--vault", notes.root, "list", "--json")
    data = json.loads(out)
    assert code == 0 and data["total"] == 2
    assert set(data) == {"notes", "total", "page", "limit", "label_counts"}
    code, out, _ = cli("--vault", notes.root, "list", "--label", "project:atlas")
    assert code == 0 and out.startswith("2026-03-02  runbooks/restore.md  Restore")
    code, out, err = cli("--vault", notes.root, "list", "--zone", "nowhere")
    assert code == 1 and out == "" and "no notes match" in err
    code, _, err = cli("--vault", notes.root, "list", "--limit", "1")
    assert code == 0 and "next page: --page 2" in err
    code, _, err = cli("--vault", notes.root, "list", "--limit", "500")
    assert code == 2 and "limit" in err


def test_status_json_includes_journal_and_usage_state(notes, cli):
    code, out, _ = cli("--vault", notes.root, "status", "--json")
    data = json.loads(out)
    assert code == 0 and data["notes"] == 2
    assert {"journal", "recovered", "evidence_required", "mode", "index", "cache"} <= set(data)
    code, out, _ = cli("--vault", notes.root, "status")
    assert "evidence: optional" in out and "runbooks: 1" in out


def test_status_names_a_damaged_usage_state(notes, cli):
    notes.write(".mnemosyne/state/usage.json", "{not json")
    code, out, _ = cli("--vault", notes.root, "status")
    assert code == 0 and "warning:" in out and "usage" in out


def test_digest_text_and_json(notes, cli):
    code, out, _ = cli("--vault", notes.root, "digest", "--limit", "1")
    assert code == 0 and out.startswith("# Memory digest")
    code, out, _ = cli("--vault", notes.root, "digest", "--json")
    assert json.loads(out)["text"].startswith("# Memory digest")
    code, _, err = cli("--vault", notes.root, "digest", "--budget-tokens", "0")
    assert (
        code == 2 and "--budget-tokens must be a whole number" in err
    )  # the flag, not the parameter


def test_path_prints_places_even_before_the_vault_exists(tmp_path, cli):
    missing = tmp_path / "later"
    code, out, err = cli("--vault", missing, "path", "--json")
    data = json.loads(out)
    assert code == 0 and data["exists"] is False
    assert data["cache"] == str(missing / ".mnemosyne" / "cache")
    assert set(data) == {"vault", "exists", "cache", "state", "journal", "config"}
    code, out, err = cli("--vault", missing, "path")
    assert out.startswith(f"vault:   {missing}\n") and "mnemosyne init" in err
    assert not missing.exists()


def test_vault_flag_after_the_command_and_quoted_tilde(notes, cli, monkeypatch, tmp_path):
    home = notes.root.parent
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MNEMOSYNE_VAULT", str(tmp_path / "elsewhere"))
    code, out, _ = cli("show", "inbox", "--vault", "~/vault")  # as if quoted: no shell
    assert code == 0 and "buy milk" in out
    code, out, _ = cli("path", "--json")  # the environment comes next
    assert json.loads(out)["vault"] == str((tmp_path / "elsewhere").resolve())
    monkeypatch.delenv("MNEMOSYNE_VAULT")
    code, out, _ = cli("path", "--json")  # then the default, under the home folder
    assert json.loads(out)["vault"] == str(home / ".birkin-mnemosyne" / "vault")


def test_search_is_not_a_use(notes, cli):
    code, _, _ = cli("--vault", notes.root, "search", "pg_restore")
    assert code == 0
    assert not (notes.root / ".mnemosyne" / "state" / "usage.json").exists()


def test_read_commands_in_a_real_process(notes):
    base = [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(notes.root)]
    shown = subprocess.run(
        [*base, "show", "restore", "--json"], capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["path"] == "runbooks/restore.md"
    missing = subprocess.run(
        [*base, "show", "nothing-like-it"], capture_output=True, text=True, timeout=60
    )
    assert missing.returncode == 1 and missing.stderr.startswith("mnemosyne: error: ")


def test_search_highlights_query_words_only_on_a_terminal(notes, cli, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = cli("--vault", notes.root, "search", "pg_restore dump")
    assert code == 0 and "\033[1mdump\033[0m" in out


def test_highlighting_marks_words_from_their_start_and_leaves_stopwords_alone():
    words = query_words("Restore the database from backup")
    assert words == ["restore", "database", "backup"]
    marked = highlight("Other notes: restored the database; 数据库备份", words, True)
    assert "\033[1mrestore\033[0md" in marked and "\033[1mdatabase\033[0m" in marked
    assert "O\033[1m" not in marked and "\033[1mthe\033[0m" not in marked
    cjk = highlight("先恢复数据库备份", query_words("数据库"), True)
    assert "\033[1m数据库\033[0m" in cjk
