"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.523837, 1.784885, -0.728743, -1.690836, -0.096847, -2.348069, 0.953973, -0.047465, 1.44662],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl + "
            "bench/judge_ru_realE.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 1090 pairs"),
        "cross_fitted_ece": 0.0229,
        "cross_fitted_macro_f1": 0.8606,
        "reliability": [
            [0.0, 0.1, 579, 0.0431, 0.0415],
            [0.1, 0.2, 29, 0.1229, 0.1034],
            [0.2, 0.3, 2, 0.2557, 0.5],
            [0.4, 0.5, 1, 0.4287, 1.0],
            [0.5, 0.6, 13, 0.5567, 0.8462],
            [0.6, 0.7, 81, 0.659, 0.679],
            [0.7, 0.8, 260, 0.7536, 0.7154],
            [0.8, 0.9, 125, 0.8289, 0.88],
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
