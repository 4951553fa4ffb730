"""Search behaviour of ``Mnemosyne``: shape, grouping, filters, verdict, refresh, cache."""

from __future__ import annotations

import json
import os

import pytest
from conftest import cache_text

from birkin_mnemosyne import InvalidInputError, Mnemosyne, VaultNotFoundError
from birkin_mnemosyne.cache import BlockFile, write_block_file
from birkin_mnemosyne.engine import INDEX_FORMAT

HIT_KEYS = {
    "key",
    "path",
    "title",
    "zone",
    "heading",
    "also",
    "line",
    "score",
    "provenance",
    "snippet",
    "labels",
    "date",
    "stale",
    "archived",
}


@pytest.fixture
def ops(vault):
    vault.write(
        "runbooks/postgres-restore.md",
        """
        ---
        title: Restore PostgreSQL from the nightly dump
        tags: [postgres, backup]
        labels: [project:atlas]
        date: 2026-03-02
        ---
        # Restore PostgreSQL

        Intro about the database host db1.

        ## Before you start

        Stop the application servers first.

        ## Restore

        Run pg_restore --jobs=4 on the dump file from last night.
        Then check the row counts.

        ## Verify

        Compare row counts with yesterday and restore grants.
        """,
    )
    vault.write(
        "hosts/db1.md",
        """
        # db1

        Primary database server, PostgreSQL 14.2, port 5432.

        ## Backups

        The nightly dump runs at 02:15 UTC.
        """,
    )
    vault.write(
        "journal/2026-03.md",
        """
        # March

        ## 2026-03-05

        Talked about dump sizes again. dump dump dump dump dump.
        """,
    )
    vault.write("inbox.md", "Remember to buy milk.\n")
    return vault


def test_response_shape(ops):
    response = Mnemosyne(ops.root).search_response("restore the nightly dump")
    assert set(response) == {
        "query",
        "mode",
        "degraded_reason",
        "hits",
        "no_strong_match",
        "confidence",
        "absence_note",
        "best_weak",
        "signals",
        "index",
    }
    assert response["mode"] == "lexical" and response["degraded_reason"] is None
    assert response["no_strong_match"] is False and response["best_weak"] == []
    assert set(response["index"]) >= {"fresh", "notes", "built_at", "stale_files"}
    assert response["index"]["notes"] == 4 and response["index"]["fresh"] is True
    hit = response["hits"][0]
    assert set(hit) == HIT_KEYS
    assert hit["path"] == "runbooks/postgres-restore.md"
    assert hit["key"] == "postgres-restore"
    assert hit["zone"] == "runbooks"
    assert hit["labels"] == ["project:atlas"]
    assert hit["date"] == "2026-03-02"
    assert hit["provenance"] == "keyword"
    json.dumps(response)  # JSON-able as it is


def test_one_hit_per_note_with_best_section_and_also(ops):
    hits = Mnemosyne(ops.root).search("restore row counts")
    paths = [h["path"] for h in hits]
    assert len(paths) == len(set(paths))
    top = hits[0]
    assert top["path"] == "runbooks/postgres-restore.md"
    assert top["heading"] in {"Restore", "Verify"}
    assert top["also"] and top["heading"] not in top["also"]
    assert len(top["also"]) <= 2


def test_snippet_is_cut_around_the_match_not_the_top(vault):
    filler = " ".join(f"word{i}" for i in range(200))
    vault.write(
        "long.md",
        f"# Long\n\n{filler}.\n\nThe zeppelin hangar key is under the mat.\n\n{filler}.\n",
    )
    hit = Mnemosyne(vault.root).search("zeppelin hangar")[0]
    assert "zeppelin hangar" in hit["snippet"]
    assert len(hit["snippet"]) <= 241


def test_full_match_outranks_repetitive_partial_match(ops):
    # The journal says "dump" many times but never "restore"; the runbook has both.
    hits = Mnemosyne(ops.root).search("restore dump")
    assert hits[0]["path"] == "runbooks/postgres-restore.md"
    journal_rank = [h["path"] for h in hits].index("journal/2026-03.md")
    assert journal_rank > 0


def test_zone_filter_applies_before_the_cut(ops):
    for i in range(30):
        ops.write(f"noise/n{i}.md", f"# Noise {i}\n\ndump dump dump restore dump {i}\n")
    hits = Mnemosyne(ops.root).search("dump", limit=2, zone="hosts")
    assert [h["path"] for h in hits] == ["hosts/db1.md"]


