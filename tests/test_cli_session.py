"""The session-memory commands: index, startup, handoff."""

from __future__ import annotations

import io
import json
import re

import pytest

from birkin_mnemosyne.cli.main import main


@pytest.fixture
def ops(vault):
    vault.write("runbooks/postgres-restore.md", "# Postgres restore\n\nUse pg_restore.\n")
    vault.write("ops/handbook.md", "# Handbook\n\nLead.\n\n## One\n\nA.\n\n## Two\n\nB.\n")
    return vault


def run(capsys, vault, *argv):
    code = main(["--vault", str(vault.root), *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_index_register_read_open_check(ops, capsys):
    code, out, _ = run(
        capsys, ops, "index", "register", "restoring the database", "runbooks/postgres-restore.md"
    )
    assert code == 0 and "registered" in out
    code, out, _ = run(capsys, ops, "index", "read")
    assert "restoring the database -> runbooks/postgres-restore.md" in out
    code, out, _ = run(capsys, ops, "index", "open", "restoring the database", "--json")
    assert json.loads(out)["documents"][0]["path"] == "runbooks/postgres-restore.md"
    code, out, _ = run(capsys, ops, "index", "check", "--json")
    assert code == 0 and json.loads(out)["orphans"] == ["ops/handbook.md"]


def test_index_split_preview_then_apply(ops, capsys):
    code, out, _ = run(capsys, ops, "index", "split", "ops/handbook.md", "--json")
    plan_id = json.loads(out)["plan_id"]
    code, out, _ = run(
        capsys, ops, "index", "split", "ops/handbook.md", "--apply", "--plan-id", plan_id
    )
    assert code == 0 and "transaction:" in out
    assert (ops.root / "ops/handbook/01-one.md").read_text(encoding="utf-8") == "## One\n\nA.\n\n"


def test_index_without_action_is_an_error(ops, capsys):
    code, _, err = run(capsys, ops, "index")
    assert code == 2 and "choose an action" in err


def test_startup_reads_and_verifies(ops, capsys, tmp_path):
    run(capsys, ops, "index", "register", "restoring the database", "runbooks/postgres-restore.md")
    code, out, _ = run(capsys, ops, "startup", "--task", "restoring the database now", "--json")
    bundle = json.loads(out)
    assert [f["path"] for f in bundle["files"]] == ["runbooks/postgres-restore.md"]
    saved = tmp_path / "bundle.json"
    saved.write_text(out, encoding="utf-8")
    code, out, _ = run(capsys, ops, "startup", "--verify", str(saved))
    assert code == 0 and "exact" in out
    code, _, err = run(capsys, ops, "startup", "missing.md")
    assert code == 1 and "missing" in err


def test_startup_delivers_a_route_for_a_task_worded_otherwise(ops, capsys):
    run(capsys, ops, "index", "register", "restoring the database", "runbooks/postgres-restore.md")
    run(capsys, ops, "index", "register", "데이터베이스 복원", "runbooks/postgres-restore.md")
    for task in ("I need to restore the database", "데이터베이스를 복원해야 합니다"):
        code, out, _ = run(capsys, ops, "startup", "--task", task, "--json")
        assert code == 0, task
        assert [f["path"] for f in json.loads(out)["files"]] == ["runbooks/postgres-restore.md"]
    code, out, _ = run(capsys, ops, "startup", "--task", "restore the cache", "--json")
    assert code == 0 and json.loads(out)["files"] == []  # one shared word is not the route


def test_handoff_capture_latest_resume_fold_undo(ops, capsys, monkeypatch):
    monkeypatch.setenv("MNEMOSYNE_PROJECT_KEY", "atlas")
    for n in range(4):
        code, out, _ = run(
            capsys, ops, "handoff", "capture", "--work-done", f"step {n}", "--capture-id", f"c{n}"
        )
        assert code == 0
    code, out, _ = run(
        capsys, ops, "handoff", "capture", "--work-done", "step 0", "--capture-id", "c0"
    )
    assert "already captured" in out
    code, out, err = run(
        capsys, ops, "handoff", "capture", "--work-done", "x", "--capture-id", "c0"
    )
    assert code == 3
    monkeypatch.setattr("sys.stdin", io.StringIO('{"next_step": "deploy", "decisions": ["v2"]}'))
    code, out, _ = run(capsys, ops, "handoff", "capture", "--json-stdin")
    assert code == 0
    code, out, _ = run(capsys, ops, "handoff", "latest")
    assert "Next step: deploy" in out
    code, out, _ = run(capsys, ops, "handoff", "resume", "--json")
    assert json.loads(out)["captures"] == 5
    code, out, _ = run(capsys, ops, "handoff", "fold", "--keep", "2", "--json")
    plan_id = json.loads(out)["plan_id"]
    code, out, _ = run(
        capsys, ops, "handoff", "fold", "--keep", "2", "--apply", "--plan-id", plan_id, "--json"
    )
    tid = json.loads(out)["transaction_id"]
    code, out, _ = run(capsys, ops, "handoff", "undo", tid)
    assert code == 0 and "undone" in out
    code, out, _ = run(capsys, ops, "handoff", "latest", "--project", "other")
    assert code == 1


def test_handoff_needs_a_project(ops, capsys):
    code, _, err = run(capsys, ops, "handoff", "latest")
    assert code == 2 and "MNEMOSYNE_PROJECT_KEY" in err and "--project-key KEY" in err


@pytest.mark.parametrize("flag", ["--project-key", "--project"])
def test_the_project_key_flag_and_its_older_spelling_name_one_scope(ops, capsys, flag):
    code, _, _ = run(
        capsys, ops, "handoff", "capture", flag, "atlas", "--task-key", "db", "--next-step", "go"
    )
    assert code == 0
    for spelling in ("--project-key", "--project"):
        code, out, _ = run(
            capsys, ops, "handoff", "latest", spelling, "atlas", "--task-key", "db", "--json"
        )
        assert code == 0
        assert json.loads(out)["scope"] == {"project_key": "atlas", "task_key": "db"}
    code, out, _ = run(capsys, ops, "startup", flag, "atlas", "--task-key", "db", "--json")
    assert code == 0 and json.loads(out)["handoff"]["fields"]["next_step"] == "go"


def test_every_command_taking_a_project_key_spells_it_the_same(capsys):
    from birkin_mnemosyne.cli.main import build_parser, subcommands

    seen = 0
    for name, parser in subcommands(build_parser()).items():
        parsers = [parser]
        for action in parser._actions:  # handoff's own subcommands
            if isinstance(action.choices, dict):
                parsers += [p for p in action.choices.values() if hasattr(p, "format_help")]
        for sub in parsers:
            text = sub.format_help()
            # an option, not a mention (nor `claude install --project-dir`, a folder)
            if not re.search(r"^ +--project(?:-key)?[ ,]", text, re.M):
                continue
            seen += 1
            assert "--project-key KEY, --project KEY" in text, (name, sub.prog)
            assert "--task-key KEY" in text, (name, sub.prog)
    assert seen >= 5  # startup and handoff capture/latest/resume/fold


def test_every_argument_naming_a_note_says_a_title_is_accepted():
    # every one of them resolves a note as VaultMemory.resolve does: key, path or title
    from birkin_mnemosyne.cli.main import build_parser, subcommands

    named = {}
    for name, parser in subcommands(build_parser()).items():
        for action in parser._actions:
            if action.metavar == "KEY" and action.dest in {"target", "key", "keys", "path"}:
                named[f"{name} {action.dest}"] = action.help
    assert set(named) >= {
        "append target", "replace target", "edit target", "show keys", "related key",
        "forget key", "restore key", "rezone key", "move key", "label path",
    }  # fmt: skip
    assert {where for where, text in named.items() if "key, path or title" not in text} == set()
