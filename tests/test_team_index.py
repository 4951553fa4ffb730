"""The PostgreSQL team index against a real server (``team.scratch.ScratchPostgres``).

Skipped, with the reason, when psycopg (the ``postgres`` extra) or PostgreSQL's
``initdb``/``pg_ctl`` are missing; CI installs both.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import time
from pathlib import Path

import pytest

from birkin_mnemosyne import Mnemosyne, VaultMemory
from birkin_mnemosyne.cli import main as cli_main
from birkin_mnemosyne.config import load_config
from birkin_mnemosyne.errors import ConfigError, VersionConflictError, WriteRefusedError

psycopg = pytest.importorskip("psycopg", reason="the postgres extra (psycopg) is not installed")

from birkin_mnemosyne.team.db import IndexBackendError  # noqa: E402
from birkin_mnemosyne.team.ingest import ingest  # noqa: E402
from birkin_mnemosyne.team.scratch import ScratchPostgres, scratch_unavailable_reason  # noqa: E402

_REASON = scratch_unavailable_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

SECRET = "ghp_" + "Z8fK2mQ9xLr4Tb7Wc1Np6Hs3Jd5Gv0Ye2Ua"
_schemas = itertools.count()


@pytest.fixture(scope="module")
def server():
    with ScratchPostgres() as pg:
        yield pg


@pytest.fixture
def url(server):
    return f"{server.url}?schema=t{next(_schemas)}"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True
    ).stdout


def _commit(repo: Path, files: dict[str, str | None], message: str = "notes") -> None:
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-qm", message)


PLATFORM = {
    "runbooks/postgres-failover.md": (
        "---\ntype: runbook\n---\n# Postgres failover\n\n## Promote the standby\n\n"
        "Run `patronictl failover` on danube, then point pgbouncer at mekong.\n\n"
        "## Check replication lag\n\nWatch `pg_stat_replication` until lag is zero.\n"
    ),
    "hosts/danube.md": "# danube\n\nPrimary PostgreSQL 16 host in rack B. Backups at 02:00.\n",
    "lessons/disk-full.md": (
        "# Disk full on rhine\n\njournald filled /var; vacuum it with "
        "`journalctl --vacuum-size=500M` before anything else.\n"
    ),
    "journal/2026-03-02.md": (
        "# 2026-03-02\n\n## Failover drill\n\nWe rehearsed the Postgres failover; took 4 min.\n"
    ),
    ".hidden/decoy.md": "# decoy\n\npostgres failover decoy text\n",
}
PRODUCT = {
    "runbooks/release-mobile.md": (
        "# Release the mobile app\n\nTag the build, upload to the stores, then announce.\n"
        f"Store API token: {SECRET}\n"
    ),
    "decisions/adr-002-deposits.md": (
        "# ADR 002: online deposits\n\nClinics in Spain may ask for a deposit online.\n"
    ),
}


@pytest.fixture
def repos(tmp_path):
    out = []
    for name, files in (("platform", PLATFORM), ("product", PRODUCT)):
        repo = tmp_path / name
        repo.mkdir()
        _git(repo, "init", "-q")
        _commit(repo, files)
        out.append((name, repo))
    return out


@pytest.fixture
def team_vault(tmp_path, repos):
    """A vault folder holding the team's configuration (the two repositories)."""
    vault = tmp_path / "team"
    (vault / ".mnemosyne").mkdir(parents=True)
    config = {"repos": [{"name": name, "path": str(path)} for name, path in repos]}
    (vault / ".mnemosyne" / "config.json").write_text(json.dumps(config), encoding="utf-8")
    return vault


def _paths(response: dict) -> list[str]:
    return [hit["path"] for hit in response["hits"]]


def _rows(url: str, sql: str, params=(), *, fetch: bool = True) -> list:
    from birkin_mnemosyne.team.db import connect

    with connect(url, autocommit=True) as conn:
        cursor = conn.execute(sql, params)
        return cursor.fetchall() if fetch else []


