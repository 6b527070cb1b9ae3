"""`citeval eval`: run + score + gate + report in one call, the entry point for CI and first use.

    evals.evaluate("datasets/demo")                       # reference backend, default gates
    evals.evaluate(ds, backend="http://localhost:8000/answer", gates="gates.toml", report="r.html")
    evals.evaluate(ds, backend=my_answer_function)         # a callable taking the request payload

The gates file is read before the backend runs, so a bad gates file costs no backend call.
The run folder gets junit.xml, and scores.json's provenance the gates file and its sha256
(recorded by the scoring, so scores.json is written once).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evals.outside import backend_failure, judge_failure
from evals.run.backends import BackendSpec
from evals.run.runner import ProgressCallback, RunOptions, RunResult, start_run
from evals.score.scoring import ScoreResult, score_run
from evals.stats.bootstrap import SEED
from evals.store.lock import folder_lock
from evals.store.runfolder import JUNIT

if TYPE_CHECKING:
    from evals.gate.core import GateConfig, GateResult
    from evals.report.render import ReportResult
    from evals.score.judges.base import SupportJudge
    from evals.score.judges.llm import LlmConfig


@dataclass
class EvalResult:
    run: RunResult
    scored: ScoreResult
    gate: GateResult
    report: ReportResult | None

    @property
    def run_dir(self) -> Path:
        return self.run.run_dir

    @property
    def exit_code(self) -> int:
        """The gate's: 0 every rule holds, 1 one failed."""
        return self.gate.exit_code

    def to_json(self) -> dict[str, Any]:
        """`citeval eval --format json`: the run, its scores, the gate's verdict and the report's path."""
        return {
            "run": self.run.to_json(),
            "scores": self.scored.scores.to_json(),
            "gate": self.gate.to_json(),
            "report": None if self.report is None else str(self.report.path),
            "exit_code": self.exit_code,
        }

    def to_text(self) -> str:
        """What `citeval eval` prints: the run line, the metrics table, the gate, the report path."""
        parts = [
            self.run.to_text(),
            self.scored.to_text(),
            self.gate.to_text(),
        ]
        if self.report is not None:
            parts.append(f"report: {self.report.path}\n")
        return "".join(parts)


def evaluate(
    dataset: Path | str,
    backend: BackendSpec = "reference",
    *,
    gates: Path | str | GateConfig | None = None,
    report: Path | str | bool | None = None,
    out: Path | str = "runs",
    run_id: str | None = None,
    options: RunOptions | None = None,
    judge: SupportJudge | str | None = "offline",
    llm: LlmConfig | None = None,
    ragas: bool = False,
    seed: int = SEED,
    on_progress: ProgressCallback | None = None,
) -> EvalResult:
    """Answer every question of DATASET with BACKEND, score the run, gate it and render its report.

    backend: a SPEC string (DESIGN 7), a backend object, or a callable taking the request payload.
    gates: a gates file, a loaded GateConfig, or None for the default that ships.
    report: the HTML file to write (None: reports/<run_id>.html; False: no report).
    """
    from evals.gate.core import GateConfig, load_gates, run_gate

    config = gates if isinstance(gates, GateConfig) else load_gates(gates)  # fail before the backend runs
    run = start_run(dataset, backend, out=out, run_id=run_id, options=options, on_progress=on_progress)
    failed = backend_failure(run.run_dir, run.total, run.errors)  # every question failed: exit 3, not a gate
    if failed is not None:
        raise failed
    with folder_lock(run.run_dir, "citeval eval"):  # the run folder's one writer until its junit.xml is written
        scored = score_run(run.run_dir, judge=judge, llm=llm, ragas=ragas, seed=seed, gates=config.path,
                           config=options.config if options is not None else None)
        judge_name = judge if isinstance(judge, str) or judge is None else judge.name
        failed = judge_failure(judge_name or "none", scored.scores, ragas=ragas)
        if failed is not None:
            raise failed
        gate = run_gate(run.run_dir, config, junit=run.run_dir / JUNIT)
    rendered = None
    if report is not False:
        from evals.report.render import render_report

        target = None if report is None or report is True else report
        rendered = render_report([run.run_dir], target, gates=config)
    return EvalResult(run, scored, gate, rendered)
