"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        -0.327791, -1.938447, -0.380626, 0.092935, -0.294328, -0.626649, 0.61413, -1.427558, 0.832854,
        -1.540651, -1.113285, 1.710148, 0.737632, 0.194798, 0.85633, -0.437966, 0.247234, 2.707847,
        -0.372164, 0.418782, -1.125444, 0.176468, 0.133279, 2.00002,
    ],
    "bias": -7.823413,
    "threshold": 0.4,
    "fitted_on": "judge_ru_firstruns.jsonl, 2400 pairs in 10 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.763; "
        "round 2 0.791 -> 0.787; "
        "round 3 0.774 -> 0.794; "
        "round 4 0.721 -> 0.725; "
        "round 5 0.843 -> 0.845; "
        "round 6 0.805 -> 0.800; "
        "round 7 0.792 -> 0.803; "
        "round 8 0.849 -> 0.860; "
        "round 9 0.824 -> 0.821; "
        "round 10 0.858 -> 0.868"
    ),
}
