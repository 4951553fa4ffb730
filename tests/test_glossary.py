"""The cross-language glossary: finding a concept's forms in a query, and what it adds."""

from __future__ import annotations

import pytest

from birkin_mnemosyne import Mnemosyne, ranking
from birkin_mnemosyne.errors import ConfigError
from birkin_mnemosyne.glossary import (
    Glossary,
    _bucket_of,
    _units_of,
    builtin_glossary,
    builtin_rows,
    parse_rows,
)
from birkin_mnemosyne.tokenizer import query_units

ROWS = """
# a comment, then a blank line

log | logs | Protokoll | 로그 | ログ | 日志
login | sign-in | 로그인 | ログイン | 登录
on-call | Bereitschaft | 온콜 | 당직 | 当番 | 值班
certificate | Zertifikat | certificado | 인증서 | 証明書 | 证书
backup | Sicherung | copia de seguridad | 백업 | バックアップ | 备份
"""


def _glossary() -> Glossary:
    return Glossary.from_rows(parse_rows(ROWS))


def _found(glossary: Glossary, query: str) -> list[tuple[str, ...]]:
    return [key for _, key in glossary.concepts_in(query_units(query))]


def everything(term: str) -> bool:
    return True


def test_parse_rows_skips_comments_and_needs_two_forms():
    rows = parse_rows(ROWS)
    assert rows[0] == ["log", "logs", "Protokoll", "로그", "ログ", "日志"]
    assert len(rows) == 5
    with pytest.raises(ConfigError, match=r"my-file, line 2: a row needs two or more forms"):
        parse_rows("a | b\nlonely\n", "my-file")


def test_latin_forms_match_stemmed_words_side_by_side():
    glossary = _glossary()
    assert _found(glossary, "renewing the certificates") == [("certifi",)]
    assert _found(glossary, "who is on-call in March") == [("on", "call")]
    assert _found(glossary, "who is on call in March") == [("on", "call")]
    # the two words, not side by side, are not the phrase
    assert _found(glossary, "call him on Monday") == []


def test_cjk_forms_match_inside_runs_longest_first():
    glossary = _glossary()
    assert _found(glossary, "교훈과 인증서를 갱신") == [("인증서",)]
    assert _found(glossary, "证书续期流程") == [("证书",)]
    # 로그인 (log-in) is not also 로그 (log)
    assert _found(glossary, "로그인 오류") == [("로그인",)]
    assert _found(glossary, "로그 보관") == [("로그",)]


def test_a_japanese_form_with_okurigana_is_found_before_the_particles():
    glossary = Glossary.from_rows(parse_rows("rollback | 戻す | 切り戻し\nretro | 振り返り"))
    # the verb's ending and the particles after it are one kana run in the query
    assert _found(glossary, "一つ前の version に戻すには") == [("戻", "す")]
    assert _found(glossary, "切り戻しの手順") == [("切", "り", "戻", "し")]
    assert _found(glossary, "振り返りをする") == [("振", "り", "返")]
    # another verb on the same character is not the form
    assert _found(glossary, "家に戻る") == []
    assert _found(glossary, "戻") == []
    # made of single characters, such a form adds nothing to a query in another language
    assert glossary.expansions(query_units("rollback"), everything) == []


def test_expansions_are_the_other_forms_the_index_holds():
    glossary = _glossary()
    units = query_units("restart after the backup")
    assert glossary.expansions(units, everything) == [
        "sicheru",
        "copia",
        "segurid",
        "백업",
        "バックアップ",
        "备份",
    ]
    held = {"sicheru", "copia", "备份"}
    # "copia de seguridad" needs both of its words; "de" is a stopword, not indexed
    assert glossary.expansions(units, held.__contains__) == ["sicheru", "备份"]


def test_a_cjk_form_the_index_lacks_as_a_whole_adds_its_two_character_parts():
    glossary = _glossary()
    units = query_units("certificate renewal")
    held = {"証明", "明書", "인증서"}
    assert glossary.expansions(units, held.__contains__) == ["인증서", "証明", "明書"]
    # a missing part drops the whole form rather than adding half of it
    assert glossary.expansions(units, {"証明", "인증서"}.__contains__) == ["인증서"]


def test_the_form_found_and_the_querys_own_terms_are_not_repeated():
    glossary = _glossary()
    units = query_units("証明書の更新")
    assert "証明書" not in glossary.expansions(units, everything)
    assert "certifi" in glossary.expansions(units, everything)


