"""Claude Code hooks as Claude Code runs them: one whole `mnemosyne hook EVENT` process.

For each vault size, a footprint vault (benchmarks/footprint/generate.py) gets 20
lessons with reflexes, two INDEX routes and a handoff for the project ``bench``. Then
every hook runs as a child process with its payload on stdin, as Claude Code starts it:

* cold: the first run of the hook after the vault's search-index cache is removed, as
  in a vault's first session: SessionStart builds the index, the other hooks have
  seconds and inject nothing until it is built (claude/hooks.py);
* warm: ``--runs`` runs with the index on disk and the OS cache warm (p50 and p95 of the
  wall time from spawn to exit), and the estimated tokens injected (UTF-8 bytes / 4) —
  median over the runs that injected, with how many did.

Session capture: ``mnemosyne capture`` of a generated 5 MB transcript (200 exchanges,
mostly tool output, as a long session's file is) into an empty vault, and again (the
no-op re-capture), each as a whole process, median of ``--capture-runs``.

With ``--tessellate DIR`` the realistic vault (../shared/datasets/tessellate) is run
too, with its answerable questions as prompts: how often a prompt gets a recall, and
how often an unanswerable one does (it should not).

    python benchmarks/hooks/run.py --sizes 1000,10000 --workdir /tmp/mnemo-hooks --runs 20 \\
        --tessellate ../shared/datasets/tessellate --json /tmp/mnemo-hooks/hooks.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "footprint"))
sys.path.insert(0, str(HERE.parent))

from bytecode import ensure_compiled  # noqa: E402
from generate import generate_vault  # noqa: E402

PROJECT = "bench"
EVENTS = (
    "SessionStart",
    "UserPromptSubmit",
    "PreToolUse",
    "PostToolUseFailure",
    "PreCompact",
)
ERRORS = [
    "pg_dump: error: could not write to file: No space left on device",
    "psql: error: connection to server at 10.0.4.12 failed: Connection refused",
    'ERROR: relation "bookings_2026" does not exist',
    "npm ERR! code ERESOLVE unable to resolve dependency tree",
    "fatal: refusing to merge unrelated histories",
]


def _plant(vault: Path) -> None:
    """20 lessons with reflexes, INDEX routes and a handoff (idempotent)."""
    lessons = vault / "lessons" / "reflexes"
    if lessons.exists():
        return
    lessons.mkdir(parents=True)
    for i in range(20):
        error = ERRORS[i % len(ERRORS)].split(": ", 1)[-1]
        (lessons / f"reflex-{i:02d}.md").write_text(
            f"# Lesson {i}: when {error[:40]}\n\nCheck the volume, then retry step {i}.\n\n"
            f"## Reflexes\n- error: {error}\n- target: db{i}.internal\n- file: deploy/app{i}.yaml\n",
            encoding="utf-8",
        )
    sys.path.insert(0, str(HERE.parent.parent))
    from birkin_mnemosyne.handoffs import HandoffScope, HandoffStore
    from birkin_mnemosyne.memory_index import MemoryIndex

    index = MemoryIndex(vault)
    index.register("restoring the database", "lessons/reflexes/reflex-00.md")
    index.register("deploying the app", "lessons/reflexes/reflex-01.md")
    HandoffStore(vault).capture(
        HandoffScope(PROJECT),
        {
            "work_done": "Restored the staging database from the nightly dump.",
            "open_items": ["check the replica lag"],
            "next_step": "restoring the database on production",
        },
    )


def _transcript(path: Path, exchanges: int, tool: str, output_lines: int = 0) -> Path:
    """A Claude Code JSONL transcript: per exchange a request, the assistant's text and
    one ``tool`` call, and (with ``output_lines``) that call's output."""
    lines = []
    for n in range(exchanges):
        common = {
            "sessionId": "bench-session",
            "cwd": "/w/bench",
            "timestamp": f"2026-12-01T{10 + n // 60:02d}:{n % 60:02d}:00Z",
        }
        argument = {"Edit": {"file_path": f"/w/bench/src/m{n}.py"}}.get(
            tool, {"command": f"cat log-{n}"}
        )
        call = {"type": "tool_use", "id": f"t{n}", "name": tool, "input": argument}
        lines += [
            {**common, "type": "user", "message": {"role": "user", "content": f"step {n}: run it"}},
            {
                **common,
                "type": "assistant",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": f"Done with step {n}."}, call],
                },
            },
        ]
        if output_lines:
            result = {
                "type": "tool_result",
                "tool_use_id": f"t{n}",
                "content": f"line {n}\n" * output_lines,
            }
            lines.append(
                {**common, "type": "user", "message": {"role": "user", "content": [result]}}
            )
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    return path


