"""Secrets and undo: does any door serve a planted secret verbatim, and does undo put a
replaced note back byte for byte?

Usage::

    python benchmarks/reliability/secrets_and_undo.py [--notes 40] [--undo 50]
        [--seed 15] [--workdir DIR] [--json OUT]

Part 1, secrets. A vault of ``--notes`` generated filler notes gets planted secrets of
every shape people paste (a vendor prefix glued to hex, ``whsec_``, ``glpat-``, ``hf_``,
``sk-proj-``, ``xoxb-``, ``rk_live_``, ``ghp_``, ``export X_PASSWORD=…``,
``export FOO_TOKEN=…``, a ``password:`` pair, a DSN password), each one in a note
heading, a note body, a ``MEMORY.md`` line (imported as INDEX routes), a registered
INDEX trigger, a handbook heading that is split into routed topic notes, and the fields
of a handoff. Every secret is random (seeded) and long, so finding its exact text in an
output means it was served verbatim. Then every door is read:

* ``python``: ``VaultMemory`` search / get_note / list / status / digest / journal,
  ``MemoryIndex`` render / read(topic) / routes / check / open, ``StartupReader.read``,
  ``HandoffStore`` latest / resume;
* ``cli``: the same reads through ``mnemosyne ... --json`` (in process, stdout and
  stderr);
* ``mcp``: the MCP tools and the ``mnemosyne://index``, ``mnemosyne://digest`` and
  ``mnemosyne://note/{key}`` resources, in process (skipped without the ``mcp`` extra);
* ``hermes``: the Hermes provider's prefetch, system prompt block and tools (skipped
  when ``agent.memory_provider`` does not import);
* ``files``: the names and contents of every file under ``.mnemosyne/memory-index/``
  and ``.mnemosyne/handoffs/``, and the path of every note (split parts are named after
  headings).

The caller's own words are not counted: the ``query`` field of a search response echoes
what was asked, and ``absence_note`` / ``signals.missing_names`` name the query words the
vault never mentions (secrets are also used as queries, to check they find nothing).
It prints, per door, how many outputs were read and how many planted secrets appeared
verbatim in them. Every figure must be 0.

Part 2, undo. ``--undo`` runbook notes of about 2.3 KB each; for every one: archive an
unrelated scratch note (the incident: ``undo --last`` undid an archive instead of the
write), ``replace`` the runbook's body with "oops", then ``undo(last=True,
kind="write")`` and compare the bytes with the original. It also checks that each undo
named the replace, that an undo is refused when the note was edited by hand after the
write (``UndoConflictError``) and that an ``append`` and a ``create`` are undone too.
Figures: byte-exact restores N/N, refusals after a later edit N/N.

Exit status: 0 when every figure is as it must be, 1 otherwise.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import string
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from birkin_mnemosyne.errors import MnemosyneError, UndoConflictError  # noqa: E402
from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore  # noqa: E402
from birkin_mnemosyne.memory import VaultMemory  # noqa: E402
from birkin_mnemosyne.memory_index import MemoryIndex  # noqa: E402
from birkin_mnemosyne.startup import StartupReader  # noqa: E402

BASE62 = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
PROJECT = "atlas"
WORDS = [
    *("replica", "lag", "failover", "backup", "restore", "kafka", "topic", "retention"),
    *("nginx", "reload", "certificate", "rotation", "postgres", "vacuum", "deploy"),
    *("staging", "canary", "rollback", "monitor", "alert", "runbook", "owner", "billing"),
]


def _run(rng: random.Random, alphabet: str, size: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(size))


def make_secrets(rng: random.Random) -> list[dict]:
    """Each planted secret: ``text`` as written in a note, ``secret`` the part that must
    never be served, ``shape`` its name. Built at run time: the repository holds none."""

    def keyed(text: str, secret: str, shape: str) -> dict:
        return {"shape": shape, "text": text, "secret": secret}

    def token(shape: str, value: str) -> dict:
        return keyed(value, value, shape)

    password = "Pw" + _run(rng, BASE62, 18)
    dsn_password = "Db" + _run(rng, BASE62, 18)
    env_password = "Ex" + _run(rng, BASE62, 18)
    env_token = "Ft" + _run(rng, BASE62, 18)
    return [
        token("tk_ + 40 hex", "tk_" + _run(rng, HEX, 40)),
        token("whsec_", "whsec_" + _run(rng, BASE62, 32)),
        token("glpat-", "glpat-" + _run(rng, BASE62, 20)),
        token("hf_", "hf_" + _run(rng, string.ascii_letters, 34)),
        token("sk-proj-", "sk-proj-" + _run(rng, BASE62, 48)),
        token(
            "xoxb-",
            "xoxb-"
            + _run(rng, string.digits, 11)
            + "-"
            + _run(rng, string.digits, 13)
            + "-"
            + _run(rng, BASE62, 24),
        ),
        token("rk_live_", "rk_live_" + _run(rng, BASE62, 24)),
        token("ghp_", "ghp_" + _run(rng, BASE62, 36)),
        keyed(f"export X_PASSWORD={env_password}", env_password, "export X_PASSWORD="),
        keyed(f"export FOO_TOKEN={env_token}", env_token, "export FOO_TOKEN="),
        keyed(f"password: {password}", password, "password: pair"),
        keyed(f"postgres://app:{dsn_password}@db1:5432/atlas", dsn_password, "DSN password"),
    ]


def build_vault(root: Path, notes: int, planted: list[dict], rng: random.Random) -> None:
    """Filler notes, one note per secret, a handbook to split, MEMORY.md, a handoff."""
    for number in range(notes):
        words = " ".join(rng.choice(WORDS) for _ in range(60))
        zone = ("ops", "projects", "people", "")[number % 4]
        path = root / zone / f"note-{number:04d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# Note {number} about {WORDS[number % len(WORDS)]}\n\n{words}\n")
    (root / "secrets").mkdir(exist_ok=True)
    handbook = ["# Credentials handbook", "", "Where each credential is used.", ""]
    memory_md = []
    for number, item in enumerate(planted):
        (root / "secrets" / f"s{number:02d}.md").write_text(
            f"# Deploy credential {number}\n\n## Rotate {item['text']}\n\n"
            f"The deploy bot uses {item['text']} for staging.\n\n"
            f"```sh\n{item['text']}\n```\n"
        )
        handbook += [f"## Used by {item['text']}", "", f"Rotate it monthly. {number}", ""]
        memory_md.append(f"- [Deploy {item['text']}](secrets/s{number:02d}.md) — {item['text']}")
    (root / "ops").mkdir(exist_ok=True)
    (root / "ops" / "handbook.md").write_text("\n".join(handbook))
    (root / "MEMORY.md").write_text("\n".join(memory_md) + "\n")

    index = MemoryIndex(root)
    for number, item in enumerate(planted):
        index.register(f"deploying with {item['text']}", f"secrets/s{number:02d}.md")
    index.import_memory_md(apply=True)
    index.split("ops/handbook.md", apply=True)
    handoffs = HandoffStore(root)
    texts = [item["text"] for item in planted]
    handoffs.capture(
        HandoffScope(PROJECT),
        {
            "work_done": "rotated " + "; ".join(texts[:4]),
            "decisions": texts[4:8],
            "open_items": texts[8:],
            "next_step": f"revoke {texts[0]}",
        },
    )


def _count(outputs: list[str], planted: list[dict]) -> int:
    """How many (output, secret) pairs show a secret verbatim."""
    return sum(item["secret"] in text for text in outputs for item in planted)


def _drop_echo(response: dict) -> dict:
    """A search response without the caller's own words (see the module docstring)."""
    response.pop("query", None)
    response.pop("absence_note", None)
    if isinstance(response.get("signals"), dict):
        response["signals"].pop("missing_names", None)
    return response


