"""Register birkin-mnemosyne with Claude Code, and remove exactly that again.

Two things are registered: the lifecycle hooks (``mnemosyne hook EVENT``, one short
process per event, see ``claude.hooks``) and the MCP server (``mnemosyne-mcp``, stdio).
Standard library only: Claude Code need not be installed here.

Where they go (the formats are Claude Code's: the hooks reference, ``hooks`` in
settings.json; the MCP page, ``claude mcp add --scope project|user``; checked against
``claude`` 2.1.197, whose ``mcp add -s user`` writes ``mcpServers`` into ``~/.claude.json``
and ``mcp add -s project`` writes ``.mcp.json`` in the project root):

=========  ===================================  ======================================
scope      hooks (key ``hooks``)                MCP server (key ``mcpServers``)
=========  ===================================  ======================================
project    ``<project>/.claude/settings.json``  ``<project>/.mcp.json``
user       ``~/.claude/settings.json``          ``~/.claude.json`` (Claude Code's own
                                                state file: only ``mcpServers`` changes)
=========  ===================================  ======================================

With ``$CLAUDE_CONFIG_DIR`` set (and no ``home`` passed), the user files are
``$CLAUDE_CONFIG_DIR/settings.json`` and ``$CLAUDE_CONFIG_DIR/.claude.json``, as
Claude Code itself places them.

What is ours: a hook handler whose command runs ``-m birkin_mnemosyne`` … ``hook
EVENT`` under that event's key, and the server named ``mnemosyne`` whose command is a
``mnemosyne-mcp`` script or ``-m birkin_mnemosyne.mcp_main``. Everything else in those
files (other hooks, other servers, other keys, a ``mnemosyne hook`` written otherwise)
is left as it was. A file that is not JSON, or whose ``hooks`` / ``mcpServers`` is not
an object, is refused before anything is written.

What ``install`` does, per file (``state``):

=================  ===========================================================
``created``        the file did not exist
``updated``        an entry was added, or ours rewritten in place (another vault,
                   another interpreter, a new timeout)
``unchanged``      our entries are already exactly so: nothing is written
``deleted``        (uninstall) our removal left ``{}``: the file is removed
=================  ===========================================================

A file is rewritten as JSON with an indent of 2 (keys in their order), atomically,
keeping its mode; a symbolic link is followed, so a settings file kept in a dotfiles
repository stays a link. Claude Code rewrites ``~/.claude.json`` while it runs: install
with Claude Code closed, or restart it after.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from ..atomic import atomic_write_bytes
from ..errors import InvalidInputError, WriteRefusedError

__all__ = [
    "HOOK_TABLE",
    "PLUGIN_DIR",
    "SCOPES",
    "SERVER_NAME",
    "HookSpec",
    "hook_command",
    "hook_settings",
    "install",
    "plugin_hooks",
    "server_entry",
    "uninstall",
]


class HookSpec(NamedTuple):
    """One hook registration: the event, its matcher (``None``: every occurrence) and
    the seconds Claude Code waits before it cancels the hook."""

    event: str
    matcher: str | None
    timeout: int


# The one table of what is registered, for `mnemosyne claude install` and the shipped
# plugin's hooks/hooks.json alike (tests/test_claude_install.py keeps the file equal to
# it, and keeps claude.hooks.EVENTS and its time budgets agreeing). Matchers follow the
# hooks reference: SessionStart matches its source, tool events the tool name, a
# missing matcher (as "*" or "") matches all. The timeouts sit above the hook's own
# time budget (claude.hooks.TIME_BUDGET_S), so the hook gives up first and fails open;
# SessionStart allows for a first index build, which takes tens of seconds on a large
# vault.
HOOK_TABLE: tuple[HookSpec, ...] = (
    HookSpec("SessionStart", "startup|resume|clear|compact", 60),
    HookSpec("UserPromptSubmit", None, 10),
    HookSpec("PreToolUse", "Edit|Write|MultiEdit|NotebookEdit|Bash", 5),
    HookSpec("PostToolUse", "Bash", 5),
    HookSpec("PostToolUseFailure", "*", 5),
    # No matcher: both triggers (manual, auto), and any later one, get a handoff.
    HookSpec("PreCompact", None, 30),
    HookSpec("SessionEnd", None, 30),
)

SCOPES = ("project", "user")
SERVER_NAME = "mnemosyne"
PLUGIN_DIR = Path(__file__).resolve().parent.parent / "claude_plugin"
# How the plugin's hooks start this library: Claude Code sets CLAUDE_PLUGIN_ROOT to the
# plugin's folder (plugins reference).
PLUGIN_LAUNCHER = '"${CLAUDE_PLUGIN_ROOT}/scripts/launch.py"'
PLUGIN_HOOKS_DESCRIPTION = (
    "birkin-mnemosyne: recall from a Markdown memory vault at session start, on prompts, "
    "tool calls and failures; a handoff before compaction and at session end"
)

_MCP_SCRIPT = "mnemosyne-mcp"
_MCP_MODULE = "birkin_mnemosyne.mcp_main"
_OUR_MODULE = re.compile(r"(?:^|\s)-m\s+birkin_mnemosyne(?:\s|$)")


def hook_command(
    event: str, *, python: str | None = None, vault: str | os.PathLike | None = None
) -> str:
    """The shell command of one hook: this interpreter running the ``mnemosyne`` CLI
    (``"<python>" -m birkin_mnemosyne [--vault "<vault>"] hook EVENT``, POSIX quoting)."""
    words = [shlex.quote(python or _python()), "-m", "birkin_mnemosyne"]
    if vault is not None:
        words += ["--vault", shlex.quote(str(vault))]
    return " ".join([*words, "hook", event])


def hook_settings(command_of: Callable[[str], str]) -> dict[str, list[dict]]:
    """The ``hooks`` object for HOOK_TABLE, with ``command_of(event)`` as each command."""
    return {spec.event: [_group(spec, command_of(spec.event))] for spec in HOOK_TABLE}


def plugin_hooks() -> dict:
    """What the plugin's ``hooks/hooks.json`` holds: HOOK_TABLE run by its launcher."""
    return {
        "description": PLUGIN_HOOKS_DESCRIPTION,
        "hooks": hook_settings(lambda event: f"python3 {PLUGIN_LAUNCHER} hook {event}"),
    }


