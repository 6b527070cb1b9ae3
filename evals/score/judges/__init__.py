"""Support judges: does the cited evidence support the claim? (DESIGN 5 `support`, issue 6.)

The score stage calls, per (claim, evidence) unit:

    judge = make_judge("offline")                                   # or "llm", LlmConfig(...)
    results = judge.judge([unit.input for unit in units])           # await judge.ajudge(...) in async code
    rows = support_judgments(run_id, judge.name, units, results)    # → judgments.jsonl

plus `ragas_faithfulness` (the faithfulness metric) and `judge_agreement` (agreement.json).
ragas is imported only by ragas_faithfulness; nothing here touches the network unless an LLM
endpoint is configured.
"""

from __future__ import annotations

from pathlib import Path

from evals.errors import UsageError
from evals.score.judges.agreement import judge_agreement, label_agreement, reference_labels
from evals.score.judges.base import (
    SUPPORT_VALUES,
    JudgeInput,
    JudgeResult,
    JudgeUnit,
    SupportJudge,
    SupportValue,
    support_judgments,
)
from evals.score.judges.faithfulness import (
    FaithfulnessResult,
    FaithfulnessSample,
    ragas_faithfulness,
    ragas_faithfulness_sync,
)
from evals.score.judges.llm import DEFAULT_PRICES, LlmConfig, LlmJudge, LlmUsage
from evals.score.judges.offline import DEFAULT_PARAMS, OfflineJudge, OfflineParams
from evals.score.judges.pairs import Pair, judge_pairs, pair_agreement, pair_lines, read_pairs
from evals.score.judges.prompt import SUPPORT_PROMPT, SupportPrompt, Verdict

JUDGES = ("offline", "llm")


def make_judge(
    kind: str = "offline",
    llm: LlmConfig | None = None,
    cache_path: Path | str | None = None,
    prices: dict[str, tuple[float, float]] | None = None,
) -> SupportJudge:
    """A judge by name: "offline" (default, deterministic) or "llm" (needs an LlmConfig; verdicts
    are cached in cache_path when given, e.g. RUN/judge_cache.jsonl)."""
    if kind == "offline":
        return OfflineJudge()
    if kind == "llm":
        if llm is None:
            raise UsageError("the llm judge needs a model: --llm-model NAME (and --llm-base-url or --llm-provider)")
        return LlmJudge(llm, cache_path=cache_path, prices=prices)
    raise UsageError(f"unknown judge {kind!r} (expected one of {', '.join(JUDGES)})")


__all__ = [
    "DEFAULT_PARAMS", "DEFAULT_PRICES", "JUDGES", "SUPPORT_PROMPT", "SUPPORT_VALUES",
    "FaithfulnessResult", "FaithfulnessSample", "JudgeInput", "JudgeResult", "JudgeUnit", "LlmConfig", "LlmJudge",
    "LlmUsage", "OfflineJudge", "OfflineParams", "Pair", "SupportJudge", "SupportPrompt", "SupportValue", "Verdict",
    "judge_agreement", "judge_pairs", "label_agreement", "make_judge", "pair_agreement", "pair_lines",
    "ragas_faithfulness", "ragas_faithfulness_sync", "read_pairs", "reference_labels", "support_judgments",
]
