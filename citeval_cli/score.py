"""`citeval score`, `citeval selftest` and `citeval judge`: checks and judges over saved answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

import evals
from citeval_cli.common import (
    FormatOpt,
    JudgeOpt,
    LlmKeyOpt,
    LlmModelOpt,
    LlmProviderOpt,
    LlmUrlOpt,
    OutputFormat,
    RagasOpt,
    emit,
    handles_errors,
    llm_config,
)


def _require_judged(judge: str, scores: Any, ragas: bool) -> None:
    """Exit 3 when `--judge llm` or `--ragas` was asked and that service judged nothing."""
    from evals.outside import judge_failure

    failure = judge_failure(judge, scores, ragas=ragas)
    if failure is not None:
        raise failure


@handles_errors
def score(
    run_dir: Annotated[Path, typer.Argument(help="Run folder (runs/<run_id>).")],
    judge: JudgeOpt = "offline",
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
) -> None:
    """Check citations, judge support and compute metrics for a saved run (never re-runs the backend)."""
    llm = llm_config(llm_model, llm_base_url, llm_provider, llm_key_env)
    result = evals.score_run(run_dir, judge=judge, llm=llm, ragas=ragas, workers=workers, parquet=parquet)
    emit(output, result.scores.to_json, result.to_text)
    _require_judged(judge, result.scores, ragas)


@handles_errors
def selftest(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Inject every fault kind into reference answers; exit 1 unless each is caught and nothing else alarms."""
    from evals.score.selftest import run_selftest

    report = run_selftest(dataset)
    emit(output, report.to_json, report.to_markdown, nl=True)
    if not report.ok:
        raise typer.Exit(1)



@handles_errors
def judge(
    pairs: Annotated[Path, typer.Argument(help="JSONL: {pair_id, claim, evidence: [..], question?, label?} a line.")],
    judge_name: Annotated[str, typer.Option("--judge", help="offline (default) or llm.")] = "offline",
    llm_base_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    llm_provider: LlmProviderOpt = "openai",
    llm_key_env: LlmKeyOpt = None,
    cache: Annotated[Path | None, typer.Option(help="JSONL cache of LLM verdicts (re-runs cost nothing).")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Judge (claim, evidence) pairs; stdout gets {pair_id, value, score, reason} lines (json) or a table.

    With a `label` on the pairs, agreement with those labels (accuracy, macro-F1, Cohen's κ) goes to stderr.
    """
    from evals.score import judges

    items = judges.read_pairs(pairs)
    config = llm_config(llm_model, llm_base_url, llm_provider, llm_key_env) if judge_name == "llm" else None
    support_judge = judges.make_judge(judge_name, llm=config, cache_path=cache)
    results = judges.judge_pairs(items, support_judge)
    for line in judges.pair_lines(items, results):
        if output is OutputFormat.json:
            typer.echo(json.dumps(line, ensure_ascii=False))
        else:
            score_text = "-" if line["score"] is None else f"{line['score']:.2f}"
            typer.echo(f"{line['pair_id']}\t{line['value']}\t{score_text}\t{line['reason']}")
    summary: dict[str, Any] = {"pairs": len(items), "failed": sum(r.error is not None for r in results)}
    agreement = judges.pair_agreement(items, results)
    if agreement is not None:
        summary["agreement"] = agreement
    if isinstance(support_judge, judges.LlmJudge):
        summary["usage"] = support_judge.usage.to_json()
    if output is OutputFormat.json:
        typer.echo(json.dumps(summary, ensure_ascii=False), err=True)
    elif agreement is not None:
        for view in ("labels", "binary"):
            stats = agreement[view]
            typer.echo(f"agreement ({view}, n={stats['n']}): " + ", ".join(
                f"{k} {'n/a' if stats[k]['value'] is None else format(stats[k]['value'], '.3f')}"
                for k in ("accuracy", "macro_f1", "cohen_kappa")), err=True)
    if items and summary["failed"] == len(items):
        raise typer.Exit(3)  # the judge's service failed on every pair
