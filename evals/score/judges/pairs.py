"""`citeval judge PAIRS.jsonl`: judge labelled (claim, evidence) pairs, so a team can benchmark a
judge on its own data (DESIGN 7).

Input lines: {pair_id, claim, evidence: [..], question?, label?}; output lines:
{pair_id, value, score, reason}. label, when present, is a person's support label
(supported | partial | unsupported | cannot_judge, or true/false for supported/unsupported).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from evals.errors import DataError
from evals.score.judges.agreement import label_agreement
from evals.score.judges.base import SUPPORT_VALUES, JudgeInput, JudgeResult, SupportJudge
from evals.store.jsonl import iter_json_lines, validation_errors


class Pair(BaseModel):
    model_config = ConfigDict(extra="allow")

    pair_id: str
    claim: str
    evidence: list[str]
    question: str | None = None
    label: str | None = None

    @field_validator("pair_id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("evidence", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("label", mode="before")
    @classmethod
    def _known_label(cls, value: Any) -> Any:
        if isinstance(value, bool):
            return "supported" if value else "unsupported"
        if value is not None and value not in SUPPORT_VALUES:
            raise ValueError(f"unknown label {value!r} (expected one of {', '.join(SUPPORT_VALUES)})")
        return value

    def to_input(self) -> JudgeInput:
        return JudgeInput(self.claim, tuple(self.evidence), self.question)


def read_pairs(path: Path | str) -> list[Pair]:
    """Every pair of the file; the first bad line raises a DataError naming file and line."""
    pairs: list[Pair] = []
    seen: dict[str, int] = {}
    for lineno, obj in iter_json_lines(path):
        try:
            pair = Pair.model_validate(obj)
        except ValidationError as exc:
            raise validation_errors(path, lineno, exc)[0] from None
        if pair.pair_id in seen:
            raise DataError(path, lineno, f"duplicate pair_id (first on line {seen[pair.pair_id]})", field="pair_id")
        seen[pair.pair_id] = lineno
        pairs.append(pair)
    return pairs


def judge_pairs(pairs: Sequence[Pair], judge: SupportJudge) -> list[JudgeResult]:
    return judge.judge([p.to_input() for p in pairs])


def pair_lines(pairs: Sequence[Pair], results: Sequence[JudgeResult]) -> list[dict[str, Any]]:
    return [{"pair_id": p.pair_id, **r.to_json()} for p, r in zip(pairs, results, strict=True)]


def pair_agreement(pairs: Sequence[Pair], results: Sequence[JudgeResult]) -> dict[str, Any] | None:
    """Agreement with the pairs' human labels (None when no pair has a label)."""
    labelled = [(p.label, r.value) for p, r in zip(pairs, results, strict=True) if p.label is not None]
    if not labelled:
        return None
    return label_agreement([t for t, _ in labelled], [v for _, v in labelled])
