"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.861165, 2.191095, -0.545016, -1.61431, -0.070727, -2.297306, 0.952938, 0.041459, 1.381043],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl + "
            "bench/judge_ru_realE.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 1090 pairs"),
        "cross_fitted_ece": 0.0229,
        "cross_fitted_macro_f1": 0.8784,
        "reliability": [
            [0.0, 0.1, 589, 0.0415, 0.0407],
            [0.1, 0.2, 39, 0.1232, 0.0769],
            [0.3, 0.4, 1, 0.3365, 1.0],
            [0.4, 0.5, 1, 0.4696, 1.0],
            [0.5, 0.6, 6, 0.5808, 1.0],
            [0.6, 0.7, 46, 0.6671, 0.8043],
            [0.7, 0.8, 209, 0.7604, 0.7129],
            [0.8, 0.9, 196, 0.8362, 0.852],
            [0.9, 1.0, 3, 0.9108, 1.0],
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
