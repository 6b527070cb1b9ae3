"""What a review round costs: each rater's seconds per task and the rater-seconds per accepted answer.

`label pull` keeps each annotation's Label Studio `lead_time` (seconds from opening the task
to submitting it) on every label of that annotation, with its `annotation_id`. A rater's time
on a task is the lead_time of their latest annotation of it (the one whose labels count); an
adjudicator's time (a ground-truth annotation, source `adjudicated`) counts towards the
round's cost like a rater's.

An answer (question) is *accepted* when every unit of it that a rater labelled is settled:
it has an adjudicated label, or two or more raters labelled it and all gave the same label.
The round's cost per accepted answer is all rater-seconds / accepted answers, priced at an
hourly rate when one is given (`citeval agree --hourly-rate`); undefined (null, with the
reason) when no answer is accepted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

import numpy as np

from evals.contract.agreement import RaterTimeEntry, RoundCostEntry, SecondsPerTask
from evals.contract.models import Judgment
from evals.contract.precedence import ADJUDICATED, UnitKey, is_rater, latest_by_source, winners

__all__ = ["rater_time", "round_cost", "seconds_of"]


def seconds_of(judgment: Judgment) -> float | None:
    """The lead_time a pulled label carries (seconds), None when it has none."""
    value = (judgment.model_extra or {}).get("lead_time")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value == value or value < 0:
        return None
    return float(value)


def _timed(source: str) -> bool:
    return is_rater(source) or source == ADJUDICATED


def _task_seconds(judgments: list[Judgment]) -> dict[str, dict[str, float | None]]:
    """source → question_id → seconds of the annotation whose labels count (None: no lead_time)."""
    latest = winners(judgments, lambda j: (j.source, j.question_id) if _timed(j.source) else None)
    out: dict[str, dict[str, float | None]] = defaultdict(dict)
    for (source, question_id), judgment in latest.items():
        out[source][question_id] = seconds_of(judgment)
    return out


def _percentiles(values: list[float]) -> SecondsPerTask:
    if not values:
        return SecondsPerTask(reason="no label of this rater carries a lead_time")
    median, p90 = np.percentile(np.asarray(values, dtype=float), [50, 90])
    return SecondsPerTask(median=round(float(median), 3), p90=round(float(p90), 3))


def rater_time(judgments: Iterable[Judgment]) -> dict[str, RaterTimeEntry]:
    """Per rater (and `adjudicated`): tasks, seconds in all, seconds per task (median, p90), tasks per hour."""
    out: dict[str, RaterTimeEntry] = {}
    for source, tasks in sorted(_task_seconds(list(judgments)).items()):
        values = [s for s in tasks.values() if s is not None]
        total = round(sum(values), 3)
        out[source] = RaterTimeEntry(
            tasks=len(values),
            tasks_without_time=len(tasks) - len(values),
            seconds_total=total,
            seconds_per_task=_percentiles(values),
            tasks_per_hour=round(len(values) * 3600 / total, 3) if total > 0 else None,
        )
    return out


def _accepted(judgments: list[Judgment]) -> tuple[set[str], set[str]]:
    """(questions with a rater's or an adjudicated label, the accepted ones among them)."""
    labels: dict[tuple[str, UnitKey], dict[str, str]] = defaultdict(dict)
    for (field_name, unit, source), j in latest_by_source(judgments).items():
        if _timed(source):
            labels[(field_name, unit)][source] = j.value
    answers: set[str] = set()
    unsettled: set[str] = set()
    for (_, unit), by_source in labels.items():
        answers.add(unit.question_id)
        if ADJUDICATED in by_source:
            continue
        if len(by_source) < 2 or len(set(by_source.values())) > 1:
            unsettled.add(unit.question_id)
    return answers, answers - unsettled


def round_cost(judgments: Iterable[Judgment], hourly_rate: float | None = None) -> RoundCostEntry:
    """All rater-seconds of the round, per accepted answer, and priced at `hourly_rate` when given."""
    rows = list(judgments)
    seconds = round(sum(s for tasks in _task_seconds(rows).values() for s in tasks.values() if s is not None), 3)
    answers, accepted = _accepted(rows)
    entry: dict[str, Any] = {
        "hourly_rate": hourly_rate,
        "rater_seconds": seconds,
        "answers": len(answers),
        "accepted_answers": len(accepted),
        "seconds_per_accepted_answer": None,
        "cost_per_accepted_answer": None,
    }
    if not accepted:
        entry["reason"] = "no answer is accepted yet (every labelled unit adjudicated or agreed by two raters)"
        return RoundCostEntry.model_validate(entry)
    per_answer = seconds / len(accepted)
    entry["seconds_per_accepted_answer"] = round(per_answer, 3)
    if hourly_rate is None:
        entry["reason"] = "no hourly rate given (citeval agree --hourly-rate)"
    else:
        entry["cost_per_accepted_answer"] = round(per_answer / 3600 * hourly_rate, 4)
    return RoundCostEntry.model_validate(entry)
