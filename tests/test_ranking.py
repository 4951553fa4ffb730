"""Ranking: pruned top-k equals the exhaustive ranking; tiers; bounded multipliers."""

from __future__ import annotations

import random

import pytest

from birkin_mnemosyne import Mnemosyne
from birkin_mnemosyne.ranking import RankingParams, _rank_reference, plan_query, rank
from birkin_mnemosyne.tokenizer import query_units

WORDS = [f"w{i}" for i in range(40)] + ["alpha", "bravo", "charlie", "delta", "echo"]


def _random_vault(vault, seed: int, notes: int = 80):
    rng = random.Random(seed)
    for n in range(notes):
        sections = []
        for s in range(rng.randint(1, 4)):
            words = rng.choices(
                WORDS, weights=[1 / (i + 1) for i in range(len(WORDS))], k=rng.randint(3, 40)
            )
            sections.append(f"## Part {s}\n\n" + " ".join(words))
        title = " ".join(rng.sample(WORDS, 2))
        date = f"2026-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}"
        vault.write(
            f"z{n % 5}/n{n}.md",
            f"---\ntitle: {title}\ndate: {date}\n---\n" + "\n\n".join(sections) + "\n",
        )


def test_pruned_top_k_equals_exhaustive_ranking(vault):
    _random_vault(vault, seed=11)
    engine = Mnemosyne(vault.root)
    index = engine.index
    rng = random.Random(5)
    checked = 0
    for _ in range(60):
        query = " ".join(rng.sample(WORDS, rng.randint(1, 5)))
        plan = plan_query(query_units(query), index, params=engine.ranking)
        scores = [index.term_scores(t, engine.bm25) for t in plan.terms]
        kwargs = dict(params=engine.ranking, today=1_790_000_000.0, multiplier_max=1.0)
        everything = rank(index, plan, scores, limit=10_000, **kwargs)
        for k in (1, 3, 8):
            top = rank(index, plan, scores, limit=k, **kwargs)
            assert [(n.nid, round(n.score, 9)) for n in top] == [
                (n.nid, round(n.score, 9)) for n in everything[:k]
            ], query
            checked += 1
    assert checked == 180


def _as_tuples(ranked):
    return [
        (n.nid, n.score, n.base, n.full, n.best_sid, n.also_sids, n.best_section_score)
        for n in ranked
    ]


@pytest.mark.parametrize("first_bounds", [64, 2])
def test_rank_equals_the_reference_ranking_on_random_queries(vault, monkeypatch, first_bounds):
    # ``rank`` skips notes on their own factor bound and scores without the hit's
    # details; whatever it skips, the hits must be exactly the reference's: same notes,
    # order, scores (bit for bit), tiers, sections. With ``_FIRST_BOUNDS`` at 2 the
    # walk goes past the first bounds in most rankings: only those above the k-th
    # score's bound are sorted then (``_by_bound``).
    import birkin_mnemosyne.ranking as ranking_module

    monkeypatch.setattr(ranking_module, "_FIRST_BOUNDS", first_bounds)
    _random_vault(vault, seed=23, notes=120)
    for n in range(0, 120, 9):  # superseded notes: stale factor, and "current" queries
        vault.write(
            f"old/s{n}.md",
            f"---\ntitle: old w{n % 7}\nstatus: superseded\n---\nw1 w{n % 5} alpha\n",
        )
    engine = Mnemosyne(vault.root)
    index = engine.index
    rng = random.Random(17)
    usage = {nid: rng.uniform(0.8, 1.25) for nid in range(len(index.notes))}
    words = WORDS + ["current", "now"]
    for round_ in range(80):
        query = " ".join(rng.sample(words, rng.randint(1, 6)))
        plan = plan_query(query_units(query), index, params=engine.ranking)
        scores = [index.term_scores(t, engine.bm25) for t in plan.terms]
        kwargs = dict(params=engine.ranking, today=1_790_000_000.0 + round_ * 86400.0 * 9)
        if round_ % 3 == 1:
            kwargs.update(multiplier=usage.__getitem__, multiplier_max=1.25)
        if round_ % 4 == 2:
            kwargs["allowed"] = lambda nid: nid % 3 != 0
        for k in (1, 3, 8, 10_000):
            assert _as_tuples(rank(index, plan, scores, limit=k, **kwargs)) == _as_tuples(
                _rank_reference(index, plan, scores, limit=k, **kwargs)
            ), (query, k)