def test_labels_filter_is_an_and_filter(ops):
    engine = Mnemosyne(ops.root)
    assert [h["path"] for h in engine.search("dump", labels=["project:atlas"])] == [
        "runbooks/postgres-restore.md"
    ]
    assert engine.search("dump", labels=["project:atlas", "person:mina"]) == []


def test_exact_matches_literal_substrings(vault):
    vault.write("a.md", "# A\n\nError: FATAL: could not connect to server: Connection refused\n")
    vault.write("b.md", "# B\n\nThe connection was refused by the server, could not connect.\n")
    engine = Mnemosyne(vault.root)
    hits = engine.search("could not connect to server: Connection refused", exact=True)
    assert [h["path"] for h in hits] == ["a.md"]
    assert [h["path"] for h in engine.search("ONNECT", exact=True)] == ["a.md", "b.md"]
    assert engine.search_response("no such literal", exact=True)["no_strong_match"] is True


def test_expansions_add_matches_without_displacing_full_matches(vault):
    vault.write("dns.md", "# Service DNS\n\nPods resolve each other through kube-dns.\n")
    vault.write(
        "pods.md", "# Pods\n\nPods cannot find each other when the network policy blocks it.\n"
    )
    engine = Mnemosyne(vault.root)
    plain = engine.search("pods find each other")
    expanded = engine.search(
        "pods find each other", expansions={"synonyms": ["kube-dns", "resolve"]}
    )
    assert plain[0]["path"] == expanded[0]["path"] == "pods.md"
    assert "dns.md" in [h["path"] for h in expanded]
    with pytest.raises(InvalidInputError, match="valid: synonyms"):
        engine.search("pods", expansions={"synonym": ["x"]})


def test_no_strong_match_for_absent_topics(ops):
    response = Mnemosyne(ops.root).search_response("is there anything about Kafka partitions?")
    assert response["no_strong_match"] is True
    assert response["hits"] == []
    assert response["signals"]["vault_coverage"] < 1.0
    nothing = Mnemosyne(ops.root).search_response("zzqx")
    assert nothing["no_strong_match"] is True and nothing["best_weak"] == []


def test_archive_searchable_only_when_asked(ops):
    ops.write("_archive/old/kafka.md", "# Kafka\n\nWe ran Kafka once.\n")
    engine = Mnemosyne(ops.root)
    assert engine.search("kafka") == []
    hits = engine.search("kafka", include_archive=True)
    assert hits[0]["path"] == "_archive/old/kafka.md" and hits[0]["archived"] is True


def test_incremental_refresh_add_edit_delete_rename(ops):
    engine = Mnemosyne(ops.root, refresh_interval=3600)
    assert engine.search("milk")[0]["path"] == "inbox.md"
    ops.write("new.md", "# New\n\nzeppelin\n")
    inbox = ops.root / "inbox.md"
    inbox.write_text("Remember to buy oat milk and bread.\n", encoding="utf-8")
    os.utime(inbox, ns=(1, 1))  # a changed mtime is what the stat pass sees
    (ops.root / "hosts/db1.md").unlink()
    os.rename(ops.root / "journal/2026-03.md", ops.root / "journal/march.md")
    # Throttled: nothing rescanned yet.
    assert engine.search("zeppelin") == []
    result = engine.refresh()
    assert (result["added"], result["changed"], result["deleted"]) == (2, 1, 2)
    assert engine.search("zeppelin")[0]["path"] == "new.md"
    assert engine.search("bread")[0]["path"] == "inbox.md"
    assert all(h["path"] != "hosts/db1.md" for h in engine.search("5432 backups"))
    assert engine.search("dump sizes")[0]["path"] == "journal/march.md"
    # A new process reads the same state from the cache.
    again = Mnemosyne(ops.root)
    assert again.search("zeppelin")[0]["path"] == "new.md"
    assert again.refresh()["added"] == 0


def test_cache_is_a_versioned_block_file_and_reused(ops):
    engine = Mnemosyne(ops.root)
    engine.refresh()
    reader = BlockFile(engine.cache_path, expect_format=INDEX_FORMAT)
    assert reader.header["format"] == INDEX_FORMAT
    reader.close()
    assert "restor" in cache_text(engine.cache_path)
    second = Mnemosyne(ops.root)
    result = second.refresh()
    assert result["added"] == 0 and result["notes"] == 4
    assert second.warnings == []
    assert second.search("restore")[0]["path"] == "runbooks/postgres-restore.md"


