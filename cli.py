"""citeval's command line: thin typer commands over the evals library.

Each command parses its options, makes one library call, and turns citeval's own
exceptions into a one-line message and an exit code (DESIGN 7: 0 ok, 1 gate failed,
2 bad input, 3 backend or service failure).
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

import evals
from evals.errors import CitevalError

app = typer.Typer(
    name="citeval",
    help="Evaluate whether a RAG system's citations can be checked by a person.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
data_app = typer.Typer(help="Check and build datasets.", no_args_is_help=True)
app.add_typer(data_app, name="data")
label_app = typer.Typer(help="Review rounds in Label Studio: push answers, pull labels.", no_args_is_help=True)
app.add_typer(label_app, name="label")

F = TypeVar("F", bound=Callable[..., Any])


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


# Options shared by several commands.
FormatOpt = Annotated[OutputFormat, typer.Option("--format", help="text or json.")]
BackendOpt = Annotated[str, typer.Option(help="reference, replay:PATH, http:URL, python:mod:fn, faults:KIND:SPEC.")]
OutOpt = Annotated[Path, typer.Option(help="Folder that holds run folders.")]
RunIdOpt = Annotated[str | None, typer.Option(help="Name of the run folder (default: time + backend).")]
LabelOpt = Annotated[str | None, typer.Option(help="Variant label, to group runs in reports.")]
ConcurrencyOpt = Annotated[int, typer.Option(min=1, help="Questions in flight at once.")]
LimitOpt = Annotated[int | None, typer.Option(min=1, help="Only the first N questions.")]
TimeoutOpt = Annotated[float, typer.Option(min=0.1, help="Seconds per backend request.")]
RetriesOpt = Annotated[int, typer.Option(min=0, help="Retries of a failed request (http).")]
JudgeOpt = Annotated[str, typer.Option("--judge", help="Support judge: offline, llm or none.")]
LlmUrlOpt = Annotated[str | None, typer.Option(help="OpenAI-compatible base URL (…/v1), or Anthropic's.")]
LlmModelOpt = Annotated[str | None, typer.Option(help="Model for --judge llm and --ragas.")]
LlmProviderOpt = Annotated[str, typer.Option(help="openai (any compatible endpoint) or anthropic.")]
LlmKeyOpt = Annotated[str | None, typer.Option(help="Environment variable holding the API key.")]
RagasOpt = Annotated[bool, typer.Option("--ragas", help="Add Ragas faithfulness (needs --llm-model).")]


GatesOpt = Annotated[
    Path | None, typer.Option("--gates", help="Gates TOML (default: the shipped gates/default.toml).")
]




def _fail(message: str, code: int) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def handles_errors(func: F) -> F:
    """Turn citeval's exceptions into `error: …` on stderr and the exit code they carry."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except CitevalError as exc:
            _fail(str(exc), exc.exit_code)
        except KeyboardInterrupt:
            _fail("interrupted", 130)

    return wrapper  # type: ignore[return-value]


class _Progress:
    """A rich progress bar on a terminal; a plain line per tenth of the work in CI or a pipe."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._task: Any = None
        self._next_plain = 0.0

    def __enter__(self) -> _Progress:
        if sys.stderr.isatty() and not os.environ.get("CI"):
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                TextColumn("answering"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TextColumn("{task.fields[errors]}"),
                TimeElapsedColumn(),
                transient=True,
            )
            self._bar.start()
        return self

    def __call__(self, p: evals.RunProgress) -> None:
        rate, errors = f"{p.rate:.1f}/s", f"errors {p.errors}"
        if self._bar is not None:
            if self._task is None:
                self._task = self._bar.add_task("run", total=p.total, rate=rate, errors=errors)
            self._bar.update(self._task, completed=p.done, rate=rate, errors=errors)
        elif p.done and (p.done >= self._next_plain or p.done == p.total):
            typer.echo(f"answered {p.done}/{p.total}  {rate}  {errors}", err=True)
            self._next_plain = p.done + max(1, p.total // 10)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def _print_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"citeval {evals.__version__}")
        raise typer.Exit(0)


@data_app.command("validate")
@handles_errors
def data_validate(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder (registry/ and questions.jsonl).")],
    output: FormatOpt = OutputFormat.text,
    limit: Annotated[int, typer.Option(help="Show at most this many problems.")] = 50,
) -> None:
    """Check a dataset's schema and references without running any model."""
    report = evals.validate_dataset(dataset)
    if output is OutputFormat.json:
        _print_json(report.to_json(limit=limit))
    elif report.ok:
        typer.echo(report.summary())
    else:
        for problem in report.problems[:limit]:
            typer.echo(str(problem), err=True)
        hidden = len(report.problems) - limit
        if hidden > 0:
            typer.echo(f"… and {hidden} more problem(s)", err=True)
        typer.echo(f"{dataset}: {len(report.problems)} problem(s)", err=True)
    if not report.ok:
        raise typer.Exit(2)


