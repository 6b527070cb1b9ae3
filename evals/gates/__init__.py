"""CI gates over a scored run (DESIGN 7): a TOML file of per-tier thresholds → pass or fail.

`load_gates` reads and checks a gates file (unknown metric, code, tier or option → DataError
naming the file, line and key); `evaluate` applies it to a run's scores.json; `run_gate` does
both for a run folder and writes JUnit XML and a Markdown summary when asked.
"""

from .core import (
    COMPARE_MODES,
    DEFAULT_GATES,
    GateConfig,
    GateResult,
    Rule,
    RuleOutcome,
    default_gates_path,
    evaluate,
    gate_keys,
    load_gates,
    load_scores,
    run_gate,
)

__all__ = [
    "COMPARE_MODES",
    "DEFAULT_GATES",
    "GateConfig",
    "GateResult",
    "Rule",
    "RuleOutcome",
    "default_gates_path",
    "evaluate",
    "gate_keys",
    "load_gates",
    "load_scores",
    "run_gate",
]
