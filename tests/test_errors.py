"""The exception tree's shared surface: fixes that name each door's own operations, and
the one error shape (``error_dict``) every door reports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from birkin_mnemosyne import errors
from birkin_mnemosyne.errors import (
    DOORS,
    OPERATIONS,
    AmbiguousKeyError,
    InvalidInputError,
    NoteExistsError,
    NoteNotFoundError,
    UndoConflictError,
    VersionConflictError,
    error_dict,
    render_fix,
    render_names,
)
from birkin_mnemosyne.memory import VaultMemory

PACKAGE = Path(errors.__file__).resolve().parent
VERSION = "ab" * 32


def _fix_templates() -> list[tuple[str, str]]:
    """Every ``fix="..."`` literal in the package, with where it is."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                if keyword.arg == "fix" and isinstance(keyword.value, ast.Constant):
                    found.append((f"{path.name}:{node.lineno}", keyword.value.value))
    return found


def test_every_fix_names_only_known_operations():
    templates = _fix_templates()
    assert len(templates) >= 15  # the scan finds the package's fixes
    for where, template in templates:
        assert isinstance(template, str), where
        names = re.findall(r"\{([^{}=:]*)\}", template)
        assert all(name in OPERATIONS for name in names), (where, template)


def test_every_operation_has_a_library_and_a_cli_name():
    for operation, names in OPERATIONS.items():
        assert names.library and names.cli.startswith("mnemosyne "), operation
        assert "`" not in "".join(n for n in names if n), operation  # backticks come on render


@pytest.mark.parametrize(
    ("door", "text", "named"),
    [
        ("library", "read it again with VaultMemory.get_note()", ["VaultMemory.get_note()"]),
        ("cli", "read it again with `mnemosyne show`", ["mnemosyne show"]),
        ("mcp", "read it again with memory_get_note", ["memory_get_note"]),
        ("hermes", "read it again with mnemosyne_get", ["mnemosyne_get"]),
    ],
)
def test_a_fix_is_rendered_with_each_doors_own_names(door, text, named):
    assert render_fix("read it again with {get_note}", door) == (text, named)


def test_an_operation_the_door_lacks_is_named_by_its_cli_command():
    # Hermes has no list tool; an MCP server whose tool set leaves memory_list out.
    assert render_fix("{list_notes} or {search} shows the keys", "hermes")[0] == (
        "`mnemosyne list` or mnemosyne_search shows the keys"
    )
    text, named = render_fix(
        "{list_notes} or {search} shows the keys", "mcp", offered={"memory_search"}
    )
    assert text == "`mnemosyne list` or memory_search shows the keys"
    assert named == ["mnemosyne list", "memory_search"]
    # A tool with arguments after its name counts as offered by its name.
    assert render_fix("use {append}", "mcp", offered={"memory_remember"})[0] == (
        "use memory_remember (mode='append')"
    )


@pytest.mark.parametrize(
    ("door", "text"),
    [
        ("library", "find_replace needs find; pass expected_count, or content"),
        ("cli", "find-replace needs --find; pass --expected-count, or --body (or stdin)"),
        ("mcp", "find_replace needs find; pass expected_count, or content"),
        ("hermes", "find_replace needs find; pass expected_count, or content"),
    ],
)
def test_parameters_and_choice_values_are_spelled_as_each_door_does(door, text):
    template = "{:find_replace} needs {=find}; pass {=expected_count}, or {=content}"
    assert render_names(template, door) == text
    error = InvalidInputError(template, fix="then {=find} again")
    assert error_dict(error, door)["message"].startswith(text)
    assert error_dict(error, door)["hint"] == render_names("then {=find} again", door)
    assert render_names("a {dict} and {=Not} stay", door) == "a {dict} and {=Not} stay"


def test_braces_that_name_no_operation_are_left_alone():
    assert render_fix("{not_an_operation} stays", "mcp") == ("{not_an_operation} stays", [])
    with pytest.raises(ValueError, match="unknown door"):
        render_fix("x", "web")
    assert set(DOORS) == set(OPERATIONS["search"]._fields)


