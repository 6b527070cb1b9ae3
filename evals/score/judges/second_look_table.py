"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        -0.080246, -1.826239, -0.364582, -0.150961, -0.056636, -0.197956, 0.623827, -1.661916, 0.742964,
        -1.630393, -0.995216, 1.533789, 0.805475, 0.484287, 0.714141, -0.132901, -0.202165, 2.296292,
        -0.329785, 0.183159, -0.979314, -0.010043, -0.22296, 2.122156,
    ],
    "bias": -7.182799,
    "threshold": 0.375,
    "fitted_on": "judge_ru_firstruns.jsonl, 960 pairs in 4 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.762; "
        "round 2 0.791 -> 0.788; "
        "round 3 0.774 -> 0.812; "
        "round 4 0.721 -> 0.752"
    ),
}
