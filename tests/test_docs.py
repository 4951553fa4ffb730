"""The README's commands are the ones CI runs, and its demo works."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _quick_start_commands() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.+?)\n```", section)


def test_quick_start_has_exactly_two_commands():
    commands = _quick_start_commands()
    assert len(commands) == 2
    assert "examples/vault" in commands[0] and "search" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert _quick_start_commands()[1] in ci


def test_readme_demo_search_runs():
    command = _quick_start_commands()[0].split("&&", 1)[1].strip()
    argv = shlex.split(command)
    assert argv[0] == "mnemosyne"
    proc = subprocess.run(
        [sys.executable, "-m", "birkin_mnemosyne", *argv[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "runbooks/postgres-restore.md" in proc.stdout.splitlines()[1]


def test_python_example_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.+?)\n```", readme, re.S).group(1)
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "decisions/0001-stay-on-postgres-14.md" in proc.stdout