def test_builtin_glossary_is_consistent():
    rows = builtin_rows()
    assert len(rows) >= 300
    glossary = builtin_glossary()
    assert len(glossary) >= 300
    # a form on two rows would merge two concepts into one look-up
    seen: dict[str, int] = {}
    duplicates = []
    for number, row in enumerate(rows):
        for form in row:
            key = form.casefold()
            if key in seen and seen[key] != number:
                duplicates.append(form)
            seen[key] = number
    assert not duplicates
    # the shortcuts that key a form without analysing it agree with query_units
    # and the first-character bucket a form waits in is where a query word looks
    wrong = [
        (form.text, form.key)
        for row in range(len(glossary))
        for form in glossary.forms_of(row)
        if form.key != tuple(unit[0] for unit in _units_of(form.text))
        or _bucket_of(form.text) != form.key[0][0]
    ]
    assert not wrong
    # A form analysed to a month's name would score every note dated in that month:
    # French "en marche" (running) is the English "March" to the analyser.
    from birkin_mnemosyne.ranking import MONTH_WORDS

    months = [
        form for row in rows for form in row if any(u[0] in MONTH_WORDS for u in _units_of(form))
    ]
    assert not months


def test_forms_of_other_scripts_and_phrases_are_keyed_like_query_words():
    glossary = Glossary.from_rows(
        parse_rows(
            "システム障害 | system outage\nLösung | solution\nnivel de servicio de red | x y"
        )
    )
    keys = [form.key for row in range(len(glossary)) for form in glossary.forms_of(row)]
    assert ("システム", "障害") in keys  # katakana then Han: two runs, as in a query
    assert ("losung",) in keys
    assert ("nivel", "de", "servici", "red") in keys  # a repeated word once, as in a query


# -- through the engine -------------------------------------------------------------


def _bilingual_vault(vault):
    vault.write(
        "runbooks/pgbouncer-neustart.md",
        "# PgBouncer neu starten\n\nVor dem Neustart die Verbindungen prüfen, dann "
        "systemctl reload pgbouncer auf allen App-Hosts.\n",
    )
    for i in range(6):
        vault.write(
            f"notes/pgbouncer-{i}.md",
            f"# PgBouncer pool {i}\n\npgbouncer pool size {i} for the reporting app.\n",
        )
    vault.write(
        "runbooks/cert.md",
        "# Certificate renewal\n\nRenew the wildcard certificate with acme.sh.\n",
    )
    vault.write("notes/other.md", "# 메모\n\n갱신 일정은 월요일.\n")


def test_an_english_question_finds_the_german_runbook(vault):
    _bilingual_vault(vault)
    with_glossary = Mnemosyne(vault.root).search("how do I restart pgbouncer")
    assert with_glossary[0]["path"] == "runbooks/pgbouncer-neustart.md"
    without = Mnemosyne(vault.root, ranking={"w_glossary": 0}).search("how do I restart pgbouncer")
    assert without[0]["path"] != "runbooks/pgbouncer-neustart.md"


def test_a_korean_question_finds_the_english_note(vault):
    _bilingual_vault(vault)
    hits = Mnemosyne(vault.root).search("인증서 갱신 방법")
    assert hits[0]["path"] == "runbooks/cert.md"
    # without it, the Korean note sharing one word is the best of a weak lot
    without = Mnemosyne(vault.root, ranking={"w_glossary": 0}).search_response("인증서 갱신 방법")
    assert without["confidence"] == "low"
    assert without["hits"][0]["path"] == "notes/other.md"


def test_the_vaults_own_glossary_adds_rows_and_is_reread(vault):
    vault.write("hosts/zeus.md", "# zeus\n\nThe primary database host.\n")
    vault.write("hosts/hera.md", "# hera\n\nThe mail relay.\n")
    engine = Mnemosyne(vault.root)
    assert engine.search("제우스") == []
    (vault.root / ".mnemosyne").mkdir(exist_ok=True)
    (vault.root / ".mnemosyne" / "glossary.txt").write_text(
        "# our hosts' nicknames\nzeus | 제우스\n", encoding="utf-8"
    )
    hits = engine.search("제우스")
    assert [hit["path"] for hit in hits] == ["hosts/zeus.md"]


