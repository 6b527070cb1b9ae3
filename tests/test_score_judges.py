"""`citeval score` with the offline judge, an LLM judge and Ragas faithfulness, against local
fake LLM services; and judge-vs-human agreement in scores.json."""

import json
from datetime import datetime, timezone

from factories import TEXT_A1, TEXT_A2, write_dataset
from servers.fixtures import fake_openai  # noqa: F401
from typer.testing import CliRunner

from cli import app
from evals.contract.models import Judgment
from evals.run.runner import start_run
from evals.store.jsonl import JsonlAppender

runner = CliRunner()


def reference_run(tmp_path):
    """A recorded run: q1 and q2 quote their evidence verbatim, q3 is refused."""
    ds = write_dataset(tmp_path / "ds")
    rows = [
        {"question_id": "q1", "status": "answered",
         "answer_text": "Обучение проводится не реже одного раза в 12 месяцев. [E1]",
         "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1", "text": TEXT_A1[:53]}]},
        {"question_id": "q2", "status": "answered", "answer_text": "Порог сдачи теста 80 %. [E1]",
         "evidence": [{"evidence_id": "E1", "chunk_id": "a2-2", "text": TEXT_A2[54:]}]},
        {"question_id": "q3", "status": "abstained"},
    ]
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return start_run(ds, f"replay:{replay}", out=tmp_path / "runs", run_id="r").run_dir


def score(run, *args):
    result = runner.invoke(app, ["score", str(run), "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_offline_judge_fills_correctness(tmp_path):
    run = reference_run(tmp_path)
    scores = score(run)  # --judge offline is the default
    rows = [json.loads(x) for x in (run / "judgments.jsonl").read_text().splitlines()]
    pairs = 2  # one derived claim with one marker in each answered question
    assert len(rows) == pairs and {r["source"] for r in rows} == {"auto:offline"}
    # both claims are their evidence verbatim: supported
    assert scores["metrics"]["citation_correctness"]["value"] == 1.0
    # scoring twice replaces the judge's rows instead of adding to them
    score(run)
    assert len((run / "judgments.jsonl").read_text().splitlines()) == pairs


def test_llm_judge_is_cached_and_ragas_fills_faithfulness(tmp_path, fake_openai):  # noqa: F811
    run = reference_run(tmp_path)
    args = ["--judge", "llm", "--llm-base-url", fake_openai.base_url, "--llm-model", "tiny", "--ragas"]
    scores = score(run, *args)
    assert scores["metrics"]["citation_correctness"]["value"] == 1.0
    # each answer's text is its evidence's sentence verbatim: every statement is in the contexts
    assert scores["metrics"]["faithfulness"]["value"] == 1.0 and scores["metrics"]["faithfulness"]["n"] == 2
    sources = {json.loads(x)["source"] for x in (run / "judgments.jsonl").read_text().splitlines()}
    assert sources == {f"auto:{scores['judge']}"}
    sent = len(fake_openai.requests)
    score(run, "--judge", "llm", "--llm-base-url", fake_openai.base_url, "--llm-model", "tiny")
    assert len(fake_openai.requests) == sent  # re-scoring is answered from the run's cache


def test_judge_agreement_against_humans(tmp_path):
    run = reference_run(tmp_path)
    score(run)
    auto = [json.loads(x) for x in (run / "judgments.jsonl").read_text().splitlines()]
    at = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with JsonlAppender(run / "judgments.jsonl") as out:
        # the human agrees on the first pair and disagrees on the second
        for row, value in zip(auto[:2], ["supported", "unsupported"], strict=False):
            out.write(Judgment(run_id="r", question_id=row["question_id"], claim_id=row["claim_id"],
                               evidence_id=row["evidence_id"], source="human:a@x", field="support", value=value,
                               at=at))
    scores = score(run)
    agreement = scores["judge_agreement"]["auto:offline"]
    assert agreement["n"] == 2 and agreement["accuracy"]["value"] == 0.5
    # the human label wins over the judge's: q1 1.0, q2 0.0 → mean 0.5
    assert scores["metrics"]["citation_correctness"]["value"] == 0.5
