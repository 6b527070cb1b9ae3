"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.661425, 1.923488, -0.720246, -1.693414, -0.190742, -2.319934, 0.994617, 0.034557, 1.49174],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl + "
            "bench/judge_ru_realE.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 1090 pairs"),
        "cross_fitted_ece": 0.0194,
        "cross_fitted_macro_f1": 0.8758,
        "reliability": [
            [0.0, 0.1, 587, 0.0434, 0.0409],
            [0.1, 0.2, 42, 0.1251, 0.119],
            [0.2, 0.3, 1, 0.2222, 0.0],
            [0.3, 0.4, 1, 0.322, 1.0],
            [0.4, 0.5, 1, 0.4627, 1.0],
            [0.5, 0.6, 7, 0.5781, 0.8571],
            [0.6, 0.7, 49, 0.6678, 0.8163],
            [0.7, 0.8, 205, 0.7606, 0.7073],
            [0.8, 0.9, 192, 0.8371, 0.8542],
            [0.9, 1.0, 5, 0.9081, 1.0],
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
