"""Navigating a report (issue 31), without a browser: question anchors by question id made safe for
HTML ids, failed gate rules linking to their questions, the page's lang from the content, every table
header scoped and every table captioned, and the trend plot naming each run by its whole id.
(tests/test_report_phone_browser.py checks the same pages laid out in chromium.)"""

from __future__ import annotations

import base64
import re
from datetime import timedelta
from pathlib import Path

import pytest
from test_report import IMG, NOW, SCRIPT, answer_score, parse, synthetic_run

from evals.errors import UsageError
from evals.report.anchors import Anchors, content_lang, id_part
from evals.report.render import render_report

SAFE_ID = re.compile(r"^[A-Za-z0-9_.:-]+$")


def test_id_part_keeps_safe_characters_and_encodes_the_rest():
    assert id_part("q-p1-003") == "q-p1-003"
    assert id_part("a_b.c:d-E9") == "a_b.c:d-E9"
    assert id_part("q 1/2") == "q_20_1_2f_2"  # space U+0020, slash U+002F
    assert id_part("вопрос") == "_432__43e__43f__440__43e__441_"
    assert id_part(IMG) == "_22__3e__3c_img_20_src_3d_x_20_onerror_3d__22_window.__citeval_xss_20__3d__20_2_22__3e_"
    assert SAFE_ID.match(id_part(SCRIPT + "\n\t#?&'"))


def test_anchors_are_unique_and_do_not_depend_on_order():
    one, two = Anchors(), Anchors()
    assert one.claim("q-", "a b") == "q-a_20_b"
    clash = one.claim("q-", "a_20_b")  # encodes like "a b": a suffix from its own hash
    assert clash.startswith("q-a_20_b-") and len(clash) == len("q-a_20_b-") + 8
    assert two.claim("q-", "a_20_b") == "q-a_20_b"  # first come, plain
    assert two.claim("q-", "a b") != "q-a_20_b"
    again = one.claim("q-", "a_20_b")  # the same text twice on one page still gets a new id
    assert again not in (clash, "q-a_20_b") and SAFE_ID.match(again)
    assert Anchors().claim("failing-", "run-1", "critical") == "failing-run-1-critical"


def test_content_lang_reads_the_letters():
    assert content_lang(["Какой срок?", "Не позднее 10 рабочих дней [E1]."]) == "ru"
    assert content_lang(["How long?", "Ten working days [E1]."]) == "en"
    assert content_lang(["How long is the Положение valid?", "Ten working days, see the policy."]) == "en"
    assert content_lang([None, "", "12 345 [E1]"]) == "en"  # no letters at all


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """A run whose question ids need encoding, gated by rules a tier and a finding code fail."""
    root = tmp_path_factory.mktemp("nav")
    ids = ["q1", "q 1", "q_20_1", IMG, "вопрос-7", "a/b#c"]
    scores = [answer_score(qid, passed=i % 2 == 1, tier="critical" if i < 3 else "policy",
                           validity=0.5 if i % 2 == 0 else 1.0) for i, qid in enumerate(ids)]
    run = synthetic_run(root / "runs", "r", "base", NOW - timedelta(days=1), scores)
    gates = root / "gates.toml"
    gates.write_text(
        'compare = "point"\n[overall]\ncitation_validity = { min = 0.95 }\n"findings.CLAIM_UNCITED" = { max = 0 }\n'
        '[tier.critical]\ncitation_validity = { min = 1.0 }\n"findings.CLAIM_UNCITED" = { max = 0 }\n',
        encoding="utf-8",
    )
    html = render_report([run], root / "report.html", gates=gates, now=NOW).path.read_text(encoding="utf-8")
    again = render_report([run], root / "again.html", gates=gates, now=NOW).path.read_text(encoding="utf-8")
    return ids, html, again


def _ids(html: str) -> list[str]:
    return [v for _, k, v in parse(html).attrs if k == "id"]


