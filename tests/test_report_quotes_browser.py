"""The "Verbatim quotes" section in a real browser (headless Debian chromium via playwright, as
tests/test_report_browser.py): no console error, no request leaves the file, no payload runs,
every plot decodes, the chosen and gold places are highlighted."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from browser import keep_screenshot, need_chromium, opened_report
from test_report import NOW, SCRIPT, answer_score, synthetic_run

from evals.quotes.evaluate import evaluate_path
from evals.report.render import render_report

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_quotes_section_in_headless_chromium(tmp_path: Path) -> None:
    need_chromium()
    lab = tmp_path / "quotes-demo"
    evaluate_path(REPO / "datasets" / "demo", "sequencematcher,bm25,block,bm25+order", sweep=True, tune=True).write(lab)
    line = {
        "answer_id": "evil", "answer_text": f"Ставка — 5 % {SCRIPT}. Срок <b>12</b> месяцев & больше.",
        "citations": [{"citation_id": "c1", "cited_text": '<img src=x onerror="window.__citeval_xss=2"> 12 месяцев'}],
        "gold": [{"citation_id": "c1", "span": [0, 12]}],
    }
    quotes = tmp_path / "evil.jsonl"
    quotes.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    run = synthetic_run(tmp_path / "runs", "r1", "base", NOW - timedelta(days=1), [answer_score("q1", True)])
    evaluate_path(quotes, "rapidfuzz", threshold=0.0, sweep=True).write(run)
    report = render_report([run, lab], tmp_path / "report.html", now=NOW).path
    shot = tmp_path / "report-quotes-browser.png"
    with opened_report(report, tmp_path / "profile", locale="ru-RU", open_details=False) as (page, problems):
        assert page.evaluate("typeof window.__citeval_xss") == "undefined"
        sections = page.locator("section.quotes")
        assert sections.count() == 2  # the run's own quote results and the lab's
        images = page.evaluate(
            "Array.from(document.querySelectorAll('section.quotes img'))"
            ".map(i => [i.complete, i.naturalWidth, i.src.slice(0, 26)])"
        )
        assert len(images) == 2, images  # one sweep plot per section
        assert all(done and width > 0 and src == "data:image/svg+xml;base64," for done, width, src in images)
        every = page.evaluate("Array.from(document.images).map(i => i.complete && i.naturalWidth > 0)")
        assert all(every)
        assert page.get_by_text("<script>window.__citeval_xss = 1</script>", exact=False).count() >= 1
        # rapidfuzz chose the whole first sentence: the gold "Ставка — 5 %" lies inside the chosen place
        both = page.locator("mark.q-both", has_text="Ставка — 5 %")
        assert both.count() == 1
        assert both.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(253, 230, 138)"  # CSS applied
        chosen = page.locator("mark.q-chosen", has_text="window.__citeval_xss = 1")
        assert chosen.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(254, 202, 202)"
        page.locator("section.quotes").last.screenshot(path=str(shot))
    keep_screenshot(shot)
    assert problems == []
