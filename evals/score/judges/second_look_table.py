"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        -0.176751, -2.021673, -0.083678, 0.144758, -0.105984, -0.567618, 0.607761, -1.941343, 0.866165,
        -1.581234, -1.052293, 1.654924, 0.788559, 0.309695, 1.01848, -0.38526, 0.229948, 2.517072,
        -0.417706, 0.239198, -0.926069, 0.093877, -0.0721, 2.121225,
    ],
    "bias": -7.711534,
    "threshold": 0.375,
    "fitted_on": "judge_ru_firstruns.jsonl, 1680 pairs in 7 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.757; "
        "round 2 0.791 -> 0.787; "
        "round 3 0.774 -> 0.796; "
        "round 4 0.721 -> 0.730; "
        "round 5 0.843 -> 0.845; "
        "round 6 0.805 -> 0.814; "
        "round 7 0.792 -> 0.799"
    ),
}
