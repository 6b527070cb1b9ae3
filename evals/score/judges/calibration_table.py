"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-2.977217, 2.040537, -1.110836, -0.89065, -0.049986, -2.585308, 0.864187, 0.047705, 1.653711],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_blind.jsonl + "
            "bench/judge_ru_blind2.jsonl + "
            "bench/judge_ru_blind3.jsonl + "
            "bench/judge_ru_blind4.jsonl, 578 pairs"),
        "cross_fitted_ece": 0.035,
        "cross_fitted_macro_f1": 0.8436,
        "reliability": [
            [0.0, 0.1, 298, 0.0316, 0.0235],
            [0.1, 0.2, 1, 0.1182, 0.0],
            [0.4, 0.5, 2, 0.4746, 0.5],
            [0.5, 0.6, 21, 0.5726, 0.7143],
            [0.6, 0.7, 109, 0.6608, 0.578],
            [0.7, 0.8, 134, 0.7432, 0.7985],
            [0.8, 0.9, 13, 0.8184, 0.9231],
        ],
    },
    "en": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [0.63567, 0.537279, -0.293456, 0.269651, -1.000805, 0.857932, 0.037163, 0.0, 0.510143],
        "fitted_on": ("expertqa/domain_val.jsonl, 677 pairs"),
        "cross_fitted_ece": 0.0362,
        "cross_fitted_macro_f1": 0.5998,
        "reliability": [
            [0.2, 0.3, 1, 0.2645, 1.0],
            [0.3, 0.4, 13, 0.3593, 0.6923],
            [0.4, 0.5, 25, 0.4272, 0.4],
            [0.5, 0.6, 88, 0.5721, 0.6477],
            [0.6, 0.7, 53, 0.6399, 0.5283],
            [0.7, 0.8, 331, 0.7698, 0.7704],
            [0.8, 0.9, 166, 0.8174, 0.7711],
        ],
    },
}
