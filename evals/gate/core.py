"""Gates on a run folder (DESIGN 7): absolute thresholds per risk tier and overall, and rules
against a baseline run; JUnit XML and a Markdown summary for CI.

The parts live beside this module: `config` reads the gates file, `absolute` applies
thresholds to scores.json, `baseline` compares two runs question by question, `probe_bounds`
applies the [probe] table to a probe run's probe.json, `result` holds the one verdict and its
JUnit / Markdown forms. This module ties them to run folders: `run_gate` gates with any file.
"""

from __future__ import annotations

from pathlib import Path

from evals.errors import DataError, UsageError
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
    load_probe_gates,
)
from evals.gate.probe_bounds import ProbeGates, probe_outcome
from evals.gate.result import BaselineInfo, BaselineOutcome, GateResult, RuleOutcome, Status
from evals.gate.spec import COMPARE_MODES, DEFAULT_ALPHA, DEFAULT_MIN_SHARED
from evals.store.atomic import write_text_atomic
from evals.store.runfolder import PROBE_JSON, RunFolder, recorded_run_id

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
    "ProbeGates",
    "Rule",
    "RuleOutcome",
    "Status",
    "baseline_keys",
    "default_gates_path",
    "evaluate",
    "gate_keys",
    "load_gates",
    "load_probe_gates",
    "run_gate",
]


def _write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)


def _with_probe(result: GateResult, config: GateConfig, run_dir: Path) -> None:
    """A gates file's [probe] bounds judge the run's probe.json beside its score rules (a run
    `citeval probe` wrote); on another run they have nothing to judge, and a note says so."""
    if not config.probe.has_bounds:
        return
    result.probe = probe_outcome(run_dir, config.probe)
    if result.probe is None:
        result.notes.append(f"the [probe] table judges a probe run's {PROBE_JSON}; this run has none")


def _probe_only(config: GateConfig, run_dir: Path, baseline: Path | str | None) -> GateResult:
    """A gates file with only a [probe] table: its bounds on the probe run's probe.json alone."""
    if baseline is not None:
        raise UsageError("a gates file with only a [probe] table has no baseline rules: drop --baseline")
    outcome = probe_outcome(run_dir, config.probe)
    if outcome is None:
        raise DataError(
            run_dir / PROBE_JSON, None,
            f"the gates file {config.path} holds only a [probe] table, which judges a probe run, and this run has "
            "no probe.json: run `citeval probe DATASET --backend SPEC --gates FILE`, or add rules under [overall], "
            "[tier.<risk tier>] or [baseline] to gate its scores",
        )
    return GateResult(gates_path=config.path, run_id=recorded_run_id(run_dir), probe=outcome, probe_only=True)


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
    """Gate a run folder with any gates file: its score rules on scores.json (and its baseline rules
    against a baseline run, folder or bundle, when given), its [probe] bounds on probe.json — a file
    with only a [probe] table judges a probe run's probe.json alone. Writes JUnit XML and a
    Markdown summary where asked."""
    config = gates if isinstance(gates, GateConfig) else load_gates(gates, allow_probe_only=True)
    run = RunFolder(run_dir)
    if config.probe_only:
        result = _probe_only(config, run.path, baseline)
    else:
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


