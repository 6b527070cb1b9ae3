"""`citeval quotes logs`: the 👍 rate with and without verbatim quotes from the bot's metrics lines.

Expected values are worked out by hand and from Newcombe (1998), "Interval estimation for the
difference between independent proportions: comparison of eleven methods", Stat Med 17:873,
Table II: for 56/70 − 48/80 the hybrid score interval (method 10) is 0.0524 to 0.3339.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cli import app
from evals.quotes.logs import analyse_logs, newcombe, two_proportion_z, wilson
from evals.store.quotes import read_quotes

runner = CliRunner()


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_wilson_by_hand() -> None:
    # 8/10: centre (0.8 + 1.92073/10) / 1.384146 = 0.716738, half 1.959964·√(0.016 + 0.0096036) / 1.384146 = 0.226577
    lo, hi = wilson(8, 10)  # type: ignore[misc]
    assert lo == pytest.approx(0.49016, abs=1e-5) and hi == pytest.approx(0.94331, abs=1e-5)  # hand: 5 places
    # 0/5: [0, z²/(n + z²)] = [0, 3.841459 / 8.841459]
    assert wilson(0, 5) == pytest.approx((0.0, 0.434482), abs=1e-6)
    assert wilson(0, 0) is None


def test_newcombe_and_z_test_against_the_paper() -> None:
    lo, hi = newcombe(56, 70, 48, 80)  # type: ignore[misc]
    assert lo == pytest.approx(0.0524, abs=5e-5) and hi == pytest.approx(0.3339, abs=5e-5)
    # pooled 104/150; se = √(0.693333·0.306667·(1/70 + 1/80)) = 0.075467; z = 0.2 / se
    test = two_proportion_z(56, 70, 48, 80)
    assert test["z"] == pytest.approx(2.6502, abs=2e-4) and test["p_value"] == pytest.approx(0.00804, abs=5e-5)
    assert two_proportion_z(3, 3, 2, 2)["p_value"] is None  # every reaction the same: no test, a reason


def test_against_statsmodels() -> None:
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    for x, n in [(8, 10), (1, 37), (99, 100), (0, 4)]:
        assert wilson(x, n) == pytest.approx(proportion.proportion_confint(x, n, method="wilson"), abs=1e-9)
    ci = proportion.confint_proportions_2indep(56, 70, 48, 80, method="newcomb", compare="diff")
    assert newcombe(56, 70, 48, 80) == pytest.approx(ci, abs=1e-9)


def _paper_logs(tmp_path: Path) -> Path:
    rows: list[dict[str, Any]] = []
    for k in range(70):  # 70 rated answers with quotes, 56 of them 👍
        rows.append({"event": "answer", "time": "2026-11-23T09:00:00Z", "answer_id": f"q{k}", "chat_id": 1000 + k,
                     "variant": "quotes-v1", "quotes_injected": 1 + k % 3})
        rows.append({"event": "feedback", "time": "2026-11-23T09:05:00Z", "answer_id": f"q{k}",
                     "value": "👍" if k < 56 else "👎"})
    for k in range(80):  # 80 rated answers without quotes, 48 of them 👍
        rows.append({"event": "answer", "time": "2026-11-23T10:00:00Z", "answer_id": f"n{k}", "chat_id": 2000 + k,
                     "variant": "quotes-v1", "quotes_injected": 0})
        # keyed by chat only: the chat's latest answer before the reaction
        rows.append({"event": "feedback", "time": "2026-11-23T10:01:00Z", "chat_id": 2000 + k,
                     "value": "up" if k < 48 else "down"})
    return _write(tmp_path / "metrics.jsonl", rows)


def test_logs_report_the_papers_numbers(tmp_path: Path) -> None:
    report = analyse_logs([_paper_logs(tmp_path)]).to_json()
    (day,) = report["days"]
    assert (day["day"], day["variant"], day["answers"], day["with_quotes"], day["without_quotes"]) == (
        "2026-11-23", "quotes-v1", 150, 70, 80)
    assert day["quotes_injected"] == sum(1 + k % 3 for k in range(70)) == 139
    assert day["up_rate_with_quotes"]["value"] == 0.8 and day["up_rate_without_quotes"]["value"] == 0.6
    assert day["difference"]["value"] == 0.2
    assert day["difference"]["ci"] == pytest.approx([0.0524, 0.3339], abs=5e-5)
    assert day["z_test"]["significant"] is True


def test_logs_grouping_keys_and_since(tmp_path: Path) -> None:
    rows = [
        {"event": "answer", "time": "2026-11-22T23:59:00Z", "answer_id": "old", "quotes_injected": 2},
        {"event": "answer", "time": "2026-11-23T08:00:00+03:00", "answer_id": "a1", "chat_id": "c1", "quotes_injected": 2},
        {"event": "feedback", "time": "2026-11-23T08:01:00+03:00", "answer_id": "a1", "value": "👎"},
        {"event": "feedback", "time": "2026-11-23T08:02:00+03:00", "answer_id": "a1", "value": "👍"},  # replaces 👎
        {"event": "answer", "time": "2026-11-23T12:00:00Z", "answer_id": "a2", "chat_id": "c1", "quotes_injected": 0},
        {"event": "answer", "time": "2026-11-24T12:00:00Z", "answer_id": "a3", "chat_id": "c1", "quotes_injected": 0,
         "variant": "control"},
        # chat c1's latest answer before 12:30 on the 23rd is a2, not a3 (sent later)
        {"event": "feedback", "time": "2026-11-23T12:30:00Z", "chat_id": "c1", "value": "-1"},
        {"event": "feedback", "time": "2026-11-23T12:30:00Z", "answer_id": "ghost", "value": "👍"},
        {"event": "typing", "time": "2026-11-23T12:30:00Z"},
    ]
    report = analyse_logs([_write(tmp_path / "m.jsonl", rows)], since="2026-11-23").to_json()
    assert report["events"] == {"answer": 4, "feedback": 4, "typing": 1}
    assert report["feedback_unmatched"] == 1
    days = {(d["day"], d["variant"]): d for d in report["days"]}
    # a1 was sent at 05:00 UTC on the 23rd; "old" is before --since
    assert sorted(days) == [("2026-11-23", "default"), ("2026-11-24", "control")]
    d = days[("2026-11-23", "default")]
    assert (d["answers"], d["with_quotes"], d["quotes_injected"]) == (2, 1, 2)
    assert d["up_rate_with_quotes"]["up"] == 1 and d["up_rate_with_quotes"]["n"] == 1
    assert d["up_rate_without_quotes"] == {"value": 0.0, "ci": pytest.approx([0.0, 0.793451], abs=1e-6), "n": 1, "up": 0}
    assert days[("2026-11-24", "control")]["up_rate_without_quotes"]["value"] is None
    assert days[("2026-11-24", "control")]["difference"]["reason"] == "a group has no rated answer"
    assert report["total"]["answers"] == 3


def test_export_low_scoring_sample_is_a_quotes_file(tmp_path: Path) -> None:
    def answer(aid: str, score: float, quotes: int = 1) -> dict[str, Any]:
        return {
            "event": "answer", "time": "2026-11-23T09:00:00Z", "answer_id": aid, "quotes_injected": quotes,
            "answer_text": "Обучение — раз в полгода.",
            "citations": [{"citation_id": "c1", "cited_text": "не реже одного раза в 6 месяцев"}],
            "placements": [{"citation_id": "c1", "span": [0, 24], "score": score}],
        }

    rows = [answer("high", 0.95), answer("low", 0.61), answer("mid", 0.8), answer("none", 0.1, quotes=0),
            {"event": "feedback", "time": "2026-11-23T09:01:00Z", "answer_id": "mid", "value": "👎"}]
    out = tmp_path / "review.jsonl"
    result = runner.invoke(app, ["quotes", "logs", str(_write(tmp_path / "m.jsonl", rows)), "--export", str(out),
                                 "--sample", "2"])
    assert result.exit_code == 0, result.output
    assert f"{out}: 2 answer(s) for review" in result.output
    assert [a.answer_id for a in read_quotes(out)] == ["low", "mid"]  # valid for label push --kind quotes
    first = json.loads(out.read_text(encoding="utf-8").splitlines()[0])
    assert first["weakest_score"] == 0.61 and first["logged_placements"][0]["span"] == [0, 24]


def test_cli_logs_text_and_bad_lines(tmp_path: Path) -> None:
    result = runner.invoke(app, ["quotes", "logs", str(_paper_logs(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "56/70 0.80 [0.69, 0.88]" in result.output and "48/80 0.60 [0.49, 0.70]" in result.output
    assert "+0.200 [+0.05, +0.33]" in result.output and "0.008" in result.output
    bad = _write(tmp_path / "bad.jsonl", [
        {"event": "answer", "time": "2026-11-23", "answer_id": "a", "quotes_injected": 1},
        {"event": "feedback", "time": "2026-11-23", "answer_id": "a", "value": "🔥"},
    ])
    result = runner.invoke(app, ["quotes", "logs", str(bad)])
    assert result.exit_code == 2 and "bad.jsonl:2" in result.output and "👍" in result.output
    result = runner.invoke(app, ["quotes", "logs", str(bad), "--since", "last week"])
    assert result.exit_code == 2 and "--since" in result.output


def test_feedback_emoji_with_a_skin_tone_or_presentation_selector_is_the_same_reaction():
    from evals.quotes.logs import FeedbackEvent

    def value(raw):
        return FeedbackEvent.model_validate({"event": "feedback", "time": "2026-11-23T10:00:00Z", "value": raw}).value

    # 👍 + U+1F3FD (medium skin tone), 👍 + U+FE0F (emoji presentation), 👎 + U+1F3FF
    assert [value(v) for v in ("\U0001F44D\U0001F3FD", "\U0001F44D\uFE0F", "\U0001F44E\U0001F3FF", "Thumbs_Up")] == [
        "up", "up", "down", "up"]
