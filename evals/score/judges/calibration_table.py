"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.868947, 1.196867, -0.864016, -1.841915, 0.368146, -2.459904, 0.849223, 0.444306, 1.971001],
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
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 2110 pairs"),
        "cross_fitted_ece": 0.022,
        "cross_fitted_macro_f1": 0.859,
        "reliability": [
            [0.0, 0.1, 954, 0.0488, 0.044],
            [0.1, 0.2, 281, 0.1339, 0.153],
            [0.2, 0.3, 31, 0.2399, 0.1935],
            [0.3, 0.4, 4, 0.3494, 0.5],
            [0.4, 0.5, 5, 0.4562, 0.6],
            [0.5, 0.6, 19, 0.5599, 0.5789],
            [0.6, 0.7, 100, 0.6611, 0.74],
            [0.7, 0.8, 339, 0.7575, 0.7021],
            [0.8, 0.9, 360, 0.8409, 0.8667],
            [0.9, 1.0, 17, 0.914, 1.0],
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
