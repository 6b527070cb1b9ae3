"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.027114, 2.055334, -1.138346, -0.898726, -0.04928, -2.380072, 0.836165, 0.048315, 1.735084],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 578 pairs"),
        "cross_fitted_ece": 0.0259,
        "cross_fitted_macro_f1": 0.8554,
        "reliability": [
            [0.0, 0.1, 305, 0.0308, 0.023],
            [0.1, 0.2, 1, 0.1142, 0.0],
            [0.5, 0.6, 10, 0.5602, 0.7],
            [0.6, 0.7, 93, 0.6658, 0.6237],
            [0.7, 0.8, 144, 0.7449, 0.7639],
            [0.8, 0.9, 25, 0.8159, 0.92],
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
