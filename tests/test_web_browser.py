"""The web page in a real headless Chromium (Playwright driving Debian's ``chromium``).

Skipped, with the reason, where Playwright or the browser is missing; ``.ci/run``
installs both. ``$MNEMOSYNE_CHROMIUM`` names another browser binary.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from birkin_mnemosyne.memory import VaultMemory
from birkin_mnemosyne.web.server import make_server

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "vault"
AWS_KEY = "AKIAQX4TZ7PLM2NB8RWD"
# What the probe of this machine found to work as root in a closed network.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_binary() -> str | None:
    named = os.environ.get("MNEMOSYNE_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="the browser tests need Playwright (the dev extra)"
)
BROWSER = chromium_binary()
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no Chromium: install Debian's chromium package (.ci/run does) or set "
    "MNEMOSYNE_CHROMIUM",
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    vault = tmp_path_factory.mktemp("web") / "vault"
    shutil.copytree(EXAMPLES, vault, ignore=shutil.ignore_patterns(".mnemosyne"))
    (vault / "runbooks" / "hostile.md").write_text(
        "# Hostile note\n\n<script>window.__pwned = 1</script>\n\n"
        '<img src=x onerror="window.__pwned = 2">\n\n'
        f"The deploy key is {AWS_KEY} for now. See [[postgres-restore]].\n",
        encoding="utf-8",
    )
    memory = VaultMemory(vault)
    written = memory.write_note("Browser test scratch", "A line to undo.", zone="inbox")
    notes = memory.status()["notes"]
    memory.close()
    server = make_server(VaultMemory(vault), "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield {"url": server.url, "vault": vault, "written": written, "notes": notes}
    server.shutdown()
    thread.join(10)
    server.close()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as pw:
        launched = pw.chromium.launch(executable_path=BROWSER, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    opened.errors = errors
    yield opened
    context.close()


def test_search_then_open_the_note(site, page):
    page.goto(site["url"] + "#/search?q=restore%20database")
    first = page.locator("#results li.hit a.hit-title").first
    first.wait_for(timeout=15_000)
    assert "Restore PostgreSQL" in first.inner_text()
    first.click()
    page.locator("#note-body h1").wait_for(timeout=15_000)
    assert "Restore PostgreSQL from last night" in page.locator("#note-body h1").inner_text()
    assert page.errors == []


def test_typing_a_query_and_keyboard_navigation_open_a_note(site, page):
    page.goto(site["url"])
    page.locator("#q").fill("redis failover")
    page.locator("#q").press("Enter")
    page.locator("#results li.hit").first.wait_for(timeout=15_000)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.locator("#note-body h1").wait_for(timeout=15_000)
    assert "#/note/" in page.url


def test_follow_a_backlink(site, page):
    page.goto(site["url"] + "#/note/db1")
    link = page.locator("#backlinks a", has_text="Restore PostgreSQL")
    link.first.wait_for(timeout=15_000)
    link.first.click()
    page.wait_for_url("**#/note/postgres-restore", timeout=15_000)
    page.locator("#note-body h1", has_text="Restore PostgreSQL").wait_for(timeout=15_000)


def test_a_planted_secret_shows_redacted_and_script_stays_inert(site, page):
    page.goto(site["url"] + "#/note/hostile")
    body = page.locator("#note-body")
    body.locator("h1").wait_for(timeout=15_000)
    text = body.inner_text()
    assert "[REDACTED:" in text and AWS_KEY not in page.content()
    assert "<script>window.__pwned = 1</script>" in text  # shown as text
    assert page.evaluate("window.__pwned === undefined")
    assert page.locator("#note-body script, #note-body img").count() == 0
    assert page.errors == []


def test_the_timeline_previews_an_undo_without_doing_it(site, page):
    page.goto(site["url"] + "#/timeline")
    entry = page.locator("#journal-entries li.entry a").first
    entry.wait_for(timeout=15_000)
    assert entry.inner_text() == "2026-03-09"  # the demo journal's newest dated section
    button = page.locator("button.preview-undo").first
    button.wait_for(timeout=15_000)
    button.click()
    preview = page.locator("#undo-preview")
    preview.wait_for(timeout=15_000)
    page.wait_for_function(
        "document.querySelector('#undo-preview').innerText.length > 0", timeout=15_000
    )
    assert (site["vault"] / site["written"]["path"]).exists()  # a preview changes nothing


def test_graph_review_and_status_views_render(site, page):
    page.goto(site["url"] + "#/graph")
    page.locator("#graph-canvas").wait_for(timeout=15_000)
    page.goto(site["url"] + "#/review")
    page.locator("#review").wait_for(timeout=15_000)
    page.goto(site["url"] + "#/status")
    page.locator("#status").wait_for(timeout=15_000)
    page.wait_for_function(
        "n => document.querySelector('#status').innerText.includes(String(n))",
        arg=site["notes"],
        timeout=15_000,
    )
    assert page.errors == []


def test_a_phone_sized_screen_has_no_sideways_scrolling(site, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = context.new_page()
    phone.goto(site["url"] + "#/search?q=restore%20database")
    phone.locator("#results li.hit").first.wait_for(timeout=15_000)
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 390
    context.close()
