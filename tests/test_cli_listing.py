"""Listing from the command line: `show` of several keys, `list --since/--until/--all`,
`recent`, and `search --exact --all`."""

from __future__ import annotations

import json
import os

import pytest

T0 = 1_772_445_600  # 2026-03-02T10:00:00Z


@pytest.fixture
def v(vault):
    vault.write("march.md", "---\nupdated: 2026-03-02\n---\n# March\n\nECONNREFUSED in March\n")
    vault.write("april.md", "---\ndate: 2026-04-10\n---\n# April\n\nECONNREFUSED in April\n")
    vault.write("loose.md", "# Loose\n\nno date, ECONNREFUSED too\n")
    for name in ("march", "april"):
        os.utime(vault.root / f"{name}.md", (T0, T0))
    os.utime(vault.root / "loose.md", (T0 - 86_400, T0 - 86_400))  # 2026-03-01T10:00Z
    return ["--vault", vault.root]


def test_show_several_keys(v, cli):
    code, out, err = cli(*v, "show", "march", "april")
    assert code == 0 and err == ""
    assert out.startswith("==> march.md <==\ntitle:   March\n")
    assert "\n==> april.md <==\ntitle:   April\n" in out
    code, out, err = cli(*v, "show", "march", "ghost", "--json")
    data = json.loads(out)
    assert code == 1 and [n["path"] for n in data["notes"]] == ["march.md"]
    assert (
        data["errors"][0]["key"] == "ghost"
        and data["errors"][0]["error_type"] == "NoteNotFoundError"
    )
    code, out, err = cli(*v, "show", "march", "ghost")
    assert code == 1 and "==> march.md <==" in out and "no note 'ghost'" in err
    code, out, _ = cli(*v, "show", "march", "--json")
    assert json.loads(out)["path"] == "march.md"  # one key: the note-read shape, as before


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (["--since", "2026-03-02"], ["april.md", "march.md"]),
        (["--until", "2026-03-02"], ["march.md", "loose.md"]),
        (["--since", "2026-03-01T10:00:00Z", "--until", "2026-03-01T10:00:00Z"], ["loose.md"]),
        (["--since", "2026-03-01T10:00:01Z", "--until", "2026-04-09"], ["march.md"]),
    ],
)
def test_list_since_and_until(v, cli, options, expected):
    code, out, _ = cli(*v, "list", *options, "--json")
    assert code == 0 and [row["path"] for row in json.loads(out)["notes"]] == expected


def test_list_window_errors_and_emptiness(v, cli):
    code, _, err = cli(*v, "list", "--since", "last week")
    assert code == 2 and "since must be a date" in err
    code, _, err = cli(*v, "list", "--since", "2030-01-01")
    assert code == 1 and "no notes match" in err


def test_list_all_and_the_capped_note(v, cli):
    code, out, err = cli(*v, "list", "--limit", "2")
    assert code == 0 and len(out.splitlines()) == 2
    assert "showed 1-2 of 3; next page: --page 2, or --all for every one" in err
    code, out, err = cli(*v, "list", "--all", "--json")
    assert code == 0 and len(json.loads(out)["notes"]) == 3 and err == ""
    code, _, err = cli(*v, "list", "--all", "--limit", "5")
    assert code == 2 and "not allowed with argument" in err


def test_recent_lists_changes_newest_first(v, vault, cli):
    code, out, _ = cli(*v, "remember", "Fresh", "--body", "new note")
    assert code == 0
    code, out, _ = cli(*v, "recent", "--json")
    rows = json.loads(out)["changes"]
    assert code == 0 and rows[0]["path"] == "fresh.md" and rows[0]["change"] == "created"
    assert rows[0]["source"] == "journal" and rows[0]["operation"] == "create"
    code, out, _ = cli(*v, "recent", "--until", "2026-03-01T12:00Z")
    assert code == 0 and out == "2026-03-01T10:00:00Z  modified  loose.md\n"
    code, out, err = cli(*v, "recent", "--limit", "1")
    assert code == 0 and len(out.splitlines()) == 1 and "showed 1 of 4" in err
    code, _, err = cli(*v, "recent", "--until", "2000-01-01")
    assert code == 1 and "nothing changed" in err


def test_search_all_needs_exact_and_returns_every_match(v, cli):
    code, out, err = cli(*v, "search", "ECONNREFUSED", "--exact", "--limit", "2", "--json")
    assert code == 0 and len(json.loads(out)["hits"]) == 2
    code, out, err = cli(*v, "search", "ECONNREFUSED", "--exact", "--limit", "2")
    assert "stopped at --limit 2; --all lists every note holding it" in err
    code, out, err = cli(*v, "search", "ECONNREFUSED", "--exact", "--all", "--json")
    assert code == 0 and len(json.loads(out)["hits"]) == 3
    code, _, err = cli(*v, "search", "ECONNREFUSED", "--all")
    assert code == 2 and "--all needs --exact" in err
