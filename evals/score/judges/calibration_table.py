"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.131508, 1.053469, -0.546556, -1.622593, 0.184629, -2.408295, 0.808861, 0.474069, 2.605338],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl + "
            "bench/judge_ru_realE.jsonl + "
            "bench/judge_ru_realAA.jsonl + "
            "bench/judge_ru_realAB.jsonl + "
            "bench/judge_ru_realAC.jsonl + "
            "bench/judge_ru_realAD.jsonl + "
            "bench/judge_ru_realAE.jsonl + "
            "bench/judge_ru_realAF.jsonl + "
            "bench/judge_ru_realAG.jsonl + "
            "bench/judge_ru_realAH.jsonl + "
            "bench/judge_ru_realAI.jsonl + "
            "bench/judge_ru_realAJ.jsonl + "
            "bench/judge_ru_realAK.jsonl + "
            "bench/judge_ru_realAL.jsonl + "
            "bench/judge_ru_realAM.jsonl + "
            "bench/judge_ru_realAN.jsonl + "
            "bench/judge_ru_realAO.jsonl + "
            "bench/judge_ru_realAP.jsonl + "
            "bench/judge_ru_realAQ.jsonl + "
            "bench/judge_ru_realAR.jsonl + "
            "bench/judge_ru_realAS.jsonl + "
            "bench/judge_ru_realAT.jsonl + "
            "bench/judge_ru_realAU.jsonl + "
            "bench/judge_ru_realAV.jsonl + "
            "bench/judge_ru_realAW.jsonl + "
            "bench/judge_ru_realAX.jsonl + "
            "bench/judge_ru_realAY.jsonl + "
            "bench/judge_ru_realAZ.jsonl + "
            "bench/judge_ru_realBA.jsonl + "
            "bench/judge_ru_realBB.jsonl + "
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
            "bench/judge_ru_blind4.jsonl, 4030 pairs"),
        "cross_fitted_ece": 0.0095,
        "cross_fitted_macro_f1": 0.8562,
        "reliability": [
            [0.0, 0.1, 1865, 0.0443, 0.0434],
            [0.1, 0.2, 465, 0.1332, 0.1355],
            [0.2, 0.3, 37, 0.2257, 0.2432],
            [0.3, 0.4, 4, 0.3636, 0.5],
            [0.4, 0.5, 16, 0.4551, 0.5625],
            [0.5, 0.6, 55, 0.5596, 0.6727],
            [0.6, 0.7, 223, 0.6625, 0.6592],
            [0.7, 0.8, 725, 0.7569, 0.7476],
            [0.8, 0.9, 628, 0.8369, 0.8264],
            [0.9, 1.0, 12, 0.9075, 0.9167],
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
