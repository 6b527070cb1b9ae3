"""One policy for calls to outside services: the http backend and the LLM judge use it.

- Retries (tenacity): 429 and 503 wait what Retry-After says (seconds or an HTTP date, capped),
  5xx, 408, timeouts, dropped connections and unparseable replies back off exponentially with
  jitter; any other 4xx is the caller's mistake and is not retried; a 3xx is reported as
  "redirect to …" (redirects are not followed: a POST must not turn into a GET elsewhere).
- A circuit breaker per service: after N consecutive failed calls every later call fails at
  once with the reason. A refused connection (or a connect timeout) counts per attempt, so a
  dead endpoint trips it within the first rounds of retries, not after every call spent its own.
- Caps on a reply: its size, compressed and decompressed (the body is streamed and decoded
  here, so a gzip bomb is stopped at the cap, never inflated), and the wall time of one
  exchange (httpx's timeout bounds each read, not a server that drips bytes).
- One resolver for API keys: a missing key names the environment variable to set.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
import zlib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from evals.contract.metrics import FAITHFULNESS
from evals.errors import BackendError, DataError, UsageError
from evals.store.reading import parse_json

T = TypeVar("T")

DEFAULT_MAX_REPLY_BYTES = 10 * 1024 * 1024
# what we can decode ourselves under the size cap; a server must not pick br or zstd
ACCEPT_ENCODING = "gzip, deflate"
# how a Ragas call that failed begins its reason (evals.score.judges.faithfulness), so
# judge_failure can tell a service failure from a sample Ragas had nothing to score in
RAGAS_FAILED = f"ragas {FAITHFULNESS} failed"


@dataclass(frozen=True)
class CallPolicy:
    """How one outside service is called. attempts counts the first call too."""

    attempts: int = 3
    backoff_s: float = 0.25  # first retry waits this plus up to as much jitter, then doubling
    backoff_max_s: float = 30.0
    retry_after_max_s: float = 30.0  # a longer Retry-After is waited only this long
    reply_timeout_s: float = 60.0  # wall time of one exchange: connect, send, headers and body
    max_reply_bytes: int = DEFAULT_MAX_REPLY_BYTES  # compressed and decompressed, each
    breaker_threshold: int = 8  # consecutive failed calls that open the circuit; 0: never

    def __post_init__(self) -> None:
        if self.attempts < 1 or self.backoff_s < 0 or self.reply_timeout_s <= 0 or self.max_reply_bytes < 1:
            raise UsageError("a call policy needs attempts ≥ 1, backoff ≥ 0, a positive timeout and size cap")


class OutsideCallError(Exception):
    """One failed exchange with an outside service. kind is a short stable name (it becomes
    an error answer's type); reason is one line, free of secrets."""

    def __init__(
        self, kind: str, reason: str, *, retryable: bool, retry_after: float | None = None, status: int | None = None
    ) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.retryable = retryable
        self.retry_after = retry_after
        self.status = status
        self.attempts = 0  # set by OutsideService.call when it gives up
        self.refused = False  # nothing answers at the address: counted by the breaker per attempt


class CircuitBreaker:
    """Opens after `threshold` consecutive failures; a success closes the count again."""

    def __init__(self, threshold: int, service: str) -> None:
        self.threshold = threshold
        self.service = service
        self.consecutive = 0
        self.last_reason: str | None = None
        self.opened = False

    def check(self) -> None:
        if self.opened:
            raise OutsideCallError(
                "circuit_open",
                f"{self.service} stopped after {self.consecutive} consecutive failures; last: {self.last_reason}",
                retryable=False,
            )

    def success(self) -> None:
        self.consecutive = 0

    def failure(self, reason: str) -> None:
        self.consecutive += 1
        self.last_reason = reason
        if self.threshold and self.consecutive >= self.threshold:
            self.opened = True


class OutsideService:
    """One outside service under a CallPolicy: `call` runs an attempt function with retries,
    through the service's circuit breaker."""

    def __init__(self, name: str, policy: CallPolicy | None = None) -> None:
        self.name = name
        self.policy = policy or CallPolicy()
        self.breaker = CircuitBreaker(self.policy.breaker_threshold, name)

    async def call(self, attempt: Callable[[], Awaitable[T]]) -> tuple[T, int]:
        """The attempt's value and how many attempts it took; raises the last OutsideCallError
        (its `attempts` set) when the retries are spent, a failure is final, or the circuit is open."""
        policy = self.policy

        def wait(state: RetryCallState) -> float:
            error = state.outcome.exception() if state.outcome else None
            if isinstance(error, OutsideCallError) and error.retry_after is not None:
                return min(error.retry_after, policy.retry_after_max_s)
            # exponential, plus up to as much again of jitter so that concurrent retries spread out
            delay = min(policy.backoff_max_s, policy.backoff_s * 2 ** (state.attempt_number - 1))
            return delay + random.uniform(0, delay)

        def retryable(error: BaseException) -> bool:
            return isinstance(error, OutsideCallError) and error.retryable and not self.breaker.opened

        async def sleep(seconds: float) -> None:
            # wake early when the circuit opens meanwhile: a waiting retry has nothing left to wait for
            end = time.monotonic() + seconds
            while not self.breaker.opened and (left := end - time.monotonic()) > 0:
                await asyncio.sleep(min(left, 0.05))

        made = 0
        try:
            async for trial in AsyncRetrying(
                stop=stop_after_attempt(policy.attempts),
                wait=wait,
                retry=retry_if_exception(retryable),
                reraise=True,
                sleep=sleep,
            ):
                with trial:
                    self.breaker.check()
                    made += 1
                    try:
                        value = await asyncio.wait_for(attempt(), timeout=policy.reply_timeout_s)
                    except asyncio.TimeoutError:
                        raise OutsideCallError(
                            "timeout", f"timed out after {policy.reply_timeout_s:g} s", retryable=True
                        ) from None
                    except OutsideCallError as error:
                        if error.refused:
                            self.breaker.failure(error.reason)
                        raise
        except OutsideCallError as error:
            error.attempts = made
            if error.retryable and not error.refused:
                self.breaker.failure(error.reason)  # a call that spent its retries
            raise
        self.breaker.success()
        return value, made


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date (RFC 9110 10.2.3)."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


def _decoder(encoding: str) -> Any:
    """A zlib decompressor for the reply's Content-Encoding, None for identity."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == "deflate":
        return zlib.decompressobj(zlib.MAX_WBITS)
    raise OutsideCallError("unsupported_encoding", f"reply has Content-Encoding {encoding!r}", retryable=False)


def _too_large(what: str, cap: int) -> OutsideCallError:
    return OutsideCallError("reply_too_large", f"reply is over {cap:,} bytes {what}; abandoned", retryable=False)


async def read_capped(response: httpx.Response, cap: int) -> bytes:
    """The reply body, decoded, read as a stream and abandoned once it passes cap bytes
    compressed or decompressed."""
    declared = response.headers.get("content-length", "").strip()
    if declared.isdigit() and int(declared) > cap:
        raise _too_large("(Content-Length)", cap)
    decoder = _decoder(response.headers.get("content-encoding", ""))
    body = bytearray()
    received = 0
    try:
        async for chunk in response.aiter_raw():
            received += len(chunk)
            if received > cap:
                raise _too_large("compressed", cap)
            if decoder is None:
                body += chunk
            else:
                data = chunk
                while data:  # max_length keeps one chunk of a bomb from inflating past the cap
                    body += decoder.decompress(data, cap - len(body) + 1)
                    if len(body) > cap:
                        raise _too_large("decompressed", cap)
                    data = decoder.unconsumed_tail
            if len(body) > cap:
                raise _too_large("", cap)
        if decoder is not None:
            body += decoder.flush()
    except zlib.error as exc:
        raise OutsideCallError("malformed_reply", f"reply does not decompress: {exc}", retryable=True) from None
    if len(body) > cap:
        raise _too_large("decompressed", cap)
    return bytes(body)


def _status_error(status: int, headers: Mapping[str, str], text: str) -> OutsideCallError:
    """The error a non-2xx reply stands for, retryable by the policy's rules."""
    detail = " ".join(text[:200].split())
    suffix = f": {detail}" if detail else ""
    if 300 <= status < 400:
        where = headers.get("location") or "an unnamed location"
        return OutsideCallError("redirect", f"HTTP {status}: redirect to {where[:200]}", retryable=False, status=status)
    if status in (429, 503):
        wait = retry_after_seconds(headers.get("retry-after"))
        kind = "rate_limited" if status == 429 else "http_5xx"
        return OutsideCallError(kind, f"HTTP {status}{suffix}", retryable=True, retry_after=wait, status=status)
    if status >= 500 or status == 408:
        return OutsideCallError("http_5xx" if status >= 500 else "timeout", f"HTTP {status}{suffix}", retryable=True,
                                status=status)
    return OutsideCallError("http_4xx", f"HTTP {status}{suffix}", retryable=False, status=status)


async def post_json(
    client: httpx.AsyncClient,
    url: str,
    payload: Any,
    *,
    headers: Mapping[str, str] | None = None,
    max_bytes: int = DEFAULT_MAX_REPLY_BYTES,
    scrub: Callable[[str], str] = lambda text: text,
) -> Any:
    """One POST of a JSON payload; the parsed JSON reply of a 2xx, else an OutsideCallError.
    scrub removes secrets from any text that goes into a reason."""
    sent = {"accept-encoding": ACCEPT_ENCODING, **(headers or {})}
    try:
        async with client.stream("POST", url, json=payload, headers=sent) as response:
            if not 200 <= response.status_code < 300:
                try:
                    text = (await read_capped(response, 64 * 1024)).decode("utf-8", "replace")
                except OutsideCallError:
                    text = ""
                raise _status_error(response.status_code, response.headers, scrub(text))
            body = await read_capped(response, max_bytes)
    except httpx.TimeoutException as exc:
        error = OutsideCallError("timeout", f"no reply within the timeout ({type(exc).__name__})", retryable=True)
        error.refused = isinstance(exc, httpx.ConnectTimeout)  # no host answers at the address
        raise error from None
    except httpx.TransportError as exc:
        error = OutsideCallError("connection_error", scrub(f"{type(exc).__name__}: {exc}"), retryable=True)
        error.refused = isinstance(exc, httpx.ConnectError)  # refused, unreachable, unknown host
        raise error from None
    return parse_reply(body, scrub)


def parse_reply(body: bytes, scrub: Callable[[str], str] = lambda text: text) -> Any:
    """A reply's JSON read as citeval reads its own files (evals.store.reading: no NaN or Infinity,
    no duplicate key, at most 200 levels deep, numbers of at most 1,000 digits), so what a service
    sends can be stored and read back; anything else is an OutsideCallError (malformed_json)."""
    try:
        text = body.decode("utf-8")
        json.loads(text)  # the common errors read as before ("reply is not JSON"); limits checked below
    except (ValueError, RecursionError):
        preview = scrub(body[:80].decode("utf-8", "replace"))
        raise OutsideCallError("malformed_json", f"reply is not JSON: {preview!r}", retryable=True) from None
    try:
        return parse_json(text, "reply")
    except DataError as exc:
        reason = exc.message.removeprefix("invalid JSON: ")
        raise OutsideCallError("malformed_json", f"reply is not JSON citeval can store: {reason}",
                               retryable=False) from None


def api_key(env_name: str | None, default_env: str, *, required: bool, what: str = "the LLM API key") -> str | None:
    """The key in env_name (or default_env when none is named). Missing: a UsageError naming
    the variable when the key is required (a variable was named, or the provider's own
    endpoint is called), else None (a local server that checks no key)."""
    name = env_name or default_env
    value = os.environ.get(name, "").strip()
    if value:
        return value
    if env_name or required:
        raise UsageError(f"environment variable {name} ({what}) is not set: set it, or name another with --llm-key-env")
    return None


def elapsed_ms(started: float) -> float:
    """Milliseconds since a time.perf_counter() reading, for an answer's latency."""
    return round((time.perf_counter() - started) * 1000, 1)


def all_failed_error(service: str, noun: str, total: int, reasons: list[str]) -> BackendError | None:
    """BackendError (exit 3) when a required service failed on every one of `total` items, given
    the reason of each failure: one line naming the first reason that is not the breaker's own."""
    if total == 0 or len(reasons) < total:
        return None
    first = next((r for r in reasons if not r.startswith("circuit_open")), reasons[0])
    breaker = next((r for r in reasons if r.startswith("circuit_open")), None)
    return BackendError(f"{service} failed on all {total} {noun}: {first}" + ("" if breaker is None else
                        " (then the circuit breaker stopped further calls)"))


def _field(record: Any, name: str) -> Any:
    """A field of a scores document, whether it is still a dict or already a typed model."""
    if record is None:
        return None
    return record.get(name) if isinstance(record, Mapping) else getattr(record, name, None)


def backend_failure(run_dir: Any, total: int, errors: int) -> BackendError | None:
    """`run` and `eval`: BackendError (exit 3) when the backend failed on every question of the run,
    or stopped answering midway (an outage: the circuit breaker opened), saying how to resume."""
    if total == 0 or errors == 0:
        return None
    from evals.store.runfolder import RunFolder

    failed = [a for a in RunFolder(run_dir).answers.values() if a.status == "error"]
    reasons = [f"{a.error.type}: {a.error.message}" if a.error else "backend error" for a in failed]
    if errors >= total:
        return all_failed_error("backend", "questions", total, reasons)
    resume = f"once it is back: citeval run --resume {run_dir} --retry-errors"
    stopped = [r for r in reasons if r.startswith("circuit_open")]
    if not stopped:
        return None  # some questions failed, the others were answered: the run's own verdict
    first = next((r for r in reasons if not r.startswith("circuit_open")), stopped[0])
    return BackendError(
        f"the backend stopped answering during the run: {total - errors} of {total} questions answered, then "
        f"{len(stopped)} not asked after the circuit breaker opened (first failure: {first}); {resume}"
    )


def judge_failure(judge: str, scores: Any, *, ragas: bool = False) -> BackendError | None:
    """`score`/`eval`: BackendError when a service asked for judged nothing — the LLM judge
    (`--judge llm`) failed on every unit, or Ragas (`--ragas`) scored no sample because every
    call failed — with the reason the service gave."""
    summary = _field(scores, "judge_summary")
    units, failed = _field(summary, "units") or 0, _field(summary, "failed") or 0
    if judge == "llm" and units and failed >= units:
        reason = _field(_field(scores, "judge_usage"), "last_failure") or "every call failed"
        return BackendError(f"LLM judge failed on all {units} (claim, evidence) units: {reason}")
    if ragas:
        faithfulness = _field(_field(scores, "metrics"), FAITHFULNESS)
        reasons = _field(scores, "faithfulness_failures") or []
        service = [r for r in reasons if r.startswith(RAGAS_FAILED)]
        if service and faithfulness is not None and _field(faithfulness, "value") is None:
            return BackendError(f"Ragas {FAITHFULNESS} scored no answer: {service[0]}")
    return None