@pytest.mark.parametrize("first_bounds", [64, 2])
def test_maxscore_leaves_weak_terms_out_and_ranks_as_the_reference(
    vault, monkeypatch, first_bounds
):
    # Long queries of one rare and several common words, on a vault where the rare words
    # decide: MaxScore leaves the common words out of the summed bounds (forced on this
    # small vault), and every result is still the reference's, bit for bit.
    import birkin_mnemosyne.ranking as ranking_module

    vocabulary = [f"v{i}" for i in range(300)]
    rng = random.Random(31)
    zipf = [1 / (i + 1) for i in range(len(vocabulary))]
    for n in range(300):
        sections = [
            f"## Part {s}\n\n"
            + " ".join(rng.choices(vocabulary, weights=zipf, k=rng.randint(4, 16)))
            for s in range(rng.randint(1, 3))
        ]
        vault.write(f"z{n % 4}/n{n}.md", f"# note {n}\n\n" + "\n\n".join(sections) + "\n")
    engine = Mnemosyne(vault.root)
    index = engine.index
    monkeypatch.setattr(ranking_module, "_MAXSCORE_MIN_POSTINGS", 0)
    # at 2, pools past 8 candidates are cut at the floor before they are ordered
    monkeypatch.setattr(ranking_module, "_FIRST_BOUNDS", first_bounds)
    spills = []  # what each ranking left out of its bounds (``_tiers``' ``outside``)
    real_tiers = ranking_module._tiers
    monkeypatch.setattr(
        ranking_module, "_tiers", lambda *args: spills.append(args[-1]) or real_tiers(*args)
    )
    rng = random.Random(29)
    spilled = 0
    for round_ in range(60):
        # v0.. common, v100.. rare
        query = " ".join(
            [rng.choice(vocabulary[60:200]), *rng.sample(vocabulary[:10], rng.randint(2, 6))]
        )
        plan = plan_query(query_units(query), index, params=engine.ranking)
        scores = [index.term_scores(t, engine.bm25) for t in plan.terms]
        kwargs = dict(params=engine.ranking, today=1_790_000_000.0)
        if round_ % 4 == 1:
            kwargs["allowed"] = lambda nid: nid % 3 != 0
        for k in (1, 3, 8):
            got = rank(index, plan, scores, limit=k, **kwargs)
            spilled += spills[-1] > 0
            assert _as_tuples(got) == _as_tuples(
                _rank_reference(index, plan, scores, limit=k, **kwargs)
            ), (query, k)
    assert spilled >= 30  # the path under test ran: terms were left out


def test_full_matches_are_the_notes_covering_every_unit(vault):
    # ``_full_matches`` builds one covering set and tests the rest member by member:
    # the same notes as intersecting every unit's covering set.
    from birkin_mnemosyne.ranking import _covering_notes, _full_matches

    _random_vault(vault, seed=41, notes=120)
    vault.write("k/a.md", "# 데이터베이스 복원\n\nw1-w2 데이터베이스가 w3 복원 절차\n")
    vault.write("k/b.md", "# 데이터\n\nw1 w2 데이터 베이스 w3\n")
    engine = Mnemosyne(vault.root)
    index, params = engine.index, engine.ranking
    rng = random.Random(43)
    pool = [*WORDS, "w1-w2", "데이터베이스", "복원", "w3_w4"]
    for _ in range(80):
        query = " ".join(rng.sample(pool, rng.randint(1, 5)))
        units = engine.query_units(query, index)[0]
        plan = plan_query(units, index, translations=engine._translations(units, index))
        scores = [index.term_scores(t, engine.bm25) for t in plan.terms]
        expected = None
        for unit in plan.required:
            covering = _covering_notes(plan, unit, scores, params.part_coverage)
            expected = covering if expected is None else expected & covering
        assert _full_matches(index, plan, scores, params) == (expected or set()), query


def test_full_matches_come_first_and_scores_descend_within_tiers(vault):
    _random_vault(vault, seed=3)
    engine = Mnemosyne(vault.root)
    index = engine.index
    plan = plan_query(query_units("alpha w1 w2"), index, params=engine.ranking)
    scores = [index.term_scores(t, engine.bm25) for t in plan.terms]
    ranked = rank(index, plan, scores, limit=10_000, params=engine.ranking)
    tiers = [n.full for n in ranked]
    assert tiers == sorted(tiers, reverse=True)
    for tier in (True, False):
        values = [n.score for n in ranked if n.full is tier]
        assert values == sorted(values, reverse=True)


