"""Writes through a team index: to the files of a working copy, committed, then ingested.

A ``VaultMemory(working_copy, index=URL)`` searches the team index and writes to the
working copy's notes. Each write (``write_note``, ``edit_note``, ``move_note``,
``forget``, ``undo``, ...) runs as ``team_write`` describes:

1. it takes the team's writer lock in the database (an advisory lock: every machine's
   writers and ingests wait for each other);
2. it checks that the working copy is at the commit the index holds for its
   repository. Another machine's write moved the index on since: the write is refused
   with ``VersionConflictError`` ("git pull, then retry"), so an ``expected_version``
   read anywhere is checked against the latest text, whichever machine wrote it;
3. the write runs as it does on a local vault (the local engine over the working copy,
   its journal, its undo), with the files' own bytes: nothing redacted is ever written
   back;
4. the files it touched are committed (one commit per write), pushed when the branch has
   an upstream, and ingested, all before the lock is released. A commit whose files
   hold a secret the redactor finds is kept local, not pushed and not ingested, and the
   write says so (``warnings``): a secret never leaves the machine through this door.

The working copy belongs to one repository of the corpus: the ``repos`` entry whose
path is the vault, else the vault folder itself (named by its folder, as ``mnemosyne
ingest`` names it). Paths in a write's result are the working copy's own.
"""

from __future__ import annotations

import logging
import time
from contextlib import contextmanager
from pathlib import Path

from ..errors import VersionConflictError, WriteRefusedError
from . import git
from .db import WRITER_LOCK_KEY, connect, db_errors

__all__ = ["TeamWriter", "writer_for"]

log = logging.getLogger(__name__)


def writer_for(vault: Path, url: str, config) -> TeamWriter | None:
    """The writer of ``vault`` as a working copy of the team's corpus, or None when it is
    not a git working copy (a search-only memory)."""
    vault = Path(vault).resolve()
    for name, folder in config.repos:
        if Path(folder).resolve() == vault:
            return TeamWriter(vault, url, name, config)
    if (vault / ".git").exists():
        return TeamWriter(vault, url, vault.name, config)
    return None


class TeamWriter:
    def __init__(self, vault: Path, url: str, repo: str, config) -> None:
        self.vault = vault
        self.url = url
        self.repo = repo
        self.config = config
        self._local = None  # the local engine over the working copy, made on first write

    def local_engine(self, **options):
        if self._local is None:
            from ..engine import Mnemosyne

            self._local = Mnemosyne(self.vault, **options)
        return self._local

    def close(self) -> None:
        if self._local is not None:
            self._local.close()
            self._local = None

    # -- the writer lock -------------------------------------------------------------

    def _lock(self, conn, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not conn.execute("SELECT pg_try_advisory_lock(%s)", [WRITER_LOCK_KEY]).fetchone()[0]:
            if time.monotonic() >= deadline:
                raise WriteRefusedError(
                    f"the team index's writer lock is held (another machine is writing or "
                    f"ingesting) and was not released within {timeout:g} s — retry"
                )
            time.sleep(0.05)

    def _check_head(self, conn) -> str:
        from .ingest import indexed_head

        head = git.head(self.vault)
        held = indexed_head(conn, self.repo)
        if held is None:
            raise WriteRefusedError(
                f"the team index holds no repository {self.repo!r} yet — ingest it first: "
                "mnemosyne ingest"
            )
        if held != head:
            raise VersionConflictError(
                f"the team index holds {self.repo!r} at {held[:12]}, this working copy is at "
                f"{(head or 'no commit')[:12]}: another machine wrote since (or this copy has "
                "commits not shared) — git pull (and push), then retry",
                fix="read the note again with {get_note} after pulling, then redo the change",
                current_version="",
            )
        return head

    # -- after the write ---------------------------------------------------------------

    def _git(self, *args: str, check: bool = True):
        return git.run(self.vault, *args, check=check)

    def _secret_in(self, paths: list[str], redactor) -> str | None:
        for rel in paths:
            file = self.vault / rel
            if not file.is_file():
                continue
            text = file.read_text(encoding="utf-8", errors="replace")
            if redactor.findings(text):
                return rel
        return None

    def _share(self, conn, paths: list[str], operation: str, redactor) -> list[str]:
        """Commit ``paths``, push, ingest; the warnings to report (none when shared)."""
        from .ingest import ingest

        self._git("add", "-A", "--", *paths)
        if not self._git("diff", "--cached", "--quiet", check=False).returncode:
            return []  # the write changed no file's content
        message = f"mnemosyne: {operation} {', '.join(sorted(paths)[:3])}"
        self._git(
            "-c",
            "user.name=mnemosyne",
            "-c",
            "user.email=mnemosyne@localhost",
            "commit",
            "-q",
            "--no-verify",
            "-m",
            message,
        )
        upstream = self._git("rev-parse", "--abbrev-ref", "@{u}", check=False).returncode == 0
        if upstream:
            secret = self._secret_in(paths, redactor)
            if secret is not None:
                return [
                    f"committed here but not shared: {secret} holds a secret the redactor "
                    "finds, so it was not pushed nor ingested — remove it, amend, then push "
                    "and run mnemosyne ingest"
                ]
            pushed = self._git("push", "-q", check=False)
            if pushed.returncode != 0:
                said = pushed.stderr.decode(errors="replace").strip().splitlines()
                return [
                    "committed here but not shared: git push failed "
                    f"({said[-1] if said else pushed.returncode}) — push, then run "
                    "mnemosyne ingest"
                ]
        report = ingest(self.url, [(self.repo, self.vault)], config=self.config, conn=conn)
        if not report.ok:
            return [f"committed but not ingested: {report.repos[0].error}"]
        return []

    @contextmanager
    def transaction(self, memory, operation: str = "write"):
        """Hold the writer lock, check the head, run the write on the local engine, then
        commit, push and ingest what it touched. Yields the list ``warnings`` is
        appended to."""
        conn = connect(self.url, autocommit=True)
        warnings: list[str] = []
        try:
            self._lock(conn, memory._lock_timeout)
            try:
                self._check_head(conn)
                local = self.local_engine(
                    clock=memory._clock,
                    usage_multiplier=memory._usage_multiplier,
                    usage_max=memory.engine.usage_max,
                )
                touched: list[str] = []
                refresh = local.refresh

                def recording(*, full=False, paths=None, on_progress=None):
                    if paths is not None:
                        paths = list(paths)
                        touched.extend(paths)
                    return refresh(full=full, paths=paths, on_progress=on_progress)

                local.refresh = recording
                team = memory.engine
                memory.engine = local
                try:
                    with memory._lock():
                        yield warnings
                finally:
                    memory.engine = team
                    del local.refresh
                notes = sorted({p for p in touched if p.lower().endswith(".md")})
                if notes:
                    warnings += self._share(conn, notes, operation, local.redactor)
                    team.refresh()
                for warning in warnings:
                    log.warning("%s", warning)
            finally:
                try:
                    conn.execute("SELECT pg_advisory_unlock(%s)", [WRITER_LOCK_KEY])
                except db_errors():
                    pass  # the connection is gone: its locks went with it
        finally:
            conn.close()
