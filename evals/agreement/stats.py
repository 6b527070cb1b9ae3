"""Agreement statistics over a units × raters table of category labels.

A table is a sequence of units (rows); each row holds one label per rater, or None where
that rater gave no label (a float NaN also counts as missing). Every statistic returns an
`Estimate`: where the statistic is undefined its value is None with a reason — never NaN,
never a silent 0 or 1.

Definitions (Gwet 2014, Handbook of Inter-Rater Reliability, 4th ed., for the multi-rater
forms with missing labels):
- percent agreement: the mean, over units labelled by two or more raters, of the share of
  agreeing rater pairs within the unit; for two raters, the share of co-labelled units
  whose labels match.
- Cohen's kappa: two raters, units labelled by both; unweighted, or linear / quadratic
  agreement weights over the declared ordered category set.
- Krippendorff's alpha: coincidence-matrix alpha (nominal, ordinal, interval); units with a
  single label are not pairable and drop out. Computed by the `krippendorff` package.
- Gwet's AC1 and Fleiss' kappa: pa as above; category prevalence pi_k is the mean over
  units with at least one label of the unit's share of labels in k; AC1 chance agreement
  is sum pi_k (1 - pi_k) / (q - 1) with q the number of declared categories, Fleiss' is
  sum pi_k^2 (Fleiss 1971 when every unit has the same number of labels).

Bootstrap intervals resample units with replacement (numpy default_rng(seed)); resamples
where the statistic is undefined are dropped, and the percentile interval is reported only
when enough remain.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import krippendorff
import numpy as np
import numpy.typing as npt

from evals.stats.bootstrap import CONFIDENCE, MIN_VALID, RESAMPLES, SEED, generator

Table = Sequence[Sequence[Any]]
Weights = Literal["linear", "quadratic"]
Level = Literal["nominal", "ordinal", "interval"]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

# One seed, resample count and level for every interval citeval reports (evals.stats.bootstrap).
DEFAULT_RESAMPLES = RESAMPLES
DEFAULT_SEED = SEED
DEFAULT_CONFIDENCE = CONFIDENCE
# A percentile interval over the resamples that happen to be defined is conditional on
# definedness; when many resamples are undefined it no longer describes the statistic.
MIN_VALID_FRACTION = MIN_VALID
_EPS = 1e-12
_BATCH = 250  # resamples per batch: bounds memory at 250 × units weights

NO_PAIRABLE = "no unit was labelled by two or more raters"


@dataclass(frozen=True)
class Estimate:
    """A statistic's value with its bootstrap interval; value None means undefined (see reason)."""

    value: float | None
    ci: tuple[float, float] | None = None
    reason: str | None = None
    ci_reason: str | None = None
    n: int = 0  # units that entered the statistic
    note: str | None = None

    def to_json(self, digits: int = 6) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": None if self.value is None else round(self.value, digits),
            "ci": None if self.ci is None else [round(self.ci[0], digits), round(self.ci[1], digits)],
            "n": self.n,
        }
        if self.reason:
            out["reason"] = self.reason
        if self.ci_reason:
            out["ci_reason"] = self.ci_reason
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Interval:
    """A percentile bootstrap interval, or None with the reason it could not be formed."""

    bounds: tuple[float, float] | None
    reason: str | None = None
    n_valid: int = 0
    n_resamples: int = 0


# --- encoding ------------------------------------------------------------------------


def _is_missing(label: Any) -> bool:
    return label is None or (isinstance(label, float) and math.isnan(label))


def _sorted_labels(labels: set[Any]) -> list[Any]:
    try:
        return sorted(labels)
    except TypeError:  # mixed types: any stable order will do for nominal statistics
        return sorted(labels, key=repr)


