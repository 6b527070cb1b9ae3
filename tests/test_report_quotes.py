"""The report's "Verbatim quotes" section: from the demo's quote results (`quotes eval --out`), in a
lab folder of its own or inside a run folder, in `citeval report` and `--weekly`; hostile answer
and quote text stays text; the highlighting of chosen and gold places is cut where it should be."""

from __future__ import annotations

import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from test_report import NOW, SCRIPT, answer_score, parse, synthetic_run
from typer.testing import CliRunner

from cli import app
from evals.quotes.evaluate import evaluate_path
from evals.report.quotes import Segment, load_quote_section, recommended_matcher, segments
from evals.report.render import render_report, render_weekly

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "datasets" / "demo"
MATCHERS = "sequencematcher,bm25,block,bm25+order"
runner = CliRunner()


@pytest.fixture(scope="module")
def demo_lab(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("lab") / "quotes-demo"
    evaluation = evaluate_path(DEMO, MATCHERS, sweep=True, tune=True)
    evaluation.write(out)
    return out


def test_segments_by_hand() -> None:
    # chosen [2, 5) and gold [4, 8) of "abcdefghij": ab | cd chosen | e both | fgh gold | ij
    assert segments("abcdefghij", (2, 5), (4, 8)) == [
        Segment("ab", ""), Segment("cd", "q-chosen"), Segment("e", "q-both"), Segment("fgh", "q-gold"),
        Segment("ij", ""),
    ]
    assert segments("abc", None, (0, 3)) == [Segment("abc", "q-gold")]
    long = "x" * 300 + "ЦЕЛЬ" + "y" * 300
    cut = segments(long, None, (300, 304))
    assert cut[0] == Segment("…", "") and cut[-1] == Segment("…", "") and Segment("ЦЕЛЬ", "q-gold") in cut
    assert sum(len(s.text) for s in cut[1:-1]) == 200 + 4 + 200


def test_recommended_is_best_within_the_wrong_place_limit() -> None:
    m = {
        "a": {"placement_accuracy": {"value": 0.9}, "wrong_place_rate": {"value": 0.2}},
        "b": {"placement_accuracy": {"value": 0.6}, "wrong_place_rate": {"value": 0.05}},
        "c": {"placement_accuracy": {"value": 0.5}, "wrong_place_rate": {"value": 0.0}},
    }
    assert recommended_matcher(m) == "b"
    assert recommended_matcher({"a": m["a"]}) is None


def test_demo_lab_renders_the_section(demo_lab: Path, tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(demo_lab), "--out", str(tmp_path / "q.html")])
    assert result.exit_code == 0, result.output
    assert "1 verbatim-quotes section(s)" in result.output
    html = (tmp_path / "q.html").read_text(encoding="utf-8")
    page = parse(html)
    assert page.tags["script"] == 0
    assert '<section id="quotes-quotes-demo" class="quotes">' in html and 'href="#quotes-quotes-demo"' in html
    for name in MATCHERS.split(","):
        assert f"<code>{name}</code>" in html
    assert "Threshold sweep: accuracy and wrong-place rate against coverage" in html
    assert "Paired test over the same citations" in html and "Tuned thresholds" in html
    doc = json.loads((demo_lab / "quotes.json").read_text(encoding="utf-8"))
    # the numbers are quotes.json's: bm25's accuracy and its interval as printed by the filters
    acc = doc["matchers"]["bm25"]["placement_accuracy"]
    assert f"{acc['value']:.3f} <span class=\"muted\">[{acc['ci'][0]:.2f}, {acc['ci'][1]:.2f}]</span>" in html
    section = load_quote_section(demo_lab)
    assert section is not None and section.sweep_plot is not None
    assert section.recommended == recommended_matcher(doc["matchers"])
    assert section.misses, "the demo's recommended matcher misses some citation"
    assert html.count('<mark class="q-') >= len(section.misses) + 3  # legend + each miss's places


def test_hostile_quotes_stay_text_in_a_run_folder(tmp_path: Path) -> None:
    answer_text = f"Ставка — 5 % {SCRIPT}. Срок <b>12</b> месяцев & больше."
    line = {
        "answer_id": "evil", "answer_text": answer_text,
        "citations": [{"citation_id": "c1", "cited_text": '<img src=x onerror="alert(1)"> 12 месяцев'}],
        "gold": [{"citation_id": "c1", "span": [0, 12]}],  # "Ставка — 5 %": the matcher picks the other clause
    }
    quotes = tmp_path / "evil.jsonl"
    quotes.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    run = synthetic_run(tmp_path / "runs", "r1", "base", NOW - timedelta(days=1), [answer_score("q1", True)])
    evaluate_path(quotes, "rapidfuzz", threshold=0.0).write(run)
    html = render_report([run], tmp_path / "r.html", now=NOW).path.read_text(encoding="utf-8")
    page = parse(html)
    assert page.tags["script"] == 0 and not [k for _, k, _ in page.attrs if k.startswith("on")]
    assert "&lt;script&gt;window.__citeval_xss = 1&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt; 12 месяцев" in html
    assert '<mark class="q-gold">Ставка — 5 %</mark>' in html
    assert "wrong place" in html


def test_weekly_shows_labs_of_the_week(demo_lab: Path, tmp_path: Path) -> None:
    root = tmp_path / "runs"
    synthetic_run(root, "mon", "base", NOW - timedelta(days=2), [answer_score("q1", True)])
    lab = root / "quotes-week"
    lab.mkdir()
    for name in ("quotes.json", "placements.jsonl"):
        (lab / name).write_bytes((demo_lab / name).read_bytes())
    doc = json.loads((lab / "quotes.json").read_text(encoding="utf-8"))
    doc["files"] = [str(DEMO / "quotes" / "answers.jsonl")]
    (lab / "quotes.json").write_text(json.dumps(doc), encoding="utf-8")
    old = root / "quotes-old"
    old.mkdir()
    (old / "quotes.json").write_bytes((demo_lab / "quotes.json").read_bytes())
    stamp = (NOW - timedelta(days=1)).timestamp()
    os.utime(lab / "quotes.json", (stamp, stamp))
    stale = datetime(2025, 1, 1, tzinfo=timezone.utc).timestamp()
    os.utime(old / "quotes.json", (stale, stale))  # before the window: left out
    result = render_weekly(root, tmp_path / "w.html", since="7d", now=NOW)
    html = result.path.read_text(encoding="utf-8")
    assert result.quote_sections == 1 and 'id="quotes-quotes-week"' in html and "quotes-old" not in html
    only_labs = tmp_path / "labs"
    only_labs.mkdir()
    (only_labs / "lab").mkdir()
    (only_labs / "lab" / "quotes.json").write_bytes((lab / "quotes.json").read_bytes())
    os.utime(only_labs / "lab" / "quotes.json", (stamp, stamp))
    assert render_weekly(only_labs, tmp_path / "w2.html", since="7d", now=NOW).quote_sections == 1


def test_broken_quote_results_exit_2(tmp_path: Path) -> None:
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "quotes.json").write_text('{"matchers": {}}', encoding="utf-8")
    result = runner.invoke(app, ["report", str(lab), "--out", str(tmp_path / "x.html")])
    assert result.exit_code == 2 and "quotes.json" in result.output and not (tmp_path / "x.html").exists()