def test_a_broken_vault_glossary_warns_and_search_goes_on(vault):
    _bilingual_vault(vault)
    (vault.root / ".mnemosyne").mkdir(exist_ok=True)
    (vault.root / ".mnemosyne" / "glossary.txt").write_text("only one form\n", encoding="utf-8")
    engine = Mnemosyne(vault.root)
    hits = engine.search("how do I restart pgbouncer")
    assert hits[0]["path"] == "runbooks/pgbouncer-neustart.md"
    assert any("vault glossary is left out" in w and "line 1" in w for w in engine.warnings)


def test_a_term_new_to_the_index_is_found_after_a_refresh(vault):
    vault.write("notes/a.md", "# Kafka\n\nThe event bus.\n")
    engine = Mnemosyne(vault.root, refresh_interval=0)
    assert engine.search("백업 계획") == []  # "backup" is in no note yet
    vault.write("notes/b.md", "# Backup plan\n\nNightly backup to the NAS.\n")
    assert [hit["path"] for hit in engine.search("백업 계획")] == ["notes/b.md"]


def test_a_translation_most_notes_hold_covers_but_does_not_score(vault, monkeypatch):
    for i in range(4):
        vault.write(f"notes/n{i}.md", f"# Note {i}\n\nThe server runs job {i}.\n")
    vault.write("notes/pg.md", "# PgBouncer\n\nThe server pool for pgbouncer.\n")
    # In a small vault a translation every note holds still scores: there, a topical
    # word is in most notes, and skipping it would save no time.
    small = Mnemosyne(vault.root).search("pgbouncer 서버")
    # The skip is for vaults where such a term has more notes than the floor.
    monkeypatch.setattr(ranking, "_GLOSSARY_SKIP_MIN_NOTES", 0)
    engine = Mnemosyne(vault.root)
    # "서버" is "server", in every note: it covers the word, pgbouncer decides
    hits = engine.search("pgbouncer 서버")
    assert [hit["path"] for hit in hits] == ["notes/pg.md"]
    assert small[0]["path"] == "notes/pg.md" and small[0]["score"] > hits[0]["score"]
    scoring = Mnemosyne(vault.root, ranking={"glossary_max_share": 1.0})
    assert scoring.search("pgbouncer 서버")[0]["score"] > hits[0]["score"]
    # alone, it still scores rather than leaving nothing to rank with (a word every
    # note holds is no strong match, but the notes are there to look at)
    response = engine.search_response("서버", limit=10)
    assert len(response["hits"]) == 5 and response["confidence"] != "high"


def test_remembered_concepts_give_the_translations_a_fresh_look_up_gives():
    glossary = builtin_glossary()
    vocabulary = {"restor", "databas", "wiederherstell", "datenbank", "복원", "백업", "backup"}
    memo: dict = {}
    queries = [
        "restore database",
        "Datenbank wiederherstellen",
        "데이터베이스 복원",
        "backup restore",
    ]
    fresh = [glossary.translations(query_units(q), vocabulary.__contains__) for q in queries]
    first = [
        glossary.translations(query_units(q), vocabulary.__contains__, memo=memo) for q in queries
    ]
    again = [
        glossary.translations(query_units(q), vocabulary.__contains__, memo=memo) for q in queries
    ]
    assert first == fresh and again == fresh
    assert memo  # concepts were remembered
    assert any(found for found in fresh)  # and the queries did find some


def test_a_concepts_forms_score_with_the_concepts_idf(vault, monkeypatch):
    # An English vault: restore and database are everywhere, the Spanish forms are rare
    # because Spanish is, not because the concept is.
    for i in range(6):
        vault.write(f"notes/n{i}.md", f"# Job {i}\n\nThe database job {i} can restore old rows.\n")
    vault.write(
        "runbooks/restore.md",
        "# Restore the database\n\nRestore the database from the nightly dump, then "
        "check the database restore log.\n",
    )
    vault.write(
        "runbooks/rollback-es.md",
        "# Revertir un despliegue\n\nSi hubo una migración, restaurar la base de datos.\n",
    )
    query = "Datenbank wiederherstellen"
    assert Mnemosyne(vault.root).search(query)[0]["path"] == "runbooks/restore.md"
    # each form with its own idf: the one Spanish note wins
    monkeypatch.setattr("birkin_mnemosyne.engine.weigh_translations", lambda plan, scores: None)
    assert Mnemosyne(vault.root).search(query)[0]["path"] == "runbooks/rollback-es.md"
