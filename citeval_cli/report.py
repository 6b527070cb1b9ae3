"""`citeval report` (HTML, weekly) and `citeval compare` (B against A)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import evals
from citeval_cli.common import FormatOpt, GatesOpt, OutputFormat, emit, handles_errors, note


@handles_errors
def report(
    run_dirs: Annotated[
        list[Path] | None, typer.Argument(help="Scored run folders; with two or more, each is compared.")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="HTML file (default: reports/<run_id>.html, weekly reports/YYYY-Www.html)."),
    ] = None,
    weekly: Annotated[
        Path | None, typer.Option("--weekly", help="RUNS_ROOT: report on its runs of the last --since, by label.")
    ] = None,
    since: Annotated[str, typer.Option(help="With --weekly: 7d, 36h, 2w or an ISO date.")] = "7d",
    gates: GatesOpt = None,
    baseline: Annotated[
        str | None, typer.Option(help="Run id or label the others are compared with (default: the oldest run).")
    ] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """One self-contained HTML report (gate, tiers, findings, worst questions); several runs are compared.

    Example: citeval report runs/demo --out reports/demo.html
    Example: citeval report --weekly runs --since 7d
    """
    from evals.report.render import render_report, render_weekly

    if weekly is not None:
        if run_dirs:
            raise evals.UsageError("give RUN_DIRs or --weekly RUNS_ROOT, not both")
        result = render_weekly(weekly, out, since=since, gates=gates, baseline=baseline)
    elif not run_dirs:
        raise evals.UsageError("give at least one RUN_DIR (or --weekly RUNS_ROOT)")
    else:
        result = render_report(run_dirs, out, gates=gates, baseline=baseline)
    note(result.notes, "note: ")
    emit(output, result.to_json, result.to_text)


@handles_errors
def compare(
    run_a: Annotated[Path, typer.Argument(help="Scored run folder A (the baseline).")],
    run_b: Annotated[Path, typer.Argument(help="Scored run folder B (the candidate).")],
    output: FormatOpt = OutputFormat.text,
    limit: Annotated[int, typer.Option(help="Show at most this many flipped questions per direction.")] = 20,
) -> None:
    """B against A over their shared questions: metric deltas with paired significance, flipped questions.

    Example: citeval compare runs/main runs/candidate
    """
    from evals.report.compare import compare_runs
    from evals.report.load import load_run

    result = compare_runs(load_run(run_a), load_run(run_b))
    emit(output, result.to_json, lambda: result.to_text(limit=limit))