@dataclass(frozen=True)
class Coded:
    """A table as category indices: codes[u, r] is the index of rater r's label on unit u, or -1."""

    categories: tuple[Hashable, ...]
    codes: IntArray

    @property
    def n_units(self) -> int:
        return int(self.codes.shape[0])

    @property
    def n_raters(self) -> int:
        return int(self.codes.shape[1])

    def counts(self) -> FloatArray:
        """units × categories: how many raters gave each category to each unit."""
        q = len(self.categories)
        out = np.zeros((self.n_units, q), dtype=np.float64)
        for r in range(self.n_raters):
            col = self.codes[:, r]
            rows = np.nonzero(col >= 0)[0]
            np.add.at(out, (rows, col[rows]), 1.0)
        return out


def encode(table: Table, categories: Sequence[Hashable] | None = None) -> Coded:
    """Map labels to category indices; categories default to the sorted labels seen."""
    rows = [list(row) for row in table]
    widths = {len(row) for row in rows}
    if len(widths) > 1:
        raise ValueError(f"every unit needs one cell per rater; got rows of lengths {sorted(widths)}")
    n_raters = widths.pop() if widths else 0
    seen = {label for row in rows for label in row if not _is_missing(label)}
    if categories is None:
        cats = tuple(_sorted_labels(seen))
    else:
        cats = tuple(categories)
        if len(set(cats)) != len(cats):
            raise ValueError(f"categories repeat a label: {list(cats)}")
        unknown = seen - set(cats)
        if unknown:
            raise ValueError(f"labels not among the declared categories: {_sorted_labels(unknown)}")
    index = {c: i for i, c in enumerate(cats)}
    codes = np.full((len(rows), n_raters), -1, dtype=np.int64)
    for u, row in enumerate(rows):
        for r, label in enumerate(row):
            if not _is_missing(label):
                codes[u, r] = index[label]
    return Coded(cats, codes)


def _ones(n: int) -> FloatArray:
    return np.ones((1, n), dtype=np.float64)


def _describe(categories: Sequence[Hashable], used: npt.NDArray[np.bool_]) -> str:
    labels = [categories[i] for i in np.nonzero(used)[0]]
    return ", ".join(repr(c) for c in labels)


# --- kernels: each maps a (resamples × units) weight matrix to one value per resample --
# A unit drawn k times in a resample has weight k; NaN marks an undefined resample. The
# point estimate is the kernel at weight 1 for every unit.


