"""How much of a model's context the MCP server's tool list costs, per tool set.

Starts ``mnemosyne-mcp`` (``python -m birkin_mnemosyne.mcp_main``) over stdio once per
configuration, on a one-note scratch vault, and asks it for ``tools/list`` exactly as a
client does (``initialize``, ``notifications/initialized``, ``tools/list``). The size is
the UTF-8 bytes of the ``result`` object as compact JSON (the JSON-RPC envelope left
out), and tokens are bytes / 4, the estimate used everywhere in this project.

    python benchmarks/mcp/tool_list_size.py
    python benchmarks/mcp/tool_list_size.py --config "mine=--tools full --read-only" --json

It measures the package ``$PYTHONPATH`` names, else this checkout: to measure another
tree, e.g. the commit before a change, ``git archive COMMIT | tar -x -C /tmp/before``
and run with ``PYTHONPATH=/tmp/before``. Standard library only (the server it starts
needs the ``mcp`` extra). Figures: docs/reference/mcp.md#tool-sets.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {
    "default": "",
    "default --read-only": "--read-only",
    "full": "--tools full",
    "full --read-only": "--tools full --read-only",
}
WAIT = 120  # seconds for the server to answer: an upper bound, never a measurement
_MESSAGES = (
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "tool_list_size", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
)


def _exchange(argv: list[str], cwd: Path) -> dict:
    """The ``tools/list`` result of one server process."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            encoding="utf-8",
            cwd=cwd,  # not the checkout: $PYTHONPATH decides which package is measured
            env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH") or str(ROOT)},
        )
        answers: dict[int, dict] = {}

        def read() -> None:
            for line in proc.stdout:
                message = json.loads(line)
                if "id" in message:
                    answers[message["id"]] = message
                if 2 in answers:
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            for message in _MESSAGES:
                proc.stdin.write(json.dumps(message) + "\n")
                proc.stdin.flush()
            reader.join(WAIT)
        finally:
            proc.stdin.close()  # end of input: the server stops
            try:
                proc.wait(timeout=WAIT)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            reader.join(WAIT)
            proc.stdout.close()
        if 2 not in answers or "result" not in answers[2]:
            errors.seek(0)
            raise SystemExit(f"no tools/list answer from {' '.join(argv)}:\n{errors.read()}")
    return answers[2]["result"]


def measure(flags: str, vault: Path) -> dict:
    argv = [sys.executable, "-m", "birkin_mnemosyne.mcp_main", "--vault", str(vault)]
    result = _exchange([*argv, *shlex.split(flags)], vault.parent)
    size = len(json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))
    return {
        "flags": flags,
        "tools": len(result["tools"]),
        "bytes": size,
        "tokens": size // 4,
        "names": [tool["name"] for tool in result["tools"]],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--config",
        action="append",
        metavar="NAME=FLAGS",
        help="measure a server started with these mnemosyne-mcp flags (repeatable; "
        "default: the four tool-set configurations)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    configs = dict(CONFIGS)
    if args.config:
        configs = dict(item.partition("=")[::2] for item in args.config)
    with tempfile.TemporaryDirectory() as scratch:
        vault = Path(scratch) / "vault"
        vault.mkdir()
        (vault / "note.md").write_text("# A note\n\nSomething to index.\n", encoding="utf-8")
        rows = {name: measure(flags, vault) for name, flags in configs.items()}
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max(len(name) for name in rows)
    print(f"{'configuration':<{width}}  tools   bytes  tokens")
    for name, row in rows.items():
        print(f"{name:<{width}}  {row['tools']:>5}  {row['bytes']:>6}  {row['tokens']:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
