"""Where one prompt hook's time goes: the phases of a fresh process, measured in it.

Each run is a new interpreter (as every hook is) that times: importing the CLI, opening
the vault (with the hook's "is the index built?" check), loading the index, the first
search of the prompt, and that same search again (warm, the term cache filled). Medians
over ``--runs`` processes.

    python benchmarks/hooks/phases.py /tmp/mnemo-hooks/vault-10000 \\
        "How do I restore the staging database from the nightly dump?" --runs 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bytecode import ensure_compiled  # noqa: E402

PROBE = r"""
import json, sys, time
t0 = time.perf_counter()
from birkin_mnemosyne.cli import main  # noqa: F401  (what a hook process imports)
from birkin_mnemosyne.memory import VaultMemory
t1 = time.perf_counter()
memory = VaultMemory(sys.argv[1])
memory.engine.needs_build()
t2 = time.perf_counter()
memory.engine.index
t3 = time.perf_counter()
memory.search_response(sys.argv[2], limit=3)
t4 = time.perf_counter()
memory.search_response(sys.argv[2], limit=3)
t5 = time.perf_counter()
ms = lambda a, b: round((b - a) * 1000, 1)
print(json.dumps({"imports": ms(t0, t1), "open": ms(t1, t2), "load_index": ms(t2, t3),
                  "first_search": ms(t3, t4), "warm_search": ms(t4, t5)}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault")
    parser.add_argument("prompt")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    print(ensure_compiled(), file=sys.stderr)
    rows = []
    for _ in range(args.runs):
        done = subprocess.run(
            [sys.executable, "-c", PROBE, args.vault, args.prompt],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(done.stdout))
    medians = {key: statistics.median(row[key] for row in rows) for key in rows[0]}
    print(" · ".join(f"{key} {value:.0f} ms" for key, value in medians.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
