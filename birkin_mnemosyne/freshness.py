"""Stat passes off the search path, at an interval that grows with their cost.

A search makes sure the index is no older than an interval (``refresh_interval``, 2 s
by default) by a stat pass over the vault (``discovery``): one ``stat`` per note,
0.65 s at 52k notes and 1.3 s at 104k. Run inline, that pass lands on one search
every interval. So:

* **Cheap passes stay inline.** A pass that took under ``BACKGROUND_MIN`` seconds runs
  inside the search as before: a small vault sees an outside edit on the very next
  search.
* **Dear passes run in the background** (``BackgroundPass``). The search that finds
  the index due starts one and answers from the index as it is; a later search takes
  the pass's findings (the paths whose stat differs from the index) and re-parses only
  those. No search waits for a whole pass.
* **The listing runs in a child process** (``freshness.main``, which only stats and
  prints), read by a thread of this process in chunks of
  ``CHUNK`` entries. A thread that stats files itself gives up the interpreter lock at
  every ``stat`` and then waits up to the switch interval (5 ms) to get it back from a
  busy search loop: measured (2026-12-02, footprint vault, 104k notes, searches back
  to back) such a pass took 40 s for 1.3 s of CPU. Where no child can be started (a
  frozen app), the thread lists the files itself.
* **The interval grows with the cost**: ``check_interval`` is at least
  ``SCAN_DUTY`` times the CPU time the last pass took, so passes take at most about
  1 / ``SCAN_DUTY`` of one core (and of the time a search shares the interpreter
  with them). CPU time, not wall time: a pass sharing the interpreter with searches
  takes longer by the wall clock (the footprint benchmark's search loop stretched a
  80 ms pass at 10k notes to 0.3-0.9 s), which says nothing about what it costs.
  Passes never overlap: the next starts only once the last one's findings are in.

What this trades: an edit made outside this process (an editor, a sync tool, git) is
seen at most ``check_interval + pass duration`` after it was made, plus the time to
the next search: the index's ``staleness_window_s``. Writes through this library are
not subject to it: the writing process refreshes the note it wrote at once, and other
processes read it from the index log on their next search (``index_store``).

* **A pass vouches for every process.** A process that opens the vault within the
  check interval of another process's pass adopts that pass (``PASS_RECORD``, written
  after a dear pass once its findings are indexed and saved) instead of stating every
  file again: a CLI search at 10k notes skips its 85 ms pass, one at 104k its second.
  It promises what the pass's own process promises for the rest of the interval, no
  more: an outside edit is seen within the staleness window; library writes are in
  the index log either way. ``refresh_interval=0`` (check on every search) never
  adopts a pass.

Why not cheaper signals (measured and thought through, 2026-12):

* **Directory mtimes** change when an entry is added, removed or renamed in that very
  directory — not when a file's content is rewritten in place (an editor that does
  not save by rename, ``>>``, most sync tools), and not for changes deeper down. Their
  resolution can be coarse (FAT: 2 s; HFS+: 1 s), so a change in the same tick as the
  last look is invisible. Skipping the file stats of a folder whose mtime did not
  move would therefore miss edits: it is not done.
* **inotify** (Linux, through ``ctypes``) would see edits at once, but only on local
  file systems (not NFS, SMB, most FUSE mounts, or files changed from another
  container or machine), needs a watch per folder (a limit the user may have to raise),
  and drops events on queue overflow. A full pass would still be needed as the ground
  truth, so it would shorten the window on some machines without changing what is
  guaranteed. Left out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from .discovery import discover

__all__ = [
    "BACKGROUND_MIN",
    "CHUNK",
    "PASS_RECORD",
    "SCAN_DUTY",
    "BackgroundPass",
    "check_interval",
    "main",
    "read_pass_record",
    "write_pass_record",
]

# Passes cheaper than this (seconds) run inside the search. Measured (2026-12-02, the
# footprint vaults, file-system cache warm, load ~2): 1k notes 3 ms, 10k 80 ms, 52k
# 0.46 s, 104k 0.9 s (1.3 s in issue #16's runs): inline up to ~2,500 notes.
BACKGROUND_MIN = 0.02
# A pass starts at most once every SCAN_DUTY x its own last duration.
SCAN_DUTY = 10.0
# Entries per line the listing child writes: each line is parsed in well under a
# millisecond, so reading them never holds up a search for long.
CHUNK = 1000
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent
# Seconds a listing child may take before the pass gives up on it (and lists in-thread).
_CHILD_TIMEOUT = 600.0
_CHILD_CODE = "import sys; from birkin_mnemosyne.freshness import main; sys.exit(main())"


# The last dear pass, in the vault's cache folder, for other processes to adopt (JSON:
# {"format", "checked_at", "seconds", "cpu", "problems"}; a derived file).
PASS_RECORD = "last-pass.json"
_PASS_RECORD_FORMAT = 1


def write_pass_record(
    folder: Path,
    checked_at: float,
    seconds: float,
    cpu: float | None,
    problems: list[str],
    *,
    root: Path | None = None,
) -> None:
    """Record a finished pass (its findings indexed and saved). Best effort: a
    read-only vault or a full disk only means other processes pass for themselves."""
    from .atomic import atomic_write_bytes
    from .errors import MnemosyneError

    record = {
        "format": _PASS_RECORD_FORMAT,
        "checked_at": checked_at,
        "seconds": seconds,
        "cpu": cpu,
        "problems": list(problems),
    }
    try:
        atomic_write_bytes(
            folder / PASS_RECORD, json.dumps(record).encode("utf-8"), root=root, durable=False
        )
    except (OSError, MnemosyneError):  # a read-only vault, a full disk, a linked folder
        pass


def read_pass_record(folder: Path) -> dict | None:
    """The last recorded pass, or None (missing, unreadable or malformed)."""
    try:
        record = json.loads((folder / PASS_RECORD).read_bytes())
    except (OSError, ValueError):
        return None
    number = (int, float)
    if (
        not isinstance(record, dict)
        or record.get("format") != _PASS_RECORD_FORMAT
        or not isinstance(record.get("checked_at"), number)
        or not isinstance(record.get("seconds"), number)
        or not isinstance(record.get("cpu"), (*number, type(None)))
        or not isinstance(record.get("problems"), list)
        or not all(isinstance(p, str) for p in record["problems"])
    ):
        return None
    return record


def check_interval(refresh_interval: float, seconds: float | None, cpu: float | None) -> float:
    """Seconds between stat passes: the configured interval, stretched for a dear pass.

    ``seconds`` and ``cpu`` are the last pass's wall and CPU time (None = none yet).
    """
    if seconds is None or seconds < BACKGROUND_MIN:
        return refresh_interval
    return max(refresh_interval, SCAN_DUTY * (seconds if cpu is None else cpu))


class BackgroundPass:
    """One stat pass of ``root`` in a daemon thread, compared with what was indexed.

    ``known`` is what the index holds, path -> ``(mtime_ns, size)``
    (``Index.note_stats()``), made by the caller for this pass alone (the thread
    consumes it). When ``done`` is set,
    ``changed`` holds every path whose stat differs from its row (added, changed,
    deleted), or ``error`` says why the pass failed; ``seconds`` and ``cpu_seconds``
    are its wall and CPU time (the child's and this thread's), ``listed_by`` is
    ``"process"`` or ``"thread"``.
    """

    def __init__(self, root: Path, known: dict, *, clock: Callable[[], float] = time.time) -> None:
        self.root = Path(root)
        self.started = time.monotonic()
        self.checked_at = clock()  # the wall time the pass began: what it vouches for
        self.seconds = 0.0
        self.cpu_seconds: float | None = None
        self.changed: list[str] = []
        self.problems: list[str] = []
        self.temp_files: list[str] = []
        self.error: BaseException | None = None
        self.listed_by: str | None = None
        self.done = threading.Event()
        self._known = known
        self._thread = threading.Thread(target=self._run, name="mnemosyne-stat-pass", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        cpu = time.thread_time()
        child_cpu = 0.0
        known, self._known = self._known, None
        try:
            try:
                # A copy: listing in this thread, should the child fail, needs it whole.
                changed, child_cpu = self._compare(_listed_by_child(self.root), dict(known))
                self.listed_by = "process"
            except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError):
                # No child (a frozen app) or a failed one: list the files here.
                self.problems, self.temp_files = [], []
                on_disk = discover(
                    self.root,
                    include_archive=True,
                    problems=self.problems,
                    temp_files=self.temp_files,
                )
                rows = ([[st.path, st.mtime_ns, st.size] for st in on_disk.values()],)
                changed, _ = self._compare(iter(rows), known, complete=True)
                self.listed_by = "thread"
            self.changed = changed
        except BaseException as exc:  # noqa: BLE001 - reported to the engine, which rescans
            self.error = exc
        finally:
            self.seconds = time.monotonic() - self.started
            self.cpu_seconds = time.thread_time() - cpu + child_cpu
            self.done.set()

    def _compare(self, lines: Iterator, known: dict, *, complete: bool = False):
        """(paths whose stat differs from ``known``, the lister's CPU seconds).

        ``lines`` are chunks of ``[path, mtime_ns, size]`` and, unless ``complete``,
        a last ``{"problems", "temp_files", "cpu"}`` object, without which the listing
        counts as cut short (OSError).
        """
        changed: list[str] = []
        cpu = 0.0
        try:
            for chunk in lines:
                if isinstance(chunk, dict):
                    self.problems = list(chunk["problems"])
                    self.temp_files = list(chunk["temp_files"])
                    cpu = float(chunk["cpu"])
                    complete = True
                    break
                for path, mtime_ns, size in chunk:
                    if known.pop(path, None) != (mtime_ns, size):
                        changed.append(path)
        finally:
            close = getattr(lines, "close", None)
            if close is not None:
                close()
        if not complete:
            raise OSError("the listing process stopped before its end")
        changed += known  # indexed, no longer on disk
        return changed, cpu

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the pass is done (tests, benchmarks); True when it is."""
        return self.done.wait(timeout)


def _child_available() -> bool:
    """True when a child interpreter that imports this package can be started."""
    return (
        not getattr(sys, "frozen", False)
        and bool(sys.executable)
        and (_PACKAGE_PARENT / "birkin_mnemosyne" / "freshness.py").is_file()
    )


def _listed_by_child(root: Path) -> Iterator[list | dict]:
    """The lines of a listing child (``main``), parsed one by one.

    OSError when no child can be started or it fails; the caller then lists itself.
    """
    if not _child_available():
        raise OSError("no interpreter to start a listing process from")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(_PACKAGE_PARENT), env.get("PYTHONPATH")) if p
    )
    proc = subprocess.Popen(
        # -c, not -m: the package imports this module, and runpy warns about that.
        [sys.executable, "-c", _CHILD_CODE, str(root)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=_PACKAGE_PARENT,  # so `-m` finds this package's code first
        env=env,
    )
    timer = threading.Timer(_CHILD_TIMEOUT, proc.kill)
    timer.daemon = True
    timer.start()
    try:
        for line in proc.stdout:
            yield json.loads(line)
    finally:
        timer.cancel()
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def main(argv: list[str] | None = None) -> int:
    """The listing child: print ROOT's notes' stats as JSON lines (see ``BackgroundPass``).

    Lines of up to ``CHUNK`` ``[path, mtime_ns, size]`` entries, then one object
    ``{"problems", "temp_files", "cpu"}``. ASCII only (paths escaped as JSON does).
    """
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: freshness.main VAULT (the listing child of a stat pass)", file=sys.stderr)
        return 2
    cpu = time.process_time()
    problems: list[str] = []
    temp_files: list[str] = []
    found = discover(args[0], include_archive=True, problems=problems, temp_files=temp_files)
    out = sys.stdout.buffer
    chunk: list = []
    for st in found.values():
        chunk.append([st.path, st.mtime_ns, st.size])
        if len(chunk) >= CHUNK:
            out.write(json.dumps(chunk, separators=(",", ":")).encode("ascii") + b"\n")
            chunk = []
    if chunk:
        out.write(json.dumps(chunk, separators=(",", ":")).encode("ascii") + b"\n")
    tail = {"problems": problems, "temp_files": temp_files, "cpu": time.process_time() - cpu}
    out.write(json.dumps(tail).encode("ascii") + b"\n")
    out.flush()
    return 0
