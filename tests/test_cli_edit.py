"""`mnemosyne edit` and `mnemosyne move`: their exit codes, JSON shapes and undo."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from birkin_mnemosyne.cli import main

WRITE_KEYS = {"key", "path", "version", "created", "mode", "transaction_id", "near_duplicates"}
RUNBOOK = (
    "---\ntitle: Kafka retention\n---\n## Retention\n\nTopics keep 7 days.\n\n## Owner\n\nMina\n"
)


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


@pytest.fixture
def v(vault):
    vault.write("ops/kafka-retention.md", RUNBOOK)
    vault.write("hosts/broker1.md", "# broker1\n\nRetention: [[kafka-retention#Retention]].\n")
    return ["--vault", vault.root]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".mnemosyne" not in p.relative_to(root).parts
    }


def note_text(vault) -> str:
    return (vault.root / "ops/kafka-retention.md").read_text(encoding="utf-8")


def test_edit_prepend_from_stdin_and_undo(vault, v, cli):
    code, out, _ = cli(*v, "edit", "kafka-retention", "prepend", stdin="Superseded soon.\n")
    assert code == 0 and out.startswith("edited (prepend) ops/kafka-retention.md\n")
    assert "\nundo:    mnemosyne undo " in out
    assert note_text(vault).split("---\n", 2)[2].startswith("\nSuperseded soon.\n\n## Retention")
    code, out, _ = cli(*v, "undo", "--last", "--kind", "edit")
    assert code == 0 and note_text(vault) == RUNBOOK


def test_edit_find_replace_counts_matches(vault, v, cli):
    code, out, _ = cli(
        *v,
        "edit",
        "kafka-retention",
        "find-replace",
        "--find",
        "7 days",
        "--body",
        "14 days",
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and set(data) >= WRITE_KEYS and data["mode"] == "find_replace"
    assert "Topics keep 14 days." in note_text(vault)
    before = note_text(vault)
    code, _, err = cli(*v, "edit", "kafka-retention", "find_replace", "--find", "e", "--body", "E")
    assert code == 2 and "found " in err and "expected 1" in err and err.count("\n") == 1
    assert note_text(vault) == before


def test_edit_find_replace_with_an_expected_count_replaces_every_match(vault, v, cli):
    code, _, err = cli(*v, "edit", "kafka-retention", "find-replace", "--find", "n", "--body", "N")
    assert code == 2 and "found 4 matches of the text, expected 1" in err
    code, _, err = cli(
        *v, "edit", "kafka-retention", "find-replace", "--find", "n", "--body", "N",
        "--expected-count", "3",
    )  # fmt: skip
    assert code == 2 and "found 4 matches of the text, expected 3" in err
    assert note_text(vault) == RUNBOOK
    code, out, _ = cli(
        *v, "edit", "kafka-retention", "find-replace", "--find", "n", "--body", "N",
        "--expected-count", "4", "--json",
    )  # fmt: skip
    assert code == 0 and json.loads(out)["mode"] == "find_replace"
    assert note_text(vault).split("---\n", 2)[2] == (
        "## ReteNtioN\n\nTopics keep 7 days.\n\n## OwNer\n\nMiNa\n"
    )
    code, _, _ = cli(*v, "undo", "--last")
    assert code == 0 and note_text(vault) == RUNBOOK


def test_edit_replace_section_needs_and_checks_the_version(vault, v, cli):
    code, _, err = cli(
        *v, "edit", "kafka-retention", "replace-section", "--section", "Owner", "--body", "Jonas"
    )
    # the CLI's own spelling of the operation and of the flag, not the library's
    assert code == 2 and "replace-section needs --expected-version" in err
    version = json.loads(cli(*v, "show", "kafka-retention", "--json")[1])["version"]
    code, _, err = cli(
        *v,
        "edit",
        "kafka-retention",
        "replace-section",
        "--section",
        "Deploy",
        "--expected-version",
        version,
        "--body",
        "x",
    )
    assert code == 1 and "headings: 'Retention', 'Owner'" in err
    code, _, err = cli(
        *v, "edit", "kafka-retention", "replace-section", "--section", "owner",
        "--expected-version", "0" * 64, "--body", "Jonas",
    )  # fmt: skip
    assert code == 3 and "changed since you read it" in err
    code, out, _ = cli(
        *v, "edit", "kafka-retention", "replace-section", "--section", "owner",
        "--expected-version", version, "--body", "Jonas",
    )  # fmt: skip
    assert code == 0 and note_text(vault).endswith("## Owner\n\nJonas\n")


def test_edit_refuses_an_unknown_operation(v, cli):
    code, _, err = cli(*v, "edit", "kafka-retention", "insert", "--body", "x")
    assert code == 2 and "invalid choice: 'insert'" in err and "find-replace" in err


def test_move_previews_then_applies_and_undo_restores_every_file(vault, v, cli):
    original = snapshot(vault.root)
    code, out, err = cli(*v, "move", "kafka-retention", "runbooks/kafka/retention")
    assert code == 0 and snapshot(vault.root) == original
    assert out.startswith("would move ops/kafka-retention.md -> runbooks/kafka/retention.md\n")
    assert "  hosts/broker1.md:3  [[kafka-retention#Retention]] -> [[retention#Retention]]\n" in out
    assert "--yes" in err
    plan = json.loads(cli(*v, "move", "kafka-retention", "runbooks/kafka/retention", "--json")[1])
    assert plan["mode"] == "preview" and plan["changes"][0]["path"] == "hosts/broker1.md"
    code, out, _ = cli(
        *v, "move", "kafka-retention", "runbooks/kafka/retention", "--yes",
        "--plan-id", plan["plan_id"], "--json",
    )  # fmt: skip
    done = json.loads(out)
    assert code == 0 and done["mode"] == "applied" and done["path"] == "runbooks/kafka/retention.md"
    assert "[[retention#Retention]]" in (vault.root / "hosts/broker1.md").read_text()
    code, out, _ = cli(*v, "undo", done["transaction_id"])
    assert code == 0 and snapshot(vault.root) == original


def test_move_refusals_map_to_exit_codes(vault, v, cli):
    vault.write("ops/taken.md", "x\n")
    code, _, err = cli(*v, "move", "kafka-retention", "ops/taken", "--yes")
    assert code == 3 and "already exists" in err
    code, _, err = cli(*v, "move", "kafka-retention", "../outside", "--yes")
    assert code == 2 and "traversal" in err
    code, _, err = cli(*v, "move", "kafka-retention", "_archive/x", "--yes")
    assert code == 2 and "reserved" in err
    code, _, err = cli(*v, "move", "kafka-retention", "new", "--yes", "--plan-id", "0" * 16)
    assert code == 3 and "changed since preview" in err
    assert (vault.root / "ops/kafka-retention.md").read_text() == RUNBOOK


def test_move_by_title(vault, v, cli):
    code, out, _ = cli(*v, "move", "kafka-retention", "--title", "Kafka topic retention", "--yes")
    assert code == 0 and "moved ops/kafka-retention.md -> ops/kafka-topic-retention.md" in out
    assert "set title: Kafka topic retention" in out and "mnemosyne undo " in out
    assert "[[kafka-topic-retention#Retention]]" in (vault.root / "hosts/broker1.md").read_text()
