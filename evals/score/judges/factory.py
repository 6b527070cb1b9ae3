"""A support judge by name (`--judge offline|llm`): the one place a name becomes a judge."""

from __future__ import annotations

from pathlib import Path

from evals.errors import UsageError
from evals.score.judges.base import SupportJudge
from evals.score.judges.cascade import CascadeJudge, CascadeSettings
from evals.score.judges.llm import LlmConfig, LlmJudge
from evals.score.judges.offline import OfflineJudge

JUDGES = ("offline", "llm", "cascade")


def make_judge(
    kind: str = "offline",
    llm: LlmConfig | None = None,
    cache_path: Path | str | None = None,
    prices: dict[str, tuple[float, float]] | None = None,
    cascade: CascadeSettings | None = None,
) -> SupportJudge:
    """A judge by name: "offline" (default, deterministic), "llm" (needs an LlmConfig; verdicts
    are cached in cache_path when given, e.g. RUN/judge_cache.jsonl) or "cascade" (offline, then
    the least confident units to the LLM: `cascade` says how many)."""
    if kind == "offline":
        return OfflineJudge()
    if kind == "llm":
        if llm is None:
            raise UsageError("the llm judge needs a model: --llm-model NAME (and --llm-base-url or --llm-provider)")
        return LlmJudge(llm, cache_path=cache_path, prices=prices)
    if kind == "cascade":
        if llm is None:
            raise UsageError("the cascade judge needs a model: --llm-model NAME (and --llm-base-url or --llm-provider)")
        settings = cascade or CascadeSettings()
        try:
            return CascadeJudge(LlmJudge(llm, cache_path=cache_path, prices=prices), settings.share, settings.below)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    raise UsageError(f"unknown judge {kind!r} (expected one of {', '.join(JUDGES)})")