def _payloads(project_dir: Path, prompts: list[str], transcript: Path) -> dict[str, list[dict]]:
    common = {
        "session_id": "bench-session",
        "cwd": str(project_dir),
        "transcript_path": str(transcript),
    }
    return {
        "SessionStart": [{**common, "hook_event_name": "SessionStart", "source": "startup"}],
        "UserPromptSubmit": [
            {**common, "hook_event_name": "UserPromptSubmit", "prompt": p} for p in prompts
        ],
        "PreToolUse": [
            {
                **common,
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": f"ssh db{i}.internal 'df -h'"},
            }
            for i in range(5)
        ]
        + [
            {
                **common,
                "hook_event_name": "PreToolUse",
                "tool_name": "Edit",
                "tool_input": {"file_path": str(project_dir / "deploy" / f"app{i}.yaml")},
            }
            for i in range(5)
        ],
        "PostToolUseFailure": [
            {
                **common,
                "hook_event_name": "PostToolUseFailure",
                "tool_name": "Bash",
                "tool_input": {"command": "make deploy"},
                "error": error,
            }
            for error in ERRORS
        ],
        "PreCompact": [{**common, "hook_event_name": "PreCompact", "trigger": "auto"}],
    }


def _run(vault: Path, event: str, body: dict) -> tuple[float, int]:
    """Wall ms of one hook process and the tokens it injected."""
    data = json.dumps(body).encode("utf-8")
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(vault), "hook", event],
        input=data,
        capture_output=True,
        timeout=300,
        check=False,
    )
    ms = (time.perf_counter() - t0) * 1000
    if done.returncode != 0:
        raise SystemExit(f"{event} exited {done.returncode}: {done.stderr.decode()}")
    tokens = 0
    if done.stdout.strip():
        text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
        tokens = (len(text.encode("utf-8")) + 3) // 4
    return ms, tokens


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench_vault(vault: Path, prompts: list[str], runs: int, workdir: Path) -> dict:
    project = workdir / "project" / PROJECT
    (project / ".git").mkdir(parents=True, exist_ok=True)
    payloads = _payloads(project, prompts, _transcript(workdir / "session.jsonl", 40, "Edit"))
    rows = {}
    cache = vault / ".mnemosyne" / "cache"
    for event in EVENTS:
        shutil.rmtree(cache, ignore_errors=True)
        cold_ms, _ = _run(vault, event, payloads[event][0])
        # The index on disk again: SessionStart builds it (the other hooks never do).
        _run(vault, "SessionStart", payloads["SessionStart"][0])
        times, injected = [], []
        for i in range(runs):
            ms, tokens = _run(vault, event, payloads[event][i % len(payloads[event])])
            times.append(ms)
            if tokens:
                injected.append(tokens)
        rows[event] = {
            "cold_ms": round(cold_ms),
            "warm_p50_ms": round(statistics.median(times)),
            "warm_p95_ms": round(_pct(times, 0.95)),
            "runs": runs,
            "injected_runs": len(injected),
            "tokens_median": round(statistics.median(injected)) if injected else 0,
            "tokens_max": max(injected) if injected else 0,
        }
        print(f"  {event}: {rows[event]}", file=sys.stderr)
    return rows


