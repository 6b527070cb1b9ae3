"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.239304, 2.149209, -0.921485, -1.223677, -0.414244, -0.555639, 0.568971, 0.582479, 1.159686],
        "fitted_on": "ru-pairs/dev.jsonl, 160 pairs",
        "cross_fitted_ece": 0.0538,
        "cross_fitted_macro_f1": 0.8812,
        "reliability": [
            [0.0, 0.1, 67, 0.047, 0.0149],
            [0.1, 0.2, 4, 0.1414, 0.0],
            [0.5, 0.6, 5, 0.5738, 0.8],
            [0.6, 0.7, 13, 0.6664, 0.8462],
            [0.7, 0.8, 27, 0.7553, 0.7037],
            [0.8, 0.9, 40, 0.8393, 0.85],
            [0.9, 1.0, 4, 0.9107, 0.75],
        ],
    },
    "en": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [0.63567, 0.537279, -0.293456, 0.269651, -1.000805, 0.857932, 0.037163, 0.0, 0.510143],
        "fitted_on": "expertqa/domain_val.jsonl, 677 pairs",
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