def _damage_header(path, change):
    reader = BlockFile(path, expect_format=INDEX_FORMAT)
    header = reader.header
    blocks = []
    for name in ("sections", "note_fields"):
        for _, offset, length, _size in header["index"][name]["blocks"]:
            blocks.append(reader.raw_block(offset, length))
    reader.close()
    change(header)
    write_block_file(path, header, blocks)


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b"not a block file at all"),
        lambda p: p.write_bytes(p.read_bytes()[:40]),
        lambda p: p.write_bytes(p.read_bytes()[:-20] + b"x" * 20),
        lambda p: _damage_header(p, lambda h: h.update(format="other/9")),
        lambda p: _damage_header(p, lambda h: h["index"].update(sec_heading=[])),
    ],
    ids=["garbage", "truncated-header", "damaged-block", "foreign-format", "bad-columns"],
)
def test_damaged_cache_is_rebuilt_with_one_warning(ops, damage):
    engine = Mnemosyne(ops.root)
    engine.refresh()
    engine.close()
    damage(engine.cache_path)
    fresh = Mnemosyne(ops.root)
    assert fresh.search("restore")[0]["path"] == "runbooks/postgres-restore.md"
    assert fresh.search("milk")[0]["path"] == "inbox.md"
    assert len(fresh.warnings) == 1 and "rebuilding" in fresh.warnings[0]
    fresh.close()
    assert "restor" in cache_text(fresh.cache_path)  # rewritten whole


def _index_header(path):
    reader = BlockFile(path, expect_format=INDEX_FORMAT)
    try:
        return reader.header["index"]
    finally:
        reader.close()


def _log_records(vault_root):
    from birkin_mnemosyne.cache import LogFile
    from birkin_mnemosyne.index_store import LOG_FILE, LOG_FORMAT

    log = LogFile(vault_root / ".mnemosyne" / "cache" / LOG_FILE, expect_format=LOG_FORMAT)
    try:
        return log.header, log.read_records()
    finally:
        log.close()


def test_saves_append_to_the_log_and_a_merge_copies_the_blocks(ops, monkeypatch):
    import birkin_mnemosyne.index_store as store_module

    engine = Mnemosyne(ops.root, refresh_interval=3600)
    engine.refresh()
    base_bytes = engine.cache_path.read_bytes()
    base = _index_header(engine.cache_path)["sections"]
    assert base["blocks"] and base["tails"] == []
    for i in range(3):
        ops.write(f"extra/n{i}.md", f"# Extra {i}\n\nzeppelin hangar {i}\n")
        engine.refresh(paths=[f"extra/n{i}.md"])
    ops.root.joinpath("inbox.md").unlink()
    engine.refresh(paths=["inbox.md"])
    # The base is not written again: each save appended one record to the log.
    assert engine.cache_path.read_bytes() == base_bytes
    header, records = _log_records(ops.root)
    assert [len(r["notes"]) for r in records] == [1, 1, 1, 0]
    assert records[3]["removed"] == ["inbox.md"]
    fresh = Mnemosyne(ops.root)  # another process reads base + log
    assert len(fresh.search("zeppelin", limit=50)) == 3
    assert fresh.search("milk") == [] and fresh.refresh()["added"] == 0
    # Past the log's share of the base, the next save merges: a new base whose blocks
    # are the old ones byte for byte, the added postings in its tails, an empty log.
    monkeypatch.setattr(store_module, "LOG_MIN_BYTES", 0)
    monkeypatch.setattr(store_module, "LOG_SHARE", 0.0)
    ops.write("extra/n3.md", "# Extra 3\n\nzeppelin hangar 3\n")
    engine.refresh(paths=["extra/n3.md"])
    merged = _index_header(engine.cache_path)["sections"]
    assert [b[2:] for b in merged["blocks"]] == [b[2:] for b in base["blocks"]]
    assert merged["limit"] == base["limit"] and merged["tails"]
    assert "hangar" in cache_text(engine.cache_path)
    header, records = _log_records(ops.root)
    assert records == [] and header["parent"]["records"] == 5
    assert len(Mnemosyne(ops.root).search("zeppelin", limit=50)) == 4
    assert len(engine.search("zeppelin", limit=50)) == 4
    # A reader that had read the whole old log follows the merge without reloading.
    assert len(fresh.search("zeppelin", limit=50)) == 4
    assert fresh.warnings == [] and engine.warnings == []


