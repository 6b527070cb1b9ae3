"""Prediction-powered inference (DESIGN 6 `ppi.<metric>`) for the support metrics when human
or adjudicated labels cover only part of a run.

The auto judge scores every answer; raters label some of them. The judge-only mean is biased by
the judge's errors, the human-only mean is exact but wide. The prediction-powered estimate
(Angelopoulos, Bates, Fannjiang, Jordan, Zrnic, *Prediction-powered inference*, Science 2023)
takes the judge's mean over the answers only it scored and corrects it with the judge's error
measured on the answers both scored; ppi-python's `ppi_mean_ci` computes it with the power
tuning of PPI++ (Angelopoulos, Duchi, Zrnic 2023), which weighs the judge by how well it tracks
the raters, so the interval is never wider than the human-only one in large samples.

The sampling unit is the answer, as for every metric (DESIGN 6): per answer the metric's value
with the human / adjudicated labels only (Y, where raters labelled a support unit of the answer)
and with the judge's labels only (Ŷ). "Labels needed" inverts the same variance: how many
human-labelled answers, the rest judged, bring the 95 % interval under a chosen width at the
judge's measured PPI correlation (ppi-python's `ppi_mean_power`, Broska, Howes, van Loon 2024).

ppi-python imports numba (about 4 s), so it is imported only when a run has human labels.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from evals.contract.metrics import CITATION_COMPLETENESS, CITATION_CORRECTNESS
from evals.contract.scores import PpiEntry
from evals.stats.bootstrap import SEED, bootstrap_means, percentile_interval

PPI_METRICS = (CITATION_CORRECTNESS, CITATION_COMPLETENESS)
DEFAULT_WIDTH = 0.10  # a ±0.05 interval: tight enough to tell 0.80 from 0.90
CONFIDENCE = 0.95
_Z = 1.959963984540054  # two-sided 95 % normal quantile
# A judge label costs next to nothing beside a rater's; the power analysis then uses every
# judged answer of the run (its n_max) and asks only how many of them raters must label.
_JUDGE_COST = 1e-9

__all__ = ["DEFAULT_WIDTH", "PPI_METRICS", "labels_needed", "labels_needed_line", "ppi_estimate"]


def _clip(x: float) -> float:
    return round(min(1.0, max(0.0, x)), 6)


def _mean_entry(values: np.ndarray, seed: int) -> dict[str, Any]:
    """A plain mean with citeval's bootstrap interval (the judge-only and human-only sides)."""
    n = len(values)
    if n == 0:
        return {"value": None, "ci": None, "n": 0}
    out: dict[str, Any] = {"value": round(float(values.mean()), 6), "ci": None, "n": n}
    if n > 1:
        out["ci"], reason = percentile_interval(bootstrap_means(values, seed))
        if reason:
            out["ci_reason"] = reason
    return out


def labels_needed(
    human: np.ndarray, judge: np.ndarray, total: int, width: float = DEFAULT_WIDTH
) -> dict[str, Any]:
    """How many of `total` answers raters must label, the judge scoring the rest, for a 95 %
    prediction-powered interval no wider than `width`, at the PPI correlation measured on the
    labelled answers (human, judge: per-answer values of the same answers).

    Returns `{width, answers, human_only_answers, ppi_corr}`, `answers` null with a reason when
    the spread cannot be estimated or even labelling every answer is not enough."""
    out: dict[str, Any] = {"width": width, "answers": None, "human_only_answers": None, "ppi_corr": None}
    sd = float(human.std())
    if len(human) < 2 or sd == 0.0:
        out["reason"] = "the labelled answers' values do not vary: no estimate of the spread"
        return out
    # answers a human-only mean needs for that width: half-width z·sd/√n ≤ width/2
    n0 = math.ceil((2 * _Z * sd / width) ** 2)
    out["human_only_answers"] = n0
    plan = None
    if float(judge.std()) == 0.0:  # a judge that does not vary cannot track the raters
        out["ppi_corr"] = 0.0
    else:
        from ppi_py.ppi_power_analysis import ppi_mean_power

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plan = ppi_mean_power(human, judge, cost_Y=1.0, cost_Yhat=_JUDGE_COST, effective_n=n0, n_max=total)
        out["ppi_corr"] = round(float(plan["ppi_corr"]), 4)
    if n0 > total:
        out["reason"] = f"even all {total} answers labelled give an interval wider than {width:g}"
    else:
        out["answers"] = n0 if plan is None else int(min(max(plan["n"], 2), n0))
    return out


def ppi_estimate(
    human: Sequence[float | None],
    judge: Sequence[float | None],
    *,
    width: float = DEFAULT_WIDTH,
    seed: int = SEED,
) -> PpiEntry:
    """The prediction-powered mean of a per-answer metric from aligned per-answer values: the
    human / adjudicated value (None where raters labelled nothing of the answer) and the judge's
    (None where the judge did not score it). Beside it: `judge_only` and `human_only` means
    with citeval's bootstrap intervals, and `labels_needed` for an interval of `width`."""
    pairs = [(h, j) for h, j in zip(human, judge, strict=True) if j is not None]
    labelled = [(h, j) for h, j in pairs if h is not None]
    unlabelled = np.array([j for h, j in pairs if h is None], dtype=np.float64)
    y = np.array([h for h, _ in labelled], dtype=np.float64)
    y_hat = np.array([j for _, j in labelled], dtype=np.float64)
    all_judge = np.array([j for _, j in pairs], dtype=np.float64)
    entry = PpiEntry(n_labelled=len(y), n_auto=len(unlabelled))
    extra: dict[str, Any] = {
        "judge_only": _mean_entry(all_judge, seed),
        "human_only": _mean_entry(y, seed),
        "method": "PPI++ mean (ppi-python ppi_mean_ci, power-tuned), 95 % normal interval",
    }
    if len(y) < 2:
        entry.reason = "fewer than 2 answers with both human and judge values"
    elif len(unlabelled) == 0:
        entry.reason = "human labels cover every judged answer: the human-only mean is the estimate"
    else:
        from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

        # a judge that gives every answer the same value tracks nothing: the power tuning is 0/0,
        # and every weight gives the human mean with the classical interval; λ = 1 computes it
        lam = 1.0 if float(all_judge.std()) == 0.0 else None
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            point = float(np.ravel(ppi_mean_pointestimate(y, y_hat, unlabelled, lam=lam))[0])
            bounds = ppi_mean_ci(y, y_hat, unlabelled, alpha=1 - CONFIDENCE, lam=lam)
            lo, hi = (float(np.ravel(b)[0]) for b in bounds)
        if all(math.isfinite(v) for v in (point, lo, hi)):
            entry.value, entry.ci = _clip(point), (_clip(lo), _clip(hi))
        else:
            entry.reason = "the estimate is undefined for these values"
    extra["labels_needed"] = labels_needed(y, y_hat, len(pairs), width)
    return PpiEntry.model_validate({**entry.model_dump(), **extra})


def labels_needed_line(metric: str, entry: PpiEntry) -> str:
    """One line for the CLI and the report, e.g. `labels needed for citation_correctness ±0.05:
    64 of 148 answers labelled by raters, …` (PpiEntry.labels_needed_line)."""
    return entry.labels_needed_line(metric)
