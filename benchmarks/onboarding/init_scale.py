"""Time ``mnemosyne init`` (preview and ``--apply``) at 1k/5k/20k notes, before and after.

    python benchmarks/onboarding/init_scale.py --sizes 1000,5000,20000 --workdir /tmp/mnemo-init
    python benchmarks/onboarding/init_scale.py --sizes 1000,5000,20000 --workdir /tmp/mnemo-init \\
        --before /path/to/old/checkout --before-sizes 1000,5000 [--runs 3] [--json out.json]

Each vault is the footprint benchmark's synthetic vault (``benchmarks/footprint/
generate.py``: zones, frontmatter on most notes, six languages, Zipf-distributed words)
with near-duplicates planted on top, deterministically (``plant_duplicates``): about 2%
of the notes get an edited copy (a paragraph dropped, a few words changed, a line
added, or the frontmatter stripped) in the same zone or the inbox, and 1% are filled-in
copies of one stand-up template. The generator reads nothing of the package.

Every timing is one fresh process, ``python -m birkin_mnemosyne --vault V init --json``
(``--apply`` too), with ``PYTHONPATH`` set to the code under test, timed from outside;
an apply runs on a fresh copy of the untouched vault each time. The table quotes the
median of ``--runs`` runs (``--before-runs`` for the old code, which can take a quarter
of an hour at 20k notes). When both codes run at a size, their outputs must agree — the
same ``plan_id``, the same duplicate count and the same listed pairs — or the script
exits 1: the new join has to find what comparing every pair found.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GENERATE = ROOT / "benchmarks" / "footprint" / "generate.py"
SEED = 7
TEMPLATE = """---
title: Stand-up {day}
type: journal
---
# Stand-up {day}