def server_entry(vault: str | os.PathLike | None = None, *, python: str | None = None) -> dict:
    """Our ``mcpServers`` entry: the ``mnemosyne-mcp`` script beside this interpreter,
    else the interpreter running ``-m birkin_mnemosyne.mcp_main``."""
    python = python or _python()
    script = _mcp_script(python)
    command, args = (script, []) if script else (python, ["-m", _MCP_MODULE])
    if vault is not None:
        args = [*args, "--vault", str(vault)]
    return {"type": "stdio", "command": command, "args": args}


def _python() -> str:
    # Not resolved: a virtual environment's python is often a link to the base one, and
    # only the link's path runs with the environment's packages.
    return os.path.abspath(sys.executable)


def _mcp_script(python: str) -> str | None:
    folder = Path(python).parent
    for name in (_MCP_SCRIPT, _MCP_SCRIPT + ".exe"):
        candidate = folder / name
        if candidate.is_file():
            return str(candidate)
    return None


def _group(spec: HookSpec, command: str) -> dict:
    group: dict = {}
    if spec.matcher is not None:
        group["matcher"] = spec.matcher
    group["hooks"] = [{"type": "command", "command": command, "timeout": spec.timeout}]
    return group


def _is_our_hook(handler: object, event: str) -> bool:
    if not isinstance(handler, dict) or handler.get("type", "command") != "command":
        return False
    command = handler.get("command")
    if not isinstance(command, str) or not _OUR_MODULE.search(command):
        return False
    return re.search(rf"\shook\s+{re.escape(event)}(?:\s|$)", command) is not None


def _is_our_server(entry: object) -> bool:
    if not isinstance(entry, dict):
        return False
    command = entry.get("command")
    if not isinstance(command, str):
        return False
    name = re.split(r"[\\/]", command)[-1].lower().removesuffix(".exe")
    if name == _MCP_SCRIPT:
        return True
    args = entry.get("args")
    if not isinstance(args, list):
        return False
    return any(a == "-m" and b == _MCP_MODULE for a, b in zip(args, args[1:]))


def _json_type(value: object) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    names = {dict: "object", list: "array", str: "string", int: "number", float: "number"}
    return names.get(type(value), type(value).__name__)