def test_missing_vault_is_an_error_and_nothing_is_created(tmp_path):
    missing = tmp_path / "nope"
    with pytest.raises(VaultNotFoundError, match="vault not found"):
        Mnemosyne(missing)
    assert not missing.exists()


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="root ignores permissions")
def test_read_only_vault_still_searches(ops):
    for folder, _, _ in os.walk(ops.root):
        os.chmod(folder, 0o555)
    try:
        engine = Mnemosyne(ops.root)
        assert engine.search("milk")[0]["path"] == "inbox.md"
        assert any("not cached" in w for w in engine.warnings)
    finally:
        for folder, _, _ in os.walk(ops.root):
            os.chmod(folder, 0o755)


def test_unwritable_cache_still_searches(ops, monkeypatch):
    import birkin_mnemosyne.index_store as store_module

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(store_module, "write_block_file", refuse)
    engine = Mnemosyne(ops.root)
    assert engine.search("milk")[0]["path"] == "inbox.md"
    ops.write("late.md", "# Late\n\nzeppelin\n")
    assert engine.refresh()["added"] == 1
    assert engine.search("zeppelin")[0]["path"] == "late.md"
    assert sum("not cached" in w for w in engine.warnings) == 1


def test_bad_arguments_are_clear_errors(ops):
    engine = Mnemosyne(ops.root)
    with pytest.raises(InvalidInputError, match="empty"):
        engine.search("  ")
    with pytest.raises(InvalidInputError, match="limit"):
        engine.search("dump", limit=0)
    with pytest.raises(InvalidInputError, match="limit"):
        engine.search("dump", limit=True)
    from birkin_mnemosyne import InvalidPathError, LabelError

    with pytest.raises(InvalidPathError, match="traversal"):
        engine.search("dump", zone="../etc")
    with pytest.raises(LabelError):
        engine.search("dump", labels=["no-colon"])
    with pytest.raises(InvalidInputError, match="unknown ranking setting"):
        Mnemosyne(ops.root, ranking={"k9": 1})


def test_key_collisions_fall_back_to_paths(vault):
    vault.write("projects/atlas/notes.md", "# Atlas notes\n\nalpha\n")
    vault.write("projects/beacon/Notes.md", "# Beacon notes\n\nalpha\n")
    vault.write("solo.md", "# Solo\n\nalpha\n")
    keys = Mnemosyne(vault.root).keys()
    assert keys == {
        "projects/atlas/notes.md": "projects/atlas/notes",
        "projects/beacon/Notes.md": "projects/beacon/Notes",
        "solo.md": "solo",
    }


def test_stats_report_warnings_with_files(vault):
    vault.write("ok.md", "# Fine\n\ntext\n")
    vault.write_bytes("bin.md", b"\x00\x01\x02binary")
    vault.write_bytes("latin1.md", "caf\xe9 au lait".encode("latin-1"))
    vault.write("fence.md", "# F\n\n```bash\necho unclosed\n")
    vault.write("bad-fm.md", "---\ntitle: [unclosed\n---\nbody\n")
    stats = Mnemosyne(vault.root).stats()
    codes = {(w["path"], w["code"]) for w in stats["warnings"]}
    assert ("bin.md", "binary_file") in codes
    assert ("latin1.md", "not_utf8") in codes
    assert ("fence.md", "unclosed_fence") in codes
    assert ("bad-fm.md", "invalid_frontmatter") in codes
    assert stats["notes"] == 5 and stats["skipped"] == 1
    assert Mnemosyne(vault.root).search("lait")[0]["path"] == "latin1.md"


def test_stale_sections_and_superseded_notes_are_demoted(vault):
    vault.write(
        "proc.md",
        "# Procedure\n\n## Current procedure\n\nrotate the keys with vault-rotate\n\n"
        "## Old procedure (superseded 2026-02)\n\nrotate the keys with vault-rotate by hand\n",
    )
    vault.write(
        "older.md", "---\nsuperseded_by: proc\n---\n# Older\n\nrotate the keys with vault-rotate\n"
    )
    hits = Mnemosyne(vault.root).search("rotate the keys")
    assert hits[0]["path"] == "proc.md" and hits[0]["heading"] == "Current procedure"
    assert hits[0]["stale"] is False
    older = next(h for h in hits if h["path"] == "older.md")
    assert older["stale"] is True


