"""`python:module:function` — a sync or async callable taking the request payload."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..data.models import Answer, Question
from ..errors import UsageError
from .base import BaseBackend, error_answer, request_payload


def load_callable(target: str) -> Callable[..., Any]:
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UsageError(f"python backend needs module:function, got {target!r}")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # user modules next to where citeval runs
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import module {module_name!r}: {exc}") from None
    func = getattr(module, attr, None)
    if not callable(func):
        raise UsageError(f"{module_name!r} has no callable {attr!r}")
    return func


class PythonBackend(BaseBackend):
    def __init__(self, target: str) -> None:
        self.name = f"python:{target}"
        self._func = load_callable(target)

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        payload = request_payload(question, asked_at)
        if inspect.iscoroutinefunction(self._func):
            result = await self._func(payload)
        else:
            result = await asyncio.to_thread(self._func, payload)
        if isinstance(result, Answer):
            return result
        try:
            answer = Answer.model_validate({"question_id": question.question_id, **(result or {})})
        except (ValidationError, TypeError) as exc:
            return error_answer(question.question_id, "invalid_response", f"callable returned no valid Answer: {exc}")
        return answer