class _File:
    """One settings file: its text on disk (``None``: missing), the parsed object, and
    the object as it will be written."""

    def __init__(self, path: Path, role: str, *, keep_when_empty: bool = False) -> None:
        self.path = path
        self.role = role
        self.keep_when_empty = keep_when_empty
        self.text = self._read()
        self.before = self._parse()
        self.after = copy.deepcopy(self.before)
        self.added: list[str] = []
        self.updated: list[str] = []
        self.removed: list[str] = []
        self.kept: list[str] = []  # ours, already exactly as install writes them

    def _read(self) -> str | None:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except IsADirectoryError:
            raise InvalidInputError(
                f"{self.path} is a folder, not a settings file — move it away and run again"
            ) from None
        except OSError as exc:
            raise InvalidInputError(
                f"cannot read {self.path}: {exc.strerror or exc} — nothing was changed"
            ) from exc
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(
                f"{self.path} is not UTF-8 text — nothing was changed; fix or move the file "
                "and run again"
            ) from exc

    def _parse(self) -> dict:
        if self.text is None or not self.text.strip():
            return {}
        try:
            data = json.loads(self.text)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(
                f"{self.path} is not valid JSON ({exc.msg} at line {exc.lineno}, column "
                f"{exc.colno}) — nothing was changed; fix the file (or move it away) and run "
                "again"
            ) from exc
        if not isinstance(data, dict):
            raise InvalidInputError(
                f"{self.path} holds a JSON {_json_type(data)}, not an object — nothing was "
                "changed; fix the file (or move it away) and run again"
            )
        return data

    def section(self, key: str, *, create: bool) -> dict | None:
        """``after[key]``, an object (created when asked); refused when of another type."""
        value = self.after.get(key)
        if value is None and key not in self.after:
            if not create:
                return None
            value = self.after[key] = {}
        if not isinstance(value, dict):
            raise InvalidInputError(
                f"{self.path}: {key!r} is a JSON {_json_type(value)}, not an object — "
                f"nothing was changed; fix {key!r} by hand and run again"
            )
        return value

    @property
    def changed(self) -> bool:
        return self.after != self.before

    @property
    def deletes(self) -> bool:
        # A symbolic link (a dotfiles repository's file) is emptied, never removed.
        return (
            self.changed
            and not self.after
            and self.text is not None
            and not self.keep_when_empty
            and not self.path.is_symlink()
        )

    def new_text(self) -> str | None:
        if self.deletes:
            return None
        end = "\n" if self.text is None or self.text.endswith("\n") else ""
        return json.dumps(self.after, indent=2, ensure_ascii=False) + end

    def state(self) -> str:
        if not self.changed:
            return "unchanged"
        if self.deletes:
            return "deleted"
        return "created" if self.text is None else "updated"

    def diff(self) -> str:
        if not self.changed:
            return ""
        old = self.text or ""
        new = self.new_text() or ""
        lines = difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile="/dev/null" if self.text is None else str(self.path),
            tofile="/dev/null" if self.deletes else str(self.path),
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)

    def report(self) -> dict:
        return {
            "path": str(self.path),
            "role": self.role,
            "state": self.state(),
            "added": self.added,
            "updated": self.updated,
            "removed": self.removed,
            "diff": self.diff(),
        }

    def write(self) -> None:
        if not self.changed:
            return
        target = self.path.resolve() if self.path.is_symlink() else self.path
        try:
            if self.deletes:
                target.unlink()
                return
            atomic_write_bytes(target, self.new_text().encode("utf-8"))
            if self.text is None:
                with contextlib.suppress(OSError):
                    os.chmod(target, _new_file_mode(private=self.keep_when_empty))
        except OSError as exc:
            raise WriteRefusedError(f"could not write {self.path}: {exc.strerror or exc}") from exc


def _new_file_mode(*, private: bool) -> int:
    """``~/.claude.json`` stays private (Claude Code creates it 0600); the rest as any
    new file (0666 less the umask), which atomic writes would otherwise leave 0600."""
    if private:
        return 0o600
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


class _Target(NamedTuple):
    scope: str
    settings: Path
    servers: Path
    servers_is_state: bool  # ~/.claude.json: Claude Code's state, never deleted


