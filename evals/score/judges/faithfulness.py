"""Ragas faithfulness through the real ragas code path (ragas.metrics.collections.Faithfulness
with llm_factory and an async OpenAI or Anthropic client).

ragas is imported only when faithfulness is asked for (it is the optional `ragas` extra), with
RAGAS_DO_NOT_TRACK set to "true" first (ragas ignores "1"). Nothing here calls ragas'
tokenizers (tiktoken would download its files). A sample ragas cannot score — a service
error, a malformed reply, a timeout, no statements — is a null value with a reason, never NaN.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evals.contract.metrics import FAITHFULNESS
from evals.errors import UsageError
from evals.outside import RAGAS_FAILED, CircuitBreaker, api_key
from evals.score.judges.llm import DEFAULT_KEY_ENV, PROVIDERS, Provider
from evals.store.secrets import scrub

# consecutive samples failed by the endpoint itself (down, timing out, refusing the key) after
# which the rest are skipped
RAGAS_BREAKER_THRESHOLD = 3


@dataclass(frozen=True)
class FaithfulnessSample:
    question: str
    answer: str
    contexts: Sequence[str]


@dataclass(frozen=True)
class FaithfulnessResult:
    value: float | None  # share of the answer's statements the contexts support, in [0, 1]
    reason: str | None = None  # why value is None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "reason": self.reason}


def _import_ragas() -> tuple[Any, Any]:
    # Before the import: ragas phones home, and its Hugging Face dependencies look for hub
    # updates, unless told not to. Set here, not at import of evals, so citeval leaves the
    # environment of a program that imports it alone.
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"
    for name, value in (("DO_NOT_TRACK", "1"), ("HF_HUB_OFFLINE", "1"), ("HF_DATASETS_OFFLINE", "1")):
        os.environ.setdefault(name, value)
    # instructor logs each failed attempt at ERROR; with no logging configured Python would
    # print that to stderr. A failure is reported in the result's reason instead.
    logging.getLogger("instructor").addHandler(logging.NullHandler())
    try:
        from ragas.llms import llm_factory
        from ragas.metrics.collections import Faithfulness
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise UsageError(f"Ragas {FAITHFULNESS} needs the ragas extra (pip install 'citeval[ragas]'): {exc}") from exc
    return llm_factory, Faithfulness


def _api_key(provider: Provider, api_key_env: str | None, base_url: str | None) -> str:
    """The shared key resolver (evals.outside.api_key): a missing key names its variable."""
    key = api_key(api_key_env, DEFAULT_KEY_ENV[provider], required=base_url is None)
    # the SDK clients refuse to start without a key; a local server does not check it
    return key or "no-key"


def _make_client(provider: Provider, base_url: str | None, key: str, timeout_s: float, max_retries: int) -> Any:
    if provider == "openai":
        from openai import AsyncOpenAI

        return AsyncOpenAI(api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)


def _chain(exc: BaseException) -> list[BaseException]:
    """exc and what it wraps (instructor and tenacity wrap the HTTP client's error)."""
    seen: list[BaseException] = []
    todo: list[BaseException | None] = [exc]
    while todo:
        item = todo.pop()
        if item is None or any(item is s for s in seen) or len(seen) > 20:
            continue
        seen.append(item)
        todo += [item.__cause__, item.__context__]
        attempt = getattr(item, "last_attempt", None)  # tenacity.RetryError
        if attempt is not None and hasattr(attempt, "exception"):
            todo.append(attempt.exception())
    return seen


def _endpoint_down(exc: BaseException) -> bool:
    """A failure of the endpoint rather than of one sample: no connection, a timeout, an
    authentication or server error (a malformed reply is the sample's own)."""
    for item in _chain(exc):
        status = getattr(item, "status_code", None)
        if isinstance(status, int) and (status in (401, 403, 404) or status >= 500):
            return True
        if isinstance(item, (asyncio.TimeoutError, TimeoutError)) or any(
            word in type(item).__name__ for word in ("Connection", "Timeout")
        ):
            return True
    return False


def _reason(exc: BaseException, key: str) -> str:
    """A short, key-free description of why a sample could not be scored."""
    chain = _chain(exc)
    names = [type(e).__name__ for e in chain]
    statuses = [getattr(e, "status_code", None) for e in chain]
    status = next((s for s in statuses if isinstance(s, int)), None)
    timeouts = (asyncio.TimeoutError, TimeoutError)
    if any(isinstance(e, timeouts) or "Timeout" in type(e).__name__ for e in chain):
        text = "timed out"
    elif status is not None:
        text = f"HTTP {status} from the LLM endpoint"
    elif any("Connection" in n for n in names):
        text = "could not connect to the LLM endpoint"
    elif any(n in ("InstructorRetryException", "ValidationError", "JSONDecodeError") for n in names):
        text = "malformed reply: it did not parse as the structured output ragas asked for"
    else:
        text = f"{names[0]}: {str(exc)[:160]}"
    text = f"{RAGAS_FAILED}: " + text
    return scrub(text, [key])


async def ragas_faithfulness(
    samples: Sequence[FaithfulnessSample],
    *,
    provider: Provider = "openai",
    base_url: str | None = None,
    model: str,
    api_key_env: str | None = None,
    max_concurrency: int = 4,
    timeout_s: float = 120.0,
    max_retries: int = 2,
    max_tokens: int = 1024,
) -> list[FaithfulnessResult]:
    """Ragas faithfulness of each sample (answer against its retrieved contexts).

    provider "openai" means any OpenAI-compatible endpoint (base_url ending in /v1); instructor
    uses JSON mode there. provider "anthropic" uses the Messages API with tool calls, and
    top_p is omitted (ragas sends temperature and top_p; current Claude models reject both,
    ragas issue #2674). max_retries applies to the SDK's HTTP retries and to instructor's
    re-asks after a malformed reply.
    """
    if provider not in PROVIDERS:
        raise UsageError(f"unknown LLM provider {provider!r} (expected openai or anthropic)")
    if not samples:
        return []
    key = _api_key(provider, api_key_env, base_url)
    llm_factory, faithfulness_cls = _import_ragas()
    client = _make_client(provider, base_url, key, timeout_s, max_retries)
    model_args: dict[str, Any] = {"max_tokens": max_tokens, "max_retries": max_retries}
    if provider == "anthropic":
        import anthropic

        model_args["top_p"] = anthropic.omit
    llm = llm_factory(model, provider=provider, client=client, **model_args)
    metric = faithfulness_cls(llm=llm)
    semaphore = asyncio.Semaphore(max_concurrency)
    # a sample makes two calls, each with its own retries; past this it is abandoned
    budget = timeout_s * (max_retries + 1) * 2 + 5.0
    # an endpoint that is down fails every sample the same way: after a few in a row the rest
    # are skipped at once with that reason (the one outside-call breaker, evals.outside)
    breaker = CircuitBreaker(RAGAS_BREAKER_THRESHOLD, f"ragas {FAITHFULNESS}")

    async def score(sample: FaithfulnessSample) -> FaithfulnessResult:
        contexts = [c for c in sample.contexts if c and c.strip()]
        if not sample.answer.strip():
            return FaithfulnessResult(None, "empty answer")
        if not contexts:
            return FaithfulnessResult(None, "no retrieved contexts")
        async with semaphore:
            if breaker.opened:
                return FaithfulnessResult(None, f"ragas {FAITHFULNESS} skipped: the endpoint failed "
                                                f"{breaker.consecutive} samples in a row; last: {breaker.last_reason}")
            try:
                scoring = metric.ascore(
                    user_input=sample.question or "-", response=sample.answer, retrieved_contexts=contexts
                )
                result = await asyncio.wait_for(scoring, timeout=budget)
            except Exception as exc:  # every failure of one sample is that sample's null, not the run's
                reason = _reason(exc, key)
                if _endpoint_down(exc):
                    breaker.failure(reason)
                return FaithfulnessResult(None, reason)
            breaker.success()
        value = getattr(result, "value", None)
        if not isinstance(value, (int, float)) or math.isnan(float(value)):
            return FaithfulnessResult(None, "ragas found no statements to check in the answer")
        return FaithfulnessResult(float(value))

    try:
        return list(await asyncio.gather(*(score(s) for s in samples)))
    finally:
        await client.close()


def ragas_faithfulness_sync(samples: Sequence[FaithfulnessSample], **kwargs: Any) -> list[FaithfulnessResult]:
    """ragas_faithfulness for code without a running event loop."""
    return asyncio.run(ragas_faithfulness(samples, **kwargs))
