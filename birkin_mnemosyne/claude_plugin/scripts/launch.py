"""Start birkin-mnemosyne for the Claude Code plugin: ``launch.py hook EVENT`` or
``launch.py mcp [OPTIONS]``.

Claude Code runs this with ``python3`` (hooks/hooks.json, .mcp.json). The library is
taken from the package this plugin folder sits in, when it sits in one (the folder
``mnemosyne claude plugin-path`` prints), else from the Python that runs this. Standard
library only, and it must start on any Python 3: the library itself needs 3.10.

A hook fails open: whatever goes wrong, one line on stderr and exit 0 (Claude Code
reads exit 2 as "block"). The MCP server reports a failure to start with exit 2.
"""

import sys
from pathlib import Path

USAGE = "usage: launch.py hook EVENT | launch.py mcp [OPTIONS]"
INSTALL_HINT = (
    'install it for this Python: python3 -m pip install "birkin-mnemosyne[mcp]" '
    "(or pip install -e <checkout>)"
)


def _use_enclosing_package():
    """Put the folder holding ``birkin_mnemosyne/`` first on the path when this plugin is
    ``birkin_mnemosyne/claude_plugin/`` (then the library matches this plugin's files)."""
    package = Path(__file__).resolve().parent.parent.parent
    if package.name == "birkin_mnemosyne" and (package / "__init__.py").is_file():
        sys.path.insert(0, str(package.parent))


def _import_failure(exc):
    return (
        f"mnemosyne plugin: cannot import birkin_mnemosyne with {sys.executable} "
        f"({type(exc).__name__}: {exc}) — {INSTALL_HINT}"
    )


def run_hook(event):
    try:
        _use_enclosing_package()
        from birkin_mnemosyne.cli import main
    except Exception as exc:  # fail open: no memory is better than a blocked session
        print(_import_failure(exc), file=sys.stderr)
        return 0
    try:
        main(["hook", event])
    except Exception as exc:  # the hook fails open by itself; this is the last guard
        print(f"mnemosyne plugin: hook {event} failed: {exc}", file=sys.stderr)
    return 0


def run_server(options):
    try:
        _use_enclosing_package()
        from birkin_mnemosyne.mcp_main import main
    except Exception as exc:
        print(_import_failure(exc), file=sys.stderr)
        return 2
    return main(options)


def main(argv):
    if len(argv) == 2 and argv[0] == "hook":
        return run_hook(argv[1])
    if argv and argv[0] == "mcp":
        return run_server(argv[1:])
    print(f"mnemosyne plugin: {USAGE}", file=sys.stderr)
    # A hook with bad arguments still fails open; anything else is a usage error.
    return 0 if argv and argv[0] == "hook" else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
