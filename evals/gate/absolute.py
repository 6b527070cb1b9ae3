"""Absolute rules on one run's scores.json: a value (or its interval's pessimistic end) against a bound.

"lower" compares the pessimistic end of the 95 % interval: its lower bound for a `min`, its
upper bound for a `max`. A metric without a value (or, under "lower", without an interval)
fails with "no value: <reason>" unless the rule says `allow_null = true`; such a rule is then
skipped, never silently passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evals.contract.scores import MetricEntry, Scores
from evals.gate.config import FINDINGS_PREFIX, GateConfig, Rule, _num
from evals.gate.result import GateResult, RuleOutcome


def _as_scores(scores: Scores | Mapping[str, Any]) -> Scores:
    return scores if isinstance(scores, Scores) else Scores.model_validate(dict(scores))


def _metric_entry(scores: Scores, scope: str, key: str) -> tuple[MetricEntry | None, str | None]:
    if scope != "overall" and scope not in scores.by_tier:
        return None, f"no {scope} question in this run"
    entry = scores.metric(key, None if scope == "overall" else scope)
    return entry if entry is not None else MetricEntry(), None


def _check(rule: Rule, value: float) -> str | None:
    """Why `value` breaks the rule, or None."""
    if rule.min is not None and value < rule.min:
        return f"< required ≥ {_num(rule.min)}"
    if rule.max is not None and value > rule.max:
        return f"> required ≤ {_num(rule.max)}"
    return None


def _no_value(outcome: RuleOutcome, rule: Rule, message: str) -> RuleOutcome:
    """A rule with nothing to compare fails, or is skipped when it says allow_null."""
    outcome.status = "skip" if rule.allow_null else "fail"
    outcome.message = message + (" (allowed by allow_null)" if rule.allow_null else "")
    return outcome


def _count_rule(rule: Rule, scores: Scores) -> RuleOutcome:
    code = rule.key[len(FINDINGS_PREFIX):]
    if rule.scope == "overall":
        counts = scores.findings
    else:
        if rule.scope not in scores.by_tier:
            return RuleOutcome(rule, "skip", message=f"no {rule.scope} question in this run", no_question=True)
        counts = scores.findings_by_tier.get(rule.scope) or {}
    count = float(counts.get(code, 0))
    broken = _check(rule, count)
    message = f"{int(count)} finding(s) {code}" + (f" {broken}" if broken else "")
    return RuleOutcome(rule, "fail" if broken else "pass", observed=count, checked=count, message=message)


def _metric_rule(rule: Rule, scores: Scores) -> RuleOutcome:
    entry, absent = _metric_entry(scores, rule.scope, rule.key)
    if entry is None:
        return RuleOutcome(rule, "skip", message=absent or "", no_question=True)
    value, n = entry.value, entry.n
    ci_t = (float(entry.ci[0]), float(entry.ci[1])) if entry.ci is not None else None
    base = RuleOutcome(rule, "pass", observed=None if value is None else float(value), ci=ci_t, n=n)
    if value is None:
        return _no_value(base, rule, f"no value: {entry.reason or 'the metric has no value'}")
    checks: list[tuple[str, float]] = []
    if rule.compare == "lower":
        if ci_t is None:
            reason = entry.ci_reason or "no interval"
            return _no_value(base, rule, f"no value: no interval for compare = \"lower\" ({reason})")
        if rule.min is not None:
            checks.append(("lower bound", ci_t[0]))
        if rule.max is not None:
            checks.append(("upper bound", ci_t[1]))
    else:
        checks.append(("value", float(value)))
    for what, number in checks:
        broken = _check(rule, number)
        base.checked = number
        if broken:
            base.status = "fail"
            context = f" (n={n})" if what == "value" else f" (point {float(value):.3f}, n={n})"
            base.message = f"{what} {number:.3f} {broken}{context}"
            return base
    base.message = "ok: " + ", ".join(f"{what} {number:.3f}" for what, number in checks)
    return base


def evaluate_rule(rule: Rule, scores: Scores) -> RuleOutcome:
    return _count_rule(rule, scores) if rule.is_count else _metric_rule(rule, scores)


def evaluate(gates: GateConfig, scores: Scores | Mapping[str, Any]) -> GateResult:
    """Apply every absolute rule to a run's scores (baseline rules need two runs: run_gate)."""
    scores = _as_scores(scores)
    return GateResult(
        gates_path=gates.path,
        run_id=scores.run_id,
        outcomes=[evaluate_rule(rule, scores) for rule in gates.rules],
    )
