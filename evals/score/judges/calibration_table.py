"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.693266, 0.773239, -0.715459, -1.502578, 0.186953, -2.065899, 0.626202, 0.437254, 2.659792],
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
        "cross_fitted_ece": 0.0092,
        "cross_fitted_macro_f1": 0.8438,
        "reliability": [
            [0.0, 0.1, 1090, 0.0523, 0.0514],
            [0.1, 0.2, 249, 0.1264, 0.1365],
            [0.2, 0.3, 11, 0.2311, 0.0],
            [0.3, 0.4, 4, 0.3475, 0.25],
            [0.4, 0.5, 20, 0.4554, 0.55],
            [0.5, 0.6, 36, 0.5624, 0.5833],
            [0.6, 0.7, 182, 0.6615, 0.6648],
            [0.7, 0.8, 501, 0.7525, 0.7345],
            [0.8, 0.9, 255, 0.8276, 0.8549],
            [0.9, 1.0, 2, 0.9048, 1.0],
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