def test_multi_repo_ingest_and_search(url, team_vault):
    config = load_config(team_vault)
    report = ingest(url, config.repos, config=config)
    assert report.ok
    counts = {r.name: (r.added, r.changed, r.removed, r.unchanged) for r in report.repos}
    assert counts == {"platform": (4, 0, 0, 0), "product": (2, 0, 0, 0)}
    with Mnemosyne(team_vault, index=url) as engine:
        response = engine.search_response("postgres failover standby", limit=5)
        assert _paths(response)[0] == "platform/runbooks/postgres-failover.md"
        assert not any(".hidden" in p for p in _paths(response))
        assert response["hits"][0]["heading"] == "Promote the standby"
        deposits = engine.search_response("online deposits Spain", limit=3)
        assert _paths(deposits)[0] == "product/decisions/adr-002-deposits.md"
        assert engine.mode == "lexical"
        fresh = engine.freshness()
        assert fresh["fresh"] is True and fresh["backend"] == "postgresql"
        assert {r["repo"]: r["current"] for r in fresh["repos"]} == {
            "platform": True,
            "product": True,
        }
    runs = _rows(url, "SELECT repo, added, error FROM ingest_runs ORDER BY id")
    assert runs == [("platform", 4, None), ("product", 2, None)]


def test_same_response_shape_and_ranking_as_the_local_engine(url, repos, tmp_path):
    name, repo = repos[0]
    config = load_config(repo)
    ingest(url, [(name, repo)], config=config)
    clock = 1_780_000_000.0
    with (
        Mnemosyne(repo, index=url, clock=lambda: clock) as team,
        Mnemosyne(repo, clock=lambda: clock) as local,
    ):
        for query in (
            "postgres failover",
            "disk full journald",
            "replication lag",
            "kafka retention",  # nothing holds it: the same verdict both ways
            "which failover procedure should I follow today?",
        ):
            a = team.search_response(query, limit=5)
            b = local.search_response(query, limit=5)
            assert set(a) == set(b)
            assert a["no_strong_match"] == b["no_strong_match"]
            assert a["confidence"] == b["confidence"]
            assert [p.removeprefix(f"{name}/") for p in _paths(a)] == _paths(b)
            assert [h["score"] for h in a["hits"]] == [h["score"] for h in b["hits"]]
            assert [h["snippet"] for h in a["hits"]] == [h["snippet"] for h in b["hits"]]


def test_incremental_reingest_after_commits(url, repos):
    name, repo = repos[0]
    config = load_config(repo)
    ingest(url, [(name, repo)], config=config)
    seq = _rows(url, "SELECT value FROM meta WHERE key = 'seq'")[0][0]
    again = ingest(url, [(name, repo)], config=config).repos[0]
    assert (again.added, again.changed, again.removed, again.unchanged) == (0, 0, 0, 4)
    assert _rows(url, "SELECT value FROM meta WHERE key = 'seq'")[0][0] == seq  # nothing written
    with Mnemosyne(repo, index=url) as engine:
        assert _paths(engine.search_response("journald vacuum", limit=3))[0] == (
            "platform/lessons/disk-full.md"
        )
        _git(repo, "mv", "lessons/disk-full.md", "lessons/rhine-disk-full.md")
        _commit(
            repo,
            {
                "hosts/danube.md": "# danube\n\nRetired in April; mekong is the primary now.\n",
                "journal/2026-03-02.md": None,
                "hosts/mekong.md": "# mekong\n\nPrimary PostgreSQL 17 host since April.\n",
            },
        )
        report = ingest(url, [(name, repo)], config=config).repos[0]
        # the rename is a removal and an addition; the deleted journal is removed
        assert (report.added, report.changed, report.removed) == (2, 1, 2)
        assert report.head == _git(repo, "rev-parse", "HEAD").strip()
        # the open engine hears of the change (the database announces it at commit)
        deadline = time.monotonic() + 5
        while "platform/hosts/mekong.md" not in engine.note_paths():
            assert time.monotonic() < deadline, "the change was never heard"
            time.sleep(0.01)
        hits = _paths(engine.search_response("journald vacuum", limit=3))
        assert hits[0] == "platform/lessons/rhine-disk-full.md"
        assert "platform/lessons/disk-full.md" not in hits
        primary = engine.search_response("primary postgresql host", limit=3)
        assert _paths(primary)[0] == "platform/hosts/mekong.md"
        assert engine.search_response("failover drill rehearsed", limit=3)["hits"] == [] or (
            "platform/journal/2026-03-02.md"
            not in _paths(engine.search_response("failover drill rehearsed", limit=3))
        )
        assert "platform/journal/2026-03-02.md" not in engine.note_paths()
        # followed change by change, the open engine ranks as one that read it all now
        with Mnemosyne(repo, index=url) as fresh:
            for query in ("journald vacuum", "primary postgresql host", "failover", "danube"):
                a = engine.search_response(query, limit=5)
                b = fresh.search_response(query, limit=5)
                assert [(h["path"], h["score"], h["heading"]) for h in a["hits"]] == [
                    (h["path"], h["score"], h["heading"]) for h in b["hits"]
                ]
                assert a["confidence"] == b["confidence"]


