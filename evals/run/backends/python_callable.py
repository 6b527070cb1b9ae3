"""`python:module:function` — a sync or async callable taking the request payload (or the
callable itself, from Python: `evals.evaluate(dataset, backend=my_function)`; the run records it
as `python:<module>:<qualname>`).

A sync callable runs in a thread of its own, at most `concurrency` at a time, and gets
`timeout` seconds from the moment it starts (not from when it was queued). A call past its
timeout is abandoned: its question becomes an error answer of type timeout, its slot is
freed for the next question, and its thread (a daemon: it cannot be killed, and must not keep
the process alive) is left to finish on its own. At most `max_hung` abandoned calls may still
be running; past that the backend refuses further calls rather than pile up threads.
An async callable gets the same timeout through asyncio.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
import threading
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.contract.models import Answer, Question
from evals.errors import UsageError
from evals.run.backends.base import BaseBackend, error_answer, request_payload
from evals.store.answers import answer_problems_text


def load_callable(target: str) -> Callable[..., Any]:
    """The callable `module:name` names; the name may be dotted (`module:Class.method`)."""
    module_name, _, attr = target.partition(":")
    if not module_name or not attr:
        raise UsageError(f"python backend needs module:function, got {target!r}")
    if str(Path.cwd()) not in sys.path:
        sys.path.insert(0, str(Path.cwd()))  # user modules next to where citeval runs
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"cannot import module {module_name!r}: {exc}") from None
    func: Any = module
    for part in attr.split("."):
        func = getattr(func, part, None)
    if not callable(func):
        raise UsageError(f"{module_name!r} has no callable {attr!r}")
    return func


def callable_spec(func: Callable[..., Any]) -> str:
    """The SPEC a run records for a callable given from Python: `python:<module>:<qualname>`
    (what `--resume` loads again; a function defined inside another cannot be, and says so then)."""
    named = func if hasattr(func, "__qualname__") else type(func)
    return f"python:{getattr(named, '__module__', None) or '__main__'}:{named.__qualname__}"


class CallTimedOut(Exception):
    """The callable gave no result within its timeout and was abandoned."""


class ThreadCalls:
    """Runs sync calls in daemon threads, `concurrency` at a time, each with a timeout that
    starts when its thread does; abandoned calls free their slot."""

    def __init__(self, concurrency: int, timeout: float, max_hung: int) -> None:
        self.concurrency = max(1, concurrency)
        self.timeout = timeout
        self.max_hung = max_hung
        self._hung = 0
        self._lock = threading.Lock()
        self._slots: asyncio.Semaphore | None = None

    @property
    def hung(self) -> int:
        with self._lock:
            return self._hung

    async def run(self, func: Callable[[Any], Any], arg: Any) -> Any:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.concurrency)  # made inside the loop that uses it
        async with self._slots:
            if self.hung >= self.max_hung:
                raise CallTimedOut(f"{self.hung} earlier calls are still hung; no further call is started")
            return await self._run_one(func, arg)

    async def _run_one(self, func: Callable[[Any], Any], arg: Any) -> Any:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[Any] = loop.create_future()
        state = {"finished": False, "abandoned": False}  # both changed under self._lock

        def deliver(result: Any, error: Exception | None) -> None:
            if done.done():
                return
            if error is not None:
                done.set_exception(error)
            else:
                done.set_result(result)

        def target() -> None:
            result: Any = None
            error: Exception | None = None
            try:
                result = func(arg)
            except Exception as exc:  # noqa: BLE001 - handed to the waiting question, which records it
                error = exc
            with self._lock:
                state["finished"] = True
                if state["abandoned"]:
                    self._hung -= 1
                    return
            try:
                loop.call_soon_threadsafe(deliver, result, error)
            except RuntimeError:
                pass  # the loop closed meanwhile: nobody waits for this result any more

        threading.Thread(target=target, name="citeval-python-backend", daemon=True).start()
        try:
            return await asyncio.wait_for(asyncio.shield(done), timeout=self.timeout)
        except asyncio.TimeoutError:
            with self._lock:
                if not state["finished"]:
                    state["abandoned"] = True
                    self._hung += 1
            if state["abandoned"]:
                raise CallTimedOut(f"no answer within {self.timeout:g} s; the call was abandoned") from None
            return await done  # it finished at the very last moment: its result is on the way


class PythonBackend(BaseBackend):
    def __init__(
        self,
        target: str | Callable[..., Any],
        *,
        timeout: float = 60.0,
        concurrency: int = 8,
        max_hung: int | None = None,
    ) -> None:
        """target: `module:function`, or the callable itself."""
        if isinstance(target, str):
            self.name = f"python:{target}"
            self._func = load_callable(target)
        else:
            self.name = callable_spec(target)
            self._func = target
        self.timeout = timeout
        self._threads = ThreadCalls(concurrency, timeout, max_hung if max_hung is not None else max(8, concurrency))

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        payload = request_payload(question, asked_at)
        qid = question.question_id
        try:
            if inspect.iscoroutinefunction(self._func):
                result = await asyncio.wait_for(self._func(payload), timeout=self.timeout)
            else:
                result = await self._threads.run(self._func, payload)
        except asyncio.TimeoutError:
            return error_answer(qid, "timeout", f"no answer within {self.timeout:g} s; the call was cancelled")
        except CallTimedOut as exc:
            return error_answer(qid, "timeout", str(exc))
        if isinstance(result, Answer):
            return result
        if not isinstance(result, dict):
            kind = "nothing" if result is None else type(result).__name__
            return error_answer(qid, "invalid_response", f"callable returned {kind}, not an Answer (a dict or "
                                "evals.contract.models.Answer)")
        reply = {"question_id": qid, **result}
        try:
            answer = Answer.model_validate(reply)
        except ValidationError as exc:
            return error_answer(qid, "invalid_response", f"callable returned no valid Answer: "
                                f"{answer_problems_text(exc, reply)}")
        return answer