@data_app.command("ingest")
@handles_errors
def data_ingest(
    sources: Annotated[Path, typer.Argument(help="Folder with manifest.toml and Markdown editions.")],
    out: Annotated[Path, typer.Option("--out", help="Registry folder to write, e.g. DATASET/registry.")],
) -> None:
    """Build a registry (documents, editions, chunks, texts) from Markdown sources."""
    result = evals.ingest(sources, out)
    typer.echo(f"{result.out}: {result.documents} documents, {result.editions} editions, {result.chunks} chunks")


@app.command("run")
@handles_errors
def run(
    dataset: Annotated[Path | None, typer.Argument(help="Dataset folder.")] = None,
    backend: Annotated[
        str | None, typer.Option(help="Backend SPEC (default: reference; with --resume: the run's own).")
    ] = None,
    out: OutOpt = Path("runs"),
    run_id: RunIdOpt = None,
    label: LabelOpt = None,
    concurrency: ConcurrencyOpt = 8,
    limit: LimitOpt = None,
    timeout: TimeoutOpt = 60.0,
    retries: RetriesOpt = 2,
    resume: Annotated[Path | None, typer.Option(help="Continue this run folder.")] = None,
) -> None:
    """Replay a dataset's questions through a backend into runs/<run_id>/."""
    options = evals.RunOptions(concurrency=concurrency, limit=limit, timeout=timeout, retries=retries, label=label)
    with _Progress() as progress:
        if resume is not None:
            result = evals.resume_run(resume, backend_spec=backend, on_progress=progress)
        elif dataset is None:
            raise evals.UsageError("give a DATASET (or --resume RUN_DIR)")
        else:
            result = evals.start_run(
                dataset, backend or "reference", out=out, run_id=run_id, options=options, on_progress=progress
            )
    typer.echo(f"{result.run_dir}: {result.answered}/{result.total} answered, {result.errors} error(s)")


def _metrics_table(scores: dict[str, Any], title: str) -> None:
    """Metrics as rows, overall and per risk tier as columns: value [95 % CI]."""
    from rich.console import Console
    from rich.table import Table

    tiers = [t for t in ("critical", "policy", "reference") if t in scores.get("by_tier", {})]
    table = Table(title=title)
    table.add_column("metric")
    table.add_column(f"all (n={scores['n_questions']})", justify="right")
    for tier in tiers:
        table.add_column(f"{tier} (n={scores['by_tier'][tier]['n']})", justify="right")

    def cell(m: dict[str, Any]) -> str:
        if m["value"] is None:
            return "—"
        ci = f" [{m['ci'][0]:.2f}, {m['ci'][1]:.2f}]" if m.get("ci") else ""
        return f"{m['value']:.3f}{ci}"

    for name, m in scores["metrics"].items():
        table.add_row(name, cell(m), *(cell(scores["by_tier"][t]["metrics"][name]) for t in tiers))
    Console(width=max(120, Console().width)).print(table)
    missing = {name: m["reason"] for name, m in scores["metrics"].items() if m["value"] is None and m.get("reason")}
    for name, reason in missing.items():
        typer.echo(f"  {name}: {reason}")
    if scores.get("findings"):
        typer.echo("findings: " + ", ".join(f"{code} {n}" for code, n in scores["findings"].items()))


def _llm(model: str | None, base_url: str | None, provider: str, key_env: str | None) -> Any:
    from evals.judges import LlmConfig

    if not model:
        return None
    return LlmConfig(model=model, provider=provider, base_url=base_url, api_key_env=key_env)  # type: ignore[arg-type]


@app.command("score")
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
) -> None:
    """Check citations, judge support and compute metrics for a saved run (never re-runs the backend)."""
    llm = _llm(llm_model, llm_base_url, llm_provider, llm_key_env)
    result = evals.score_run(run_dir, judge=judge, llm=llm, ragas=ragas)
    if output is OutputFormat.json:
        _print_json(result.scores)
    else:
        _metrics_table(result.scores, f"{result.run_dir}")


