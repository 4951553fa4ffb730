"""The README's sample transcript is what the commands it shows print today."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "gen_readme_sample.py"


@pytest.fixture(scope="module")
def sample():
    spec = importlib.util.spec_from_file_location("gen_readme_sample", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_sample_output_is_up_to_date(sample):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert sample.render(readme) == readme, (
        f"README.md's sample output differs from what its commands print: run {sample.REGENERATE}"
    )


def test_the_sample_runs_the_demo_vault_and_shows_an_exit_status(sample):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = sample.commands(readme)
    assert len(lines) >= 3 and "echo $?" in lines
    assert all(
        line.startswith("mnemosyne --vault examples/vault ") for line in lines if line != "echo $?"
    )


def test_render_replaces_only_the_transcript(sample):
    readme = (
        "# x\n\n## What a search looks like\n\n```\n$ mnemosyne --vault examples/vault search "
        '"kafka"\nstale output\n$ echo $?\n0\n```\n\nafter\n'
    )
    rendered = sample.render(readme)
    assert rendered.startswith("# x\n\n## What a search looks like\n\n```\n$ mnemosyne")
    assert rendered.endswith("$ echo $?\n1\n```\n\nafter\n")
    assert "stale output" not in rendered and "No strong match" in rendered
    with pytest.raises(ValueError, match="may only run mnemosyne"):
        sample.transcript(["rm -rf /tmp/x"])
