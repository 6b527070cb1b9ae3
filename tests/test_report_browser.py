"""The report in a real browser: headless Debian chromium through playwright opens the file,
no console error, no request leaves the file, no payload script runs, every plot decodes.

Skipped, with the reason, only when chromium (or playwright) is missing AND
CITEVAL_REQUIRE_BROWSER is unset; CI sets it, so there a missing browser fails the test.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from browser import keep_screenshot, need_chromium, opened_report
from test_report import NOW, payload_runs

from evals.report.render import render_report


@pytest.mark.slow
def test_report_in_headless_chromium(tmp_path: Path) -> None:
    need_chromium()
    runs = payload_runs(tmp_path)
    report = render_report(runs, tmp_path / "report.html", now=NOW).path
    shot = tmp_path / "report-browser.png"
    with opened_report(report, tmp_path / "profile", locale="ru-RU") as (page, problems):
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
    keep_screenshot(shot)
    assert problems == []