def _queries(planted: list[dict]) -> list[str]:
    return ["deploy credential", "rotate", "password", "staging", "token"] + [
        item["secret"][:200] for item in planted
    ]


def python_door(root: Path, planted: list[dict]) -> list[str]:
    outputs = []
    with VaultMemory(root) as memory:
        for query in _queries(planted):
            response = _drop_echo(memory.search_response(query, 10))
            outputs.append(json.dumps(response, ensure_ascii=False))
        listed = memory.list_notes(limit=200)
        outputs.append(json.dumps(listed, ensure_ascii=False))
        for row in listed["notes"]:
            outputs.append(json.dumps(memory.get_note(row["key"]), ensure_ascii=False))
        outputs.append(json.dumps(memory.status(), ensure_ascii=False, default=str))
        outputs.append(json.dumps(memory.journal(100), ensure_ascii=False))
        with contextlib.suppress(AttributeError):
            outputs.append(str(memory.render_digest()))
    index = MemoryIndex(root)
    outputs += [json.dumps(x, ensure_ascii=False) for x in (index.render(), index.routes())]
    outputs.append(json.dumps(index.render(budget_tokens=50), ensure_ascii=False))
    outputs.append(json.dumps(index.check(), ensure_ascii=False))
    for topic in index.render()["topics"]:
        outputs.append(json.dumps(index.read(topic), ensure_ascii=False))
    for item in planted:
        outputs.append(json.dumps(index.open(f"deploying with {item['text']}"), ensure_ascii=False))
    reader = StartupReader(root)
    bundle = reader.read(
        [f"secrets/s{n:02d}.md" for n in range(len(planted))],
        task="deploy credential rotate staging",
        project_key=PROJECT,
    )
    outputs.append(json.dumps(bundle, ensure_ascii=False))
    store = HandoffStore(root)
    outputs.append(json.dumps(store.latest(HandoffScope(PROJECT)), ensure_ascii=False))
    outputs.append(json.dumps(store.resume(HandoffScope(PROJECT)), ensure_ascii=False))
    return outputs


