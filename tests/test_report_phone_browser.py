"""The reports on a phone and at a desktop width, in headless Debian chromium (issue 31), over real runs
of the demo: the reference backend and the recorded second system.

At 390 and 1440 CSS pixels, for a single-run report, comparisons of 2 and 3 runs and a weekly report:
no page-level sideways scroll (at 390 no table needs scrolling inside its own box either: the tables
stack), `lang="ru"` from the Russian questions and answers, every `th` with a scope and every table with
a caption, every text at least 4.5:1 against its background (3:1 for large text; WCAG 2 relative
luminance, computed here from the computed styles), each question reachable at `#q-<question id>`,
every in-page link resolving, and each failed gate rule linking to the questions that fail it.

The window is a desktop window 390 px wide (not mobile emulation, whose zoom-out would hide an overflow).
Screenshots at 390 px go to .cache/screenshots/. Skipped, with the reason, only when chromium (or
playwright) is missing and CITEVAL_REQUIRE_BROWSER is unset.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from browser import keep_screenshot, need_chromium, opened_report

from evals.report.render import render_report, render_weekly
from evals.run.runner import RunOptions, start_run
from evals.score.scoring import score_run

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "datasets" / "demo"
SECOND = DEMO / "answers" / "second_system.jsonl"
# long ids, as `citeval run` makes them: the trend plot must show them whole
REF = "20250701T080000Z-reference-demo-a1b2c3"
PREV = "20250701T090000Z-second-system-previous-d4e5f6"
NEW = "20250701T100000Z-second-system-replay-0a9b8c"
PHONE, DESKTOP = (390, 844), (1440, 900)

# WCAG 2 contrast of every element's own text (and of the stacked tables' ::before labels)
CONTRAST_JS = r"""() => {
  const parse = s => { const m = /rgba?\(([^)]+)\)/.exec(s || ''); if (!m) return null;
    const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number); return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const background = el => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
    }
    let base = [255, 255, 255];
    for (const c of layers.reverse()) base = base.map((v, i) => c[i] * c[3] + v * (1 - c[3]));
    return base;
  };
  const lum = rgb => { const [r, g, b] = rgb.map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const check = (el, style, what) => {
    const bg = background(el), fg = parse(style.color);
    const color = fg.slice(0, 3).map((v, i) => v * fg[3] + bg[i] * (1 - fg[3]));
    const size = parseFloat(style.fontSize), bold = parseInt(style.fontWeight, 10) >= 700;
    const need = size >= 24 || (size >= 18.66 && bold) ? 3 : 4.5;
    const r = ratio(color, bg);
    return {r, need, what, muted: el.classList.contains('muted') || el.matches('p.note, .note *')};
  };
  const results = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
    const box = el.getBoundingClientRect();
    if (own && box.width > 1 && box.height > 1) {
      const r = check(el, getComputedStyle(el), el.tagName.toLowerCase() + '.' + el.className + ': ' + el.textContent.trim().slice(0, 40));
      results.push(r);
    }
    if (el.matches('td[data-label]')) {
      const before = getComputedStyle(el, '::before');
      if (before.content && before.content !== 'none' && before.display !== 'none')
        results.push(check(el, before, 'label ' + el.dataset.label));
    }
  }
  const bad = results.filter(x => x.r < x.need).map(x => `${x.what} ${x.r.toFixed(2)}`);
  const muted = results.filter(x => x.muted).map(x => x.r);
  return {checked: results.length, bad: bad.slice(0, 10), nbad: bad.length, muted: muted.length,
          min_muted: muted.length ? Math.min(...muted) : null, check_old_muted: ratio([107, 114, 128], [241, 245, 249])};
}"""

# page-level overflow, elements sticking out of the window outside any scroll box, tables scrolling in their box
LAYOUT_JS = r"""() => {
  const W = window.innerWidth;
  const scroller = e => { for (let a = e.parentElement; a; a = a.parentElement)
    if (getComputedStyle(a).overflowX !== 'visible') return a; return null; };
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (!r.width || r.right <= W + 1) continue;
    const s = scroller(e);
    if (!s || s.getBoundingClientRect().right > W + 1) out.push(`${e.tagName}.${e.className} ${Math.round(r.right)}`);
  }
  const wraps = Array.from(document.querySelectorAll('.table-wrap')).filter(w => w.scrollWidth > w.clientWidth + 1)
    .map(w => (w.querySelector('caption') || {}).textContent);
  return {scroll_width: document.documentElement.scrollWidth, body_width: document.body.scrollWidth, inner: W,
          out: out.slice(0, 10), wraps: wraps.slice(0, 10)};
}"""

STRUCTURE_JS = r"""() => ({
  lang: document.documentElement.lang,
  th: document.querySelectorAll('th').length,
  th_without_scope: Array.from(document.querySelectorAll('th')).filter(t => !['col', 'row'].includes(t.getAttribute('scope'))).length,
  tables: document.querySelectorAll('table').length,
  tables_without_caption: Array.from(document.querySelectorAll('table')).filter(t => !(t.caption && t.caption.textContent.trim())).length,
  dangling: Array.from(document.querySelectorAll('a[href^="#"]')).map(a => a.getAttribute('href').slice(1))
    .filter(id => !document.getElementById(decodeURIComponent(id))).slice(0, 10),
  ids: Array.from(document.querySelectorAll('[id]')).map(e => e.id),
})"""


def _run(out: Path, run_id: str, backend: str, label: str) -> Path:
    run = start_run(DEMO, backend, out=out, run_id=run_id, options=RunOptions(label=label)).run_dir
    score_run(run, judge="none")
    return run


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> dict[str, Any]:
    """Real runs of the demo: the reference (label reference), then the variant "second" twice: answered
    by the reference backend first, then by the recorded second system; and the four reports."""
    root = tmp_path_factory.mktemp("phone")
    runs = root / "runs"
    ref = _run(runs, REF, "reference", "reference")
    prev = _run(runs, PREV, "reference", "second")
    new = _run(runs, NEW, f"replay:{SECOND}", "second")
    out = root / "reports"
    return {
        "root": root,
        "runs": {"ref": ref, "prev": prev, "new": new},
        "single": render_report([new], out / "single.html").path,
        "compare2": render_report([ref, new], out / "compare2.html").path,
        "compare3": render_report([ref, prev, new], out / "compare3.html").path,
        "weekly": render_weekly(runs, out / "weekly.html").path,
    }


def _rows(run: Path) -> dict[str, dict[str, Any]]:
    lines = (run / "per_question.jsonl").read_text(encoding="utf-8").splitlines()
    return {row["question_id"]: row for row in map(json.loads, lines)}


def _failing(row: dict[str, Any]) -> bool:
    """A question fails with a finding or without an answer (independent of the report's own code)."""
    return bool(row["findings"]) or row["status"] not in ("answered", "abstained")


@pytest.mark.slow
@pytest.mark.parametrize("name", ["single", "compare2", "compare3", "weekly"])
@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1440px"])
def test_pages_fit_the_window_and_read_well(reports, name: str, viewport: tuple[int, int], tmp_path: Path) -> None:
    need_chromium()
    with opened_report(reports[name], tmp_path / "profile", viewport=viewport) as (page, problems):
        layout = page.evaluate(LAYOUT_JS)
        assert layout["scroll_width"] <= layout["inner"] == viewport[0], layout
        assert layout["body_width"] <= viewport[0], layout
        assert layout["out"] == [], layout  # nothing sticks out of the window but inside a scroll box
        if viewport == PHONE:
            assert layout["wraps"] == [], layout  # the tables stack: none scrolls sideways in its box
            labels = page.evaluate(
                "Array.from(document.querySelectorAll('table.stack td[data-label]')).slice(0, 400)"
                ".map(td => getComputedStyle(td, '::before').content)"
            )
            assert labels and all(c not in ("none", "normal", '""') for c in labels), labels[:5]
            assert page.evaluate("getComputedStyle(document.querySelector('table.stack thead')).position") == "absolute"
        structure = page.evaluate(STRUCTURE_JS)
        assert structure["lang"] == "ru"  # the demo's questions and answers are Russian
        assert structure["th"] > 100 and structure["th_without_scope"] == 0, structure["th_without_scope"]
        assert structure["tables"] > 10 and structure["tables_without_caption"] == 0
        assert structure["dangling"] == [], structure["dangling"]
        assert len(structure["ids"]) == len(set(structure["ids"]))
        contrast = page.evaluate(CONTRAST_JS)
        assert contrast["check_old_muted"] == pytest.approx(4.41, abs=0.01)  # the formula tells 4.41 from 4.5
        assert contrast["checked"] > 500 and contrast["muted"] > 20, contrast
        assert contrast["nbad"] == 0, contrast["bad"]
        assert contrast["min_muted"] >= 4.5
        if viewport == PHONE:
            shot = tmp_path / f"phone-{name}.png"
            page.evaluate("document.querySelectorAll('details').forEach(d => d.open = false)")
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(shot), clip={"x": 0, "y": 0, "width": viewport[0], "height": 2400},
                            full_page=True)
            keep_screenshot(shot)
    assert problems == []


