"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.081792, 2.183575, -1.012782, -1.15674, 0.18633, -2.603304, 0.745995, 0.061176, 1.637256],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl, 478 pairs"),
        "cross_fitted_ece": 0.0384,
        "cross_fitted_macro_f1": 0.8368,
        "reliability": [
            [0.0, 0.1, 235, 0.0239, 0.0128],
            [0.3, 0.4, 1, 0.3883, 1.0],
            [0.4, 0.5, 2, 0.4863, 0.5],
            [0.5, 0.6, 18, 0.5665, 0.7222],
            [0.6, 0.7, 111, 0.6588, 0.5856],
            [0.7, 0.8, 100, 0.739, 0.8],
            [0.8, 0.9, 11, 0.817, 0.9091],
        ],
    },
    "en": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [0.63567, 0.537279, -0.293456, 0.269651, -1.000805, 0.857932, 0.037163, 0.0, 0.510143],
        "fitted_on": ("expertqa/domain_val.jsonl, 677 pairs"),
        "cross_fitted_ece": 0.0362,
        "cross_fitted_macro_f1": 0.5998,
        "reliability": [
            [0.2, 0.3, 1, 0.2645, 1.0],
            [0.3, 0.4, 13, 0.3593, 0.6923],
            [0.4, 0.5, 25, 0.4272, 0.4],
            [0.5, 0.6, 88, 0.5721, 0.6477],
            [0.6, 0.7, 53, 0.6399, 0.5283],
            [0.7, 0.8, 331, 0.7698, 0.7704],
            [0.8, 0.9, 166, 0.8174, 0.7711],
        ],
    },
}
