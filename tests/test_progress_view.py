"""Progress for people: the CLI's line and the MCP server's log, on stderr only, and only
for work that is actually long."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from birkin_mnemosyne.progress import ProgressEvent
from birkin_mnemosyne.progress_view import (
    DELAY_ENV,
    LARGE_TOTAL,
    ProgressLine,
    ProgressLog,
    configured_delay,
)

ROOT = Path(__file__).resolve().parent.parent
WAIT = 120  # seconds an MCP server may take to answer on a slow CI machine


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def feed(view, clock: Clock, phase: str, total: int, *, step: int, seconds: float) -> None:
    """Events of one phase, ``step`` items at a time, ``seconds`` apart."""
    for done in range(0, total + 1, step):
        view(ProgressEvent(phase, done, total))
        clock.now += seconds


# --- the CLI line -------------------------------------------------------------------------


def test_quick_work_draws_nothing():
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, delay=1.5, live=True, clock=clock)
    feed(line, clock, "index", 100, step=10, seconds=0.1)  # one second in all
    line.close()
    assert stream.getvalue() == ""


def test_a_terminal_gets_one_live_line_redrawn_at_most_ten_times_a_second():
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, delay=1.0, live=True, clock=clock)
    feed(line, clock, "index", 1000, step=1, seconds=0.01)  # 10 s, an event every 10 ms
    text = stream.getvalue()
    draws = text.split("\r\033[K")[1:]
    assert 80 <= len(draws) <= 92  # ~9 s shown, 10 a second (not 900 events)
    assert draws[0].startswith("mnemosyne: indexing notes [")
    assert draws[-1].endswith("1,000/1,000 (100%), done in 10.0 s\n")
    assert text.count("\n") == 1  # one line, ended when the phase finished


def test_elsewhere_plain_lines_come_at_the_start_every_few_seconds_and_at_the_end():
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, delay=1.0, live=False, clock=clock)
    feed(line, clock, "duplicates", 200, step=1, seconds=0.1)  # 20 s
    rows = stream.getvalue().splitlines()
    assert "\r" not in stream.getvalue()
    assert rows[0].startswith("mnemosyne: looking for near-duplicates 1")
    assert rows[-1] == "mnemosyne: looking for near-duplicates 200/200 (100%), done in 20.0 s"
    assert 4 <= len(rows) <= 6  # shown at 1 s, then every 5 s, then done


def test_close_ends_a_line_left_open_and_phases_follow_each_other():
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, delay=0.0, live=True, clock=clock)
    feed(line, clock, "read", 10, step=5, seconds=0.2)
    line(ProgressEvent("tokenize", 0, 10))
    clock.now += 0.5
    line(ProgressEvent("tokenize", 5, 10))
    line.close()
    text = stream.getvalue()
    assert "reading notes [" + "#" * 24 + "] 10/10 (100%), done in 0.4 s\n" in text
    assert text.endswith("tokenizing notes [" + "#" * 12 + "." * 12 + "] 5/10 (50%)\n")


def test_the_delay_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv(DELAY_ENV, "0")
    assert configured_delay() == 0.0 and ProgressLine(io.StringIO()).delay == 0.0
    for bad in ("soon", "-1", ""):
        monkeypatch.setenv(DELAY_ENV, bad)
        assert configured_delay(2.5) == 2.5


# --- the MCP log --------------------------------------------------------------------------


def test_the_log_says_when_long_work_starts_and_ends_and_nothing_for_short_work():
    lines, clock = [], Clock()
    log = ProgressLog(lines.append, delay=2.0, clock=clock)
    feed(log, clock, "index", 100, step=10, seconds=0.1)  # 1 s: too short to mention
    assert lines == []
    feed(log, clock, "index", 100, step=10, seconds=0.5)  # 5 s
    assert lines == ["indexing notes: started (100 to do)", "indexing notes: done, 100 in 5.0 s"]


def test_the_log_announces_a_large_phase_at_once_and_a_long_single_step_at_its_end():
    lines, clock = [], Clock()
    log = ProgressLog(lines.append, delay=2.0, clock=clock)
    log(ProgressEvent("index", 0, LARGE_TOTAL))
    assert lines == [f"indexing notes: started ({LARGE_TOTAL:,} to do)"]
    lines.clear()
    log(ProgressEvent("index-save", 0, 1))
    clock.now += 3
    log(ProgressEvent("index-save", 1, 1))
    assert lines == ["saving the index: done in 3.0 s"]


# --- through the CLI ----------------------------------------------------------------------


@pytest.fixture
def notes(vault):
    for i in range(30):
        vault.write(f"ops/n{i}.md", f"# Restore {i}\n\nRun pg_restore for database {i}.\n")
    return vault


def test_forced_progress_goes_to_stderr_and_json_stays_clean(notes, cli, monkeypatch):
    monkeypatch.setenv(DELAY_ENV, "0")
    code, out, err = cli("--vault", notes.root, "search", "restore database", "--json")
    assert code == 0 and json.loads(out)["hits"]
    assert "mnemosyne: indexing notes 30/30 (100%), done in" in err
    code, out, err = cli("--vault", notes.root, "init", "--json")
    assert code == 0 and json.loads(out)["mode"] == "preview"
    assert "mnemosyne: looking for near-duplicates 30/30 (100%)" in err


def test_a_terminal_gets_the_live_line(notes, cli, monkeypatch):
    monkeypatch.setenv(DELAY_ENV, "0")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, _, err = cli("--vault", notes.root, "reindex", "--full")
    assert code == 0 and "\r\033[Kmnemosyne: indexing notes [" in err


def test_quick_commands_are_silent_quiet_is_silent_and_verbose_shows_it(notes, cli, monkeypatch):
    code, _, err = cli("--vault", notes.root, "reindex", "--full")
    assert code == 0 and "indexing notes" not in err  # well under the default delay
    monkeypatch.setenv(DELAY_ENV, "0")
    code, _, err = cli("-q", "--vault", notes.root, "reindex", "--full")
    assert code == 0 and "indexing notes" not in err
    monkeypatch.delenv(DELAY_ENV)
    code, _, err = cli("-v", "--vault", notes.root, "reindex", "--full")
    assert code == 0 and "indexing notes 30/30" in err


def test_init_apply_reports_its_writes(notes, cli, monkeypatch):
    monkeypatch.setenv(DELAY_ENV, "0")
    code, out, err = cli("--vault", notes.root, "init", "--apply", "--json")
    assert code == 0 and json.loads(out)["state"] == "committed"
    assert "mnemosyne: writing files 30/30 (100%)" in err


def test_imports_report_their_reads_and_writes(notes, cli, monkeypatch, tmp_path):
    source = tmp_path / "Obsidian"
    for i in range(12):
        (source / "daily").mkdir(parents=True, exist_ok=True)
        (source / "daily" / f"day-{i}.md").write_text(f"# Day {i}\n\nworked\n", "utf-8")
    (tmp_path / "conversations.json").write_text("[]", encoding="utf-8")
    monkeypatch.setenv(DELAY_ENV, "0")
    v = ["--vault", notes.root]
    code, out, err = cli(*v, "import-obsidian", source, "--json")
    assert code == 0 and json.loads(out)["mode"] == "preview"
    assert "mnemosyne: reading notes 12/12 (100%), done in" in err
    code, out, err = cli(*v, "import-obsidian", source, "--apply", "--json")
    assert code == 0 and len(json.loads(out)["paths"]) == 12
    assert "mnemosyne: writing files 12/12 (100%), done in" in err
    code, out, err = cli("-q", *v, "import-chatgpt", tmp_path / "conversations.json", "--json")
    assert code == 0 and json.loads(out)["mode"] == "preview" and "mnemosyne:" not in err


# --- through the MCP server ---------------------------------------------------------------


def _rpc(number: int, method: str, params: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": number, "method": method, "params": params})


def test_the_mcp_server_logs_its_first_build_on_stderr_and_never_on_stdout(notes):
    pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install ".[mcp]"')
    requests = [
        _rpc(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        ),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        _rpc(2, "tools/call", {"name": "memory_search", "arguments": {"query": "restore"}}),
    ]
    env = {**os.environ, DELAY_ENV: "0", "PYTHONPATH": str(ROOT)}
    with subprocess.Popen(
        [sys.executable, "-m", "birkin_mnemosyne.mcp_main", "--vault", str(notes.root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    ) as server:
        guard = threading.Timer(WAIT, server.kill)  # an upper bound, not a measured time
        guard.start()
        try:
            server.stdin.write("\n".join(requests) + "\n")
            server.stdin.flush()
            lines = []
            for line in server.stdout:  # until the search is answered (or the guard fires)
                lines.append(line)
                if json.loads(line).get("id") == 2:
                    break
            server.stdin.close()
            stdout = "".join(lines) + server.stdout.read()
            stderr = server.stderr.read()
        finally:
            guard.cancel()
    replies = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    assert all(reply.get("jsonrpc") == "2.0" for reply in replies)  # only the protocol
    assert {reply.get("id") for reply in replies} >= {1, 2}
    assert "mnemosyne-mcp: indexing notes: started (30 to do)" in stderr
    assert "mnemosyne-mcp: indexing notes: done, 30 in" in stderr
    assert "indexing" not in stdout
