"""Fitting the offline judge's two numbers (beta, threshold) to human labels, and an honest
cross-validated estimate of how well that fit generalizes.

Binary view throughout: supported vs not (partial, unsupported and cannot_judge are "not"),
scored by macro-F1, the figure AttributionBench reports.
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace

from evals.score.judges.metrics import balanced_accuracy, cohen_kappa, macro_f1
from evals.score.judges.offline import DEFAULT_PARAMS, OfflineFeatures, OfflineParams, is_supported

BETAS = tuple(round(0.02 * i, 2) for i in range(16))  # 0.00 … 0.30
COVERAGE_FLOORS = (0.0, 0.34, 0.4, 0.5)
N_THRESHOLDS = 60  # candidate thresholds: quantiles of the overlap on the fitting data


def predict(features: Sequence[OfflineFeatures | None], params: OfflineParams) -> list[bool]:
    return [is_supported(f, params) for f in features]


def binary_report(truth: Sequence[bool], pred: Sequence[bool]) -> dict[str, float | None]:
    return {
        "macro_f1": macro_f1(truth, pred, labels=(True, False)).value,
        "balanced_accuracy": balanced_accuracy(truth, pred).value,
        "cohen_kappa": cohen_kappa(truth, pred).value,
    }


def _candidates(values: list[float]) -> list[float]:
    ordered = sorted(values)
    if not ordered:
        return [DEFAULT_PARAMS.threshold]
    picks = {ordered[min(len(ordered) - 1, int(len(ordered) * (i + 0.5) / N_THRESHOLDS))] for i in range(N_THRESHOLDS)}
    return sorted(round(v, 4) for v in picks)


def fit_params(
    features: Sequence[OfflineFeatures | None],
    truth: Sequence[bool],
    base: OfflineParams = DEFAULT_PARAMS,
    betas: Sequence[float] = BETAS,
    floors: Sequence[float] = COVERAGE_FLOORS,
) -> OfflineParams:
    """Grid search of (min_coverage, beta, threshold) for macro-F1. Ties go to the higher
    coverage floor, then the smaller beta, then the higher threshold: the stricter, simpler judge."""
    best: tuple[float, float, float, float] | None = None  # (f1, floor, -beta, threshold)
    for floor in floors:
        for beta in betas:
            overlaps = [f.overlap(beta) for f in features if f is not None]
            for threshold in _candidates(overlaps):
                params = replace(base, beta=beta, threshold=threshold, min_coverage=floor)
                score = macro_f1(truth, predict(features, params), labels=(True, False)).value or 0.0
                key = (round(score, 9), floor, -beta, threshold)
                if best is None or key > best:
                    best = key
    assert best is not None
    return replace(base, beta=-best[2], threshold=best[3], min_coverage=best[1])


def group_folds(groups: Sequence[Hashable], k: int, seed: int) -> list[list[int]]:
    """Indices split into k folds with every group (e.g. a question) inside one fold."""
    keys = sorted(set(groups), key=str)
    random.Random(seed).shuffle(keys)
    fold_of = {key: i % k for i, key in enumerate(keys)}
    folds: list[list[int]] = [[] for _ in range(k)]
    for index, group in enumerate(groups):
        folds[fold_of[group]].append(index)
    return folds


@dataclass(frozen=True)
class CrossValidation:
    report: dict[str, float | None]  # mean over repeats of the pooled out-of-fold figures
    params: list[OfflineParams]  # the parameters each fold chose


def cross_validate(
    features: Sequence[OfflineFeatures | None],
    truth: Sequence[bool],
    groups: Sequence[Hashable],
    k: int = 5,
    seeds: Sequence[int] = (0, 1, 2),
) -> CrossValidation:
    """Grouped k-fold: each fold is predicted by parameters fitted on the others only."""
    reports = []
    chosen = []
    for seed in seeds:
        pred = [False] * len(truth)
        for fold in group_folds(groups, k, seed):
            held = set(fold)
            train = [i for i in range(len(truth)) if i not in held]
            params = fit_params([features[i] for i in train], [truth[i] for i in train])
            chosen.append(params)
            for i, p in zip(fold, predict([features[i] for i in fold], params), strict=False):
                pred[i] = p
        reports.append(binary_report(truth, pred))
    mean: dict[str, float | None] = {}
    for key in reports[0]:
        values = [r[key] for r in reports if r[key] is not None]
        mean[key] = sum(v for v in values if v is not None) / len(values) if values else None
    return CrossValidation(mean, chosen)
