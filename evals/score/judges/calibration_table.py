"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.239304, 2.149209, -0.921485, -1.223677, -0.414244, -0.555639, 0.568971, 0.582479, 1.159686],
        "fitted_on": "ru-pairs/dev.jsonl, 160 pairs",
    },
    "en": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [0.63567, 0.537279, -0.293456, 0.269651, -1.000805, 0.857932, 0.037163, 0.0, 0.510143],
        "fitted_on": "expertqa/domain_val.jsonl, 677 pairs",
    },
}