def _target(scope: str, project_dir, home) -> _Target:
    if scope not in SCOPES:
        raise InvalidInputError(
            f"unknown scope {scope!r} — one of {', '.join(SCOPES)}", valid_choices=SCOPES
        )
    if scope == "project":
        root = Path(os.path.expanduser(project_dir)) if project_dir else Path.cwd()
        root = Path(os.path.abspath(root))
        if not root.is_dir():
            raise InvalidInputError(
                f"no project folder at {root} — pass --project-dir DIR naming an existing folder"
            )
        return _Target(scope, root / ".claude" / "settings.json", root / ".mcp.json", False)
    config_dir = os.environ.get("CLAUDE_CONFIG_DIR", "").strip()
    if home is None and config_dir:
        folder = Path(os.path.abspath(os.path.expanduser(config_dir)))
        return _Target(scope, folder / "settings.json", folder / ".claude.json", True)
    root = Path(os.path.abspath(os.path.expanduser(home))) if home else Path.home()
    if not root.is_dir():
        raise InvalidInputError(f"no home folder at {root} — pass an existing folder")
    return _Target(scope, root / ".claude" / "settings.json", root / ".claude.json", True)


def _load(target: _Target) -> tuple[_File, _File]:
    # Both are read and checked before either is written: a broken file stops both.
    return (
        _File(target.settings, "hooks"),
        _File(target.servers, "mcp_servers", keep_when_empty=target.servers_is_state),
    )


def _event_list(hooks: dict, event: str, file: _File, *, create: bool) -> list | None:
    value = hooks.get(event)
    if value is None and event not in hooks:
        if not create:
            return None
        value = hooks[event] = []
    if not isinstance(value, list):
        raise InvalidInputError(
            f"{file.path}: hooks.{event} is a JSON {_json_type(value)}, not an array — "
            f"nothing was changed; fix hooks.{event} by hand and run again"
        )
    return value


def _our_handlers(groups: list, event: str) -> list[tuple[dict, int]]:
    """``(group, index)`` of each of our handlers in an event's list, in order."""
    found = []
    for group in groups:
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            for index, handler in enumerate(group["hooks"]):
                if _is_our_hook(handler, event):
                    found.append((group, index))
    return found


def _install_hooks(file: _File, command_of: Callable[[str], str]) -> None:
    hooks = file.section("hooks", create=True)
    for spec in HOOK_TABLE:
        groups = _event_list(hooks, spec.event, file, create=True)
        wanted = _group(spec, command_of(spec.event))
        found = _our_handlers(groups, spec.event)
        label = f"hooks.{spec.event}"
        if not found:
            groups.append(wanted)
            file.added.append(label)
            continue
        group, index = found[0]
        before = copy.deepcopy(group)
        # In place: keys the user added to our handler (statusMessage, ...) are kept.
        group["hooks"][index].update(wanted["hooks"][0])
        if len(group["hooks"]) == 1:  # our own group: its matcher is ours too
            if spec.matcher is None:
                group.pop("matcher", None)
            else:
                group["matcher"] = spec.matcher
        for other, other_index in reversed(found[1:]):  # a duplicate of ours
            del other["hooks"][other_index]
        _drop_empty_groups(groups, {id(g) for g, _ in found[1:]})
        (file.updated if group != before or len(found) > 1 else file.kept).append(label)


def _drop_empty_groups(groups: list, emptied: set[int]) -> None:
    groups[:] = [g for g in groups if not (id(g) in emptied and not g["hooks"])]


def _uninstall_hooks(file: _File) -> None:
    hooks = file.section("hooks", create=False)
    if hooks is None:
        return
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue  # not ours to judge: it is left as it is
        found = _our_handlers(groups, event)
        if not found:
            continue
        for group, index in reversed(found):
            del group["hooks"][index]
        _drop_empty_groups(groups, {id(g) for g, _ in found})
        file.removed.append(f"hooks.{event}")
        if not groups:
            del hooks[event]
    if not hooks and file.removed:
        del file.after["hooks"]


def _install_server(file: _File, entry: dict) -> None:
    servers = file.section("mcpServers", create=True)
    label = f"mcpServers.{SERVER_NAME}"
    current = servers.get(SERVER_NAME)
    if current is None and SERVER_NAME not in servers:
        servers[SERVER_NAME] = entry
        file.added.append(label)
        return
    if not _is_our_server(current):
        raise WriteRefusedError(
            f"{file.path} already has an MCP server named {SERVER_NAME!r} that does not run "
            f"{_MCP_SCRIPT} — nothing was changed; rename or remove that entry (claude mcp "
            f"remove {SERVER_NAME}) and run again"
        )
    before = copy.deepcopy(current)
    current.update(entry)  # in place: an "env" the user gave it is kept
    (file.updated if current != before else file.kept).append(label)


