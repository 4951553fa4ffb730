"""evaluate: hand-checked metrics, the self-quote guard, absence cases, case files."""

from __future__ import annotations

import json

import pytest
from conftest import EXAMPLE_VAULT

from birkin_mnemosyne import InvalidInputError, Mnemosyne
from birkin_mnemosyne.evaluate import Case, Expectation, evaluate, load_cases, parse_cases

ROOT = EXAMPLE_VAULT.parent


def _hit(path, heading="", also=(), score=1.0):
    return {"path": path, "heading": heading, "also": list(also), "score": score}


class ScriptedEngine(Mnemosyne):
    """A real engine over a real vault whose search answers come from a script."""

    def __init__(self, vault, answers: dict) -> None:
        super().__init__(vault)
        self.answers = answers
        self.limits = []

    def search_response(self, query, limit=8, **options):
        self.limits.append(limit)
        hits, weak = self.answers[query]
        return {
            "hits": [] if weak else hits[:limit],
            "no_strong_match": weak,
            "best_weak": hits[:3] if weak else [],
        }


@pytest.fixture
def scripted(vault):
    for name in ("a", "b", "c", "d", "e"):
        vault.write(f"{name}.md", f"# {name}\n\nplain text\n")
    vault.write("log.md", "# Log\n\nsomeone asked: How   do I fix C? today\n")
    answers = {
        # rank 1
        "find a": ([_hit("a.md"), _hit("b.md")], False),
        # rank 2 (heading matched through an `also` heading, case-insensitively)
        "find b": ([_hit("a.md"), _hit("b.md", "Intro", also=["Setup Steps"])], False),
        # rank 5: a miss for hit@3, 1/5 for MRR
        "find e": ([_hit(p) for p in ("a.md", "b.md", "c.md", "d.md", "e.md")], False),
        # the right path under the wrong heading, then nothing: a miss
        "find d": ([_hit("d.md", "Other"), _hit("c.md")], False),
        # no strong match on an answerable case: a false absence, rank 2 among best_weak
        "find c": ([_hit("a.md"), _hit("c.md")], True),
        # rank 1 through a note quoting the question; the answer itself is at rank 3
        "how do I fix c?": ([_hit("log.md"), _hit("a.md"), _hit("c.md")], False),
        # absence cases: one correct, one wrongly matched
        "kafka": ([_hit("a.md")], True),
        "helm": ([_hit("b.md")], False),
    }
    return ScriptedEngine(vault.root, answers)


CASES = [
    Case("find a", (Expectation("a.md"),)),
    Case("find b", (Expectation("b.md", "steps"),)),
    Case("find e", (Expectation("e.md"),)),
    Case("find d", (Expectation("d.md", "Setup"),)),
    Case("find c", (Expectation("c.md"),)),
    Case("how do I fix c?", (Expectation("log.md"), Expectation("c.md"))),
    Case("kafka", ()),
    Case("helm", ()),
]


def test_metrics_on_a_hand_checked_case_set(scripted):
    report = evaluate(scripted, CASES, k=10)
    ranks = [r.get("rank") for r in report["results"]]
    assert ranks == [1, 2, 5, None, None, 1, None, None]
    assert [r["mark"] for r in report["results"]] == [
        "rank 1",
        "rank 2-3",
        "miss",
        "miss",
        "miss",
        "rank 1",
        "correct",
        "miss",
    ]
    s = report["summary"]
    assert s["answerable"] == 6 and s["absence_cases"] == 2
    assert s["hit_at_1"] == round(2 / 6, 4)
    assert s["hit_at_3"] == round(3 / 6, 4)
    assert s["mrr"] == round((1 + 1 / 2 + 1 / 5 + 1) / 6, 4)
    assert s["absence_accuracy"] == 0.5
    assert s["false_absence_rate"] == round(1 / 6, 4)
    false_absence = report["results"][4]
    assert false_absence["false_absence"] and false_absence["weak_rank"] == 2
    assert [t["path"] for t in false_absence["top"]] == ["a.md", "c.md"]
    assert report["results"][6]["correct"] and not report["results"][7]["correct"]
    assert report["warnings"] == []
    assert set(scripted.limits) == {10}


def test_mrr_counts_only_ranks_within_k(scripted):
    report = evaluate(scripted, CASES[:3], k=4)
    assert [r["rank"] for r in report["results"]] == [1, 2, None]
    assert report["summary"]["mrr"] == round((1 + 1 / 2) / 3, 4)


def test_self_quote_guard_flags_and_recomputes(scripted):
    report = evaluate(scripted, CASES, k=10)
    quoted = report["results"][5]
    # log.md holds the question (case and white space aside): flagged, and without it
    # the first acceptable answer is c.md, now second in the list.
    assert quoted["self_quote"] and quoted["guarded_rank"] == 2
    assert report["summary"]["self_quoted"] == 1
    assert not any(r.get("self_quote") for i, r in enumerate(report["results"]) if i != 5)
    g = report["guarded"]
    assert g["hit_at_1"] == round(1 / 6, 4)
    assert g["hit_at_3"] == round(3 / 6, 4)
    assert g["mrr"] == round((1 + 1 / 2 + 1 / 5 + 1 / 2) / 6, 4)