def test_parallel_rebuild_matches_serial(ops, monkeypatch):
    import birkin_mnemosyne.engine as engine_module

    serial = Mnemosyne(ops.root, parallel=False)
    serial.refresh(full=True)
    expected = [
        (h["path"], h["heading"], h["score"]) for h in serial.search("restore dump database")
    ]
    monkeypatch.setattr(engine_module, "PARALLEL_MIN", 2)
    monkeypatch.setattr(engine_module, "PARALLEL_BATCH", 1)
    parallel = Mnemosyne(ops.root)
    parallel.refresh(full=True)
    got = [(h["path"], h["heading"], h["score"]) for h in parallel.search("restore dump database")]
    assert got == expected


def test_refresh_of_named_paths_only(ops):
    engine = Mnemosyne(ops.root, refresh_interval=3600)
    engine.search("milk")
    ops.write("a.md", "# A\n\nzeppelin\n")
    ops.write("b.md", "# B\n\nzeppelin\n")
    (ops.root / "inbox.md").unlink()
    result = engine.refresh(paths=["a.md", "inbox.md"])
    assert (result["added"], result["deleted"]) == (1, 1)
    assert [h["path"] for h in engine.search("zeppelin")] == ["a.md"]
    assert engine.search("milk") == []


def test_other_frontmatter_values_are_searched_with_the_tags(vault):
    vault.write(
        "hosts/nas.md",
        "---\ntitle: nas\nowner: jonas\nip: 10.20.5.40\nos: [Debian, ZFS]\n"
        "type: host\nbackups: true\nsources: [https://wiki.example.org/nas]\n"
        "extra: {nested: secretword}\n---\n\n# nas\n\nThe storage box.\n",
    )
    vault.write("hosts/web.md", "# web\n\nThe web server.\n")
    engine = Mnemosyne(vault.root)
    for query in ("jonas", "10.20.5.40", "debian"):
        assert [hit["path"] for hit in engine.search(query)] == ["hosts/nas.md"], query
    # the type, true/false, a nested mapping and where the content came from are no words
    for query in ("host", "true", "secretword", "wiki"):
        assert engine.search(query) == [], query


# The demo vault's obvious questions (benchmarks/retrieval/smoke.py runs them all).
@pytest.mark.parametrize(
    ("query", "expected", "within"),
    [
        ("restore database", "runbooks/postgres-restore.md", 1),
        ("restore the database from last night's dump", "runbooks/postgres-restore.md", 1),
        ("renew the TLS certificate", "runbooks/certificate-renewal.md", 1),
        ("which host is the primary Postgres server?", "hosts/db1.md", 1),
        ("how long do we keep logs?", "decisions/log-retention.md", 1),
        ("a server ran out of disk space", "runbooks/디스크-용량-부족.md", 1),
        # asked in another language than the note: the glossary brings it up, and its
        # rare-language forms do not outweigh the English ones (``weigh_translations``)
        ("Datenbank wiederherstellen", "runbooks/postgres-restore.md", 1),
        # a Korean runbook holds both words in passing and links the restore runbook
        # for them (``defer_to_linked``); a Hangul word's bigrams weigh as one word
        ("데이터베이스 복원", "runbooks/postgres-restore.md", 1),
        # the Redis decision names a "failover plan: [[redis-failover]]"
        ("redis failover", "runbooks/redis-failover.md", 1),
    ],
)
def test_demo_vault_answers_its_obvious_questions(tmp_path, query, expected, within):
    import shutil

    from conftest import EXAMPLE_VAULT

    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".mnemosyne"))
    response = Mnemosyne(root).search_response(query, limit=10)
    assert not response["no_strong_match"]
    assert expected in [h["path"] for h in response["hits"][:within]]


def test_a_full_match_through_a_translation_is_not_demoted_as_in_passing(tmp_path):
    import shutil

    from conftest import EXAMPLE_VAULT

    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".mnemosyne"))
    query = "Datenbank wiederherstellen"
    # the restore runbook holds both words only in English (scored at w_glossary); a
    # tools note holds "Datenbankarbeit" alone and scores a little higher
    assert Mnemosyne(root).search(query)[0]["path"] == "runbooks/postgres-restore.md"
    strict = Mnemosyne(root, ranking={"translated_full_share": 1.0}).search(query)
    assert strict[0]["path"] == "preferences/tools.md"


