"""Semantic search without the extra or without a prepared model: lexical, and says why."""

from __future__ import annotations

import logging
import sys

import pytest

from birkin_mnemosyne import Mnemosyne

INSTALL = 'pip install "birkin-mnemosyne[semantic]"'


def _hide_extra(monkeypatch):
    # A None entry in sys.modules makes `import numpy` raise ImportError.
    for name in ("numpy", "model2vec"):
        monkeypatch.setitem(sys.modules, name, None)


def test_the_module_imports_without_the_extra_and_names_the_install(monkeypatch):
    _hide_extra(monkeypatch)
    from birkin_mnemosyne import semantic

    message = semantic.missing_extra()
    assert message is not None and INSTALL in message


def test_missing_extra_searches_lexical_and_logs_one_line(vault, monkeypatch, caplog):
    _hide_extra(monkeypatch)
    vault.write("ops/restore.md", "# Restore\n\nRestore the database from the dump.\n")
    engine = Mnemosyne(vault.root, semantic=True)
    with caplog.at_level(logging.WARNING, logger="birkin_mnemosyne"):
        first = engine.search_response("restore database")
        second = engine.search_response("database dump")
    for response in (first, second):
        assert response["mode"] == "lexical"
        assert INSTALL in response["degraded_reason"]
        assert response["degraded_reason"].endswith("searching lexical-only")
        assert all(hit["provenance"] == "keyword" for hit in response["hits"])
    assert first["hits"][0]["path"] == "ops/restore.md"
    lines = [r.getMessage() for r in caplog.records if "semantic" in r.getMessage()]
    assert lines == [first["degraded_reason"]]
    assert engine.stats()["mode"] == "lexical"


def test_the_environment_variable_turns_it_on(vault, monkeypatch):
    _hide_extra(monkeypatch)
    vault.write("a.md", "# A\n\nalpha\n")
    monkeypatch.setenv("MNEMOSYNE_SEMANTIC", "1")
    response = Mnemosyne(vault.root).search_response("alpha")
    assert response["mode"] == "lexical" and INSTALL in response["degraded_reason"]


def test_off_by_default_with_no_reason(vault):
    vault.write("a.md", "# A\n\nalpha\n")
    response = Mnemosyne(vault.root).search_response("alpha")
    assert response["mode"] == "lexical" and response["degraded_reason"] is None


def test_fusion_keeps_full_lexical_matches_first():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    params = FusionParams(method="rrf", semantic_weight=1.0, floor=0.5)
    fused = fuse(
        [(1, False, 3.0), (2, True, 2.0), (3, False, 1.0)],
        [(4, 0.9), (1, 0.8), (5, 0.3), (3, 0.2)],
        limit=10,
        params=params,
    )
    assert fused[0].nid == 2 and fused[0].full and fused[0].provenance == "keyword"
    by_nid = {item.nid: item for item in fused}
    assert by_nid[1].provenance == "both"
    assert by_nid[4].provenance == "semantic"
    assert 5 not in by_nid  # semantic-only and below the floor
    assert [item.nid for item in fused][:2] == [2, 1]  # both orders agree on 1


def test_fusion_is_reciprocal_rank():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    params = FusionParams(method="rrf", k=10.0, semantic_weight=1.0, floor=0.0)
    fused = fuse([(7, False, 1.0)], [(8, 0.9), (7, 0.1)], limit=5, params=params)
    scores = {item.nid: item.score for item in fused}
    assert scores[7] == 1 / 11 + 1 / 12
    assert scores[8] == 1 / 11


def test_convex_fusion_keeps_the_lexical_margin():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    params = FusionParams(method="convex", semantic_weight=0.5, floor=0.5)
    fused = fuse(
        [(1, False, 10.0), (2, False, 5.0)],
        [(2, 0.75), (3, 1.0), (1, 0.5), (4, 0.4)],
        limit=10,
        params=params,
    )
    scores = {item.nid: item.score for item in fused}
    # 2 is far outside the rerank band (5 < 0.9 * 10): its higher cosine earns nothing.
    # 3 is semantic-only above the floor: 0.5 * (1.0 - 0.5) / (1 - 0.5).
    assert scores == {1: 0.5, 2: 0.25, 3: 0.5}
    # ties break on the lexical rank; a note in both orders is "both" even at the floor
    assert [(item.nid, item.provenance) for item in fused] == [
        (1, "both"),
        (3, "semantic"),
        (2, "both"),
    ]
    assert 4 not in scores


LEXICAL = [(1, False, 10.0), (2, False, 9.5), (3, False, 5.0), (4, False, 4.0)]
# Cosines of the lexical candidates: median 0.75, max 0.95 (3 is the closest, but far
# behind lexically).
COSINES = {1: 0.6, 2: 0.9, 3: 0.95, 4: 0.5}


def test_semantics_breaks_a_lexical_near_tie():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    params = FusionParams(semantic_weight=0.3, rerank_band=0.1, min_coverage=0.5)
    fused = fuse(LEXICAL, [], limit=10, params=params, candidates=COSINES, coverage=1.0)
    scores = {item.nid: item.score for item in fused}
    assert [item.nid for item in fused] == [2, 1, 3, 4]
    # 2 is within the band: (1 - 0.3) * 9.5 / 10 + 0.3 * (0.9 - 0.75) / (0.95 - 0.75)
    assert scores[2] == pytest.approx(0.7 * 0.95 + 0.3 * 0.75)
    assert scores[1] == pytest.approx(0.7)  # below the median: no gain, no penalty
    assert scores[3] == pytest.approx(0.7 * 0.5)  # outside the band: no gain


