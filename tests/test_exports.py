"""``birkin_mnemosyne`` re-exports its public names, sorted and complete, and lazily."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import birkin_mnemosyne
from birkin_mnemosyne import errors

# The Python API that birkin-mnemosyne 0.7.2 documented (its README and docstrings).
API_072 = {
    "HandoffFields",
    "HandoffScope",
    "HandoffStore",
    "MemoryIndex",
    "Mnemosyne",
    "StartupReader",
    "VaultMemory",
    "bm25_scores",
    "build_plan_prompt",
    "evaluate_plan",
    "extract_plan",
    "get_completer",
    "mechanical_catalog",
    "run_curation_pass",
    "slug",
    "tokenize",
    "validate_clamp",
}


def test_all_is_sorted_and_resolves():
    names = birkin_mnemosyne.__all__
    assert names == sorted(names)
    assert len(names) == len(set(names))
    for name in names:
        assert getattr(birkin_mnemosyne, name) is not None, name


def test_every_error_class_is_exported():
    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.MnemosyneError)
    }
    assert classes <= set(birkin_mnemosyne.__all__)
    assert all(issubclass(getattr(errors, c), errors.MnemosyneError) for c in classes)


def test_all_is_complete():
    classes = {
        name
        for name, value in vars(errors).items()
        if isinstance(value, type) and issubclass(value, errors.MnemosyneError)
    }
    expected = classes | set(birkin_mnemosyne._LAZY) | {"__version__"}
    assert set(birkin_mnemosyne.__all__) == expected
    assert set(birkin_mnemosyne.__all__) >= API_072


@pytest.mark.parametrize("name", sorted(API_072))
def test_the_072_names_are_the_modules_own_objects(name):
    # each lazy name is the very object its module defines, not a copy or a wrapper
    value = getattr(birkin_mnemosyne, name)
    module = sys.modules[f"birkin_mnemosyne.{birkin_mnemosyne._LAZY[name]}"]
    assert getattr(module, name) is value
    assert callable(value) and value.__doc__, f"{name} needs a docstring"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        birkin_mnemosyne.nope  # noqa: B018
    assert "MemoryIndex" in dir(birkin_mnemosyne)


def test_importing_the_package_loads_no_feature_module():
    code = (
        "import sys, birkin_mnemosyne\n"
        "print(sorted(m for m in sys.modules if m.startswith('birkin_mnemosyne')))\n"
        "from birkin_mnemosyne import tokenize\n"
        "print(sorted(m for m in sys.modules if m.startswith('birkin_mnemosyne')))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    bare, after_tokenize = (ast.literal_eval(line) for line in proc.stdout.splitlines())
    assert bare == ["birkin_mnemosyne", "birkin_mnemosyne._version", "birkin_mnemosyne.errors"]
    # one name costs its own module, not the engine or the write path
    assert set(after_tokenize) - set(bare) == {"birkin_mnemosyne.tokenizer"}


def test_the_command_line_loads_no_curation_or_network_code_until_a_command_needs_it():
    code = (
        "import sys, birkin_mnemosyne.cli.main\n"
        "print(sorted(m for m in sys.modules if m.startswith(('birkin_mnemosyne.curation', 'urllib.request', 'http'))))\n"
        "from birkin_mnemosyne.curation import review, capacity, get_completer\n"
        "print(callable(capacity), review.__name__)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    loaded, names = proc.stdout.splitlines()
    # nothing: a command's module is imported when that command runs (cli.main)
    assert ast.literal_eval(loaded) == []
    assert names == "True birkin_mnemosyne.curation.review"
