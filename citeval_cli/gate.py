"""`citeval gate` (CI verdict on a scored run) and `citeval bundle` (a portable baseline)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from citeval_cli.common import FormatOpt, GatesOpt, OutputFormat, emit, handles_errors


@handles_errors
def gate(
    run_dir: Annotated[Path, typer.Argument(help="Scored run folder (scores.json).")],
    gates: GatesOpt = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML here: one testcase per rule.")] = None,
    summary: Annotated[
        Path | None, typer.Option("--summary", help="Write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY).")
    ] = None,
    baseline: Annotated[
        Path | None, typer.Option("--baseline", help="Baseline run folder or bundle for the \\[baseline] rules.")
    ] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Apply the per-tier gates to a scored run: exit 0 when every rule holds, 1 when one fails.

    With --baseline, the [baseline] rules compare the run with a baseline run folder or bundle.

    Example: citeval gate runs/demo --gates gates.toml --junit junit.xml
    Example: citeval gate runs/candidate --baseline baseline/run.tar.gz
    """
    from evals.gate.core import run_gate

    result = run_gate(run_dir, gates, baseline=baseline, junit=junit, summary=summary)
    emit(output, result.to_json, result.to_text)
    raise typer.Exit(result.exit_code)


@handles_errors
def bundle(
    run_dir: Annotated[Path, typer.Argument(help="Scored run folder.")],
    out: Annotated[Path, typer.Option("--out", help="Bundle to write, e.g. run.tar.gz.")],
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Pack a scored run into one portable .tar.gz (no secrets) for `citeval gate --baseline`.

    Example: citeval bundle runs/demo --out baseline/run.tar.gz
    """
    from evals.store.bundle import write_bundle

    result = write_bundle(run_dir, out)
    emit(output, result.to_json, result.to_text)
