"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.215018, 1.981536, -0.594607, -1.58098, 0.0518, -2.294463, 0.962906, 0.238607, 1.664871],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl + "
            "bench/judge_ru_realE.jsonl + "
            "bench/judge_ru_realF.jsonl + "
            "bench/judge_ru_realG.jsonl + "
            "bench/judge_ru_realH.jsonl + "
            "bench/judge_ru_realI.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 1330 pairs"),
        "cross_fitted_ece": 0.0274,
        "cross_fitted_macro_f1": 0.8788,
        "reliability": [
            [0.0, 0.1, 705, 0.0431, 0.0369],
            [0.1, 0.2, 66, 0.123, 0.1515],
            [0.2, 0.3, 3, 0.2182, 0.3333],
            [0.4, 0.5, 2, 0.4378, 0.5],
            [0.5, 0.6, 6, 0.5506, 0.6667],
            [0.6, 0.7, 57, 0.6646, 0.7895],
            [0.7, 0.8, 240, 0.7595, 0.7],
            [0.8, 0.9, 242, 0.8424, 0.8719],
            [0.9, 1.0, 9, 0.9166, 1.0],
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
