"""`http:URL` — POST {question_id, question, asked_at, user}, expect an Answer JSON.

Calls follow the shared outside-call policy (evals/outside.py): 429 and 503 wait Retry-After,
5xx, timeouts, dropped connections and unparseable bodies are retried with exponential
backoff and jitter, up to a bound; another 4xx is the caller's mistake and is not retried; a
3xx is reported as a redirect. Replies are capped in size (compressed and decompressed) and
in wall time; after N consecutive failed questions the circuit opens and the rest fail fast.
"""

from __future__ import annotations

import os
import time
from datetime import datetime
from typing import Any

import httpx
from pydantic import ValidationError

from evals.contract.models import Answer, Question, Usage
from evals.outside import (
    DEFAULT_MAX_REPLY_BYTES,
    CallPolicy,
    OutsideCallError,
    OutsideService,
    elapsed_ms,
    post_json,
)
from evals.run.backends.base import BaseBackend, error_answer, request_payload
from evals.store.answers import answer_problems_text
from evals.store.secrets import scrub

DEFAULT_AUTH_ENV = "CITEVAL_HTTP_AUTHORIZATION"


class HttpBackend(BaseBackend):
    def __init__(
        self,
        url: str,
        *,
        timeout: float = 60.0,
        retries: int = 2,
        backoff: float = 0.25,
        auth_env: str = DEFAULT_AUTH_ENV,
        concurrency: int = 8,
        max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES,
        breaker_threshold: int = 8,
        retry_after_max: float = 30.0,
    ) -> None:
        self.name = f"http:{url}"
        self.url = url
        self.retries = retries
        self.backoff = backoff
        self.max_reply_bytes = max_reply_bytes
        self.service = OutsideService(
            "the http backend",
            CallPolicy(
                attempts=retries + 1,
                backoff_s=backoff,
                # no wait between attempts longer than one attempt may take: the run's deadline for
                # a question (evals.run.runner) holds every attempt and every wait, so a 429 with a
                # Retry-After of a day ends as rate_limited, not as a timeout
                backoff_max_s=min(30.0, max(timeout, 0.1)),
                reply_timeout_s=timeout,
                max_reply_bytes=max_reply_bytes,
                breaker_threshold=breaker_threshold,
                retry_after_max_s=min(retry_after_max, max(timeout, 0.1)),
            ),
        )
        headers = {"Content-Type": "application/json"}
        self._auth = os.environ.get(auth_env) or None
        if self._auth:
            headers["Authorization"] = self._auth
        limits = httpx.Limits(max_connections=max(concurrency, 1), max_keepalive_connections=max(concurrency, 1))
        # a plain-http service needs no CA bundle (loading one costs ~0.15 s); https verifies as usual
        verify = url.lower().startswith("https://")
        self._client = httpx.AsyncClient(
            timeout=timeout, headers=headers, limits=limits, trust_env=False, verify=verify
        )

    def secrets(self) -> list[str]:
        if not self._auth:
            return []
        # the whole header and its credential part, e.g. "Bearer abc" and "abc"
        return [self._auth, *self._auth.split()[1:]]

    def _scrub(self, text: str) -> str:
        return scrub(text, self.secrets())

    async def aclose(self) -> None:
        await self._client.aclose()

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        payload = request_payload(question, asked_at)
        qid = question.question_id
        started = time.perf_counter()

        async def attempt() -> Any:
            return await post_json(self._client, self.url, payload, max_bytes=self.max_reply_bytes, scrub=self._scrub)

        try:
            body, attempts = await self.service.call(attempt)
        except OutsideCallError as exc:
            return error_answer(qid, exc.kind, exc.reason, raw={"attempts": exc.attempts})
        reply = {"question_id": qid, **body} if isinstance(body, dict) else body
        try:
            answer = Answer.model_validate(reply)
        except ValidationError as exc:
            return error_answer(
                qid, "invalid_response", f"reply is not an Answer: {answer_problems_text(exc, reply)}",
                raw={"attempts": attempts},
            )
        if answer.usage is None:
            answer.usage = Usage(latency_ms=elapsed_ms(started))
        return answer
