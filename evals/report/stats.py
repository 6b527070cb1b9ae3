"""Paired statistics for comparing two runs over the questions they share.

- per-question pass/fail: exact McNemar (a two-sided binomial test on the discordant pairs);
- a per-answer metric (a mean over questions): paired permutation test (random sign flips of
  the per-question differences; exact enumeration when few differences are non-zero) and a
  paired bootstrap 95 % interval of the difference;
- a run-level ratio (abstention precision / recall / F1): the same, swapping the two runs'
  predictions per question under the null hypothesis.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.stats import binomtest

from evals.contract.metrics import ABSTENTION_PRECISION, ABSTENTION_RECALL
from evals.contract.scores import QuestionScore
from evals.stats.bootstrap import CONFIDENCE, RESAMPLES, SEED, generator, resample_counts

PERMUTATIONS = 4000
BOOTSTRAP = RESAMPLES
EXACT_MAX = 14  # up to 2**14 sign patterns are enumerated exactly
ALPHA = 0.05

# The one definition of a question's pass (used by McNemar, flips and the drill-down).
PASS_DEFINITION = (
    "a question passes when the system answered or abstained without a backend error and "
    "without any finding: no citation-integrity finding (DESIGN 4), none against gold "
    "(KEY_FACT_MISSING, GOLD_EVIDENCE_NOT_CITED, a marker off the gold anchor) and neither "
    "SHOULD_HAVE_ABSTAINED nor UNNEEDED_ABSTENTION"
)


def question_passed(row: QuestionScore | Mapping[str, Any]) -> bool:
    """Pass of one per_question.jsonl row; see PASS_DEFINITION."""
    if isinstance(row, QuestionScore):
        return row.status in ("answered", "abstained") and not row.findings
    return row.get("status") in ("answered", "abstained") and not row.get("findings")


@dataclass
class PairedTest:
    n: int  # questions that entered the comparison
    a: float | None
    b: float | None
    delta: float | None  # b − a
    ci: tuple[float, float] | None
    p_value: float | None
    method: str
    reason: str | None = None

    @property
    def significant(self) -> bool:
        return self.p_value is not None and self.p_value < ALPHA

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n,
            "a": _r(self.a),
            "b": _r(self.b),
            "delta": _r(self.delta),
            "ci": [_r(self.ci[0]), _r(self.ci[1])] if self.ci else None,
            "p_value": _r(self.p_value),
            "significant": self.significant,
            "method": self.method,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(float(x), 6)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (pass in A only, pass in B only)."""
    n = a_only + b_only
    if n == 0:
        return 1.0  # no question flipped: no evidence of a difference
    return float(binomtest(a_only, n, 0.5, alternative="two-sided").pvalue)


@functools.lru_cache(maxsize=32)
def _weights(n: int, seed: int) -> np.ndarray:
    """Bootstrap resample counts (as metrics.py draws them), shared by every metric of a comparison."""
    w = resample_counts(n, seed, BOOTSTRAP)
    w.setflags(write=False)
    return w


def _percentile_ci(samples: np.ndarray) -> tuple[float, float] | None:
    finite = samples[np.isfinite(samples)]
    if len(finite) < 0.9 * len(samples) or len(finite) == 0:
        return None
    tail = (1 - CONFIDENCE) / 2 * 100
    lo, hi = np.percentile(finite, [tail, 100 - tail])
    return float(lo), float(hi)


def paired_mean_test(a: np.ndarray, b: np.ndarray, seed: int = SEED) -> PairedTest:
    """Mean of b − a over paired questions, its bootstrap interval and a sign-flip permutation p-value."""
    method = "paired permutation (sign flips) + paired bootstrap CI"
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    n = len(a)
    if n == 0:
        return PairedTest(0, None, None, None, None, None, method, "no paired values")
    d = b - a
    observed = float(d.mean())
    nonzero = d[np.abs(d) > 1e-12]
    k = len(nonzero)
    eps = 1e-9
    if k == 0:
        p = 1.0
    elif k <= EXACT_MAX:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=k)))
        sums = np.abs(signs @ nonzero)
        p = float(np.mean(sums >= abs(nonzero.sum()) - eps))
    else:
        rng = generator(seed)
        signs = rng.choice((1.0, -1.0), size=(PERMUTATIONS, k))
        sums = np.abs(signs @ nonzero)
        p = float((1 + np.sum(sums >= abs(nonzero.sum()) - eps)) / (PERMUTATIONS + 1))
    ci = None
    if n > 1:
        w = _weights(n, seed)
        ci = _percentile_ci((w @ d) / n)
    return PairedTest(n, float(a.mean()), float(b.mean()), observed, ci, p, method)