def cli_door(root: Path, planted: list[dict]) -> list[str]:
    from birkin_mnemosyne.cli.main import main

    def run(*argv: str) -> str:
        out, err = io.StringIO(), io.StringIO()
        with (
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(err),
            contextlib.suppress(SystemExit),
        ):
            main(["--vault", str(root), *argv])
        text = out.getvalue()
        if argv[0] == "search" and text.strip().startswith("{"):
            response = _drop_echo(json.loads(text))
            text = json.dumps(response, ensure_ascii=False)
        return text + err.getvalue()

    outputs = [run("search", query, "--json") for query in _queries(planted)]
    listed = run("list", "--limit", "200", "--json")
    outputs.append(listed)
    for row in json.loads(listed)["notes"]:
        outputs.append(run("show", row["key"], "--json"))
    outputs += [
        run("status", "--json"),
        run("digest", "--json"),
        run("journal", "--limit", "100", "--json"),
        run("index", "read", "--json"),
        run("index", "check", "--json"),
        run("startup", "secrets/s00.md", "--task", "deploy", "--project", PROJECT, "--json"),
        run("handoff", "latest", "--project", PROJECT, "--json"),
        run("handoff", "resume", "--project", PROJECT, "--json"),
    ]
    for item in planted:
        outputs.append(run("index", "open", f"deploying with {item['text']}", "--json"))
    return outputs


