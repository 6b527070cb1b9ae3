"""Gates on a run folder (DESIGN 7): absolute thresholds per risk tier and overall, and rules
against a baseline run; JUnit XML and a Markdown summary for CI.

The parts live beside this module: `config` reads the gates file, `absolute` applies
thresholds to scores.json, `baseline` compares two runs question by question, `result` holds
the verdict and its JUnit / Markdown forms. This module ties them to run folders.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from evals.gate.absolute import evaluate
from evals.gate.baseline import PairedRuns, evaluate_baseline, without_baseline
from evals.gate.config import (
    DEFAULT_GATES,
    FINDINGS_PREFIX,
    BaselineRule,
    BaselineSettings,
    GateConfig,
    Rule,
    baseline_keys,
    default_gates_path,
    gate_keys,
    load_gates,
)
from evals.gate.result import BaselineInfo, BaselineOutcome, GateResult, RuleOutcome, Status
from evals.gate.spec import COMPARE_MODES, DEFAULT_ALPHA, DEFAULT_MIN_SHARED
from evals.store.atomic import write_text
from evals.store.runfolder import RunFolder

if TYPE_CHECKING:
    from evals.gate.probe import ProbeGateResult

__all__ = [
    "COMPARE_MODES",
    "DEFAULT_ALPHA",
    "DEFAULT_GATES",
    "DEFAULT_MIN_SHARED",
    "FINDINGS_PREFIX",
    "BaselineInfo",
    "BaselineOutcome",
    "BaselineRule",
    "BaselineSettings",
    "GateConfig",
    "GateResult",
    "Rule",
    "RuleOutcome",
    "Status",
    "baseline_keys",
    "default_gates_path",
    "evaluate",
    "gate_keys",
    "load_gates",
    "run_gate",
    "run_gates_file",
]


def _write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text(path, text)


def _with_probe(result: GateResult, config: GateConfig, run_dir: Path) -> None:
    """A gates file's [probe] bounds judge the run's probe.json beside its score rules (a run
    `citeval probe` wrote); on another run they have nothing to judge, and a note says so."""
    if not config.has_probe:  # the common case: the probe stage is not even imported
        return
    from evals.gate.probe import probe_outcome
    from evals.probe.core import load_probe_gates  # the probe stage (runner, backends) only when needed

    probe_gates = load_probe_gates(config.path)
    if probe_gates.decorative_rate is None and not probe_gates.per_kind and probe_gates.citation_faithfulness is None:
        return
    result.probe = probe_outcome(run_dir, probe_gates)
    if result.probe is None:
        result.notes.append("the [probe] table judges a probe run's probe.json; this run has none")


def _against_baseline(result: GateResult, config: GateConfig, run_dir: Path, baseline: Path) -> None:
    """Pair the run with a baseline run folder or bundle and apply the baseline rules."""
    from evals.store.bundle import open_run

    rows = RunFolder(run_dir).per_question
    with open_run(baseline) as base_dir:
        base = RunFolder(base_dir).require_dir()
        base_id, base_rows = base.run_id, base.per_question  # read before the bundle's folder goes
    pairs = PairedRuns(baseline=base_rows, run=rows)
    result.baseline = pairs.info(base_id, str(baseline))
    result.baseline_outcomes = evaluate_baseline(config, pairs)
    if not config.baseline_rules:
        result.notes.append(f"a baseline was given but {config.path} has no [baseline] rule: nothing compared")


def run_gate(
    run_dir: Path | str,
    gates: Path | str | GateConfig | None = None,
    *,
    baseline: Path | str | None = None,
    junit: Path | str | None = None,
    summary: Path | str | None = None,
) -> GateResult:
    """Gate a scored run folder, against a baseline run (folder or bundle) when given; write
    JUnit XML and a Markdown summary where asked."""
    config = gates if isinstance(gates, GateConfig) else load_gates(gates)
    run = RunFolder(run_dir)
    result = evaluate(config, run.scores)
    _with_probe(result, config, run.path)
    if baseline is not None:
        _against_baseline(result, config, run.path, Path(baseline))
    else:
        result.baseline_outcomes = without_baseline(config)
    if junit is not None:
        _write_text_atomic(Path(junit), result.to_junit())
    if summary is not None:
        _write_text_atomic(Path(summary), result.to_markdown())
    return result


def run_gates_file(
    run_dir: Path | str,
    gates: Path | str | None = None,
    *,
    baseline: Path | str | None = None,
    junit: Path | str | None = None,
    summary: Path | str | None = None,
) -> GateResult | ProbeGateResult:
    """`citeval gate`: a gates file with only a [probe] table judges the probe run's probe.json;
    any other (or none: the shipped one) gates the run's scores."""
    from evals.gate.probe import gate_probe_run, is_probe_only_gates

    if gates is not None and is_probe_only_gates(gates):
        return gate_probe_run(run_dir, gates, baseline=baseline, junit=junit, summary=summary)
    return run_gate(run_dir, gates, baseline=baseline, junit=junit, summary=summary)
