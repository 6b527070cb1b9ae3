"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        -0.375038, -2.003388, -0.489637, 0.058521, -0.389074, -0.3308, 0.608285, -1.452382, 0.76756,
        -1.580024, -1.130542, 1.657677, 0.691126, 0.113955, 0.810783, -0.460901, 0.234909, 2.708108,
        -0.453334, 0.497165, -1.187722, 0.252502, 0.196811, 1.86614,
    ],
    "bias": -7.639529,
    "threshold": 0.325,
    "fitted_on": "judge_ru_firstruns.jsonl, 2640 pairs in 11 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.758; "
        "round 2 0.791 -> 0.787; "
        "round 3 0.774 -> 0.798; "
        "round 4 0.721 -> 0.730; "
        "round 5 0.843 -> 0.845; "
        "round 6 0.805 -> 0.804; "
        "round 7 0.792 -> 0.803; "
        "round 8 0.849 -> 0.860; "
        "round 9 0.824 -> 0.826; "
        "round 10 0.858 -> 0.860; "
        "round 11 0.837 -> 0.834"
    ),
}