def test_a_real_vault_end_to_end(vault):
    vault.write("runbooks/restore.md", "# Restore\n\n## Verify\n\nRun pg_restore on the dump.\n")
    vault.write("notes/cats.md", "# Cats\n\nCats sleep most of the day.\n")
    cases = parse_cases(
        {
            "cases": [
                {
                    "q": "pg_restore dump",
                    "expect": [{"path": "runbooks/restore", "heading": "ver"}],
                },
                {"q": "how long do cats sleep", "expect": ["notes/cats.md"]},
                {"q": "is there anything about Kafka?", "expect": []},
                {"q": "cats", "expect": [{"path": "missing.md"}]},
            ]
        }
    )
    report = evaluate(vault.root, cases, k=5)
    assert [r["mark"] for r in report["results"]] == ["rank 1", "rank 1", "correct", "miss"]
    assert report["warnings"] == [
        "case 4: missing.md is not a note in the vault (a typo, or a moved note?)"
    ]
    json.dumps(report)  # the --json shape is plain JSON


def test_ranking_overrides_apply_for_one_run(vault):
    vault.write("a.md", "# A\n\nzebra crossing\n")
    cases = [Case("zebra", (Expectation("a.md"),))]
    report = evaluate(vault.root, cases, ranking={"weak_coverage": 1.0, "w_title": 2.5})
    assert report["ranking"] == {"weak_coverage": 1.0, "w_title": 2.5}
    with pytest.raises(InvalidInputError, match="unknown ranking setting"):
        evaluate(vault.root, cases, ranking={"no_such": 1.0})
    with Mnemosyne(vault.root) as engine, pytest.raises(InvalidInputError, match="vault path"):
        evaluate(engine, cases, ranking={"k1": 1.0})


def test_the_shipped_example_cases_run_on_the_example_vault():
    report = evaluate(EXAMPLE_VAULT, ROOT / "cases.yaml")
    s = report["summary"]
    assert report["cases"] == 16 and s["absence_cases"] == 3
    assert report["warnings"] == []
    assert s["absence_accuracy"] == 1.0 and s["hit_at_3"] >= 0.75


def test_case_files_json_and_yaml(tmp_path):
    (tmp_path / "c.json").write_text(
        json.dumps({"cases": [{"q": "x", "expect": [{"path": "a.md", "heading": "H"}]}]}),
        encoding="utf-8",
    )
    assert load_cases(tmp_path / "c.json") == [Case("x", (Expectation("a.md", "H"),))]
    (tmp_path / "c.yaml").write_text(
        "cases:\n  - q: x\n    expect:\n      - path: j.md\n        heading: 2026-03-02\n"
        "  - q: y\n    expect: []\n",
        encoding="utf-8",
    )
    assert load_cases(tmp_path / "c.yaml") == [
        Case("x", (Expectation("j.md", "2026-03-02"),)),
        Case("y", ()),
    ]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"cases": []}, "no cases"),
        ({"tests": []}, "unknown top-level"),
        ({"cases": [{"q": "x"}]}, "needs both q and expect"),
        ({"cases": [{"q": "x", "expect": "a.md"}]}, "must be a list"),
        ({"cases": [{"q": "", "expect": []}]}, "q is empty"),
        ({"cases": [{"q": "x", "expect": [{"heading": "h"}]}]}, "with a path"),
        ({"cases": [{"q": "x", "expect": [], "k": 3}]}, "unknown key"),
    ],
)
def test_bad_case_data_is_refused_with_the_fix(data, message):
    with pytest.raises(InvalidInputError, match=message):
        parse_cases(data)


def test_unreadable_case_files(tmp_path):
    with pytest.raises(InvalidInputError, match="case file not found"):
        load_cases(tmp_path / "none.yaml")
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        load_cases(tmp_path / "bad.json")
    (tmp_path / "bad.yaml").write_text("cases:\n\t- q: x\n", encoding="utf-8")
    with pytest.raises(InvalidInputError, match="fix the YAML"):
        load_cases(tmp_path / "bad.yaml")


def test_short_lookups_are_not_self_quotes(vault):
    from birkin_mnemosyne import Mnemosyne

    vault.write("hosts/db1.md", "# db1\n\nFix ECONNREFUSED on pg_hba.conf by adding the subnet.\n")
    vault.write("journal/log.md", "# Log\n\nasked: why does the dump fail on db1 tonight\n")
    cases = [
        Case("ECONNREFUSED pg_hba.conf", (Expectation("hosts/db1.md"),)),
        Case("why does the dump fail on db1 tonight", (Expectation("journal/log.md"),)),
    ]
    report = evaluate(Mnemosyne(vault.root), cases, k=5)
    lookup, question = report["results"]
    assert lookup["rank"] == 1 and not lookup["self_quote"]
    assert question["rank"] == 1 and question["self_quote"]
