"""`citeval selftest`: inject every fault kind into the reference backend's answers and prove
that the deterministic checks catch each one, with no alarm on the unmodified answers."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.contract.metrics import (
    ANCHOR_ACCURACY,
    CITATION_VALIDITY,
    NUMBER_SUPPORT,
    QUOTE_EXACTNESS,
    VERSION_CORRECTNESS,
)
from evals.contract.models import Answer, Question
from evals.data.registry import Registry
from evals.run.backends.reference import ReferenceBackend
from evals.run.faults import FAULT_KINDS, FAULTS, apply_fault
from evals.score.checks import QUALITY_CODES, check_answer
from evals.score.metrics import score_answer
from evals.store.jsonl import load_questions

DROP_METRICS = (CITATION_VALIDITY, VERSION_CORRECTNESS, ANCHOR_ACCURACY, QUOTE_EXACTNESS, NUMBER_SUPPORT)
# the drops the Markdown matrix shows, one column each
SHOWN_DROPS = (CITATION_VALIDITY, VERSION_CORRECTNESS, ANCHOR_ACCURACY)


@dataclass
class KindResult:
    kind: str
    expected: str
    applicable: int = 0
    detected: int = 0
    new_codes: Counter[str] = field(default_factory=Counter)
    metric_drop: dict[str, float | None] = field(default_factory=dict)

    @property
    def rate(self) -> float | None:
        return self.detected / self.applicable if self.applicable else None


@dataclass
class SelftestReport:
    questions: int
    base_answered: int
    false_alarms: list[tuple[str, str]]  # (question_id, code) on unmodified answers
    kinds: list[KindResult]

    @property
    def ok(self) -> bool:
        return not self.false_alarms and all(k.applicable and k.rate == 1.0 for k in self.kinds)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "questions": self.questions,
            "base_answered": self.base_answered,
            "false_alarm_rate": len({q for q, _ in self.false_alarms}) / self.base_answered
            if self.base_answered
            else None,
            "false_alarms": [{"question_id": q, "code": c} for q, c in self.false_alarms],
            "kinds": [
                {
                    "kind": k.kind,
                    "expected": k.expected,
                    "applicable": k.applicable,
                    "detected": k.detected,
                    "detection_rate": k.rate,
                    "new_codes": dict(k.new_codes),
                    "metric_drop": k.metric_drop,
                }
                for k in self.kinds
            ],
        }

    def to_markdown(self) -> str:
        """The detection matrix as a Markdown table, then the false-alarm line."""
        data = self.to_json()
        lines = [
            "| fault kind | expected finding | detected | other findings | validity drop | version drop"
            " | anchor drop |",
            "|---|---|---|---|---|---|---|",
        ]
        for k in data["kinds"]:
            rate = (
                "n/a"
                if k["detection_rate"] is None
                else f"{k['detection_rate']:.0%} ({k['detected']}/{k['applicable']})"
            )
            others = ", ".join(f"{c} {n}" for c, n in sorted(k["new_codes"].items()) if c != k["expected"]) or "—"
            drops = [k["metric_drop"].get(m) for m in SHOWN_DROPS]
            shown = ["—" if d is None else f"{d:+.2f}" for d in drops]
            lines.append(f"| {k['kind']} | {k['expected']} | {rate} | {others} | " + " | ".join(shown) + " |")
        alarms = data["false_alarm_rate"]
        lines.append("")
        lines.append(
            f"unmodified answers: {data['base_answered']} answered of {data['questions']}; "
            f"false alarms: {len(data['false_alarms'])} ({0 if alarms is None else alarms:.0%})"
        )
        lines.append("selftest: " + ("ok" if data["ok"] else "FAILED"))
        return "\n".join(lines)


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def run_selftest(dataset: Path | str, kinds: tuple[str, ...] = FAULT_KINDS) -> SelftestReport:
    dataset = Path(dataset)
    registry = Registry.load(dataset)
    questions = load_questions(dataset)
    now = datetime.now(timezone.utc)
    backend = ReferenceBackend(registry)

    async def answer_all() -> list[Answer]:
        return [await backend.answer(q, q.asked_at or now) for q in questions]

    base_answers = asyncio.run(answer_all())
    base: list[tuple[Question, Answer, Counter[str], dict[str, float | None]]] = []
    false_alarms = []
    for q, a in zip(questions, base_answers, strict=True):
        check = check_answer(q, a, registry, q.asked_at or now)
        # the registry checks are under test: findings against gold (key facts, gold evidence and
        # anchors) grade the reference's answers, they are no alarm of a fault
        codes = Counter(f.code for f in check.integrity_findings)
        false_alarms += [(q.question_id, c) for c in sorted(codes) if c not in QUALITY_CODES]
        base.append((q, a, codes, score_answer(check, {}, registry).values))

    results = []
    for kind in kinds:
        result = KindResult(kind, FAULTS[kind].expected)
        before: dict[str, list[float | None]] = {m: [] for m in DROP_METRICS}
        after: dict[str, list[float | None]] = {m: [] for m in DROP_METRICS}
        for q, a, codes, values in base:
            at = q.asked_at or now
            changed = apply_fault(kind, a, q, registry, at)
            if changed is None:
                continue
            check = check_answer(q, changed, registry, at)
            new = Counter(f.code for f in check.integrity_findings) - codes
            result.applicable += 1
            result.detected += new[result.expected] > 0
            result.new_codes.update(new)
            scored = score_answer(check, {}, registry).values
            for m in DROP_METRICS:
                before[m].append(values.get(m))
                after[m].append(scored.get(m))
        for m in DROP_METRICS:
            b, c = _mean(before[m]), _mean(after[m])
            result.metric_drop[m] = None if b is None or c is None else round(b - c, 4)
        results.append(result)
    answered = sum(a.status == "answered" for a in base_answers)
    return SelftestReport(len(questions), answered, false_alarms, results)
