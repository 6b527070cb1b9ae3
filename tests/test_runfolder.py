"""The run folder through every stage: a CSV-questions dataset goes through run, score, label push
--to-file and agree with its own texts and times; `citeval agree` writes judge_agreement; the
label precedence of DESIGN 5 has one tie-break."""

from __future__ import annotations

import csv
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from evals.contract.models import Judgment, parse_time
from evals.contract.precedence import chosen_labels, latest_by_source
from evals.label.push import write_tasks_file
from evals.run.runner import RunOptions, start_run
from evals.score.scoring import score_run
from evals.store.runfolder import RunFolder

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "datasets" / "demo"
T0 = "2025-03-01T00:00:00+00:00"


def _demo_questions(n: int) -> list[dict]:
    lines = (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[:n]]


def csv_dataset(root: Path, n: int = 4) -> tuple[Path, list[dict]]:
    """The demo registry with its first n questions as questions.csv (flat columns, JSON cells)."""
    ds = root / "csv-ds"
    ds.mkdir()
    (ds / "registry").symlink_to(DEMO / "registry")
    rows = _demo_questions(n)
    with open(ds / "questions.csv", "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question_id", "question", "asked_at", "risk_tier", "tags", "user_id", "groups", "gold"])
        for q in rows:
            writer.writerow([q["question_id"], q["question"], q["asked_at"], q["risk_tier"], ";".join(q["tags"]),
                             q["user"]["user_id"], ";".join(q["user"]["groups"]), json.dumps(q["gold"])])
    return ds, rows


def judgment(q: str, c: str, source: str, value: str, e: str = "E1", at: str = T0) -> dict:
    return {"run_id": "r", "question_id": q, "claim_id": c, "evidence_id": e, "source": source,
            "field": "support", "value": value, "at": at}


def append(path: Path, rows: list[dict]) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def test_csv_questions_go_through_run_score_push_and_agree(tmp_path: Path) -> None:
    ds, rows = csv_dataset(tmp_path)
    run_dir = start_run(ds, "reference", out=tmp_path / "runs", run_id="r", options=RunOptions()).run_dir
    scored = score_run(run_dir)
    assert scored.scores.n_questions == len(rows)

    tasks = {t["data"]["question_id"]: t["data"] for t in _tasks(run_dir, tmp_path / "t.json")}
    by_id = {q["question_id"]: q for q in rows}
    assert tasks, "the reference backend answers some demo questions"
    for qid, data in tasks.items():
        assert data["question"] == by_id[qid]["question"]  # the CSV's text, not "(q-…)"
        assert data["asked_at"] == parse_time(by_id[qid]["asked_at"]).isoformat()  # the CSV's time, not the run's

    # two raters disagree on one pair: agree shows it with the CSV's question text
    unit = next((q, c["claim_id"], c["cards"][0]["evidence_id"]) for q, d in tasks.items() for c in d["claims"]
                if c["cards"])
    append(run_dir / "judgments.jsonl", [judgment(*unit[:2], "human:anna", "supported", e=unit[2]),
                                         judgment(*unit[:2], "human:boris", "unsupported", e=unit[2])])
    done = CliRunner().invoke(app, ["agree", str(run_dir), "--format", "json"])
    assert done.exit_code == 0, done.output
    written = json.loads((run_dir / "agreement.json").read_text(encoding="utf-8"))
    [entry] = written["fields"]["support"]["disagreements"]
    assert entry["question"] == by_id[unit[0]]["question"]


def _tasks(run_dir: Path, out: Path) -> list[dict]:
    write_tasks_file(run_dir, out)
    return json.loads(out.read_text(encoding="utf-8"))


def test_agree_writes_judge_agreement_with_a_hand_worked_kappa(tmp_path: Path) -> None:
    run_dir = tmp_path / "r"
    run_dir.mkdir()
    append(run_dir / "judgments.jsonl", [
        judgment("q1", "c1", "human:ann", "supported"), judgment("q1", "c1", "auto:offline", "supported"),
        judgment("q1", "c2", "human:ann", "unsupported"), judgment("q1", "c2", "auto:offline", "unsupported"),
        judgment("q2", "c1", "human:ann", "unsupported"), judgment("q2", "c1", "auto:offline", "supported"),
        judgment("q2", "c2", "human:ann", "supported"), judgment("q2", "c2", "auto:offline", "supported"),
    ])
    done = CliRunner().invoke(app, ["agree", str(run_dir)])
    assert done.exit_code == 0, done.output
    offline = json.loads((run_dir / "agreement.json").read_text(encoding="utf-8"))["judge_agreement"]["auto:offline"]
    # (truth, judge): (S,S) (U,U) (U,S) (S,S): po = 3/4; truth S 2 U 2, judge S 3 U 1
    # pe = (2·3 + 2·1) / 16 = 1/2, κ = (3/4 − 1/2) / (1 − 1/2) = 1/2
    assert offline["n"] == 4 and offline["n_questions"] == 2
    assert offline["cohen_kappa"]["value"] == pytest.approx(0.5)
    assert offline["accuracy"]["value"] == pytest.approx(0.75)
    assert offline["unsupported_precision"]["value"] == pytest.approx(1.0)  # 1 of 1 judged unsupported
    assert offline["unsupported_recall"]["value"] == pytest.approx(0.5)  # 1 of 2 truly unsupported