- yesterday: {yesterday}
- today: {today}
- blockers: none
"""


def _load_generator():
    spec = importlib.util.spec_from_file_location("footprint_generate", GENERATE)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def plant_duplicates(vault: Path, seed: int = SEED) -> dict:
    """Add edited copies of ~2% of the notes and ~1% template notes; returns the counts."""
    rng = random.Random(seed)
    notes = sorted(vault.rglob("*.md"))
    copies = max(1, len(notes) // 50)
    planted = 0
    for number, original in enumerate(rng.sample(notes, copies)):
        text = original.read_text(encoding="utf-8")
        parts = text.split("\n\n")
        kind = number % 4
        if kind == 0 and len(parts) > 3:  # a paragraph dropped
            del parts[rng.randrange(2, len(parts))]
        elif kind == 1:  # a few words changed
            words = text.split(" ")
            for _ in range(max(3, len(words) // 40)):
                words[rng.randrange(len(words))] = rng.choice(words)
            parts = [" ".join(words)]
        elif kind == 2:  # a line added at the end
            parts.append("Update: checked again, still true; see the ticket.")
        elif text.startswith("---\n") and "\n---\n" in text[4:]:  # frontmatter stripped
            parts = [text[4:].split("\n---\n", 1)[1]]
        folder = original.parent if number % 3 else vault / "inbox"
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / f"{original.stem}-copy-{number}.md"
        target.write_text("\n\n".join(parts), encoding="utf-8")
        planted += 1
    words = ["deploy", "review", "migrate", "backup", "restore", "index", "cache", "queue"]
    template = max(1, len(notes) // 100)
    (vault / "journal" / "standups").mkdir(parents=True, exist_ok=True)
    for day in range(template):
        text = TEMPLATE.format(
            day=f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}-{day}",
            yesterday=" ".join(rng.sample(words, 3)),
            today=" ".join(rng.sample(words, 3)),
        )
        (vault / "journal" / "standups" / f"standup-{day}.md").write_text(text, encoding="utf-8")
    return {"copies": planted, "template_notes": template}


def make_vault(workdir: Path, size: int) -> Path:
    """The pristine vault of ``size`` notes (generated once, then reused)."""
    vault = workdir / f"vault-{size}"
    done = vault / ".complete"
    if done.exists():
        return vault
    if vault.exists():
        shutil.rmtree(vault)
    generate = _load_generator()
    # Plant on top of a 3% smaller vault so the total is about `size` (the table
    # reports the exact count init found).
    generate.generate_vault(vault, notes=max(1, round(size / 1.03)), seed=SEED)
    (vault / generate.QUERIES_FILE).unlink(missing_ok=True)
    plant_duplicates(vault)
    done.write_text("", encoding="utf-8")
    return vault


def _copy(vault: Path, target: Path) -> Path:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(vault, target, ignore=shutil.ignore_patterns(".complete"))
    return target


def run_init(code: Path, vault: Path, *, apply: bool) -> tuple[float, dict]:
    """One fresh ``init`` process on ``vault`` with ``code`` on PYTHONPATH: (seconds, result)."""
    command = [sys.executable, "-m", "birkin_mnemosyne", "--vault", str(vault), "init", "--json"]
    if apply:
        command.append("--apply")
    env = {**os.environ, "PYTHONPATH": str(code), "PYTHONIOENCODING": "utf-8"}
    env.pop("MNEMOSYNE_VAULT", None)
    started = time.perf_counter()
    # cwd is the code under test: `python -m` puts the working folder first on sys.path,
    # so a run from another checkout would import that one instead.
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=code, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"init failed ({done.returncode}): {done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


def _essence(result: dict) -> dict:
    """What the two codes must agree on."""
    return {
        "notes": result["summary"]["notes_found"],
        "plan_id": result["plan_id"],
        "duplicates": result["summary"]["duplicates"],
        "pairs": [(d["a"], d["b"], d["similarity"]) for d in result["duplicates"]],
        "changes": result["summary"]["changes"],
    }


def measure(code: Path, vault: Path, workdir: Path, runs: int) -> dict:
    previews, applies, outputs = [], [], []
    for run in range(runs):
        seconds, preview = run_init(code, vault, apply=False)
        previews.append(seconds)
        copy = _copy(vault, workdir / "apply-run")
        seconds, applied = run_init(code, copy, apply=True)
        applies.append(seconds)
        outputs.append((_essence(preview), _essence(applied)))
        print(
            f"    run {run + 1}: preview {previews[-1]:.1f} s, apply {applies[-1]:.1f} s",
            file=sys.stderr,
        )
    shutil.rmtree(workdir / "apply-run", ignore_errors=True)
    return {
        "preview_s": round(statistics.median(previews), 2),
        "apply_s": round(statistics.median(applies), 2),
        "preview_runs": [round(s, 2) for s in previews],
        "apply_runs": [round(s, 2) for s in applies],
        "preview": outputs[0][0],
        "applied": outputs[0][1],
    }


def _parse_sizes(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,5000,20000", help="note counts (comma list)")
    parser.add_argument("--workdir", type=Path, required=True, help="where vaults are written")
    parser.add_argument("--runs", type=int, default=3, help="runs per size for this code")
    parser.add_argument("--before", type=Path, help="a checkout of the old code to compare")
    parser.add_argument("--before-sizes", help="sizes to run the old code at (default: all)")
    parser.add_argument("--before-runs", type=int, default=1, help="runs per size, old code")
    parser.add_argument("--json", type=Path, help="write every figure here")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    sizes = _parse_sizes(args.sizes)
    before_sizes = set(sizes if args.before_sizes is None else _parse_sizes(args.before_sizes))
    rows, agree = [], True
    for size in sizes:
        print(f"{size:,} notes", file=sys.stderr)
        vault = make_vault(args.workdir, size)
        row: dict = {"notes": size, "after": measure(ROOT, vault, args.workdir, args.runs)}
        if args.before is not None and size in before_sizes:
            print("  before:", file=sys.stderr)
            row["before"] = measure(args.before, vault, args.workdir, args.before_runs)
            same = all(row["before"][k] == row["after"][k] for k in ("preview", "applied"))
            row["same_output"] = same
            agree = agree and same
        rows.append(row)
    print("| notes | duplicates | preview before | preview after | apply before | apply after |")
    print("|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        before = row.get("before")
        cells = [
            f"{row['after']['preview']['notes']:,}",
            str(row["after"]["preview"]["duplicates"]),
            f"{before['preview_s']} s" if before else "-",
            f"{row['after']['preview_s']} s",
            f"{before['apply_s']} s" if before else "-",
            f"{row['after']['apply_s']} s",
        ]
        print("| " + " | ".join(cells) + " |")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=1) + "\n", encoding="utf-8")
    if not agree:
        print("the old and the new code disagree (see same_output in the JSON)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
