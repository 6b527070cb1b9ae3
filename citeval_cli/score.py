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
    cascade = "cascade"


LlmShareOpt = Annotated[
    float | None,
    typer.Option("--llm-share", help="--judge cascade: the least confident share of units sent to the LLM "
                 "(default 0.2)."),
]
LlmBelowOpt = Annotated[
    float | None,
    typer.Option("--llm-below", help="--judge cascade: send every unit whose offline confidence is below "
                 "this instead."),
]


def _cascade(share: float | None, below: float | None) -> Any:
    """The cascade's settings from the options (--llm-below wins: it names no share)."""
    from evals.errors import UsageError
    from evals.score.judges.cascade import DEFAULT_SHARE, CascadeSettings

    if share is not None and below is not None:
        raise UsageError("give --llm-share or --llm-below, not both")
    for name, value in (("--llm-share", share), ("--llm-below", below)):
        if value is not None and not 0.0 <= value <= 1.0:
            raise UsageError(f"{name} must be between 0 and 1, got {value:g}")
    if below is not None:
        return CascadeSettings(share=None, below=below)
    return CascadeSettings(share=DEFAULT_SHARE if share is None else share)


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
    llm_share: LlmShareOpt = None,
    llm_below: LlmBelowOpt = None,
) -> None:
    """Check citations, judge support and compute metrics for a saved run (never re-runs the backend).

    --judge none runs the checks only: the metrics a judge decides are then null ("—") with the reason.
    --judge cascade judges offline, then sends the least confident units (--llm-share, default 0.2) to the LLM.

    Example: citeval score runs/demo --judge none
    """
    llm = llm_config(llm_model, llm_base_url, llm_provider, llm_key_env)
    cascade = _cascade(llm_share, llm_below) if judge is JudgeName.cascade else None
    with lock_wait(wait):
        result = evals.score_run(
            run_dir, judge=judge.value, llm=llm, ragas=ragas, workers=workers, parquet=parquet,
            config=settings_file(ctx), cascade=cascade,
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


PriceOpt = Annotated[
    str | None,
    typer.Option("--price", help="--plan: USD per million input,output tokens (default: the model's list price)."),
]


@handles_errors
def judge(
    pairs: Annotated[Path, typer.Argument(help="JSONL: {pair_id, claim, evidence: [..], question?, label?} a line.")],
    judge_name: Annotated[
        PairsJudgeName,
        typer.Option("--judge", help="Support judge: offline (default), llm, or cascade (offline, the least sure "
                     "to the llm)."),
    ] = PairsJudgeName.offline,
    llm_base_url: LlmUrlOpt = None,
    llm_model: LlmModelOpt = None,
    llm_provider: LlmProviderOpt = "openai",
    llm_key_env: LlmKeyOpt = None,
    cache: Annotated[Path | None, typer.Option(help="JSONL cache of LLM verdicts (re-runs cost nothing).")] = None,
    llm_share: LlmShareOpt = None,
    llm_below: LlmBelowOpt = None,
    plan: Annotated[
        bool, typer.Option("--plan", help="Judge offline only and say the LLM share (and cost) a --target needs.")
    ] = False,
    target: Annotated[float, typer.Option(help="--plan: the binary macro-F1 to reach on the labelled pairs.")] = 0.9,
    price: PriceOpt = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Judge (claim, evidence) pairs; stdout gets {pair_id, value, score, reason} lines (json) or a table.

    With a `label` on the pairs, agreement with those labels (accuracy, macro-F1, Cohen's κ) and the calibration
    of the score as P(supported) (ECE, a reliability table) go to stderr. --judge cascade names on every line
    the judge that decided (offline or llm:MODEL). --plan prints, for a --target macro-F1 on the labelled pairs,
    the share of pairs a cascade must send to the LLM and its cost.

    Example: citeval judge examples/pairs.jsonl
    Example: citeval judge examples/pairs.jsonl --format json
    Example: citeval judge examples/pairs.jsonl --plan --target 0.95
    """
    import json

    from evals.score.judges.pairs import judge_pairs_file

    if plan:
        _plan(pairs, target, price, llm_model, output)
        return
    wants_llm = judge_name is not PairsJudgeName.offline
    llm = llm_config(llm_model, llm_base_url, llm_provider, llm_key_env) if wants_llm else None
    cascade = _cascade(llm_share, llm_below) if judge_name is PairsJudgeName.cascade else None
    result = judge_pairs_file(pairs, judge_name.value, llm=llm, cache_path=cache, cascade=cascade)
    if output is OutputFormat.json:
        say(result.to_json_lines(), nl=False)  # DESIGN 7: a line a pair, not one document
        typer.echo(json.dumps(result.summary(), ensure_ascii=False), err=True)
    else:
        say(result.to_text(), nl=False)
        typer.echo(result.agreement_text() + result.usage_text(), err=True, nl=False)
    if result.all_failed:
        raise typer.Exit(3)  # the judge's service failed on every pair


def _plan(pairs: Path, target: float, price: str | None, model: str | None, output: OutputFormat) -> None:
    from evals.errors import UsageError
    from evals.score.judges.llm import DEFAULT_PRICES, price_for
    from evals.score.judges.offline import OfflineJudge
    from evals.score.judges.pairs import read_pairs
    from evals.score.judges.plan import plan_share

    if not 0.0 <= target <= 1.0:
        raise UsageError(f"--target must be between 0 and 1, got {target:g}")
    per_million: tuple[float, float] | None = None
    if price is not None:
        try:
            low, high = (float(p) for p in price.split(","))
        except ValueError:
            raise UsageError(f"--price takes two numbers: input,output USD per million tokens (got {price!r})") \
                from None
        if not (0 <= low < float("inf") and 0 <= high < float("inf")):
            raise UsageError(f"--price must be two finite non-negative numbers (got {price!r})")
        per_million = (low, high)
    elif model is not None:
        per_million = price_for(model, DEFAULT_PRICES)
    read = read_pairs(pairs)
    labels = [p.label for p in read]
    if not any(label is not None for label in labels):
        raise UsageError(f"{pairs}: --plan needs pairs with a label (none has one)")
    items = [p.to_input() for p in read]
    result = plan_share(items, OfflineJudge().judge(items), labels, target, per_million)
    emit(output, result.to_json, result.to_text, nl=False)