@pytest.mark.slow
def test_questions_by_id_and_failed_rules_link_to_their_questions(reports, tmp_path: Path) -> None:
    need_chromium()
    rows = _rows(reports["runs"]["new"])
    with opened_report(reports["single"], tmp_path / "profile", viewport=PHONE, open_details=False) as (page, problems):
        ids = page.evaluate("Array.from(document.querySelectorAll('details.q')).map(d => d.id)")
        assert sorted(ids) == sorted(f"q-{qid}" for qid in rows)  # demo ids are safe as they are
        rules = page.evaluate(
            "Array.from(document.querySelectorAll('a.rule')).map(a => [a.textContent, a.getAttribute('href')])")
        by_rule = dict(rules)
        # the second system fails these (tests/test_second_system.py): counts, a tier's metric, overall
        assert {"tier.critical.findings.NUMBER_UNSUPPORTED", "tier.critical.version_correctness",
                "overall.number_support"} <= set(by_rule), by_rule
        for rule, href in rules:
            target = page.evaluate(
                "id => { const e = document.getElementById(id); if (!e) return null;"
                " return {tag: e.tagName, links: Array.from(e.querySelectorAll('a[href^=\"#q-\"]')).map(a => a.getAttribute('href')),"
                " inner: Array.from(e.querySelectorAll('details.q')).map(d => d.id),"
                " next: Array.from(document.querySelectorAll('details.q')).filter(d => e.compareDocumentPosition(d) & 4)"
                ".slice(0, 400).map(d => d.id)} }", href[1:])
            assert target is not None, (rule, href)
            if ".findings." in rule:  # that code's questions of that tier, each a link to its question
                scope, code = rule.split(".findings.")
                tier = scope.removeprefix("tier.")
                expected = sorted(q for q, r in rows.items() if code in r["findings"]
                                  and (scope == "overall" or r["risk_tier"] == tier))
                assert sorted(h.removeprefix("#q-") for h in target["links"]) == expected, rule
                assert expected
            elif rule.startswith("tier."):  # the heading of that tier's failing questions
                tier = rule.split(".")[1]
                failing = {q for q, r in rows.items() if r["risk_tier"] == tier and _failing(r)}
                assert target["tag"] == "H3"
                assert {i.removeprefix("q-") for i in target["next"][:len(failing)]} == failing, rule
            else:  # an overall metric: all failing questions
                assert {i.removeprefix("q-") for i in target["inner"]} == {q for q, r in rows.items() if _failing(r)}
        # following a rule's link scrolls its target into the window, below the sticky bar
        page.locator("a.rule", has_text="tier.critical.findings.NUMBER_UNSUPPORTED").click()
        href = by_rule["tier.critical.findings.NUMBER_UNSUPPORTED"]
        assert page.evaluate("location.hash") == href
        top = page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", href[1:])
        assert 0 <= top < PHONE[1] / 2
        # a finding links to its question: the link opens the question at q-<question id>
        question = page.locator(f"[id='{href[1:]}'] a").first
        qid = question.text_content()
        question.click()
        assert page.evaluate("location.hash") == f"#q-{qid}"
        top = page.evaluate("id => document.getElementById(id).getBoundingClientRect().top", f"q-{qid}")
        assert 0 <= top < PHONE[1] / 2
        assert "NUMBER_UNSUPPORTED" in page.locator(f"[id='q-{qid}'] > summary").text_content()
        shot = tmp_path / "phone-single-gate.png"
        page.locator(".banner").first.screenshot(path=str(shot))
        keep_screenshot(shot)
    assert problems == []


