"""`citeval score`, `eval`, `selftest` and the faults backend, end to end on real files."""

import json
from pathlib import Path

import pytest
from factories import write_dataset, write_replay
from typer.testing import CliRunner

from cli import app
from evals.run.runner import start_run

runner = CliRunner()
DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo"


def test_score_writes_its_files_and_never_reruns_the_backend(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    run = start_run(ds, "reference", out=tmp_path / "runs", run_id="r").run_dir
    before = (run / "answers.jsonl").read_bytes()
    result = runner.invoke(app, ["score", str(run), "--judge", "none", "--format", "json"])
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)
    assert scores["run_id"] == "r" and scores["n_questions"] == 3
    for name in ("findings.jsonl", "per_question.jsonl", "scores.json"):
        assert (run / name).exists()
    assert (run / "answers.jsonl").read_bytes() == before
    rows = [json.loads(x) for x in (run / "per_question.jsonl").read_text().splitlines()]
    assert [r["question_id"] for r in rows] == ["q1", "q2", "q3"]
    json.loads((run / "scores.json").read_text(), parse_constant=_no_nan)


def _no_nan(token):
    raise AssertionError(f"{token} in scores.json")


def test_score_reports_a_broken_answers_file(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    run = start_run(ds, "reference", out=tmp_path / "runs", run_id="r").run_dir
    with open(run / "answers.jsonl", "a", encoding="utf-8") as f:
        f.write('{"question_id": "q9", "status": "perhaps"}\n')
    result = runner.invoke(app, ["score", str(run), "--judge", "none"])
    assert result.exit_code == 2
    assert "answers.jsonl:4" in result.output and "Traceback" not in result.output


def test_faults_backend_records_what_it_changed(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "answers.jsonl")
    run = start_run(ds, f"faults:unsafe_link,uncited_claim:replay:{replay}", out=tmp_path / "r",
                    run_id="f").run_dir
    answers = {json.loads(x)["question_id"]: json.loads(x) for x in (run / "answers.jsonl").read_text().splitlines()}
    q1 = answers["q1"]
    assert [f["kind"] for f in q1["raw"]["faults"]] == ["unsafe_link", "uncited_claim"]
    assert q1["links"] == [{"evidence_id": "E1", "url": "javascript:alert(document.cookie)"}]
    assert q1["claims"][0]["evidence_ids"] == []
    assert answers["q3"]["raw"]["faults_not_applicable"] == ["unsafe_link", "uncited_claim"]  # abstained
    result = runner.invoke(app, ["score", str(run), "--judge", "none", "--format", "json"])
    # the uncited claim's "12" has no cited evidence left; q2 abstained though gold says answerable;
    # with its only marker gone, no valid marker reaches q1's gold evidence
    assert json.loads(result.stdout)["findings"] == {"CLAIM_UNCITED": 1, "GOLD_EVIDENCE_NOT_CITED": 1,
                                                     "LINK_UNSAFE_SCHEME": 1, "NUMBER_UNSUPPORTED": 1,
                                                     "UNNEEDED_ABSTENTION": 1}



@pytest.mark.slow
def test_selftest_on_the_demo_detects_every_kind():
    result = runner.invoke(app, ["selftest", str(DEMO), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["false_alarms"] == []
    assert {k["kind"]: k["detection_rate"] for k in data["kinds"]} == {k["kind"]: 1.0 for k in data["kinds"]}
    assert all(k["applicable"] >= 10 for k in data["kinds"])
