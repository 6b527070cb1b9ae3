"""The judge interface: (claim, evidence texts, question) → support label, score, short reason.

Every judge (offline, llm) implements SupportJudge.ajudge over a batch; `judge_sync` runs one
from plain code. Results become `support` rows of judgments.jsonl (DESIGN 5) with source
`auto:<judge name>` via `support_judgments`.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Literal

from evals.contract.models import Judgment

SupportValue = Literal["supported", "partial", "unsupported", "cannot_judge"]
SUPPORT_VALUES: tuple[SupportValue, ...] = ("supported", "partial", "unsupported", "cannot_judge")


@dataclass(frozen=True)
class JudgeInput:
    """One (claim, evidence) unit. evidence holds the texts the claim cites (usually one chunk)."""

    claim: str
    evidence: Sequence[str]
    question: str | None = None


@dataclass(frozen=True)
class JudgeResult:
    """A judge's verdict on one unit.

    score: the judge's confidence that the evidence supports the claim, in [0, 1]; None when
    it could not judge. error: set (and value is cannot_judge) when the judge itself failed,
    e.g. the LLM endpoint kept answering 500; a failure is never a verdict.
    """

    value: SupportValue
    score: float | None
    reason: str
    error: str | None = None
    judge: str | None = None  # which judge decided, when a judge combines several (cascade: offline | llm:<model>)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value, "score": self.score, "reason": self.reason}
        if self.error is not None:
            out["error"] = self.error
        if self.judge is not None:
            out["judge"] = self.judge
        return out


def failed(reason: str) -> JudgeResult:
    """The result of a judge that could not produce a verdict (service error, bad reply)."""
    return JudgeResult("cannot_judge", None, reason, error=reason)


class SupportJudge(ABC):
    """A support judge. name is what follows `auto:` in judgments.jsonl."""

    name: str

    @abstractmethod
    async def ajudge(self, items: Sequence[JudgeInput]) -> list[JudgeResult]:
        """Judge every item; the result list is parallel to items. Never raises for one bad item."""

    def judge(self, items: Sequence[JudgeInput]) -> list[JudgeResult]:
        """Synchronous ajudge, for code that has no event loop running."""
        return judge_sync(self, items)


def judge_sync(judge: SupportJudge, items: Sequence[JudgeInput]) -> list[JudgeResult]:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(judge.ajudge(items))
    raise RuntimeError("judge_sync() called inside a running event loop; await judge.ajudge(items) instead")


@dataclass(frozen=True)
class JudgeUnit:
    """A unit of judgments.jsonl: which claim of which answer against which evidence."""

    question_id: str
    claim_id: str | None
    evidence_id: str | None
    input: JudgeInput
    extra: dict[str, Any] = field(default_factory=dict)


def support_judgments(
    run_id: str,
    judge_name: str,
    units: Sequence[JudgeUnit],
    results: Sequence[JudgeResult],
    at: datetime | None = None,
) -> list[Judgment]:
    """`support` rows for judgments.jsonl: source auto:<judge_name>, comment = reason, plus a
    `score` field (and `error` when the judge failed, `judge` when a cascade says which of its
    judges decided). DESIGN 5 allows added fields."""
    if len(units) != len(results):
        raise ValueError(f"{len(units)} units but {len(results)} results")
    stamp = at or datetime.now(timezone.utc)
    rows = []
    for unit, result in zip(units, results, strict=True):
        extra: dict[str, Any] = {"score": result.score}
        if result.error is not None:
            extra["error"] = result.error
        if result.judge is not None:
            extra["judge"] = result.judge
        rows.append(
            Judgment(
                run_id=run_id,
                question_id=unit.question_id,
                claim_id=unit.claim_id,
                evidence_id=unit.evidence_id,
                source=f"auto:{judge_name}",
                field="support",
                value=result.value,
                comment=result.reason,
                at=stamp,
                **extra,
            )
        )
    return rows
