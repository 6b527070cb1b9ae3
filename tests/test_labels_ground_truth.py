"""A ground-truth annotation is the settled label, and every label keeps its rater's time (issue 32).

The export is test_labels_exports' real-shaped one (q1: rater 7's 102 replacing 101 and rater 8's
103; q2: rater 8 skips, rater 7 only accepts the prediction; q4: 401 and 402), with lead times set
per annotation and one more annotation on q1: 104 by user 9, starred as ground truth in Label
Studio, settling claim c2 / E1 (which 102 calls unsupported and 103 supported). Every figure below
is worked out by hand in the comments.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from labelstudio.runs import make_run
from test_labels_exports import TASK_IDS, _annotation, _choice, build_export
from typer.testing import CliRunner

from cli import app
from evals.contract.models import Judgment
from evals.label.push import write_tasks_file
from evals.store.jsonl import load_jsonl

runner = CliRunner()
A, B, JUDGE = "a@bank.test", "b@bank.test", "judge@bank.test"
SECONDS = {101: 10.0, 102: 60.0, 103: 90.0, 201: 5.0, 202: 7.0, 401: 30.0, 402: 45.0}


def _export(pushed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    export = build_export(pushed)
    for task in export:
        for annotation in task["annotations"]:
            annotation["lead_time"] = SECONDS[annotation["id"]]
    truth = _annotation(104, TASK_IDS["q1"], {"id": 9, "email": JUDGE}, "2024-04-05T10:00:00.000000Z",
                        [_choice("support_1_0", "card_1_0", "unsupported")])
    truth.update(ground_truth=True, lead_time=120.0)
    export[0]["annotations"].append(truth)
    return export


@pytest.fixture()
def pulled(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    run_dir = make_run(tmp_path)
    tasks_file = tmp_path / "import.json"
    write_tasks_file(run_dir, tasks_file, predictions=True)
    export = tmp_path / "export.json"
    export.write_text(json.dumps(_export(json.loads(tasks_file.read_text(encoding="utf-8")))), encoding="utf-8")
    result = runner.invoke(app, ["label", "pull", str(run_dir), "--from-file", str(export), "--rater", f"7={A}",
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    return run_dir, json.loads(result.output)


def test_a_ground_truth_annotation_is_pulled_as_adjudicated_not_as_a_rater(pulled) -> None:
    run_dir, report = pulled
    rows = load_jsonl(run_dir / "judgments.jsonl", Judgment)
    settled = [j for j in rows if j.source == "adjudicated"]
    assert [(j.question_id, j.claim_id, j.evidence_id, j.field, j.value) for j in settled] == [
        ("q1", "c2", "E1", "support", "unsupported")
    ]
    assert settled[0].model_extra["adjudicated_by"] == JUDGE and settled[0].model_extra["annotation_id"] == 104
    assert report["adjudicated"] == {"q1": JUDGE}
    assert sorted(report["raters"]) == [A, B]  # the judge is no rater: not in agreement, never "missing"
    assert not any(j.source == f"human:{JUDGE}" for j in rows)
    # 12 human labels as before plus the adjudicated one
    assert report["labels"] == 13


def test_lead_time_is_kept_per_annotation_and_counted_per_rater(pulled) -> None:
    run_dir, report = pulled
    rows = load_jsonl(run_dir / "judgments.jsonl", Judgment)
    seconds = {(j.source, j.question_id): j.model_extra.get("lead_time") for j in rows if j.source != "auto:offline"}
    assert seconds == {
        (f"human:{A}", "q1"): 60.0, (f"human:{B}", "q1"): 90.0,  # 102 replaced 101 (10 s)
        (f"human:{A}", "q4"): 30.0, (f"human:{B}", "q4"): 45.0,
        ("adjudicated", "q1"): 120.0,
    }
    assert report["raters"][A]["seconds"] == 90.0  # 60 + 30; 202 only accepted a prediction: not a label
    assert report["raters"][B]["seconds"] == 135.0 and report["raters"][B]["skipped_seconds"] == 5.0


def test_agree_reports_seconds_per_task_and_the_cost_per_accepted_answer(pulled) -> None:
    run_dir, _ = pulled
    result = runner.invoke(app, ["agree", str(run_dir), "--hourly-rate", "1200", "--resamples", "50"])
    assert result.exit_code == 0, result.output
    assert "Rater time" in result.output and "115.00 per accepted answer at 1200/hour" in result.output
    doc = json.loads((run_dir / "agreement.json").read_text(encoding="utf-8"))
    time = doc["rater_time"]
    # A: tasks 30 s and 60 s → median 45, p90 = 30 + 0.9·30 = 57, 2 tasks in 90 s → 80 tasks/hour
    assert time[f"human:{A}"]["seconds_per_task"] == {"median": 45.0, "p90": 57.0}
    assert time[f"human:{A}"]["tasks"] == 2 and time[f"human:{A}"]["tasks_per_hour"] == pytest.approx(80.0)
    # B: 45 s and 90 s → median 67.5, p90 = 45 + 0.9·45 = 85.5, 7200/135 tasks/hour
    assert time[f"human:{B}"]["seconds_per_task"] == {"median": 67.5, "p90": 85.5}
    assert time[f"human:{B}"]["tasks_per_hour"] == pytest.approx(7200 / 135, abs=1e-3)
    assert time["adjudicated"]["seconds_total"] == 120.0
    # q1: every unit agreed by both raters except c2/E1, which is adjudicated → accepted;
    # q4: s1/E1 supported vs unsupported, not adjudicated → not accepted.
    # 90 + 135 + 120 = 345 rater-seconds for 1 accepted answer; at 1200 an hour: 345/3600·1200 = 115
    cost = doc["cost"]
    assert (cost["answers"], cost["accepted_answers"], cost["rater_seconds"]) == (2, 1, 345.0)
    assert cost["hourly_rate"] == 1200.0 and cost["cost_per_accepted_answer"] == pytest.approx(115.0)
    # the adjudicated label is shown beside the disagreement, and the raters' statistics are unchanged
    support = doc["fields"]["support"]
    assert support["percent_agreement"]["value"] == pytest.approx(0.5)
    (c2,) = [d for d in support["disagreements"] if d.get("claim_id") == "c2"]
    assert c2["adjudicated"] == "unsupported"


def test_without_an_hourly_rate_the_cost_is_null_with_the_reason(pulled) -> None:
    run_dir, _ = pulled
    assert runner.invoke(app, ["agree", str(run_dir), "--resamples", "50"]).exit_code == 0
    cost = json.loads((run_dir / "agreement.json").read_text(encoding="utf-8"))["cost"]
    assert cost["cost_per_accepted_answer"] is None and "--hourly-rate" in cost["reason"]
    assert cost["seconds_per_accepted_answer"] == 345.0


def test_the_report_shows_seconds_per_task_per_rater_and_the_cost(pulled, tmp_path: Path) -> None:
    from test_report import NOW, answer_score, synthetic_run

    from evals.report.render import render_report

    run_dir, _ = pulled
    assert runner.invoke(app, ["agree", str(run_dir), "--hourly-rate", "1200", "--resamples", "50"]).exit_code == 0
    scored = synthetic_run(tmp_path / "scored", "r", "x", NOW, [answer_score("q1", True)])
    (scored / "agreement.json").write_bytes((run_dir / "agreement.json").read_bytes())
    html = render_report([scored], tmp_path / "r.html", now=NOW).path.read_text(encoding="utf-8")
    flat = " ".join(html.split())
    assert "Rater time (Label Studio lead_time)" in flat
    # A: 2 tasks, median 45.0, p90 57.0, 80.0 tasks per hour, 0.03 hours (90 s)
    assert (f'<code>human:{A}</code></th><td class="num" data-label="tasks">2</td>'
            '<td class="num" data-label="median s per task">45.0</td>') in flat
    assert '<td class="num" data-label="tasks per hour">80.0</td>' in flat
    assert "Accepted answers: 1 of 2" in flat and "cost 115.00 per accepted answer at 1200.0 per hour" in flat


def test_label_adjudicate_settles_the_open_disagreement_and_wins_over_the_raters(pulled, tmp_path: Path) -> None:
    run_dir, _ = pulled
    settled = tmp_path / "settled.jsonl"
    settled.write_text(
        json.dumps({"question_id": "q4", "claim_id": "s1", "evidence_id": "E1", "field": "support",
                    "value": "partial", "comment": "частично", "settled_by": "lead"}, ensure_ascii=False) + "\n",
        encoding="utf-8",
    )
    first = runner.invoke(app, ["label", "adjudicate", str(run_dir), "--from", str(settled), "--format", "json"])
    assert first.exit_code == 0, first.output
    assert json.loads(first.output)["added"] == 1
    again = runner.invoke(app, ["label", "adjudicate", str(run_dir), "--from", str(settled), "--format", "json"])
    assert json.loads(again.output) == {**json.loads(first.output), "added": 0, "unchanged": 1}
    assert runner.invoke(app, ["agree", str(run_dir), "--resamples", "50"]).exit_code == 0
    doc = json.loads((run_dir / "agreement.json").read_text(encoding="utf-8"))
    assert doc["cost"]["accepted_answers"] == 2  # q4's one open unit is settled now
    from evals.contract.precedence import chosen_labels

    chosen = chosen_labels(load_jsonl(run_dir / "judgments.jsonl", Judgment), "auto:offline")
    assert chosen[("q4", "s1", "E1", "support")] == "partial"  # adjudicated > human > auto
    assert chosen[("q1", "c2", "E1", "support")] == "unsupported"  # the ground truth over 103's supported


def test_a_bad_adjudication_line_names_file_and_line_and_writes_nothing(pulled, tmp_path: Path) -> None:
    run_dir, _ = pulled
    before = (run_dir / "judgments.jsonl").read_bytes()
    settled = tmp_path / "settled.jsonl"
    settled.write_text('{"question_id": "q4", "field": "should_abstain", "value": "no"}\n'
                       '{"question_id": "q4", "field": "support", "value": "partial"}\n', encoding="utf-8")
    result = runner.invoke(app, ["label", "adjudicate", str(run_dir), "--from", str(settled)])
    assert result.exit_code == 2 and f"{settled}:2" in result.output and "claim_id" in result.output
    assert (run_dir / "judgments.jsonl").read_bytes() == before


def test_the_adjudication_format_is_a_schema() -> None:
    result = runner.invoke(app, ["schema", "adjudication"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.output)
    assert schema["required"] == ["question_id", "field", "value"]
    assert set(schema["properties"]) >= {"question_id", "claim_id", "evidence_id", "field", "value", "comment"}
