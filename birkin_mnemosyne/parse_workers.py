"""Parse notes in worker processes that never import the caller's code.

A large index build spends most of its time parsing (tokenizing, redacting), which is
independent per note. ``parse_in_workers`` spreads that over a few worker processes
started as ``python -m birkin_mnemosyne.parse_workers``: a fresh interpreter that
imports only this package. ``multiprocessing`` (spawn or forkserver) would instead
re-import the caller's ``__main__``, so a script without an ``if __name__ ==
"__main__":`` guard, ``python - < script.py``, a notebook or a frozen app re-ran its own
top-level code in every worker, and the build died; ``fork`` copies a process whose
threads may hold locks. A subprocess has none of these problems.

Protocol (one JSON object a line, UTF-8 with ASCII escapes, over the worker's stdin
and stdout; JSON and never pickle, so nothing a worker sends can run code):

============  =====================================================================
direction     line
============  =====================================================================
to worker     first: ``{"protocol": 1, "root", "redaction_disabled",
              "secret_hashes", "type_rules", "max_file_bytes"}``
to worker     then per batch: ``{"batch": k, "paths": [...]}``
from worker   per batch: ``{"batch": k, "docs": [encoded NoteDoc, ...]}``, or
              ``{"batch": k, "error": "..."}`` when parsing raised
============  =====================================================================

A worker exits when its stdin ends, and when a reply cannot be written (the parent
has gone): the parent holds the only write end of each worker's stdin, so a parent
that dies, even by SIGKILL, leaves no worker behind once it has finished its batch.
Any failure (a worker that dies, a reply that does not decode) makes the caller
parse the remaining notes itself, after one warning.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import fields
from pathlib import Path

from .diagnostics import Diagnostic
from .document import NoteDoc, SectionDoc, read_note

__all__ = ["PROTOCOL", "decode_doc", "encode_doc", "parse_in_workers", "workers_available"]

PROTOCOL = 1
# Batches handed out ahead of the one the caller waits for, per worker: enough to keep
# every worker busy while bounding the parsed notes held in memory.
_AHEAD = 2
# Seconds a worker gets to exit on its own once its stdin is closed.
_EXIT_WAIT = 5.0
# Test hook: a worker answers this many batches, then exits abruptly (tests only).
FAULT_ENV = "_MNEMOSYNE_PARSE_WORKER_FAULT"

_SECTION_FIELDS = tuple(f.name for f in fields(SectionDoc))
_NOTE_FIELDS = tuple(f.name for f in fields(NoteDoc) if f.name not in ("sections", "warnings"))
_PACKAGE_PARENT = Path(__file__).resolve().parent.parent


# -- the wire form of a parsed note ------------------------------------------------


def encode_doc(doc: NoteDoc) -> dict:
    """A ``NoteDoc`` as plain JSON values (``decode_doc`` gives it back equal)."""
    data = {name: getattr(doc, name) for name in _NOTE_FIELDS}
    data["sections"] = [[getattr(sec, name) for name in _SECTION_FIELDS] for sec in doc.sections]
    data["warnings"] = [w.to_dict() for w in doc.warnings]
    return data


def decode_doc(data: dict) -> NoteDoc:
    """The ``NoteDoc`` of ``encode_doc``; KeyError/TypeError/ValueError when malformed."""
    values = {name: data[name] for name in _NOTE_FIELDS}
    values["tags"] = list(values["tags"])
    values["labels"] = list(values["labels"])
    values["links"] = list(values["links"])
    values["aliases"] = list(values["aliases"])
    values["title_tf"] = Counter(values["title_tf"])
    values["tags_tf"] = Counter(values["tags_tf"])
    sections = []
    for row in data["sections"]:
        sec = dict(zip(_SECTION_FIELDS, row, strict=True))
        sec["chain"] = tuple(sec["chain"])
        sec["body_tf"] = Counter(sec["body_tf"])
        sec["heading_tf"] = Counter(sec["heading_tf"])
        sections.append(SectionDoc(**sec))
    warnings = [Diagnostic(**w) for w in data["warnings"]]
    return NoteDoc(**values, sections=sections, warnings=warnings)


def _line(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode("ascii") + b"\n"


# -- the parent side ---------------------------------------------------------------


def workers_available() -> bool:
    """True when worker processes can be started from this interpreter.

    A frozen app has no ``python -m``; an interpreter without a known executable, or a
    package imported from a zip file, cannot start one that imports this code.
    """
    return (
        not getattr(sys, "frozen", False)
        and bool(sys.executable)
        and (_PACKAGE_PARENT / "birkin_mnemosyne" / "parse_workers.py").is_file()
    )


class _WorkerFailed(Exception):
    pass


def _exit_code(proc: subprocess.Popen) -> int | None:
    try:
        return proc.wait(timeout=_EXIT_WAIT)
    except subprocess.TimeoutExpired:
        return None


class _Pool:
    """Workers, one feeding thread each, and the parsed batches they bring back."""

    def __init__(self, batches: list[list[str]], options: dict, workers: int) -> None:
        self.batches = batches
        self.cond = threading.Condition()
        self.results: dict[int, list[NoteDoc]] = {}
        self.next_batch = 0  # the next batch to hand out
        self.waiting_for = 0  # the batch the caller waits for
        self.failure: str | None = None
        self.stopping = False
        self.procs: list[subprocess.Popen] = []
        self.threads: list[threading.Thread] = []
        self.window = workers * _AHEAD
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(_PACKAGE_PARENT), env.get("PYTHONPATH")) if p
        )
        first = _line({"protocol": PROTOCOL, **options})
        try:
            for _ in range(workers):
                proc = subprocess.Popen(
                    [sys.executable, "-m", "birkin_mnemosyne.parse_workers"],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    cwd=_PACKAGE_PARENT,  # so `-m` finds this package's code first
                    env=env,
                )
                self.procs.append(proc)
                proc.stdin.write(first)
                proc.stdin.flush()
        except (OSError, ValueError) as exc:
            self.close()
            raise _WorkerFailed(f"cannot start a parse worker ({exc})") from None
        for proc in self.procs:
            thread = threading.Thread(target=self._feed, args=(proc,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def _take(self) -> int | None:
        with self.cond:
            while True:
                if self.stopping or self.next_batch >= len(self.batches):
                    return None
                if self.next_batch < self.waiting_for + self.window:
                    k = self.next_batch
                    self.next_batch += 1
                    return k
                self.cond.wait()

    def _feed(self, proc: subprocess.Popen) -> None:
        try:
            while (k := self._take()) is not None:
                proc.stdin.write(_line({"batch": k, "paths": self.batches[k]}))
                proc.stdin.flush()
                raw = proc.stdout.readline()
                if not raw:
                    raise _WorkerFailed(f"a parse worker exited (code {_exit_code(proc)})")
                reply = json.loads(raw)
                if reply.get("batch") != k:
                    raise _WorkerFailed("a parse worker answered out of turn")
                if "error" in reply:
                    raise _WorkerFailed(f"a parse worker failed: {reply['error']}")
                docs = [decode_doc(d) for d in reply["docs"]]
                if len(docs) != len(self.batches[k]):
                    raise _WorkerFailed("a parse worker returned the wrong number of notes")
                with self.cond:
                    self.results[k] = docs
                    self.cond.notify_all()
        except Exception as exc:  # noqa: BLE001 - any failure means: parse serially
            with self.cond:
                if not self.stopping and self.failure is None:
                    self.failure = str(exc) if isinstance(exc, _WorkerFailed) else repr(exc)
                self.stopping = True
                self.cond.notify_all()

    def get(self, k: int) -> list[NoteDoc] | None:
        """Batch ``k`` once parsed; None when the workers failed before it came back."""
        with self.cond:
            self.waiting_for = k
            self.cond.notify_all()
            while k not in self.results and self.failure is None:
                self.cond.wait()
            return self.results.pop(k, None)

    def close(self, *, kill: bool = True) -> None:
        """Stop every worker and thread; ``kill=False`` lets idle workers exit at stdin EOF."""
        with self.cond:
            self.stopping = True
            self.cond.notify_all()
        for proc in self.procs:
            if kill:
                proc.kill()  # its results are not wanted
            try:
                proc.stdin.close()
            except OSError:
                pass
        for proc in self.procs:
            try:
                proc.wait(timeout=_EXIT_WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        for thread in self.threads:
            thread.join()


def parse_in_workers(
    paths: list[str],
    *,
    options: dict,
    workers: int,
    batch_size: int,
    parse_one: Callable[[str], NoteDoc],
    warn: Callable[[str], None],
) -> Iterator[NoteDoc]:
    """Parsed notes in ``paths`` order, parsed by ``workers`` worker processes.

    ``options`` are the parse settings every worker gets (see the protocol above). When
    the workers cannot start or one fails, ``warn`` is called once and the notes not yet
    parsed are parsed here with ``parse_one``.
    """
    batches = [paths[i : i + batch_size] for i in range(0, len(paths), batch_size)]
    try:
        pool = _Pool(batches, options, workers)
    except _WorkerFailed as exc:
        warn(f"parsing in this process: {exc}")
        for path in paths:
            yield parse_one(path)
        return
    k = 0
    try:
        while k < len(batches):
            docs = pool.get(k)
            if docs is None:
                break
            k += 1
            yield from docs
        failure = pool.failure if k < len(batches) else None
    finally:
        # All batches back: the workers are idle and exit at stdin EOF. Otherwise
        # (a failure, or the caller stopped early) what they hold is not wanted.
        pool.close(kill=k < len(batches))
    if failure is not None:
        warn(f"parsing the remaining notes in this process: {failure}")
        for batch in batches[k:]:
            for path in batch:
                yield parse_one(path)


# -- the worker side ---------------------------------------------------------------


def _serve(stdin, stdout) -> int:
    from .redact import Redactor, load_secret_hashes

    first = stdin.readline()
    if not first:
        return 0
    options = json.loads(first)
    if options.get("protocol") != PROTOCOL:
        return 2
    hashes = options["secret_hashes"]
    redactor = Redactor(
        tuple(options["redaction_disabled"]), load_secret_hashes(hashes) if hashes else None
    )
    root = Path(options["root"])
    type_rules = tuple(tuple(rule) for rule in options["type_rules"])
    max_file_bytes = options["max_file_bytes"]
    fault = os.environ.get(FAULT_ENV)
    for answered, raw in enumerate(stdin):
        if fault is not None and answered >= int(fault):
            os._exit(70)  # the test hook: die without a word, as a crash would
        request = json.loads(raw)
        k = request["batch"]
        try:
            docs = [
                encode_doc(
                    read_note(
                        root,
                        path,
                        redactor=redactor,
                        type_rules=type_rules,
                        max_file_bytes=max_file_bytes,
                    )
                )
                for path in request["paths"]
            ]
            reply = {"batch": k, "docs": docs}
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which re-parses
            reply = {"batch": k, "error": f"{exc.__class__.__name__}: {exc}"}
        stdout.write(_line(reply))
        stdout.flush()
    return 0


def main() -> int:
    # Ctrl-C reaches the whole process group: the parent decides, the worker follows
    # through its pipes.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        return _serve(sys.stdin.buffer, sys.stdout.buffer)
    except (BrokenPipeError, ConnectionResetError):
        os._exit(0)  # the parent has gone (and flushing stdout at exit would fail again)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