def test_a_compound_query_word_finds_a_note_with_its_halves(vault):
    vault.write("lessons/smart.md", "# Festplatte\n\nDie Warnung zur Platte kam im Januar.\n")
    vault.write("notes/other.md", "# Platten\n\nPlatten im Lager seit Januar, Januar-Inventur.\n")
    engine = Mnemosyne(vault.root)
    hits = engine.search("Plattenwarnung Januar", limit=5)
    assert hits[0]["path"] == "lessons/smart.md"


def test_german_question_words_do_not_make_a_weak_match(vault):
    vault.write("hosts/nas.md", "# backup-nas\n\nDie Platte da3 wurde am 2026-03-05 ersetzt.\n")
    for i in range(20):
        vault.write(f"notes/n{i}.md", f"# Notiz {i}\n\nAnderes Thema {i}, Drucker und Kaffee.\n")
    response = Mnemosyne(vault.root).search_response(
        "Wann genau wurde die Platte ersetzt, kannst du mir das sagen?", limit=5
    )
    assert not response["no_strong_match"]
    assert response["hits"][0]["path"] == "hosts/nas.md"


def test_a_current_state_question_puts_the_superseding_note_first(vault):
    vault.write(
        "decisions/retention-2025.md",
        "---\nstatus: superseded\nsuperseded_by: '[[retention-2026]]'\n---\n"
        "# Backup retention policy 2025\n\nBackup retention policy: keep 7 daily backups. "
        "The backup retention policy covers backup files; retention policy reviewed.\n",
    )
    vault.write(
        "decisions/retention-2026.md",
        "# Retention 2026\n\nNew policy: keep 14 daily copies of every backup on every host, "
        "in two regions, checked by the nightly job, retention reported on the dashboard.\n",
    )
    vault.write("notes/current-note.md", "# Current note\n\nA note about the current sprint.\n")
    for i in range(12):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\nPrinter toner and coffee, item {i}.\n")
    engine = Mnemosyne(vault.root)
    # Without the question of state the old note's fuller match scores higher, but a
    # superseded note yields to its successor: it comes right below it.
    plain = [h["path"] for h in engine.search("backup retention policy", limit=3)]
    assert plain[:2] == ["decisions/retention-2026.md", "decisions/retention-2025.md"]
    assert (
        engine.search("backup retention policy", limit=3)[1]["score"]
        > (engine.search("backup retention policy", limit=3)[0]["score"])
    )
    current = [h["path"] for h in engine.search("current backup retention policy", limit=3)]
    # "current" is no topic: the note titled "Current note" does not take the lead, and
    # the superseded decision leaves the first tier.
    assert current[0] == "decisions/retention-2026.md"
    assert current.index("decisions/retention-2025.md") > 0
    # A stopword can ask for the current state too ("jetzt", "ahora").
    jetzt = engine.search("backup retention policy jetzt", limit=3)
    assert jetzt[0]["path"] == "decisions/retention-2026.md"


def test_one_character_parts_weigh_less_than_words_and_bigrams(vault):
    from birkin_mnemosyne.ranking import RankingParams, plan_query
    from birkin_mnemosyne.tokenizer import query_units

    vault.write("runbooks/disk.md", "# 磁盘扩容\n\n收到 DiskUsageHigh 告警时按此扩容。\n")
    engine = Mnemosyne(vault.root)
    plan = plan_query(query_units("DiskUsageHigh 告警响了"), engine.index)
    weight = dict(zip(plan.terms, plan.weights))
    assert weight["diskusagehigh"] == 1.0
    # the halves of a word the vault holds whole add little beside it
    assert weight["disk"] == RankingParams().w_known_part
    assert weight["告警"] == weight["告警响了"] == 1.0
    # A long run has a unigram per character; together they must not drown a rare word.
    assert weight["告"] == weight["响"] == 0.3
    plan = plan_query(query_units("告警响了"), engine.index, params=RankingParams(w_char_part=1.0))
    assert set(plan.weights) == {1.0}


def test_a_katakana_word_inside_a_longer_one_is_no_match_for_it(vault):
    # "ポート" (port) sits inside "サポート" (support): the bigrams ポー/ート of a katakana
    # word the vault holds whole weigh as parts, as the halves of "database" do.
    vault.write(
        "projects/support.md",
        "# サポート体制\n\nサポート窓口とサポートマクロ、サポート担当の一覧。\n",
    )
    vault.write("hosts/oder.md", "# oder\n\nWireGuard はポート 51820 で待ち受ける。\n")
    for i in range(10):
        vault.write(f"notes/n{i}.md", f"# メモ {i}\n\nコーヒーとプリンター、項目 {i}。\n")
    engine = Mnemosyne(vault.root)
    hits = engine.search("どのポートを使う？", limit=3)
    assert hits[0]["path"] == "hosts/oder.md"
    plan_weights = _plan_weights(engine, "どのポートを使う？")
    assert plan_weights["ポート"] == 1.0
    assert plan_weights["ポー"] == plan_weights["ート"] == RankingParams().w_known_part


