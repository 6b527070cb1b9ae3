"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.108329, 1.863123, -0.605277, -1.548881, 0.124435, -2.463227, 0.962786, 0.175577, 1.73687],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl + "
            "bench/judge_ru_realE.jsonl + "
            "bench/judge_ru_realF.jsonl + "
            "bench/judge_ru_realG.jsonl + "
            "bench/judge_ru_realH.jsonl + "
            "bench/judge_ru_realI.jsonl + "
            "bench/judge_ru_realJ.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 1390 pairs"),
        "cross_fitted_ece": 0.0229,
        "cross_fitted_macro_f1": 0.8737,
        "reliability": [
            [0.0, 0.1, 739, 0.0439, 0.0406],
            [0.1, 0.2, 61, 0.1228, 0.1148],
            [0.2, 0.3, 1, 0.2283, 1.0],
            [0.4, 0.5, 3, 0.4456, 0.6667],
            [0.5, 0.6, 6, 0.5514, 0.6667],
            [0.6, 0.7, 72, 0.6606, 0.7222],
            [0.7, 0.8, 269, 0.7558, 0.7138],
            [0.8, 0.9, 231, 0.8386, 0.8658],
            [0.9, 1.0, 8, 0.9125, 1.0],
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