def _uninstall_server(file: _File) -> None:
    servers = file.section("mcpServers", create=False)
    if servers is None or not _is_our_server(servers.get(SERVER_NAME)):
        return
    del servers[SERVER_NAME]
    file.removed.append(f"mcpServers.{SERVER_NAME}")
    if not servers:
        del file.after["mcpServers"]


def _absolute_vault(vault) -> Path | None:
    if vault is None:
        return None
    return Path(os.path.abspath(os.path.expanduser(str(vault))))


def _result(action: str, target: _Target, files, *, vault, dry_run, warnings, next_steps):
    reports = [f.report() for f in files]
    if not any(f.changed for f in files):
        state = "unchanged"
    elif action == "uninstall":
        state = "removed"
    elif any(f.updated or f.kept for f in files):
        state = "updated"  # some of ours were there already
    else:
        state = "installed"
    return {
        "action": action,
        "scope": target.scope,
        "state": state,
        "dry_run": dry_run,
        "vault": str(vault) if vault is not None else None,
        "files": reports,
        "warnings": warnings,
        "next_steps": next_steps,
    }


def _write(target: _Target, files) -> None:
    for file in files:
        file.write()
    settings = files[0]
    if target.scope == "project" and settings.deletes:
        # The project's .claude/ held only our settings file: as it was before install.
        with contextlib.suppress(OSError):
            settings.path.parent.rmdir()  # only when empty


def install(
    scope: str = "project",
    *,
    project_dir: str | os.PathLike | None = None,
    home: str | os.PathLike | None = None,
    vault: str | os.PathLike | None = None,
    dry_run: bool = False,
) -> dict:
    """Register the hooks and the MCP server for ``scope`` (see the module docstring).

    ``project_dir`` (project scope) defaults to the current folder, ``home`` (user
    scope) to the home folder. ``vault``, made absolute, is passed to every hook and to
    the server; without it they look the vault up when they run (``$MNEMOSYNE_VAULT``,
    else the default). Returns ``{"action", "scope", "state", "dry_run", "vault",
    "files", "warnings", "next_steps"}``; each of ``files`` is ``{"path", "role",
    "state", "added", "updated", "removed", "diff"}``. ``dry_run`` writes nothing.
    """
    target = _target(scope, project_dir, home)
    vault_path = _absolute_vault(vault)
    settings, servers = files = _load(target)
    python = _python()
    _install_hooks(settings, lambda event: hook_command(event, python=python, vault=vault_path))
    _install_server(servers, server_entry(vault_path, python=python))
    if not dry_run:
        _write(target, files)
    warnings = []
    if vault_path is not None and not vault_path.is_dir():
        warnings.append(
            f"there is no vault at {vault_path} yet — the hooks and the server need one: "
            f"mnemosyne --vault {shlex.quote(str(vault_path))} init"
        )
    if target.scope == "project":
        steps = [
            f"start `claude` in {target.settings.parent.parent} and approve the "
            f"{SERVER_NAME!r} MCP server of .mcp.json when asked (see `claude mcp list`)",
        ]
    else:
        steps = [
            f"restart Claude Code; `claude mcp list` shows {SERVER_NAME!r}",
        ]
    steps.append("inside Claude Code, /hooks lists the hooks and /mcp the server")
    return _result(
        "install",
        target,
        files,
        vault=vault_path,
        dry_run=dry_run,
        warnings=warnings,
        next_steps=steps,
    )


def uninstall(
    scope: str = "project",
    *,
    project_dir: str | os.PathLike | None = None,
    home: str | os.PathLike | None = None,
    dry_run: bool = False,
) -> dict:
    """Remove what ``install`` added for ``scope``, and only that: our hook handlers
    (any vault, any interpreter), the event lists, ``hooks`` and ``mcpServers`` only when
    that removal emptied them, and a file left as ``{}`` (never ``~/.claude.json``).
    The result has the shape of ``install``'s."""
    target = _target(scope, project_dir, home)
    settings, servers = files = _load(target)
    _uninstall_hooks(settings)
    _uninstall_server(servers)
    if not dry_run:
        _write(target, files)
    return _result(
        "uninstall",
        target,
        files,
        vault=None,
        dry_run=dry_run,
        warnings=[],
        next_steps=["restart Claude Code"] if any(f.changed for f in files) else [],
    )