def _plan_weights(engine, query):
    plan = plan_query(query_units(query), engine.index)
    return dict(zip(plan.terms, plan.weights))


def test_a_full_match_in_passing_does_not_outrank_a_far_stronger_partial_match(vault):
    filler = " ".join(f"word{i}" for i in range(60))
    vault.write(
        "notes/scatter.md",
        f"# Weekly notes\n\n## Monday\n\n{filler} journald {filler}\n\n"
        f"## Tuesday\n\n{filler} quota {filler}\n\n## Wednesday\n\n{filler} lesson {filler}\n",
    )
    vault.write(
        "runbooks/strong.md",
        "# journald quota\n\nSet the journald quota: SystemMaxUse=2G caps journald. "
        "The journald quota stops full disks.\n",
    )
    for i in range(10):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\nPrinter toner, coffee and item {i}.\n")
    query = "journald quota lesson"
    hits = Mnemosyne(vault.root).search(query, limit=3)
    assert [h["path"] for h in hits] == ["runbooks/strong.md", "notes/scatter.md"]
    # With the share at 0 the full-match tier is absolute, as for an exact lookup.
    hits = Mnemosyne(vault.root, ranking={"full_min_share": 0.0}).search(query, limit=3)
    assert [h["path"] for h in hits] == ["notes/scatter.md", "runbooks/strong.md"]


def test_a_dated_note_is_found_by_its_month_name_in_several_languages(vault):
    vault.write("journal/2026-03-betriebstagebuch.md", "# Betriebstagebuch\n\nResilver fertig.\n")
    vault.write("journal/2026-02-ops.md", "# Ops log\n\nResilver started.\n")
    vault.write(
        "lessons/disk.md", "---\ndate: 2026-03-09\n---\n# Disk lesson\n\nSwap disks early.\n"
    )
    engine = Mnemosyne(vault.root)
    assert engine.search("March resilver")[0]["path"] == ("journal/2026-03-betriebstagebuch.md")
    assert engine.search("resilver febrero")[0]["path"] == "journal/2026-02-ops.md"
    assert "lessons/disk.md" in [h["path"] for h in engine.search("disk März")]
    # The month only dates the question: it is no unit a note must cover, so a
    # February note about resilvering stays above a March note about nothing of it.
    paths = [h["path"] for h in engine.search("resilver started march")]
    assert paths[0] == "journal/2026-02-ops.md"


def test_a_cjk_section_length_counts_its_bigrams_not_each_character_again(vault):
    from birkin_mnemosyne.document import parse_note_bytes
    from birkin_mnemosyne.redact import Redactor

    doc = parse_note_bytes(
        "n.md", "# t\n\n数据库扩容 pgbouncer\n".encode(), mtime_ns=0, redactor=Redactor()
    )
    # 数据库扩容 gives the run, 5 characters and 4 bigrams; pgbouncer one term.
    assert sum(doc.sections[0].body_tf.values()) == 11
    assert doc.sections[0].body_len == 11 - 5


def test_an_english_word_in_a_chinese_note_is_not_drowned_by_its_length(vault):
    # About 20 characters of Chinese against 30 English words, one "lvextend" each: the
    # Chinese note is the shorter one and must win, as it does once its characters
    # are not counted a second and third time.
    vault.write("runbooks/扩容.md", "# 扩容\n\n数据目录在逻辑卷上文件系统可以不停机扩容 lvextend\n")
    words = (
        "moved storage topics quotas snapshots backups replicas arrays volumes mirrors "
        "caches tiers pools racks shelves drives cables switches routers firewalls "
        "printers monitors keyboards laptops desks chairs lamps plants"
    )
    vault.write("notes/lvm.md", f"# Storage\n\nTried lvextend once; {words}\n")
    for i in range(10):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\nPrinter toner and coffee, item {i}.\n")
    hits = Mnemosyne(vault.root).search("lvextend", limit=3)
    assert [h["path"] for h in hits] == ["runbooks/扩容.md", "notes/lvm.md"]


