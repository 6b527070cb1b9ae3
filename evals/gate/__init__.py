"""CI gates over a scored run (DESIGN 7): a TOML file of thresholds per tier, and rules against a
baseline run → pass, fail or skip per rule.

`load_gates` reads and checks a gates file (unknown metric, code, tier or option → DataError
naming the file, line and key); `evaluate` applies its absolute rules to a run's scores.json;
`run_gate` gates a run folder — against a baseline run folder or bundle when given — and
writes JUnit XML and a Markdown summary when asked.
"""

from evals.gate.core import (
    COMPARE_MODES,
    DEFAULT_ALPHA,
    DEFAULT_GATES,
    DEFAULT_MIN_SHARED,
    BaselineInfo,
    BaselineOutcome,
    BaselineRule,
    BaselineSettings,
    GateConfig,
    GateResult,
    Rule,
    RuleOutcome,
    baseline_keys,
    default_gates_path,
    evaluate,
    gate_keys,
    load_gates,
    run_gate,
)

__all__ = [
    "COMPARE_MODES",
    "DEFAULT_ALPHA",
    "DEFAULT_GATES",
    "DEFAULT_MIN_SHARED",
    "BaselineInfo",
    "BaselineOutcome",
    "BaselineRule",
    "BaselineSettings",
    "GateConfig",
    "GateResult",
    "Rule",
    "RuleOutcome",
    "baseline_keys",
    "default_gates_path",
    "evaluate",
    "gate_keys",
    "load_gates",
    "run_gate",
]
