"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.726726, 0.82979, -0.657463, -1.435343, 0.147533, -2.014863, 0.611416, 0.441669, 2.673036],
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
            "bench/judge_ru_realS.jsonl + "
            "bench/judge_ru_realT.jsonl + "
            "bench/judge_ru_realU.jsonl + "
            "bench/judge_ru_realV.jsonl + "
            "bench/judge_ru_realW.jsonl + "
            "bench/judge_ru_realX.jsonl + "
            "bench/judge_ru_realY.jsonl + "
            "bench/judge_ru_realZ.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 2350 pairs"),
        "cross_fitted_ece": 0.0121,
        "cross_fitted_macro_f1": 0.8435,
        "reliability": [
            [0.0, 0.1, 1055, 0.052, 0.0512],
            [0.1, 0.2, 312, 0.1344, 0.141],
            [0.2, 0.3, 4, 0.2116, 0.5],
            [0.3, 0.4, 4, 0.3669, 0.25],
            [0.4, 0.5, 9, 0.4573, 0.5556],
            [0.5, 0.6, 28, 0.5578, 0.5357],
            [0.6, 0.7, 148, 0.6623, 0.6892],
            [0.7, 0.8, 535, 0.7549, 0.7308],
            [0.8, 0.9, 255, 0.8259, 0.8549],
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
