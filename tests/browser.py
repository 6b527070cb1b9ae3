"""Headless Debian chromium for the browser tests, driven by playwright (no browser download)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("CITEVAL_CHROMIUM", "/usr/bin/chromium"))
# Offline and quiet: without the background-networking flags chromium keeps dialling out.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
REQUIRE_ENV = "CITEVAL_REQUIRE_BROWSER"
SCREENSHOTS = Path(__file__).resolve().parent.parent / ".cache" / "screenshots"


def need_chromium(required: bool = False) -> None:
    """Skip without playwright or chromium, or fail when required (CI sets CITEVAL_REQUIRE_BROWSER)."""
    required = required or bool(os.environ.get(REQUIRE_ENV))
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        if required:
            pytest.fail("playwright is not installed (pip install playwright; chromium comes from apt)")
        pytest.skip(f"playwright is not installed; set {REQUIRE_ENV}=1 to make this a failure")
    if not CHROMIUM.exists():
        if required:
            pytest.fail(f"{CHROMIUM} is missing (apt-get install -y chromium)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install -y chromium); set {REQUIRE_ENV}=1 to fail")


@contextmanager
def opened_report(
    report: Path, profile: Path, locale: str | None = None, open_details: bool = True,
    viewport: tuple[int, int] = (1360, 1000),
) -> Iterator[tuple[Any, list[str]]]:
    """(page, problems): `report` loaded in headless chromium with a fresh profile, the window `viewport`
    CSS pixels (width, height) (with `open_details`, every <details> opened).

    `problems` collects console errors, page errors, dialogs (dismissed) and any request that leaves the
    file; the caller asserts it is empty once the browser is closed."""
    from playwright.sync_api import sync_playwright

    url = report.resolve().as_uri()
    problems: list[str] = []
    with sync_playwright() as p:
        # a fresh profile (--user-data-dir) per test: playwright takes it as user_data_dir
        browser = p.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True,
            viewport={"width": viewport[0], "height": viewport[1]}, locale=locale,
        )
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
            page.on("dialog", lambda d: (problems.append(f"dialog: {d.message}"), d.dismiss()))
            page.on(
                "request",
                lambda r: None if r.url == url or r.url.startswith("data:") else problems.append(f"request {r.url}"),
            )
            page.goto(url, wait_until="load")
            if open_details:  # open every question so hidden payloads are parsed and laid out too
                page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            page.wait_for_timeout(200)
            yield page, problems
        finally:
            browser.close()


def keep_screenshot(path: Path) -> Path:
    """Keep a copy under .cache/screenshots/ for people to look at."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copy2(path, SCREENSHOTS / path.name))
