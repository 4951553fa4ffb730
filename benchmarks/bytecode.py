"""Whole-process timings measure the program as installed: with its bytecode compiled.

``pip install`` compiles a package's modules to ``__pycache__``; an editable install or
a checkout writes them on first import, unless ``PYTHONDONTWRITEBYTECODE`` is set (it
is in some sandboxes and containers). Then every process recompiles each module whose
cached bytecode is missing or older than its source (tens of milliseconds for a CLI
process), and a benchmark of whole processes times the compiler instead. The
benchmarks that time child processes call ``ensure_compiled()`` first and say so in
their output.
"""

from __future__ import annotations

import compileall
import importlib.util

PACKAGE = "birkin_mnemosyne"


def ensure_compiled(package: str = PACKAGE) -> str:
    """Compile ``package``'s modules whose bytecode is missing or stale (``compileall``
    skips the others), found without importing it; returns a line for the report."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return f"bytecode: {package} not found"
    folder = next(iter(spec.submodule_search_locations))
    ok = compileall.compile_dir(folder, quiet=1)
    return f"bytecode: {folder} {'compiled' if ok else 'FAILED to compile'} (compileall)"
