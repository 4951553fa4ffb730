"""Startup benchmark: the resident INDEX and a whole startup bundle vs reading every note.

Generates a deterministic vault (``benchmarks/footprint/generate.py``), routes every note
by its title (through a ``MEMORY.md`` import, as a Claude Code vault would arrive), records
one handoff, then measures in estimated tokens (UTF-8 bytes / 4, ``markdown.estimate_tokens``):

* the resident INDEX (``MemoryIndex.render()`` at its default budget),
* the startup payload of ``StartupReader.read(task=...)`` for a few tasks (INDEX, latest
  handoff and every note whose trigger matches, each complete),
* reading every note in full — what an agent without an INDEX would have to load to be
  sure it missed nothing.

It then runs the **task set** (``tasks.json``): hand-written INDEX routes and session
tasks — inflected and paraphrased English, German, Korean, Japanese, Chinese, and
negatives that share words with a trigger but are not its situation — each with the
routes a person would want delivered. Every task goes through
``StartupReader.read(task=...)``; a route is *delivered* when its note is in the bundle
as a trigger match, *missed* when it is expected but absent, *extra* when it is there but
not expected.

    python benchmarks/startup/run.py                # 250 notes, prints Markdown tables
    python benchmarks/startup/run.py --notes 1000 --json out.json

The package is this checkout's, unless ``PYTHONPATH`` names another checkout: then that
one is measured, e.g. ``PYTHONPATH=../main python benchmarks/startup/run.py`` for the
figures before a change.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TASK_SET = Path(__file__).resolve().parent / "tasks.json"
if not os.environ.get("PYTHONPATH"):
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
    # what matching the task against every route costs (median of the tasks, 3 runs each)
    timings = []
    for task in tasks:
        for _ in range(3):
            started = time.perf_counter()
            index.matching(task["task"])
            timings.append(time.perf_counter() - started)
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
        "matching_ms_median": round(statistics.median(timings) * 1000, 1),
        "index_ratio": round(rendered["estimated_tokens"] / full_tokens, 5),
        "startup_ratio": round(mean_startup / full_tokens, 5),
        "tasks": tasks,
        "estimate": "UTF-8 bytes / 4",
    }


def _note_text(route: dict) -> str:
    return f"# {route['trigger']}\n\nWhat to do when {route['trigger']}.\n"


def run_task_set(vault: Path, task_set: Path = TASK_SET) -> dict:
    """Route the task set's notes in a new vault at ``vault``; count deliveries per kind."""
    spec = json.loads(task_set.read_text(encoding="utf-8"))
    routes = {r["id"]: r for r in spec["routes"]}
    vault.mkdir(parents=True)
    index = MemoryIndex(vault)
    for route in routes.values():
        note = vault / route["path"]
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(_note_text(route), encoding="utf-8")
        index.register(route["trigger"], route["path"])
    by_path = {r["path"]: r["id"] for r in routes.values()}
    reader = StartupReader(vault, max_files=len(routes) + 1)
    kinds: dict[str, dict] = {}
    rows = []
    for case in spec["tasks"]:
        bundle = reader.read([], task=case["task"])
        got = {by_path[f["path"]] for f in bundle["files"] if f["reason"] == "trigger"}
        want = set(case["expect"])
        row = {
            "kind": case["kind"],
            "task": case["task"],
            "delivered": sorted(got & want),
            "missed": sorted(want - got),
            "extra": sorted(got - want),
        }
        rows.append(row)
        counts = kinds.setdefault(
            case["kind"], {"tasks": 0, "expected": 0, "delivered": 0, "missed": 0, "extra": 0}
        )
        counts["tasks"] += 1
        counts["expected"] += len(want)
        for name in ("delivered", "missed", "extra"):
            counts[name] += len(row[name])
    total = {
        name: sum(k[name] for k in kinds.values())
        for name in ("tasks", "expected", "delivered", "missed", "extra")
    }
    return {"routes": len(routes), "kinds": kinds, "total": total, "tasks": rows}


def task_table(result: dict) -> str:
    rows = [
        "| tasks | kind | expected routes | delivered | missed | extra |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for kind, c in [*result["kinds"].items(), ("**all**", result["total"])]:
        rows.append(
            f"| {c['tasks']} | {kind} | {c['expected']} | {c['delivered']} | {c['missed']} | "
            f"{c['extra']} |"
        )
    return "\n".join(rows)


def table(result: dict) -> str:
    rows = [
        "| notes | routes | INDEX mode | INDEX tokens | startup tokens (mean) | full read "
        "tokens | INDEX / full | startup / full |",
        "|---:|---:|---|---:|---:|---:|---:|---:|",
        f"| {result['notes']} | {result['routes']} | {result['index_mode']} | "
        f"{result['index_tokens']} | {result['startup_tokens_mean']} | "
        f"{result['full_read_tokens']} | {result['index_ratio']:.2%} | "
        f"{result['startup_ratio']:.2%} |",
        "",
        f"matching a task against {result['routes']} routes: "
        f"{result['matching_ms_median']} ms (median)",
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
        result["task_set"] = run_task_set(Path(tmp) / "task-set")
    print(table(result))
    for task in result["tasks"]:
        print(f"- {task['task']!r}: {task['files']} files, {task['estimated_tokens']} tokens")
    print()
    print(task_table(result["task_set"]))
    for row in result["task_set"]["tasks"]:
        if row["missed"] or row["extra"]:
            wrong = ", ".join(
                [f"missed {r}" for r in row["missed"]] + [f"extra {r}" for r in row["extra"]]
            )
            print(f"- {row['kind']}: {row['task']!r}: {wrong}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
