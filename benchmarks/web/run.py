"""The web page on a large vault: page weight and how soon each view shows its content.

    python benchmarks/web/run.py --notes 10000 --workdir /tmp/mnemo-web --runs 5 \\
        [--json out.json] [--chromium /usr/bin/chromium]

Generates the footprint vault (benchmarks/footprint/generate.py) once, builds its index,
serves it with ``mnemosyne serve``'s server in this process, and drives headless
Chromium with Playwright. Per view, in a new browser context each run (nothing cached):

* ``ready ms``: from navigation start to the view's content on screen (the first
  search result; the note's heading; the graph drawn; the status figures);
* ``fcp ms``: first contentful paint, the browser's own figure;
* ``bytes``: what the view transferred (the page's three files plus its API calls),
  counted once the page is idle (the status view's capacity call included).

Medians over ``--runs``. The page's own files (HTML, script, style sheet) are weighed
on their own too. The server runs in this process on a second thread, so the figures
include its Python time: they are the wait a user of ``mnemosyne serve`` sees.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "footprint"))

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# view name -> (address after the server's URL, the selector that means "shown")
VIEWS = {
    "search": ("#/search?q=config%20write", "#results li.hit"),
    "note": (None, "#note-body h1"),  # the first search hit's note, found at run time
    "graph": ("#/graph", "#graph-canvas"),
    "timeline": ("#/timeline", "#journal"),
    "status": ("#/status", "#status-body"),
}


def prepare(workdir: Path, notes: int) -> Path:
    from generate import generate_vault

    vault = workdir / f"vault-{notes}"
    if not (vault / ".mnemosyne").exists():
        if vault.exists():
            shutil.rmtree(vault)
        print(f"generating {notes:,} notes in {vault} ...", file=sys.stderr)
        generate_vault(vault, notes=notes)
        from birkin_mnemosyne.memory import VaultMemory

        started = time.perf_counter()
        memory = VaultMemory(vault)
        memory.status()
        memory.close()
        print(f"index built in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return vault


def page_files() -> dict[str, int]:
    from birkin_mnemosyne.web.server import PAGES, STATIC

    return {name: (STATIC / name).stat().st_size for name, _ in set(PAGES.values())}


def measure(url: str, browser, address: str, selector: str) -> dict:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    transferred = []
    page.on(
        "response",
        lambda r: transferred.append(int(r.headers.get("content-length") or 0)),
    )
    page.goto(url + address, wait_until="commit")
    page.locator(selector).first.wait_for(state="visible", timeout=120_000)
    if selector == "#graph-canvas":
        # the layout has run all its iterations (polled: the page's CSP forbids the
        # string evaluation wait_for_function uses)
        deadline = time.monotonic() + 120
        while not page.evaluate("() => !!(window.mnemosyneGraph && window.mnemosyneGraph.done())"):
            if time.monotonic() > deadline:
                raise TimeoutError("the graph layout did not finish in 120 s")
            page.wait_for_timeout(20)
    ready = page.evaluate("() => performance.now()")
    fcp = page.evaluate(
        "() => (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || null"
    )
    # the view's slower calls (status's capacity) finish before the next view starts:
    # the server answers one call at a time, so they would delay it
    page.wait_for_load_state("networkidle", timeout=120_000)
    context.close()
    return {"ready_ms": ready, "fcp_ms": fcp, "bytes": sum(transferred)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/mnemo-web"))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--json", dest="json_out", type=Path)
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from birkin_mnemosyne.memory import VaultMemory
    from birkin_mnemosyne.web.server import make_server

    args.workdir.mkdir(parents=True, exist_ok=True)
    vault = prepare(args.workdir, args.notes)
    server = make_server(VaultMemory(vault), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    hit = server.api.memory.search_response("config write", limit=1)["hits"]
    views = dict(VIEWS)
    if hit:
        views["note"] = (f"#/note/{hit[0]['key']}", VIEWS["note"][1])
    else:
        del views["note"]
    rows: dict[str, list[dict]] = {name: [] for name in views}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            for _ in range(args.runs):
                for name, (address, selector) in views.items():
                    rows[name].append(measure(server.url, browser, address, selector))
            browser.close()
    finally:
        server.shutdown()
        thread.join(10)
        server.close()

    files = page_files()
    result = {
        "notes": args.notes,
        "runs": args.runs,
        "page_files_bytes": files,
        "page_bytes": sum(files.values()),
        "views": {
            name: {
                key: statistics.median(r[key] for r in runs if r[key] is not None)
                for key in ("ready_ms", "fcp_ms", "bytes")
            }
            for name, runs in rows.items()
        },
    }
    print(f"{args.notes:,} notes, medians of {args.runs} runs, a new browser context each")
    print(
        f"page files: {result['page_bytes']:,} bytes ({', '.join(f'{k} {v:,}' for k, v in sorted(files.items()))})"
    )
    print("| view | ready ms | first contentful paint ms | transferred KB |")
    print("|---|---:|---:|---:|")
    for name, view in result["views"].items():
        print(
            f"| {name} | {view['ready_ms']:.0f} | {view['fcp_ms']:.0f} | "
            f"{view['bytes'] / 1024:.1f} |"
        )
    if args.json_out:
        args.json_out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