def test_japanese_grammar_does_not_outrank_the_content_word(vault):
    # The Japanese note shares the question's particles and endings, the host record
    # its one content word: hiragana weighs like a single character.
    vault.write(
        "notes/macros.md",
        "# 対応の方針\n\nこれはどのようにお客様に対応しているかを書いたメモです。"
        "お客様からの問い合わせがある時はどのようにしているかの手順。\n",
    )
    vault.write("hosts/oder.md", "# oder\n\nWireGuard endpoint, port 51820/udp.\n")
    for i, topic in enumerate(["請求書", "予約", "通知", "監視", "障害", "移行"]):
        vault.write(
            f"notes/ja{i}.md",
            f"# {topic}\n\nこれは{topic}についてのメモです。どの手順で対応しているかを書いている。\n",
        )
    engine = Mnemosyne(vault.root)
    hits = engine.search("WireGuard は今どのポートで待ち受けている？")
    assert hits[0]["path"] == "hosts/oder.md"
    # One ending and its pieces share one character's weight: seven terms, one word.
    weights = _plan_weights(engine, "WireGuard は今どのポートで待ち受けている？")
    ending = ["けている", "け", "て", "い", "る", "けて", "てい", "いる"]
    share = RankingParams().w_char_part / len(ending)
    assert all(abs(weights[t] - share) < 1e-12 for t in ending)
    assert weights["wireguard"] == 1.0


def _journal_vault(vault):
    vault.write(
        "journal/2026-03-02.md",
        "# 2026-03-02\n\n### 09:40 — pool size\nPgBouncer default_pool_size is 40 on tama.\n",
    )
    vault.write(
        "journal/2026-06-12.md",
        "# 2026-06-12\n\n### 10:00 — pool size raised\nPgBouncer default_pool_size 40 -> 60 on tama.\n",
    )
    vault.write("notes/other.md", "# Other\n\nNothing about pools here, only tama.\n")


def test_a_current_state_question_puts_the_newest_journal_entry_first(vault):
    _journal_vault(vault)
    # searched long after the vault's last entry: age counts from its newest record
    clock = lambda: 1_900_000_000.0  # noqa: E731 (2030)
    engine = Mnemosyne(vault.root, clock=clock)
    assert engine.search("PgBouncer default_pool_size now")[0]["path"] == "journal/2026-06-12.md"


def test_the_newest_journal_entry_on_a_state_leads_when_it_scores_close_to_the_top(vault):
    vault.write(
        "projects/model/deployment.md",
        """\
        ---
        updated: 2026-05-24
        ---
        # Model deployment

        ## High-risk threshold
        The high-risk score threshold is 0.42; clinics get a reminder call above the
        high-risk threshold. The threshold is reviewed monthly.
        """,
    )
    vault.write(
        "journal/data/2026-06-27.md",
        "# 2026-06-27\n\n### 09:30 — threshold 0.42 → 0.40\nLowered the high-risk score threshold to 0.40.\n",
    )
    vault.write(
        "journal/data/2026-06-29.md",
        "# 2026-06-29\n\n### 10:00 — dashboards\nThe dashboards were slow again.\n",
    )
    for i in range(8):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\nPrinter toner and coffee, item {i}.\n")
    query = "high-risk score threshold in use today"
    off = Mnemosyne(vault.root, ranking={"state_journal_share": 0.0}).search(query)
    assert [h["path"] for h in off[:2]] == [
        "projects/model/deployment.md",
        "journal/data/2026-06-27.md",
    ]
    hits = Mnemosyne(vault.root).search(query)
    assert [h["path"] for h in hits[:2]] == [
        "journal/data/2026-06-27.md",
        "projects/model/deployment.md",
    ]
    # Not a question of state: the record that says it best stays first.
    plain = Mnemosyne(vault.root).search("high-risk score threshold")
    assert plain[0]["path"] == "projects/model/deployment.md"
    # A journal entry far below the top is no answer, however new.
    far = Mnemosyne(vault.root, ranking={"state_journal_share": 0.99}).search(query)
    assert far[0]["path"] == "projects/model/deployment.md"


def test_a_newer_journal_entry_about_something_else_does_not_lead(vault):
    vault.write(
        "decisions/adr-8-outbox.md",
        "# ADR 8: reminder outbox\n\n## Decision\n"
        "Duplicate reminders are prevented by an outbox table; the Redis key is gone.\n",
    )
    vault.write(
        "journal/2026-06-24.md",
        "# 2026-06-24\n\n## 11:30 — reminders v2 at 100%\nAll clinics get reminders v2 "
        "today; reminders v1 deleted. Reminders everywhere.\n\n## 12:00 — lunch\n"
        "Redis upgrade planned.\n",
    )
    for i in range(8):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\nPrinter toner and coffee, item {i}.\n")
    query = "how are duplicate reminders prevented today — is it still the Redis key?"
    # the journal's section holds 1 of the 4 words the decision's section holds
    hits = Mnemosyne(vault.root).search(query)
    assert [h["path"] for h in hits[:2]] == ["decisions/adr-8-outbox.md", "journal/2026-06-24.md"]
    # without the rule it would lead, being newer and within 70 % of the top
    anyway = Mnemosyne(vault.root, ranking={"state_journal_units": 0.0}).search(query)
    assert anyway[0]["path"] == "journal/2026-06-24.md"