def test_a_confident_lexical_answer_is_left_alone_inside_a_narrow_band():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    lexical = [(1, False, 10.0), (2, False, 8.0), (3, False, 7.0)]
    cosines = {1: 0.1, 2: 0.99, 3: 0.98}
    narrow = FusionParams(rerank_band=0.1)
    fused = fuse(lexical, [], limit=10, params=narrow, candidates=cosines, coverage=1.0)
    assert [item.nid for item in fused] == [1, 2, 3]
    # The default band reaches every lexical candidate: the closest meaning (2, at the
    # max; 3 sits at the median and gains nothing) can win: 0.7 * 0.8 + 0.3 > 0.7.
    fused = fuse(lexical, [], limit=10, candidates=cosines, coverage=1.0)
    assert [item.nid for item in fused] == [2, 1, 3]


def test_low_query_coverage_turns_the_semantic_weight_off():
    from birkin_mnemosyne.fusion import FusionParams, fuse, semantic_share

    params = FusionParams(semantic_weight=0.3, min_coverage=0.5)
    assert semantic_share(0.0, params) == 0.0
    assert semantic_share(0.5, params) == 0.0
    assert semantic_share(0.75, params) == pytest.approx(0.15)
    assert semantic_share(1.0, params) == pytest.approx(0.3)
    # An English model reading a Korean query: its cosines are noise, so the fused
    # order is the lexical order and no semantic-only neighbour enters, even above the
    # floor.
    fused = fuse(LEXICAL, [(9, 0.99)], limit=10, params=params, candidates=COSINES, coverage=0.0)
    assert [item.nid for item in fused] == [1, 2, 3, 4]
    assert [item.score for item in fused] == [1.0, 0.95, 0.5, 0.4]


def test_full_lexical_matches_stay_first_after_the_rerank():
    from birkin_mnemosyne.fusion import fuse

    lexical = [(1, True, 10.0), (2, False, 9.9)]
    fused = fuse(lexical, [(3, 0.999)], limit=10, candidates={1: 0.1, 2: 0.99}, coverage=1.0)
    assert [item.nid for item in fused][0] == 1 and fused[0].full


def test_the_mcp_launcher_takes_semantic():
    from birkin_mnemosyne.mcp_main import build_parser

    assert build_parser().parse_args(["--semantic"]).semantic is True
    assert build_parser().parse_args([]).semantic is False


def test_a_lexical_search_never_imports_the_extra(vault):
    import subprocess

    vault.write("a.md", "# A\n\nalpha\n")
    code = (
        "import sys\n"
        "from birkin_mnemosyne import Mnemosyne\n"
        f"Mnemosyne({str(vault.root)!r}).search('alpha')\n"
        "loaded = {'numpy', 'model2vec', 'birkin_mnemosyne.semantic'} & set(sys.modules)\n"
        "assert not loaded, loaded\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_fusion_keeps_the_lexical_order_where_it_is_not_the_score_order():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    # The ranking moved note 1 (a current-state question's newest journal section)
    # above note 2, whose score is higher: with nothing from the semantic leg the fused
    # order is the lexical one, and 2 takes the level of the note ranked above it.
    lexical = [(1, False, 5.0), (2, False, 9.0), (3, False, 4.0)]
    fused = fuse(lexical, [], limit=10, params=FusionParams(semantic_weight=0.3), coverage=1.0)
    assert [item.nid for item in fused] == [1, 2, 3]
    assert [item.score for item in fused] == pytest.approx([0.7, 0.7, 0.7 * 0.8])


def test_a_semantic_only_candidate_enters_above_the_floor_and_is_scored_like_the_others():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    params = FusionParams(semantic_weight=0.5, rerank_band=1.0, floor=0.6)
    lexical = [(1, False, 10.0), (2, False, 2.0)]
    # cosines: 1 at 0.5, 2 at 0.55, semantic-only 3 at 0.7 and 4 under the floor at 0.58
    fused = fuse(
        lexical,
        [(3, 0.7), (4, 0.58), (2, 0.55), (1, 0.5)],
        limit=10,
        params=params,
        coverage=1.0,
    )
    scores = {item.nid: item.score for item in fused}
    assert 4 not in scores
    # median of the pool's cosines (0.5, 0.55, 0.7) is 0.55, max 0.7: 3 gets the whole
    # semantic half, and a weak lexical match below it
    assert scores[3] == pytest.approx(0.5)
    assert scores[2] == pytest.approx(0.5 * 0.2)
    assert scores[1] == pytest.approx(0.5)
    assert [(item.nid, item.provenance) for item in fused] == [
        (1, "both"),
        (3, "semantic"),
        (2, "both"),
    ]


def test_a_query_the_model_does_not_know_lets_no_semantic_candidate_in():
    from birkin_mnemosyne.fusion import FusionParams, fuse

    params = FusionParams(semantic_weight=0.5, rerank_band=1.0, floor=0.6, min_coverage=0.5)
    fused = fuse([(1, False, 1.0)], [(3, 0.99)], limit=10, params=params, coverage=0.2)
    assert [item.nid for item in fused] == [1]
