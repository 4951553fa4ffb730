"""benchmarks/bytecode.py: whole-process benchmarks time the program with its bytecode."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def _bytecode():
    spec = importlib.util.spec_from_file_location("bench_bytecode", BENCH / "bytecode.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stale_or_missing_bytecode_is_compiled_and_fresh_bytecode_is_kept(tmp_path, monkeypatch):
    package = tmp_path / "benchpkg_demo"
    (package / "sub").mkdir(parents=True)
    init, inner = package / "__init__.py", package / "sub" / "mod.py"
    init.write_text("VALUE = 1\n", encoding="utf-8")
    inner.write_text("VALUE = 2\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    bytecode = _bytecode()

    line = bytecode.ensure_compiled("benchpkg_demo")
    assert "compiled" in line and str(package) in line
    cached = [Path(importlib.util.cache_from_source(str(p))) for p in (init, inner)]
    assert all(path.is_file() for path in cached)

    # an edited source: its bytecode is written again, the other's is left as it was
    kept = cached[0].stat().st_mtime_ns
    inner.write_text("VALUE = 3\n", encoding="utf-8")
    os.utime(inner, ns=(cached[1].stat().st_mtime_ns + 2_000_000_000,) * 2)
    before = cached[1].read_bytes()
    bytecode.ensure_compiled("benchpkg_demo")
    assert cached[1].read_bytes() != before
    assert cached[0].stat().st_mtime_ns == kept
    assert "benchpkg_demo" not in sys.modules  # found, never imported


def test_a_package_that_is_not_installed_is_reported(monkeypatch):
    assert "not found" in _bytecode().ensure_compiled("no_such_package_for_bench")
