"""`label pull --from-file` with exports in Label Studio's real shapes (issue 19).

Tasks and annotations carry every key a Label Studio 1.23 JSON export holds (the shape of
label-studio-sdk's own converter fixtures: `completed_by` as an integer user id or as an
object with the e-mail, `was_cancelled`, `ground_truth`, `lead_time`, `prediction`,
`parent_prediction`, results with `origin`, task `drafts` and `predictions`); JSON_MIN and CSV
exports are made from the same export by label-studio-sdk's own Converter. Every expected
count and statistic below is worked out by hand in the comments.

The run (tests/labelstudio/runs.py) has five reviewable answers: q1 (claims c1 → E1, c2 → E1,
E2), q2 (c1 → E1), q3 (abstained), q4 (s1 → E1), q6. The export:

- q1 (task 11): rater 7 annotates (101), then annotates again (102, replaces 101); rater 8
  ({id, email}) annotates (103); rater 8 also left a draft.
- q2 (task 12): rater 8 skips (201); rater 7 submits the auto judge's prediction unchanged (202).
- q4 (task 14): rater 7 (401) and rater 8 (402).
- q3 and q6: nobody annotated them, so Label Studio's JSON export leaves them out.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from labelstudio.runs import make_run
from typer.testing import CliRunner

from cli import app
from evals.contract.models import Judgment
from evals.label.config import config_path
from evals.label.push import write_tasks_file
from evals.store.jsonl import load_jsonl

runner = CliRunner()
A, B = "a@bank.test", "b@bank.test"
USER_B = {"id": 8, "email": B, "first_name": "", "last_name": ""}
TASK_IDS = {"q1": 11, "q2": 12, "q3": 13, "q4": 14, "q6": 16}


def _choice(name: str, to: str, value: str, origin: str = "manual") -> dict[str, Any]:
    return {"id": f"{name}-x", "type": "choices", "value": {"choices": [value]}, "origin": origin,
            "to_name": to, "from_name": name}


def _annotation(
    ann_id: int, task_id: int, who: Any, at: str, result: list[dict[str, Any]], *, cancelled: bool = False,
    parent_prediction: int | None = None,
) -> dict[str, Any]:
    user = who["id"] if isinstance(who, dict) else who
    return {
        "id": ann_id, "completed_by": who, "result": result, "reviews": [], "was_cancelled": cancelled,
        "ground_truth": False, "created_at": at, "updated_at": at, "draft_created_at": None, "lead_time": 41.7,
        "prediction": {}, "result_count": 0, "unique_id": f"00000000-0000-4000-8000-{ann_id:012d}",
        "import_id": None, "last_action": None, "task": task_id, "project": 3, "updated_by": user,
        "parent_prediction": parent_prediction, "parent_annotation": None, "last_created_by": user,
    }


def _task(pushed: dict[str, Any], annotations: list[dict[str, Any]], drafts: list[dict[str, Any]] | None = None,
          predictions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    qid = pushed["data"]["question_id"]
    return {
        "id": TASK_IDS[qid], "annotations": annotations, "file_upload": None, "drafts": drafts or [],
        "predictions": predictions or [], "data": pushed["data"], "meta": pushed["meta"],
        "created_at": "2024-03-06T09:00:00.000000Z", "updated_at": "2024-04-03T12:00:00.000000Z",
        "inner_id": TASK_IDS[qid] - 10, "total_annotations": sum(not a["was_cancelled"] for a in annotations),
        "cancelled_annotations": sum(a["was_cancelled"] for a in annotations),
        "total_predictions": len(predictions or []), "comment_count": 0, "unresolved_comment_count": 0,
        "last_comment_updated_at": None, "project": 3, "updated_by": 1, "comment_authors": [],
    }


def build_export(pushed: list[dict[str, Any]], a: Any = 7, b: Any = USER_B) -> list[dict[str, Any]]:
    by_q = {t["data"]["question_id"]: t for t in pushed}
    (prediction,) = by_q["q2"]["predictions"]  # the auto judge's labels, pushed with --predictions
    prediction = {**prediction, "id": 900, "task": 12, "score": None, "created_ago": "3 weeks"}
    accepted = [{**r, "id": f"p{i}", "origin": "prediction"} for i, r in enumerate(prediction["result"])]
    q1 = _task(
        by_q["q1"],
        [
            _annotation(101, 11, a, "2024-04-01T10:00:00.000000Z",
                        [_choice("support_0_0", "card_0_0", "partial"), _choice("should_abstain", "answer", "yes")]),
            _annotation(102, 11, a, "2024-04-02T10:00:00.000000Z", [
                _choice("support_0_0", "card_0_0", "supported"),
                _choice("support_1_0", "card_1_0", "unsupported"),
                _choice("support_1_1", "card_1_1", "supported"),
                _choice("should_abstain", "answer", "no"),
            ]),
            _annotation(103, 11, b, "2024-04-03T10:00:00.000000Z", [
                _choice("support_0_0", "card_0_0", "supported"),
                _choice("support_1_0", "card_1_0", "supported"),
                _choice("support_1_1", "card_1_1", "supported"),
                _choice("should_abstain", "answer", "no"),
            ]),
        ],
        drafts=[{"id": 5, "user": B, "created_username": B, "created_ago": "1 day", "task": 11, "annotation": None,
                 "result": [_choice("version_ok", "answer", "no")], "lead_time": 3.2, "was_postponed": False,
                 "import_id": None, "created_at": "2024-04-03T11:00:00Z", "updated_at": "2024-04-03T11:00:00Z"}],
    )
    q2 = _task(
        by_q["q2"],
        [
            _annotation(201, 12, b, "2024-04-03T11:00:00.000000Z", [], cancelled=True),
            _annotation(202, 12, a, "2024-04-03T12:00:00.000000Z", accepted, parent_prediction=900),
        ],
        predictions=[prediction],
    )
    q4 = _task(
        by_q["q4"],
        [
            _annotation(401, 14, a, "2024-04-04T10:00:00.000000Z",
                        [_choice("support_0_0", "card_0_0", "supported"), _choice("should_abstain", "answer", "no")]),
            _annotation(402, 14, b, "2024-04-04T11:00:00.000000Z",
                        [_choice("support_0_0", "card_0_0", "unsupported"), _choice("should_abstain", "answer", "no")]),
        ],
    )
    return [q1, q2, q4]


@pytest.fixture()
def pushed_run(tmp_path: Path) -> tuple[Path, list[dict[str, Any]]]:
    run_dir = make_run(tmp_path)
    tasks_file = tmp_path / "import.json"
    assert write_tasks_file(run_dir, tasks_file, predictions=True) == 5  # push --to-file records the 5 tasks
    return run_dir, json.loads(tasks_file.read_text(encoding="utf-8"))


def _write(path: Path, export: list[dict[str, Any]]) -> Path:
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    return path


def _pull(run_dir: Path, export: Path, *extra: str) -> Any:
    return runner.invoke(app, ["label", "pull", str(run_dir), "--from-file", str(export), *extra])


def _human(run_dir: Path) -> list[Judgment]:
    return [j for j in load_jsonl(run_dir / "judgments.jsonl", Judgment) if j.source.startswith("human:")]


def test_a_real_export_pulls_the_hand_worked_labels_and_missing_counts(pushed_run, tmp_path: Path) -> None:
    run_dir, pushed = pushed_run
    export = _write(tmp_path / "export.json", build_export(pushed))
    result = _pull(run_dir, export, "--rater", f"7={A}", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    # A: q1 from 102 (101 replaced): 4 labels; q4: 2. q2's 202 only accepts the prediction: not a label.
    # B: q1 (103): 4; q4: 2; q2 skipped. 12 labels in all.
    assert report["labels"] == report["added"] == 12
    assert report["raters"][A]["tasks"] == 2 and report["raters"][A]["labels"] == 6
    assert report["raters"][B]["tasks"] == 2 and report["raters"][B]["labels"] == 6 and report["raters"][B]["skipped"] == 1
    # q3 and q6 are not in the export but were pushed: missing for both raters, like q2
    assert report["raters"][A]["missing"] == ["q2", "q3", "q6"] == report["raters"][B]["missing"]
    assert report["tasks"] == 5 and report["not_in_export"] == ["q3", "q6"]
    assert report["tasks_short_of_two_raters"] == {"0": 3}  # q2, q3, q6: 6 annotations to go
    assert report["predictions_accepted"] == ["q2 (annotation 202, a@bank.test)"]
    assert report["drafts_ignored"] == 1
    rows = {(j.question_id, j.claim_id, j.evidence_id, j.field, j.source): j for j in _human(run_dir)}
    assert rows[("q1", "c2", "E1", "support", f"human:{A}")].value == "unsupported"
    assert rows[("q1", "c1", "E1", "support", f"human:{A}")].value == "supported"  # 102, not 101's partial
    assert {j.model_extra["annotation_id"] for j in rows.values()} == {102, 103, 401, 402}  # type: ignore[index]
    text = _pull(run_dir, export, "--rater", f"7={A}")
    assert "still missing for two raters per task: 3 task(s) with 0 rater(s) — 6 annotation(s) to go" in text.output
    assert "2 task(s) pushed but not in the export" in text.output
    assert "accepted a pre-annotation unchanged" in text.output


def test_agreement_over_the_pulled_export_equals_the_hand_worked_value(pushed_run, tmp_path: Path) -> None:
    run_dir, pushed = pushed_run
    assert _pull(run_dir, _write(tmp_path / "e.json", build_export(pushed)), "--rater", f"7={A}").exit_code == 0
    assert runner.invoke(app, ["agree", str(run_dir)]).exit_code == 0
    support = json.loads((run_dir / "agreement.json").read_text(encoding="utf-8"))["fields"]["support"]
    # Units rated by both: q1 c1/E1 S,S · q1 c2/E1 U,S · q1 c2/E2 S,S · q4 s1/E1 S,U.
    # p_o = 2/4. Each rater: S 3, U 1 → p_e = (3/4)² + (1/4)² = 10/16; κ = (1/2 − 5/8)/(3/8) = −1/3.
    # α: n_S = 6, n_U = 2, n = 8; D_o = 4/8; D_e = 2·6·2/(8·7) = 3/7; α = 1 − (1/2)/(3/7) = −1/6.
    assert support["n_units"] == 4
    assert support["percent_agreement"]["value"] == pytest.approx(0.5, abs=1e-6)
    assert support["cohen_kappa"]["value"] == pytest.approx(-1 / 3, abs=1e-6)
    assert support["krippendorff_alpha"]["value"] == pytest.approx(-1 / 6, abs=1e-6)
    assert sorted(support["raters"]) == [f"human:{A}", f"human:{B}"]


def test_counting_predictions_when_asked(pushed_run, tmp_path: Path) -> None:
    run_dir, pushed = pushed_run
    export = _write(tmp_path / "e.json", build_export(pushed))
    result = _pull(run_dir, export, "--rater", f"7={A}", "--count-predictions", "--format", "json")
    report = json.loads(result.output)
    # 202 counts: q2 c1/E1 supported and version_ok no, as the auto judge said → A 8 labels, 3 tasks
    assert report["labels"] == 14 and report["raters"][A]["labels"] == 8 and report["raters"][A]["tasks"] == 3
    assert report["tasks_short_of_two_raters"] == {"0": 2, "1": 1}


def test_one_person_never_becomes_two_raters(pushed_run, tmp_path: Path) -> None:
    run_dir, pushed = pushed_run
    export = _write(tmp_path / "e.json", build_export(pushed))
    first = _pull(run_dir, export, "--format", "json")  # no --rater: user 7 is ls-user-7
    assert first.exit_code == 0 and "ls-user-7" in json.loads(first.output)["raters"]
    rows = len(_human(run_dir))
    second = _pull(run_dir, export, "--rater", f"7={A}")
    assert second.exit_code == 2, second.output
    assert "user 7 is already the rater 'ls-user-7'" in second.output and "two raters" in second.output
    assert len(_human(run_dir)) == rows
    # without the raters file the rows' annotation ids still tell: annotation 102 was ls-user-7's
    (run_dir / "label_raters.json").unlink()
    third = _pull(run_dir, export, "--rater", f"7={A}")
    assert third.exit_code == 2 and "annotation 102" in third.output and "ls-user-7" in third.output, third.output
    assert len(_human(run_dir)) == rows
    # the same names as before pull nothing new
    again = _pull(run_dir, export, "--rater", "7=ls-user-7", "--format", "json")
    assert again.exit_code == 0 and json.loads(again.output)["added"] == 0


def test_the_raters_file_keeps_a_mapping_once_seen(pushed_run, tmp_path: Path) -> None:
    run_dir, pushed = pushed_run
    export = _write(tmp_path / "e.json", build_export(pushed))
    assert _pull(run_dir, export, "--rater", f"7={A}").exit_code == 0
    assert json.loads((run_dir / "label_raters.json").read_text(encoding="utf-8"))["users"] == {"7": A, "8": B}
    # a later export names rater 7 by id only; no --rater needed any more
    later = build_export(pushed)
    later[2]["annotations"][0]["result"][0] = _choice("support_0_0", "card_0_0", "partial")
    later[2]["annotations"][0]["updated_at"] = "2024-04-09T10:00:00.000000Z"
    result = _pull(run_dir, _write(tmp_path / "later.json", later), "--format", "json")
    assert result.exit_code == 0 and json.loads(result.output)["added"] == 1
    assert _human(run_dir)[-1].source == f"human:{A}"


def test_anonymous_exports_are_refused_unless_raters_are_kept_apart(pushed_run, tmp_path: Path) -> None:
    run_dir, pushed = pushed_run
    export = _write(tmp_path / "anon.json", build_export(pushed, a=None, b=None))
    refused = _pull(run_dir, export)
    assert refused.exit_code == 2 and "completed_by" in refused.output and "--anonymous-raters" in refused.output
    assert not _human(run_dir)
    kept = _pull(run_dir, export, "--anonymous-raters", "--format", "json")
    assert kept.exit_code == 0, kept.output
    report = json.loads(kept.output)
    # each annotation is its own rater: 101 (2 labels) no longer replaced by 102 (4); 103: 4; 401: 2; 402: 2
    assert sorted(report["raters"]) == [f"anonymous-{n}" for n in (101, 102, 103, 201, 401, 402)]  # 201 skipped
    assert report["labels"] == 14 and report["anonymous_annotations"] == 7  # 202, the accepted prediction, too
    text = _pull(run_dir, export, "--anonymous-raters")
    assert "kept apart by annotation id" in text.output


def test_anonymous_annotations_named_by_a_rater_map(pushed_run, tmp_path: Path) -> None:
    run_dir, pushed = pushed_run
    export = _write(tmp_path / "anon.json", build_export(pushed, a=None, b=None))
    names = {101: A, 102: A, 202: A, 401: A, 103: B, 201: B, 402: B}
    flags = [arg for ann, who in names.items() for arg in ("--rater", f"annotation:{ann}={who}")]
    result = _pull(run_dir, export, *flags, "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["labels"] == 12 and report["raters"][A]["labels"] == 6  # the named case again


@pytest.mark.parametrize("kind", ["JSON_MIN", "CSV"])
def test_json_min_and_csv_exports_are_refused_by_name(pushed_run, tmp_path: Path, kind: str) -> None:
    from label_studio_sdk.converter import Converter

    run_dir, pushed = pushed_run
    source = _write(tmp_path / "full.json", build_export(pushed))
    converter = Converter(config=config_path("ru").read_text(encoding="utf-8"), project_dir=None,
                          download_resources=False)
    converter.convert(str(source), str(tmp_path / kind), kind, is_dir=False)
    (made,) = (tmp_path / kind).iterdir()
    result = _pull(run_dir, made)
    assert result.exit_code == 2, result.output
    assert ("JSON_MIN export" if kind == "JSON_MIN" else "CSV/TSV export") in result.output
    assert "export the project as 'JSON'" in result.output and "Traceback" not in result.output
    assert not _human(run_dir)


def test_a_pull_without_a_recorded_push_still_works(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path)
    from evals.label.tasks import TaskBuilder
    from evals.store.runfolder import RunFolder

    pushed = TaskBuilder(RunFolder(run_dir)).tasks(predictions=True)
    export = copy.deepcopy(build_export(pushed))
    result = _pull(run_dir, _write(tmp_path / "e.json", export), "--rater", f"7={A}", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert report["tasks"] == 3 and report["not_in_export"] == []  # nothing recorded: only the export's tasks


def test_a_json_min_export_of_unlabelled_tasks_is_refused_too(pushed_run, tmp_path: Path) -> None:
    """JSON_MIN of tasks nobody annotated: the SDK's converter writes `annotator: null` and
    `annotation_id: null` beside the flat task data, and no `data` or `annotations`."""
    from label_studio_sdk.converter import Converter

    run_dir, pushed = pushed_run
    tasks = [{**t, "annotations": [], "drafts": []} for t in build_export(pushed)]
    source = _write(tmp_path / "full.json", tasks)
    converter = Converter(config=config_path("ru").read_text(encoding="utf-8"), project_dir=None,
                          download_resources=False)
    converter.convert(str(source), str(tmp_path / "min"), "JSON_MIN", is_dir=False)
    (made,) = (tmp_path / "min").iterdir()
    records = json.loads(made.read_text(encoding="utf-8"))
    assert records and all(r["annotator"] is None and "data" not in r and "annotations" not in r for r in records)
    result = _pull(run_dir, made)
    assert result.exit_code == 2, result.output
    assert "JSON_MIN export" in result.output and "Traceback" not in result.output
    assert not _human(run_dir)
