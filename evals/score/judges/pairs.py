"""`citeval judge PAIRS.jsonl`: judge labelled (claim, evidence) pairs, so a team can benchmark a
judge on its own data (DESIGN 7).

Input lines: {pair_id, claim, evidence: [..], question?, label?}; output lines:
{pair_id, value, score, reason}. label, when present, is a person's support label
(supported | partial | unsupported | cannot_judge, or true/false for supported/unsupported).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from evals.errors import DataError
from evals.score.judges.agreement import label_agreement
from evals.score.judges.base import SUPPORT_VALUES, JudgeInput, JudgeResult, SupportJudge
from evals.score.judges.calibration import Reliability, reliability
from evals.score.judges.cascade import CascadeSettings
from evals.score.judges.factory import make_judge
from evals.score.judges.llm import LlmConfig
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


AGREEMENT_VIEWS = ("labels", "binary")
AGREEMENT_STATS = ("accuracy", "macro_f1", "cohen_kappa")


@dataclass
class PairsJudgement:
    """A judge's verdicts on a pairs file, with agreement against the pairs' labels (if any) and
    what an LLM judge spent."""

    pairs: list[Pair]
    results: list[JudgeResult]
    usage: dict[str, Any] | None = None  # an LLM judge's LlmUsage.to_json(); None for the offline judge
    lines: list[dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.lines = pair_lines(self.pairs, self.results)

    @property
    def failed(self) -> int:
        """Pairs the judge could not judge (its service failed), never counted as verdicts."""
        return sum(r.error is not None for r in self.results)

    @property
    def all_failed(self) -> bool:
        """The judge failed on every pair of a non-empty file: a service failure, not a result."""
        return bool(self.pairs) and self.failed == len(self.pairs)

    @cached_property
    def agreement(self) -> dict[str, Any] | None:
        return pair_agreement(self.pairs, self.results)

    @cached_property
    def calibration(self) -> Reliability | None:
        """ECE and the reliability table of the scores as P(supported) against the labels
        (None when no pair has a label)."""
        labelled = [(p.label == "supported", r.score) for p, r in zip(self.pairs, self.results, strict=True)
                    if p.label is not None]
        if not labelled:
            return None
        return reliability([s for _, s in labelled], [t for t, _ in labelled])

    @property
    def deciders(self) -> dict[str, int]:
        """Verdicts per judge that decided them, when the judge names them (a cascade)."""
        out: dict[str, int] = {}
        for r in self.results:
            if r.judge is not None:
                out[r.judge] = out.get(r.judge, 0) + 1
        return out

    def summary(self) -> dict[str, Any]:
        """{pairs, failed, agreement?, calibration?, decided_by?, usage?}: what `citeval judge
        --format json` writes to stderr."""
        out: dict[str, Any] = {"pairs": len(self.pairs), "failed": self.failed}
        if self.agreement is not None:
            out["agreement"] = self.agreement
        if self.calibration is not None:
            out["calibration"] = self.calibration.to_json()
        if self.deciders:
            out["decided_by"] = self.deciders
        if self.usage is not None:
            out["usage"] = self.usage
        return out

    def to_json(self) -> dict[str, Any]:
        return {"verdicts": self.lines, **self.summary()}

    def to_json_lines(self) -> str:
        """One {pair_id, value, score, reason} line a pair (DESIGN 7's output lines)."""
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)

    def to_text(self) -> str:
        """A table: pair_id, value, score, reason separated by tabs, a line a pair (a cascade adds,
        before the reason, the judge that decided)."""
        rows = []
        for line in self.lines:
            score = "-" if line["score"] is None else f"{line['score']:.2f}"
            judge = f"{line['judge']}\t" if "judge" in line else ""
            rows.append(f"{line['pair_id']}\t{line['value']}\t{score}\t{judge}{line['reason']}\n")
        return "".join(rows)

    def agreement_text(self) -> str:
        """Agreement with the labels, a line per view; empty when no pair has a label."""
        if self.agreement is None:
            return ""
        lines = []
        for view in AGREEMENT_VIEWS:
            stats = self.agreement[view]
            values = ", ".join(
                f"{k} {'n/a' if stats[k]['value'] is None else format(stats[k]['value'], '.3f')}"
                for k in AGREEMENT_STATS
            )
            lines.append(f"agreement ({view}, n={stats['n']}): {values}\n")
        if self.calibration is not None:
            lines.append(self.calibration.to_text())
        return "".join(lines)

    def usage_text(self) -> str:
        """Who decided and what the LLM spent (a cascade or an LLM judge); empty for offline."""
        lines = []
        if self.deciders:
            lines.append("decided by: " + ", ".join(f"{k} {v}" for k, v in sorted(self.deciders.items())) + "\n")
        if self.usage is not None:
            u = self.usage
            cost = "n/a (no price for the model)" if u.get("cost_usd") is None else f"${u['cost_usd']:.4f}"
            lines.append(f"llm: {u['requests']} requests, {u['cache_hits']} cache hits, {u['input_tokens']} input and "
                         f"{u['output_tokens']} output tokens, cost {cost}, {u['failures']} failed\n")
        return "".join(lines)


def judge_pairs_file(
    path: Path | str,
    judge: str = "offline",
    *,
    llm: LlmConfig | None = None,
    cache_path: Path | str | None = None,
    cascade: CascadeSettings | None = None,
) -> PairsJudgement:
    """Read a pairs file and judge every pair with the judge named (offline, llm or cascade);
    a bad line raises DataError before any judge runs; a cascade whose LLM fails on every pair
    sent raises BackendError (nothing judged is returned)."""
    pairs = read_pairs(path)
    support_judge = make_judge(judge, llm=llm if judge != "offline" else None, cache_path=cache_path,
                               cascade=cascade)
    results = judge_pairs(pairs, support_judge)
    usage = getattr(support_judge, "usage", None)
    return PairsJudgement(pairs, results, usage.to_json() if usage is not None else None)