@app.command("selftest")
@handles_errors
def selftest(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Inject every fault kind into reference answers; exit 1 unless each is caught and nothing else alarms."""
    from evals.selftest import run_selftest

    report = run_selftest(dataset)
    if output is OutputFormat.json:
        _print_json(report.to_json())
    else:
        typer.echo(report.to_markdown())
    if not report.ok:
        raise typer.Exit(1)


@app.command("eval")
@handles_errors
def eval_(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    backend: BackendOpt = "reference",
    out: OutOpt = Path("runs"),
    run_id: RunIdOpt = None,
    label: LabelOpt = None,
    judge: JudgeOpt = "offline",
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
) -> None:
    """Run + score + gate + report: the one command for CI and first use; exits with the gate's code."""
    from evals.gates import load_gates

    gate_config = load_gates(gates)  # a bad gates file stops before the backend runs
    options = evals.RunOptions(concurrency=concurrency, limit=limit, timeout=timeout, retries=retries, label=label)
    with _Progress() as progress:
        result = evals.start_run(dataset, backend, out=out, run_id=run_id, options=options, on_progress=progress)
    typer.echo(f"{result.run_dir}: {result.answered}/{result.total} answered, {result.errors} error(s)")
    llm = _llm(llm_model, llm_base_url, llm_provider, llm_key_env)
    scored = evals.score_run(result.run_dir, judge=judge, llm=llm, ragas=ragas)
    _metrics_table(scored.scores, str(result.run_dir))
    _gate_and_report(result.run_dir, gate_config, report_out)


@app.command("agree")
@handles_errors
def agree(
    target: Annotated[Path, typer.Argument(help="Run folder (with judgments.jsonl) or a judgments .jsonl file.")],
    output: FormatOpt = OutputFormat.text,
    out: Annotated[Path | None, typer.Option("--out", help="Also write agreement.json to this file.")] = None,
    adjudicate: Annotated[
        Path | None, typer.Option("--adjudicate", help="JSONL of resolved labels to append as source 'adjudicated'.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = 2000,
    limit: Annotated[int, typer.Option(help="Show at most this many disagreements per field.")] = 20,
) -> None:
    """Inter-rater agreement of the human raters per field; writes agreement.json into a run."""
    from evals.agreement import agree as compute  # numpy/krippendorff load only for this command

    result = compute(target, out=out, adjudicate_file=adjudicate, seed=seed, n_resamples=resamples)
    if output is OutputFormat.json:
        _print_json(result.to_json())
    else:
        typer.echo(result.to_text(limit=limit), nl=False)


@app.command("judge")
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
    from evals import judges

    items = judges.read_pairs(pairs)
    config = None
    if judge_name == "llm" and llm_model:
        config = judges.LlmConfig(model=llm_model, provider=llm_provider, base_url=llm_base_url,  # type: ignore[arg-type]
                                  api_key_env=llm_key_env)
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


class LabelLang(str, Enum):
    ru = "ru"
    en = "en"


@label_app.command("push")
@handles_errors
def label_push(
    run_dir: Annotated[Path, typer.Argument(help="Run folder (manifest.json, answers.jsonl).")],
    project: Annotated[str | None, typer.Option("--project", help="Label Studio project title (exact).")] = None,
    predictions: Annotated[
        bool, typer.Option("--predictions", help="Show auto-judge labels to raters as predictions (default: blind).")
    ] = False,
    to_file: Annotated[
        Path | None, typer.Option("--to-file", help="Write Label Studio import JSON here instead of using a server.")
    ] = None,
    lang: Annotated[LabelLang, typer.Option("--lang", help="Language of the labelling interface.")] = LabelLang.ru,
    batch_size: Annotated[int, typer.Option(help="Tasks per import request.")] = 250,
) -> None:
    """Create or update the review project: one task per answer, no duplicates (LABEL_STUDIO_URL / _API_KEY)."""
    from evals import labels

    if to_file is not None:
        count = labels.write_tasks_file(run_dir, to_file, predictions=predictions, lang=lang.value)
        typer.echo(f"{to_file}: {count} task(s) in Label Studio import format")
        return
    if not project:
        raise evals.UsageError("give --project TITLE (or --to-file tasks.json)")
    result = labels.push(run_dir, project, predictions=predictions, lang=lang.value, batch_size=batch_size)
    typer.echo(result.summary())


@label_app.command("pull")
@handles_errors
def label_pull(
    run_dir: Annotated[Path, typer.Argument(help="Run folder; judgments.jsonl gains human:<rater> rows.")],
    project: Annotated[str | None, typer.Option("--project", help="Label Studio project title (exact).")] = None,
    from_file: Annotated[
        Path | None, typer.Option("--from-file", help="Read a Label Studio JSON export instead of the server.")
    ] = None,
    rater: Annotated[
        list[str] | None, typer.Option("--rater", help="ID=EMAIL for an export that names raters by user id.")
    ] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Append the raters' labels as judgments; report per rater what is done and still missing."""
    from evals import labels

    raters: dict[int, str] = {}
    for item in rater or []:
        user_id, _, email = item.partition("=")
        if not user_id.strip().isdigit() or not email.strip():
            raise evals.UsageError(f"--rater must be ID=EMAIL, got {item!r}")
        raters[int(user_id)] = email.strip()
    report = labels.pull(run_dir, project, from_file=from_file, raters=raters)
    if output is OutputFormat.json:
        _print_json(report.to_json())
    else:
        typer.echo(report.summary())


# --- gate, report, compare (DESIGN 7) ------------------------------------------------------

def _gate_and_report(run_dir: Path, gate_config: Any, report_out: Path | None) -> None:
    """The end of `eval`: gate (junit.xml in the run), render the report, exit with the gate's code."""
    from evals.gates import run_gate
    from evals.report import render_report

    result = run_gate(run_dir, gate_config, junit=run_dir / "junit.xml")
    typer.echo(result.to_text(), nl=False)
    report = render_report([run_dir], report_out, gates=gate_config)
    typer.echo(f"report: {report.path}")
    raise typer.Exit(result.exit_code)


@app.command("gate")
@handles_errors
def gate(
    run_dir: Annotated[Path, typer.Argument(help="Scored run folder (scores.json).")],
    gates: GatesOpt = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Write JUnit XML here: one testcase per rule.")] = None,
    summary: Annotated[
        Path | None, typer.Option("--summary", help="Write a Markdown summary here (e.g. $GITHUB_STEP_SUMMARY).")
    ] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Apply the per-tier gates to a scored run: exit 0 when every rule holds, 1 when one fails."""
    from evals.gates import run_gate

    result = run_gate(run_dir, gates, junit=junit, summary=summary)
    if output is OutputFormat.json:
        _print_json(result.to_json())
    else:
        typer.echo(result.to_text(), nl=False)
    raise typer.Exit(result.exit_code)


@app.command("report")
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
) -> None:
    """One self-contained HTML report (gate, tiers, findings, worst questions); several runs are compared."""
    from evals.report import render_report, render_weekly

    if weekly is not None:
        if run_dirs:
            raise evals.UsageError("give RUN_DIRs or --weekly RUNS_ROOT, not both")
        result = render_weekly(weekly, out, since=since, gates=gates, baseline=baseline)
    elif not run_dirs:
        raise evals.UsageError("give at least one RUN_DIR (or --weekly RUNS_ROOT)")
    else:
        result = render_report(run_dirs, out, gates=gates, baseline=baseline)
    for note in result.notes:
        typer.echo(f"note: {note}", err=True)
    failing = [run_id for run_id, g in result.gates.items() if not g.passed]
    gate_line = f"gate failed for {', '.join(failing)}" if failing else "every run passes the gate"
    typer.echo(f"{result.path}: {len(result.runs)} run(s), {len(result.comparisons)} comparison(s); {gate_line}")


@app.command("compare")
@handles_errors
def compare(
    run_a: Annotated[Path, typer.Argument(help="Scored run folder A (the baseline).")],
    run_b: Annotated[Path, typer.Argument(help="Scored run folder B (the candidate).")],
    output: FormatOpt = OutputFormat.text,
    limit: Annotated[int, typer.Option(help="Show at most this many flipped questions per direction.")] = 20,
) -> None:
    """B against A over their shared questions: metric deltas with paired significance, flipped questions."""
    from evals.report import compare_runs, load_run

    result = compare_runs(load_run(run_a), load_run(run_b))
    if output is OutputFormat.json:
        _print_json(result.to_json())
    else:
        typer.echo(result.to_text(limit=limit), nl=False)


if __name__ == "__main__":  # `python cli.py …`
    sys.exit(app())
