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


def test_judge_none_leaves_the_judged_metrics_null_with_a_reason(tmp_path):
    """--judge none: an answer nobody labelled has no citation_correctness / completeness — an
    invalid marker (E9) or an uncited claim alone is no judgment — so they are null with the reason
    and print "—", never 0.000; a person's label still counts; a judge gives the values again."""
    ds = write_dataset(tmp_path / "ds")
    replay = tmp_path / "answers.jsonl"
    replay.write_text(json.dumps({
        "question_id": "q1", "status": "answered",
        "answer_text": "Раз в 12 месяцев [E9]. Порог сдачи теста 70 %.",
        "claims": [{"claim_id": "c1", "text": "Раз в 12 месяцев.", "evidence_ids": ["E9"]},
                   {"claim_id": "c2", "text": "Порог сдачи теста 70 %.", "evidence_ids": []}],
        "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1"}],
    }, ensure_ascii=False) + "\n", encoding="utf-8")
    run = start_run(ds, f"replay:{replay}", out=tmp_path / "runs", run_id="r").run_dir
    reason = "no support judge (--judge none): score with --judge offline or llm"

    result = runner.invoke(app, ["score", str(run), "--judge", "none", "--format", "json"])
    assert result.exit_code == 0, result.output
    metrics = json.loads(result.stdout)["metrics"]
    for name in ("citation_correctness", "citation_completeness", "context_support"):
        assert (metrics[name]["value"], metrics[name]["reason"]) == (None, reason), name
    row = json.loads((run / "per_question.jsonl").read_text().splitlines()[0])
    assert row["reasons"]["citation_correctness"] == reason
    text = runner.invoke(app, ["score", str(run), "--judge", "none"]).stdout
    table = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in text.splitlines() if "│" in line}
    assert table["citation_correctness"] == table["citation_completeness"] == "—"
    assert f"citation_correctness: {reason}" in text

    offline = json.loads(runner.invoke(app, ["score", str(run), "--format", "json"]).stdout)["metrics"]
    # the judge ran: the invalid marker counts 0 (0/1), the uncited claim too (0 of c1, c2)
    assert offline["citation_correctness"]["value"] == 0.0 and offline["citation_completeness"]["value"] == 0.0

    # a person's label is a judgment: c1's pair is labelled unsupported, so q1 has values again
    (run / "judgments.jsonl").write_text(json.dumps({
        "run_id": "r", "question_id": "q1", "claim_id": "c1", "evidence_id": "E9", "source": "human:ivanova",
        "field": "support", "value": "unsupported", "at": "2024-05-02T10:00:00Z"}) + "\n", encoding="utf-8")
    labelled = json.loads(runner.invoke(app, ["score", str(run), "--judge", "none", "--format", "json"]).stdout)
    assert labelled["metrics"]["citation_correctness"]["value"] == 0.0
