"""The screenshots of the web page in docs/images/, taken from the demo vault.

    python benchmarks/web/screenshots.py [--out docs/images] [--chromium /usr/bin/chromium]

Copies examples/vault to a temporary folder, writes two notes there (one so the
timeline and its undo preview have something to show, a near copy of a runbook so
review has a question), serves it and photographs each view
in headless Chromium: search, note, graph, timeline with an undo preview, review,
status, the search in the dark theme, and the search on a phone-sized screen.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _chromium_args() -> list[str]:
    """run.py's browser flags, loaded from beside this file (other benchmarks have a
    ``run`` module too, so not by that name)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "mnemosyne_web_bench_run", Path(__file__).resolve().parent / "run.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CHROMIUM_ARGS


SHOTS = [
    # name, address, selector to wait for, viewport, colour scheme
    ("search", "#/search?q=restore%20the%20database", "#results li.hit", (1200, 800), "light"),
    ("note", "#/note/postgres-restore", "#note-body h1", (1200, 900), "light"),
    ("graph", "#/graph/postgres-restore", "#graph-canvas", (1200, 800), "light"),
    ("timeline", "#/timeline", "button.preview-undo", (1200, 800), "light"),
    ("review", "#/review", "#review", (1200, 800), "light"),
    ("status", "#/status", "#status", (1200, 800), "light"),
    ("search-dark", "#/search?q=디스크", "#results li.hit", (1200, 800), "dark"),
    ("search-phone", "#/search?q=failover", "#results li.hit", (390, 844), "light"),
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images")
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from birkin_mnemosyne.memory import VaultMemory
    from birkin_mnemosyne.web.server import make_server

    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        vault = Path(tmp) / "vault"
        shutil.copytree(
            ROOT / "examples" / "vault", vault, ignore=shutil.ignore_patterns(".mnemosyne")
        )
        memory = VaultMemory(vault)
        memory.write_note(
            "Rotate the backup1 SSH host key",
            "Rotated on 2026-03-10 after the reinstall; fingerprints updated in [[backup1]].",
            zone="lessons",
        )
        # a near copy of a runbook, so the review view has a question to show
        original = memory.get_note("nginx-reload")["text"].split("\n", 1)[1]
        memory.write_note("Reload nginx safely (copy)", original, zone="runbooks")
        server = make_server(memory, "127.0.0.1", 0)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=args.chromium, args=_chromium_args())
                for name, address, selector, (width, height), scheme in SHOTS:
                    context = browser.new_context(
                        viewport={"width": width, "height": height},
                        color_scheme=scheme,
                        device_scale_factor=1,
                        is_mobile=width < 500,
                    )
                    page = context.new_page()
                    page.goto(server.url + address)
                    page.locator(selector).first.wait_for(timeout=30_000)
                    if name == "timeline":
                        page.locator("button.preview-undo").first.click()
                        page.wait_for_function(
                            "document.querySelector('#undo-preview') && "
                            "document.querySelector('#undo-preview').innerText.length > 0",
                            timeout=30_000,
                        )
                    page.wait_for_timeout(600)  # let the graph settle, fonts render
                    target = args.out / f"web-{name}.png"
                    page.screenshot(path=str(target))
                    print(target, file=sys.stderr)
                    context.close()
                browser.close()
        finally:
            server.shutdown()
            thread.join(10)
            server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