def bench_capture(workdir: Path, runs: int) -> dict:
    transcript = _transcript(workdir / "capture-5mb.jsonl", 200, "Bash", 3000)
    first, again = [], []
    for i in range(runs):
        vault = workdir / f"capture-vault-{i}"
        shutil.rmtree(vault, ignore_errors=True)
        vault.mkdir()
        argv = [
            sys.executable,
            "-m",
            "birkin_mnemosyne",
            "--vault",
            str(vault),
            "capture",
            str(transcript),
        ]
        for into in (first, again):
            t0 = time.perf_counter()
            subprocess.run(argv, capture_output=True, timeout=300, check=True)
            into.append((time.perf_counter() - t0) * 1000)
        shutil.rmtree(vault, ignore_errors=True)
    row = {
        "transcript_bytes": transcript.stat().st_size,
        "first_ms_median": round(statistics.median(first)),
        "again_ms_median": round(statistics.median(again)),
        "runs": runs,
    }
    print(f"  capture: {row}", file=sys.stderr)
    return row


def bench_tessellate(data: Path, workdir: Path) -> dict:
    """How often a Tessellate prompt gets a recall: answerable vs unanswerable."""
    vault = workdir / "tessellate-vault"
    if not vault.exists():
        shutil.copytree(data / "vault", vault)
    queries = json.loads((data / "queries.json").read_text(encoding="utf-8"))
    project = workdir / "project" / PROJECT
    (project / ".git").mkdir(parents=True, exist_ok=True)
    _run(
        vault,
        "SessionStart",
        {"hook_event_name": "SessionStart", "cwd": str(project), "source": "startup"},
    )
    out = {"answerable": [0, 0], "absent": [0, 0], "gold_in_recall": 0, "tokens": []}
    for q in queries:
        kind = "absent" if q.get("kind") == "absent" else "answerable"
        body = {"hook_event_name": "UserPromptSubmit", "cwd": str(project), "prompt": q["q"]}
        data_in = json.dumps(body).encode("utf-8")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "birkin_mnemosyne",
                "--vault",
                str(vault),
                "hook",
                "UserPromptSubmit",
            ],
            input=data_in,
            capture_output=True,
            timeout=120,
            check=True,
        )
        out[kind][1] += 1
        if done.stdout.strip():
            out[kind][0] += 1
            text = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
            out["tokens"].append((len(text.encode("utf-8")) + 3) // 4)
            if any(path in text for path in q.get("expect", [])):
                out["gold_in_recall"] += 1
    tokens = out.pop("tokens")
    out["tokens_median"] = round(statistics.median(tokens)) if tokens else 0
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated note counts")
    parser.add_argument(
        "--workdir", type=Path, required=True, help="vaults are kept and reused here"
    )
    parser.add_argument("--runs", type=int, default=20, help="warm runs per hook (default 20)")
    parser.add_argument("--capture-runs", type=int, default=5, help="capture runs (default 5)")
    parser.add_argument("--tessellate", type=Path, help="the Tessellate dataset folder (optional)")
    parser.add_argument("--json", type=Path, help="write the results here too")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    results: dict = {"bytecode": ensure_compiled(), "sizes": {}}
    print(results["bytecode"], file=sys.stderr)
    for size in [int(s) for s in args.sizes.split(",") if s]:
        vault = args.workdir / f"vault-{size}"
        if not vault.exists():
            generate_vault(vault, size)
        _plant(vault)
        prompts = json.loads((vault / "queries.json").read_text(encoding="utf-8"))[:40]
        print(f"{size:,} notes", file=sys.stderr)
        results["sizes"][size] = bench_vault(vault, prompts, args.runs, args.workdir)
    results["capture"] = bench_capture(args.workdir, args.capture_runs)
    if args.tessellate:
        results["tessellate"] = bench_tessellate(args.tessellate, args.workdir)
    print("| notes | hook | cold ms | warm p50 ms | warm p95 ms | injected | tokens median / max |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for size, rows in results["sizes"].items():
        for event, row in rows.items():
            print(
                f"| {size:,} | {event} | {row['cold_ms']:,} | {row['warm_p50_ms']} | "
                f"{row['warm_p95_ms']} | {row['injected_runs']}/{row['runs']} | "
                f"{row['tokens_median']} / {row['tokens_max']} |"
            )
    cap = results["capture"]
    print(
        f"\ncapture of a {cap['transcript_bytes'] / 1e6:.1f} MB transcript, whole process, median "
        f"of {cap['runs']}: {cap['first_ms_median']:,} ms; again (no-op) {cap['again_ms_median']:,} ms"
    )
    if "tessellate" in results:
        print(json.dumps(results["tessellate"]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
