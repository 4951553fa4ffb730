"""What ingest reads from a git repository: its head, its note blobs, their bytes.

Only committed content is read (``HEAD``'s tree), never the working copy: the index
holds what the team shares. The notes of a tree are the blobs the local engine would
index as files (``discovery``): ``.md`` files (any case) outside hidden folders,
``node_modules`` and ``__pycache__``; symlinks and submodules are skipped.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import GitError
from ..vault_paths import SKIPPED_DIRS

__all__ = ["GitError", "blobs", "descends_from", "head", "note_blobs", "pull", "run"]


def run(
    repo: Path, *args: str, check: bool = True, input: bytes | None = None
) -> subprocess.CompletedProcess:
    """``git -C repo ARGS`` (output as bytes); ``GitError`` when git is missing, and when
    it fails unless ``check`` is false."""
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            input=input,
            capture_output=True,
            stdin=None if input is not None else subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise GitError("git is not installed — install git to use a team index") from None
    if check and done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(
            f"git {args[0]} failed in {repo}: {message[-1] if message else done.returncode}"
        )
    return done


def _git(repo: Path, *args: str) -> bytes:
    return run(repo, *args).stdout


def head(repo: Path) -> str | None:
    """The commit ``HEAD`` names; None for a repository with no commit yet."""
    if not (repo / ".git").exists() and not _is_repo(repo):
        raise GitError(f"{repo} is not a git repository — clone it there, or fix 'repos'")
    try:
        return _git(repo, "rev-parse", "--verify", "-q", "HEAD^{commit}").decode().strip()
    except GitError:
        return None


def _is_repo(repo: Path) -> bool:
    try:
        return _git(repo, "rev-parse", "--is-inside-work-tree").strip() == b"true"
    except GitError:
        return False


def descends_from(repo: Path, commit: str | None, ancestor: str) -> bool:
    """Whether ``commit`` has ``ancestor`` in its history (False when either is unknown
    here: a commit this clone has not fetched is not in its history)."""
    if not commit:
        return False
    return run(repo, "merge-base", "--is-ancestor", ancestor, commit, check=False).returncode == 0


def pull(repo: Path) -> None:
    """``git pull --ff-only`` (a timer's ingest never merges or rewrites history)."""
    _git(repo, "pull", "--ff-only", "-q")


def _is_note(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    if len(name) <= 3 or name[-3:].lower() != ".md":
        return False
    return not any(p.startswith(".") or p in SKIPPED_DIRS for p in parts)


def note_blobs(repo: Path, commit: str) -> dict[str, str]:
    """path -> blob sha of every note in ``commit``'s tree."""
    out = _git(repo, "ls-tree", "-r", "-z", "--full-tree", commit)
    found = {}
    for entry in out.split(b"\0"):
        if not entry:
            continue
        info, _, raw_path = entry.partition(b"\t")
        mode, kind, sha = info.split(b" ")
        if kind != b"blob" or mode not in (b"100644", b"100755"):
            continue
        try:
            path = raw_path.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if _is_note(path):
            found[path] = sha.decode()
    return found


def blobs(repo: Path, shas: Iterable[str]) -> Iterator[tuple[str, bytes]]:
    """(sha, content) of each blob, read through one ``git cat-file --batch``."""
    shas = list(shas)
    if not shas:
        return
    proc = subprocess.Popen(
        ["git", "-C", str(repo), "cat-file", "--batch"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        for sha in shas:
            proc.stdin.write(sha.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) != 3:
                raise GitError(f"git cat-file could not read blob {sha} in {repo}")
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)  # the newline after the content
            yield sha, data
    finally:
        proc.stdin.close()
        proc.stdout.close()
        proc.wait()
