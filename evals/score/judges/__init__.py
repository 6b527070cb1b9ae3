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
from evals.score.judges.factory import JUDGES, make_judge
from evals.score.judges.faithfulness import (
    FaithfulnessResult,
    FaithfulnessSample,
    ragas_faithfulness,
    ragas_faithfulness_sync,
)
from evals.score.judges.llm import DEFAULT_PRICES, LlmConfig, LlmJudge, LlmUsage
from evals.score.judges.offline import DEFAULT_PARAMS, OfflineJudge, OfflineParams
from evals.score.judges.pairs import (
    Pair,
    PairsJudgement,
    judge_pairs,
    judge_pairs_file,
    pair_agreement,
    pair_lines,
    read_pairs,
)
from evals.score.judges.prompt import SUPPORT_PROMPT, SupportPrompt, Verdict

__all__ = [
    "DEFAULT_PARAMS", "DEFAULT_PRICES", "JUDGES", "SUPPORT_PROMPT", "SUPPORT_VALUES",
    "FaithfulnessResult", "FaithfulnessSample", "JudgeInput", "JudgeResult", "JudgeUnit", "LlmConfig", "LlmJudge",
    "LlmUsage", "OfflineJudge", "OfflineParams", "Pair", "PairsJudgement", "SupportJudge", "SupportPrompt",
    "SupportValue", "Verdict", "judge_agreement", "judge_pairs", "judge_pairs_file", "label_agreement", "make_judge",
    "pair_agreement", "pair_lines", "ragas_faithfulness", "ragas_faithfulness_sync", "read_pairs", "reference_labels",
    "support_judgments",
]
