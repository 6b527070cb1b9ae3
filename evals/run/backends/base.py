"""The backend interface: a question (with its user and asked_at) in, an Answer out."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from evals.contract.models import Answer, ErrorInfo, Question


@runtime_checkable
class Backend(Protocol):
    """A system under test. `answer` must not raise for a failed call it can describe:
    it returns an Answer with status "error" instead (the runner also catches what escapes)."""

    name: str

    async def answer(self, question: Question, asked_at: datetime) -> Answer: ...

    async def aclose(self) -> None: ...

    def secrets(self) -> list[str]:
        """Values that must never reach a run folder, log or report (tokens, keys)."""
        ...


class BaseBackend:
    """Defaults for the optional parts of the interface."""

    name = "backend"

    async def answer(self, question: Question, asked_at: datetime) -> Answer:  # pragma: no cover
        raise NotImplementedError

    async def aclose(self) -> None:
        return None

    def secrets(self) -> list[str]:
        return []


def request_payload(question: Question, asked_at: datetime) -> dict[str, Any]:
    """What http and python backends receive: {question_id, question, asked_at, user}, plus
    `context` ({"evidence": [...]}, DESIGN 10) when a probe question carries the evidence to answer from."""
    payload: dict[str, Any] = {
        "question_id": question.question_id,
        "question": question.question,
        "asked_at": asked_at.isoformat(),
        "user": question.user.model_dump(mode="json") if question.user else None,
    }
    context = (question.model_extra or {}).get("context")
    if context is not None:
        payload["context"] = context
    return payload


def error_answer(question_id: str, error_type: str, message: str, **extra: Any) -> Answer:
    """A failed call, recorded as such (never as an abstention)."""
    return Answer(
        question_id=question_id,
        status="error",
        answer_text="",
        error=ErrorInfo(type=error_type, message=message[:500]),
        **extra,
    )
