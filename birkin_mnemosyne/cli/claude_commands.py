"""``mnemosyne claude install|uninstall|plugin-path``: set up Claude Code.

One library call each (``claude.install``); no vault is opened. The hooks themselves
run ``mnemosyne hook EVENT`` (``hook_commands``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..claude.install import PLUGIN_DIR, install, uninstall
from .common import CommandError, add_command, add_json_flag, expand
from .output import print_json

_DONE = {
    ("install", "installed"): "installed",
    ("install", "updated"): "updated",
    ("install", "unchanged"): "already up to date:",
    ("uninstall", "removed"): "removed",
    ("uninstall", "unchanged"): "nothing to remove:",
}
# What a dry run says of each file's state.
_WOULD = {
    "created": "would create",
    "updated": "would update",
    "deleted": "would delete",
    "unchanged": "would leave as it is:",
}


def _add_scope(parser: argparse.ArgumentParser) -> None:
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument(
        "--project-dir",
        metavar="DIR",
        dest="project",
        help="the project: DIR/.claude/settings.json and DIR/.mcp.json (the default scope, "
        "with the current folder; not a handoff --project key, which the hooks take from "
        "the repository)",
    )
    scope.add_argument(
        "--user",
        action="store_true",
        help="every project of this user: ~/.claude/settings.json and ~/.claude.json",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="show the changes (a diff) without writing them"
    )
    add_json_flag(parser)


def register(sub):
    p = add_command(
        sub,
        "claude",
        help="set up Claude Code: lifecycle hooks and the MCP server",
        description=(
            "Claude Code integration. `mnemosyne claude install` registers the lifecycle hooks\n"
            "(`mnemosyne hook EVENT`) and the MCP server (mnemosyne-mcp) in Claude Code's\n"
            "settings, for one project (default) or for the user; `uninstall` removes exactly\n"
            "that. `plugin-path` prints the folder of the Claude Code plugin that ships the\n"
            "same hooks and server. Use one or the other, not both."
        ),
        examples=[
            "mnemosyne --vault ~/notes claude install",
            "mnemosyne claude install --user --vault ~/notes --dry-run",
            'claude plugin marketplace add "$(mnemosyne claude plugin-path)"',
        ],
    )
    actions = p.add_subparsers(dest="claude_action", metavar="ACTION")
    install_parser = add_command(
        actions,
        "install",
        help="register the hooks and the MCP server in Claude Code's settings",
        description=(
            "Register the hooks (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse,\n"
            "PostToolUseFailure, PreCompact, SessionEnd) and the `mnemosyne` MCP server.\n"
            "Project scope (default): DIR/.claude/settings.json and DIR/.mcp.json; --user:\n"
            "~/.claude/settings.json and ~/.claude.json (only its mcpServers key changes).\n"
            "Safe to repeat; other hooks and servers are left as they are. With --vault (before\n"
            "or after the command) the hooks and the server use that vault; without it they\n"
            "look it up when they run ($MNEMOSYNE_VAULT, else ~/.birkin-mnemosyne/vault)."
        ),
        examples=[
            "mnemosyne claude install --vault ~/notes",
            "mnemosyne claude install --project-dir ~/src/api --dry-run",
            "mnemosyne --vault ~/notes claude install --user --json",
        ],
    )
    _add_scope(install_parser)
    install_parser.add_argument(
        "--vault",
        metavar="PATH",
        dest="claude_vault",
        help="the vault the hooks and the server use (default: none recorded)",
    )
    install_parser.set_defaults(handler=run_install)
    uninstall_parser = add_command(
        actions,
        "uninstall",
        help="remove the hooks and the MCP server that install registered",
        description=(
            "Remove exactly what `mnemosyne claude install` registered (whatever vault it\n"
            "named): our hook handlers and the `mnemosyne` server. Other hooks and servers,\n"
            "and a `mnemosyne` hook written by hand another way, are left as they are."
        ),
        examples=[
            "mnemosyne claude uninstall",
            "mnemosyne claude uninstall --user --dry-run",
        ],
    )
    _add_scope(uninstall_parser)
    uninstall_parser.set_defaults(handler=run_uninstall)
    plugin_parser = add_command(
        actions,
        "plugin-path",
        help="print the folder of the shipped Claude Code plugin",
        description=(
            "Print the folder of the Claude Code plugin shipped in this package (its hooks\n"
            "and MCP server run `python3`, which must import birkin_mnemosyne). It is also a\n"
            'one-plugin marketplace. The vault: $MNEMOSYNE_VAULT (e.g. in the "env" of\n'
            "Claude Code's settings.json), else ~/.birkin-mnemosyne/vault."
        ),
        examples=[
            'claude plugin marketplace add "$(mnemosyne claude plugin-path)" && '
            "claude plugin install mnemosyne@birkin-mnemosyne",
            'claude --plugin-dir "$(mnemosyne claude plugin-path)"',
        ],
    )
    add_json_flag(plugin_parser)
    plugin_parser.set_defaults(handler=run_plugin_path)
    p.set_defaults(handler=run_without_action)
    return p


def run_without_action(args) -> int:
    raise CommandError(
        "choose an action: install, uninstall or plugin-path — see `mnemosyne claude --help`"
    )


def _scope(args) -> tuple[str, str | None]:
    if args.user:
        return "user", None
    return "project", str(expand(args.project)) if args.project else None


def _recorded_vault(args) -> Path | None:
    """The vault to write into the hooks: ``install --vault``, else a global ``--vault``.

    ``main`` hands every command the vault already looked up, so a global ``--vault`` is
    told apart by naming another folder than the lookup without it would (one naming
    that same folder changes nothing now, and the hooks look it up the same way).
    """
    if args.claude_vault:
        return expand(args.claude_vault)
    from .main import resolve_vault  # main imports this module: import when run

    given = Path(os.path.abspath(args.vault))
    return None if given == Path(os.path.abspath(resolve_vault(None))) else given


def run_install(args) -> int:
    scope, project = _scope(args)
    vault = _recorded_vault(args)
    result = install(scope, project_dir=project, vault=vault, dry_run=args.dry_run)
    return _report(args, result)


def run_uninstall(args) -> int:
    scope, project = _scope(args)
    result = uninstall(scope, project_dir=project, dry_run=args.dry_run)
    return _report(args, result)


def _report(args, result: dict) -> int:
    if args.json:
        print_json(result)
        return 0
    out = sys.stdout
    what = "the mnemosyne hooks and MCP server"
    if result["dry_run"]:
        out.write(f"dry run of {result['action']} ({result['scope']} scope), nothing written:\n")
    else:
        done = _DONE[(result["action"], result["state"])]
        out.write(f"{done} {what} ({result['scope']} scope)\n")
    for file in result["files"]:
        verb = _WOULD[file["state"]] if result["dry_run"] else file["state"]
        entries = [
            *(f"+{e}" for e in file["added"]),
            *(f"~{e}" for e in file["updated"]),
            *(f"-{e}" for e in file["removed"]),
        ]
        detail = f": {', '.join(entries)}" if entries else ""
        out.write(f"  {verb} {file['path']}{detail}\n")
    if result["vault"]:
        out.write(f"vault: {result['vault']}\n")
    if result["dry_run"]:
        for file in result["files"]:
            out.write(file["diff"])
    elif result["next_steps"] and result["state"] != "unchanged":
        out.write("next:\n")
        for step in result["next_steps"]:
            out.write(f"  {step}\n")
    for warning in result["warnings"]:
        print(f"mnemosyne: warning: {warning}", file=sys.stderr)
    return 0


def run_plugin_path(args) -> int:
    if args.json:
        print_json({"plugin_dir": str(PLUGIN_DIR), "marketplace": "birkin-mnemosyne"})
    else:
        print(PLUGIN_DIR)
    return 0


REGISTER = (register,)
