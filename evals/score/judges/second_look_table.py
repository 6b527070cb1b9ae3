"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        0.031883, -1.950225, -0.544964, 0.146173, -0.119798, -0.428618, 0.549646, -1.787148, 0.938373,
        -1.65062, -0.96996, 1.685121, 0.823868, 0.470336, 1.049311, -0.108345, -0.31489, 2.446236,
        -0.464569, 0.169449, -0.927551, 0.034492, -0.369117, 2.213464,
    ],
    "bias": -7.500741,
    "threshold": 0.35,
    "fitted_on": "judge_ru_firstruns.jsonl, 1200 pairs in 5 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.763; "
        "round 2 0.791 -> 0.784; "
        "round 3 0.774 -> 0.803; "
        "round 4 0.721 -> 0.752; "
        "round 5 0.843 -> 0.850"
    ),
}
