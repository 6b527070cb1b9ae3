"""Comparing two scored runs over the questions they share (`citeval compare`, report deltas)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evals.contract.metrics import LOWER_IS_BETTER, METRIC_NAMES, RUN_LEVEL_METRICS
from evals.contract.scores import QuestionScore
from evals.report.stats import (
    ALPHA,
    PASS_DEFINITION,
    PairedTest,
    mcnemar_exact,
    paired_mean_test,
    paired_ratio_test,
    question_passed,
)
from evals.report.views import TIER_ORDER
from evals.store.runfolder import RunFolder
from evals.text.escape import one_line, terminal_safe


@dataclass
class Flip:
    question_id: str
    question: str | None
    risk_tier: str
    findings_a: list[str]
    findings_b: list[str]
    status_a: str
    status_b: str

    def to_json(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id,
            "question": self.question,
            "risk_tier": self.risk_tier,
            "status_a": self.status_a,
            "status_b": self.status_b,
            "findings_a": self.findings_a,
            "findings_b": self.findings_b,
        }


@dataclass
class PassComparison:
    n: int
    a_passed: int
    b_passed: int
    a_only: int  # passed in A, failed in B (regressions)
    b_only: int  # failed in A, passed in B (fixes)
    p_value: float

    @property
    def a_rate(self) -> float | None:
        return self.a_passed / self.n if self.n else None

    @property
    def b_rate(self) -> float | None:
        return self.b_passed / self.n if self.n else None

    @property
    def significant(self) -> bool:
        return self.p_value < ALPHA

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "a_pass_rate": None if self.a_rate is None else round(self.a_rate, 6),
            "b_pass_rate": None if self.b_rate is None else round(self.b_rate, 6),
            "a_pass_b_fail": self.a_only,
            "a_fail_b_pass": self.b_only,
            "p_value": round(self.p_value, 6),
            "significant": self.significant,
            "method": "exact McNemar (two-sided binomial test on the discordant pairs)",
        }


@dataclass
class Comparison:
    run_a: RunFolder
    run_b: RunFolder
    shared: list[str]
    only_a: int
    only_b: int
    passes: PassComparison
    metrics: dict[str, PairedTest]
    regressed: list[Flip] = field(default_factory=list)
    fixed: list[Flip] = field(default_factory=list)
    findings: dict[str, tuple[int, int]] = field(default_factory=dict)

    def verdict(self, name: str) -> str:
        """'better', 'worse' or 'same' for run B against run A (significant differences only); 'untested'."""
        t = self.metrics[name]
        if t.p_value is None:
            return "untested"  # no paired values, or undefined in a run
        if not t.significant or t.delta is None or t.delta == 0:
            return "same"
        better = t.delta < 0 if name in LOWER_IS_BETTER else t.delta > 0
        return "better" if better else "worse"

    def verdict_counts(self) -> dict[str, int]:
        """How many metrics are significantly better / worse / unchanged in B."""
        counts = Counter(self.verdict(name) for name in self.metrics)
        return {v: counts.get(v, 0) for v in ("better", "worse", "same")}

    def to_json(self) -> dict[str, Any]:
        return {
            "run_a": self.run_a.run_id,
            "run_b": self.run_b.run_id,
            "label_a": self.run_a.label,
            "label_b": self.run_b.label,
            "shared_questions": len(self.shared),
            "only_in_a": self.only_a,
            "only_in_b": self.only_b,
            "pass_definition": PASS_DEFINITION,
            "pass": self.passes.to_json(),
            "metrics": {name: {**t.to_json(), "verdict": self.verdict(name)} for name, t in self.metrics.items()},
            "flipped": {
                "regressed": [f.to_json() for f in self.regressed],
                "fixed": [f.to_json() for f in self.fixed],
            },
            "findings": {code: {"a": a, "b": b} for code, (a, b) in self.findings.items()},
            "alpha": ALPHA,
            "note": "p-values are per metric and not adjusted for multiple comparisons",
        }

    def to_text(self, limit: int = 20) -> str:
        a, b = self.run_a, self.run_b
        lines = [
            f"A = {one_line(a.run_id)} ({one_line(str(a.label))}), B = {one_line(b.run_id)} ({one_line(str(b.label))})",
            f"{len(self.shared)} shared question(s); {self.only_a} only in A, {self.only_b} only in B",
            "",
            f"{'metric':<24}{'n':>5}{'A':>9}{'B':>9}{'B − A':>9}  {'95 % CI':<19}{'p':>8}  verdict",
        ]
        p = self.passes
        lines.append(
            f"{'pass rate':<24}{p.n:>5}{_f(p.a_rate):>9}{_f(p.b_rate):>9}"
            f"{_f(None if p.a_rate is None or p.b_rate is None else p.b_rate - p.a_rate, signed=True):>9}  "
            f"{'McNemar ' + str(p.a_only) + '↓ ' + str(p.b_only) + '↑':<19}{p.p_value:>8.4f}  "
            f"{'different' if p.significant else 'same'}"
        )
        for name, t in self.metrics.items():
            ci = f"[{t.ci[0]:+.3f}, {t.ci[1]:+.3f}]" if t.ci else (t.reason or "—")
            pv = f"{t.p_value:.4f}" if t.p_value is not None else "—"
            lines.append(
                f"{name:<24}{t.n:>5}{_f(t.a):>9}{_f(t.b):>9}{_f(t.delta, signed=True):>9}  {ci:<19}{pv:>8}  "
                f"{self.verdict(name)}"
            )
        lines += ["", f"pass: {PASS_DEFINITION}", f"significant: p < {ALPHA} (not adjusted for multiple metrics)"]
        sides = (("regressed (pass in A, fail in B)", self.regressed), ("fixed (fail in A, pass in B)", self.fixed))
        for title, flips in sides:
            lines += ["", f"{title}: {len(flips)}"]
            for f in flips[:limit]:
                codes = ", ".join(sorted(set(f.findings_b if f in self.regressed else f.findings_a))) or f.status_b
                q = one_line(f.question or "")[:70]
                lines.append(f"  {one_line(f.question_id)} [{f.risk_tier}] {q}  — {codes}")
            if len(flips) > limit:
                lines.append(f"  … and {len(flips) - limit} more (--format json)")
        # run ids, labels, question ids and texts come from files: a control character in one
        # (ESC recolouring the terminal, a carriage return hiding a line) is shown escaped
        return terminal_safe("\n".join(lines) + "\n")


def _f(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "—"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def paired_metric_test(name: str, ra: Sequence[QuestionScore], rb: Sequence[QuestionScore]) -> PairedTest:
    """One metric of run B against run A over paired rows (same questions, same order); also used by
    the gates' baseline rules, so a gate and `citeval compare` agree."""
    if name in RUN_LEVEL_METRICS:
        trip = [(x.abstained, y.abstained, x.should_abstain) for x, y in zip(ra, rb, strict=True)]
        kept3 = [(x, y, g) for x, y, g in trip if x is not None and y is not None and g is not None]
        return paired_ratio_test(
            np.array([x for x, _, _ in kept3], dtype=np.float64),
            np.array([y for _, y, _ in kept3], dtype=np.float64),
            np.array([g for _, _, g in kept3], dtype=np.float64),
            name,
        )
    pairs = [(x.value(name), y.value(name)) for x, y in zip(ra, rb, strict=True)]
    kept = [(x, y) for x, y in pairs if x is not None and y is not None]
    va = np.array([x for x, _ in kept], dtype=np.float64)
    vb = np.array([y for _, y in kept], dtype=np.float64)
    return paired_mean_test(va, vb)


