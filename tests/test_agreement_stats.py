"""Agreement statistics against published worked examples and maintained libraries.

Each published value is asserted to the precision it was published with; the source is
named in the test. Library cross-checks run on random tables with missing labels.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from evals.agreement.stats import (
    Estimate,
    bootstrap_ci,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
    with_ci,
)

N = None

# Krippendorff, K. (2011). "Computing Krippendorff's Alpha-Reliability", worked example with
# missing values: 4 observers (rows A–D) × 12 units; "." (None) = not coded. The same data
# are Gwet (2014), Handbook of Inter-Rater Reliability, 4th ed., p. 120 (irrCAC's cac.raw4raters).
KRIPPENDORFF_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]
K2011_UNITS = [list(unit) for unit in zip(*KRIPPENDORFF_2011, strict=True)]


def from_contingency(table: list[list[int]], categories: list[str]) -> list[list[str | None]]:
    """Two-rater units from a contingency table (rows: rater 1, columns: rater 2)."""
    rows: list[list[str | None]] = []
    for i, counts in enumerate(table):
        for j, count in enumerate(counts):
            rows += [[categories[i], categories[j]] for _ in range(count)]
    return rows


def from_distribution(table: list[list[int]]) -> list[list[int | None]]:
    """Units whose labels are given as counts per category (Fleiss' subjects × categories form)."""
    return [[k + 1 for k, count in enumerate(row) for _ in range(count)] for row in table]


# --- Krippendorff's alpha ------------------------------------------------------------


@pytest.mark.parametrize(("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_2011_worked_example(level, published):
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section on
    # "C. Multiple observers, any level of measurement, missing data": nominal α = .743,
    # ordinal α = .815, interval α = .849 (published to three decimals).
    estimate = krippendorff_alpha(K2011_UNITS, level=level)
    assert round(estimate.value, 3) == published
    assert estimate.n == 11  # unit 12 has a single value and is not pairable


def test_krippendorff_2011_with_ordered_text_labels():
    # The same example with the values as ordered words: ordinal α = .815 again, and interval
    # over equally spaced ranks equals interval over 1..5 (α is invariant to a shift).
    words = ["very low", "low", "mid", "high", "very high"]
    units = [[None if v is None else words[v - 1] for v in unit] for unit in K2011_UNITS]
    assert round(krippendorff_alpha(units, level="ordinal", categories=words).value, 3) == 0.815
    assert round(krippendorff_alpha(units, level="interval", categories=words).value, 3) == 0.849
    assert round(krippendorff_alpha(units).value, 3) == 0.743
    with pytest.raises(ValueError, match="order"):
        krippendorff_alpha(units, level="ordinal")


def test_gwet_handbook_raw4raters():
    # Gwet (2014), Handbook p. 120, as printed by irrCAC's README for cac.raw4raters:
    # percent agreement 0.8181818, AC1 0.77544, Fleiss' (generalised) kappa 0.76117,
    # Krippendorff's alpha 0.74342.
    assert round(percent_agreement(K2011_UNITS).value, 7) == 0.8181818
    assert round(gwet_ac1(K2011_UNITS).value, 5) == 0.77544
    assert round(fleiss_kappa(K2011_UNITS).value, 5) == 0.76117
    assert round(krippendorff_alpha(K2011_UNITS).value, 5) == 0.74342


# --- Cohen's kappa and Gwet's AC1 for two raters --------------------------------------


def test_cohen_kappa_wikipedia_grant_example():
    # Wikipedia, "Cohen's kappa", worked example: 50 grant proposals, readers A and B;
    # yes/yes 20, A yes/B no 5, A no/B yes 10, no/no 15 → p_o = 0.7, p_e = 0.5, κ = 0.4.
    units = from_contingency([[20, 5], [10, 15]], ["yes", "no"])
    assert percent_agreement(units).value == pytest.approx(0.7)
    assert round(cohen_kappa(units).value, 1) == 0.4


def test_gwet_handbook_abstractors_contingency_table():
    # Gwet (2014), Handbook, 100 pregnancies classified by two abstractors (irrCAC dataset
    # cont3x3abstractors; values printed in irrCAC's README): Cohen's κ 0.7964094,
    # Gwet's AC1 0.8493305, percent agreement 0.89.
    units = from_contingency([[13, 0, 0], [0, 20, 7], [0, 4, 56]], ["Ectopic", "AIU", "NIU"])
    assert round(cohen_kappa(units).value, 7) == 0.7964094
    assert round(gwet_ac1(units).value, 7) == 0.8493305
    assert round(percent_agreement(units).value, 2) == 0.89


def test_kappa_paradox_feinstein_cicchetti():
    # Feinstein & Cicchetti (1990), "High agreement but low kappa: I. The problems of two
    # paradoxes", J Clin Epidemiol 43:543–549, as tabulated in Gerstman, Epidemiology Kept
    # Simple, Table 10.6: both tables have p_o = 0.85; A (40, 9 / 6, 45) κ = 0.70,
    # B (80, 10 / 5, 5) κ = 0.32 (p_e = 0.78).
    table_a = from_contingency([[40, 9], [6, 45]], ["+", "-"])
    table_b = from_contingency([[80, 10], [5, 5]], ["+", "-"])
    assert percent_agreement(table_a).value == pytest.approx(0.85)
    assert percent_agreement(table_b).value == pytest.approx(0.85)
    assert round(cohen_kappa(table_a).value, 2) == 0.70
    assert round(cohen_kappa(table_b).value, 2) == 0.32
    # AC1 does not collapse under skewed prevalence. By hand for B: π+ = (90 + 85) / 200
    # = 0.875, p_e = 2 · 0.875 · 0.125 = 0.21875, AC1 = (0.85 − 0.21875) / 0.78125 = 0.808.
    assert round(gwet_ac1(table_b).value, 3) == 0.808
    assert gwet_ac1(table_b).value > 0.8 > 0.33 > cohen_kappa(table_b).value


def test_weighted_kappa_by_hand():
    # Three ordered categories, 10 units. Rows rater 1, columns rater 2:
    #   [[3, 1, 0], [0, 2, 1], [1, 0, 2]]; marginals r = c = (.4, .3, .3).
    # Linear agreement weights 1 / .5 / 0: p_o = (3+2+2)/10 + .5·(1+1)/10 = .8;
    # p_e = Σ w_ij r_i c_j = (.16+.09+.09) + .5·(.12+.12+.09+.09) = .55;
    # κ_w = (.8 − .55) / (1 − .55) = .5556.
    units = from_contingency([[3, 1, 0], [0, 2, 1], [1, 0, 2]], ["lo", "mid", "hi"])
    r = c = np.array([0.4, 0.3, 0.3])
    w = np.array([[1, 0.5, 0], [0.5, 1, 0.5], [0, 0.5, 1]])
    po = 0.7 + 0.5 * 0.2
    pe = float(r @ w @ c)
    assert pe == pytest.approx(0.55)
    value = cohen_kappa(units, categories=["lo", "mid", "hi"], weights="linear").value
    assert value == pytest.approx((po - pe) / (1 - pe))
    assert round(value, 4) == 0.5556
    with pytest.raises(ValueError, match="ordered category set"):
        cohen_kappa(units, weights="linear")


# --- Fleiss' kappa -------------------------------------------------------------------


def test_fleiss_kappa_wikipedia_worked_example():
    # Wikipedia, "Fleiss' kappa", worked example: 10 subjects, 14 raters, 5 categories,
    # P̄ = 0.378, P̄e = 0.213, κ = 0.210.
    table = [
        [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
    ]
    units = from_distribution(table)
    assert round(fleiss_kappa(units).value, 3) == 0.210
    assert round(percent_agreement(units).value, 3) == 0.378


def test_fleiss_kappa_irrcac_distrib_6raters():
    # irrCAC README (Gwet), distrib.6raters — 15 psychiatric patients, 6 raters, 5
    # diagnoses: Fleiss' kappa 0.4139265, Gwet's AC1 0.4448007, pa 0.5511111.
    table = [
        [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
        [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
        [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    ]
    units = from_distribution(table)
    assert round(fleiss_kappa(units).value, 7) == 0.4139265
    assert round(gwet_ac1(units).value, 7) == 0.4448007
    assert round(percent_agreement(units).value, 7) == 0.5511111


# --- cross-checks with maintained libraries ------------------------------------------


def random_table(seed: int, units: int, raters: int, q: int, missing: float) -> list[list[int | None]]:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, q, size=units)
    out: list[list[int | None]] = []
    for t in truth:
        row: list[int | None] = []
        for _ in range(raters):
            label = int(t) if rng.random() < 0.6 else int(rng.integers(0, q))
            row.append(None if rng.random() < missing else label)
        out.append(row)
    return out


def nominal_alpha_by_hand(units: list[list[int | None]]) -> float:
    """Krippendorff's nominal α from the coincidence matrix, written out independently."""
    values = sorted({v for row in units for v in row if v is not None})
    index = {v: i for i, v in enumerate(values)}
    o = np.zeros((len(values), len(values)))
    for row in units:
        labels = [v for v in row if v is not None]
        m = len(labels)
        if m < 2:
            continue
        for i, a in enumerate(labels):
            for j, b in enumerate(labels):
                if i != j:
                    o[index[a], index[b]] += 1 / (m - 1)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    d_o = (o.sum() - np.trace(o)) / n
    d_e = (n * n - (n_c**2).sum()) / (n * (n - 1))
    return 1 - d_o / d_e


@pytest.mark.parametrize("seed", range(5))
def test_alpha_matches_independent_computation_and_krippendorff_package(seed):
    krippendorff = pytest.importorskip("krippendorff")
    units = random_table(seed, units=40, raters=3, q=4, missing=0.3)
    reliability = np.array([[np.nan if v is None else v for v in row] for row in units], dtype=float).T
    assert krippendorff_alpha(units).value == pytest.approx(nominal_alpha_by_hand(units), abs=1e-12)
    for level in ("nominal", "ordinal", "interval"):
        expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement=level)
        assert krippendorff_alpha(units, level=level).value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_cohen_kappa_matches_scikit_learn(seed):
    metrics = pytest.importorskip("sklearn.metrics")
    units = random_table(seed, units=60, raters=2, q=4, missing=0.2)
    both = [row for row in units if None not in row]
    a = [row[0] for row in both]
    b = [row[1] for row in both]
    cats = [0, 1, 2, 3]
    assert cohen_kappa(units, categories=cats).value == pytest.approx(metrics.cohen_kappa_score(a, b), abs=1e-12)
    for weights in ("linear", "quadratic"):
        expected = metrics.cohen_kappa_score(a, b, labels=cats, weights=weights)
        assert cohen_kappa(units, categories=cats, weights=weights).value == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_kappas_match_statsmodels(seed):
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    two = [row for row in random_table(seed, units=60, raters=2, q=3, missing=0.0)]
    contingency = np.zeros((3, 3))
    for a, b in two:
        contingency[a, b] += 1
    assert cohen_kappa(two).value == pytest.approx(inter_rater.cohens_kappa(contingency).kappa, abs=1e-12)
    # statsmodels' Fleiss kappa needs every subject rated by the same number of raters.
    many = random_table(seed, units=50, raters=5, q=4, missing=0.0)
    counts, _ = inter_rater.aggregate_raters(np.array(many))
    assert fleiss_kappa(many).value == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)


# --- undefined values ----------------------------------------------------------------


def test_no_pairable_unit_is_null_with_reason():
    units = [["a", None], [None, "b"], ["a", None]]
    for statistic in (percent_agreement, cohen_kappa, krippendorff_alpha, gwet_ac1, fleiss_kappa):
        estimate = statistic(units)
        assert estimate.value is None and estimate.reason, statistic.__name__


def test_one_category_overall_is_null_for_kappa_and_alpha():
    units = [["yes", "yes"]] * 6
    cats = ["yes", "no"]
    assert cohen_kappa(units, categories=cats).value is None
    assert "chance agreement is 1" in cohen_kappa(units, categories=cats).reason
    assert krippendorff_alpha(units, categories=cats).value is None
    assert "expected disagreement is 0" in krippendorff_alpha(units, categories=cats).reason
    assert fleiss_kappa(units, categories=cats).value is None
    # AC1's chance agreement is 0 here, so AC1 is defined: it equals percent agreement,
    # and the estimate says why rather than passing a bare 1 off as information.
    ac1 = gwet_ac1(units, categories=cats)
    assert ac1.value == 1.0 and ac1.note


def test_kappa_is_zero_when_one_rater_always_gives_the_same_label():
    # p_e = p_o when one rater's marginal is a single category: κ = 0, which is defined.
    units = [["yes", "yes"], ["yes", "no"], ["yes", "no"], ["yes", "yes"]]
    assert cohen_kappa(units).value == 0.0
    assert cohen_kappa(units, categories=["no", "yes"], weights="quadratic").value == 0.0


def test_cohen_kappa_needs_two_raters_and_known_labels():
    estimate = cohen_kappa([["a", "a", "b"], ["b", "b", "b"]])
    assert estimate.value is None and "exactly two raters" in estimate.reason
    with pytest.raises(ValueError, match="declared categories"):
        cohen_kappa([["a", "z"]], categories=["a", "b"])
    with pytest.raises(ValueError, match="one cell per rater"):
        percent_agreement([["a", "b"], ["a"]])


def test_nan_counts_as_missing():
    assert percent_agreement([["a", math.nan], ["a", "a"]]).n == 1


# --- bootstrap -----------------------------------------------------------------------


def test_bootstrap_is_reproducible_and_brackets_the_value():
    units = from_contingency([[20, 5], [10, 15]], ["yes", "no"])
    first = with_ci(units, cohen_kappa, seed=7)
    again = with_ci(units, cohen_kappa, seed=7)
    other = with_ci(units, cohen_kappa, seed=8)
    assert first.ci == again.ci
    assert first.ci != other.ci
    assert first.ci[0] < first.value < first.ci[1]


@pytest.mark.parametrize(
    ("statistic", "options"),
    [
        (percent_agreement, {}),
        (cohen_kappa, {"categories": [1, 2, 3, 4, 5]}),
        (cohen_kappa, {"categories": [1, 2, 3, 4, 5], "weights": "quadratic"}),
        (krippendorff_alpha, {"level": "ordinal"}),
        (gwet_ac1, {"categories": [1, 2, 3, 4, 5]}),
        (fleiss_kappa, {}),
    ],
)
def test_vectorised_bootstrap_equals_recomputing_each_resample(statistic, options):
    # The fast kernels must give, resample by resample, what the statistic gives on the
    # resampled table; a plain wrapper takes the generic (recompute) path with the same draws.
    units = [row[:2] for row in K2011_UNITS] if statistic is cohen_kappa else K2011_UNITS
    units = units * 3

    def plain(table, **kw):
        return statistic(table, **kw)

    fast = bootstrap_ci(units, statistic, n_resamples=200, seed=3, min_valid_fraction=0.5, **options)
    slow = bootstrap_ci(units, plain, n_resamples=200, seed=3, min_valid_fraction=0.5, **options)
    assert fast.n_valid == slow.n_valid
    assert fast.bounds == pytest.approx(slow.bounds, abs=1e-12)


def test_bootstrap_gives_no_interval_when_too_few_resamples_are_defined():
    # Three units, one of them "no": a resample misses it with probability (2/3)^3 ≈ 0.30,
    # and then κ is undefined; far more than 10 % of resamples are dropped.
    units = [["yes", "yes"], ["no", "no"], ["yes", "yes"]]
    estimate = with_ci(units, cohen_kappa)
    assert estimate.value == 1.0
    assert estimate.ci is None and "resamples gave a defined value" in estimate.ci_reason


def test_estimates_serialise_without_nan():
    units = [["yes", "yes"]] * 3
    for statistic in (percent_agreement, cohen_kappa, krippendorff_alpha, gwet_ac1, fleiss_kappa):
        estimate: Estimate = with_ci(units, statistic, categories=["yes", "no"])
        json.dumps(estimate.to_json(), allow_nan=False)
