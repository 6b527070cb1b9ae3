"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.927267, 1.32387, -0.89267, -1.691333, 0.315992, -2.213475, 0.757444, 0.496416, 2.026616],
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
            "bench/judge_ru_realO.jsonl + "
            "bench/judge_ru_realP.jsonl + "
            "bench/judge_ru_realQ.jsonl + "
            "bench/judge_ru_realR.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 1870 pairs"),
        "cross_fitted_ece": 0.0246,
        "cross_fitted_macro_f1": 0.8657,
        "reliability": [
            [0.0, 0.1, 891, 0.0501, 0.046],
            [0.1, 0.2, 212, 0.1297, 0.1509],
            [0.2, 0.3, 22, 0.2463, 0.1364],
            [0.3, 0.4, 3, 0.3405, 0.6667],
            [0.4, 0.5, 2, 0.4854, 0.5],
            [0.5, 0.6, 10, 0.5597, 0.8],
            [0.6, 0.7, 70, 0.6601, 0.7286],
            [0.7, 0.8, 291, 0.7576, 0.6907],
            [0.8, 0.9, 350, 0.8415, 0.8743],
            [0.9, 1.0, 19, 0.9113, 1.0],
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