def test_question_anchors_are_question_ids_made_safe(hostile):
    ids, html, again = hostile
    page_ids = _ids(html)
    assert len(page_ids) == len(set(page_ids))
    assert all(SAFE_ID.match(i) for i in page_ids), [i for i in page_ids if not SAFE_ID.match(i)]
    questions = [i for i in page_ids if i.startswith("q-")]
    assert len(questions) == len(ids)
    assert {"q-q1", "q-q_20_1", "q-_432__43e__43f__440__43e__441_-7", "q-a_2f_b_23_c"} <= set(questions)
    # "q 1" and the literal "q_20_1" encode alike: one of them carries a hash suffix, both resolve
    assert len([i for i in questions if i.startswith("q-q_20_1")]) == 2
    assert _ids(again) == page_ids  # the same run, the same anchors
    assert IMG not in html and "window.__citeval_xss" in html  # the id payload is text, not markup


def test_failed_rules_and_findings_link_to_their_questions(hostile):
    ids, html, _ = hostile
    page = parse(html)
    hrefs = [v for t, k, v in page.attrs if t == "a" and k == "href" and v.startswith("#")]
    assert set(h[1:] for h in hrefs) <= set(_ids(html))  # every in-page link resolves
    rules = dict(re.findall(r'<a class="rule" href="(#[^"]+)"><code>([^<]+)</code>', html))
    assert {v: k for k, v in rules.items()} == {
        "overall.citation_validity": "#failing-r",
        "overall.findings.CLAIM_UNCITED": "#findings-r-CLAIM_UNCITED",
        "tier.critical.citation_validity": "#failing-r-critical",
        "tier.critical.findings.CLAIM_UNCITED": "#findings-r-CLAIM_UNCITED-critical",
    }
    # the critical questions with CLAIM_UNCITED: ids[0] and ids[2] (even indexes fail, the first 3 are critical)
    block = html[html.index('id="findings-r-CLAIM_UNCITED-critical"'):]
    block = block[:block.index("</div>")]
    assert re.findall(r'href="#([^"]+)"', block) == ["q-q1", "q-q_20_1"]  # in question id order
    assert "Failing — critical" in html and "Failing — policy" in html and ">Passing <" in html


def test_every_th_is_scoped_and_every_table_captioned(hostile):
    _, html, _ = hostile
    page = parse(html)
    scopes = [v for t, k, v in page.attrs if t == "th" and k == "scope"]
    assert len(scopes) == page.tags["th"] > 10
    assert set(scopes) == {"col", "row"}
    assert page.tags["table"] == page.tags["caption"] >= 4  # gate, tiers, cost, findings


def test_lang_follows_the_content_or_the_caller(hostile, tmp_path: Path):
    _, html, _ = hostile
    assert '<html lang="en">' in html  # no question text here: the ids alone say nothing
    run = synthetic_run(tmp_path / "runs", "r", "base", NOW, [answer_score("q1", True)])
    kk = render_report([run], tmp_path / "kk.html", now=NOW, lang="kk").path.read_text(encoding="utf-8")
    assert '<html lang="kk">' in kk
    with pytest.raises(UsageError):
        render_report([run], tmp_path / "bad.html", now=NOW, lang='ru" onload="x')


def test_trend_plots_name_each_run_by_its_whole_id(tmp_path: Path):
    long_ids = ["20250629T101500Z-fuzzy-sixty-threshold-a1b2c3d4", "20250630T101500Z-fuzzy-eighty-threshold-e5f6a7b8"]
    runs = [synthetic_run(tmp_path / "runs", run_id, label, NOW - timedelta(days=2 - i),
                          [answer_score(f"q{j}", passed=j != i) for j in range(4)])
            for i, (run_id, label) in enumerate(zip(long_ids, ("fuzzy-60", "fuzzy-80"), strict=True))]
    html = render_report(runs, tmp_path / "r.html", now=NOW).path.read_text(encoding="utf-8")
    trend = html[html.index('<section id="trends">'):]
    uri = re.search(r'src="data:image/svg\+xml;base64,([^"]+)"', trend).group(1)
    svg = base64.b64decode(uri).decode("utf-8")
    for run_id in long_ids:
        assert svg.count(run_id) >= 3  # one tick label per panel, whole
    assert "…" not in svg
    # the comparison (B − A) comes before the run's own detail and its questions
    assert html.index('<section id="comparison">') < html.index('<section id="run-') < html.index('id="questions-')
