"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.206131, 2.195475, -1.032199, -1.158899, 0.171075, -2.569788, 0.778627, 0.10123, 1.648754],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl, 478 pairs"),
        "cross_fitted_ece": 0.0336,
        "cross_fitted_macro_f1": 0.8409,
        "reliability": [
            [0.0, 0.1, 237, 0.0238, 0.0127],
            [0.3, 0.4, 1, 0.3892, 1.0],
            [0.4, 0.5, 2, 0.4832, 0.5],
            [0.5, 0.6, 17, 0.5664, 0.7059],
            [0.6, 0.7, 96, 0.6572, 0.5833],
            [0.7, 0.8, 112, 0.7409, 0.7946],
            [0.8, 0.9, 13, 0.8202, 0.8462],
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