def test_an_open_engine_follows_changes_without_reading_everything_again(url, repos, monkeypatch):
    import birkin_mnemosyne.team.engine as team_engine

    name, repo = repos[0]
    config = load_config(repo)
    ingest(url, [(name, repo)], config=config)
    loads = []
    real = team_engine.load_index
    monkeypatch.setattr(team_engine, "load_index", lambda conn: loads.append(1) or real(conn))
    with Mnemosyne(repo, index=url) as engine:
        assert engine.search_response("postgres failover")["hits"]
        _commit(repo, {"notes/kafka.md": "# Kafka retention\n\nTopics keep 7 days.\n"})
        ingest(url, [(name, repo)], config=config)
        engine.refresh()
        assert _paths(engine.search_response("kafka retention"))[0] == "platform/notes/kafka.md"
    assert loads == [1]


def test_secrets_never_reach_the_database_or_a_response(url, repos):
    name, repo = repos[1]
    ingest(url, [(name, repo)], config=load_config(repo))
    stored = _rows(
        url,
        "SELECT coalesce(string_agg(body, ' '), '') FROM notes "
        "UNION ALL SELECT coalesce(string_agg(text, ' '), '') FROM sections "
        "UNION ALL SELECT coalesce(string_agg(term, ' '), '') FROM section_postings "
        "UNION ALL SELECT coalesce(string_agg(meta::text, ' '), '') FROM notes",
    )
    assert stored and all(SECRET not in row[0] and SECRET[4:20] not in row[0] for row in stored)
    with Mnemosyne(repo, index=url) as engine:
        response = engine.search_response("store API token release mobile", limit=3)
        assert _paths(response)[0] == "product/runbooks/release-mobile.md"
        assert SECRET not in json.dumps(response)


def test_index_loss_is_rebuilt_from_git(url, repos):
    name, repo = repos[0]
    config = load_config(repo)
    ingest(url, [(name, repo)], config=config)
    with Mnemosyne(repo, index=url) as engine:
        before = engine.search_response("postgres failover", limit=5)
    schema = url.rsplit("schema=", 1)[1]
    _rows(url, f"DROP SCHEMA {schema} CASCADE", fetch=False)
    with Mnemosyne(repo, index=url) as engine, pytest.raises(IndexBackendError, match="ingest"):
        engine.search_response("postgres failover", limit=5)
    report = ingest(url, [(name, repo)], config=config, rebuild=True)
    assert report.ok and report.repos[0].added == 4
    with Mnemosyne(repo, index=url) as engine:
        after = engine.search_response("postgres failover", limit=5)
    assert _paths(after) == _paths(before)
    assert [h["score"] for h in after["hits"]] == [h["score"] for h in before["hits"]]


def test_a_lost_connection_is_opened_again(url, repos):
    name, repo = repos[0]
    ingest(url, [(name, repo)], config=load_config(repo))
    with Mnemosyne(repo, index=url) as engine:
        assert engine.search_response("postgres failover")["hits"]
        pid = engine._conn.info.backend_pid
        _rows(url, "SELECT pg_terminate_backend(%s)", [pid])
        time.sleep(0.2)  # the server ends the session
        response = engine.search_response("journald vacuum")  # on a new connection
        assert _paths(response)[0] == "platform/lessons/disk-full.md"
        assert engine._conn.info.backend_pid != pid


def test_recipe_change_asks_for_a_rebuild(url, repos):
    name, repo = repos[0]
    ingest(url, [(name, repo)], config=load_config(repo))
    (repo / ".mnemosyne").mkdir(exist_ok=True)
    (repo / ".mnemosyne" / "config.json").write_text(
        json.dumps({"type_rules": {"hosts/**": "host"}}), encoding="utf-8"
    )
    with pytest.raises(IndexBackendError, match="--rebuild"):
        ingest(url, [(name, repo)], config=load_config(repo))
    with Mnemosyne(repo, index=url) as engine:
        assert engine.search_response("postgres failover")["hits"]  # still served
        assert any("--rebuild" in w for w in engine.stats()["engine_warnings"])


