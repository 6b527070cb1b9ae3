"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.720239, 2.34056, -0.452497, -1.335948, -0.16943, -0.869023, 1.003219, 0.319145, 1.14925],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl, 580 pairs"),
        "cross_fitted_ece": 0.0324,
        "cross_fitted_macro_f1": 0.8881,
        "reliability": [
            [0.0, 0.1, 272, 0.0525, 0.0478],
            [0.1, 0.2, 60, 0.1257, 0.1167],
            [0.2, 0.3, 3, 0.2415, 0.6667],
            [0.3, 0.4, 1, 0.3461, 1.0],
            [0.5, 0.6, 6, 0.5725, 0.8333],
            [0.6, 0.7, 12, 0.6603, 0.8333],
            [0.7, 0.8, 69, 0.7658, 0.7826],
            [0.8, 0.9, 135, 0.8498, 0.8222],
            [0.9, 1.0, 22, 0.913, 1.0],
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
