"""Hybrid retrieval with a tiny hand-made model2vec model (built here, never downloaded)."""

from __future__ import annotations

import json

import pytest

np = pytest.importorskip("numpy", reason="the 'semantic' extra is not installed")
pytest.importorskip("model2vec", reason="the 'semantic' extra is not installed")

from birkin_mnemosyne import Mnemosyne, semantic  # noqa: E402
from birkin_mnemosyne.cache import cache_dir  # noqa: E402

# Each word points along one topic axis: 0 data recovery, 1 cooking, 2 networking.
TOPICS = {
    0: "database restore recover recovery backup dump data lost postgres bring back",
    1: "cake chocolate recipe oven bake flour sugar",
    2: "firewall port network vlan router",
}


def build_model(folder):
    from model2vec import StaticModel
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    words = [w for text in TOPICS.values() for w in text.split()]
    vocab = {"[UNK]": 0, "[PAD]": 1, **{w: i + 2 for i, w in enumerate(dict.fromkeys(words))}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    vectors = np.zeros((len(vocab), 4), dtype=np.float32)
    vectors[:, 3] = 0.05  # every word shares a little of a common axis
    for axis, text in TOPICS.items():
        for word in text.split():
            vectors[vocab[word], axis] = 1.0
    StaticModel(vectors, tokenizer, normalize=True).save_pretrained(str(folder))
    return folder


@pytest.fixture
def model(tmp_path):
    return build_model(tmp_path / "tiny-model")


@pytest.fixture
def notes(vault):
    vault.write(
        "runbooks/restore.md",
        """
        # Postgres runbook

        ## Backup
        Take a dump every night.

        ## Restore
        Restore the database from the dump.

        ## Contacts
        Ask the on-call person.
        """,
    )
    vault.write("kitchen/cake.md", "# Cake\n\nA chocolate cake recipe: flour, sugar, oven.\n")
    vault.write("net/firewall.md", "# Firewall\n\nOpen the port on the router.\n")
    return vault


def engine(vault, model, **options) -> Mnemosyne:
    if semantic.prepared_model(vault.root) is None:
        semantic.prepare(vault.root, str(model))
    return Mnemosyne(vault.root, semantic=True, refresh_interval=0, **options)


def test_prepare_records_the_model_and_search_goes_hybrid(notes, model):
    record = semantic.prepare(notes.root, str(model))
    assert record["dimensions"] == 4 and len(record["fingerprint"]) == 64
    assert semantic.prepared_model(notes.root) == record
    response = Mnemosyne(notes.root, semantic=True).search_response("recover lost data")
    assert response["mode"] == "hybrid" and response["degraded_reason"] is None
    # Lexically a miss, so the verdict stays "no strong match" (FusionParams.strong is
    # off by default), but the closest notes now come from the semantic order.
    assert response["no_strong_match"] is True
    top = response["best_weak"][0]
    assert top["path"] == "runbooks/restore.md" and top["provenance"] == "semantic"


def test_no_prepared_model_searches_lexical_and_says_how_to_fix(notes, caplog):
    response = Mnemosyne(notes.root, semantic=True).search_response("restore database")
    assert response["mode"] == "lexical"
    assert "no model is prepared" in response["degraded_reason"]
    assert "mnemosyne semantic prepare" in response["degraded_reason"]
    assert response["hits"][0]["provenance"] == "keyword"


def test_provenance_both_when_both_orders_find_it(notes, model):
    hits = engine(notes, model).search("restore the database")
    assert hits[0]["path"] == "runbooks/restore.md" and hits[0]["provenance"] == "both"


def test_fusion_keeps_full_lexical_matches_first(notes, model):
    # Only this note holds both query words, but its vector leans to data recovery, so
    # the cake (oven) and firewall (port) notes are semantically closer to the query.
    notes.write(
        "lab/notes.md",
        "# Lab\n\nThe oven port. Database restore, recover the backup dump, lost data.\n",
    )
    search = engine(notes, model)
    neighbours = search._semantic_index().query("oven port", search.index)
    assert search.index.notes[neighbours[0][0]]["path"] != "lab/notes.md"
    hits = search.search("oven port")
    assert hits[0]["path"] == "lab/notes.md"
    assert hits[0]["provenance"] in ("keyword", "both")


def test_the_relevance_floor_gives_no_strong_match_off_topic(notes, model):
    notes.write("kitchen/cake.md", "# Sweets\n\nNothing here.\n")  # no cooking words left
    response = engine(notes, model).search_response("chocolate cake recipe")
    assert response["mode"] == "hybrid"
    assert response["no_strong_match"] is True and response["hits"] == []


def test_a_strong_semantic_match_answers_a_lexical_miss_only_when_enabled(notes, model):
    from birkin_mnemosyne.fusion import FusionParams

    search = engine(notes, model)
    # No note holds any of these words: lexically a miss.
    default = search.search_response("bring back lost")
    assert default["no_strong_match"] is True  # strong=None: the verdict stays lexical
    assert default["best_weak"][0]["path"] == "runbooks/restore.md"
    assert default["best_weak"][0]["provenance"] == "semantic"
    search.fusion = FusionParams(strong=0.9)
    response = search.search_response("bring back lost")
    assert response["no_strong_match"] is False
    assert response["hits"][0]["path"] == "runbooks/restore.md"
    assert response["signals"]["semantic_best"] >= 0.9


def test_editing_one_paragraph_re_embeds_only_that_section(notes, model):
    search = engine(notes, model)
    search.search("database")
    index = search._semantic
    sections = index.embedded
    assert sections == search.stats()["sections"]
    notes.write(
        "runbooks/restore.md",
        """
        # Postgres runbook

        ## Backup
        Take a dump every night.

        ## Restore
        Restore the database from last night's dump, then check it.

        ## Contacts
        Ask the on-call person.
        """,
    )
    search.search("database")
    assert index.embedded == sections + 1
    # A new engine reuses every stored vector.
    again = Mnemosyne(notes.root, semantic=True)
    again.search("database")
    assert again._semantic.embedded == 0
    # Deleting a note prunes its vectors.
    (notes.root / "kitchen/cake.md").unlink()
    result = search._semantic.sync(
        search.index, object(), lambda nid: search._embed_texts(search.index, nid)
    )
    assert result["pruned"] >= 1 and result["embedded"] == 0


def test_the_vectors_load_without_pickle(notes, model):
    engine(notes, model).search("database")
    header = json.loads((cache_dir(notes.root) / semantic.HEADER).read_text(encoding="utf-8"))
    matrix = np.load(cache_dir(notes.root) / semantic.VECTORS, allow_pickle=False)
    assert matrix.dtype == np.float16 and matrix.shape == (header["rows"], 4)
    contract = header["contract"]
    assert contract["dimensions"] == 4 and contract["dtype"] == "float16"
    assert contract["normalisation"] == "l2" and contract["chunking"] == semantic.CHUNKING_VERSION
    assert contract["fingerprint"] == semantic.prepared_model(notes.root)["fingerprint"]


def test_a_contract_mismatch_is_refused_and_rebuilt(notes, model, caplog):
    engine(notes, model).search("database")
    path = cache_dir(notes.root) / semantic.HEADER
    header = json.loads(path.read_text(encoding="utf-8"))
    header["contract"]["fingerprint"] = "another-model"
    path.write_text(json.dumps(header), encoding="utf-8")
    fresh = Mnemosyne(notes.root, semantic=True)
    response = fresh.search_response("database")
    refused = [w for w in fresh.warnings if w.startswith("semantic vectors refused")]
    assert len(refused) == 1 and "fingerprint 'another-model'" in refused[0]
    assert fresh._semantic.embedded == fresh.stats()["sections"]  # none reused
    assert response["mode"] == "hybrid"
    rebuilt = json.loads(path.read_text(encoding="utf-8"))
    assert rebuilt["contract"]["fingerprint"] != "another-model"


def test_the_context_prefix_is_embedded(notes, model):
    search = engine(notes, model)
    index = search.index
    nid = index.by_path["runbooks/restore.md"]
    texts = search._embed_texts(index, nid)
    assert any(text.startswith("Postgres runbook > Restore\n") for text in texts)


def test_cli_prepare_status_and_search(notes, model, cli):
    code, out, _ = cli("semantic", "status", "--vault", notes.root)
    assert code == 1 and "no model is prepared" in out
    code, out, _ = cli("semantic", "prepare", "--model", model, "--vault", notes.root, "--json")
    assert code == 0 and json.loads(out)["dimensions"] == 4
    code, out, _ = cli("--vault", notes.root, "search", "--semantic", "restore database", "--json")
    response = json.loads(out)
    assert code == 0 and response["mode"] == "hybrid"
    assert response["hits"][0]["provenance"] == "both"
    code, out, _ = cli("--vault", notes.root, "search", "restore database", "--json")
    assert json.loads(out)["mode"] == "lexical"  # off unless asked for


def test_query_coverage_counts_whole_vocabulary_words(notes, model):
    index = engine(notes, model)._semantic_index()
    assert index.query_coverage("restore the database") == pytest.approx(2 / 3)  # "the"
    assert index.query_coverage("Database RESTORE") == 1.0  # the tokenizer lowercases
    assert index.query_coverage("데이터베이스 복원") == 0.0  # unknown to the model
    assert index.query_coverage("?!") == 0.0


def test_similarities_reach_notes_outside_the_neighbour_pool(notes, model):
    search = engine(notes, model)
    hybrid = search._semantic_index()
    by_path = {meta["path"]: nid for nid, meta in enumerate(search.index.notes) if meta}
    near = {nid: (sim, sid) for nid, sim, sid in hybrid.query("restore dump", search.index)}
    wanted = [by_path["runbooks/restore.md"], by_path["kitchen/cake.md"]]
    sims = hybrid.similarities("restore dump", search.index, wanted)
    assert sims == {nid: near[nid] for nid in wanted}
    assert sims[wanted[0]][0] > sims[wanted[1]][0]


def test_a_query_the_model_does_not_know_keeps_the_lexical_order(notes, model):
    # "le gâteau, la recette" is a miss for the model's tokenizer: coverage 0.
    notes.write("kitchen/french.md", "# Gâteau\n\nLa recette du gâteau au chocolat.\n")
    notes.write("kitchen/other.md", "# Recette\n\nUne recette: le gâteau.\n")
    query = "le gâteau la recette"
    hybrid = engine(notes, model)
    assert hybrid._semantic_index().query_coverage(query) == 0.0
    lexical = Mnemosyne(notes.root, refresh_interval=0).search_response(query)
    fused = hybrid.search_response(query)
    assert fused["mode"] == "hybrid"
    key = "best_weak" if lexical["no_strong_match"] else "hits"
    assert [h["path"] for h in fused[key]] == [h["path"] for h in lexical[key]]
    assert all(h["provenance"] in ("keyword", "both") for h in fused[key])


def test_building_the_vectors_reports_every_section_embedded(notes, model):
    events = []
    search = engine(notes, model, on_progress=events.append)
    search.search("restore the database")
    embedded = [event for event in events if event.phase == "embed"]
    assert embedded[0].done == 0 and embedded[-1].finished
    sections = sum(len(search.index.note_sections(nid)) for nid in range(3))
    assert embedded[-1].total == search._semantic.embedded == sections >= 5
    events.clear()
    search.search("restore the database")
    assert not [event for event in events if event.phase == "embed"]  # nothing new


def test_the_cli_shows_the_vector_build_on_stderr(notes, model, cli, monkeypatch):
    semantic.prepare(notes.root, str(model))
    monkeypatch.setenv("MNEMOSYNE_PROGRESS_DELAY", "0")
    code, out, err = cli("--vault", notes.root, "search", "--semantic", "restore", "--json")
    assert code == 0 and json.loads(out)["mode"] == "hybrid"  # stdout stays JSON
    index = Mnemosyne(notes.root).index
    sections = sum(len(index.note_sections(nid)) for nid in range(3))
    assert f"mnemosyne: embedding sections {sections}/{sections} (100%), done in" in err
    code, _, err = cli("--vault", notes.root, "search", "--semantic", "restore", "--json")
    assert code == 0 and "embedding sections" not in err  # nothing new to embed
