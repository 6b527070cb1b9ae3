"""Answer backends addressed by SPEC strings (DESIGN 7): reference, replay:PATH, http:URL,
python:module:function, faults:KIND[,KIND]:SPEC."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from evals.data.registry import Registry
from evals.errors import UsageError
from evals.run.backends.anthropic import AnthropicFormatError, anthropic_to_answer, compile_patterns
from evals.run.backends.base import Backend, BaseBackend, error_answer, request_payload
from evals.run.backends.http import HttpBackend
from evals.run.backends.prices import PriceTable
from evals.run.backends.python_callable import PythonBackend
from evals.run.backends.reference import ReferenceBackend
from evals.run.backends.replay import ReplayBackend, load_refusal_patterns, load_replay
from evals.run.settings import spec_forms

_SECRET_PARAM = re.compile(r"(key|token|secret|passw|auth|sig)", re.IGNORECASE)


def make_backend(
    spec: str,
    registry: Registry | None = None,
    *,
    timeout: float = 60.0,
    retries: int = 2,
    concurrency: int = 8,
    dataset: Path | None = None,
    prices: Path | str | None = None,
    refusal_patterns: Path | str | None = None,
) -> BaseBackend:
    """Build the backend a SPEC names; raises UsageError for an unknown or malformed SPEC.

    prices / refusal_patterns: files overriding the shipped price table and refusal patterns
    of replayed Anthropic answers; None: the shipped ones (never the environment: the caller
    has decided, and records it)."""
    kind, _, rest = spec.partition(":")
    if kind == "reference":
        if registry is None:
            raise UsageError("the reference backend needs a dataset registry")
        return ReferenceBackend(registry)
    if kind == "replay" and rest:
        path = Path(rest)
        if not path.exists() and dataset is not None and (dataset / rest).exists():
            path = dataset / rest
        patterns = compile_patterns(None) if refusal_patterns is None else load_refusal_patterns(refusal_patterns)
        return ReplayBackend(path, registry, prices=PriceTable.load(prices), refusal_patterns=patterns)
    if kind in ("http", "https") and rest:
        # "http:https://host/x" is the documented form; a bare "https://host/x" works too
        url = spec if rest.startswith("//") else rest
        return HttpBackend(url, timeout=timeout, retries=retries, concurrency=concurrency)
    if kind == "python" and rest:
        return PythonBackend(rest, timeout=timeout, concurrency=concurrency)
    if kind == "faults" and rest:
        from evals.run.backends.faults import FaultBackend

        kinds, _, inner = rest.partition(":")
        if not inner:
            raise UsageError("faults needs KIND[,KIND]:SPEC, e.g. faults:unknown_marker:reference")
        if registry is None:
            raise UsageError("the faults wrapper needs a dataset registry")
        base = make_backend(
            inner, registry, timeout=timeout, retries=retries, concurrency=concurrency, dataset=dataset,
            prices=prices, refusal_patterns=refusal_patterns,
        )
        return FaultBackend(base, [k.strip() for k in kinds.split(",") if k.strip()], registry)
    raise UsageError(f"unknown backend {spec!r}: use {spec_forms()}")


def redact_spec(spec: str) -> str:
    """The SPEC as it may be written to a run folder: no userinfo, no secret-looking query values."""
    match = re.search(r"https?://\S+", spec)
    if not match:
        return spec
    parts = urlsplit(match.group(0))
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    if parts.username or parts.password:
        netloc = "***@" + netloc
    query = urlencode([(k, "***" if _SECRET_PARAM.search(k) else v) for k, v in parse_qsl(parts.query)])
    clean = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    return spec[: match.start()] + clean + spec[match.end() :]


__all__ = [
    "AnthropicFormatError",
    "Backend",
    "BaseBackend",
    "HttpBackend",
    "PythonBackend",
    "ReferenceBackend",
    "ReplayBackend",
    "anthropic_to_answer",
    "error_answer",
    "load_replay",
    "make_backend",
    "redact_spec",
    "request_payload",
]
