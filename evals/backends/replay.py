"""`replay:PATH` — recorded answers (plain and Anthropic lines may be mixed)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from ..data.jsonl import iter_json_lines, validation_errors
from ..data.models import Answer, Question
from ..errors import DataError
from .anthropic import AnthropicFormatError, anthropic_to_answer
from .base import BaseBackend, error_answer


def load_replay(path: Path | str) -> dict[str, Answer]:
    """Answers by question_id; a bad line raises DataError naming the file and line."""
    answers: dict[str, tuple[int, Answer]] = {}
    for lineno, obj in iter_json_lines(path):
        if "question_id" not in obj:
            raise DataError(path, lineno, "required field is missing", "question_id")
        try:
            if obj.get("format") == "anthropic":
                answer = anthropic_to_answer(obj)
            else:
                answer = Answer.model_validate(obj)
        except AnthropicFormatError as exc:
            raise DataError(path, lineno, f"anthropic line: {exc}") from None
        except ValidationError as exc:
            raise validation_errors(path, lineno, exc)[0] from None
        if answer.question_id in answers:
            first = answers[answer.question_id][0]
            raise DataError(path, lineno, f"second answer for question {answer.question_id!r} (first on line {first})")
        answers[answer.question_id] = (lineno, answer)
    return {qid: answer for qid, (_, answer) in answers.items()}


class ReplayBackend(BaseBackend):
    def __init__(self, path: Path | str) -> None:
        self.name = f"replay:{path}"
        self._answers = load_replay(path)

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        found = self._answers.get(question.question_id)
        if found is None:
            return error_answer(question.question_id, "missing_in_replay", "the replay file has no answer for it")
        return found.model_copy(deep=True)