def test_a_stale_head_shows_in_freshness(url, team_vault, repos):
    config = load_config(team_vault)
    ingest(url, config.repos, config=config)
    _commit(repos[1][1], {"notes/new.md": "# New\n\nNot ingested yet.\n"})
    with Mnemosyne(team_vault, index=url) as engine:
        fresh = engine.freshness()
    assert fresh["fresh"] is False
    assert fresh["stale_repos"] == ["product"]


def test_errors_are_ours(url, server, tmp_path):
    vault = tmp_path / "v"
    vault.mkdir()
    with pytest.raises(IndexBackendError, match="not a PostgreSQL URL"):
        Mnemosyne(vault, index="mysql://nope")
    with Mnemosyne(vault, index=url) as engine, pytest.raises(IndexBackendError, match="empty"):
        engine.search_response("anything")
    closed = f"postgresql://postgres@127.0.0.1:{_closed_port()}/mnemosyne"
    with (
        Mnemosyne(vault, index=closed) as engine,
        pytest.raises(IndexBackendError, match="cannot connect"),
    ):
        engine.search_response("anything")
    with pytest.raises(IndexBackendError, match="schema"):
        Mnemosyne(vault, index=server.url + "?schema=Robert'); DROP")
    report = ingest(url, [("missing", tmp_path / "nowhere")], config=load_config(vault))
    assert not report.ok and "not a git repository" in report.repos[0].error


def _closed_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_repos_config_is_checked(tmp_path):
    vault = tmp_path / "v"
    (vault / ".mnemosyne").mkdir(parents=True)
    config = vault / ".mnemosyne" / "config.json"
    for bad in (
        {"repos": {"name": "x"}},
        {"repos": [{"name": "../x", "path": "a"}]},
        {"repos": [{"name": "a", "path": "a"}, {"name": "a", "path": "b"}]},
        {"repos": [{"name": "a"}]},
    ):
        config.write_text(json.dumps(bad), encoding="utf-8")
        with pytest.raises(ConfigError):
            load_config(vault)
    config.write_text(json.dumps({"repos": [{"name": "a", "path": "../a"}]}), encoding="utf-8")
    assert load_config(vault).repos == (("a", vault / "../a"),)


def test_writes_from_a_folder_that_is_no_working_copy_are_refused(url, repos, team_vault):
    name, repo = repos[0]
    ingest(url, [(name, repo)], config=load_config(repo))
    with VaultMemory(team_vault, index=url) as memory:
        assert memory.search("postgres failover")
        with pytest.raises(WriteRefusedError, match="working copy"):
            memory.write_note("New note", "text")


@pytest.fixture
def machines(tmp_path):
    """A shared origin and two clones of it, "machine A" and "machine B"."""
    origin = tmp_path / "origin.git"
    seed = tmp_path / "seed"
    seed.mkdir()
    _git(seed, "init", "-q", "-b", "main")
    _commit(seed, {k: v for k, v in PLATFORM.items() if not k.startswith(".")})
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(origin)], check=True)
    clones = []
    for label in ("a", "b"):
        clone = tmp_path / f"machine-{label}" / "platform"
        subprocess.run(["git", "clone", "-q", str(origin), str(clone)], check=True)
        clones.append(clone)
    return origin, clones


def _head(repo: Path) -> str:
    return _git(repo, "rev-parse", "HEAD").strip()


def test_a_write_is_committed_pushed_and_ingested(url, machines):
    origin, (a, _) = machines
    ingest(url, [("platform", a)], config=load_config(a))
    with VaultMemory(a, index=url) as memory:
        result = memory.write_note(
            "Redis eviction", "Set maxmemory-policy to allkeys-lru on tagus.", zone="lessons"
        )
        assert result["path"] == "lessons/redis-eviction.md"
        assert not result.get("warnings")
        log = _git(a, "log", "-1", "--format=%s")
        assert log.startswith("mnemosyne: write_note lessons/redis-eviction.md")
        assert _git(origin, "rev-parse", "main").strip() == _head(a)  # pushed
        # searchable at once, from this memory and from any other process
        hits = memory.search("maxmemory policy allkeys")
        assert hits[0]["path"] == "platform/lessons/redis-eviction.md"
    with Mnemosyne(a, index=url) as other:
        assert _paths(other.search_response("maxmemory policy allkeys"))[0] == (
            "platform/lessons/redis-eviction.md"
        )
    assert _rows(url, "SELECT head_sha FROM repos WHERE name = 'platform'")[0][0] == _head(a)


