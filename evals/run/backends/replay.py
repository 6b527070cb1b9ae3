"""`replay:PATH` — recorded answers (plain and Anthropic lines may be mixed).

Plain lines are Answers. Anthropic lines (a Messages response or its stream events, with
citeval's question_id and documents beside it) are read when the file is loaded, so a bad
line fails before anything runs, and converted when their question is asked: the edition a
`documents[i]` without version_id stands for depends on the question's asked_at.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from evals.contract.models import Answer, Question
from evals.data.registry import Registry
from evals.errors import DataError, UsageError
from evals.run.backends.anthropic import (
    AnthropicFormatError,
    AnthropicLine,
    anthropic_to_answer,
    compile_patterns,
    is_anthropic_line,
    parse_anthropic_line,
)
from evals.run.backends.base import BaseBackend, error_answer
from evals.run.backends.prices import PriceTable
from evals.run.settings import REFUSAL_PATTERNS_ENV
from evals.store.answers import answer_errors
from evals.store.jsonl import iter_json_lines
from evals.store.reading import read_file_text

ReplayEntry = Answer | AnthropicLine


def load_replay(path: Path | str) -> dict[str, ReplayEntry]:
    """Entries by question_id: Answers, and Anthropic lines still to convert; a bad line raises
    DataError naming the file and line."""
    entries: dict[str, tuple[int, ReplayEntry]] = {}
    for lineno, obj in iter_json_lines(path):
        anthropic = is_anthropic_line(obj)
        if "question_id" not in obj and anthropic:  # a plain line's is checked with its other fields
            hint = " (put citeval's question_id and documents beside the response)"
            raise DataError(path, lineno, "required field is missing" + hint, "question_id")
        entry: ReplayEntry
        try:
            entry = parse_anthropic_line(obj) if anthropic else Answer.model_validate(obj)
        except AnthropicFormatError as exc:
            raise DataError(path, lineno, f"anthropic line: {exc}") from None
        except ValidationError as exc:
            raise answer_errors(path, lineno, exc, obj) from None
        if entry.question_id in entries:
            first = entries[entry.question_id][0]
            raise DataError(path, lineno, f"second answer for question {entry.question_id!r} (first on line {first})")
        entries[entry.question_id] = (lineno, entry)
    return {qid: entry for qid, (_, entry) in entries.items()}


def load_refusal_patterns(path: Path | str | None) -> list[re.Pattern[str]] | None:
    """Refusal patterns from a file (one regular expression a line, # comments); None: the defaults."""
    if path is None:
        return None
    lines: list[str] = []
    if not Path(path).is_file():
        raise DataError(path, None, "refusal patterns file not found")
    text = read_file_text(path)  # strict UTF-8 naming the line
    for lineno, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                re.compile(line.strip())
            except re.error as exc:
                raise DataError(path, lineno, f"not a regular expression: {exc}") from None
            lines.append(line.strip())
    return compile_patterns(lines)


class ReplayBackend(BaseBackend):
    def __init__(
        self,
        path: Path | str,
        registry: Registry | None = None,
        *,
        prices: PriceTable | None = None,
        refusal_patterns: list[re.Pattern[str]] | None = None,
    ) -> None:
        self.name = f"replay:{path}"
        self._entries = load_replay(path)
        self._registry = registry
        if registry is None and any(isinstance(e, AnthropicLine) for e in self._entries.values()):
            raise UsageError(f"{path}: replaying Anthropic responses needs the dataset's registry")
        self._prices = prices or PriceTable.from_env()
        env_patterns = os.environ.get(REFUSAL_PATTERNS_ENV)
        self._patterns = refusal_patterns if refusal_patterns is not None else load_refusal_patterns(env_patterns)

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        found = self._entries.get(question.question_id)
        if found is None:
            return error_answer(question.question_id, "missing_in_replay", "the replay file has no answer for it")
        if isinstance(found, AnthropicLine):
            assert self._registry is not None  # checked in __init__
            return anthropic_to_answer(
                found, self._registry, asked_at, prices=self._prices, refusal_patterns=self._patterns
            )
        # the runner fills in usage.latency_ms and nothing else: copy that, share the rest (a deep
        # copy of an answer with 40,000 citations costs seconds)
        usage = found.usage.model_copy() if found.usage is not None else None
        return found.model_copy(update={"usage": usage})