RatioStat = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _abstention_stat(name: str) -> RatioStat:
    """(tp, predicted positives, gold positives) sums → the statistic; NaN where undefined (as metrics.py)."""

    def stat(tp: np.ndarray, pp: np.ndarray, gp: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(pp > 0, tp / np.where(pp > 0, pp, 1), np.nan)
            recall = np.where(gp > 0, tp / np.where(gp > 0, gp, 1), np.nan)
            if name == ABSTENTION_PRECISION:
                return precision
            if name == ABSTENTION_RECALL:
                return recall
            # F1 = 2TP / (predicted + gold positives), undefined where precision or recall is
            f1 = 2 * tp / np.where(pp + gp > 0, pp + gp, 1)
            return np.where(np.isnan(precision) | np.isnan(recall), np.nan, f1)

    return stat


def paired_ratio_test(
    pred_a: np.ndarray, pred_b: np.ndarray, gold: np.ndarray, name: str, seed: int = SEED
) -> PairedTest:
    """A run-level abstention ratio of run B minus run A, over questions both runs answered or refused."""
    method = "paired permutation (swap runs per question) + paired bootstrap CI"
    stat = _abstention_stat(name)
    pa, pb, g = (np.asarray(x, dtype=np.float64) for x in (pred_a, pred_b, gold))
    n = len(g)
    if n == 0:
        return PairedTest(0, None, None, None, None, None, method, "no paired gold labels")

    def diff(ma: np.ndarray, mb: np.ndarray) -> np.ndarray:
        # ma, mb: (R × n) predictions; returns R differences
        return stat(mb @ g, mb.sum(axis=1), np.full(len(mb), g.sum())) - stat(
            ma @ g, ma.sum(axis=1), np.full(len(ma), g.sum())
        )

    va = float(stat(np.array([pa @ g]), np.array([pa.sum()]), np.array([g.sum()]))[0])
    vb = float(stat(np.array([pb @ g]), np.array([pb.sum()]), np.array([g.sum()]))[0])
    if np.isnan(va) or np.isnan(vb):
        return PairedTest(n, None if np.isnan(va) else va, None if np.isnan(vb) else vb, None, None, None, method,
                          "undefined in at least one run")
    observed = vb - va
    discordant = np.flatnonzero(pa != pb)
    k = len(discordant)
    eps = 1e-9
    if k == 0:
        p: float = 1.0
    else:
        if k <= EXACT_MAX:
            swaps = np.array(list(itertools.product((False, True), repeat=k)))
        else:
            swaps = generator(seed).random((PERMUTATIONS, k)) < 0.5
        ma = np.tile(pa, (len(swaps), 1))
        mb = np.tile(pb, (len(swaps), 1))
        cols = discordant
        ma[:, cols] = np.where(swaps, pb[cols], pa[cols])
        mb[:, cols] = np.where(swaps, pa[cols], pb[cols])
        d = diff(ma, mb)
        d = d[np.isfinite(d)]
        hits = float(np.sum(np.abs(d) >= abs(observed) - eps))
        if k <= EXACT_MAX:
            p = hits / max(len(d), 1)
        else:
            p = (1 + hits) / (len(d) + 1)
    ci = None
    if n > 1:
        w = _weights(n, seed)
        tp_a, tp_b = w @ (pa * g), w @ (pb * g)
        gp = w @ g
        boot = stat(tp_b, w @ pb, gp) - stat(tp_a, w @ pa, gp)
        ci = _percentile_ci(boot)
    return PairedTest(n, va, vb, observed, ci, min(1.0, p), method)