@pytest.mark.slow
def test_the_comparison_comes_first(reports, tmp_path: Path) -> None:
    need_chromium()
    for viewport in (DESKTOP, PHONE):
        with opened_report(reports["compare2"], tmp_path / f"profile-{viewport[0]}", viewport=viewport,
                           open_details=False) as (page, problems):
            tops = page.evaluate(
                "() => ({deltas: document.querySelector('details.cmp[open] table.deltas').getBoundingClientRect().top"
                " + scrollY, flips: document.querySelector('details.cmp[open] details.card').getBoundingClientRect().top"
                " + scrollY, run: document.querySelector('section[id^=\"run-\"]').getBoundingClientRect().top + scrollY,"
                " questions: document.querySelector('section[id^=\"questions-\"]').getBoundingClientRect().top + scrollY})")
            assert tops["deltas"] < tops["flips"] < tops["run"] < tops["questions"], tops
            if viewport == DESKTOP:
                assert tops["deltas"] < 1000, tops  # near the top, not ~4,350 px down
            else:
                shot = tmp_path / "phone-compare-deltas.png"
                page.locator("details.cmp[open] table.deltas").screenshot(path=str(shot))
                keep_screenshot(shot)
        assert problems == []


@pytest.mark.slow
def test_weekly_compares_a_variant_with_its_previous_run(reports, tmp_path: Path) -> None:
    need_chromium()
    rows = _rows(reports["runs"]["new"])
    with opened_report(reports["weekly"], tmp_path / "profile", viewport=PHONE, open_details=False) as (page, problems):
        heads = page.evaluate("Array.from(document.querySelectorAll('details.cmp > summary')).map(s => s.textContent)")
        heads = [" ".join(h.split()) for h in heads]
        assert f"B {NEW} (second) vs A {REF} (reference)" in heads
        assert f"B {NEW} (second) vs A {PREV} (second, its previous run)" in heads
        assert len(heads) == 2  # the reference variant ran once this week: nothing before it to compare with
        # the previous run answered like the reference: the same flips as against the baseline
        regressed = page.evaluate(
            "Array.from(document.querySelectorAll('details.cmp')).map(d => d.querySelector('.lede b.worse').textContent)")
        assert regressed[0] == regressed[1]
        # the baseline variant's questions are q-<id>; the second variant's carry its label
        for qid in list(rows)[:20]:
            assert page.locator(f"[id='q-{qid}']").count() == 1
            assert page.locator(f"[id='q-{qid}--second']").count() == 1
        # the trend plot shows every run id whole
        svg = page.evaluate(
            "() => atob(document.querySelector('#trends img').src.split(',')[1])")
        for run_id in (REF, PREV, NEW):
            assert run_id in svg
        assert "…" not in svg
        shot = tmp_path / "phone-weekly-trends.png"
        page.locator("#trends").screenshot(path=str(shot))
        keep_screenshot(shot)
    assert problems == []
