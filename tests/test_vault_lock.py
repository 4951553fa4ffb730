"""The vault writer lock: exclusive across real processes, re-entrant within a thread."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import pytest

from birkin_mnemosyne import vault_lock as vault_lock_module
from birkin_mnemosyne.errors import InvalidInputError, VaultNotFoundError, WriteRefusedError
from birkin_mnemosyne.vault_lock import VaultLock, vault_lock

REPO_ROOT = Path(vault_lock_module.__file__).resolve().parents[1]
PROCESS_WAIT = 60  # seconds; a bound on child processes, never reached when things work

# Read-modify-write of a counter and an append, N times, each under the lock. The two
# workers start their loops together (a bounded wait for each other's "ready" file), so
# without the lock they interleave and lose updates (checked by hand: ~100 of 200 kept).
WORKER = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path
    from birkin_mnemosyne.vault_lock import VaultLock

    vault, tag, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    counter = vault / "counter.txt"
    (vault / f"ready-{tag}").touch()
    deadline = time.monotonic() + 30
    while len(list(vault.glob("ready-*"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.001)
    for number in range(rounds):
        with VaultLock(vault, timeout=30):
            value = int(counter.read_text())
            counter.write_text(str(value + 1))
            with open(vault / "lines.txt", "a") as handle:
                handle.write(f"{tag} {number}\\n")
    """
)

# Takes the lock, says so, and keeps it until its stdin closes.
HOLDER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from birkin_mnemosyne.vault_lock import VaultLock

    with VaultLock(Path(sys.argv[1])):
        print("locked", flush=True)
        sys.stdin.read()
    """
)


def python(script: str, *args: str, **kwargs) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen([sys.executable, "-c", script, *args], env=env, text=True, **kwargs)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    folder = tmp_path / "vault"
    folder.mkdir()
    return folder


@pytest.fixture
def holder(vault: Path):
    """A second process holding the vault lock until the test ends (or kills it)."""
    process = python(HOLDER, str(vault), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert process.stdout.readline().strip() == "locked"
        yield process
    finally:
        if process.poll() is None:
            process.stdin.close()
            process.wait(PROCESS_WAIT)
        process.stdin.close()
        process.stdout.close()


def test_two_processes_lose_no_update(vault: Path) -> None:
    (vault / "counter.txt").write_text("0")
    rounds = 100
    workers = [python(WORKER, str(vault), tag, str(rounds)) for tag in ("a", "b")]
    for worker in workers:
        assert worker.wait(PROCESS_WAIT) == 0
    assert (vault / "counter.txt").read_text() == str(2 * rounds)
    lines = (vault / "lines.txt").read_text().splitlines()
    assert sorted(lines) == sorted(f"{tag} {n}" for tag in "ab" for n in range(rounds))


def test_other_process_holding_the_lock_times_out_with_a_clear_error(
    vault: Path, holder: subprocess.Popen
) -> None:
    lock = VaultLock(vault, timeout=0.2)
    with pytest.raises(WriteRefusedError) as caught:
        lock.acquire()
    message = str(caught.value)
    assert str(vault / ".mnemosyne" / "lock") in message
    assert "another process" in message
    assert not lock.held
    with pytest.raises(WriteRefusedError):
        VaultLock(vault, timeout=0).acquire()  # 0 = try once


def test_lock_is_free_again_when_the_holder_releases_or_dies(
    vault: Path, holder: subprocess.Popen
) -> None:
    holder.kill()  # a crashed writer: the OS drops its lock
    holder.wait(PROCESS_WAIT)
    with VaultLock(vault, timeout=PROCESS_WAIT) as lock:
        assert lock.held
    assert (vault / ".mnemosyne" / "lock").exists()  # never deleted


def test_reentrant_in_one_thread(vault: Path) -> None:
    outer = VaultLock(vault)
    inner = vault_lock(vault)
    with outer:
        with inner, outer:
            assert outer.held and inner.held
        assert outer.held  # still held by the outer block
    assert not outer.held and not inner.held
    assert (vault / ".mnemosyne" / "lock").is_file()


def test_other_threads_wait(vault: Path) -> None:
    events: list[str] = []
    started = threading.Event()

    def other_thread() -> None:
        started.set()
        with VaultLock(vault, timeout=PROCESS_WAIT):
            events.append("other")

    with VaultLock(vault):
        thread = threading.Thread(target=other_thread)
        thread.start()
        started.wait(PROCESS_WAIT)
        with pytest.raises(WriteRefusedError, match="another thread"):
            _acquire_in_thread(VaultLock(vault, timeout=0.05))
        events.append("main")
    thread.join(PROCESS_WAIT)
    assert events == ["main", "other"]


def _acquire_in_thread(lock: VaultLock) -> None:
    errors: list[BaseException] = []

    def run() -> None:
        try:
            lock.acquire()
            lock.release()
        except BaseException as exc:  # handed back to the test thread
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(PROCESS_WAIT)
    if errors:
        raise errors[0]


def test_release_without_acquire_is_an_error(vault: Path) -> None:
    with pytest.raises(RuntimeError, match="without a matching acquire"):
        VaultLock(vault).release()


def test_missing_vault_and_bad_timeout(tmp_path: Path) -> None:
    with pytest.raises(VaultNotFoundError):
        VaultLock(tmp_path / "missing").acquire()
    assert not (tmp_path / "missing").exists()
    for bad in (-1, float("nan"), "5"):
        with pytest.raises(InvalidInputError):
            VaultLock(tmp_path, timeout=bad)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_forked_child_does_not_inherit_the_lock(vault: Path) -> None:
    with VaultLock(vault):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
            pid = os.fork()
        if pid == 0:  # child: must neither think it holds the lock nor get it
            code = 1
            try:
                lock = VaultLock(vault, timeout=0)
                if not lock.held:
                    try:
                        lock.acquire()
                    except WriteRefusedError:
                        code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
