"""Answer backends addressed by SPEC strings (DESIGN 7): reference, replay:PATH, http:URL,
python:module:function, faults:KIND[,KIND]:SPEC — or, from Python, a backend object or a callable
(what a `python:` SPEC names)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from evals.data.registry import Registry
from evals.errors import UsageError
from evals.run.backends.anthropic import AnthropicFormatError, anthropic_to_answer, compile_patterns
from evals.run.backends.base import Backend, BaseBackend, error_answer, request_payload
from evals.run.backends.http import HttpBackend
from evals.run.backends.prices import PriceTable
from evals.run.backends.python_callable import PythonBackend, callable_spec
from evals.run.backends.reference import ReferenceBackend
from evals.run.backends.replay import ReplayBackend, load_refusal_patterns, load_replay
from evals.run.settings import spec_forms
from evals.store.secrets import scrub_spec as redact_spec  # the SPEC as a run folder may keep it

# What a run may be asked with: a SPEC string, a backend object, or a callable taking the request
# payload (a python: backend without the module path).
BackendSpec = str | BaseBackend | Callable[..., Any]


def spec_text(spec: BackendSpec) -> str:
    """The SPEC string a run records for what it was given (a callable: python:<module>:<qualname>)."""
    if isinstance(spec, str):
        return spec
    if isinstance(spec, BaseBackend):
        return spec.name
    return callable_spec(spec)


def make_backend(
    spec: BackendSpec,
    registry: Registry | None = None,
    *,
    timeout: float = 60.0,
    retries: int = 2,
    concurrency: int = 8,
    dataset: Path | None = None,
    prices: Path | str | None = None,
    refusal_patterns: Path | str | None = None,
) -> BaseBackend:
    """Build the backend a SPEC names (a backend object is used as given, a callable becomes a
    python backend); raises UsageError for an unknown or malformed SPEC.

    prices / refusal_patterns: files overriding the shipped price table and refusal patterns
    of replayed Anthropic answers; None: the shipped ones (never the environment: the caller
    has decided, and records it)."""
    if isinstance(spec, BaseBackend):
        return spec
    if not isinstance(spec, str):
        if not callable(spec):
            raise UsageError(f"a backend is a SPEC string, a backend object or a callable, not {type(spec).__name__}")
        return PythonBackend(spec, timeout=timeout, concurrency=concurrency)
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
        return HttpBackend(_checked_url(url), timeout=timeout, retries=retries, concurrency=concurrency)
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


def _checked_url(url: str) -> str:
    """An http(s) URL with a host and a port in range, or a UsageError (exit 2: the spec is wrong,
    the service is not failing) that shows the URL without its credentials."""
    import httpx

    try:
        parsed = httpx.URL(url)
        port = parsed.port
    except (httpx.InvalidURL, ValueError, TypeError):
        parsed, port = None, None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host or not 0 < (port or 80) < 65536:
        shown = redact_spec(f"http:{url}").removeprefix("http:")
        raise UsageError(f"backend URL {shown!r} is not an http(s) URL with a host and a valid port "
                         "(e.g. http:http://localhost:8000/answer)")
    return url


__all__ = [
    "AnthropicFormatError",
    "Backend",
    "BackendSpec",
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
    "spec_text",
]
