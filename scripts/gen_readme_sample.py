"""Rewrite the README's sample transcript ("What a search looks like") from real runs.

Every ``$ mnemosyne ...`` line of the transcript is run on a fresh copy of
``examples/vault`` (in a temporary folder, so the demo vault gets no cache), and its
output — stdout and stderr as a terminal would interleave them — replaces what the
README shows; ``$ echo $?`` lines print the exit status of the command before them.

Run from a checkout after a change that alters search output:
``python scripts/gen_readme_sample.py``. ``--check`` only compares and exits 1 when the
README is out of date (``tests/test_readme_sample.py`` does the same).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SECTION = "## What a search looks like"
REGENERATE = "python scripts/gen_readme_sample.py"
_BLOCK = re.compile(r"^```\n(.*?)^```$", re.M | re.S)


def _block(readme: str) -> re.Match[str]:
    """The first bare fenced block after the section heading."""
    start = readme.index(SECTION)
    found = _BLOCK.search(readme, start)
    if found is None:
        raise ValueError(f"README.md has no ``` block under {SECTION!r}")
    return found


def commands(readme: str) -> list[str]:
    """The transcript's command lines, without their ``$ ``."""
    lines = _block(readme).group(1).splitlines()
    return [line[2:] for line in lines if line.startswith("$ ")]


def _run(command: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    argv = shlex.split(command)
    if argv[0] != "mnemosyne":
        raise ValueError(f"the README sample may only run mnemosyne and echo $?: {command}")
    return subprocess.run(
        [sys.executable, "-m", "birkin_mnemosyne", *argv[1:]],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # interleaved as on a terminal (unbuffered below)
        text=True,
        timeout=120,
    )


def transcript(lines: list[str]) -> str:
    """The transcript body for ``lines``, run on a fresh copy of the demo vault."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MNEMOSYNE_")}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONUNBUFFERED"] = "1"
    out: list[str] = []
    status = None
    with tempfile.TemporaryDirectory() as tmp:
        env["HOME"] = tmp
        shutil.copytree(
            ROOT / "examples" / "vault",
            Path(tmp) / "examples" / "vault",
            ignore=shutil.ignore_patterns(".mnemosyne"),
        )
        for command in lines:
            if command == "echo $?":
                out.append(f"$ {command}\n{status}\n")
                continue
            if out:
                out.append("\n")
            proc = _run(command, Path(tmp), env)
            status = proc.returncode
            text = (
                proc.stdout if proc.stdout.endswith("\n") or not proc.stdout else proc.stdout + "\n"
            )
            out.append(f"$ {command}\n{text}")
    return "".join(out)


def render(readme: str) -> str:
    """``readme`` with its sample transcript regenerated."""
    block = _block(readme)
    body = transcript(commands(readme))
    return readme[: block.start(1)] + body + readme[block.end(1) :]


def main(argv: list[str]) -> int:
    current = README.read_text(encoding="utf-8")
    text = render(current)
    if "--check" in argv:
        if text != current:
            print(f"README.md's sample output is out of date: run {REGENERATE}")
            return 1
        return 0
    if text != current:
        README.write_bytes(text.encode("utf-8"))
        print("wrote README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