def test_one_translated_word_of_many_does_not_hold_a_weak_full_match_up(vault):
    vault.write(
        "notes/promote.md",
        "# Promote a model version\n\nPoint the champion alias at the new version. To roll "
        "back, point the champion alias at the previous version: rollback takes a minute.\n",
    )
    # holds every word of the question, 戻す (put back) only as 回滚, and each in passing
    vault.write(
        "notes/log.md",
        "# 实验记录\n\n2026-03-24 — version 11 上线。champion alias 改了一次，前一个留着，"
        "以防回滚。训练窗口 一年。其他事情：特征、阈值、监控、报表、会议、文档、评审、排期、"
        "预算都讨论了很久，没有定论，下周继续。\n",
    )
    for i, text in enumerate(
        (
            "The scoring job runs nightly and writes scores.",
            "Clinics get reminders by SMS.",
            "The registry keeps every model.",
            "Alerts go to the on-call channel.",
            "Training takes two hours on the GPU box.",
        )
    ):
        vault.write(f"notes/other{i}.md", f"# Note {i}\n\n{text}\n")
    query = "champion alias を一つ前の version に戻すには？"
    hits = Mnemosyne(vault.root).search(query)
    assert [h["path"] for h in hits[:2]] == ["notes/promote.md", "notes/log.md"]
    # the lower floor is for a note translations carry: one word of six carries little,
    # where the whole relief (every word translated) would keep the log first
    assert hits[1]["score"] >= 0.6 * 0.8 * hits[0]["score"]


def test_demo_vault_says_what_it_does_not_hold(tmp_path):
    import shutil

    from conftest import EXAMPLE_VAULT

    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, root, ignore=shutil.ignore_patterns(".mnemosyne"))
    response = Mnemosyne(root).search_response("is there anything about Kafka?")
    assert response["no_strong_match"] and response["hits"] == []
    assert response["absence_note"] == "'Kafka' appears nowhere in the vault"


def test_a_snippet_shown_again_follows_the_file_as_it_is_now(vault):
    path = vault.write("notes/a.md", "# Pool\n\nThe pool size is forty on tama.\n")
    engine = Mnemosyne(vault.root, refresh_interval=1e9)
    assert "forty" in engine.search("pool size tama")[0]["snippet"]
    path.write_text("# Pool\n\nThe pool size is sixty on tama.\n", encoding="utf-8")
    import os

    os.utime(path, ns=(1, 1))  # a new stamp even on a coarse clock
    assert "sixty" in engine.search("pool size tama")[0]["snippet"]


def test_a_filter_no_note_passes_says_so(ops):
    engine = Mnemosyne(ops.root)
    response = engine.search_response("dump", zone="nope")
    assert response["hits"] == [] and response["no_strong_match"]
    note = response["absence_note"]
    assert note.startswith("no note is in zone 'nope' (the zones are: ")
    assert "hosts" in note and "runbooks" in note
    labelled = engine.search_response("dump", labels=["project:nowhere"])
    assert labelled["absence_note"] == "no note has the labels 'project:nowhere'"
    both = engine.search_response("dump", zone="hosts", labels=["project:nowhere"])
    assert both["absence_note"] == "no note in zone 'hosts' has the labels 'project:nowhere'"
    # A filter that some notes pass: the verdict's reason, said of the filtered notes.
    elsewhere = engine.search_response("pg_restore", zone="hosts")
    assert elsewhere["absence_note"] == "no note in zone 'hosts' holds any word of the query"
    assert engine.search("pg_restore", zone="runbooks")  # where it is, it is found


def test_a_hits_key_is_its_stem_only_when_no_other_live_note_shares_it(vault):
    # Stems compare casefolded ("Straße" = "STRASSE"), archived notes do not count, and
    # a search's keys agree with the key map of every note.
    vault.write("a/Straße.md", "# One\n\nzebra words\n")
    vault.write("b/STRASSE.MD", "# Two\n\nzebra words\n")
    vault.write("c/solo.md", "# Three\n\nzebra words\n")
    vault.write("d/gone.md", "# Four\n\nzebra words\n")
    vault.write("_archive/solo.md", "# Old\n\nzebra words\n")
    engine = Mnemosyne(vault.root)
    hits = {hit["path"]: hit["key"] for hit in engine.search("zebra", limit=10)}
    assert hits == {
        "a/Straße.md": "a/Straße",
        "b/STRASSE.MD": "b/STRASSE",
        "c/solo.md": "solo",
        "d/gone.md": "gone",
    }
    assert {path: engine.keys()[path] for path in hits} == hits
    (vault.root / "b" / "STRASSE.MD").unlink()
    engine.refresh()
    assert engine.key_of("a/Straße.md") == "Straße"
    assert Mnemosyne(vault.root).key_of("a/Straße.md") == "Straße"