def compare_runs(a: RunFolder, b: RunFolder) -> Comparison:
    """Run B against run A over their shared questions (paired: each question is its own control)."""
    shared = sorted(set(a.per_question) & set(b.per_question))
    ra = [a.per_question[q] for q in shared]
    rb = [b.per_question[q] for q in shared]
    pa = [question_passed(r) for r in ra]
    pb = [question_passed(r) for r in rb]
    a_only = sum(x and not y for x, y in zip(pa, pb, strict=True))
    b_only = sum(y and not x for x, y in zip(pa, pb, strict=True))
    passes = PassComparison(len(shared), sum(pa), sum(pb), a_only, b_only, mcnemar_exact(a_only, b_only))

    metrics = {name: paired_metric_test(name, ra, rb) for name in METRIC_NAMES}

    def flip(q: str, x: QuestionScore, y: QuestionScore) -> Flip:
        return Flip(
            question_id=q,
            question=b.question_text(q) or a.question_text(q),
            risk_tier=y.risk_tier or x.risk_tier or "policy",
            findings_a=list(x.findings),
            findings_b=list(y.findings),
            status_a=x.status,
            status_b=y.status,
        )

    regressed = [flip(q, x, y) for q, x, y, u, v in zip(shared, ra, rb, pa, pb, strict=True) if u and not v]
    fixed = [flip(q, x, y) for q, x, y, u, v in zip(shared, ra, rb, pa, pb, strict=True) if v and not u]
    for flips in (regressed, fixed):
        flips.sort(key=lambda f: (TIER_ORDER.get(f.risk_tier, 9), f.question_id))
    ca = Counter(c for r in ra for c in r.findings)
    cb = Counter(c for r in rb for c in r.findings)
    findings = {code: (ca.get(code, 0), cb.get(code, 0)) for code in sorted(set(ca) | set(cb))}
    return Comparison(
        run_a=a,
        run_b=b,
        shared=shared,
        only_a=len(set(a.per_question) - set(b.per_question)),
        only_b=len(set(b.per_question) - set(a.per_question)),
        passes=passes,
        metrics=metrics,
        regressed=regressed,
        fixed=fixed,
        findings=findings,
    )
