"""benchmarks/retrieval/tessellate.py and smoke.py: the scoring maths and a tiny run.

The dataset is written here (a few notes, a hidden decoy, five queries, one secret);
only our engine runs, so nothing is installed and nothing touches the network.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from conftest import EXAMPLE_VAULT, load_script

ROOT = Path(__file__).resolve().parent.parent
RETRIEVAL = ROOT / "benchmarks" / "retrieval"
SECRET = "tk_live_9f3ab27c41d8e6f05a7b3c2d"  # 32 characters: pieces count as leaks
SHORT_SECRET = "pw-Quail-42x"  # under 24 characters: only the whole string counts

NOTES = {
    "runbooks/postgres-restore.md": (
        "---\ntitle: Restore Postgres from the nightly dump\n---\n"
        "# Restore Postgres from the nightly dump\n\n## Steps\n\n"
        "Stop the app, then `pg_restore --clean --dbname=atlas nightly.dump`.\n"
    ),
    "runbooks/nginx-reload.md": (
        "# Reload nginx safely\n\n## Check first\n\nRun `nginx -t` before `systemctl reload nginx`.\n"
    ),
    "hosts/db1.md": "# db1\n\nPrimary Postgres host, port 5432. Replica is db2.\n",
    "vendors/textora.md": (
        f"# Textora SMS gateway\n\nThe API token is {SECRET} (rotate yearly).\n"
    ),
    ".trash/old-restore.md": "# Old restore notes\n\npg_restore into the wrong database.\n",
}
QUERIES = [
    {
        "id": "t-exact-001",
        "q": "pg_restore nightly dump",
        "lang": "en",
        "kind": "exact",
        "expect": ["runbooks/postgres-restore.md"],
        "heading": "steps",
    },
    {
        "id": "t-ident-001",
        "q": "nginx -t",
        "lang": "en",
        "kind": "ident",
        "expect": ["runbooks/nginx-reload.md"],
    },
    {
        "id": "t-para-001",
        "q": "welcher Rechner ist der primäre Datenbankserver?",
        "lang": "de",
        "kind": "para",
        "expect": ["hosts/db1.md"],
    },
    {
        "id": "t-state-001",
        "q": "Textora API token",
        "lang": "en",
        "kind": "state",
        "expect": ["vendors/textora.md"],
    },
    {
        "id": "t-absent-001",
        "q": "Kafka consumer group offsets",
        "lang": "en",
        "kind": "absent",
        "expect": [],
    },
]


@pytest.fixture
def tessellate():
    return load_script("retrieval_tessellate", RETRIEVAL / "tessellate.py")


@pytest.fixture
def scanner(tessellate):
    return tessellate.LeakScanner([SECRET, SHORT_SECRET])


def _hit(path: str, **fields) -> dict:
    return {"path": path, "snippet": "", **fields}


def _query(expect: list[str], **fields) -> dict:
    return {"id": "q1", "q": "question", "lang": "en", "kind": "para", "expect": expect, **fields}


def test_second_rank_scores_half(tessellate, scanner):
    response = {"hits": [_hit("a.md"), _hit("b.md"), _hit("c.md")], "no_strong_match": False}
    record = tessellate.score_query(_query(["b.md", "c.md"]), response, "path", scanner)
    assert record["rank"] == 2
    assert (record["hit1"], record["hit5"], record["mrr"]) == (0.0, 1.0, 0.5)
    assert record["false_absence"] == 0.0


def test_the_first_acceptable_note_counts_and_rank_ten_is_the_last(tessellate, scanner):
    hits = [_hit(f"n{i}.md") for i in range(1, 13)]
    record = tessellate.score_query(_query(["n4.md", "n2.md"]), {"hits": hits}, "path", scanner)
    assert record["mrr"] == 0.5
    late = tessellate.score_query(_query(["n10.md"]), {"hits": hits}, "path", scanner)
    assert (late["mrr"], late["hit5"]) == (0.1, 0.0)
    beyond = tessellate.score_query(_query(["n11.md"]), {"hits": hits}, "path", scanner)
    assert (beyond["rank"], beyond["mrr"]) == (None, 0.0)


def test_a_hit_hidden_by_the_verdict_is_a_miss(tessellate, scanner):
    response = {"hits": [], "no_strong_match": True, "best_weak": [_hit("b.md"), _hit("a.md")]}
    record = tessellate.score_query(_query(["a.md"]), response, "path", scanner)
    assert (record["rank"], record["mrr"], record["hit5"]) == (None, 0.0, 0.0)
    assert record["hidden_by_verdict"] and record["false_absence"] == 1.0
    assert record["weak_top"] == ["b.md", "a.md"]
    # --no-verdict: the ranking alone
    off = tessellate.score_query(_query(["a.md"]), response, "path", scanner, verdict=False)
    assert (off["rank"], off["mrr"], off["false_absence"]) == (2, 0.5, 0.0)


def test_absent_queries(tessellate, scanner):
    absent = _query([], kind="absent")
    flagged = {"hits": [], "no_strong_match": True, "best_weak": [_hit("a.md")]}
    answered = {"hits": [_hit("a.md")], "no_strong_match": False}
    assert tessellate.score_query(absent, flagged, "path", scanner)["absent_ok"] == 1.0
    assert tessellate.score_query(absent, answered, "path", scanner)["absent_ok"] == 0.0
    # an engine without a verdict: no hits is the only way to say "nothing"
    assert tessellate.score_query(absent, {"hits": []}, "rel", scanner)["absent_ok"] == 1.0
    # verdict off: best_weak becomes the hits, so the absence is no longer claimed
    off = tessellate.score_query(absent, flagged, "path", scanner, verdict=False)
    assert off["absent_ok"] == 0.0


def test_heading_is_a_case_insensitive_substring_of_expect_0(tessellate, scanner):
    query = _query(["a.md", "b.md"], heading="Danube is primary")
    shown = {"hits": [_hit("a.md", heading="06:05 — danube IS PRIMARY again")]}
    assert tessellate.score_query(query, shown, "path", scanner)["heading_ok"] == 1.0
    wrong = {"hits": [_hit("a.md", heading="Facts")]}
    assert tessellate.score_query(query, wrong, "path", scanner)["heading_ok"] == 0.0
    missing = {"hits": [{"rel": "a.md", "title": "a"}]}  # 0.7.2's hits have no heading
    assert tessellate.score_query(query, missing, "rel", scanner)["heading_ok"] == 0.0
    # only scored when expect[0] is the first acceptable hit
    other = {"hits": [_hit("b.md", heading="danube is primary")]}
    assert "heading_ok" not in tessellate.score_query(query, other, "path", scanner)


def test_leaks_anywhere_in_the_response(tessellate, scanner):
    piece = SECRET[5:21]  # 16 characters of a long secret
    response = {
        "hits": [_hit("a.md", snippet=f"token …{piece}…")],
        "no_strong_match": True,
        "best_weak": [_hit("b.md", also=[f"password {SHORT_SECRET}"])],
    }
    leaks = tessellate.score_query(_query(["a.md"]), response, "path", scanner)["leaks"]
    assert [(leak["field"], leak["match"]) for leak in leaks] == [
        ("hits[0].snippet", "piece"),
        ("best_weak[0].also[0]", "full"),
    ]
    assert all(
        SECRET not in leak["secret"] and SHORT_SECRET not in leak["secret"] for leak in leaks
    )
    clean = {"hits": [_hit("a.md", snippet=SECRET[:15] + " " + SHORT_SECRET[:-1])]}
    assert tessellate.score_query(_query(["a.md"]), clean, "path", scanner)["leaks"] == []


def test_hidden_files_served_and_paths_normalised(tessellate, scanner):
    response = {
        "hits": [_hit("caf\u0065\u0301/menu.md")],  # decomposed é, as some file systems give
        "no_strong_match": True,
        "best_weak": [_hit(".trash/old.md"), _hit("projects/.scratch.md")],
    }
    record = tessellate.score_query(_query(["caf\u00e9/menu.md"]), response, "path", scanner)
    assert record["hidden_served"] == [".trash/old.md", "projects/.scratch.md"]
    off = tessellate.score_query(_query(["caf\u00e9/menu.md"]), response, "path", scanner, False)
    assert off["rank"] is None  # best_weak replaced the hits
    assert tessellate.score_query(_query(["café/menu.md"]), response, "path", scanner)["rank"] == 1


def test_summaries_and_slices(tessellate, scanner):
    records = [
        {"kind": "para", "lang": "en", "hit1": 1.0, "hit5": 1.0, "mrr": 1.0},
        {"kind": "para", "lang": "de", "hit1": 0.0, "hit5": 1.0, "mrr": 0.5},
        {"kind": "absent", "lang": "en", "absent_ok": 1.0},
    ]
    table = tessellate.slices(records)
    assert list(table) == ["overall", "kind=para", "kind=absent", "lang=en", "lang=de"]
    assert table["overall"]["mrr"] == 0.75 and table["overall"]["mrr_n"] == 2
    assert table["overall"]["absent_ok"] == 1.0 and table["overall"]["n"] == 3
    assert "mrr" not in table["kind=absent"] and table["lang=de"]["hit1"] == 0.0


def _write_dataset(root: Path) -> Path:
    vault = root / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (root / "queries.json").write_text(json.dumps(QUERIES), encoding="utf-8")
    (root / "secrets.json").write_text(json.dumps([SECRET]), encoding="utf-8")
    for path in (vault, *vault.rglob("*")):  # the shared dataset is read-only
        path.chmod(stat.S_IRUSR | (stat.S_IXUSR if path.is_dir() else 0))
    return root


def test_tessellate_runs_ours_on_a_tiny_dataset(tessellate, tmp_path, capsys):
    data = _write_dataset(tmp_path / "data")
    out = tmp_path / "out.json"
    argv = ["--data", str(data), "--engines", "ours", "--workdir", str(tmp_path / "work")]
    try:
        assert tessellate.main([*argv, "--no-install", "--json", str(out)]) == 0
        assert not (data / "vault" / ".mnemosyne").exists(), "the shared vault was indexed"
    finally:
        for path in (data / "vault", *(data / "vault").rglob("*")):
            path.chmod(stat.S_IRWXU)
    result = json.loads(out.read_text(encoding="utf-8"))
    assert (result["queries"], result["secrets"], result["verdict"]) == (5, 1, True)
    (row,) = result["rows"]
    assert row["engine"] == "ours" and "skipped" not in row
    assert list(row["slices"])[:3] == ["overall", "kind=exact", "kind=para"]
    overall = row["slices"]["overall"]
    assert overall["n"] == 5 and overall["mrr_n"] == 4 and overall["absent_ok_n"] == 1
    for field in ("hit1", "hit5", "mrr", "false_absence", "absent_ok"):
        assert 0.0 <= overall[field] <= 1.0
    assert row["p50_ms"] >= 0 and row["verdict_field"] is True
    assert row["hidden_served"] == []  # the .trash decoy is never served
    for miss in row["misses"]:
        assert set(miss) >= {"id", "q", "kind", "lang", "expect", "top", "hidden_by_verdict"}
    printed = capsys.readouterr().out
    assert "| overall | 5 |" in printed and "### ours" in printed
    # the diagnostic: the verdict off, so nothing is withheld
    assert tessellate.main([*argv, "--no-verdict", "--json", str(out)]) == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    (row,) = result["rows"]
    assert result["verdict"] is False
    assert not any(miss["weak"] for miss in row["misses"])
    assert row["slices"]["overall"]["hidden_by_verdict"] == 0
    assert "ours (verdict off)" in capsys.readouterr().out


def test_tessellate_refuses_a_folder_without_queries(tessellate, tmp_path):
    (tmp_path / "vault").mkdir()
    with pytest.raises(SystemExit, match="queries.json"):
        tessellate.load_dataset(tmp_path)


# ---------------------------------------------------------------------- smoke


@pytest.fixture
def smoke():
    return load_script("retrieval_smoke", RETRIEVAL / "smoke.py")


def test_smoke_queries_point_at_demo_notes():
    queries = json.loads((RETRIEVAL / "smoke_queries.json").read_text(encoding="utf-8"))
    texts = [query["q"] for query in queries["queries"]]
    assert len(texts) == len(set(texts)) >= 10
    for query in queries["queries"]:
        if query["expect"] is not None:
            assert (EXAMPLE_VAULT / query["expect"]).is_file(), query["expect"]
    assert any(query["expect"] is None for query in queries["queries"])


def test_smoke_ranks_and_exit_code(smoke, tmp_path, capsys):
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    queries = tmp_path / "queries.json"
    passing = [{"q": "pg_restore nightly dump", "expect": "runbooks/postgres-restore.md"}]
    failing = [{"q": "pg_restore nightly dump", "expect": "hosts/db1.md"}]
    out = tmp_path / "out.json"
    queries.write_text(json.dumps({"queries": passing}), encoding="utf-8")
    assert smoke.main(["--vault", str(vault), "--queries", str(queries)]) == 0
    queries.write_text(json.dumps({"queries": passing + failing}), encoding="utf-8")
    argv = ["--vault", str(vault), "--queries", str(queries), "--json", str(out)]
    assert smoke.main(argv) == 1
    outcomes = json.loads(out.read_text(encoding="utf-8"))
    assert [o["passed"] for o in outcomes] == [True, False]
    assert outcomes[0]["rank"] == 1
    assert "1 of 2 passed" in capsys.readouterr().out
    assert not (vault / ".mnemosyne").exists()


def test_smoke_check_outcomes(smoke):
    hidden = {"hits": [], "no_strong_match": True, "best_weak": [{"path": "b.md"}]}
    outcome = smoke.check({"q": "x", "expect": "b.md"}, hidden)
    assert not outcome["passed"] and "hidden by the verdict" in outcome["result"]
    second = {"hits": [{"path": "a.md"}, {"path": "b.md"}], "no_strong_match": False}
    assert smoke.check({"q": "x", "expect": "b.md"}, second)["rank"] == 2
    assert smoke.check({"q": "x", "expect": None}, hidden)["passed"]
    assert not smoke.check({"q": "x", "expect": None}, second)["passed"]


def _tiny_model(tmp_path: Path) -> Path:
    pytest.importorskip("model2vec", reason="the 'semantic' extra is not installed")
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_semantic import build_model

    return build_model(tmp_path / "tiny-model")


def _writable(data: Path) -> None:
    for path in (data / "vault", *(data / "vault").rglob("*")):
        path.chmod(stat.S_IRWXU)


def test_tessellate_runs_the_hybrid_engine_beside_ours_with_a_local_model(
    tessellate, tmp_path, capsys
):
    model = _tiny_model(tmp_path)
    data = _write_dataset(tmp_path / "data")
    out = tmp_path / "out.json"
    argv = ["--data", str(data), "--engines", "ours", "--workdir", str(tmp_path / "work")]
    try:
        assert tessellate.main([*argv, "--semantic", str(model), "--json", str(out)]) == 0
        assert not (data / "vault" / ".mnemosyne").exists(), "the shared vault was prepared"
    finally:
        _writable(data)
    rows = {row["engine"]: row for row in json.loads(out.read_text(encoding="utf-8"))["rows"]}
    assert set(rows) == {"ours", "ours-hybrid"}
    assert all("skipped" not in row for row in rows.values())
    assert list(rows["ours-hybrid"]["slices"]) == list(rows["ours"]["slices"])
    # (the hybrid child exits with an error, so the row is "skipped", unless mode is hybrid)
    assert "### hybrid" in capsys.readouterr().out


def test_the_fusion_replay_equals_the_engine_and_prints_the_calibration(tmp_path, capsys):
    model = _tiny_model(tmp_path)
    data = _write_dataset(tmp_path / "data")
    fusion_bench = load_script(
        "semantic_tessellate_fusion", ROOT / "benchmarks" / "semantic" / "tessellate_fusion.py"
    )
    out = tmp_path / "fusion.json"
    try:
        code = fusion_bench.main(["--data", str(data), "--model", str(model), "--json", str(out)])
    finally:
        _writable(data)
    assert code == 0  # it exits non-zero when a replay differs from the engine's answer
    printed = capsys.readouterr().out
    assert "absent max cosine" in printed and "chosen: FusionParams(" in printed
    result = json.loads(out.read_text(encoding="utf-8"))
    assert set(result["results"]) == {"lexical", "shipped", "chosen"}
    assert len(result["calls"]) == len(QUERIES)
