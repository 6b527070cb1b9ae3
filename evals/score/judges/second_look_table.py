"""The second look's shipped model (generated: python bench/judge_second_look.py --write)."""

SECOND_LOOK: dict[str, object] = {
    "kinds": [
        "actor_conflict", "bound_conflicts", "bound_dropped", "cause_added", "condition_dropped",
        "delegated", "detail_added", "exception_dropped", "low_coverage", "missing_numbers",
        "modality_conflict", "modifier_conflict", "negation_flips", "negation_unheld", "qualifier_dropped",
        "restriction_dropped", "roles_swapped", "supported", "universal_added",
    ],
    "weights": [
        -0.045469, -1.982245, -0.512942, 0.157047, -0.097533, -0.484933, 0.617037, -1.861432, 0.917942,
        -1.635604, -1.03491, 1.678095, 0.77923, 0.433915, 1.152529, -0.288656, -0.315238, 2.518427,
        -0.411315, 0.116764, -0.818017, 0.046717, -0.21813, 2.271504,
    ],
    "bias": -7.913047,
    "threshold": 0.375,
    "fitted_on": "judge_ru_firstruns.jsonl, 1440 pairs in 6 rounds",
    "leave_one_round_out": (
        "round 1 0.768 -> 0.760; "
        "round 2 0.791 -> 0.788; "
        "round 3 0.774 -> 0.805; "
        "round 4 0.721 -> 0.736; "
        "round 5 0.843 -> 0.833; "
        "round 6 0.805 -> 0.810"
    ),
}
