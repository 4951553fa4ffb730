"""curate, review and capacity from the command line (no model is ever called)."""

from __future__ import annotations

import json
import os
import stat
import sys

import pytest


@pytest.fixture
def notes(vault):
    vault.write("deploy.md", "# Deploy\nHow we deploy the api service to production.\n")
    vault.write("deploy-copy.md", "# Deploy\nHow we deploy the api service to production!\n")
    vault.write("prefs/tea.md", "# Tea\nGreen tea.\n")
    return vault


PLAN = {
    "format": "CurationPlan/1",
    "summary": "move deploy",
    "operations": [
        {"op": "rezone", "note": "deploy", "zone": "ops", "reason": "ops note"},
        {"op": "archive", "note": "tea"},
    ],
}


def test_curate_with_a_plan_file_dry_run_then_apply_and_undo(cli, notes, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    code, out, _ = cli("--vault", notes.root, "curate", "--plan", plan, "--json")
    preview = json.loads(out)
    assert code == 0 and preview["mode"] == "preview"
    assert [d["reason"] for d in preview["dropped"]] == ["protected"]
    code, out, _ = cli("--vault", notes.root, "curate", "--plan", plan)
    assert "accept  #0 rezone" in out and "drop    #1 protected" in out
    code, out, _ = cli(
        "--vault", notes.root, "curate", "--plan", plan, "--apply", "--plan-id", preview["plan_id"]
    )
    assert code == 0 and "undo with:" in out
    assert (notes.root / "ops" / "deploy.md").exists()
    tid = out.split("transaction: ")[1].split()[0]
    assert cli("--vault", notes.root, "undo", tid)[0] == 0
    assert (notes.root / "deploy.md").exists()


def test_curate_plan_id_mismatch_is_exit_3(cli, notes, tmp_path):
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    code, _, err = cli(
        "--vault", notes.root, "curate", "--plan", plan, "--apply", "--plan-id", "0" * 16
    )
    assert code == 3 and "dry run" in err


@pytest.mark.skipif(os.name == "nt", reason="shebang scripts")
def test_curate_with_a_fake_provider(cli, notes, tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "claude"
    fake.parent.mkdir()
    fake.write_text(
        f"#!{sys.executable}\nimport sys\nsys.stdin.read()\n"
        f"print('```json')\nprint({json.dumps(json.dumps(PLAN))})\nprint('```')\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", str(fake.parent))
    code, out, err = cli("--vault", notes.root, "curate", "--provider", "claude", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert [a["op"] for a in result["accepted"]] == ["rezone"]
    assert (notes.root / "deploy.md").exists()  # a dry run


def test_review_lists_and_answers(cli, notes):
    code, out, _ = cli("--vault", notes.root, "review", "--json")
    questions = json.loads(out)["questions"]
    assert code == 0 and questions[0]["kind"] == "duplicate"
    qid = questions[0]["id"]
    code, out, _ = cli("--vault", notes.root, "review", "--apply", qid, "--answer", "drop_second")
    assert code == 0 and "transaction:" in out
    code, out, err = cli("--vault", notes.root, "review")
    assert code == 1 and "no review questions" in err


def test_capacity_and_invalid_budget(cli, notes, monkeypatch):
    code, out, _ = cli("--vault", notes.root, "capacity", "--max-protected-notes", "0")
    assert code == 2  # 0 is not a valid budget
    code, out, _ = cli("--vault", notes.root, "capacity", "--max-active-notes", "2", "--json")
    report = json.loads(out)
    assert code == 0 and report["active_notes"]["over"] is True
    monkeypatch.setenv("MNEMOSYNE_MAX_VAULT_BYTES", "lots")
    code, _, err = cli("--vault", notes.root, "capacity")
    assert code == 2 and "MNEMOSYNE_MAX_VAULT_BYTES" in err
    monkeypatch.delenv("MNEMOSYNE_MAX_VAULT_BYTES")
    code, out, _ = cli("--vault", notes.root, "capacity")
    assert code == 0 and "active notes: 3 (no limit)" in out
