"""Reliability across processes: kills, reader/writer races, unguarded scripts.

    python benchmarks/reliability/processes.py [--notes 5000] [--race-notes 1000]
        [--searches 2000] [--kills 20] [--workdir /tmp/mnemo-reliability] [--json out.json]
        [--only kills,races,scripts]

Three harnesses, each in fresh child processes that import ``birkin_mnemosyne`` the
way the caller does (``PYTHONPATH`` is passed on, so a worktree measures its own code):

* **kills** - a child writing notes (``VaultMemory.write_note``: creates and appends), one
  forgetting and undoing, and one building the index of ``--notes`` notes (with its
  parse workers) are each SIGKILLed ``--kills`` times at a random moment. After each
  kill: every note must be whole (a checksum inside it), every write the child had
  acknowledged must be there, every forgotten-and-undone note must exist exactly once,
  byte-exact, and every parse worker of a killed build must have exited.
* **races** - two writer processes keep writing notes while two searcher processes
  run ``--searches`` searches in all (``refresh_interval=0``: each search re-scans and
  may save the cache; every 25th search opens a fresh engine from the cache). Counted:
  exceptions that are not ``MnemosyneError`` and "cache is damaged" rebuilds.
* **scripts** - a script without ``if __name__ == "__main__":`` opens a fresh
  ``--notes``-note vault (``python script.py`` and ``python - < script.py``). Its
  top-level code appends a line to a file: the line must be there exactly once.

Every figure that must be 0 (or 1) is printed with its target. Vaults come from
``benchmarks/footprint/generate.py`` (seeded). POSIX only (SIGKILL).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "footprint"))
from generate import generate_vault  # noqa: E402

sys.path.pop(0)

SEED = 11
ORPHAN_WAIT = 60.0  # seconds a killed build's workers get to notice (then: orphans)

# -- child programs ----------------------------------------------------------------

WRITE_CHILD = r"""
import hashlib, sys
from birkin_mnemosyne import VaultMemory
vault, start, ack_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
memory = VaultMemory(vault)
ack = open(ack_path, "a", encoding="utf-8")
print("ready", flush=True)
i = start
while True:
    payload = f"kill-payload-{i} " + f"word{i} " * 60
    check = hashlib.sha256(payload.encode()).hexdigest()
    r = memory.write_note(f"kw {i}", f"P:{payload}\n\nC:{check}\n", zone="kw")
    ack.write(f"create {r['path']} {r['version']}\n"); ack.flush()
    entry = f"append-{i}-" + hashlib.sha256(str(i).encode()).hexdigest()[:12]
    memory.write_note("kill-log", entry, mode="append")
    ack.write(f"append {entry}\n"); ack.flush()
    i += 1
"""

FORGET_CHILD = r"""
import sys
from birkin_mnemosyne import VaultMemory
vault, count, seed, ack_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
memory = VaultMemory(vault)
ack = open(ack_path, "a", encoding="utf-8")
print("ready", flush=True)
i = seed
while True:
    key = f"fu-{i % count}"
    r = memory.forget(key, confirm=True)
    ack.write(f"forget {key} {r['transaction_id']}\n"); ack.flush()
    memory.undo(r["transaction_id"])
    ack.write(f"undo {key}\n"); ack.flush()
    i += 1
