"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.651436, 2.347735, -0.451157, -1.335826, -0.156032, -0.837774, 0.964831, 0.309929, 1.162458],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl, 580 pairs"),
        "cross_fitted_ece": 0.0304,
        "cross_fitted_macro_f1": 0.8898,
        "reliability": [
            [0.0, 0.1, 274, 0.0528, 0.0511],
            [0.1, 0.2, 59, 0.1254, 0.1017],
            [0.2, 0.3, 3, 0.2371, 0.6667],
            [0.3, 0.4, 1, 0.3461, 1.0],
            [0.5, 0.6, 6, 0.5785, 0.8333],
            [0.6, 0.7, 10, 0.6657, 0.9],
            [0.7, 0.8, 68, 0.7683, 0.7941],
            [0.8, 0.9, 139, 0.8513, 0.8201],
            [0.9, 1.0, 20, 0.9134, 1.0],
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
