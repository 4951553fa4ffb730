"""benchmarks/team/run.py on a tiny Tessellate-shaped dataset, against a scratch server.

Skipped, with the reason, without psycopg or PostgreSQL's initdb/pg_ctl (CI has both).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load_script

pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from birkin_mnemosyne.team.scratch import scratch_unavailable_reason  # noqa: E402

_REASON = scratch_unavailable_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

ROOT = Path(__file__).resolve().parent.parent
NOTES = {
    "runbooks/postgres-restore.md": "# Restore Postgres\n\nRun pg_restore into atlas.\n",
    "runbooks/nginx-reload.md": "# Reload nginx\n\nRun nginx -t, then reload.\n",
    "hosts/db1.md": "# db1\n\nPrimary Postgres host.\n",
    "lessons/disk-full.md": "# Disk full\n\nVacuum journald first.\n",
    "journal/2026-05-01.md": "# 2026-05-01\n\n## Restore drill\n\npg_restore took 4 minutes.\n",
    "notes/n1.md": "# One\n\nalpha beta\n",
    "notes/n2.md": "# Two\n\ngamma delta\n",
    "notes/n3.md": "# Three\n\nepsilon zeta\n",
    "notes/n4.md": "# Four\n\neta theta\n",
    "notes/n5.md": "# Five\n\niota kappa\n",
}


def test_team_benchmark_runs_and_reports_agreement(tmp_path, capsys):
    data = tmp_path / "dataset"
    for rel, text in NOTES.items():
        (data / "vault" / rel).parent.mkdir(parents=True, exist_ok=True)
        (data / "vault" / rel).write_text(text, encoding="utf-8")
    queries = [{"id": f"q{i}", "q": q} for i, q in enumerate(["pg_restore", "nginx", "kafka"])]
    (data / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    run = load_script("team_run", ROOT / "benchmarks" / "team" / "run.py")
    out = tmp_path / "out.json"
    code = run.main(
        ["--tessellate", str(data), "--clients", "1,2", "--workdir", str(tmp_path / "w")]
        + ["--json", str(out)]
    )
    assert code == 0
    result = json.loads(out.read_text())["results"][0]
    assert result["notes"] == len(NOTES) and result["changed"] == 10
    assert result["agreement"] == {
        "queries": 3,
        "overlap_at_10": 1.0,
        "same_verdict": 1.0,
        "same_top10": 1.0,
    }
    assert [t["clients"] for t in result["team"]] == [1, 2]
    assert all(t["p50_ms"] > 0 and t["qps"] > 0 for t in result["team"])
    assert "overlap@10 1.0" in capsys.readouterr().out
