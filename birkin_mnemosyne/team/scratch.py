"""A throwaway PostgreSQL server for tests, benchmarks and trying the team index out.

``ScratchPostgres()`` runs the distribution's ``initdb`` and ``pg_ctl`` into a temporary
folder and starts the server on a free loopback port, with its socket in that folder;
``stop()`` (or leaving the ``with`` block) shuts it down and deletes everything. No
Docker, no network, nothing outside the folder.

The binaries are found on ``$PATH``, in ``$MNEMOSYNE_PG_BIN``, or in Debian's
``/usr/lib/postgresql/<version>/bin``. PostgreSQL refuses to run as root: under root the
server runs as the ``postgres`` user (the distribution's package creates it), or as
``nobody``, and the folder is handed to that user.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from ..errors import IndexBackendError

__all__ = ["ScratchPostgres", "find_binaries", "scratch_unavailable_reason"]

_BIN_ENV = "MNEMOSYNE_PG_BIN"


class ScratchServerError(IndexBackendError):
    """The scratch server could not be set up or started."""


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``, or None."""
    candidates = []
    if os.environ.get(_BIN_ENV):
        candidates.append(Path(os.environ[_BIN_ENV]))
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(os.path.realpath(initdb)).parent)
    candidates += [Path(p) for p in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)]
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _run_as() -> pwd.struct_passwd | None:
    """The unprivileged user the server runs as when this process is root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    return None


def scratch_unavailable_reason() -> str | None:
    """Why a scratch server cannot start here (None when it can)."""
    if find_binaries() is None:
        return (
            "PostgreSQL's initdb/pg_ctl are not installed (apt-get install postgresql, "
            f"or set ${_BIN_ENV})"
        )
    if os.geteuid() == 0 and _run_as() is None:
        return "running as root and no 'postgres' or 'nobody' user to run the server as"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ScratchPostgres:
    """``with ScratchPostgres() as pg: pg.url`` — a server for the life of the block."""

    def __init__(self, *, database: str = "mnemosyne") -> None:
        reason = scratch_unavailable_reason()
        if reason:
            raise ScratchServerError(f"cannot start a scratch PostgreSQL: {reason}")
        self.bin = find_binaries()
        self.database = database
        self.user = _run_as()
        self.root = Path(tempfile.mkdtemp(prefix="mnemosyne-pg-"))
        self.data = self.root / "data"
        self.port = 0
        self._started = False

    @property
    def url(self) -> str:
        role = self.user.pw_name if self.user else pwd.getpwuid(os.geteuid()).pw_name
        return f"postgresql://{role}@127.0.0.1:{self.port}/{self.database}"

    def _cmd(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        argv = list(args)
        kwargs = {}
        if self.user is not None:
            argv = ["setpriv", f"--reuid={self.user.pw_uid}", f"--regid={self.user.pw_gid}"]
            argv += ["--clear-groups", *args]
            kwargs["env"] = {**os.environ, "HOME": str(self.root)}
        done = subprocess.run(
            argv, capture_output=True, text=True, stdin=subprocess.DEVNULL, **kwargs
        )
        if check and done.returncode != 0:
            raise ScratchServerError(
                f"{Path(args[0]).name} failed ({done.returncode}): "
                + (done.stderr or done.stdout).strip()[-800:]
            )
        return done

    def start(self) -> ScratchPostgres:
        if self.user is not None:
            os.chown(self.root, self.user.pw_uid, self.user.pw_gid)
        self._cmd(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        for attempt in range(5):
            self.port = _free_port()
            options = (
                f"-c listen_addresses=127.0.0.1 -c port={self.port} "
                f"-c unix_socket_directories={self.root} -c fsync=off "
                "-c max_connections=60 -c shared_buffers=64MB"
            )
            done = self._cmd(
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.root / "server.log"),
                "-o",
                options,
                "-w",
                "-t",
                "30",
                "start",
                check=False,
            )
            if done.returncode == 0:
                break
            if attempt == 4:
                log = (self.root / "server.log").read_text(errors="replace")[-800:]
                raise ScratchServerError(f"pg_ctl start failed: {done.stderr.strip()} {log}")
            time.sleep(0.2)
        self._started = True
        self._cmd(
            str(self.bin / "createdb") if (self.bin / "createdb").exists() else "createdb",
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            self.database,
        )
        return self

    def stop(self) -> None:
        if self._started:
            self._cmd(
                str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop", check=False
            )
            self._started = False
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> ScratchPostgres:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
