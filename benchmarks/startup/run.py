"""Startup benchmark: the resident INDEX and a whole startup bundle vs reading every note.

Generates a deterministic vault (``benchmarks/footprint/generate.py``), routes every note
by its title (through a ``MEMORY.md`` import, as a Claude Code vault would arrive), records
one handoff, then measures in estimated tokens (UTF-8 bytes / 4, ``markdown.estimate_tokens``):

* the resident INDEX (``MemoryIndex.render()`` at its default budget),
* the startup payload of ``StartupReader.read(task=...)`` for a few tasks (INDEX, latest
  handoff and every note whose trigger matches, each complete),
* reading every note in full — what an agent without an INDEX would have to load to be
  sure it missed nothing.

    python benchmarks/startup/run.py                # 250 notes, prints a Markdown table
    python benchmarks/startup/run.py --notes 1000 --json out.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from birkin_mnemosyne.discovery import discover  # noqa: E402
from birkin_mnemosyne.frontmatter import parse_frontmatter  # noqa: E402
from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore  # noqa: E402
from birkin_mnemosyne.markdown import estimate_tokens, parse_markdown  # noqa: E402
from birkin_mnemosyne.memory_index import MemoryIndex  # noqa: E402
from birkin_mnemosyne.startup import StartupReader  # noqa: E402

DEFAULT_NOTES = 250
SEED = 7
FIXED_TIME = 1_780_000_000.0  # handoff clock: the same bytes on every run
TASKS = 5


def _load_generator():
    path = ROOT / "benchmarks" / "footprint" / "generate.py"
    spec = importlib.util.spec_from_file_location("footprint_generate", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def _title(text: str, path: str) -> str:
    front = parse_frontmatter(text)
    title = front.data.get("title") if isinstance(front.data, dict) else None
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())[:200]
    h1 = parse_markdown(front.body).h1
    return " ".join((h1 or Path(path).stem.replace("-", " ")).split())[:200]


def measure(vault: Path, notes: int, seed: int = SEED) -> dict:
    """Generate the vault at ``vault`` and return the measurements."""
    _load_generator().generate_vault(vault, notes, seed=seed)
    paths = sorted(discover(vault))
    texts = {p: (vault / p).read_bytes().decode("utf-8", "replace") for p in paths}
    full_tokens = sum(estimate_tokens(t) for t in texts.values())
    lines = [f"- [{_title(texts[p], p)}](<{p}>)" for p in paths]
    (vault / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    index = MemoryIndex(vault)
    preview = index.import_memory_md()
    index.import_memory_md(apply=True, plan_id=preview["plan_id"])
    (vault / "MEMORY.md").unlink()  # scaffolding: the routes now live in the INDEX
    rendered = index.render()
    HandoffStore(vault, clock=lambda: FIXED_TIME).capture(
        HandoffScope("bench"),
        {"work_done": "Indexed the vault.", "next_step": "Answer the on-call question."},
        capture_id="bench-1",
    )
    routes = index.routes()
    step = max(1, len(routes) // TASKS)
    reader = StartupReader(vault, max_files=len(paths) + 1)
    tasks = []
    for route in routes[::step][:TASKS]:
        task = f"today: {route['trigger']}"
        bundle = reader.read([], task=task, project_key="bench")
        assert reader.verify(bundle)["exact"]
        tasks.append(
            {
                "task": task,
                "files": len(bundle["files"]),
                "estimated_tokens": bundle["estimated_tokens"],
            }
        )
    mean_startup = sum(t["estimated_tokens"] for t in tasks) / len(tasks)
    return {
        "notes": len(paths),
        "routes": len(routes),
        "index_mode": rendered["mode"],
        "index_tokens": rendered["estimated_tokens"],
        "index_budget": rendered["budget_tokens"],
        # the same routes as one flat list: what the topic map saves
        "flat_index_tokens": index.render(10**9)["estimated_tokens"],
        "full_read_tokens": full_tokens,
        "startup_tokens_mean": round(mean_startup, 1),
        "index_ratio": round(rendered["estimated_tokens"] / full_tokens, 5),
        "startup_ratio": round(mean_startup / full_tokens, 5),
        "tasks": tasks,
        "estimate": "UTF-8 bytes / 4",
    }


def table(result: dict) -> str:
    rows = [
        "| notes | routes | INDEX mode | INDEX tokens | startup tokens (mean) | full read "
        "tokens | INDEX / full | startup / full |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
        f"| {result['notes']} | {result['routes']} | {result['index_mode']} | "
        f"{result['index_tokens']} | {result['startup_tokens_mean']} | "
        f"{result['full_read_tokens']} | {result['index_ratio']:.2%} | "
        f"{result['startup_ratio']:.2%} |",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=DEFAULT_NOTES, help="vault size (>= 1)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workdir", help="where to generate the vault (default: a temp dir)")
    parser.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        result = measure(Path(tmp) / "vault", args.notes, args.seed)
    print(table(result))
    for task in result["tasks"]:
        print(f"- {task['task']!r}: {task['files']} files, {task['estimated_tokens']} tokens")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
