"""Parallel parsing in ``python -m`` worker processes: never the caller's code."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import birkin_mnemosyne.engine as engine_module
import birkin_mnemosyne.parse_workers as parse_workers
from birkin_mnemosyne import Mnemosyne
from birkin_mnemosyne.document import read_note
from birkin_mnemosyne.parse_workers import FAULT_ENV, decode_doc, encode_doc
from birkin_mnemosyne.redact import Redactor

REPO = Path(__file__).resolve().parent.parent
NOTES = 30


def _notes(vault, n: int = NOTES) -> None:
    for i in range(n):
        vault.write(
            f"z{i % 3}/n{i}.md",
            f"---\ntags: [t{i}]\nowner: alice\n---\n# Note {i}\n\nrestore database item{i}\n\n"
            f"## Part {i}\n\nmore words café 東京 {i}\n\n```\nunclosed fence\n",
        )


@pytest.fixture
def small_parallel(monkeypatch):
    """A 30-note vault uses the workers (two of them, batches of five)."""
    monkeypatch.setattr(engine_module, "PARALLEL_MIN", 10)
    monkeypatch.setattr(engine_module, "PARALLEL_BATCH", 5)
    monkeypatch.setattr(engine_module.os, "cpu_count", lambda: 2)


def _snapshot(engine: Mnemosyne) -> dict:
    """Every note's metadata, keyed in note-id order (ids follow the parse order)."""
    return {m["path"]: engine.note_meta(m["path"]) for m in engine.index.notes if m is not None}


def _serial(root) -> tuple[dict, list]:
    engine = Mnemosyne(root, parallel=False)
    engine.refresh(full=True)
    hits = [(h["path"], h["heading"], h["score"]) for h in engine.search("restore database café")]
    snapshot = _snapshot(engine)
    engine.close()
    return snapshot, hits


def test_a_parsed_note_survives_the_wire_unchanged(vault):
    _notes(vault, 3)
    vault.write_bytes("odd.md", b"# Odd\n\nnot utf8 \xff here\n")
    redactor = Redactor(())
    for path in ("z0/n0.md", "z1/n1.md", "odd.md"):
        doc = read_note(vault.root, path, redactor=redactor)
        assert decode_doc(encode_doc(doc)) == doc
    assert read_note(vault.root, "odd.md", redactor=redactor).warnings  # one was carried


def test_workers_parse_what_serial_parsing_does(vault, small_parallel, monkeypatch):
    _notes(vault)
    expected, expected_hits = _serial(vault.root)
    started = []
    real = parse_workers.subprocess.Popen

    def counting(*args, **kwargs):
        started.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(parse_workers.subprocess, "Popen", counting)
    engine = Mnemosyne(vault.root)
    engine.refresh(full=True)
    assert len(started) == 2
    assert started[0][1:] == ["-m", "birkin_mnemosyne.parse_workers"]
    assert engine.warnings == []
    assert _snapshot(engine) == expected
    assert list(_snapshot(engine)) == list(expected)  # the same ids: results in paths order
    hits = [(h["path"], h["heading"], h["score"]) for h in engine.search("restore database café")]
    assert hits == expected_hits


@pytest.mark.parametrize("answered", ["0", "1"])
def test_a_worker_that_dies_costs_one_warning_and_nothing_else(
    vault, small_parallel, monkeypatch, answered
):
    _notes(vault)
    expected, expected_hits = _serial(vault.root)
    monkeypatch.setenv(FAULT_ENV, answered)
    engine = Mnemosyne(vault.root)
    result = engine.refresh(full=True)
    assert result["notes"] == NOTES
    assert len(engine.warnings) == 1
    assert "parsing the remaining notes in this process" in engine.warnings[0]
    assert _snapshot(engine) == expected
    hits = [(h["path"], h["heading"], h["score"]) for h in engine.search("restore database café")]
    assert hits == expected_hits


def test_workers_that_cannot_start_fall_back_to_serial(vault, small_parallel, monkeypatch):
    _notes(vault)
    expected, _ = _serial(vault.root)
    monkeypatch.setattr(parse_workers.sys, "executable", str(vault.root / "no-such-python"))
    engine = Mnemosyne(vault.root)
    engine.refresh(full=True)
    assert len(engine.warnings) == 1 and "cannot start a parse worker" in engine.warnings[0]
    assert _snapshot(engine) == expected


