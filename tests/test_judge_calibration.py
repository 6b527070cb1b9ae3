"""The offline judge's score as P(supported): the shipped logistic table, ECE and the
reliability table (expected values worked out by hand)."""

from __future__ import annotations

import math

import pytest

from evals.score.judges import calibration
from evals.score.judges.base import JudgeInput
from evals.score.judges.offline import OfflineJudge, extract_features


def test_ece_and_bins_by_hand() -> None:
    # bin 0.1-0.2: 0.1, 0.2 is bin 2 (0.2-0.3); bin 0.8-0.9: 0.8, 0.85 (both true)
    probs = [0.1, 0.15, 0.85, 0.8, None]
    truth = [False, True, True, True, False]
    rel = calibration.reliability(probs, truth)
    assert rel.n == 4
    low, high = rel.bins[1], rel.bins[8]
    assert (low.n, low.mean_predicted, low.observed) == (2, 0.125, 0.5)
    assert (high.n, high.mean_predicted, high.observed) == (2, 0.825, 1.0)
    # ECE = 2/4·|0.5 − 0.125| + 2/4·|1 − 0.825| = 0.1875 + 0.0875
    assert rel.ece == pytest.approx(0.275)
    assert sum(b.n for b in rel.bins) == 4 and rel.bins[0].mean_predicted is None
    assert "ECE 0.275" in rel.to_text() and "observed supported" in rel.to_text()


def test_ece_of_nothing_is_null_with_a_reason() -> None:
    rel = calibration.reliability([None], [True])
    assert rel.ece is None and rel.to_json()["reason"]


def test_a_score_of_one_lands_in_the_last_bin() -> None:
    rel = calibration.reliability([1.0, 0.0], [True, False])
    assert rel.bins[-1].n == 1 and rel.bins[0].n == 1 and rel.ece == 0.0


def test_probability_is_the_logistic_of_the_dot_product() -> None:
    assert calibration.probability([1.0, 2.0], [0.5, -1.0]) == pytest.approx(1 / (1 + math.exp(1.5)))
    assert calibration.probability([1.0], [-800.0]) == pytest.approx(0.0)  # no overflow


def test_shipped_score_is_the_table_applied_to_the_rules_features() -> None:
    claim = "Медицинские сёстры проходят обучение по охране труда не реже раза в 12 месяцев."
    evidence = "Медицинские сестры проходят обучение по охране труда не реже одного раза в 12 месяцев."
    result = OfflineJudge().judge_one(JudgeInput(claim, [evidence]))
    features = extract_features(JudgeInput(claim, [evidence]))
    assert features is not None and result.value == "supported"
    w = calibration.shipped_weights("ru")
    # bias, supported, partial, hard, coverage, share, log(1+matched), log(1+missing), supported·coverage
    x = [1, 1, 0, 0, features.coverage, features.share, math.log1p(features.matched), 0.0, features.coverage]
    z = sum(a * b for a, b in zip(x, w, strict=True))
    assert result.score == pytest.approx(round(1 / (1 + math.exp(-z)), 4))


def test_fit_recovers_a_separable_direction() -> None:
    # label = supported flag; the fitted weight on it must be clearly positive
    vectors = [[1.0, float(s), 0.0, 0.0, 0.5, 0.5, 1.0, 0.0, 0.5 * s] for s in (0, 1) * 20]
    truth = [bool(v[1]) for v in vectors]
    weights = calibration.fit_weights(vectors, truth)
    assert weights[1] > 1.0
    one = calibration.probability(vectors[1], weights)
    zero = calibration.probability(vectors[0], weights)
    assert one > 0.8 and zero < 0.2
