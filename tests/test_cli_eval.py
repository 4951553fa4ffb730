"""``mnemosyne eval``: the shipped example, --json, --set, -k and bad input."""

from __future__ import annotations

import json

from conftest import EXAMPLE_VAULT

from birkin_mnemosyne.cli import main

CASES = EXAMPLE_VAULT.parent / "cases.yaml"


def _write(tmp_path, cases) -> str:
    path = tmp_path / "cases.json"
    path.write_text(json.dumps({"cases": cases}), encoding="utf-8")
    return str(path)


def test_eval_runs_the_example_cases_on_the_example_vault(capsys):
    assert main(["--vault", str(EXAMPLE_VAULT), "eval", str(CASES)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert len([line for line in lines if line[:3].strip().isdigit()]) == 16
    assert lines[0].startswith("  1. rank 1 ")
    assert any(line.startswith("hit@1 ") and "MRR@10" in line for line in lines)
    assert "absence accuracy 1.000 (3 cases)" in out


def test_eval_json_is_the_report(capsys):
    assert main(["--vault", str(EXAMPLE_VAULT), "eval", str(CASES), "--json", "-k", "5"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["k"] == 5 and report["cases"] == 16
    assert set(report["summary"]) >= {
        "hit_at_1",
        "hit_at_3",
        "mrr",
        "absence_accuracy",
        "false_absence_rate",
    }


def test_misses_list_their_top_three_and_self_quotes_get_a_second_line(vault, tmp_path, capsys):
    vault.write("answer.md", "# Answer\n\nThe zebra crossing is painted white.\n")
    vault.write("log.md", "# Log\n\nasked: what colour is the zebra crossing?\n")
    vault.write("other.md", "# Other\n\nzebra zebra crossing crossing colour\n")
    cases = _write(
        tmp_path,
        [
            {"q": "what colour is the zebra crossing?", "expect": [{"path": "log.md"}]},
            {"q": "zebra crossing colour", "expect": [{"path": "none.md"}]},
        ],
    )
    assert main(["--vault", str(vault.root), "eval", cases]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "[self-quote: the note contains the question]" in out
    assert "without self-quoting notes (1 flagged)" in out
    miss = out.split("zebra crossing colour", 1)[1]
    assert "1. " in miss and "other.md" in miss
    assert "none.md is not a note in the vault" in captured.err


def test_set_passes_ranking_overrides_for_one_run(vault, tmp_path, capsys):
    vault.write("a.md", "# A\n\nzebra crossing\n")
    cases = _write(tmp_path, [{"q": "zebra", "expect": [{"path": "a.md"}]}])
    argv = ["--vault", str(vault.root), "eval", cases, "--set", "weak_coverage=0.5"]
    assert main([*argv, "--set", "w_title=2.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ranking"] == {
        "weak_coverage": 0.5,
        "w_title": 2.5,
    }
    assert main(argv) == 0
    assert "ranking overrides: weak_coverage=0.5" in capsys.readouterr().out
    assert not (vault.root / ".mnemosyne" / "config.json").exists()


def test_bad_settings_and_case_files_are_exit_2(vault, tmp_path, capsys):
    vault.write("a.md", "# A\n\nzebra\n")
    cases = _write(tmp_path, [{"q": "zebra", "expect": []}])
    for extra in (["--set", "w_title"], ["--set", "nope=1"], ["--set", "k1=0"], ["-k", "0"]):
        assert main(["--vault", str(vault.root), "eval", cases, *extra]) == 2
        err = capsys.readouterr().err
        assert err.startswith("mnemosyne: error: ") and err.count("\n") == 1
    assert main(["--vault", str(vault.root), "eval", str(tmp_path / "none.yaml")]) == 2
    assert "case file not found" in capsys.readouterr().err
