"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        -0.18929, -2.034803, -0.265408, 0.170403, -0.157089, -0.77595, 0.613787, -1.669288, 0.925231,
        -1.561216, -1.087186, 1.709973, 0.776406, 0.299865, 0.916499, -0.36501, 0.249194, 2.621966,
        -0.418116, 0.422911, -1.046894, 0.129976, 0.018194, 2.113118,
    ],
    "bias": -7.974961,
    "threshold": 0.35,
    "fitted_on": "judge_ru_firstruns.jsonl, 1920 pairs in 8 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.761; "
        "round 2 0.791 -> 0.787; "
        "round 3 0.774 -> 0.796; "
        "round 4 0.721 -> 0.728; "
        "round 5 0.843 -> 0.837; "
        "round 6 0.805 -> 0.804; "
        "round 7 0.792 -> 0.803; "
        "round 8 0.849 -> 0.860"
    ),
}
