"""BM25F maths (hand-computed oracle), postings round-trips and compaction."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birkin_mnemosyne.engine import Mnemosyne
from birkin_mnemosyne.index import BM25FParams, Index, decode_postings, encode_postings

ORACLE = {
    "n1.md": "---\ntitle: alpha\n---\ncat cat dog\n",
    "n2.md": "---\ntitle: beta\n---\ndog bird\n",
    "n3.md": "---\ntitle: gamma\n---\ncat fish fish fish\n",
    "n4.md": "---\ntitle: cat\n---\nbird\n",
}


def _section_scores(vault, query_terms):
    for rel, text in ORACLE.items():
        vault.write(rel, text, dedent=False)
    engine = Mnemosyne(vault.root)
    index = engine.index
    scores = index.score_terms(query_terms, params=BM25FParams())
    by_path = {index.notes[index.sec_note[sid]]["path"]: s for sid, s in scores.scores.items()}
    return by_path, scores


def test_bm25f_matches_hand_computed_scores(vault):
    by_path, scores = _section_scores(vault, ["cat"])
    # Four notes, one section each. Body lengths 3, 2, 4, 1 -> average 2.5.
    # Every title is one term long -> average title length 1.
    # "cat" occurs in n1 (body x2), n3 (body x1) and n4 (title): df = 3 of N = 4.
    k1, b_body, w_title = 1.2, 0.75, 3.0
    idf = math.log(1 + (4 - 3 + 0.5) / (3 + 0.5))
    tf_n1 = 2 / (1 - b_body + b_body * 3 / 2.5)  # 1.73913
    tf_n3 = 1 / (1 - b_body + b_body * 4 / 2.5)  # 0.68966
    tf_n4 = w_title * 1 / (1 - 0.5 + 0.5 * 1 / 1)  # 3.0
    expected = {
        "n1.md": idf * tf_n1 * (k1 + 1) / (k1 + tf_n1),
        "n3.md": idf * tf_n3 * (k1 + 1) / (k1 + tf_n3),
        "n4.md": idf * tf_n4 * (k1 + 1) / (k1 + tf_n4),
    }
    assert scores.df == [3]
    assert set(by_path) == set(expected)
    for path, value in expected.items():
        assert math.isclose(by_path[path], value, rel_tol=1e-9), path
    # and the literal numbers, so a formula change is noticed
    assert math.isclose(by_path["n4.md"], 0.5604892, rel_tol=1e-6)
    assert math.isclose(by_path["n1.md"], 0.4643106, rel_tol=1e-6)
    assert math.isclose(by_path["n3.md"], 0.2863813, rel_tol=1e-6)


def test_bm25f_sums_terms_and_unknown_terms_score_nothing(vault):
    by_path, scores = _section_scores(vault, ["fish", "nosuchterm"])
    assert scores.df == [1, 0]
    assert scores.idf[1] == 0.0
    idf = math.log(1 + (4 - 1 + 0.5) / (1 + 0.5))
    tf = 3 / (1 - 0.75 + 0.75 * 4 / 2.5)
    assert list(by_path) == ["n3.md"]
    assert math.isclose(by_path["n3.md"], idf * tf * 2.2 / (1.2 + tf), rel_tol=1e-9)


def test_scores_do_not_depend_on_note_order(tmp_path):
    notes = list(ORACLE.items())
    results = []
    for seed in range(3):
        random.Random(seed).shuffle(notes)
        root = tmp_path / f"v{seed}"
        root.mkdir()
        for rel, text in notes:
            (root / rel).write_text(text, encoding="utf-8")
        engine = Mnemosyne(root)
        hits = engine.search("cat dog", limit=10)
        results.append([(h["path"], h["score"]) for h in hits])
    assert results[0] == results[1] == results[2]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 70_000), st.integers(0, 255), st.integers(0, 255)),
        max_size=60,
        unique_by=lambda r: r[0],
    )
)
def test_postings_round_trip(rows):
    rows.sort()
    ids = [r[0] for r in rows]
    codes = [r[1] | r[2] << 8 for r in rows]
    blob = encode_postings(ids, codes)
    assert blob.isascii() and '"' not in blob and "\\" not in blob
    got_ids, got_codes = decode_postings(blob)
    assert list(got_ids) == ids and list(got_codes) == codes


def test_small_values_take_one_symbol_each():
    # count, then first id 0, deltas 3 and 6; body tf 1, 1, 2 (+ heading tf 1 on the last)
    assert len(encode_postings([0, 3, 9], [1, 1, 2 | 1 << 8])) == 1 + 6
    # a delta of 40 and a code of 300 do not fit one symbol: they follow as exceptions
    assert len(encode_postings([0, 40], [1, 300])) > 1 + 4


@pytest.mark.parametrize("blob", ["!!", "C", "CAAAAA", "BAf"])
def test_damaged_postings_text_is_refused(blob):
    with pytest.raises(ValueError):
        decode_postings(blob)


class _MemoryBlocks:
    """A stand-in for cache.BlockFile over blocks held in memory."""

    def __init__(self, blocks):
        self.data = b"".join(blocks)

    def raw_block(self, offset, length):
        return self.data[offset : offset + length]

    def block_bytes(self, offset, length, size=None):
        import zlib

        return zlib.decompress(self.raw_block(offset, length))

    def block(self, offset, length, size=None):
        return self.block_bytes(offset, length, size).decode("utf-8")


def test_compact_and_serialise_keep_scores(vault):
    for i in range(12):
        vault.write(
            f"n{i}.md", f"# Note {i}\n\nshared words here\n\n## Part\n\nitem{i} cat {'dog ' * i}\n"
        )
    engine = Mnemosyne(vault.root)
    before = {h["path"]: h["score"] for h in engine.search("cat dog", limit=20)}
    index = engine.index
    for i in range(0, 12, 2):
        index.remove(f"n{i}.md")
    survivors = {p: s for p, s in before.items() if int(p[1:-3]) % 2}
    scores_tomb = index.score_terms(["cat", "dog"]).scores
    index.compact()
    scores_compact = index.score_terms(["cat", "dog"]).scores
    assert sorted(scores_tomb.values()) == sorted(scores_compact.values())
    header, blocks = index.to_store()
    restored = Index.from_store(header, _MemoryBlocks(blocks))
    assert restored.score_terms(["cat", "dog"]).scores == scores_compact
    assert {restored.notes[n]["path"] for n in restored.live_note_ids()} == set(survivors)


def _naive_note_maps(index, ts):
    """note_best / note_second / note_bounds worked out from ``contrib`` the plain way."""
    per_note: dict[int, list[float]] = {}
    for sid, value in ts.contrib.items():
        per_note.setdefault(index.sec_note[sid], []).append(value)
    best = {nid: max(values) for nid, values in per_note.items()}
    second = {nid: sorted(values)[-2] for nid, values in per_note.items() if len(values) > 1}
    return best, second


def test_term_scores_maps_agree_with_a_plain_derivation(vault):
    rng = random.Random(3)
    words = ["cat", "dog", "bird", "fish", "emu"]
    for i in range(30):
        parts = []
        for s in range(rng.randint(1, 4)):
            body = " ".join(rng.choices(words, k=rng.randint(1, 12)))
            heading = rng.choice(words) if rng.random() < 0.4 else f"part {s}"
            parts.append(f"## {heading}\n\n{body}\n")
        vault.write(f"n{i}.md", f"---\ntitle: {rng.choice(words)} n{i}\n---\n" + "\n".join(parts))
    engine = Mnemosyne(vault.root)
    index = engine.index
    for i in range(0, 30, 7):  # tombstones must be left out
        index.remove(f"n{i}.md")
    for term in words:
        ts = index.term_scores(term)
        assert list(ts.contrib.keys()) == sorted(ts.contrib.keys())
        assert all(index.sec_note[sid] >= 0 for sid in ts.contrib)
        assert ts.df == len(ts.contrib)
        best, second = _naive_note_maps(index, ts)
        assert dict(ts.note_best.items()) == best
        assert dict(ts.note_second.items()) == second
        for nid, sid in ts.note_best_sid.items():
            assert index.sec_note[sid] == nid and ts.contrib[sid] == best[nid]
        bounds = ts.note_bounds(0.2)
        assert dict(bounds.items()) == {
            nid: value + 0.2 * second[nid] if nid in second else value
            for nid, value in best.items()
        }
        assert list(ts.second_all) == [second.get(nid, 0.0) for nid in ts.note_best]


def test_postings_out_of_note_order_are_reported_as_a_damaged_index(vault):
    # Sections are numbered in note order, so one pass groups a note's postings; a
    # section map that breaks that is damage, which the engine answers by rebuilding.
    from birkin_mnemosyne.index import IndexCorruptError

    vault.write("a.md", "# A\n\ncat one\n")
    vault.write("b.md", "# B\n\ncat two\n")
    index = Mnemosyne(vault.root).index
    ids, _ = index.sections.get("cat")
    first, second = ids[0], ids[1]
    index.sec_note[first], index.sec_note[second] = index.sec_note[second], index.sec_note[first]
    with pytest.raises(IndexCorruptError, match="out of note order"):
        index.term_scores("cat")


def test_sorted_map_behaves_like_a_read_only_dict():
    from array import array

    from birkin_mnemosyne.index import SortedMap

    plain = {2: 0.5, 7: 1.5, 40: 2.5}
    mapped = SortedMap(array("I", plain), array("d", plain.values()))
    assert len(mapped) == 3 and list(mapped) == [2, 7, 40]
    assert dict(mapped.items()) == plain and mapped == plain
    for key in (0, 2, 3, 7, 39, 40, 41):
        assert (key in mapped) == (key in plain)
        assert mapped.get(key) == plain.get(key)
        assert mapped.get(key, -1.0) == plain.get(key, -1.0)
    assert mapped[7] == 1.5
    with pytest.raises(KeyError):
        mapped[8]
    with pytest.raises(ValueError):
        SortedMap(array("I", [1, 2]), array("d", [1.0]))
    assert 5 not in SortedMap(array("I"), array("d"))


def _term_maps(index, term):
    ts = index.term_scores(term)
    path = lambda nid: index.notes[nid]["path"]  # noqa: E731
    return (
        {path(n): v for n, v in ts.note_best.items()},
        {path(n): v for n, v in ts.note_second.items()},
        dict(zip(map(path, ts.note_best.keys()), ts.whole)),
        ts.df,
        ts.idf,
    )


def test_an_edit_keeps_the_cached_scores_of_the_terms_it_does_not_touch(vault, tmp_path):
    for i in range(10):
        vault.write(f"n{i}.md", f"# Note {i}\n\nshared dog words\n\n## Part\n\ncat item{i}\n")
    engine = Mnemosyne(vault.root)
    index = engine.index
    item5, dog, cat = (index.term_scores(t) for t in ("item5", "dog", "cat"))
    # Same lengths, same sections: the collection statistics do not move.
    vault.write("n3.md", "# Note 3\n\nshared dog words\n\n## Part\n\neel item3\n")
    engine.refresh(paths=["n3.md"])
    index = engine.index
    assert index.term_scores("item5") is item5  # not in n3: kept
    assert index.term_scores("dog") is not dog  # n3's sections were replaced
    assert index.term_scores("cat") is not cat
    assert "n3.md" not in _term_maps(index, "cat")[0]
    assert "n3.md" in _term_maps(index, "eel")[0]
    copy = tmp_path / "copy"
    copy.mkdir()
    for note in vault.root.glob("*.md"):
        (copy / note.name).write_bytes(note.read_bytes())
    fresh = Mnemosyne(copy).index
    for term in ("dog", "cat", "eel", "item3", "item5", "shared"):
        assert _term_maps(index, term) == _term_maps(fresh, term), term


def test_scores_after_any_edits_equal_a_fresh_build(tmp_path):
    """Cached scores kept across edits are those a fresh index of the same notes computes,
    also when the edits move the coarse statistics (then all are scored again)."""
    rng = random.Random(7)
    words = ["cat", "dog", "eel", "fox", "gnu", "hen", "owl", "yak"]
    root = tmp_path / "v"
    root.mkdir()

    def write(i):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        extra = "\n\n## More\n\n" + " ".join(rng.sample(words, 3)) if rng.random() < 0.5 else ""
        (root / f"n{i}.md").write_text(f"# Note {i}\n\n{body}{extra}\n", encoding="utf-8")

    for i in range(40):
        write(i)
    engine = Mnemosyne(root)
    patched = 0
    for step in range(40):
        for term in rng.sample(words, 4):
            engine.index.term_scores(term)  # warm some terms before each change
        i = rng.randrange(45)
        note = root / f"n{i}.md"
        roll = rng.random()
        if roll < 0.2 and note.exists():
            note.unlink()
        elif roll < 0.6 and note.exists():
            # the usual edit: a line more of words the note holds (the df stays)
            text = note.read_text(encoding="utf-8")
            held = [w for w in words if w in text] or words[:1]
            note.write_text(text + " ".join(rng.choices(held, k=3)) + "\n", encoding="utf-8")
        else:
            write(i)
        engine.refresh(paths=[f"n{i}.md"])
        check = tmp_path / f"fresh{step}"
        check.mkdir()
        for note in root.glob("*.md"):
            (check / note.name).write_bytes(note.read_bytes())
        fresh = Mnemosyne(check).index
        index = engine.index
        patched += sum(1 for term in words if term in index._term_changes)
        for term in words:
            assert _term_maps(index, term) == _term_maps(fresh, term), (step, term)
    assert patched  # the edits did reach cached scores that were then patched


def test_coarse_statistics_keep_eight_leading_bits():
    from birkin_mnemosyne.index import _coarse

    assert [_coarse(v) for v in (0, 1, 255, 256, 257, 1000)] == [0, 1, 255, 256, 256, 1000 & ~3]
    for value in (300, 4_097, 1_234_567, 98_765_432):
        assert value * (1 - 1 / 128) <= _coarse(value) <= value
        assert _coarse(_coarse(value)) == _coarse(value)


def test_a_cached_term_never_hoards_changes(tmp_path):
    from birkin_mnemosyne.index import _MAX_TERM_CHANGES

    root = tmp_path / "v"
    root.mkdir()
    for i in range(10):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\ncommon word{i}\n", encoding="utf-8")
    engine = Mnemosyne(root)
    engine.index.term_scores("common")
    for step in range(_MAX_TERM_CHANGES):
        (root / "n1.md").write_text(f"# Note 1\n\ncommon edit{step}\n", encoding="utf-8")
        engine.refresh(paths=["n1.md"])
    index = engine.index
    assert "common" not in index._term_changes and "common" not in index._term_cache
    assert _term_maps(index, "common")[3] == 10  # scored again in full, when asked


def test_a_full_term_cache_keeps_part_of_a_cycle_of_queries(tmp_path, monkeypatch):
    # Terms asked in turn, more postings than the cache holds: the victims are random, so
    # a second round finds some cached (oldest-out would find none) and scores the same.
    import birkin_mnemosyne.index as index_module

    root = tmp_path / "v"
    root.mkdir()
    words = [f"word{i}" for i in range(20)]
    for n in range(30):
        (root / f"n{n}.md").write_text(f"# N{n}\n\n{' '.join(words[n % 7 :])}\n", encoding="utf-8")
    engine = Mnemosyne(root)
    index = engine.index
    fresh = {w: _term_maps(index, w) for w in words}
    index._term_cache.clear()
    index._term_cached_postings = 0
    total = sum(maps[3] for maps in fresh.values())  # every term's postings
    monkeypatch.setattr(index_module, "_TERM_CACHE_POSTINGS", total // 2)
    for w in words:
        index.term_scores(w)
    assert index._term_cached_postings <= total // 2
    hits = 0
    for w in words:
        hits += w in index._term_cache
        assert _term_maps(index, w) == fresh[w]
    assert 0 < hits < len(words)