def test_str_is_the_library_rendering_and_the_message_keeps_the_problem():
    error = VersionConflictError(
        "a.md changed", fix="read it again with {get_note}", current_version=VERSION
    )
    assert str(error) == "a.md changed — read it again with VaultMemory.get_note()"
    assert error.message == "a.md changed" and error.args == ("a.md changed",)
    assert error.render("cli") == "a.md changed — read it again with `mnemosyne show`"
    assert str(NoteNotFoundError("no note 'x'")) == "no note 'x'"  # no fix, no dash
    assert str(InvalidInputError()) == "InvalidInputError"


def test_error_dict_carries_type_message_hint_and_the_fields():
    error = VersionConflictError(
        "a.md changed", fix="read it again with {get_note}", current_version=VERSION
    )
    assert error_dict(error, "mcp") == {
        "error_type": "VersionConflictError",
        "message": "a.md changed — read it again with memory_get_note",
        "hint": "read it again with memory_get_note",
        "operations": ["memory_get_note"],
        "current_version": VERSION,
    }
    ambiguous = error_dict(AmbiguousKeyError("'x' names 2 notes", candidates=["a/x.md", "b/x.md"]))
    assert ambiguous == {
        "error_type": "AmbiguousKeyError",
        "message": "'x' names 2 notes",
        "candidates": ["a/x.md", "b/x.md"],
    }
    choice = error_dict(InvalidInputError("mode is wrong", valid_choices=("create", "append")))
    assert choice["valid_choices"] == ["create", "append"] and "hint" not in choice
    exists = error_dict(NoteExistsError("taken", key="a", version=VERSION))
    assert (exists["key"], exists["version"]) == ("a", VERSION)
    undo = error_dict(
        UndoConflictError("changed", current_versions={"a.md": VERSION, "b.md": None})
    )
    assert undo["paths"] == ["a.md", "b.md"]
    assert undo["current_versions"] == {"a.md": VERSION, "b.md": None}
    assert undo["current_version"] == VERSION


# -- through the library door ---------------------------------------------------------


@pytest.fixture
def memory(vault):
    vault.write("ops/deploy.md", "# Deploy\n\nRun the deploy script.\n")
    with VaultMemory(vault.root) as memory:
        yield memory


def test_a_stale_expected_version_carries_the_whole_current_version(memory):
    current = memory.get_note("deploy")["version"]
    with pytest.raises(VersionConflictError) as caught:
        memory.write_note("deploy", "new body", mode="replace", expected_version="0" * 64)
    error = caught.value
    assert error.current_version == current
    assert current in str(error)  # in full, not shortened
    assert str(error).endswith("read it again with VaultMemory.get_note() and redo the change")
    assert error_dict(error, "cli")["operations"] == ["mnemosyne show"]


def test_library_fixes_name_library_calls(memory):
    with pytest.raises(NoteNotFoundError) as caught:
        memory.get_note("zzzz-nothing-like-it")
    assert str(caught.value).endswith(
        "VaultMemory.list_notes() or VaultMemory.search() shows the keys"
    )
    with pytest.raises(NoteExistsError) as caught:
        memory.write_note("Deploy", "again", zone="ops")
    assert "write_note(mode='append')" in str(caught.value)
    assert caught.value.version == memory.get_note("deploy")["version"]
    with pytest.raises(InvalidInputError) as caught:
        memory.write_note("deploy", "x", mode="rewrite")
    assert caught.value.valid_choices == ["create", "append", "replace"]


def test_an_archived_key_points_to_restore(memory):
    memory.forget("deploy", confirm=True)
    with pytest.raises(NoteNotFoundError) as caught:
        memory.get_note("deploy")
    assert "archived at _archive/ops/deploy.md" in caught.value.message
    assert error_dict(caught.value, "cli")["hint"] == "bring it back with `mnemosyne restore`"