def test_writers_on_two_machines_conflict_and_recover(url, machines):
    _, (a, b) = machines
    ingest(url, [("platform", a)], config=load_config(a))
    path = "platform/hosts/danube.md"
    with VaultMemory(a, index=url) as ma, VaultMemory(b, index=url) as mb:
        seen_by_b = mb.get_note(path)["version"]
        ma.write_note(path, "Disk replaced on 2026-05-02.", mode="append")
        # B's copy is behind what the index holds: refused, whatever B read
        with pytest.raises(VersionConflictError, match="git pull"):
            mb.write_note(path, "new text", mode="replace", expected_version=seen_by_b)
        _git(b, "pull", "-q")
        # B's old read is now checked against A's text: a conflict, not a lost update
        with pytest.raises(VersionConflictError, match="changed since you read it"):
            mb.write_note(path, "new text", mode="replace", expected_version=seen_by_b)
        fresh = mb.get_note(path)
        assert "Disk replaced on 2026-05-02." in fresh["text"]
        mb.write_note(path, "Retired.", mode="replace", expected_version=fresh["version"])
        assert "Retired." in ma.get_note(path)["text"]  # the index has B's write
        with pytest.raises(VersionConflictError):
            ma.write_note(path, "more", mode="append")  # A is behind now
    assert _head(a) != _head(b)


WRITER = r"""
import sys, time
from pathlib import Path
from birkin_mnemosyne import VaultMemory
from birkin_mnemosyne.errors import VersionConflictError
clone, url, title, start = sys.argv[1:5]
memory = VaultMemory(clone, index=url)
while not Path(start).exists():
    time.sleep(0.01)
try:
    memory.write_note(title, "written by " + title, zone="notes")
    print("written")
except VersionConflictError:
    print("conflict")
"""


def test_two_writer_processes_at_once_are_serialized(url, machines, tmp_path):
    import sys

    _, clones = machines
    ingest(url, [("platform", clones[0])], config=load_config(clones[0]))
    start = tmp_path / "start"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(clone), url, f"Note {i}", str(start)],
            stdout=subprocess.PIPE,
            text=True,
        )
        for i, clone in enumerate(clones)
    ]
    start.touch()
    outcomes = sorted(proc.communicate(timeout=120)[0].strip() for proc in procs)
    assert outcomes == ["conflict", "written"]


def test_a_secret_is_committed_locally_but_never_shared(url, machines):
    origin, (a, _) = machines
    ingest(url, [("platform", a)], config=load_config(a))
    before = _git(origin, "rev-parse", "main").strip()
    with VaultMemory(a, index=url) as memory:
        result = memory.write_note("Registry login", f"token: {SECRET}", zone="notes")
        assert any("not shared" in w for w in result["warnings"])
        assert memory.search("registry login") == [] or all(
            h["path"] != "platform/notes/registry-login.md" for h in memory.search("registry login")
        )
    assert _git(origin, "rev-parse", "main").strip() == before  # nothing pushed
    assert _rows(url, "SELECT count(*) FROM notes WHERE path LIKE '%%registry%%'")[0][0] == 0


