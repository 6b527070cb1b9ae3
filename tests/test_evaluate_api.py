"""`evals.evaluate` from Python: a callable (or a backend object) as the system under test, and
scores.json written once with the gates file that gated the run in its provenance."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

import evals
from evals.contract.models import Answer, Question
from evals.run.backends.base import BaseBackend
from evals.run.runner import RunOptions, resume_run
from evals.score.scoring import score_run

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "datasets" / "demo"
ASKED: list[dict[str, Any]] = []


def first_question_ids(n: int) -> list[str]:
    lines = (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["question_id"] for line in lines if line.strip()][:n]


def answer_with_its_own_words(payload: dict[str, Any]) -> dict[str, Any]:
    """A system under test written as a plain function: says which question it answered."""
    ASKED.append(payload)
    return {"status": "answered", "answer_text": f"callable answered {payload['question_id']}"}


def test_evaluate_takes_a_callable_as_the_backend(tmp_path: Path) -> None:
    ASKED.clear()
    result = evals.evaluate(
        DEMO, backend=answer_with_its_own_words, out=tmp_path / "runs", run_id="callable", report=False,
        options=RunOptions(limit=5, concurrency=2),
    )
    run = tmp_path / "runs" / "callable"
    wanted = first_question_ids(5)
    # the callable was asked exactly the first five demo questions, with the usual payload
    assert sorted(p["question_id"] for p in ASKED) == sorted(wanted)
    assert all(p["question"] and p["asked_at"] for p in ASKED)
    answers = [json.loads(line) for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(a["question_id"] for a in answers) == sorted(wanted)
    assert all(a["answer_text"] == f"callable answered {a['question_id']}" for a in answers)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["backend"] == f"python:{answer_with_its_own_words.__module__}:answer_with_its_own_words"
    assert result.scored.scores.n_questions == 5 and result.gate.exit_code in (0, 1)

    # the recorded spec names the function again: a resumed run asks it the questions left
    (run / "answers.jsonl").write_text(
        "".join(json.dumps(a, ensure_ascii=False) + "\n" for a in answers[:3]), encoding="utf-8"
    )
    ASKED.clear()
    resumed = resume_run(run)
    assert resumed.answered == 5 and len(ASKED) == 2
    assert {p["question_id"] for p in ASKED} == {a["question_id"] for a in answers[3:]}


class Abstainer(BaseBackend):
    name = "abstainer:v1"

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        return Answer(question_id=question.question_id, status="abstained", answer_text="не знаю",
                      abstain_reason="test")


def test_evaluate_takes_a_backend_object(tmp_path: Path) -> None:
    result = evals.evaluate(DEMO, backend=Abstainer(), out=tmp_path / "runs", run_id="obj", report=False,
                            options=RunOptions(limit=3))
    run = result.run_dir
    answers = [json.loads(line) for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [a["status"] for a in answers] == ["abstained"] * 3
    assert json.loads((run / "manifest.json").read_text(encoding="utf-8"))["backend"] == "abstainer:v1"


def test_a_backend_that_is_neither_spec_object_nor_callable_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(evals.UsageError, match="not int"):
        evals.evaluate(DEMO, backend=42, out=tmp_path / "runs", report=False)  # type: ignore[arg-type]
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_eval_records_the_gates_file_in_the_one_scores_json(tmp_path: Path) -> None:
    gates = tmp_path / "gates.toml"
    gates.write_bytes(b"[overall]\nerror_rate = { max = 0.5 }\n")
    result = evals.evaluate(DEMO, out=tmp_path / "runs", run_id="g", gates=gates, report=False,
                            options=RunOptions(limit=4))
    written = json.loads((result.run_dir / "scores.json").read_text(encoding="utf-8"))
    assert written["provenance"]["gates_file"] == str(gates)
    assert written["provenance"]["gates_sha256"] == hashlib.sha256(gates.read_bytes()).hexdigest()
    # what eval returns is what it wrote: no second write after the gate
    assert result.scored.scores.to_json() == written
    # score_run records a gates file only when given one
    rescored = score_run(result.run_dir, gates=gates)
    assert rescored.scores.provenance is not None and rescored.scores.provenance.gates_file == str(gates)
    again = score_run(result.run_dir)
    assert again.scores.provenance is not None and again.scores.provenance.gates_file is None
    assert "gates_file" not in json.loads((result.run_dir / "scores.json").read_text())["provenance"]