def test_near_tied_sections_show_the_unmarked_and_the_newer_one(vault):
    vault.write(
        "runbooks/failover.md",
        """\
        # Postgres failover

        ## Old procedure (superseded)
        Promote the standby with pg_ctl promote, then edit pgbouncer.ini by hand.

        ## New procedure
        Promote the standby with pg-failover, then let consul-template edit pgbouncer.ini.
        """,
    )
    hit = Mnemosyne(vault.root).search("promote the standby pgbouncer.ini")[0]
    assert hit["heading"] == "New procedure" and not hit["stale"]
    assert hit["also"] == ["Old procedure (superseded)"]


def test_a_journal_retelling_yields_to_the_record_it_retells(vault):
    text = "Restore the invoices database from the nightly dump with pg_restore.\n"
    vault.write("runbooks/restore.md", f"# Restore\n\n{text}")
    vault.write("journal/2026-05-02.md", f"# 2026-05-02\n\n### 10:00 — invoices restore\n{text}")
    vault.write("notes.md", "# Other\n\nSomething else entirely.\n")
    query = "restore invoices database nightly dump"
    neutral = Mnemosyne(vault.root, ranking={"prior_journal": 1.0}).search(query)
    assert neutral[0]["path"] == "journal/2026-05-02.md"  # its heading matches too
    hits = Mnemosyne(vault.root).search(query)
    assert [h["path"] for h in hits] == ["runbooks/restore.md", "journal/2026-05-02.md"]


def test_a_section_whose_first_line_marks_it_superseded_is_stale(vault):
    vault.write(
        "runbooks/deploy.md",
        """\
        # Deploy

        ## Manual steps
        > **Deprecated:** use the pipeline below.
        Copy the build to the bastion and run deploy.sh there.

        ## Pipeline
        Merge to main; the pipeline runs deploy.sh on the bastion for you.
        """,
    )
    hits = Mnemosyne(vault.root).search("run deploy.sh on the bastion")
    assert hits[0]["heading"] == "Pipeline" and not hits[0]["stale"]


def test_a_current_state_question_is_answered_from_the_section_naming_the_state(vault):
    vault.write(
        "projects/deposits.md",
        """\
        # Online deposits

        ## Idea
        Spanish clinics could ask patients for online deposits before the visit: a
        Spanish clinic would ask for a deposit paid online by card.

        ## Status
        Online deposits for Spanish clinics are live since May.
        """,
    )
    vault.write("projects/other.md", "# Reminders\n\nClinics send reminders before the visit.\n")
    query = "can Spanish clinics ask for online deposits now"
    assert Mnemosyne(vault.root).search(query)[0]["heading"] == "Status"
    # the same words without "now" are answered by the best matching section
    assert (
        Mnemosyne(vault.root).search("can Spanish clinics ask for online deposits")[0]["heading"]
        == "Idea"
    )


def test_among_near_tied_sections_the_one_whose_heading_names_the_query_is_shown(vault):
    vault.write(
        "journal/2026-06-03.md",
        """\
        # 2026-06-03

        ### 06:05 — danube is primary again
        Switchback done, writes on danube.

        ### 06:40 — replica rebuilt
        Rebuilt mekong, danube primary, writes fine.
        """,
    )
    hit = Mnemosyne(vault.root).search("danube primary writes")[0]
    assert hit["heading"] == "06:05 — danube is primary again"


def test_a_heading_naming_the_query_in_another_language_counts_as_naming_it(vault):
    vault.write(
        "runbooks/promote.md",
        """\
        # Promote a model version

        ## Steps
        Point the champion alias at the new version, then check that the champion alias
        serves that version. The champion alias and the version number must agree in the
        registry.

        ## Rollback
        If the new model misbehaves in the first hours after the switch, for instance when
        the share of flagged appointments jumps or the clinics complain about too many
        messages, point the champion alias back at the version it held before; the registry
        keeps every earlier version, and the scoring job picks the alias up on its next run.
        """,
    )
    # "戻す" (put back) is a form of rollback: "Rollback" scores a little below "Steps"
    # and is shown, as a heading holding the query's own word would be
    query = "champion alias を一つ前の version に戻すには？"
    assert Mnemosyne(vault.root).search(query)[0]["heading"] == "Rollback"
    assert Mnemosyne(vault.root, ranking={"w_glossary": 0}).search(query)[0]["heading"] == "Steps"