def _pair_agreement(counts: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per unit: share of agreeing rater pairs (0 where unpairable) and a pairable indicator."""
    m = counts.sum(axis=1)
    pairable = m >= 2
    agree = np.zeros(len(m))
    denom = m * (m - 1)
    agree[pairable] = (counts * (counts - 1)).sum(axis=1)[pairable] / denom[pairable]
    return agree, pairable.astype(np.float64)


def _pa_kernel(counts: FloatArray) -> Callable[[FloatArray], FloatArray]:
    agree, pairable = _pair_agreement(counts)

    def run(w: FloatArray) -> FloatArray:
        den = w @ pairable
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(den > 0, (w @ agree) / np.where(den > 0, den, 1.0), np.nan)

    return run


def _chance_kernel(counts: FloatArray, kind: Literal["ac1", "fleiss"]) -> Callable[[FloatArray], FloatArray]:
    q = counts.shape[1]
    pa_run = _pa_kernel(counts)
    m = counts.sum(axis=1)
    rated = (m >= 1).astype(np.float64)
    share = np.divide(counts, m[:, None], out=np.zeros_like(counts), where=m[:, None] >= 1)

    def run(w: FloatArray) -> FloatArray:
        pa = pa_run(w)
        den = w @ rated
        pi = (w @ share) / np.where(den > 0, den, 1.0)[:, None]
        pe = (pi * (1 - pi)).sum(axis=1) / max(q - 1, 1) if kind == "ac1" else (pi**2).sum(axis=1)
        ok = ~np.isnan(pa) & (1 - pe > _EPS)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(ok, (pa - pe) / np.where(ok, 1 - pe, 1.0), np.nan)

    return run


def _agreement_weights(q: int, weights: Weights | None) -> FloatArray:
    i = np.arange(q, dtype=np.float64)
    if weights is None:
        return np.eye(q)
    span = max(q - 1, 1)
    if weights == "linear":
        return 1 - np.abs(i[:, None] - i[None, :]) / span
    if weights == "quadratic":
        return 1 - (i[:, None] - i[None, :]) ** 2 / span**2
    raise ValueError(f"weights must be None, 'linear' or 'quadratic', not {weights!r}")


def _cohen_kernel(coded: Coded, weights: Weights | None) -> Callable[[FloatArray], FloatArray]:
    q = len(coded.categories)
    a, b = coded.codes[:, 0], coded.codes[:, 1]
    both = (a >= 0) & (b >= 0)
    cells = np.zeros((coded.n_units, q * q), dtype=np.float64)
    rows = np.nonzero(both)[0]
    cells[rows, a[rows] * q + b[rows]] = 1.0
    agreement = _agreement_weights(q, weights)

    def run(w: FloatArray) -> FloatArray:
        confusion = (w @ cells).reshape(-1, q, q)
        total = confusion.sum(axis=(1, 2))
        p = confusion / np.where(total > 0, total, 1.0)[:, None, None]
        po = (p * agreement).sum(axis=(1, 2))
        pe = np.einsum("bi,bj,ij->b", p.sum(axis=2), p.sum(axis=1), agreement)
        ok = (total > 0) & (1 - pe > _EPS)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(ok, (po - pe) / np.where(ok, 1 - pe, 1.0), np.nan)

    return run


def _alpha_domain(categories: Sequence[Hashable], level: Level) -> npt.NDArray[Any]:
    if level == "interval":
        if all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in categories):
            return np.asarray(categories, dtype=np.float64)
        # Ordered non-numeric labels: equally spaced ranks, the same assumption as linear weights.
        return np.arange(len(categories), dtype=np.float64)
    # Nominal and ordinal distances depend only on category identity / rank (and the
    # coincidence margins), so positions serve as the value domain.
    return np.arange(len(categories), dtype=np.float64)


def _alpha_value(counts: FloatArray, domain: npt.NDArray[Any], level: Level) -> float:
    pairable = counts[counts.sum(axis=1) >= 2]
    if len(pairable) == 0 or int((pairable.sum(axis=0) > 0).sum()) < 2:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = float(krippendorff.alpha(value_counts=pairable, value_domain=domain, level_of_measurement=level))
    return value if math.isfinite(value) else math.nan


def _alpha_kernel(coded: Coded, level: Level) -> Callable[[FloatArray], FloatArray]:
    counts = coded.counts()
    domain = _alpha_domain(coded.categories, level)

    def run(w: FloatArray) -> FloatArray:
        out = np.empty(w.shape[0])
        for i, row in enumerate(w):
            # Integer weights → repeat each unit as often as it was drawn (alpha is not linear in weights).
            out[i] = _alpha_value(np.repeat(counts, row.astype(np.int64), axis=0), domain, level)
        return out

    return run


# --- public statistics ---------------------------------------------------------------


def percent_agreement(table: Table, categories: Sequence[Hashable] | None = None) -> Estimate:
    """Mean share of agreeing rater pairs over units labelled by two or more raters."""
    coded = encode(table, categories)
    counts = coded.counts()
    n_pairable = int((counts.sum(axis=1) >= 2).sum())
    if n_pairable == 0:
        return Estimate(None, reason=NO_PAIRABLE)
    return Estimate(float(_pa_kernel(counts)(_ones(coded.n_units))[0]), n=n_pairable)


def cohen_kappa(
    table: Table, categories: Sequence[Hashable] | None = None, weights: Weights | None = None
) -> Estimate:
    """Cohen's kappa for exactly two raters over the units both labelled.

    weights="linear" or "quadratic" gives weighted kappa; it needs `categories`, the full
    ordered category set, because the weights depend on each category's rank.
    """
    if weights is not None and categories is None:
        raise ValueError("weighted kappa needs the full ordered category set (categories=...)")
    coded = encode(table, categories)
    if coded.n_raters != 2:
        return Estimate(None, reason=f"Cohen's kappa needs exactly two raters; this table has {coded.n_raters}")
    both = (coded.codes[:, 0] >= 0) & (coded.codes[:, 1] >= 0)
    n_both = int(both.sum())
    if n_both == 0:
        return Estimate(None, reason="no unit was labelled by both raters")
    value = float(_cohen_kernel(coded, weights)(_ones(coded.n_units))[0])
    if math.isnan(value):
        used = np.zeros(len(coded.categories), dtype=bool)
        used[coded.codes[both].ravel()] = True
        return Estimate(
            None,
            n=n_both,
            reason=f"both raters gave every co-labelled unit the same category ({_describe(coded.categories, used)}):"
            " chance agreement is 1, so kappa is undefined",
        )
    return Estimate(value, n=n_both)


def krippendorff_alpha(
    table: Table, level: Level = "nominal", categories: Sequence[Hashable] | None = None
) -> Estimate:
    """Krippendorff's alpha; missing labels allowed, units with a single label ignored.

    For ordinal and interval levels `categories` gives the order (lowest first); interval
    uses the labels' numeric values, or equally spaced ranks for non-numeric labels.
    """
    if level not in ("nominal", "ordinal", "interval"):
        raise ValueError(f"level must be nominal, ordinal or interval, not {level!r}")
    if level != "nominal" and categories is None:
        non_numeric = any(
            not isinstance(label, (int, float)) or isinstance(label, bool)
            for row in table
            for label in row
            if not _is_missing(label)
        )
        if non_numeric:
            raise ValueError(f"{level} alpha over non-numeric labels needs their order (categories=...)")
    coded = encode(table, categories)
    counts = coded.counts()
    pairable = counts.sum(axis=1) >= 2
    n_pairable = int(pairable.sum())
    if n_pairable == 0:
        return Estimate(None, reason=NO_PAIRABLE)
    used = counts[pairable].sum(axis=0) > 0
    if int(used.sum()) < 2:
        return Estimate(
            None,
            n=n_pairable,
            reason=f"every pairable label is the same category ({_describe(coded.categories, used)}):"
            " expected disagreement is 0, so alpha is undefined",
        )
    value = _alpha_value(counts, _alpha_domain(coded.categories, level), level)
    if math.isnan(value):  # e.g. interval alpha over categories sharing one numeric value
        return Estimate(None, n=n_pairable, reason="expected disagreement is 0, so alpha is undefined")
    return Estimate(value, n=n_pairable)


def gwet_ac1(table: Table, categories: Sequence[Hashable] | None = None) -> Estimate:
    """Gwet's AC1 (unweighted); q is the number of categories, so declare the full set."""
    coded = encode(table, categories)
    q = len(coded.categories)
    counts = coded.counts()
    n_pairable = int((counts.sum(axis=1) >= 2).sum())
    if n_pairable == 0:
        return Estimate(None, reason=NO_PAIRABLE)
    if q < 2:
        return Estimate(None, n=n_pairable, reason="AC1 needs at least two declared categories")
    value = float(_chance_kernel(counts, "ac1")(_ones(coded.n_units))[0])
    note = None
    if int((counts.sum(axis=0) > 0).sum()) == 1:
        note = "every label is the same category: chance agreement is 0 and AC1 equals percent agreement"
    return Estimate(value, n=n_pairable, note=note)


def fleiss_kappa(table: Table, categories: Sequence[Hashable] | None = None) -> Estimate:
    """Fleiss' kappa, generalised to units with different numbers of labels (Gwet 2014)."""
    coded = encode(table, categories)
    counts = coded.counts()
    n_pairable = int((counts.sum(axis=1) >= 2).sum())
    if n_pairable == 0:
        return Estimate(None, reason=NO_PAIRABLE)
    value = float(_chance_kernel(counts, "fleiss")(_ones(coded.n_units))[0])
    if math.isnan(value):
        used = counts.sum(axis=0) > 0
        return Estimate(
            None,
            n=n_pairable,
            reason=f"every label is the same category ({_describe(coded.categories, used)}):"
            " chance agreement is 1, so kappa is undefined",
        )
    return Estimate(value, n=n_pairable)


# --- bootstrap -----------------------------------------------------------------------

Statistic = Callable[..., Estimate]


def _kernel_for(statistic: Statistic, table: Table, options: dict[str, Any]) -> Callable[[FloatArray], FloatArray]:
    """A vectorised kernel for citeval's own statistics; any other callable is run per resample."""
    categories = options.get("categories")
    if statistic is percent_agreement:
        return _pa_kernel(encode(table, categories).counts())
    if statistic is gwet_ac1:
        return _chance_kernel(encode(table, categories).counts(), "ac1")
    if statistic is fleiss_kappa:
        return _chance_kernel(encode(table, categories).counts(), "fleiss")
    if statistic is cohen_kappa:
        return _cohen_kernel(encode(table, categories), options.get("weights"))
    if statistic is krippendorff_alpha:
        return _alpha_kernel(encode(table, categories), options.get("level", "nominal"))
    rows = [list(row) for row in table]

    def generic(w: FloatArray) -> FloatArray:
        out = np.empty(w.shape[0])
        for i, row in enumerate(w):
            resample = [rows[u] for u in np.repeat(np.arange(len(rows)), row.astype(np.int64))]
            value = statistic(resample, **options).value
            out[i] = math.nan if value is None else value
        return out

    return generic


def bootstrap_ci(
    table: Table,
    statistic: Statistic,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    min_valid_fraction: float = MIN_VALID_FRACTION,
    **options: Any,
) -> Interval:
    """Percentile interval of `statistic` over units resampled with replacement.

    `options` are passed to the statistic (categories, weights, level). Resamples where it
    is undefined are dropped; if fewer than `min_valid_fraction` of them remain, there is
    no interval and the reason says why.
    """
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    if n_resamples < 1:
        raise ValueError("n_resamples must be at least 1")
    n = len(table)
    if n == 0:
        return Interval(None, reason="no units to resample", n_resamples=n_resamples)
    statistic(table, **options)  # the statistic checks its options (e.g. an order for ordinal alpha)
    kernel = _kernel_for(statistic, table, options)
    rng = generator(seed)
    values: list[FloatArray] = []
    done = 0
    while done < n_resamples:
        size = min(_BATCH, n_resamples - done)
        draws = rng.integers(0, n, size=(size, n))
        offsets = (np.arange(size) * n)[:, None]
        w = np.bincount((draws + offsets).ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        values.append(kernel(w))
        done += size
    all_values = np.concatenate(values)
    valid = all_values[~np.isnan(all_values)]
    needed = math.ceil(min_valid_fraction * n_resamples)
    if len(valid) < needed:
        return Interval(
            None,
            reason=f"only {len(valid)} of {n_resamples} resamples gave a defined value (need {needed})",
            n_valid=len(valid),
            n_resamples=n_resamples,
        )
    tail = (1 - confidence) / 2
    lo, hi = np.quantile(valid, [tail, 1 - tail])
    return Interval((float(lo), float(hi)), n_valid=len(valid), n_resamples=n_resamples)


def with_ci(
    table: Table,
    statistic: Statistic,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    **options: Any,
) -> Estimate:
    """The statistic's point estimate with its bootstrap interval attached."""
    estimate = statistic(table, **options)
    if estimate.value is None:
        return estimate
    interval = bootstrap_ci(
        table, statistic, n_resamples=n_resamples, seed=seed, confidence=confidence, **options
    )
    return replace(estimate, ci=interval.bounds, ci_reason=interval.reason)