"""

BUILD_CHILD = r"""
import sys
import birkin_mnemosyne.engine as engine
import birkin_mnemosyne.parse_workers as workers
from birkin_mnemosyne import Mnemosyne
vault, notes = sys.argv[1], int(sys.argv[2])
# Small quick-run vaults use the workers too.
engine.PARALLEL_MIN = min(engine.PARALLEL_MIN, max(notes // 2, 2))
engine.PARALLEL_BATCH = min(engine.PARALLEL_BATCH, max(notes // 16, 1))
pids = []
real = workers.subprocess.Popen
def popen(*args, **kwargs):
    proc = real(*args, **kwargs)
    pids.append(proc.pid)
    return proc
workers.subprocess.Popen = popen
told = []
def progress(event):
    if event.phase == "index" and event.done and not told:  # the workers are up
        told.append(1)
        print("pids", *pids, flush=True)
Mnemosyne(vault).refresh(full=True, on_progress=progress)
print("done", flush=True)
"""

WRITER = r"""
import sys, os
from birkin_mnemosyne import MnemosyneError, VaultMemory
vault, name, stop = sys.argv[1], sys.argv[2], sys.argv[3]
memory = VaultMemory(vault)
writes = refused = others = attempt = 0
first = None
while not os.path.exists(stop) or writes < 5:
    attempt += 1  # a new title each time: a failed attempt is not retried as is
    try:
        r = memory.write_note(f"race {name} {attempt}", f"race-{name}-{attempt} racing words " * 20,
                              zone="race")
        first = first or r["key"]
        if attempt % 5 == 0:
            memory.write_note(first, f"more-{attempt}", mode="append")
        writes += 1
    except MnemosyneError as exc:
        refused += 1
        if refused <= 3:
            print("library error", repr(exc)[:200], file=sys.stderr)
    except Exception as exc:
        others += 1
        print("writer exception", repr(exc), file=sys.stderr)
print(f"writes {writes} refused {refused} others {others}")
"""

SEARCHER = r"""
import logging, sys
from birkin_mnemosyne import Mnemosyne, MnemosyneError
vault, count = sys.argv[1], int(sys.argv[2])
messages = []
class Keep(logging.Handler):
    def emit(self, record):
        messages.append(record.getMessage())
logging.getLogger("birkin_mnemosyne").addHandler(Keep())
queries = ["racing words", "restore database", "deploy rollback", "race-a-3", "certificate"]
others = library = 0
engine = None
for i in range(count):
    if i % 25 == 0:
        engine = Mnemosyne(vault, refresh_interval=0)
    try:
        engine.search(queries[i % len(queries)])
    except MnemosyneError as exc:
        library += 1
        if library <= 3:
            print("library error", repr(exc)[:200], file=sys.stderr)
    except Exception as exc:
        others += 1
        import traceback; traceback.print_exc()
        print("searcher exception", repr(exc), file=sys.stderr)
damaged = sum("damaged" in m for m in messages)
rebuilds = sum("rebuilding" in m for m in messages)
print(f"searches {count} others {others} library {library} damaged {damaged} rebuilds {rebuilds}")
"""

SCRIPT = """\
import time
from birkin_mnemosyne import Mnemosyne
started = []
try:
    import birkin_mnemosyne.parse_workers as workers
    real = workers.subprocess.Popen
    workers.subprocess.Popen = lambda *a, **k: started.append(1) or real(*a, **k)
except ImportError:  # a version before the parse workers (for comparisons)
    started = [0] * 0
with open({ran!r}, "a") as out:
    out.write("top-level code ran\\n")
t0 = time.perf_counter()
m = Mnemosyne({vault!r})
hits = m.search("restore the database backup")
print("notes", m.stats()["notes"], "hits", len(hits), "workers", len(started),
      "seconds", round(time.perf_counter() - t0, 2), "warnings", len(m.warnings))
"""


# -- helpers -----------------------------------------------------------------------


def _env() -> dict:
    return dict(os.environ)


def _alive(pid: int) -> bool:
    """True while ``pid`` runs (an unreaped zombie counts as gone)."""
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


def _start(code: str, *args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(),
        cwd=cwd,
        text=True,
    )


def _kill(proc: subprocess.Popen) -> str:
    proc.send_signal(signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    return err


def _vault(path: Path, notes: int) -> Path:
    if not (path / "queries.json").exists():
        if path.exists():
            shutil.rmtree(path)
        print(f"generating {notes:,} notes in {path} ...", file=sys.stderr)
        generate_vault(path, notes)
    return path


def _temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.tmp") if p.name.startswith(".")]


def _cleaned(vault: Path) -> tuple[int, int]:
    """(temporary files the kills left, how many a fresh engine's refresh leaves).

    The files are aged two minutes first: a temporary file is stale once its writer
    process is gone and a minute has passed (``atomic.py``).
    """
    from birkin_mnemosyne import Mnemosyne

    left = _temp_files(vault)
    then = time.time() - 120
    for path in left:
        os.utime(path, (then, then))
    engine = Mnemosyne(vault)
    engine.refresh()
    engine.close()
    return len(left), len(_temp_files(vault))


# -- kills -------------------------------------------------------------------------


def _check_writes(vault: Path, acks: list[str]) -> tuple[int, int]:
    """(torn notes, lost acknowledged writes) of the write harness."""
    torn = lost = 0
    for path in sorted((vault / "kw").glob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        payload = re.search(r"^P:(.*)$", text, re.M)
        check = re.search(r"^C:([0-9a-f]{64})$", text, re.M)
        if not (payload and check) or (
            hashlib.sha256(payload.group(1).encode()).hexdigest() != check.group(1)
        ):
            torn += 1
    log = vault / "kill-log.md"
    log_text = log.read_text(encoding="utf-8") if log.exists() else ""
    for line in acks:
        kind, *rest = line.split()
        if kind == "create":
            rel, version = rest
            target = vault / rel
            if not target.exists() or hashlib.sha256(target.read_bytes()).hexdigest() != version:
                # A later append or replace never touches kw/ notes: this one is lost.
                lost += 1
        elif kind == "append" and rest[0] not in log_text:
            lost += 1
    return torn, lost


def _check_forgets(vault: Path, originals: dict[str, bytes]) -> int:
    """Forgotten-and-undone notes that are missing, doubled or changed."""
    bad = 0
    for rel, data in originals.items():
        copies = [p for p in (vault / rel, vault / "_archive" / rel) if p.exists()]
        if len(copies) != 1 or copies[0].read_bytes() != data:
            bad += 1
    return bad


def run_kills(workdir: Path, notes: int, kills: int, max_delay: float, rng) -> dict:
    from birkin_mnemosyne import Mnemosyne, VaultMemory

    out = {"kills": kills}
    # Writes: creates and appends, killed at a random moment.
    vault = workdir / "kill-writes"
    shutil.rmtree(vault, ignore_errors=True)
    vault.mkdir(parents=True)
    VaultMemory(vault).write_note("kill-log", "the log of appends")
    acks_path = workdir / "kill-writes.acks"
    acks_path.unlink(missing_ok=True)
    start = 0
    for _ in range(kills):
        proc = _start(WRITE_CHILD, str(vault), str(start), str(acks_path), cwd=workdir)
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(rng.uniform(0, max_delay))
        _kill(proc)
        start += 10_000
        VaultMemory(vault).status()  # a new process opens the vault after the crash
    acks = acks_path.read_text(encoding="utf-8").splitlines() if acks_path.exists() else []
    torn, lost = _check_writes(vault, acks)
    left, remaining = _cleaned(vault)
    out["writes"] = {
        "acknowledged": len(acks),
        "torn": torn,
        "lost": lost,
        "temp_files_left": left,
        "temp_files_after_cleanup": remaining,
    }

    # Forget / undo.
    vault = workdir / "kill-forget"
    shutil.rmtree(vault, ignore_errors=True)
    (vault / "fu").mkdir(parents=True)
    originals = {}
    for i in range(8):
        rel = f"fu/fu-{i}.md"
        data = f"# Forget {i}\n\nforget-me-{i} ".encode() * 30
        (vault / rel).write_bytes(data)
        originals[rel] = data
    acks_path = workdir / "kill-forget.acks"
    acks_path.unlink(missing_ok=True)
    damaged = 0
    for round_ in range(kills):
        proc = _start(FORGET_CHILD, str(vault), "8", str(round_), str(acks_path), cwd=workdir)
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(rng.uniform(0, max_delay))
        _kill(proc)
        memory = VaultMemory(vault)
        memory.status()  # a new process opens the vault after the crash
        damaged += _check_forgets(vault, originals)
        # Put every note back at its path for the next round.
        for rel in originals:
            if not (vault / rel).exists() and (vault / "_archive" / rel).exists():
                memory.restore(f"_archive/{rel[:-3]}")
    acks = acks_path.read_text(encoding="utf-8").splitlines() if acks_path.exists() else []
    left, remaining = _cleaned(vault)
    out["forget_undo"] = {
        "acknowledged": len(acks),
        "damaged": damaged,
        "temp_files_left": left,
        "temp_files_after_cleanup": remaining,
    }

    # Builds with parse workers.
    vault = _vault(workdir / f"vault-{notes}", notes)
    orphans = workers = damaged_after = 0
    for _ in range(kills):
        shutil.rmtree(vault / ".mnemosyne" / "cache", ignore_errors=True)
        proc = _start(BUILD_CHILD, str(vault), str(notes), cwd=workdir)
        line = proc.stdout.readline().split()
        if not line or line[0] != "pids":
            raise SystemExit(f"build child failed: {line} {proc.stderr.read()}")
        pids = [int(p) for p in line[1:]]
        workers += len(pids)
        time.sleep(rng.uniform(0, max_delay))
        _kill(proc)
        deadline = time.monotonic() + ORPHAN_WAIT
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        alive = [p for p in pids if _alive(p)]
        orphans += len(alive)
        for pid in alive:
            os.kill(pid, signal.SIGKILL)
    engine = Mnemosyne(vault, parallel=False)
    engine.refresh()
    damaged_after = sum("damaged" in w for w in engine.warnings)
    engine.close()
    out["builds"] = {"workers_started": workers, "orphans": orphans, "damaged": damaged_after}
    return out


# -- races -------------------------------------------------------------------------


def run_races(workdir: Path, notes: int, searches: int) -> dict:
    from birkin_mnemosyne import Mnemosyne

    vault = workdir / f"race-{notes}"
    if vault.exists():
        shutil.rmtree(vault)
    shutil.copytree(_vault(workdir / f"vault-{notes}", notes), vault)
    shutil.rmtree(vault / ".mnemosyne", ignore_errors=True)
    Mnemosyne(vault).refresh()
    stop = workdir / "race.stop"
    stop.unlink(missing_ok=True)
    writers = [_start(WRITER, str(vault), name, str(stop), cwd=workdir) for name in "ab"]
    half = searches // 2
    searchers = [_start(SEARCHER, str(vault), str(n), cwd=workdir) for n in (half, searches - half)]
    started = time.perf_counter()
    results = [p.communicate(timeout=3600) for p in searchers]
    seconds = time.perf_counter() - started
    stop.write_text("stop")
    results += [p.communicate(timeout=600) for p in writers]
    figures = {"searches": 0, "others": 0, "library": 0, "damaged": 0, "rebuilds": 0}
    figures.update({"writes": 0, "refused": 0, "writer_others": 0})
    samples: list[str] = []
    library_samples: list[str] = []
    for proc, (stdout, stderr) in zip([*searchers, *writers], results):
        if proc.returncode != 0:
            raise SystemExit(f"race child failed:\n{stderr}")
        samples += [line for line in stderr.splitlines() if "exception" in line][:3]
        library_samples += [line for line in stderr.splitlines() if "library error" in line][:2]
        words = stdout.split()
        values = dict(zip(words[0::2], map(int, words[1::2])))
        if "searches" in values:
            for key in ("searches", "others", "library", "damaged", "rebuilds"):
                figures[key] += values[key]
        else:
            figures["writes"] += values["writes"]
            figures["refused"] += values["refused"]
            figures["writer_others"] += values["others"]
    figures["seconds"] = round(seconds, 1)
    figures["exception_samples"] = samples[:5]
    figures["library_error_samples"] = library_samples[:5]
    return figures


# -- unguarded scripts ---------------------------------------------------------------


def run_scripts(workdir: Path, notes: int) -> dict:
    vault = _vault(workdir / f"vault-{notes}", notes)
    out = {}
    for how in ("file", "stdin"):
        shutil.rmtree(vault / ".mnemosyne", ignore_errors=True)
        ran = workdir / f"ran-{how}.txt"
        ran.unlink(missing_ok=True)
        script = workdir / "unguarded.py"
        script.write_text(SCRIPT.format(ran=str(ran), vault=str(vault)), encoding="utf-8")
        argv = [sys.executable, str(script)] if how == "file" else [sys.executable, "-"]
        done = subprocess.run(
            argv,
            input=script.read_text(encoding="utf-8") if how == "stdin" else None,
            capture_output=True,
            text=True,
            env=_env(),
            cwd=workdir,
            timeout=3600,
        )
        words = done.stdout.split()
        values = dict(zip(words[0::2], words[1::2]))
        lines = ran.read_text(encoding="utf-8").count("\n") if ran.exists() else 0
        out[how] = {
            "exit": done.returncode,
            "top_level_runs": lines,
            "notes": int(values.get("notes", 0)),
            "hits": int(values.get("hits", 0)),
            "workers": int(values.get("workers", 0)),
            "seconds": float(values.get("seconds", 0)),
            "warnings": int(values.get("warnings", -1)),
        }
        if done.returncode != 0:
            out[how]["error"] = done.stderr.strip().splitlines()[-1:] or [""]
    return out


# -- report ------------------------------------------------------------------------


def _report(results: dict) -> str:
    rows = ["| harness | figure | value | target |", "|---|---|---|---|"]

    def row(harness, figure, value, target=""):
        rows.append(f"| {harness} | {figure} | {value} | {target} |")

    if "kills" in results:
        k = results["kills"]
        w, f, b = k["writes"], k["forget_undo"], k["builds"]
        row("kill: write_note", "SIGKILLs", k["kills"])
        row("kill: write_note", "acknowledged writes", w["acknowledged"])
        row("kill: write_note", "torn notes", w["torn"], "0")
        row("kill: write_note", "lost acknowledged writes", w["lost"], "0")
        row("kill: write_note", "temporary files the kills left", w["temp_files_left"])
        row(
            "kill: write_note",
            "... left once stale and refreshed",
            w["temp_files_after_cleanup"],
            "0",
        )
        row("kill: forget/undo", "acknowledged operations", f["acknowledged"])
        row("kill: forget/undo", "notes missing, doubled or changed", f["damaged"], "0")
        row("kill: forget/undo", "temporary files the kills left", f["temp_files_left"])
        row(
            "kill: forget/undo",
            "... left once stale and refreshed",
            f["temp_files_after_cleanup"],
            "0",
        )
        row("kill: build", "parse workers killed with their parent", b["workers_started"])
        row("kill: build", "orphan workers", b["orphans"], "0")
        row("kill: build", "damaged caches afterwards", b["damaged"], "0")
    if "races" in results:
        r = results["races"]
        row("races", "searches (2 processes)", r["searches"])
        row("races", "writes (2 processes)", r["writes"])
        row("races", "non-MnemosyneError exceptions", r["others"] + r["writer_others"], "0")
        row("races", "MnemosyneError (e.g. lock timeouts)", r["library"] + r["refused"])
        row("races", '"cache is damaged" rebuilds', r["damaged"], "0")
        row("races", "seconds", r["seconds"])
    if "scripts" in results:
        for how, s in results["scripts"].items():
            name = "python script.py" if how == "file" else "python - < script.py"
            row(f"unguarded {name}", "exit code", s["exit"], "0")
            row(f"unguarded {name}", "top-level code runs", s["top_level_runs"], "1")
            row(f"unguarded {name}", "notes indexed / workers", f"{s['notes']} / {s['workers']}")
            row(f"unguarded {name}", "build + first search s", s["seconds"])
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=5000, help="vault size for builds/scripts")
    parser.add_argument("--race-notes", type=int, default=1000, help="vault size for races")
    parser.add_argument("--searches", type=int, default=2000, help="searches in the races")
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs per kind")
    parser.add_argument("--max-delay", type=float, default=1.0, help="latest kill, seconds")
    parser.add_argument("--only", default="kills,races,scripts", help="harnesses to run")
    parser.add_argument("--workdir", default="/tmp/mnemo-reliability")
    parser.add_argument("--json", dest="json_out", help="write the results as JSON here")
    args = parser.parse_args(argv)
    if not hasattr(signal, "SIGKILL"):
        parser.error("this benchmark needs POSIX signals (SIGKILL)")
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    only = set(args.only.split(","))
    results: dict = {"notes": args.notes, "race_notes": args.race_notes}
    if "kills" in only:
        print("kills ...", file=sys.stderr)
        results["kills"] = run_kills(workdir, args.notes, args.kills, args.max_delay, rng)
    if "races" in only:
        print("races ...", file=sys.stderr)
        results["races"] = run_races(workdir, args.race_notes, args.searches)
    if "scripts" in only:
        print("unguarded scripts ...", file=sys.stderr)
        results["scripts"] = run_scripts(workdir, args.notes)
    print(_report(results))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
