"""``mnemosyne hermes install``: put the Hermes Agent memory provider in place.

One library call (``hermes_install.install_plugin``); no vault is opened. The provider
itself is ``birkin_mnemosyne.hermes_plugin`` (see docs/how-to/hermes.md).
"""

from __future__ import annotations

import sys

from ..hermes_install import DEFAULT_NAME, install_plugin
from .common import CommandError, add_command, add_json_flag
from .output import print_json

_DONE = {
    "installed": "installed",
    "updated": "updated",
    "unchanged": "already up to date:",
    "replaced": "replaced the folder's old contents with",
}


def register(sub):
    p = add_command(
        sub,
        "hermes",
        help="set up the Hermes Agent memory provider",
        description=(
            "Hermes Agent integration. `mnemosyne hermes install` copies the memory provider\n"
            "plugin (__init__.py, plugin.yaml) into $HERMES_HOME/plugins/NAME/; then\n"
            "`hermes config set memory.provider NAME` selects it. Options of install:\n"
            "--hermes-home DIR, --name NAME, --force, --json (see `mnemosyne hermes install\n"
            "--help`)."
        ),
        examples=[
            "mnemosyne hermes install && hermes config set memory.provider mnemosyne",
            "mnemosyne hermes install --hermes-home ~/.hermes/profiles/coder --json",
        ],
    )
    actions = p.add_subparsers(dest="hermes_action", metavar="ACTION")
    install = add_command(
        actions,
        "install",
        help="copy the memory provider plugin into Hermes's plugins folder",
        description=(
            "Copy the plugin into $HERMES_HOME/plugins/NAME/. Safe to repeat: an earlier copy\n"
            "is updated in place; a different plugin of that name is left alone unless --force.\n"
            "Install birkin-mnemosyne into the Python that runs Hermes too: the plugin imports it."
        ),
        examples=[
            "mnemosyne hermes install",
            "mnemosyne hermes install --hermes-home ~/.hermes/profiles/coder --name notes",
        ],
    )
    install.add_argument(
        "--hermes-home",
        metavar="DIR",
        help="Hermes's home folder (default: $HERMES_HOME, else ~/.hermes)",
    )
    install.add_argument(
        "--name",
        default=DEFAULT_NAME,
        help=f"plugin folder and memory.provider name (default {DEFAULT_NAME})",
    )
    install.add_argument(
        "--force",
        action="store_true",
        help="move a different plugin of that name aside to plugins/.NAME.replaced-TIME",
    )
    add_json_flag(install)
    install.set_defaults(handler=run_install)
    p.set_defaults(handler=run_without_action)
    return p


def run_without_action(args) -> int:
    raise CommandError("choose an action: install — see `mnemosyne hermes --help`")


def run_install(args) -> int:
    result = install_plugin(args.hermes_home, name=args.name, force=args.force)
    if args.json:
        print_json(result)
        return 0
    out = sys.stdout
    out.write(
        f"{_DONE[result['state']]} the {result['name']} memory provider in {result['plugin_dir']}\n"
    )
    if result["backup"]:
        out.write(f"the folder's previous contents are in {result['backup']}\n")
    out.write("next:\n")
    for step in result["next_steps"]:
        out.write(f"  {step}\n")
    out.write("  then start a new Hermes session\n")
    for warning in result["warnings"]:
        print(f"mnemosyne: warning: {warning}", file=sys.stderr)
    return 0


REGISTER = (register,)
