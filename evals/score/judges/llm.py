"""The LLM support judge: an OpenAI-compatible endpoint or Anthropic's Messages API over httpx.

- The endpoint is configured by the caller (base URL, model, and the *name* of the environment
  variable holding the key); the key is read when a request is sent, and is never logged,
  cached, written or put in a reason.
- Requests run concurrently up to a bound (an asyncio semaphore) under the shared outside-call
  policy (evals/outside.py): 5xx, 429 (waiting Retry-After), timeouts, broken connections and
  unparseable replies are retried with exponential backoff and jitter; other 4xx fail at once;
  replies are capped in size and time; after N consecutive failed units the circuit opens and
  the remaining units fail at once with the reason.
- Verdicts are cached by (model, prompt version, inputs) in a JSONL file the caller places
  (the run folder), so re-scoring costs nothing.
- Token use and cost are counted (per-model prices per million tokens; the caller may override).
A unit the judge could not decide comes back as cannot_judge with the error as its reason.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

from evals.errors import UsageError
from evals.outside import CallPolicy, OutsideCallError, OutsideService, api_key, post_json
from evals.score.judges.base import JudgeInput, JudgeResult, SupportJudge, failed
from evals.score.judges.cache import VerdictCache, cache_key, verdict_of
from evals.score.judges.prompt import SUPPORT_PROMPT, SupportPrompt, parse_verdict
from evals.store.secrets import scrub

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
DEFAULT_BASE_URL: dict[Provider, str] = {"openai": "https://api.openai.com/v1", "anthropic": "https://api.anthropic.com"}
DEFAULT_KEY_ENV: dict[Provider, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
ANTHROPIC_VERSION = "2023-06-01"

# USD per million tokens (input, output), list prices; a model matches the longest key it
# starts with ("gpt-4o-mini-2024-07-18" → "gpt-4o-mini"). Pass prices= to override or add.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
}


def price_for(model: str, prices: Mapping[str, tuple[float, float]]) -> tuple[float, float] | None:
    matches = [key for key in prices if model == key or model.startswith(key)]
    return prices[max(matches, key=len)] if matches else None


@dataclass(frozen=True)
class LlmConfig:
    """Where and how to call the model. api_key_env names an environment variable (default
    OPENAI_API_KEY / ANTHROPIC_API_KEY); when that default is unset no key is sent (a local
    server), when an explicitly named variable is unset the judge refuses to start."""

    model: str
    provider: Provider = "openai"
    base_url: str | None = None
    api_key_env: str | None = None
    max_concurrency: int = 4
    max_retries: int = 3
    timeout_s: float = 60.0
    backoff_s: float = 1.0  # first retry waits this long (plus jitter), then doubling, capped at 30 s
    breaker_threshold: int = 8  # consecutive failed units that stop the judge calling; 0: never
    max_tokens: int = 400
    temperature: float = 0.0
    extra_body: Mapping[str, Any] = field(default_factory=dict)  # merged into the request; None drops a key

    def __post_init__(self) -> None:
        if self.provider not in PROVIDERS:
            raise UsageError(f"unknown LLM provider {self.provider!r} (expected openai or anthropic)")
        if not self.model:
            raise UsageError("an LLM judge needs a model name")
        if self.max_concurrency < 1 or self.max_retries < 0:
            raise UsageError("max_concurrency must be ≥ 1 and max_retries ≥ 0")

    @property
    def url(self) -> str:
        base = (self.base_url or DEFAULT_BASE_URL[self.provider]).rstrip("/")
        return base + ("/chat/completions" if self.provider == "openai" else "/v1/messages")

    def api_key(self) -> str | None:
        """The key from the environment (never stored on the object). Required when a variable
        is named or the provider's own endpoint is called; a local base_url may take none."""
        return api_key(self.api_key_env, DEFAULT_KEY_ENV[self.provider], required=self.base_url is None)

    def policy(self) -> CallPolicy:
        return CallPolicy(
            attempts=self.max_retries + 1,
            backoff_s=self.backoff_s,
            reply_timeout_s=self.timeout_s,
            breaker_threshold=self.breaker_threshold,
        )


@dataclass
class LlmUsage:
    """What the judge spent. cost_usd is None when a called model has no price."""

    requests: int = 0  # HTTP requests sent, retries included
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    failures: int = 0  # units that ended as cannot_judge because of an error
    last_failure: str | None = None  # the reason of the latest such unit (key-free)

    def add_tokens(self, input_tokens: int, output_tokens: int, price: tuple[float, float] | None) -> None:
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        if price is None:
            self.cost_usd = None
        elif self.cost_usd is not None:
            self.cost_usd += (input_tokens * price[0] + output_tokens * price[1]) / 1_000_000

    def to_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 6),
            "failures": self.failures,
            **({"last_failure": self.last_failure} if self.last_failure else {}),
        }


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int