def test_a_frozen_app_parses_in_process(vault, small_parallel, monkeypatch):
    _notes(vault)

    def refuse(*args, **kwargs):
        raise AssertionError("a frozen app must not start workers")

    monkeypatch.setattr(parse_workers.subprocess, "Popen", refuse)
    monkeypatch.setattr(parse_workers.sys, "frozen", True, raising=False)
    engine = Mnemosyne(vault.root)
    assert engine.refresh(full=True)["notes"] == NOTES
    assert engine.warnings == []


# -- scripts without a __main__ guard ------------------------------------------------

SCRIPT = """
import sys
import birkin_mnemosyne.engine as engine
import birkin_mnemosyne.parse_workers as workers
from birkin_mnemosyne import Mnemosyne

engine.PARALLEL_MIN, engine.PARALLEL_BATCH = 10, 5
engine.os.cpu_count = lambda: 2
started = []
real = workers.subprocess.Popen
workers.subprocess.Popen = lambda *a, **k: started.append(1) or real(*a, **k)
with open({ran!r}, "a") as out:
    out.write("top-level code ran\\n")
m = Mnemosyne({vault!r})
result = m.refresh()
hits = m.search("restore database item7")
print(result["notes"], len(started), hits[0]["path"], len(m.warnings))
"""


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH")) if p)
    env.pop(FAULT_ENV, None)
    return env


@pytest.mark.parametrize("how", ["file", "stdin"])
def test_an_unguarded_script_builds_with_workers_and_runs_once(vault, tmp_path, how):
    _notes(vault)
    ran = tmp_path / "ran.txt"
    script = tmp_path / "build.py"
    script.write_text(SCRIPT.format(ran=str(ran), vault=str(vault.root)), encoding="utf-8")
    if how == "file":
        argv, stdin = [sys.executable, str(script)], None
    else:
        argv, stdin = [sys.executable, "-"], script.read_bytes()
    done = subprocess.run(
        argv, input=stdin, capture_output=True, env=_env(), cwd=tmp_path, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().split() == [str(NOTES), "2", "z1/n7.md", "0"]
    assert ran.read_text(encoding="utf-8").splitlines() == ["top-level code ran"]


# -- a parent killed mid-build leaves no worker ---------------------------------------

KILLED = """
import sys
import birkin_mnemosyne.engine as engine
import birkin_mnemosyne.parse_workers as workers
from birkin_mnemosyne import Mnemosyne

engine.PARALLEL_MIN, engine.PARALLEL_BATCH = 10, 2
engine.os.cpu_count = lambda: 2
pids = []
real = workers.subprocess.Popen

def popen(*args, **kwargs):
    proc = real(*args, **kwargs)
    pids.append(proc.pid)
    return proc

workers.subprocess.Popen = popen

def progress(event):
    if event.phase == "index" and event.done:  # workers are up: name them, hang till killed
        print(*pids, flush=True)
        sys.stdin.read()

Mnemosyne({vault!r}).refresh(on_progress=progress)
"""


def process_alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie nobody has reaped yet counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="no SIGKILL on this platform")
def test_a_parent_killed_mid_build_leaves_no_worker(vault, tmp_path):
    _notes(vault)
    script = tmp_path / "killed.py"
    script.write_text(KILLED.format(vault=str(vault.root)), encoding="utf-8")
    parent = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=_env(),
        cwd=tmp_path,
    )
    try:
        line = parent.stdout.readline().decode()
        pids = [int(p) for p in line.split()]
        assert len(pids) == 2 and all(process_alive(p) for p in pids)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        # Bounded wait for the workers to notice the closed pipe (no claim on speed).
        deadline = time.monotonic() + 60
        while any(process_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [p for p in pids if process_alive(p)]
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        parent.stdin.close()
        parent.stdout.close()


def test_stopping_early_stops_the_workers(vault, small_parallel, monkeypatch):
    _notes(vault)
    procs = []
    real = parse_workers.subprocess.Popen

    def keep(*args, **kwargs):
        proc = real(*args, **kwargs)
        procs.append(proc)
        return proc

    monkeypatch.setattr(parse_workers.subprocess, "Popen", keep)
    engine = Mnemosyne(vault.root)
    parsed = engine._parse(_paths(vault.root))
    next(parsed)
    parsed.close()
    assert len(procs) == 2 and all(proc.poll() is not None for proc in procs)


def _paths(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md"))
