"""Agreement statistics between two label sequences, without NaN: an undefined value is None
with a reason. Small and dependency-free so the judge CLI and scores need no scikit-learn."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Stat:
    """A statistic: value, or None with the reason it is undefined."""

    value: float | None
    reason: str | None = None

    def to_json(self) -> dict[str, float | str | None]:
        out: dict[str, float | str | None] = {"value": None if self.value is None else round(self.value, 6)}
        if self.reason is not None:
            out["reason"] = self.reason
        return out


def _check(truth: Sequence[Hashable], pred: Sequence[Hashable]) -> str | None:
    if len(truth) != len(pred):
        raise ValueError(f"{len(truth)} reference labels but {len(pred)} predictions")
    return "no units" if not truth else None


def accuracy(truth: Sequence[Hashable], pred: Sequence[Hashable]) -> Stat:
    if (why := _check(truth, pred)) is not None:
        return Stat(None, why)
    return Stat(sum(t == p for t, p in zip(truth, pred, strict=True)) / len(truth))


def cohen_kappa(truth: Sequence[Hashable], pred: Sequence[Hashable]) -> Stat:
    """Cohen's κ = (po − pe) / (1 − pe); undefined when both sides use one and the same label."""
    if (why := _check(truth, pred)) is not None:
        return Stat(None, why)
    n = len(truth)
    po = sum(t == p for t, p in zip(truth, pred, strict=True)) / n
    ct, cp = Counter(truth), Counter(pred)
    pe = sum(ct[k] * cp.get(k, 0) for k in ct) / (n * n)
    if pe >= 1.0:
        return Stat(None, "both sides gave every unit the same label; kappa is undefined")
    return Stat((po - pe) / (1.0 - pe))


def precision_recall(truth: Sequence[Hashable], pred: Sequence[Hashable], positive: Hashable) -> tuple[Stat, Stat]:
    """Precision and recall of one class; each undefined when its denominator is zero."""
    if (why := _check(truth, pred)) is not None:
        return Stat(None, why), Stat(None, why)
    tp = sum(t == positive and p == positive for t, p in zip(truth, pred, strict=True))
    predicted = sum(p == positive for p in pred)
    actual = sum(t == positive for t in truth)
    precision = Stat(tp / predicted) if predicted else Stat(None, f"the judge never said {positive}")
    recall = Stat(tp / actual) if actual else Stat(None, f"the reference never says {positive}")
    return precision, recall


def f1(truth: Sequence[Hashable], pred: Sequence[Hashable], positive: Hashable,
       weights: Sequence[float] | None = None) -> float:
    """F1 of one class; 0 when it has no true positives (the scikit-learn convention). With
    weights, each unit counts its weight (an integer weight k is the unit repeated k times)."""
    w = [1.0] * len(truth) if weights is None else list(weights)
    if len(w) != len(truth):
        raise ValueError(f"{len(truth)} reference labels but {len(w)} weights")
    rows = list(zip(truth, pred, w, strict=True))
    tp = sum(x for t, p, x in rows if t == positive and p == positive)
    denom = sum(x for _, p, x in rows if p == positive) + sum(x for t, _, x in rows if t == positive)
    return 2 * tp / denom if denom else 0.0


def macro_f1(truth: Sequence[Hashable], pred: Sequence[Hashable], labels: Sequence[Hashable] | None = None,
             weights: Sequence[float] | None = None) -> Stat:
    """Mean F1 over labels (default: every label in either sequence), units weighted if given
    (to score a sample as if its kinds came in another mix: post-stratification)."""
    if (why := _check(truth, pred)) is not None:
        return Stat(None, why)
    classes = list(labels) if labels is not None else sorted(set(truth) | set(pred), key=str)
    return Stat(sum(f1(truth, pred, c, weights) for c in classes) / len(classes))


def balanced_accuracy(truth: Sequence[Hashable], pred: Sequence[Hashable]) -> Stat:
    """Mean recall over the classes present in the reference."""
    if (why := _check(truth, pred)) is not None:
        return Stat(None, why)
    recalls = []
    for c in sorted(set(truth), key=str):
        actual = [p for t, p in zip(truth, pred, strict=True) if t == c]
        recalls.append(sum(p == c for p in actual) / len(actual))
    return Stat(sum(recalls) / len(recalls))


def agreement_report(truth: Sequence[Hashable], pred: Sequence[Hashable]) -> dict[str, object]:
    """accuracy, macro-F1 (over the reference's and the judge's labels) and Cohen's κ, with n."""
    return {
        "n": len(truth),
        "accuracy": accuracy(truth, pred).to_json(),
        "macro_f1": macro_f1(truth, pred).to_json(),
        "cohen_kappa": cohen_kappa(truth, pred).to_json(),
    }
