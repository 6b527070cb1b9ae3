"""Systems under test for `citeval probe`, each with one known way of behaving (python backends).

- `memorised`: answers every question with the fact it remembers (the gold answer of the dataset
  it was "trained" on, `PROBE_MEMORY` or datasets/demo) whatever the context says, and attaches
  the given evidence that best matches its own words: post-rationalisation (Wallat et al.). It
  never abstains; asked something it does not remember, it still names a figure.
- `cites_what_asked`: the reference RAG, except that asked to cite [E99] it cites [E99], and
  asked to cite a document it names that document as a source.
- `ignores_context`: the reference RAG with its own retrieval and no abstention bar, as a system
  that does not take probes: the request's `context` is dropped.

Use as `--backend python:probe_backends:memorised` with tests/ on the path (`PYTHONPATH=tests`).
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from evals.contract.models import Question
from evals.data.registry import Registry
from evals.run.backends.reference import ReferenceBackend
from evals.run.runner import load_questions
from evals.text.normalize import normalize
from evals.text.tokens import content_tokens

ROOT = Path(__file__).resolve().parent.parent
# Said when the question is not in memory: a confident figure, as a model guessing would give.
GUESS = "По действующим правилам это 5 000 тенге."


def _dataset() -> Path:
    return Path(os.environ.get("PROBE_MEMORY", str(ROOT / "datasets" / "demo")))


@lru_cache(maxsize=4)
def _memory(dataset: str) -> dict[str, str]:
    out = {}
    for q in load_questions(Path(dataset)):
        if q.gold is not None and q.gold.should_abstain is False and (q.gold.answer or q.gold.key_facts):
            out[normalize(q.question)] = q.gold.answer or "; ".join(q.gold.key_facts)
    return out


def remembered(question: str) -> str | None:
    """The remembered answer to a question, or to the dataset question it starts with."""
    memory = _memory(str(_dataset()))
    text = normalize(question)
    if text in memory:
        return memory[text]
    starts = [key for key in memory if text.startswith(key)]
    return memory[max(starts, key=len)] if starts else None


def memorised(payload: dict[str, Any]) -> dict[str, Any]:
    fact = remembered(payload["question"]) or GUESS
    evidence = ((payload.get("context") or {}).get("evidence")) or []
    if not evidence:
        return {"status": "answered", "answer_text": fact, "model": "memorised"}
    words = set(content_tokens(fact))
    best = max(evidence, key=lambda item: len(words & set(content_tokens(item.get("text", "")))))
    return {
        "status": "answered",
        "answer_text": f"{fact} [{best['evidence_id']}]",
        "evidence": [best],
        "model": "memorised",
    }


@lru_cache(maxsize=4)
def _reference(dataset: str, eager: bool = False) -> ReferenceBackend:
    registry = Registry.load(dataset)
    return ReferenceBackend(registry, threshold=0.0, tier_thresholds={}) if eager else ReferenceBackend(registry)


async def _reference_answer(payload: dict[str, Any], eager: bool = False) -> dict[str, Any]:
    question = Question.model_validate({k: v for k, v in payload.items() if v is not None})
    assert question.asked_at is not None
    answer = await _reference(str(_dataset()), eager).answer(question, question.asked_at)
    return answer.model_dump(mode="json", exclude_none=True)


_ASKED_DOCUMENT = re.compile(r"Сошлитесь также на «([^»]+)»")


async def cites_what_asked(payload: dict[str, Any]) -> dict[str, Any]:
    answer = await _reference_answer(payload)
    question = payload["question"]
    asked_document = _ASKED_DOCUMENT.search(question)
    if "E99" not in question and asked_document is None:
        return answer
    if answer["status"] != "answered":
        answer.update(status="answered", answer_text="Ответ есть в источнике.", claims=[])
        answer.pop("abstain_reason", None)
    if "E99" in question:
        answer["answer_text"] += " См. также [E99]."
        answer["claims"] = []  # derived again from the text, with the E99 marker
    if asked_document is not None:
        answer["answer_text"] += f" Источник: «{asked_document.group(1)}»."
    return answer


async def ignores_context(payload: dict[str, Any]) -> dict[str, Any]:
    return await _reference_answer({k: v for k, v in payload.items() if k != "context"}, eager=True)
