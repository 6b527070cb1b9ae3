"""One bootstrap for every interval citeval reports: metrics, run comparisons, inter-rater and
judge agreement. One seed and one resample count (overridable per call), so the same input
always gives the same interval, in every stage.

The question is the sampling unit of the metrics (DESIGN 6); the agreement stages resample
their own units with the same generator.
"""

from __future__ import annotations

import numpy as np

SEED = 20240601
RESAMPLES = 2000
CONFIDENCE = 0.95
# Resamples in which a statistic is undefined are dropped; below this share there is no interval.
MIN_VALID = 0.9


def generator(seed: int = SEED) -> np.random.Generator:
    return np.random.default_rng(seed)


def resample_counts(n: int, seed: int = SEED, resamples: int = RESAMPLES) -> np.ndarray:
    """Multinomial resample counts (resamples × n) of n units drawn with replacement; for
    statistics that need the pairing of units (run comparisons)."""
    rng = generator(seed)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(np.float64)


def resample_indices(n: int, seed: int = SEED, resamples: int = RESAMPLES) -> np.ndarray:
    """Indices (resamples × n) of n units drawn with replacement."""
    return generator(seed).integers(0, n, size=(resamples, n))


_BLOCK_DRAWS = 2**20


def bootstrap_means(x: np.ndarray, seed: int = SEED, resamples: int = RESAMPLES) -> np.ndarray:
    """Means of `resamples` bootstrap resamples of x (units drawn with replacement).

    A resample's mean depends only on how often each distinct value is drawn, so the draws
    are made over the distinct values (multinomial with their frequencies): the same
    distribution as resampling units, at a cost of resamples × distinct values.
    """
    values, counts = np.unique(x, return_counts=True)
    rng = generator(seed)
    n = len(x)
    if len(values) <= 512:
        draws = rng.multinomial(n, counts / n, size=resamples)
        return (draws @ values) / n
    # Many distinct values: resample units, a few resamples at a time so that the index block
    # stays near _BLOCK_DRAWS entries (8 MB) for any n. Drawing rows in blocks of any height
    # gives the same stream of draws, so the means do not depend on the block size.
    rows = max(1, min(100, _BLOCK_DRAWS // max(n, 1)))
    out = np.empty(resamples)
    for start in range(0, resamples, rows):
        idx = rng.integers(0, n, size=(min(rows, resamples - start), n))
        out[start : start + len(idx)] = x[idx].mean(axis=1)
    return out


def percentile_interval(
    samples: np.ndarray,
    resamples: int | None = None,
    *,
    confidence: float = CONFIDENCE,
    min_valid: float = MIN_VALID,
    digits: int = 6,
) -> tuple[list[float] | None, str | None]:
    """(percentile interval, None), or (None, reason) when too few resamples were defined."""
    total = len(samples) if resamples is None else resamples
    finite = samples[np.isfinite(samples)]
    if len(finite) == 0 or len(finite) < min_valid * total:
        return None, f"only {len(finite)} of {total} resamples defined"
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(finite, [tail, 100 - tail])
    return [round(float(lo), digits), round(float(hi), digits)], None
