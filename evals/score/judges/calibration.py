"""The offline judge's score as a probability: P(supported | the rules' features).

The rules decide the verdict; a logistic model over what they measured (which rule fired,
content-word coverage, shared phrases) turns it into a calibrated probability that the
evidence supports the claim (DESIGN 7). One model a language: the Russian regulation rules
and the English overlap rules measure different things. The coefficients are learned
(bench/judge_calibration.py fits them on the dev pairs and reports cross-fitted ECE) and
shipped in calibration_table.py; evaluating one is a dot product, no library.

ECE and the reliability table are here too, so `citeval judge`, the bench and the report
compute them one way: 10 equal-width bins of the predicted probability, ECE = Σ (n_b / n)
· |observed supported share − mean predicted| over the bins.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evals.score.judges.calibration_table import CALIBRATION

# The features, in order (names are part of the shipped table, checked on load).
FEATURES = ("bias", "supported", "partial", "hard_rule", "coverage", "share", "log_matched", "missing_words",
            "supported_x_coverage")
BINS = 10


def feature_vector(features: Any, value: str, hard: bool) -> list[float]:
    """What the calibration reads from one verdict: the rule path (supported, partial, a hard
    rule such as a changed number or negation) and the overlap measures."""
    supported = 1.0 if value == "supported" else 0.0
    return [
        1.0,
        supported,
        1.0 if value == "partial" else 0.0,
        1.0 if hard else 0.0,
        float(features.coverage),
        float(features.share),
        math.log1p(features.matched),
        math.log1p(len(features.missing_words)),
        supported * float(features.coverage),
    ]


def probability(vector: Sequence[float], weights: Sequence[float]) -> float:
    z = sum(x * w for x, w in zip(vector, weights, strict=True))
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def shipped_weights(lang: str) -> list[float]:
    """The shipped coefficients for a language ("ru", else "en")."""
    entry = CALIBRATION["ru" if lang == "ru" else "en"]
    names = entry["features"]
    if tuple(names.split(",") if isinstance(names, str) else names) != FEATURES:  # type: ignore[arg-type]
        raise RuntimeError("calibration_table.py does not match FEATURES: refit (bench/judge_calibration.py)")
    weights = entry["weights"]
    assert isinstance(weights, list)
    return [float(w) for w in weights]


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    n: int
    mean_predicted: float | None
    observed: float | None  # share of the bin's pairs labelled supported

    def to_json(self) -> dict[str, Any]:
        return {"low": self.low, "high": self.high, "n": self.n, "mean_predicted": self.mean_predicted,
                "observed": self.observed}


@dataclass(frozen=True)
class Reliability:
    """ECE over BINS equal-width bins and the bins themselves."""

    n: int
    ece: float | None
    bins: tuple[ReliabilityBin, ...]

    def to_json(self) -> dict[str, Any]:
        return {"n": self.n, "ece": self.ece, "bins": [b.to_json() for b in self.bins],
                **({} if self.ece is not None else {"reason": "no scored pair with a label"})}

    def to_text(self) -> str:
        """A table with labelled columns, one line a bin (for stderr and docs)."""
        head = f"calibration of score as P(supported): ECE {_fmt(self.ece)} over {BINS} bins, n={self.n}\n"
        lines = [head, "  score bin    pairs  mean score  observed supported\n"]
        for b in self.bins:
            mean, seen = _fmt(b.mean_predicted), _fmt(b.observed)
            lines.append(f"  {b.low:.1f}-{b.high:.1f}  {b.n:>8}  {mean:>10}  {seen:>18}\n")
        return "".join(lines)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def reliability(probs: Sequence[float | None], truth: Sequence[bool], bins: int = BINS) -> Reliability:
    """ECE and the reliability table of probabilities against binary labels; pairs without a
    score (cannot_judge) are left out."""
    pairs = [(p, t) for p, t in zip(probs, truth, strict=True) if p is not None]
    grouped: list[list[tuple[float, bool]]] = [[] for _ in range(bins)]
    for p, t in pairs:
        grouped[min(bins - 1, max(0, int(p * bins)))].append((p, t))
    out = []
    ece = 0.0
    for i, members in enumerate(grouped):
        if members:
            mean_p = sum(p for p, _ in members) / len(members)
            observed = sum(t for _, t in members) / len(members)
            ece += len(members) / len(pairs) * abs(observed - mean_p)
            out.append(ReliabilityBin(i / bins, (i + 1) / bins, len(members), round(mean_p, 4), round(observed, 4)))
        else:
            out.append(ReliabilityBin(i / bins, (i + 1) / bins, 0, None, None))
    return Reliability(len(pairs), round(ece, 4) if pairs else None, tuple(out))


def fit_weights(vectors: Sequence[Sequence[float]], truth: Sequence[bool], c: float = 1.0) -> list[float]:
    """L2-regularised logistic regression (scikit-learn, imported here only: fitting is a
    bench step, judging never needs it). The bias column is fitted as the intercept."""
    from sklearn.linear_model import LogisticRegression

    if len(set(truth)) < 2:
        share = sum(truth) / len(truth) if truth else 0.5
        share = min(max(share, 0.01), 0.99)
        return [math.log(share / (1 - share))] + [0.0] * (len(FEATURES) - 1)
    model = LogisticRegression(C=c, max_iter=1000)
    model.fit([list(v[1:]) for v in vectors], list(truth))
    return [float(model.intercept_[0])] + [float(w) for w in model.coef_[0]]