def mcp_door(root: Path, planted: list[dict]) -> list[str] | None:
    try:
        import anyio
        from mcp import Client

        from birkin_mnemosyne.mcp_server import build_server
    except ImportError:
        return None

    async def body(client) -> list[str]:
        texts = []

        async def tool(name: str, arguments: dict) -> dict:
            result = await client.call_tool(name, arguments)
            text = result.content[0].text if result.content else ""
            texts.append(text)
            return json.loads(text) if not result.is_error else {}

        for query in _queries(planted):
            result = await client.call_tool("memory_search", {"query": query})
            response = _drop_echo(dict(result.structured_content or {}))
            texts.append(json.dumps(response, ensure_ascii=False))
        listed = await tool("memory_list", {"limit": 200})
        for row in listed.get("notes", []):
            await tool("memory_get_note", {"key": row["key"]})
            resource = await client.read_resource(f"mnemosyne://note/{row['key']}")
            texts += [content.text for content in resource.contents]
        await tool("memory_status", {})
        await tool("memory_undo", {"limit": 100})
        await tool("memory_index_read", {})
        await tool("memory_index_check", {})
        for item in planted:
            await tool("memory_open_trigger", {"trigger": f"deploying with {item['text']}"})
        await tool(
            "memory_startup_read",
            {"paths": ["secrets/s00.md"], "task": "deploy", "project_key": PROJECT},
        )
        await tool("memory_handoff_read", {"project_key": PROJECT})
        for uri in ("mnemosyne://index", "mnemosyne://digest"):
            resource = await client.read_resource(uri)
            texts += [content.text for content in resource.contents]
        return texts

    async def main() -> list[str]:
        with VaultMemory(root) as memory:
            async with Client(build_server(memory)) as client:
                return await body(client)

    return anyio.run(main)


def hermes_door(root: Path, planted: list[dict], workdir: Path) -> list[str] | None:
    try:
        import agent.memory_provider  # noqa: F401

        from birkin_mnemosyne.hermes_plugin import MnemosyneMemoryProvider
    except ImportError:
        return None
    home = workdir / "hermes-home"
    home.mkdir(exist_ok=True)
    provider = MnemosyneMemoryProvider(config={"vault": str(root), "project_key": PROJECT})
    provider.initialize("bench", hermes_home=str(home), agent_context="primary")
    try:
        outputs = [provider.system_prompt_block()]
        for query in _queries(planted):
            outputs.append(provider.prefetch(f"how do we handle {query}"))
            found = _drop_echo(
                json.loads(provider.handle_tool_call("mnemosyne_search", {"query": query}))
            )
            outputs.append(json.dumps(found, ensure_ascii=False))
        for number in range(len(planted)):
            key = f"s{number:02d}"
            outputs.append(provider.handle_tool_call("mnemosyne_get", {"key": key}))
        outputs.append(provider.on_pre_compress([{"role": "user", "content": "deploy"}]))
    finally:
        provider.shutdown()
    return outputs


def files_door(root: Path) -> list[str]:
    outputs = []
    for folder in (root / ".mnemosyne" / "memory-index", root / ".mnemosyne" / "handoffs"):
        for file in sorted(folder.rglob("*")):
            outputs.append(str(file.relative_to(root)))
            if file.is_file():
                outputs.append(file.read_bytes().decode("utf-8", "replace"))
    outputs += [str(p.relative_to(root)) for p in root.rglob("*.md")]
    return outputs


def secrets_part(workdir: Path, notes: int, seed: int) -> dict:
    rng = random.Random(seed)
    planted = make_secrets(rng)
    root = workdir / "secrets-vault"
    root.mkdir(parents=True)
    build_vault(root, notes, planted, rng)
    doors = {
        "python": python_door(root, planted),
        "cli": cli_door(root, planted),
        "mcp": mcp_door(root, planted),
        "hermes": hermes_door(root, planted, workdir),
        "files": files_door(root),
    }
    rows = {}
    for name, outputs in doors.items():
        if outputs is None:
            rows[name] = {"skipped": True}
            continue
        leaked = sorted(
            {item["shape"] for item in planted for text in outputs if item["secret"] in text}
        )
        rows[name] = {
            "outputs": len(outputs),
            "verbatim": _count(outputs, planted),
            "shapes": leaked,
        }
    return {"planted": len(planted), "shapes": [p["shape"] for p in planted], "doors": rows}


RUNBOOK_LINE = "Check the replica lag on {host} before failing over; page the owner.\n"


