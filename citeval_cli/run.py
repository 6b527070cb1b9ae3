"""`citeval run`, `citeval probe` and `citeval eval`: the commands that ask the backend."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

import evals
from citeval_cli.common import (
    BackendOpt,
    ConcurrencyOpt,
    FormatOpt,
    GatesOpt,
    JudgeName,
    JudgeOpt,
    LabelOpt,
    LimitOpt,
    LlmKeyOpt,
    LlmModelOpt,
    LlmProviderOpt,
    LlmUrlOpt,
    OutOpt,
    OutputFormat,
    PricesOpt,
    ProgressBar,
    RagasOpt,
    RefusalPatternsOpt,
    ResumableBackendOpt,
    RetriesOpt,
    RunIdOpt,
    TimeoutOpt,
    WaitOpt,
    emit,
    handles_errors,
    llm_config,
    lock_wait,
)
from citeval_cli.config import from_command_line, settings_file


@handles_errors
def run(
    ctx: typer.Context,
    dataset: Annotated[Path | None, typer.Argument(help="Dataset folder.")] = None,
    backend: ResumableBackendOpt = None,
    out: OutOpt = Path("runs"),
    run_id: RunIdOpt = None,
    label: LabelOpt = None,
    concurrency: ConcurrencyOpt = 8,
    limit: LimitOpt = None,
    timeout: TimeoutOpt = 60.0,
    retries: RetriesOpt = 2,
    resume: Annotated[Path | None, typer.Option(help="Continue this run folder.")] = None,
    prices: PricesOpt = None,
    refusal_patterns: RefusalPatternsOpt = None,
    output: FormatOpt = OutputFormat.text,
    wait: WaitOpt = 0.0,
    retry_errors: Annotated[
        bool, typer.Option("--retry-errors", help="With --resume: ask again the questions whose answer is an error.")
    ] = False,
) -> None:
    """Replay a dataset's questions through a backend into runs/<run_id>/.

    Each answer is appended as it arrives; --resume RUN_DIR asks only what is missing. Exit 3 when the backend
    failed on every question.

    Example: citeval run datasets/demo --backend http:http://localhost:8000/answer
    Example: citeval run --resume runs/20240501T120000Z-http
    """
    options = evals.RunOptions(
        concurrency=concurrency, limit=limit, timeout=timeout, retries=retries, label=label, prices=prices,
        refusal_patterns=refusal_patterns, config=settings_file(ctx),
    )
    with ProgressBar() as progress, lock_wait(wait):
        if resume is not None:  # the run's own backend and files, unless the command line names them
            result = evals.resume_run(
                resume, backend_spec=from_command_line(ctx, "backend", backend), on_progress=progress,
                prices=from_command_line(ctx, "prices", prices),
                refusal_patterns=from_command_line(ctx, "refusal_patterns", refusal_patterns),
                retry_errors=retry_errors,
            )
        elif dataset is None:
            raise evals.UsageError("give a DATASET (or --resume RUN_DIR)")
        elif retry_errors:
            raise evals.UsageError("--retry-errors goes with --resume RUN_DIR")
        else:
            result = evals.start_run(
                dataset, backend or "reference", out=out, run_id=run_id, options=options, on_progress=progress
            )
    emit(output, result.to_json, result.to_text)
    _require_backend_answered(result)


def _require_backend_answered(result: Any) -> None:
    """Exit 3 when the backend failed on every question (DESIGN 7)."""
    from evals.outside import backend_failure

    failure = backend_failure(result.run_dir, result.total, result.errors)
    if failure is not None:
        raise failure


@handles_errors
def probe(
    ctx: typer.Context,
    dataset: Annotated[Path | None, typer.Argument(help="Dataset folder to generate probe questions from.")] = None,
    backend: ResumableBackendOpt = None,
    kinds: Annotated[
        str | None, typer.Option(help="Comma-separated kinds (default: all; see README 'Running the management test').")
    ] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most N questions of each kind.")] = None,
    out: OutOpt = Path("runs"),
    run_id: RunIdOpt = None,
    label: LabelOpt = None,
    concurrency: ConcurrencyOpt = 8,
    timeout: TimeoutOpt = 60.0,
    retries: RetriesOpt = 2,
    gates: GatesOpt = None,
    resume: Annotated[Path | None, typer.Option(help="Finish this interrupted probe run folder.")] = None,
    prices: PricesOpt = None,
    refusal_patterns: RefusalPatternsOpt = None,
    output: FormatOpt = OutputFormat.text,
    wait: WaitOpt = 0.0,
) -> None:
    """Ask the system generated probe questions: can its citations be believed?

    Exit 1 when a kind's decorative rate is above the gates file's [probe] bound, 3 when the backend failed
    (DESIGN 10).

    Example: citeval probe datasets/demo --kinds revoked_edition --limit 5
    """
    from evals.probe.core import resume_probe, run_probe
    from evals.probe.render import probe_text

    options = evals.RunOptions(
        concurrency=concurrency, timeout=timeout, retries=retries, label=label, prices=prices,
        refusal_patterns=refusal_patterns, config=settings_file(ctx),
    )
    with ProgressBar() as progress, lock_wait(wait):
        if resume is not None:  # the run's own backend and files, unless the command line names them
            result = resume_probe(
                resume, backend_spec=from_command_line(ctx, "backend", backend), gates=gates, on_progress=progress,
                prices=from_command_line(ctx, "prices", prices),
                refusal_patterns=from_command_line(ctx, "refusal_patterns", refusal_patterns),
            )
        elif dataset is None:
            raise evals.UsageError("give a DATASET (or --resume RUN_DIR)")
        else:
            result = run_probe(
                dataset, backend or "reference", kinds=kinds, limit=limit, out=out, run_id=run_id, options=options,
                gates=gates, on_progress=progress,
            )
    emit(output, lambda: result.document, lambda: probe_text(result))
    if result.errors:
        typer.echo(f"error: the backend failed on {result.errors} probe question(s); see {result.run_dir}", err=True)
    raise typer.Exit(result.exit_code)


@handles_errors
def eval_(
    ctx: typer.Context,
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    backend: BackendOpt = "reference",
    out: OutOpt = Path("runs"),
    run_id: RunIdOpt = None,
    label: LabelOpt = None,
    judge: JudgeOpt = JudgeName.offline,
    llm_base_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    llm_provider: LlmProviderOpt = "openai",
    llm_key_env: LlmKeyOpt = None,
    ragas: RagasOpt = False,
    concurrency: ConcurrencyOpt = 8,
    limit: LimitOpt = None,
    timeout: TimeoutOpt = 60.0,
    retries: RetriesOpt = 2,
    gates: GatesOpt = None,
    report_out: Annotated[
        Path | None, typer.Option("--report-out", help="HTML report to write (default: reports/<run_id>.html).")
    ] = None,
    prices: PricesOpt = None,
    refusal_patterns: RefusalPatternsOpt = None,
    output: FormatOpt = OutputFormat.text,
    wait: WaitOpt = 0.0,
) -> None:
    """Run + score + gate + report: the one command for CI and first use; exits with the gate's code.

    DATASET and every option may come from ./citeval.toml ([run], [score], [gate], [report], [eval]).

    Example: citeval eval datasets/demo --judge none --report-out demo.html
    Example: citeval eval datasets/demo --backend python:bot:answer
    """
    from evals.evaluate import evaluate

    options = evals.RunOptions(
        concurrency=concurrency, limit=limit, timeout=timeout, retries=retries, label=label, prices=prices,
        refusal_patterns=refusal_patterns, config=settings_file(ctx),
    )
    llm = llm_config(llm_model, llm_base_url, llm_provider, llm_key_env)
    with ProgressBar() as progress, lock_wait(wait):
        result = evaluate(
            dataset, backend, gates=gates, report=report_out, out=out, run_id=run_id, options=options,
            judge=judge.value, llm=llm, ragas=ragas, on_progress=progress,
        )
    emit(output, result.to_json, result.to_text)
    raise typer.Exit(result.exit_code)
