"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        -0.288274, -1.847969, -0.389278, 0.092527, -0.260987, -0.597637, 0.641507, -1.523324, 0.849027,
        -1.449219, -1.09944, 1.679577, 0.654921, 0.27434, 0.8945, -0.431644, 0.243985, 2.672075, -0.374473,
        0.349469, -1.036037, 0.107135, 0.078258, 2.124178,
    ],
    "bias": -7.981983,
    "threshold": 0.425,
    "fitted_on": "judge_ru_firstruns.jsonl, 2160 pairs in 9 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.755; "
        "round 2 0.791 -> 0.787; "
        "round 3 0.774 -> 0.803; "
        "round 4 0.721 -> 0.730; "
        "round 5 0.843 -> 0.837; "
        "round 6 0.805 -> 0.808; "
        "round 7 0.792 -> 0.803; "
        "round 8 0.849 -> 0.852; "
        "round 9 0.824 -> 0.826"
    ),
}