def _ops_vault(vault):
    vault.write(
        "runbooks/queue.md",
        "# RabbitMQ queue backlog\n\nWhen the reminder queue keeps growing, check the consumers "
        "of reminder-worker and the dead letter queue. Consumer group offsets are not used.\n",
    )
    vault.write(
        "hosts/db1.md",
        "# db1\n\nPostgreSQL primary at 10.40.1.12, floating IP 10.40.1.100 moves on failover. "
        "The noshow-v3 model alias champion is served from here.\n",
    )
    vault.write("notes/misc.md", "# Misc\n\nPatients get text reminders the day before.\n")


def test_a_question_naming_something_the_vault_never_mentions_is_absent(vault):
    _ops_vault(vault)
    engine = Mnemosyne(vault.root)
    response = engine.search_response("How do we reset Kafka consumer group offsets?")
    assert response["no_strong_match"] and response["hits"] == []
    assert response["absence_note"] == "'Kafka' appears nowhere in the vault"
    assert response["signals"]["missing_names"] == ["Kafka"]
    assert response["best_weak"][0]["path"] == "runbooks/queue.md"
    for query in ("Splunk 里的日志保留多少天？", "move the floating IP 10.40.1.99 to db2"):
        assert engine.search_response(query)["no_strong_match"], query
    # a name inside a German compound, written CamelCase
    assert engine.search_response("Welchen Port nutzt der FastAPI-Dienst?")["no_strong_match"]


def test_a_paraphrase_keeps_its_hits_with_a_confidence(vault):
    _ops_vault(vault)
    engine = Mnemosyne(vault.root)
    response = engine.search_response(
        "patients aren't getting their text reminders and the queue keeps growing"
    )
    assert not response["no_strong_match"] and response["absence_note"] is None
    assert {h["path"] for h in response["hits"][:2]} == {"runbooks/queue.md", "notes/misc.md"}
    assert response["confidence"] in ("low", "medium", "high")
    # known identifiers and their parts, German nouns and sentence-initial words are no
    # evidence of absence
    for query in (
        "what is the noshow-v3@champion alias",
        "Wo laufen Erinnerungen für Patienten?",
        "Reminders the day before",
    ):
        assert not engine.search_response(query)["no_strong_match"], query


def test_the_words_of_a_link_alias_describe_the_linked_note_not_the_hub(vault):
    vault.write(
        "projects/overview.md",
        "# Atlas overview\n\n## Runbooks\n- [[deploy-rollback|Roll back a bad deploy]]\n"
        "- [[postgres-restore|Restore the database]]\n",
    )
    vault.write(
        "runbooks/deploy-rollback.md",
        "# Deploy rollback\n\nRolling back a release: redeploy the previous tag, then check.\n",
    )
    hits = Mnemosyne(vault.root).search("how do I roll back a bad deploy?")
    assert hits[0]["path"] == "runbooks/deploy-rollback.md"


def _procedure_vault(vault):
    vault.write(
        "runbooks/failover.md",
        """\
        ---
        updated: 2026-05-20
        ---
        # Postgres failover

        ## Steps
        The failover procedure: promote the standby with pg-failover, then repoint
        pgbouncer at it and check replication.
        """,
    )
    vault.write(
        "journal/2026-06-03.md",
        "# 2026-06-03\n\n### 06:02 — failover back to danube\nRan the failover procedure"
        " again: promoted the standby, repointed pgbouncer, replication fine.\n",
    )
    for i in range(6):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\nPrinter toner and coffee, item {i}.\n")


def test_a_question_naming_a_kind_of_record_prefers_that_kind(vault):
    _procedure_vault(vault)
    query = "which failover procedure should I follow today?"
    engine = Mnemosyne(vault.root)
    words = query_units(query, known=engine.index.has_term)
    plan = plan_query(words, engine.index, translations=engine._translations(words, engine.index))
    assert plan.current and plan.kinds == {"runbook"}
    assert engine.search(query)[0]["path"] == "runbooks/failover.md"
    # The journal entry scores above 70 % of the runbook even without the boost, so a
    # state question that does not name the kind puts it first; one naming the kind
    # does not.
    off = Mnemosyne(vault.root, ranking={"kind_named_boost": 1.0})
    named = off.search("failover procedure standby pgbouncer today")
    assert [h["path"] for h in named[:2]] == ["runbooks/failover.md", "journal/2026-06-03.md"]
    assert named[1]["score"] >= 0.7 * named[0]["score"]
    unnamed = engine.search("failover standby pgbouncer today")
    assert unnamed[0]["path"] == "journal/2026-06-03.md"