def test_cli_ingest_and_search(url, team_vault, capsys):
    assert cli_main(["--vault", str(team_vault), "--index", url, "ingest", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and [r["added"] for r in report["repos"]] == [4, 2]
    code = cli_main(
        ["--vault", str(team_vault), "search", "postgres failover", "--index", url, "--json"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hits"][0]["path"] == "platform/runbooks/postgres-failover.md"
    assert cli_main(["--vault", str(team_vault), "ingest"]) == 2
    assert "--index" in capsys.readouterr().err
    assert cli_main(["--vault", str(team_vault), "--index", url, "status"]) == 0
    status = capsys.readouterr().out
    assert "team index, fresh" in status and "platform: " in status and "(current)" in status


def test_reading_doors_through_a_team_index(url, repos):
    """get_note, latest and host_history read the team index (redacted text ingest
    stored), with the library's shapes."""
    name, repo = repos[1]
    ingest(url, [repos[0], (name, repo)], config=load_config(repo))
    with VaultMemory(repo, index=url) as memory:
        note = memory.get_note("product/runbooks/release-mobile.md")
        assert note["title"] == "Release the mobile app"
        assert "upload to the stores" in note["text"] and SECRET not in note["text"]
        data = (repo / "runbooks/release-mobile.md").read_bytes()
        import hashlib

        assert note["version"] == hashlib.sha256(data).hexdigest()
        latest = memory.latest("postgres failover", limit=3)
        assert latest["hits"] and latest["hits"][0]["path"] == "platform/journal/2026-03-02.md"
        history = memory.host_history("danube")
        assert history["host_note"]["path"] == "platform/hosts/danube.md"
        related = memory.related("platform/runbooks/postgres-failover.md")
        assert related["path"] == "platform/runbooks/postgres-failover.md"


def _local_and_team(url, repos):
    name, repo = repos[0]
    ingest(url, [(name, repo)], config=load_config(repo))
    return repo


def test_mcp_door_gives_the_local_shape(url, repos):
    pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install -e ".[mcp]"')
    import anyio
    from mcp import Client

    from birkin_mnemosyne.mcp_server import build_server

    repo = _local_and_team(url, repos)

    async def search(memory):
        server = build_server(memory, read_only=True)
        async with Client(server) as client:
            result = await client.call_tool(
                "memory_search", {"query": "postgres failover", "limit": 3}
            )
            return result.structured_content

    with VaultMemory(repo, index=url) as team, VaultMemory(repo) as local:
        a = anyio.run(search, team)
        b = anyio.run(search, local)
    assert set(a) == set(b)
    assert [h["path"] for h in a["hits"]] == [f"platform/{h['path']}" for h in b["hits"]]
    assert set(a["hits"][0]) == set(b["hits"][0])


def test_web_api_door_gives_the_local_shape(url, repos):
    from birkin_mnemosyne.web.api import Api

    repo = _local_and_team(url, repos)
    with VaultMemory(repo, index=url) as team, VaultMemory(repo) as local:
        a = Api(team).call("GET", "/api/search", "q=replication+lag&limit=3", None)
        b = Api(local).call("GET", "/api/search", "q=replication+lag&limit=3", None)
    assert set(a) == set(b) and a["hits"] and set(a["hits"][0]) == set(b["hits"][0])
    assert [h["path"] for h in a["hits"]] == [f"platform/{h['path']}" for h in b["hits"]]


def test_hermes_door_searches_the_team_index(url, repos, tmp_path, monkeypatch):
    pytest.importorskip(
        "agent.memory_provider", reason='hermes-agent is not installed: pip install -e ".[hermes]"'
    )
    from birkin_mnemosyne.hermes_plugin import MnemosyneMemoryProvider

    repo = _local_and_team(url, repos)
    home = tmp_path / "hermes-home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    provider = MnemosyneMemoryProvider(config={"vault": str(repo), "index": url})
    provider.initialize("s1", hermes_home=str(home))
    try:
        result = json.loads(
            provider.handle_tool_call("mnemosyne_search", {"query": "postgres failover"})
        )
    finally:
        provider.shutdown()
    assert result["hits"][0]["path"] == "platform/runbooks/postgres-failover.md"


def test_repos_filter_on_search_and_list(url, team_vault, capsys):
    config = load_config(team_vault)
    ingest(url, config.repos, config=config)
    with VaultMemory(team_vault, index=url) as memory:
        everywhere = _paths(memory.search_response("runbook release failover", limit=10))
        assert {p.split("/")[0] for p in everywhere} == {"platform", "product"}
        only = memory.search_response("runbook release failover", limit=10, repos=["product"])
        assert only["hits"] and all(p.startswith("product/") for p in _paths(only))
        listed = memory.list_notes(repos=["platform"], limit=None)
        assert {n["path"].split("/")[0] for n in listed["notes"]} == {"platform"}
        assert listed["total"] == 4
        none = memory.search_response("release", repos=["nowhere"])
        assert none["hits"] == [] and "repositories are: platform, product" in (
            none["absence_note"] or ""
        )
    from birkin_mnemosyne.web.api import Api

    with VaultMemory(team_vault, index=url) as memory:
        web = Api(memory).call("GET", "/api/search", "q=release&repos=product", None)
        assert web["hits"] and all(h["path"].startswith("product/") for h in web["hits"])
    argv = ["--vault", str(team_vault), "--index", url, "list", "--repo", "product", "--json"]
    assert cli_main(argv) == 0
    assert {n["path"] for n in json.loads(capsys.readouterr().out)["notes"]} == {
        "product/runbooks/release-mobile.md",
        "product/decisions/adr-002-deposits.md",
    }


def test_repos_filter_needs_a_team_index(vault):
    vault.write("a.md", "# A\n\nzebra\n")
    from birkin_mnemosyne.errors import InvalidInputError

    with Mnemosyne(vault.root) as engine, pytest.raises(InvalidInputError, match="team index"):
        engine.search_response("zebra", repos=["platform"])
