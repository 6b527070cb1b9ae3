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
        "weights": [0.650582, 0.521419, -0.277762, 0.224024, -1.053302, 0.83088, 0.036476, 0.0, 0.580622],
        "fitted_on": ("expertqa/domain_val.jsonl, 677 pairs"),
        "cross_fitted_ece": 0.0396,
        "cross_fitted_macro_f1": 0.6005,
        "reliability": [
            [0.2, 0.3, 1, 0.2597, 1.0],
            [0.3, 0.4, 13, 0.3582, 0.6923],
            [0.4, 0.5, 25, 0.427, 0.4],
            [0.5, 0.6, 89, 0.5719, 0.6629],
            [0.6, 0.7, 50, 0.6358, 0.5],
            [0.7, 0.8, 339, 0.7714, 0.7699],
            [0.8, 0.9, 160, 0.8171, 0.7688],
        ],
    },
}
