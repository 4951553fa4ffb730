"""``mnemosyne-mcp`` as a real process: stdio driven by the SDK's stdio client, and
streamable HTTP on loopback with a bearer token."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason='the MCP server needs the extra: pip install -e ".[mcp]"')

import anyio  # noqa: E402  (comes with mcp)
import httpx2  # noqa: E402  (the SDK's HTTP client, comes with mcp)
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

from birkin_mnemosyne.mcp_server import DEFAULT_TOOLS, TOOL_SETS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
LAUNCHER = [sys.executable, "-m", "birkin_mnemosyne.mcp_main"]  # what the script runs
TOKEN = "test-token-7f3a9c1e5b2d4f60"
WAIT = 60  # seconds: an upper bound for slow CI machines, never a measured duration


@pytest.fixture
def notes(vault):
    vault.write(
        "ops/postgres-restore.md",
        "# Restore PostgreSQL\n\nRun pg_restore --jobs=4 into a scratch database.\n",
    )
    vault.write("hosts/db1.md", "# db1\n\nPrimary PostgreSQL host.\n")
    return vault


def _text(result) -> str:
    return result.content[0].text


def test_stdio_end_to_end(notes, tmp_path):
    errlog_path = tmp_path / "server-stderr.txt"
    params = StdioServerParameters(
        command=LAUNCHER[0], args=[*LAUNCHER[1:], "--vault", str(notes.root), "-v"], cwd=ROOT
    )

    async def scenario():
        with errlog_path.open("w", encoding="utf-8") as errlog, anyio.fail_after(WAIT):
            async with Client(stdio_client(params, errlog=errlog)) as client:
                assert client.server_info.name == "birkin-mnemosyne"
                assert "Search before answering" in client.instructions
                tools = {tool.name: tool for tool in (await client.list_tools()).tools}
                search = await client.call_tool(
                    "memory_search", {"query": "restore postgres database"}
                )
                created = await client.call_tool(
                    "memory_remember",
                    {"title": "Vacuum schedule", "body": "VACUUM ANALYZE nightly at 02:00."},
                )
                conflict = await client.call_tool(
                    "memory_remember", {"title": "Vacuum schedule", "body": "Again."}
                )
                got = await client.call_tool("memory_get_note", {"key": "vacuum-schedule"})
                return tools, search, created, conflict, got

    tools, search, created, conflict, got = anyio.run(scenario)
    assert list(tools) == list(DEFAULT_TOOLS)  # the compact set unless asked for more
    assert tools["memory_search"].input_schema["required"] == ["query"]
    assert tools["memory_search"].output_schema is None
    assert tools["memory_get_note"].annotations.read_only_hint is True
    assert not search.is_error
    assert search.structured_content["hits"][0]["key"] == "postgres-restore"
    assert not created.is_error and created.structured_content["created"] is True
    assert conflict.is_error and "already exists" in _text(conflict)
    refusal = conflict.structured_content  # the error shape, over the wire
    assert refusal["error_type"] == "NoteExistsError" and refusal["key"] == "vacuum-schedule"
    assert refusal["version"] == created.structured_content["version"]
    assert "memory_remember (mode='append')" in refusal["hint"]
    assert not got.is_error
    assert got.structured_content["version"] == created.structured_content["version"]
    assert got.structured_content["text"].startswith("VACUUM ANALYZE")
    assert (notes.root / "vacuum-schedule.md").exists()
    log = errlog_path.read_text(encoding="utf-8")
    assert "over stdio" in log and "default tools" in log  # logs go to stderr
    assert "tool memory_remember failed: NoteExistsError" in log  # -v logs a failed call


def test_stdout_carries_only_protocol(notes):
    """One raw JSON-RPC exchange: every stdout line is JSON, the log line is on stderr."""
    proc = subprocess.Popen(
        [*LAUNCHER, "--vault", str(notes.root), "-v"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        request = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "0"},
            },
        }
        proc.stdin.write(json.dumps(request) + "\n")
        proc.stdin.flush()
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()))
        reader.start()
        reader.join(WAIT)
        assert lines and lines[0], "no answer to initialize"
        answer = json.loads(lines[0])
        assert answer["id"] == 1 and answer["result"]["serverInfo"]["name"] == "birkin-mnemosyne"
        rest, err = proc.communicate(timeout=WAIT)  # closes stdin: end of input ends it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert all(json.loads(line) for line in rest.splitlines() if line.strip())
    assert "serving" in err and "over stdio" in err


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(proc: subprocess.Popen, port: int) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"the server exited: {proc.stderr.read()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"the server did not listen on port {port} within {WAIT} s")


def _post(url: str, headers: dict) -> tuple[int, dict]:
    request = urllib.request.Request(
        url,
        data=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).encode(),
        headers={"Content-Type": "application/json", **headers},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=WAIT) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers)


def test_http_needs_the_bearer_token(notes, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n", encoding="utf-8")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    proc = subprocess.Popen(
        [
            *LAUNCHER,
            "--vault",
            str(notes.root),
            "--http",
            f"127.0.0.1:{port}",
            "--token-file",
            str(token_file),
            "--tools",
            "full",
        ],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for_port(proc, port)
        status, headers = _post(url, {})
        assert status == 401
        assert headers.get("www-authenticate", headers.get("WWW-Authenticate", "")).startswith(
            "Bearer"
        )
        assert _post(url, {"Authorization": "Bearer wrong-token-0123456789"})[0] == 401
        assert _post(url, {"Authorization": TOKEN})[0] == 401  # the scheme is required

        async def scenario():
            with anyio.fail_after(WAIT):
                http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"})
                async with http, Client(streamable_http_client(url, http_client=http)) as client:
                    tools = await client.list_tools()
                    result = await client.call_tool("memory_search", {"query": "restore"})
                    return tools, result

        tools, result = anyio.run(scenario)
        assert [tool.name for tool in tools.tools] == list(TOOL_SETS["full"])
        assert tools.tools[0].output_schema  # the full set publishes output schemas
        assert not result.is_error
        assert result.structured_content["hits"][0]["key"] == "postgres-restore"
    finally:
        proc.terminate()
        try:
            _, err = proc.communicate(timeout=WAIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
    assert f"http://127.0.0.1:{port}/mcp (bearer token required)" in err