def test_one_tie_break_later_in_the_file_wins_and_rank_beats_time() -> None:
    rows = [Judgment.model_validate(r) for r in (
        judgment("q1", "c1", "human:ann", "supported"),
        judgment("q1", "c1", "human:ann", "partial"),  # same at: the later line wins
        judgment("q1", "c2", "adjudicated", "unsupported"),
        judgment("q1", "c2", "human:ann", "supported", at="2025-03-09T00:00:00+00:00"),  # later, but lower rank
        judgment("q1", "c3", "auto:offline", "supported"),
        judgment("q1", "c3", "auto:llm", "unsupported"),  # another judge: not chosen
    )]
    chosen = chosen_labels(rows, "auto:offline")
    assert chosen[("q1", "c1", "E1", "support")] == "partial"
    assert chosen[("q1", "c2", "E1", "support")] == "unsupported"
    assert chosen[("q1", "c3", "E1", "support")] == "supported"
    per_source = {(unit.claim_id, source): j.value for (_, unit, source), j in latest_by_source(rows).items()}
    assert per_source[("c1", "human:ann")] == "partial" and per_source[("c2", "human:ann")] == "supported"


def test_reading_a_run_never_writes_and_per_question_rows_are_typed(tmp_path: Path) -> None:
    ds, _ = csv_dataset(tmp_path, n=3)
    run_dir = start_run(ds, "reference", out=tmp_path / "runs", run_id="r").run_dir
    score_run(run_dir, judge="none")
    with open(run_dir / "answers.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"question_id": "torn", "sta')
    before = (run_dir / "answers.jsonl").read_bytes()
    run = RunFolder(run_dir)
    assert "torn" not in run.answers and (run_dir / "answers.jsonl").read_bytes() == before
    assert set(run.per_question) == set(run.answers)
    row = next(iter(run.per_question.values()))
    assert row.status in ("answered", "abstained", "error") and row.value("error_rate") in (0.0, 1.0)
    errors = sum(a.status == "error" for a in run.answers.values()) / len(run.answers)
    assert run.scores.metric("error_rate").value == pytest.approx(errors)
    first = _demo_questions(1)[0]
    assert run.asked_at(first["question_id"]) == datetime.fromisoformat(first["asked_at"]).astimezone(timezone.utc)


def test_the_report_template_fails_on_an_undefined_name() -> None:
    import jinja2

    from evals.report.render import environment

    with pytest.raises(jinja2.UndefinedError):
        environment().from_string("{{ scores.no_such_section }}").render(scores={})


def test_a_metric_another_stage_adds_is_averaged_and_read_back_typed() -> None:
    from evals.contract.scores import QuestionScore, Scores
    from evals.score.metrics import AnswerScore, build_scores

    rows = []
    for qid, recall in (("a", 1.0), ("b", 0.5), ("c", None)):
        s = AnswerScore(question_id=qid, risk_tier="critical", tags=[], status="answered")
        s.values = {"error_rate": 0.0, "key_fact_recall": recall}
        rows.append(s)
    doc = build_scores(rows).to_json()
    assert doc["metrics"]["key_fact_recall"]["value"] == pytest.approx(0.75) and doc["metrics"]["key_fact_recall"]["n"] == 2
    assert doc["by_tier"]["critical"]["key_fact_recall"] == doc["by_tier"]["critical"]["metrics"]["key_fact_recall"]
    back = Scores.model_validate(json.loads(json.dumps(doc)))
    assert back.metric("key_fact_recall", "critical").value == pytest.approx(0.75)
    row = QuestionScore.model_validate(rows[1].to_json())
    assert row.value("key_fact_recall") == 0.5 and row.value("citation_validity") is None
