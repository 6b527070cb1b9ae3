"""Baseline rules: did this run get worse than a baseline run, by more than the rule allows?

Both runs are paired over the questions they share (each question is its own control), in
the rule's scope (all shared questions, or those of one risk tier). The deltas, intervals and
tests are those `citeval compare` computes (evals.report.compare.paired_metric_test,
evals.report.stats), with McNemar's exact test where a value is 0 or 1 per question:
- a metric that is 0/1 per question in both runs (version_correctness, error_rate, pass_rate,
  citation_validity when each answer has one marker, a finding present or not): the exact
  McNemar test on the discordant questions;
- any other per-question value (a share of markers, a finding count): the paired sign-flip
  permutation test of compare;
- abstention precision / recall / F1 (run-level ratios): compare's paired swap test;
and the interval of the change is always the paired bootstrap 95 % interval.

A rule fails when the change for the worse exceeds its limit and, with `significant = true`,
only when the test also rejects "no change" at the file's alpha. Fewer shared questions with
a value than `min_shared` skips the rule with that reason: never a pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evals.contract.metrics import METRIC_NAMES, RUN_LEVEL_METRICS
from evals.contract.scores import QuestionScore
from evals.gate.config import FINDINGS_PREFIX, PASS_RATE, BaselineRule, GateConfig, _num
from evals.gate.result import BaselineInfo, BaselineOutcome

Row = QuestionScore
EPS = 1e-9  # float noise in a mean of 0/1 values is not a change


@dataclass(frozen=True)
class PairedRuns:
    """Per-question rows of the baseline and of this run, keyed by question id."""

    baseline: Mapping[str, Row]
    run: Mapping[str, Row]

    def shared(self, scope: str) -> list[str]:
        ids = sorted(set(self.baseline) & set(self.run))
        if scope == "overall":
            return ids
        return [q for q in ids if self.run[q].risk_tier == scope]

    def info(self, run_id: str | None, source: str) -> BaselineInfo:
        return BaselineInfo(
            run_id=run_id,
            source=source,
            shared=len(set(self.baseline) & set(self.run)),
            only_in_run=sorted(set(self.run) - set(self.baseline)),
            only_in_baseline=sorted(set(self.baseline) - set(self.run)),
        )


@dataclass
class Change:
    n: int
    baseline: float | None
    observed: float | None
    delta: float | None
    ci: tuple[float, float] | None
    p_value: float | None
    method: str
    reason: str | None = None


def _per_question(key: str, row: Row) -> float | None:
    from evals.report.stats import question_passed

    if key == PASS_RATE:
        return float(question_passed(row))
    if key.startswith(FINDINGS_PREFIX):
        code = key[len(FINDINGS_PREFIX):]
        return float(row.findings.count(code))
    return row.value(key)


def _mcnemar(change: Change, kept: list[tuple[float, float]]) -> None:
    """0/1 per question in both runs: the exact McNemar test on the questions that flipped."""
    from evals.report.stats import mcnemar_exact

    worse_in_run = sum(1 for x, y in kept if x > y)
    better_in_run = sum(1 for x, y in kept if y > x)
    change.p_value = mcnemar_exact(worse_in_run, better_in_run)
    change.method = f"exact McNemar ({worse_in_run} question(s) 1→0, {better_in_run} 0→1) + paired bootstrap CI"


def measure_change(key: str, base: Sequence[Row], run: Sequence[Row]) -> Change:
    """The change of `key` from the baseline rows to the run rows (paired, same order): a metric
    through compare's own test, a finding count or pass_rate through compare's paired mean test."""
    import numpy as np

    from evals.report.compare import paired_metric_test
    from evals.report.stats import paired_mean_test

    pairs = [(_per_question(key, x), _per_question(key, y)) for x, y in zip(base, run, strict=True)]
    kept = [(x, y) for x, y in pairs if x is not None and y is not None]
    va = np.array([x for x, _ in kept], dtype=np.float64)
    vb = np.array([y for _, y in kept], dtype=np.float64)
    test = paired_metric_test(key, base, run) if key in METRIC_NAMES else paired_mean_test(va, vb)
    change = Change(test.n, test.a, test.b, test.delta, test.ci, test.p_value, test.method, test.reason)
    if key in RUN_LEVEL_METRICS:
        return change  # a run-level ratio: compare's paired swap test as it is
    if kept and all(v in (0.0, 1.0) for pair in kept for v in pair):
        _mcnemar(change, kept)
    if key.startswith(FINDINGS_PREFIX) and test.n:
        # a count rule speaks of findings, not of findings per question
        change.baseline, change.observed = float(va.sum()), float(vb.sum())
        change.delta = float(vb.sum() - va.sum())
        change.ci = (test.ci[0] * test.n, test.ci[1] * test.n) if test.ci else None
    return change


def _verdict(rule: BaselineRule, change: Change, outcome: BaselineOutcome) -> BaselineOutcome:
    assert change.delta is not None
    worse = -change.delta if rule.direction == "drop" else change.delta
    fmt = (lambda x: f"{x:.0f}") if rule.is_count else (lambda x: f"{x:.3f}")
    amount = f"{rule.direction} {fmt(worse if worse > 0 else 0.0)}"  # never "-0.000"
    p = change.p_value
    p_text = "no p-value" if p is None else f"p = {p:.4g}"
    if worse <= rule.limit + EPS:
        outcome.status = "pass"
        outcome.message = f"ok: {amount} ≤ {_num(rule.limit)} ({p_text})"
    elif rule.significant and (p is None or p >= rule.alpha):
        outcome.status = "pass"
        outcome.message = f"{amount} > {_num(rule.limit)} but not significant ({p_text} ≥ {_num(rule.alpha)})"
    else:
        outcome.status = "fail"
        why = f", significant ({p_text} < {_num(rule.alpha)})" if rule.significant else f" ({p_text})"
        outcome.message = f"{amount} > allowed {_num(rule.limit)}{why}"
    return outcome


def evaluate_baseline_rule(rule: BaselineRule, pairs: PairedRuns, min_shared: int) -> BaselineOutcome:
    ids = pairs.shared(rule.scope)
    where = "shared" if rule.scope == "overall" else f"shared {rule.scope}"
    if len(ids) < min_shared:
        return BaselineOutcome(rule, "skip", n=len(ids), message=(
            f"too few {where} questions to compare: {len(ids)} < min_shared {min_shared}"))
    change = measure_change(rule.key, [pairs.baseline[q] for q in ids], [pairs.run[q] for q in ids])
    outcome = BaselineOutcome(
        rule, "pass", n=change.n, baseline=change.baseline, observed=change.observed, delta=change.delta,
        ci=change.ci, p_value=change.p_value, method=change.method,
    )
    if change.delta is None:
        reason = change.reason or "no value in one of the runs"
        outcome.status = "skip" if rule.allow_null else "fail"
        outcome.message = f"no value: {reason}" + (" (allowed by allow_null)" if rule.allow_null else "")
        return outcome
    if change.n < min_shared:
        outcome.status = "skip"
        outcome.message = f"too few {where} questions with a value in both runs: {change.n} < min_shared {min_shared}"
        return outcome
    return _verdict(rule, change, outcome)


def evaluate_baseline(config: GateConfig, pairs: PairedRuns) -> list[BaselineOutcome]:
    """Every baseline rule of the gates file on two paired runs."""
    return [evaluate_baseline_rule(rule, pairs, config.baseline.min_shared) for rule in config.baseline_rules]


def without_baseline(config: GateConfig) -> list[BaselineOutcome]:
    """Baseline rules when no baseline run was given: each skipped, with the reason."""
    return [BaselineOutcome(rule, "skip", message="no baseline run given (citeval gate RUN --baseline BASE)")
            for rule in config.baseline_rules]
