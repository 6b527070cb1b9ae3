"""The report in a real browser: headless Debian chromium through playwright opens the file,
no console error, no request leaves the file, no payload script runs, every plot decodes.

Skipped, with the reason, only when chromium (or playwright) is missing AND
CITEVAL_REQUIRE_BROWSER is unset; CI sets it, so there a missing browser fails the test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from browser import CHROMIUM, CHROMIUM_ARGS, need_chromium
from test_report import NOW, payload_runs

from evals.report import render_report

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_report_in_headless_chromium(tmp_path: Path) -> None:
    need_chromium()
    from playwright.sync_api import sync_playwright

    runs = payload_runs(tmp_path)
    report = render_report(runs, tmp_path / "report.html", now=NOW).path
    url = report.resolve().as_uri()
    shot = tmp_path / "report-browser.png"
    problems: list[str] = []
    with sync_playwright() as p:
        # a fresh profile (--user-data-dir) per test: playwright takes it as user_data_dir
        browser = p.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=str(CHROMIUM),
            args=CHROMIUM_ARGS,
            headless=True,
            viewport={"width": 1360, "height": 1000},
            locale="ru-RU",
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
            # open every question so hidden payloads are parsed and laid out too
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
            page.wait_for_timeout(200)

            assert page.evaluate("typeof window.__citeval_xss") == "undefined"  # no payload ran
            images = page.evaluate(
                "Array.from(document.images).map(i => [i.complete, i.naturalWidth, i.src.slice(0, 26)])"
            )
            assert len(images) >= 4
            assert all(done and width > 0 and src == "data:image/svg+xml;base64," for done, width, src in images), images
            # the stylesheet passed the CSP hash: the header is styled
            assert page.evaluate("getComputedStyle(document.querySelector('header.top')).backgroundColor") == (
                "rgb(15, 23, 42)"
            )
            # payloads are visible as text
            assert page.get_by_text("<script>window.__citeval_xss = 1</script>", exact=False).count() >= 1
            assert page.locator("a[href^='javascript']").count() == 0
            assert page.locator(".banner.fail").count() == 1
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    keep = REPO / ".cache" / "screenshots"
    keep.mkdir(parents=True, exist_ok=True)
    shutil.copy2(shot, keep / shot.name)
    assert problems == []
