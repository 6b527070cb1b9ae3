"""How well each auto judge agrees with people on the `support` field (DESIGN 6, agreement.json
`judge_agreement`), and agreement of a judge's labels with labelled pairs (`citeval judge`).

The reference label of a unit (question, claim, evidence) is the adjudicated one when there is
one, else the human raters' majority; a unit whose raters tie, or where either side says
cannot_judge, is left out. Every statistic is {value, ci, reason?}: value None with a reason
when undefined, never NaN; ci is a 95 % percentile bootstrap over questions (the sampling unit),
with a fixed seed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from evals.contract.models import Judgment
from evals.contract.precedence import latest_by_source
from evals.score.judges.metrics import Stat, accuracy, agreement_report, cohen_kappa, macro_f1, precision_recall
from evals.stats.bootstrap import percentile_interval, resample_indices

Unit = tuple[str, str | None, str | None]  # (question_id, claim_id, evidence_id)
LABELS = ("supported", "partial", "unsupported")


def _as_judgment(row: Judgment | Mapping[str, Any]) -> Judgment:
    return row if isinstance(row, Judgment) else Judgment.model_validate(row)


def _latest(rows: Iterable[Judgment]) -> dict[tuple[Unit, str], Judgment]:
    """The last label each source gave each unit (a re-label replaces the earlier one; the order of
    evals.contract.precedence)."""
    return {((unit.question_id, unit.claim_id, unit.evidence_id), source): j
            for (_, unit, source), j in latest_by_source(rows, "support").items()}


def reference_labels(judgments: Iterable[Judgment | Mapping[str, Any]]) -> tuple[dict[Unit, str], int]:
    """(reference support label per unit, number of units left out because humans tied)."""
    latest = _latest(j for j in map(_as_judgment, judgments) if j.field == "support")
    adjudicated: dict[Unit, str] = {}
    human: dict[Unit, list[str]] = defaultdict(list)
    for (unit, source), row in latest.items():
        if source == "adjudicated":
            adjudicated[unit] = row.value
        elif source.startswith("human:"):
            human[unit].append(row.value)
    reference = dict(adjudicated)
    ties = 0
    for unit, values in human.items():
        if unit in reference:
            continue
        ranked = Counter(values).most_common()
        if len(ranked) > 1 and ranked[0][1] == ranked[1][1]:
            ties += 1
            continue
        reference[unit] = ranked[0][0]
    return reference, ties


def _bootstrap(
    statistic: Callable[[list[str], list[str]], Stat],
    by_question: Mapping[str, list[tuple[str, str]]],
) -> list[float] | None:
    """Percentile interval of the statistic over questions resampled with replacement (the
    question is the sampling unit; evals.stats.bootstrap's seed and resample count)."""
    questions = sorted(by_question)
    if len(questions) < 2:
        return None
    draws = resample_indices(len(questions))
    values = np.full(len(draws), np.nan)
    for i, row in enumerate(draws):
        pairs = [p for k in row for p in by_question[questions[k]]]
        value = statistic([t for t, _ in pairs], [p for _, p in pairs]).value
        if value is not None:
            values[i] = value
    interval, _ = percentile_interval(values)
    return interval


def _with_ci(
    stat: Stat,
    statistic: Callable[[list[str], list[str]], Stat],
    by_question: Mapping[str, list[tuple[str, str]]],
) -> dict[str, Any]:
    out: dict[str, Any] = stat.to_json()
    out["ci"] = _bootstrap(statistic, by_question) if stat.value is not None else None
    return out


def judge_agreement(judgments: Iterable[Judgment | Mapping[str, Any]]) -> dict[str, Any]:
    """Per auto judge (by source, e.g. "auto:offline"): n, Cohen's κ, accuracy, and precision and
    recall of "unsupported", against the human / adjudicated support labels of the same units.

    Returns {"auto:<judge>": {"n", "n_questions", "cohen_kappa", "accuracy",
    "unsupported_precision", "unsupported_recall", "reason"?}}; a judge with no unit in common
    with the reference has every statistic null with that reason.
    """
    rows = [j for j in map(_as_judgment, judgments) if j.field == "support"]
    reference, ties = reference_labels(rows)
    latest = _latest(r for r in rows if r.source.startswith("auto:"))
    per_judge: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    judges = sorted({source for (_, source) in latest})
    for (unit, source), row in sorted(latest.items(), key=lambda kv: (kv[0][1], str(kv[0][0]))):
        expected = reference.get(unit)
        if expected is None or expected == "cannot_judge" or row.value == "cannot_judge":
            continue
        per_judge[source][unit[0]].append((expected, row.value))

    def unsupported_precision(t: list[str], p: list[str]) -> Stat:
        return precision_recall(t, p, "unsupported")[0]

    def unsupported_recall(t: list[str], p: list[str]) -> Stat:
        return precision_recall(t, p, "unsupported")[1]

    out: dict[str, Any] = {}
    for source in judges:
        by_question = per_judge.get(source, {})
        pairs = [p for q in sorted(by_question) for p in by_question[q]]
        truth = [t for t, _ in pairs]
        pred = [p for _, p in pairs]
        entry: dict[str, Any] = {"n": len(pairs), "n_questions": len(by_question)}
        for name, fn in (
            ("cohen_kappa", cohen_kappa),
            ("accuracy", accuracy),
            ("unsupported_precision", unsupported_precision),
            ("unsupported_recall", unsupported_recall),
        ):
            entry[name] = _with_ci(fn(truth, pred), fn, by_question)
        if not pairs:
            why = "no unit judged by both this judge and a person (or adjudication)"
            entry["reason"] = why
            for name in ("cohen_kappa", "accuracy", "unsupported_precision", "unsupported_recall"):
                entry[name] = {"value": None, "ci": None, "reason": why}
        if ties:
            entry["units_tied"] = ties
        out[source] = entry
    return out


def label_agreement(truth: Sequence[Hashable], pred: Sequence[Hashable]) -> dict[str, Any]:
    """Agreement of judge labels with human labels on pairs: on the labels as given, and on the
    binary view (supported vs not). Pairs where either side is cannot_judge are left out."""
    kept = [(t, p) for t, p in zip(truth, pred, strict=True) if t != "cannot_judge" and p != "cannot_judge"]
    t = [a for a, _ in kept]
    p = [b for _, b in kept]
    tb = [a == "supported" for a in t]
    pb = [b == "supported" for b in p]
    binary = agreement_report(tb, pb)
    binary["macro_f1"] = macro_f1(tb, pb, labels=(True, False)).to_json()
    return {"n": len(kept), "left_out": len(truth) - len(kept), "labels": agreement_report(t, p), "binary": binary}
