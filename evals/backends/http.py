"""`http:URL` — POST {question_id, question, asked_at, user}, expect an Answer JSON.

Retries 5xx, timeouts, dropped connections and unparseable bodies with exponential
backoff and jitter, up to a bound; a 4xx is the caller's mistake and is not retried.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from datetime import datetime

import httpx
from pydantic import ValidationError

from ..data.models import Answer, Question, Usage
from .base import BaseBackend, error_answer, request_payload

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
    ) -> None:
        self.name = f"http:{url}"
        self.url = url
        self.retries = retries
        self.backoff = backoff
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

    async def aclose(self) -> None:
        await self._client.aclose()

    async def answer(self, question: Question, asked_at: datetime) -> Answer:
        payload = request_payload(question, asked_at)
        qid = question.question_id
        last_type, last_message = "unknown", ""
        started = time.perf_counter()
        for attempt in range(self.retries + 1):
            if attempt:
                delay = self.backoff * 2 ** (attempt - 1)
                await asyncio.sleep(delay + random.uniform(0, delay))
            try:
                response = await self._client.post(self.url, json=payload)
            except httpx.TimeoutException as exc:
                last_type, last_message = "timeout", f"no reply within the timeout ({type(exc).__name__})"
                continue
            except httpx.TransportError as exc:
                last_type, last_message = "connection_error", f"{type(exc).__name__}: {exc}"
                continue
            if response.status_code >= 500:
                last_type, last_message = "http_5xx", f"HTTP {response.status_code}"
                continue
            if response.status_code >= 400:
                return error_answer(
                    qid,
                    "http_4xx",
                    f"HTTP {response.status_code}: {response.text[:200]}",
                    raw={"attempts": attempt + 1},
                )
            try:
                body = response.json()
            except (json.JSONDecodeError, UnicodeDecodeError):
                last_type, last_message = "malformed_json", f"reply is not JSON: {response.text[:80]!r}"
                continue
            try:
                answer = Answer.model_validate({"question_id": qid, **body} if isinstance(body, dict) else body)
            except ValidationError as exc:
                return error_answer(
                    qid,
                    "invalid_response",
                    f"reply is not an Answer: {exc.errors()[0]['msg']}",
                    raw={"attempts": attempt + 1},
                )
            if answer.usage is None:
                answer.usage = Usage(latency_ms=round((time.perf_counter() - started) * 1000, 1))
            return answer
        return error_answer(qid, last_type, last_message, raw={"attempts": self.retries + 1})
