"""``mnemosyne latest`` and ``mnemosyne host-history``: output, --json, exit codes."""

from __future__ import annotations

import json

from birkin_mnemosyne.memory import VaultMemory


def without_index(data: dict) -> dict:
    return {k: v for k, v in data.items() if k != "index"}


def test_latest_json_is_the_library_shape(state_vault, cli):
    code, out, _ = cli("--vault", state_vault.root, "latest", "backup retention", "--json")
    assert code == 0
    with VaultMemory(state_vault.root) as memory:
        expected = memory.latest("backup retention")
    data = json.loads(out)
    assert without_index(data) == without_index(expected)
    assert set(data["index"]) == set(expected["index"])


def test_latest_prints_dated_sections_newest_first(state_vault, cli):
    code, out, err = cli("--vault", state_vault.root, "latest", "backup retention", "--limit", "3")
    assert code == 0 and err == ""
    lines = out.splitlines()
    dated = [line for line in lines if not line.startswith("    ")]
    assert dated == [
        "2026-06-19T08:40  journal/2026-06-19.md:3 › 08:40 — retention change on db-primary",
        "2026-04-07T10:00  journal/2026-04.md:9 › 04-07 10:00 — db1 backup retention",
        "2026-03-02T09:40  journal/2026-03-02.md:3 › 09:40 — db1 disk replaced",
    ]
    assert "Changed the backup retention to 30 days" in lines[1]


def test_latest_says_which_words_it_left_out(state_vault, cli):
    code, out, err = cli("--vault", state_vault.root, "latest", "retention kafka", "--limit", "1")
    assert code == 0 and out.startswith("2026-06-19T08:40")
    assert "left out: kafka (matched: retention)" in err
    stale = cli("--vault", state_vault.root, "latest", "db1 pool size")[1]
    assert "[stale]" in stale.splitlines()[0]


def test_latest_exit_codes(state_vault, cli):
    code, out, err = cli("--vault", state_vault.root, "latest", "kafka zookeeper")
    assert code == 1 and out == "" and "nothing matched" in err
    code, out, _ = cli("--vault", state_vault.root, "latest", "kafka", "--json")
    assert code == 1 and json.loads(out)["hits"] == []
    code, _, err = cli("--vault", state_vault.root, "latest", " ")
    assert code == 2 and "empty" in err
    code, _, err = cli("--vault", state_vault.root, "latest", "x", "--limit", "0")
    assert code == 2 and "limit" in err


def test_host_history_json_is_the_library_shape(state_vault, cli):
    code, out, _ = cli(
        "--vault", state_vault.root, "host-history", "db-primary", "--topic", "disk", "--json"
    )
    assert code == 0
    with VaultMemory(state_vault.root) as memory:
        expected = memory.host_history("db-primary", "disk")
    assert without_index(json.loads(out)) == without_index(expected)


def test_host_history_prints_the_host_and_its_entries_newest_first(state_vault, cli):
    code, out, _ = cli("--vault", state_vault.root, "host-history", "db1", "--topic", "retention")
    assert code == 0
    lines = [line for line in out.splitlines() if not line.startswith("    ")]
    assert lines == [
        "host: db1 (also: db-primary, pg-main) — hosts/db1.md",
        "2026-06-19T08:40  journal/2026-06-19.md:3 › 08:40 — retention change on db-primary "
        "[journal]",
        "2026-04-07T10:00  journal/2026-04.md:9 › 04-07 10:00 — db1 backup retention [journal]",
        "2026-03-02T09:40  journal/2026-03-02.md:3 › 09:40 — db1 disk replaced [journal]",
    ]
    code, out, _ = cli("--vault", state_vault.root, "host-history", "db1", "--limit", "40")
    assert "2026-02-18        hosts/db1.md:20 › Role history [host record]" in out


def test_host_history_exit_codes(state_vault, cli):
    code, out, err = cli("--vault", state_vault.root, "host-history", "db2")
    assert code == 1 and out == "" and "did you mean: db1?" in err
    code, out, err = cli("--vault", state_vault.root, "host-history", "db1", "--topic", "kafka")
    assert code == 1 and "nothing recorded on that topic" in err
    code, out, _ = cli(
        "--vault", state_vault.root, "host-history", "db1", "--topic", "kafka", "--json"
    )
    assert code == 1 and json.loads(out)["entries"] == []
    code, _, err = cli("--vault", state_vault.root, "host-history", "db1", "--limit", "999")
    assert code == 2 and "limit" in err
