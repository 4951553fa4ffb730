"""The CLI's documentation cannot drift: docs/reference/cli.md is the parser's --help,
every subcommand is documented with an example, and docs/tutorial.md runs as written."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from birkin_mnemosyne.cli.main import build_parser, subcommands
from birkin_mnemosyne.cli.reference import REGENERATE, render_reference

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference" / "cli.md"
TUTORIAL = ROOT / "docs" / "tutorial.md"

# What differs from one run to the next: ids, versions, times, the home folder.
VOLATILE = [
    (re.compile(r"\d{8}T\d{6}Z-[0-9a-f]{6}"), "<transaction>"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "<hash>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}(T[0-9:.+]+Z?)?"), "<date>"),
]
TUTORIAL_HOME = "/home/you"


def test_reference_page_is_up_to_date():
    assert REFERENCE.read_text(encoding="utf-8") == render_reference(), (
        f"docs/reference/cli.md is out of date: run {REGENERATE}"
    )


def test_reference_page_says_it_is_generated_and_how():
    head = REFERENCE.read_text(encoding="utf-8")[:400]
    assert "Generated from `mnemosyne --help`" in head and REGENERATE in head


def test_every_subcommand_is_in_the_reference_with_an_example():
    page = REFERENCE.read_text(encoding="utf-8")
    commands = subcommands(build_parser())
    assert len(commands) >= 19
    for name, parser in commands.items():
        assert f"\n## mnemosyne {name}\n" in page, name
        help_text = parser.format_help()
        assert re.search(r"\nexamples?:\s+mnemosyne ", help_text), f"{name} has no example"
        assert f"mnemosyne {name}" in help_text.split("example", 1)[1], name


def test_reference_renders_the_same_on_any_terminal(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    narrow = render_reference()
    monkeypatch.setenv("COLUMNS", "200")
    assert render_reference() == narrow


def _blocks(text: str) -> list[tuple[str, str, str]]:
    """``(info, body, text before it)`` of every fenced block, in order."""
    found, last = [], 0
    for match in re.finditer(r"^```(\w*)\n(.*?)^```$", text, re.M | re.S):
        found.append((match.group(1), match.group(2), text[last : match.start()]))
        last = match.end()
    return found


def tutorial_notes() -> dict[str, str]:
    """The notes the tutorial starts from, as it shows them: each ```markdown block right
    after a line naming the file (`~/notes/<path>`)."""
    notes = {}
    for info, body, before in _blocks(TUTORIAL.read_text(encoding="utf-8")):
        named = re.search(r"`~/notes/([^`]+\.md)`[^\n]*:\s*$", before)
        if info == "markdown" and named:
            notes[named.group(1)] = body
    return notes


def tutorial_steps() -> list[tuple[list[str], str | None]]:
    """Each ```sh block's command lines, with the ```text block right after it (if any)."""
    blocks = _blocks(TUTORIAL.read_text(encoding="utf-8"))
    steps = []
    for i, (info, body, _) in enumerate(blocks):
        if info != "sh":
            continue
        lines = [line for line in body.splitlines() if line.strip() and not line.startswith("#")]
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        expected = None
        if following and following[0] == "text" and not following[2].strip():
            expected = following[1]
        steps.append((lines, expected))
    return steps


def _mask(text: str, home: str) -> list[str]:
    text = text.replace(home, TUTORIAL_HOME)
    for pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def _run_line(line: str, env: dict, cwd: Path) -> subprocess.CompletedProcess | None:
    argv = shlex.split(line)
    if argv[0] == "export":  # the one shell built-in the tutorial uses
        name, _, value = argv[1].partition("=")
        env[name] = os.path.expanduser(value) if value.startswith("~") else value
        return None
    assert argv[0] == "mnemosyne", f"the tutorial may only run mnemosyne: {line}"
    return subprocess.run(
        [sys.executable, "-m", "birkin_mnemosyne", *argv[1:]],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def tutorial_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    for rel, text in tutorial_notes().items():
        path = home / "notes" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))  # expanduser("~") in this process too
    return home


def test_tutorial_shows_the_folder_it_starts_from_and_every_note_in_it():
    text = TUTORIAL.read_text(encoding="utf-8")
    tree = next(body for info, body, _ in _blocks(text) if body.startswith("~/notes/\n"))
    listed = {line.split("── ", 1)[1] for line in tree.splitlines() if "── " in line}
    notes = tutorial_notes()
    assert listed == set(notes)
    assert set(notes) == {"runbooks/postgres-restore.md", "hosts/db1.md", "preferences.md"}
    assert all(body.strip() for body in notes.values())


def test_tutorial_runs_as_written(tutorial_home):
    env = {**os.environ, "HOME": str(tutorial_home), "PYTHONPATH": str(ROOT)}
    env.pop("MNEMOSYNE_VAULT", None)
    steps = tutorial_steps()
    assert len(steps) >= 8
    ran = set()
    for lines, expected in steps:
        output = ""
        for line in lines:
            proc = _run_line(line, env, tutorial_home)
            if proc is None:
                continue
            assert proc.returncode == 0, f"{line}\n{proc.stderr}"
            ran.add(shlex.split(line)[1])
            output += proc.stdout + proc.stderr
        if expected is not None:
            assert _mask(output, str(tutorial_home)) == _mask(expected, TUTORIAL_HOME), lines
    assert {"init", "search", "remember", "undo"} <= ran
