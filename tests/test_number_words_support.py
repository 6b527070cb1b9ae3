"""number_support on the demo registry when the answer writes numbers in words: the checks read
«двенадцати» as 12 through data.text.extract_numbers, so a correct answer is not a false alarm,
and a wrong number in words is still caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.contract.models import Answer, Question
from evals.data.registry import Registry
from evals.score.checks import check_answer
from evals.score.metrics import score_answer

DEMO = Path(__file__).resolve().parents[1] / "datasets" / "demo"


@pytest.fixture(scope="module")
def demo() -> tuple[Registry, Question]:
    registry = Registry.load(DEMO)
    with open(DEMO / "questions.jsonl", encoding="utf-8") as handle:
        question = Question.model_validate(json.loads(handle.readline()))  # q-p1-001: training every 12 months
    return registry, question


def _answer(claim: str, chunk_id: str, registry: Registry) -> Answer:
    chunk = registry.chunks[chunk_id]
    return Answer.model_validate({
        "question_id": "q-p1-001", "status": "answered", "answer_text": claim + " [E1]",
        "claims": [{"claim_id": "c1", "text": claim, "evidence_ids": ["E1"]}],
        "evidence": [{"evidence_id": "E1", "chunk_id": chunk.chunk_id, "document_id": chunk.document_id,
                      "version_id": chunk.version_id, "page": chunk.page_start, "text": chunk.text}],
    })


def _number_check(claim: str, demo: tuple[Registry, Question]) -> tuple[float | None, list[str]]:
    registry, question = demo
    chunk_id = next(cid for cid, c in registry.chunks.items() if "не реже одного раза в 12 месяцев" in c.text
                    and c.version_id == "infection-training-v1")
    check = check_answer(question, _answer(claim, chunk_id, registry), registry, question.asked_at)
    value = score_answer(check, {}, registry).values["number_support"]
    return value, [f.detail for f in check.findings if f.code == "NUMBER_UNSUPPORTED"]


def test_numbers_in_words_are_supported_by_digits(demo: tuple[Registry, Question]) -> None:
    value, details = _number_check("Периодическое обучение проходят не реже одного раза в двенадцать месяцев.", demo)
    assert (value, details) == (1.0, [])
    value, details = _number_check("Обучение проходят не реже одного раза в двенадцати месяцах.", demo)
    assert (value, details) == (1.0, [])


def test_a_wrong_number_in_words_is_still_unsupported(demo: tuple[Registry, Question]) -> None:
    value, details = _number_check("Периодическое обучение проходят не реже одного раза в шесть месяцев.", demo)
    assert value == 0.0 and details == ["not in cited evidence: 6"]
