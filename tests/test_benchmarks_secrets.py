"""The secrets-and-undo harness runs on a tiny vault and finds what it must."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import load_script

SCRIPT = (
    Path(__file__).resolve().parent.parent / "benchmarks" / "reliability" / "secrets_and_undo.py"
)


def test_harness_serves_no_planted_secret_and_restores_every_note(tmp_path, capsys):
    harness = load_script("secrets_and_undo", SCRIPT)
    out = tmp_path / "figures.json"
    code = harness.main(
        ["--notes", "4", "--undo", "2", "--workdir", str(tmp_path / "w"), "--json", str(out)]
    )
    figures = json.loads(out.read_text(encoding="utf-8"))
    doors = figures["secrets"]["doors"]
    ran = {name: row for name, row in doors.items() if not row.get("skipped")}
    assert {"python", "cli", "files"} <= set(ran)
    assert all(row["outputs"] > 0 and row["verbatim"] == 0 for row in ran.values()), doors
    assert figures["undo"]["byte_exact_restores"] == figures["undo"]["notes"] == 2
    assert figures["undo"]["refused_after_a_later_edit"] == 2
    assert code == 0 and "| python |" in capsys.readouterr().out


def test_harness_counts_a_secret_it_is_shown(tmp_path):
    harness = load_script("secrets_and_undo", SCRIPT)
    planted = [{"shape": "x", "text": "password: abc", "secret": "s3cr3t-value"}]
    assert harness._count(["served s3cr3t-value here", "nothing"], planted) == 1
