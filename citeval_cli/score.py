"""`citeval score`, `citeval selftest` and `citeval judge`: checks and judges over saved answers."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

import evals
from citeval_cli.common import (
    FormatOpt,
    JudgeName,
    JudgeOpt,
    LlmKeyOpt,
    LlmModelOpt,
    LlmProviderOpt,
    LlmUrlOpt,
    OutputFormat,
    RagasOpt,
    WaitOpt,
    emit,
    handles_errors,
    llm_config,
    lock_wait,
    say,
)
from citeval_cli.config import settings_file


class PairsJudgeName(str, Enum):
    """The judges `citeval judge` benchmarks (a pair always gets a verdict: no `none`)."""

    offline = "offline"
    llm = "llm"


def _require_judged(judge: str, scores: Any, ragas: bool) -> None:
    """Exit 3 when `--judge llm` or `--ragas` was asked and that service judged nothing."""
    from evals.outside import judge_failure

    failure = judge_failure(judge, scores, ragas=ragas)
    if failure is not None:
        raise failure


@handles_errors
def score(
    ctx: typer.Context,
    run_dir: Annotated[Path, typer.Argument(help="Run folder (runs/<run_id>).")],
    judge: JudgeOpt = JudgeName.offline,
    llm_base_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    llm_provider: LlmProviderOpt = "openai",
    llm_key_env: LlmKeyOpt = None,
    ragas: RagasOpt = False,
    output: FormatOpt = OutputFormat.text,
    workers: Annotated[
        int | None, typer.Option(help="Processes scoring shards in parallel (default: the cores available).")
    ] = None,
    parquet: Annotated[
        bool,
        typer.Option("--parquet/--no-parquet", help="Also write per_question.parquet (typed columns)."),
    ] = False,
    wait: WaitOpt = 0.0,
) -> None:
    """Check citations, judge support and compute metrics for a saved run (never re-runs the backend).

    --judge none runs the checks only: the metrics a judge decides are then null ("—") with the reason.

    Example: citeval score runs/demo --judge none
    """
    llm = llm_config(llm_model, llm_base_url, llm_provider, llm_key_env)
    with lock_wait(wait):
        result = evals.score_run(
            run_dir, judge=judge.value, llm=llm, ragas=ragas, workers=workers, parquet=parquet,
            config=settings_file(ctx),
        )
    emit(output, result.scores.to_json, result.to_text)
    _require_judged(judge.value, result.scores, ragas)


@handles_errors
def selftest(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Inject every fault kind into reference answers; exit 1 unless each is caught and nothing else alarms.

    Example: citeval selftest datasets/demo
    """
    from evals.score.selftest import run_selftest

    report = run_selftest(dataset)
    emit(output, report.to_json, report.to_markdown, nl=True)
    if not report.ok:
        raise typer.Exit(1)


@handles_errors
def judge(
    pairs: Annotated[Path, typer.Argument(help="JSONL: {pair_id, claim, evidence: [..], question?, label?} a line.")],
    judge_name: Annotated[
        PairsJudgeName, typer.Option("--judge", help="Support judge: offline (default) or llm.")
    ] = PairsJudgeName.offline,
    llm_base_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    llm_provider: LlmProviderOpt = "openai",
    llm_key_env: LlmKeyOpt = None,
    cache: Annotated[Path | None, typer.Option(help="JSONL cache of LLM verdicts (re-runs cost nothing).")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Judge (claim, evidence) pairs; stdout gets {pair_id, value, score, reason} lines (json) or a table.

    With a `label` on the pairs, agreement with those labels (accuracy, macro-F1, Cohen's κ) goes to stderr.

    Example: citeval judge examples/pairs.jsonl
    Example: citeval judge examples/pairs.jsonl --format json
    """
    import json

    from evals.score.judges.pairs import judge_pairs_file

    llm = llm_config(llm_model, llm_base_url, llm_provider, llm_key_env) if judge_name is PairsJudgeName.llm else None
    result = judge_pairs_file(pairs, judge_name.value, llm=llm, cache_path=cache)
    if output is OutputFormat.json:
        say(result.to_json_lines(), nl=False)  # DESIGN 7: a line a pair, not one document
        typer.echo(json.dumps(result.summary(), ensure_ascii=False), err=True)
    else:
        say(result.to_text(), nl=False)
        typer.echo(result.agreement_text(), err=True, nl=False)
    if result.all_failed:
        raise typer.Exit(3)  # the judge's service failed on every pair
