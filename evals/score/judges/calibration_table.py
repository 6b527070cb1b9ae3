"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.678635, 1.058563, -1.065616, -1.912895, 0.202051, -2.255624, 0.805425, 0.408388, 2.118791],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl + "
            "bench/judge_ru_realE.jsonl + "
            "bench/judge_ru_realF.jsonl + "
            "bench/judge_ru_realG.jsonl + "
            "bench/judge_ru_realH.jsonl + "
            "bench/judge_ru_realI.jsonl + "
            "bench/judge_ru_realJ.jsonl + "
            "bench/judge_ru_realK.jsonl + "
            "bench/judge_ru_realL.jsonl + "
            "bench/judge_ru_realM.jsonl + "
            "bench/judge_ru_realN.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 1630 pairs"),
        "cross_fitted_ece": 0.0256,
        "cross_fitted_macro_f1": 0.8661,
        "reliability": [
            [0.0, 0.1, 820, 0.0473, 0.0476],
            [0.1, 0.2, 133, 0.1272, 0.1203],
            [0.2, 0.3, 1, 0.2231, 0.0],
            [0.4, 0.5, 8, 0.4561, 0.75],
            [0.5, 0.6, 14, 0.5634, 0.5714],
            [0.6, 0.7, 88, 0.6631, 0.7273],
            [0.7, 0.8, 288, 0.7567, 0.7014],
            [0.8, 0.9, 265, 0.8404, 0.8755],
            [0.9, 1.0, 13, 0.9119, 1.0],
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