def test_a_kind_named_in_another_language_counts_through_the_glossary(vault):
    _procedure_vault(vault)
    engine = Mnemosyne(vault.root)
    words = query_units("failover 절차", known=engine.index.has_term)
    plan = plan_query(words, engine.index, translations=engine._translations(words, engine.index))
    assert plan.kinds == {"runbook"}
    words = query_units("failover pgbouncer", known=engine.index.has_term)
    assert plan_query(words, engine.index).kinds == frozenset()


def test_the_kind_boost_keeps_the_multiplier_bound():
    params = RankingParams()
    assert params.max_multiplier_ratio(names_kind=True) == pytest.approx(
        params.max_multiplier_ratio() * params.kind_named_boost
    )


def test_a_hangul_words_bigrams_share_its_weight(vault):
    # Korean writes spaces between words: "데이터베이스" is one word of five bigrams,
    # "복원" one of one, and the longer word must not count five times.
    vault.write(
        "notes/broken.md",
        "# 주의\n\nWAL을 지우면 데이터베이스가 깨진다. 지우기 전에 확인한다.\n",
    )
    vault.write("notes/drill.md", "# 복원 훈련\n\n매달 스테이징에서 해 본다.\n")
    for i in range(6):
        vault.write(f"notes/n{i}.md", f"# 메모 {i}\n\n커피와 프린터, 항목 {i}.\n")
    engine = Mnemosyne(vault.root)
    weights = _plan_weights(engine, "데이터베이스 복원")
    bigrams = ["데이", "이터", "터베", "베이", "이스"]
    assert sum(weights[b] for b in bigrams) == pytest.approx(1.0)
    assert weights["복원"] == 1.0
    # one word in a title outweighs one in a body, however many bigrams that one has
    hits = engine.search("데이터베이스 복원", limit=2)
    assert [h["path"] for h in hits] == ["notes/drill.md", "notes/broken.md"]


def _pointer_vault(
    vault, *, link: bool, title="Getting the database back", restore=True, name="restore-the-db"
):
    pointer = f"see [[{name}]]" if link else "see the other runbook"
    vault.write(
        "runbooks/disk-full.md",
        f"# Disk full\n\n## Never delete\n\nThe database dumps in /var/backups: restore "
        f"steps, {pointer}. Database restore drills read them.\n",
    )
    filler = " ".join(f"step{i}" for i in range(80))
    last = "Then the database restore is done." if restore else "Then the database is back."
    vault.write(f"runbooks/{name}.md", f"# {title}\n\nStop the writers first. {filler}. {last}\n")
    for i in range(6):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\ncoffee and printers, item {i}\n")
    return Mnemosyne(vault.root)


def test_a_hit_that_points_elsewhere_for_the_query_words_yields_to_that_note(vault):
    # The words around a link describe its target: the note that names them in passing
    # and links a note about them (its title holds more of the query) is not the answer.
    engine = _pointer_vault(vault, link=True)
    paths = [h["path"] for h in engine.search("database restore", limit=3)]
    assert paths[:2] == ["runbooks/restore-the-db.md", "runbooks/disk-full.md"]


def test_without_the_link_the_stronger_match_keeps_its_place(vault):
    engine = _pointer_vault(vault, link=False)
    paths = [h["path"] for h in engine.search("database restore", limit=3)]
    assert paths[:2] == ["runbooks/disk-full.md", "runbooks/restore-the-db.md"]


def test_a_linked_note_not_about_the_query_or_missing_a_word_does_not_move_up(tmp_path):
    from conftest import VaultFactory

    # its title holds no more of the query than the linking note's: a citation, and
    # the link changes nothing
    orders = []
    for name, link in (("a", True), ("a0", False)):
        folder = VaultFactory(tmp_path / name)
        engine = _pointer_vault(folder, link=link, title="Getting it back", name="pg-steps")
        orders.append([h["path"] for h in engine.search("database restore", limit=3)])
    assert orders[0] == orders[1] and orders[0][:2] == [
        "runbooks/disk-full.md",
        "runbooks/pg-steps.md",
    ]
    # it does not hold "restore" at all
    engine = _pointer_vault(VaultFactory(tmp_path / "b"), link=True, restore=False)
    paths = [h["path"] for h in engine.search("database restore", limit=3)]
    assert paths[0] == "runbooks/disk-full.md"
