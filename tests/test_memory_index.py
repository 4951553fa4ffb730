"""MemoryIndex: routes, budgeted rendering, open, check, split and MEMORY.md import."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birkin_mnemosyne import memory_index
from birkin_mnemosyne.errors import InvalidInputError, NoteNotFoundError, VersionConflictError
from birkin_mnemosyne.journal import Journal
from birkin_mnemosyne.memory_index import INDEX_DIR, ROUTES_FILE, MemoryIndex, trigger_matches

LONG_NOTE = (
    "---\ntitle: Ops handbook\n---\n# Ops handbook\n\nLead paragraph.\n\n"
    "## Restore the database\n\nStop the app.\n\n```sh\n## not a heading\n```\n\n"
    "## Rotate certificates\n\nRun certbot. Ünïcode ✓\n\n### Detail\n\nMore.\n"
    "## Kafka retention\n\nSeven days.\n"
)


@pytest.fixture
def ops(vault):
    vault.write("runbooks/postgres-restore.md", "# Postgres restore\n\nUse pg_restore.\n")
    vault.write("runbooks/kafka.md", "# Kafka\n\nRetention is seven days.\n")
    vault.write("people/alice.md", "# Alice\n\nOwns billing.\n")
    return vault


def test_a_vault_without_the_marker_is_not_enabled(ops):
    index = MemoryIndex(ops.root)
    assert not index.enabled
    assert index.routes() == []
    assert not (ops.root / ".mnemosyne").exists()


def test_register_is_additive_and_idempotent(ops):
    index = MemoryIndex(ops.root)
    first = index.register("restoring  the database", "runbooks/postgres-restore.md")
    again = index.register("Restoring the database", "runbooks/postgres-restore")
    assert first["created"] and not again["created"]
    assert index.enabled and (ops.root / INDEX_DIR).is_dir()
    index.register("restoring the database", "runbooks/kafka.md")
    assert index.routes() == [
        {"trigger": "restoring the database", "path": "runbooks/kafka.md"},
        {"trigger": "restoring the database", "path": "runbooks/postgres-restore.md"},
    ]
    data = json.loads((ops.root / ROUTES_FILE).read_text(encoding="utf-8"))
    assert data["format"] == "mnemosyne-memory-index/1"


def test_register_refuses_a_missing_note_and_empty_trigger(ops):
    index = MemoryIndex(ops.root)
    with pytest.raises(NoteNotFoundError):
        index.register("x", "nowhere.md")
    with pytest.raises(InvalidInputError):
        index.register("   ", "people/alice.md")


def test_render_flat_within_budget(ops):
    index = MemoryIndex(ops.root)
    index.register("restoring the database", "runbooks/postgres-restore.md")
    view = index.render()
    assert view["mode"] == "flat" and not view["over_budget"]
    assert "- restoring the database -> runbooks/postgres-restore.md" in view["text"]
    assert view["estimated_tokens"] == -(-len(view["text"].encode("utf-8")) // 4)
    assert view["estimate"] == "UTF-8 bytes / 4"


def test_render_topic_map_keeps_every_route_reachable(vault):
    index = MemoryIndex(vault.root, budget_tokens=120)
    expected = []
    for folder in ("ops", "people", "projects/atlas"):
        for n in range(8):
            path = f"{folder}/note-{n}.md"
            vault.write(path, f"# {n}\n")
            index.register(f"when working on {folder} item number {n}", path)
            expected.append(path)
    view = index.render()
    assert view["mode"] == "topics"
    assert view["routes"] == len(expected)
    reached = []
    for topic in view["topics"]:
        assert topic in view["text"]
        reached += [r["path"] for r in index.read(topic)["routes"]]
    assert sorted(reached) == sorted(expected)


def test_over_budget_warns_and_drops_nothing(vault):
    index = MemoryIndex(vault.root, budget_tokens=5)
    for n in range(5):
        vault.write(f"t{n}/a.md", "# a\n")
        index.register(f"topic {n}", f"t{n}/a.md")
    view = index.render()
    assert view["over_budget"] and view["warnings"]
    assert all(f"t{n}" in view["text"] for n in range(5))
    assert len(index.routes()) == 5


def test_open_exact_trigger_returns_complete_documents(ops):
    index = MemoryIndex(ops.root)
    index.register("restoring the database", "runbooks/postgres-restore.md")
    result = index.open("RESTORING the database")
    assert result["matched"] and not result["fallback"]
    [doc] = result["documents"]
    assert doc["text"] == (ops.root / "runbooks/postgres-restore.md").read_text(encoding="utf-8")


def test_open_falls_back_to_search_and_says_so(ops):
    index = MemoryIndex(ops.root)
    index.register("restoring the database", "runbooks/postgres-restore.md")
    result = index.open("kafka retention")
    assert result["fallback"] and not result["matched"]
    assert result["documents"] == []
    assert result["hits"][0]["path"] == "runbooks/kafka.md"


@pytest.mark.parametrize(
    ("trigger", "task"),
    [
        ("restoring the database", "I need to restore the database"),  # the case
        ("restoring the database", "the databases were restored"),  # any order, plurals
        ("rotating the TLS certificates", "rotate the TLS certificate today"),
        ("on call", "who is on call this week?"),
        ("kafka", "Kafka lag again"),  # a one-word trigger: that word
        ("Datenbank wiederherstellen", "Die Datenbanken wurden wiederhergestellt"),
        ("Regeln ersetzt", "die Regel ersetzen"),  # other inflections of both words
        ("Plattenwarnung", "die Platte meldet eine Warnung"),  # a compound meets its halves
        ("데이터베이스 복원", "데이터베이스를 복원해야 합니다"),  # Hangul bigrams past particles
        ("データベースの復元", "データベースを復元したい"),  # Japanese particles left out
        ("恢复数据库", "我需要恢复数据库"),  # Han bigrams inside a longer run
        ("发布回滚", "新版本发布失败，需要回滚"),  # 2 of 3 bigrams of one run
        ("pg_hba.conf", "edit pg_hba.conf on db1"),
    ],
)
def test_a_trigger_matches_a_task_that_covers_it(trigger, task):
    assert trigger_matches(trigger, task)


@pytest.mark.parametrize(
    ("trigger", "task"),
    [
        ("restoring the database", "restore the cache from the backup"),  # one word of two
        ("restoring the database", "the database is slow"),
        ("on call", "call the vendor"),  # a stopword is kept when one content word is left
        ("renewing the domain", "sketch the new domain model"),
        ("Zertifikate erneuern", "Zertifikate prüfen"),
        ("데이터베이스 복원", "데이터 분석 보고서"),  # 2 of 5 bigrams
        ("データベースの復元", "データの分析"),
        ("恢复数据库", "根据数据库的统计"),  # no 恢复
        ("数据库", "数据分析报告"),  # shared single characters do not count
        ("restore", "restoration"),  # another stem: words are never fuzzy-matched
    ],
)
def test_a_trigger_does_not_match_a_task_that_only_shares_some_words(trigger, task):
    assert not trigger_matches(trigger, task)


def test_matching_delivers_through_the_tokenizer_and_keeps_order(ops):
    index = MemoryIndex(ops.root)
    index.register("restoring the database", "runbooks/postgres-restore.md")
    index.register("kafka retention", "runbooks/kafka.md")
    index.register("billing owner", "people/alice.md")
    found = index.matching("I need to restore the database; is Kafka retention 7 days?")
    assert [r["path"] for r in found] == ["runbooks/kafka.md", "runbooks/postgres-restore.md"]
    assert index.matching("who owns the billing?") == []
    with pytest.raises(InvalidInputError, match="task must be a string"):
        index.matching(None)


WORDS = [
    "restore",
    "restoring",
    "restored",
    "database",
    "databases",
    "Datenbank",
    "Datenbanken",
    "wiederherstellen",
    "wiederhergestellt",
    "Regel",
    "Regeln",
    "ersetzt",
    "ersetzen",
    "getauscht",
    "tauschen",
    "Platte",
    "Warnung",
    "Plattenwarnung",
    "Betriebstagebuch",
    "Betrieb",
    "Tagebuch",
    "the",
    "on",
    "call",
    "kafka",
    "lag",
    "데이터베이스를",
    "복원",
    "恢复数据库",
    "数据",
    "データベースの復元",
    "pg_hba.conf",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=3), st.lists(st.sampled_from(WORDS)))
def test_the_shortcut_never_changes_a_verdict(trigger_words, task_words):
    trigger, task = " ".join(trigger_words), " ".join(task_words)
    terms = memory_index._task_terms(task, known=set(memory_index.tokenize(trigger)).__contains__)
    units = memory_index.query_units(trigger, known=terms.__contains__)
    full = bool(units) and all(
        memory_index._covered(u, terms) for u in memory_index._content_units(units)
    )
    assert memory_index._trigger_covered(trigger, terms) == full


def test_check_reports_orphans_and_dangling_routes_without_writing(ops):
    index = MemoryIndex(ops.root)
    index.register("restoring the database", "runbooks/postgres-restore.md")
    index.register("billing owner", "people/alice.md")
    (ops.root / "people/alice.md").unlink()
    before = (ops.root / ROUTES_FILE).read_bytes()
    report = index.check()
    assert not report["ok"]
    assert report["dangling"] == [{"trigger": "billing owner", "path": "people/alice.md"}]
    assert report["orphans"] == ["runbooks/kafka.md"]
    assert report["coverage"]["routed_notes"] == 1
    assert (ops.root / ROUTES_FILE).read_bytes() == before


def test_split_preview_writes_nothing_and_covers_every_byte(vault):
    vault.write("ops/handbook.md", LONG_NOTE, dedent=False)
    index = MemoryIndex(vault.root)
    preview = index.split("ops/handbook.md")
    assert preview["mode"] == "preview"
    assert not (vault.root / ".mnemosyne").exists()
    source = LONG_NOTE.encode("utf-8")
    rows = preview["coverage"]
    assert rows[0]["start"] == 0 and rows[-1]["end"] == len(source)
    assert all(a["end"] == b["start"] for a, b in zip(rows, rows[1:]))
    assert sum(r["bytes"] for r in rows) == len(source)
    assert [r["trigger"] for r in preview["routes"]] == [
        "Restore the database",
        "Rotate certificates",
        "Kafka retention",
    ]


def test_split_apply_is_lossless_routed_and_undoable(vault):
    vault.write("ops/handbook.md", LONG_NOTE, dedent=False)
    index = MemoryIndex(vault.root)
    preview = index.split("ops/handbook.md")
    applied = index.split("ops/handbook.md", apply=True, plan_id=preview["plan_id"])
    assert applied["mode"] == "applied" and applied["transaction_id"]
    source = LONG_NOTE.encode("utf-8")
    pieces = b""
    for row in applied["coverage"]:
        data = (vault.root / row["target"]).read_bytes()
        pieces += data[: row["bytes"]] if row["target"] == "ops/handbook.md" else data
    assert pieces == source
    assert "## not a heading" in (vault.root / "ops/handbook/01-restore-the-database.md").read_text(
        encoding="utf-8"
    )
    assert len(index.routes()) == 3
    Journal(vault.root).undo(applied["transaction_id"])
    assert (vault.root / "ops/handbook.md").read_bytes() == source
    assert not (vault.root / "ops/handbook").exists() or not any(
        (vault.root / "ops/handbook").iterdir()
    )
    assert index.routes() == []


def test_split_refuses_a_stale_plan_and_a_note_without_sections(vault):
    vault.write("ops/handbook.md", LONG_NOTE, dedent=False)
    vault.write("short.md", "# Short\n\nOne paragraph.\n")
    index = MemoryIndex(vault.root)
    preview = index.split("ops/handbook.md")
    vault.write("ops/handbook.md", LONG_NOTE + "\nmore\n", dedent=False)
    with pytest.raises(VersionConflictError):
        index.split("ops/handbook.md", apply=True, plan_id=preview["plan_id"])
    with pytest.raises(InvalidInputError):
        index.split("short.md")


def test_memory_md_is_recognised_and_imported_as_routes(ops):
    ops.write(
        "MEMORY.md",
        "- [Postgres restore](runbooks/postgres-restore.md) — restoring the database\n"
        "- [Alice](people/alice.md)\n"
        "- [Gone](gone.md) — a missing note\n"
        "Some other line\n",
    )
    index = MemoryIndex(ops.root)
    assert index.find_memory_md() == "MEMORY.md"
    preview = index.import_memory_md()
    assert len(preview["routes"]) == 2 and len(preview["skipped"]) == 1
    applied = index.import_memory_md(apply=True, plan_id=preview["plan_id"])
    assert applied["state"] == "committed"
    assert {r["trigger"] for r in index.routes()} == {"restoring the database", "Alice"}
    again = index.import_memory_md(apply=True)
    assert again["state"] == "unchanged"


@pytest.mark.parametrize(
    "text",
    [
        "## A\r\n\r\none\r\n## B\r\ntwo ✓\r\n",
        "intro without a newline at the end of the lead\n## A\nx\n## B\ny",
        "---\ntitle: T\n---\n### deep\n\n# H1\n## A\n\n    ## indented code\n\n## B\n",
    ],
)
def test_split_is_lossless_on_odd_notes(vault, text):
    vault.write("n.md", text, dedent=False)
    source = text.encode("utf-8")
    index = MemoryIndex(vault.root)
    applied = index.split("n.md", apply=True)
    rebuilt = b""
    for row in applied["coverage"]:
        data = (vault.root / row["target"]).read_bytes()
        rebuilt += data[: row["bytes"]]
    assert rebuilt == source
    assert sum(r["bytes"] for r in applied["coverage"]) == len(source)
    Journal(vault.root).undo(applied["transaction_id"])
    assert (vault.root / "n.md").read_bytes() == source


# -- secrets never enter or leave the INDEX ------------------------------------------

# Built by concatenation so the repository holds no secret-shaped literal.
GHP = "ghp_" + "a1B2" * 9
TK = "tk" + "_" + "d2867328c41a00d68ec55c016d6d604f4d626e30"
PW = "hunter2" + "-zebra-41"


def _files_under(root) -> str:
    """Every file name and text under ``root``, as one string."""
    parts = []
    for file in sorted(root.rglob("*")):
        parts.append(str(file.relative_to(root)))
        if file.is_file():
            parts.append(file.read_bytes().decode("utf-8", "replace"))
    return "\n".join(parts)


def test_register_stores_and_serves_triggers_redacted(ops):
    index = MemoryIndex(ops.root)
    route = index.register(f"deploy with {GHP}", "runbooks/kafka.md")
    assert GHP not in route["trigger"] and "[REDACTED:github_token]" in route["trigger"]
    assert GHP not in (ops.root / ROUTES_FILE).read_text(encoding="utf-8")
    assert GHP not in index.render()["text"]
    # The exact trigger as the caller knows it still opens the note.
    opened = index.open(f"deploy with {GHP}")
    assert opened["matched"] and opened["documents"][0]["path"] == "runbooks/kafka.md"
    assert GHP not in json.dumps(opened)


def test_a_routes_file_holding_a_secret_is_served_redacted(ops):
    (ops.root / INDEX_DIR).mkdir(parents=True)
    routes = [
        {"trigger": f"password: {PW}", "path": "people/alice.md"},
        {"trigger": f"token {TK}", "path": "runbooks/kafka.md"},
    ]
    (ops.root / ROUTES_FILE).write_text(
        json.dumps({"format": "mnemosyne-memory-index/1", "routes": routes}), encoding="utf-8"
    )
    index = MemoryIndex(ops.root)
    served = json.dumps(
        [index.routes(), index.render(), index.read("runbooks"), index.check()]
        + [index.render(budget_tokens=1)]
    )
    assert PW not in served and TK not in served
    assert "[REDACTED:key_value]" in served and "[REDACTED:prefixed_token]" in served
    # The next write cleans the file itself.
    index.register("kafka retention", "runbooks/kafka.md")
    on_disk = (ops.root / ROUTES_FILE).read_text(encoding="utf-8")
    assert PW not in on_disk and TK not in on_disk


def test_split_names_parts_and_routes_after_the_redacted_heading(vault):
    text = (
        "# Handbook\n\nLead.\n\n"
        f"## Deploy with {GHP}\n\nSteps.\n\n## Database password: {PW}\n\nRotate it.\n"
    )
    vault.write("ops/handbook.md", text, dedent=False)
    index = MemoryIndex(vault.root)
    preview = index.split("ops/handbook.md")
    assert GHP not in json.dumps(preview) and PW not in json.dumps(preview)
    applied = index.split("ops/handbook.md", apply=True, plan_id=preview["plan_id"])
    assert applied["mode"] == "applied"
    names = [p.name for p in (vault.root / "ops/handbook").iterdir()]
    assert len(names) == 2 and not any(GHP in n or PW in n for n in names)
    # The parts keep their bytes (lossless); the routes and the source's links do not
    # repeat the secret.
    parts = "".join((vault.root / "ops/handbook" / n).read_text() for n in sorted(names))
    assert GHP in parts
    assert GHP not in (vault.root / ROUTES_FILE).read_text(encoding="utf-8")
    assert GHP not in (vault.root / "ops/handbook.md").read_text(encoding="utf-8")
    assert GHP not in json.dumps(index.routes()) and PW not in index.render()["text"]


def test_memory_md_import_redacts_titles_and_hooks(vault):
    vault.write("notes/deploy.md", "# Deploy\n")
    vault.write(
        "MEMORY.md",
        f"- [Deploy token {TK}](notes/deploy.md) — password: {PW}\n"
        f"- [Deploy {GHP}](notes/deploy.md)\n",
        dedent=False,
    )
    index = MemoryIndex(vault.root)
    preview = index.import_memory_md()
    index.import_memory_md(apply=True, plan_id=preview["plan_id"])
    served = json.dumps([preview, index.routes(), index.render()])
    files = _files_under(vault.root / INDEX_DIR)
    for secret in (TK, PW, GHP):
        assert secret not in served and secret not in files
