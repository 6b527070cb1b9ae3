"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""

CALIBRATION: dict[str, dict[str, object]] = {
    "ru": {
        "features": "bias,supported,partial,hard_rule,coverage,share,log_matched,missing_words,supported_x_coverage",
        "weights": [-3.370788, 2.458612, -0.399542, -1.581224, -0.238087, -0.834589, 0.921796, 0.226312, 1.098076],
        "fitted_on": ("ru-pairs/dev.jsonl + "
            "bench/judge_ru_own.jsonl + "
            "bench/judge_ru_real.jsonl, 580 pairs"),
        "cross_fitted_ece": 0.0254,
        "cross_fitted_macro_f1": 0.8986,
        "reliability": [
            [0.0, 0.1, 267, 0.0454, 0.0337],
            [0.1, 0.2, 69, 0.1287, 0.1449],
            [0.2, 0.3, 2, 0.2148, 0.5],
            [0.3, 0.4, 2, 0.3261, 1.0],
            [0.5, 0.6, 1, 0.5992, 1.0],
            [0.6, 0.7, 10, 0.6439, 0.9],
            [0.7, 0.8, 49, 0.7705, 0.8163],
            [0.8, 0.9, 158, 0.8532, 0.8291],
            [0.9, 1.0, 22, 0.9137, 1.0],
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
