"""Ragas faithfulness through the real ragas code path (ragas.metrics.collections.Faithfulness
with llm_factory and an async OpenAI or Anthropic client).

ragas is imported only when faithfulness is asked for (it is the optional `ragas` extra), with
RAGAS_DO_NOT_TRACK set to "true" first (ragas ignores "1"). Nothing here calls ragas'
tokenizers (tiktoken would download its files). A sample ragas cannot score — a service
error, a malformed reply, a timeout, no statements — is a null value with a reason, never NaN.
"""

from __future__ import annotations

import asyncio
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import UsageError
from .llm import DEFAULT_KEY_ENV, PROVIDERS, Provider


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
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # before the import: ragas phones home otherwise
    try:
        from ragas.llms import llm_factory
        from ragas.metrics.collections import Faithfulness
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise UsageError(f"Ragas faithfulness needs the ragas extra (pip install 'citeval[ragas]'): {exc}") from exc
    return llm_factory, Faithfulness


def _api_key(provider: Provider, api_key_env: str | None) -> str:
    name = api_key_env or DEFAULT_KEY_ENV[provider]
    value = os.environ.get(name)
    if not value and api_key_env:
        raise UsageError(f"environment variable {api_key_env} (the LLM API key) is not set")
    # the SDK clients refuse to start without a key; a local server does not check it
    return value or "no-key"


def _make_client(provider: Provider, base_url: str | None, key: str, timeout_s: float, max_retries: int) -> Any:
    if provider == "openai":
        from openai import AsyncOpenAI

        return AsyncOpenAI(api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)
    from anthropic import AsyncAnthropic

    return AsyncAnthropic(api_key=key, base_url=base_url, timeout=timeout_s, max_retries=max_retries)


def _reason(exc: BaseException, key: str) -> str:
    """A short, key-free description of why a sample could not be scored."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    if isinstance(exc, asyncio.TimeoutError) or "Timeout" in name:
        text = "timed out"
    elif isinstance(status, int):
        text = f"HTTP {status} from the LLM endpoint"
    elif name in ("InstructorRetryException", "ValidationError", "JSONDecodeError") or "Validation" in name:
        text = "malformed reply: it did not parse as the structured output ragas asked for"
    elif "Connection" in name:
        text = "could not connect to the LLM endpoint"
    else:
        text = f"{name}: {str(exc)[:160]}"
    # instructor wraps the HTTP error after its own retries; report the cause when it has one
    cause = getattr(exc, "__cause__", None) or getattr(exc, "__context__", None)
    if text.startswith("malformed") and cause is not None and getattr(cause, "status_code", None):
        text = f"HTTP {cause.status_code} from the LLM endpoint"
    return ("ragas faithfulness failed: " + text).replace(key, "***") if key else "ragas faithfulness failed: " + text


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
    key = _api_key(provider, api_key_env)
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

    async def score(sample: FaithfulnessSample) -> FaithfulnessResult:
        contexts = [c for c in sample.contexts if c and c.strip()]
        if not sample.answer.strip():
            return FaithfulnessResult(None, "empty answer")
        if not contexts:
            return FaithfulnessResult(None, "no retrieved contexts")
        async with semaphore:
            try:
                result = await asyncio.wait_for(
                    metric.ascore(user_input=sample.question or "-", response=sample.answer, retrieved_contexts=contexts),
                    timeout=budget,
                )
            except Exception as exc:  # every failure of one sample is that sample's null, not the run's
                return FaithfulnessResult(None, _reason(exc, key))
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