class LlmClient:
    """One chat call per request, in the provider's wire format."""

    def __init__(self, config: LlmConfig, http: httpx.AsyncClient) -> None:
        self.config = config
        self.http = http

    def _request(self, system: str, user: str, key: str | None) -> tuple[dict[str, str], dict[str, Any]]:
        cfg = self.config
        headers = {"content-type": "application/json"}
        body: dict[str, Any]
        if cfg.provider == "openai":
            if key:
                headers["authorization"] = f"Bearer {key}"
            body = {
                "model": cfg.model,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
                "temperature": cfg.temperature,
                "max_tokens": cfg.max_tokens,
                "response_format": {"type": "json_object"},
            }
        else:
            if key:
                headers["x-api-key"] = key
            headers["anthropic-version"] = ANTHROPIC_VERSION
            # temperature only: current Claude models reject temperature and top_p together
            body = {
                "model": cfg.model,
                "system": system,
                "messages": [{"role": "user", "content": user}],
                "temperature": cfg.temperature,
                "max_tokens": cfg.max_tokens,
            }
        for name, value in cfg.extra_body.items():
            if value is None:
                body.pop(name, None)
            else:
                body[name] = value
        return headers, body

    async def complete(self, system: str, user: str) -> Completion:
        """One exchange; an OutsideCallError (key-free reason) when it fails."""
        key = self.config.api_key()
        headers, body = self._request(system, user, key)
        try:
            payload = await post_json(
                self.http, self.config.url, body, headers=headers, scrub=lambda t: scrub(t, [key])
            )
        except OutsideCallError as exc:
            if exc.kind == "timeout" and exc.status is None:
                exc.reason = f"timed out after {self.config.timeout_s:g} s"
            elif exc.kind == "connection_error":
                exc.reason = f"connection failed: {exc.reason}"
            raise
        try:
            if self.config.provider == "openai":
                text = payload["choices"][0]["message"]["content"] or ""
                usage, names = payload.get("usage") or {}, ("prompt_tokens", "completion_tokens")
            else:
                text = "".join(b.get("text", "") for b in payload["content"] if b.get("type") == "text")
                usage, names = payload.get("usage") or {}, ("input_tokens", "output_tokens")
            if not isinstance(text, str):
                raise TypeError("content is not text")
            return Completion(text, _tokens(usage, names[0]), _tokens(usage, names[1]))
        except (KeyError, IndexError, TypeError, AttributeError, ValueError, OverflowError):
            raise OutsideCallError("malformed_reply", "reply has no message content as text, or odd token counts",
                                   retryable=True) from None


MAX_TOKENS_A_REQUEST = 10**9  # a count past this is no count a model reports


def _tokens(usage: Mapping[str, Any], name: str) -> int:
    """A token count of a reply's usage: a whole number from 0 up (absent: 0); anything else (a
    string, Infinity, a negative or fractional number) is a ValueError — a malformed reply."""
    value = usage.get(name, 0)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise ValueError(f"{name} is not a number")
    if not 0 <= value <= MAX_TOKENS_A_REQUEST or value != int(value):
        raise ValueError(f"{name} {value!r} is not a token count")
    return int(value)


class LlmJudge(SupportJudge):
    """Support judge backed by an LLM. usage accumulates over every ajudge call."""

    def __init__(
        self,
        config: LlmConfig,
        cache_path: Path | str | None = None,
        prompt: SupportPrompt = SUPPORT_PROMPT,
        prices: Mapping[str, tuple[float, float]] | None = None,
        name: str = "llm",
    ) -> None:
        self.config = config
        self.prompt = prompt
        self.prices = {**DEFAULT_PRICES, **(prices or {})}
        self.cache = VerdictCache(cache_path) if cache_path is not None else None
        self.usage = LlmUsage()
        self.name = name
        self.service = OutsideService("the LLM judge", config.policy())
        config.api_key()  # fail now, not after the first request, when a named key is missing

    async def ajudge(self, items: Sequence[JudgeInput]) -> list[JudgeResult]:
        semaphore = asyncio.Semaphore(self.config.max_concurrency)
        limits = httpx.Limits(max_connections=self.config.max_concurrency)
        async with httpx.AsyncClient(timeout=self.config.timeout_s, limits=limits) as http:
            client = LlmClient(self.config, http)

            async def bounded(item: JudgeInput) -> JudgeResult:
                async with semaphore:
                    return await self._judge_one(client, item)

            return list(await asyncio.gather(*(bounded(item) for item in items)))

    async def _judge_one(self, client: LlmClient, item: JudgeInput) -> JudgeResult:
        evidence = [t for t in item.evidence if t and t.strip()]
        if not evidence:
            return JudgeResult("cannot_judge", None, "no evidence text to compare")
        key = cache_key(self.config.model, self.prompt.version, item.claim, evidence, item.question)
        hit = self.cache.get(key) if self.cache is not None else None
        cached = verdict_of(hit) if hit is not None else None
        if cached is not None:
            self.usage.cache_hits += 1
            return JudgeResult(*cached)  # type: ignore[arg-type]  # verdict_of checked the label
        user = self.prompt.user_message(JudgeInput(item.claim, evidence, item.question))
        price = price_for(self.config.model, self.prices)
        tokens: list[int] = []

        async def attempt() -> JudgeResult:
            self.usage.requests += 1
            completion = await client.complete(self.prompt.system, user)
            self.usage.add_tokens(completion.input_tokens, completion.output_tokens, price)
            tokens[:] = [completion.input_tokens, completion.output_tokens]
            try:
                verdict = parse_verdict(completion.text)
            except ValueError as exc:
                raise OutsideCallError("malformed_reply", f"malformed reply: {exc}", retryable=True) from None
            return JudgeResult(verdict.label, round(verdict.score, 4), verdict.reason.strip())

        try:
            result, _ = await self.service.call(attempt)
        except OutsideCallError as exc:
            made = exc.attempts
            self.usage.failures += 1
            if exc.kind == "circuit_open":
                self.usage.last_failure = self.usage.last_failure or exc.reason
                return failed(f"llm judge not called: {exc.reason}")
            self.usage.last_failure = exc.reason
            return failed(f"llm judge failed after {made} attempt{'s' if made != 1 else ''}: {exc.reason}")
        if self.cache is not None:
            self.cache.put(key, {
                "model": self.config.model, "prompt_version": self.prompt.version, "value": result.value,
                "score": result.score, "reason": result.reason, "input_tokens": tokens[0],
                "output_tokens": tokens[1], "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            })
        return result