def undo_part(workdir: Path, count: int, seed: int) -> dict:
    rng = random.Random(seed)
    root = workdir / "undo-vault"
    (root / "ops").mkdir(parents=True)
    originals = {}
    for number in range(count):
        lines = [RUNBOOK_LINE.format(host=f"db{rng.randrange(100)}") for _ in range(32)]
        text = f"---\ntitle: Runbook {number}\n---\n# Runbook {number}\n\n" + "".join(lines)
        path = f"ops/runbook-{number:04d}.md"
        (root / path).write_bytes(text.encode("utf-8"))
        originals[path] = text.encode("utf-8")
        (root / f"scratch-{number:04d}.md").write_text(f"# Scratch {number}\n")
    exact = named = refused = 0
    started = time.perf_counter()
    with VaultMemory(root) as memory:
        for number, (path, original) in enumerate(originals.items()):
            memory.forget(f"scratch-{number:04d}", confirm=True)  # an unrelated journaled move
            version = memory.get_note(path)["version"]
            replaced = memory.write_note(path, "oops", mode="replace", expected_version=version)
            preview = memory.undo(last=True, kind="write", confirm=False)
            undone = memory.undo(last=True, kind="write")
            named += preview["transaction_id"] == undone["transaction_id"] == replaced[
                "transaction_id"
            ] and undone["description"].startswith(f"replace of {path}")
            exact += (root / path).read_bytes() == original
            # A later hand edit must make the undo refuse, leaving the edit in place.
            again = memory.write_note(path, "second thoughts", mode="append")
            edited = (root / path).read_bytes() + b"edited by hand\n"
            (root / path).write_bytes(edited)
            try:
                memory.undo(again["transaction_id"])
            except UndoConflictError:
                refused += (root / path).read_bytes() == edited
            (root / path).write_bytes(original)  # the harness puts the original back
        created = memory.write_note("Brand new", "text")
        memory.undo(created["transaction_id"])
        create_undone = not (root / created["path"]).exists()
    seconds = time.perf_counter() - started
    return {
        "notes": count,
        "note_bytes": round(sum(map(len, originals.values())) / max(count, 1)),
        "byte_exact_restores": exact,
        "undo_named_the_replace": named,
        "refused_after_a_later_edit": refused,
        "create_undone": create_undone,
        "seconds": round(seconds, 2),
    }


def report(result: dict) -> bool:
    secrets, undo = result["secrets"], result["undo"]
    print(f"planted {secrets['planted']} secrets: {', '.join(secrets['shapes'])}")
    print("| door | outputs read | served verbatim |")
    print("|---|---:|---:|")
    good = True
    for door, row in secrets["doors"].items():
        if row.get("skipped"):
            print(f"| {door} | skipped (not importable) | - |")
            continue
        shapes = f" ({', '.join(row['shapes'])})" if row["shapes"] else ""
        print(f"| {door} | {row['outputs']} | {row['verbatim']}{shapes} |")
        good &= row["verbatim"] == 0
    n = undo["notes"]
    print(
        f"undo: {undo['byte_exact_restores']}/{n} byte-exact restores of ~{undo['note_bytes']} "
        f"B runbooks replaced with 'oops' (undo --last --kind write, after an unrelated "
        f"archive); {undo['undo_named_the_replace']}/{n} named the replace; "
        f"{undo['refused_after_a_later_edit']}/{n} refused after a later edit; create undone: "
        f"{undo['create_undone']}; {undo['seconds']} s"
    )
    good &= undo["byte_exact_restores"] == n == undo["undo_named_the_replace"]
    good &= undo["refused_after_a_later_edit"] == n and undo["create_undone"]
    return good


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=40, help="filler notes (default 40)")
    parser.add_argument("--undo", type=int, default=50, help="runbooks to replace and undo")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--workdir", type=Path, help="where the vaults go (default: a temp dir)")
    parser.add_argument("--json", type=Path, metavar="OUT", help="also write the figures here")
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        workdir = args.workdir or Path(stack.enter_context(tempfile.TemporaryDirectory()))
        workdir.mkdir(parents=True, exist_ok=True)
        try:
            result = {
                "secrets": secrets_part(workdir, args.notes, args.seed),
                "undo": undo_part(workdir, args.undo, args.seed),
            }
        except MnemosyneError as exc:
            print(f"secrets_and_undo: {exc}", file=sys.stderr)
            return 1
        good = report(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
