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

import click
import typer

import evals
from evals.errors import CitevalError
from evals.stats.bootstrap import RESAMPLES, SEED

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
quotes_app = typer.Typer(help="Verbatim quotes: which matcher places each cited quote best.", no_args_is_help=True)
app.add_typer(quotes_app, name="quotes")

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
        except (typer.Exit, typer.Abort, click.ClickException):
            raise
        except (PermissionError, FileNotFoundError, IsADirectoryError, NotADirectoryError) as exc:
            if exc.filename is None:
                _fail(_unexpected(exc), 1)
            _fail(f"{exc.filename}: {exc.strerror}", 2)  # a path given that cannot be used
        except Exception as exc:  # noqa: BLE001 - a bug: one line for the user, the traceback in a log
            _fail(_unexpected(exc), 1)

    return wrapper  # type: ignore[return-value]


def _unexpected(exc: BaseException) -> str:
    """One line naming the exception and the log file that holds its traceback."""
    import tempfile
    import time
    import traceback

    folder = Path(os.environ.get("CITEVAL_LOG_DIR") or tempfile.gettempdir())
    log = folder / f"citeval-error-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}.log"
    first = (str(exc).splitlines() or [""])[0][:200]
    try:
        log.write_text(f"citeval {evals.__version__}: {' '.join(sys.argv)}\n" + "".join(
            traceback.format_exception(type(exc), exc, exc.__traceback__)), encoding="utf-8", errors="replace")
        where = f"traceback in {log}"
    except OSError:
        where = "no log written"
    return f"unexpected {type(exc).__name__}: {first} (a bug in citeval; {where})"


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


def _emit(output: OutputFormat, to_json: Callable[[], Any], to_text: Callable[[], str], nl: bool = False) -> None:
    """A result on stdout as --format asks: its JSON document, or its text (only the one asked is built)."""
    if output is OutputFormat.json:
        _print_json(to_json())
    else:
        typer.echo(to_text(), nl=nl)


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
        for warning in report.warnings[:limit]:
            typer.echo(f"warning: {warning}", err=True)
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
    sources: Annotated[Path, typer.Argument(help="Folder with manifest.toml and editions (Markdown, PDF, JSON).")],
    out: Annotated[Path, typer.Option("--out", help="Registry folder to write, e.g. DATASET/registry.")],
) -> None:
    """Build a registry (documents, editions, chunks, texts) from Markdown, PDF or DoclingDocument sources."""
    result = evals.ingest(sources, out)
    for version_id in result.without_pages:
        typer.echo(f"warning: {version_id}: no page information (pages_known: false)", err=True)
    typer.echo(f"{result.out}: {result.documents} documents, {result.editions} editions, {result.chunks} chunks")


import_app = typer.Typer(
    help="Turn a system's own logs, or an ALCE / RAGChecker / Ragas file, into citeval data.", no_args_is_help=True
)
data_app.add_typer(import_app, name="import")


@import_app.command("anthropic")
@handles_errors
def data_import_anthropic(
    logs: Annotated[list[Path], typer.Argument(help="Log files or folders (*.jsonl, *.json) of Anthropic calls.")],
    dataset: Annotated[Path, typer.Option("--dataset", help="Dataset whose questions the logs answer.")],
    out: Annotated[Path, typer.Option("--out", help="Replay file to write (answers.jsonl).")],
    prices: Annotated[Path | None, typer.Option(help="Price table overriding the shipped one (JSON).")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Bot logs of Anthropic responses, streams or flat citation lists → a replay file."""
    from evals.run.backends.anthropic_logs import import_anthropic_logs
    from evals.run.backends.prices import PriceTable

    report = import_anthropic_logs(logs, dataset, out, prices=PriceTable.load(prices))
    if output is OutputFormat.json:
        _print_json(report.to_json())
        return
    summary = report.to_json()
    for line in report.matcher_attached:
        typer.echo(f"{line.source}: {line.question_id}: citations attached by matcher (flat citation list)")
    for line in report.unmatched:
        typer.echo(f"{line.source}: not imported: {line.reason}", err=True)
    typer.echo(
        f"{out}: {summary['written']} answer(s) ({summary['matched_by_id']} matched by id, "
        f"{summary['matched_by_text']} by question text; {summary['lossless']} lossless, "
        f"{len(summary['matcher_attached'])} matcher-attached); {len(report.unmatched)} line(s) not imported"
    )


PeerFileArg = Annotated[Path, typer.Argument(help="The peer tool's file.")]
PeerOutOpt = Annotated[Path, typer.Option("--out", help="Dataset folder to write (new or empty).")]
PeerAnswersOpt = Annotated[
    Path | None, typer.Option("--answers", help="Replay file to write (default: DATASET/answers/<format>.jsonl).")
]
PeerForceOpt = Annotated[bool, typer.Option("--force", help="Replace a dataset folder that is not empty.")]

# `citeval data import KIND`: the peer formats differ only in the reader import_peer picks by KIND.
PEER_FORMATS = {
    "alce": "An ALCE result file (question, docs, output with [1] markers, gold) → a dataset and a replay file.",
    "ragchecker": "A RAGChecker input file (results: query, gt_answer, response, retrieved_context) → a dataset "
    "and replay file.",
    "ragas": "A Ragas EvaluationDataset (JSONL, CSV or JSON of SingleTurnSamples) → a dataset and a replay file.",
}


def _add_peer_import(kind: str, doc: str) -> None:
    def command(
        source: PeerFileArg, out: PeerOutOpt, answers: PeerAnswersOpt = None, force: PeerForceOpt = False,
        output: FormatOpt = OutputFormat.text,
    ) -> None:
        from evals.importers import import_peer

        report = import_peer(kind, source, out, answers=answers, force=force)
        _emit(output, report.to_json, report.summary, nl=True)

    command.__name__ = command.__qualname__ = f"data_import_{kind}"
    command.__doc__ = doc
    import_app.command(kind)(handles_errors(command))


for _kind, _doc in PEER_FORMATS.items():
    _add_peer_import(_kind, _doc)


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
    typer.echo(result.to_text(), nl=False)
    _require_backend_answered(result)


def _require_backend_answered(result: Any) -> None:
    """Exit 3 when the backend failed on every question (DESIGN 7)."""
    from evals.outside import backend_failure

    failure = backend_failure(result.run_dir, result.total, result.errors)
    if failure is not None:
        raise failure


def _require_judged(judge: str, scores: Any, ragas: bool) -> None:
    """Exit 3 when `--judge llm` or `--ragas` was asked and that service judged nothing."""
    from evals.outside import judge_failure

    failure = judge_failure(judge, scores, ragas=ragas)
    if failure is not None:
        raise failure


def _llm(model: str | None, base_url: str | None, provider: str, key_env: str | None) -> Any:
    from evals.score.judges.llm import LlmConfig

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
    workers: Annotated[
        int | None, typer.Option(help="Processes scoring shards in parallel (default: the cores available).")
    ] = None,
    parquet: Annotated[
        bool,
        typer.Option("--parquet/--no-parquet", help="Also write per_question.parquet (typed columns)."),
    ] = False,
) -> None:
    """Check citations, judge support and compute metrics for a saved run (never re-runs the backend)."""
    llm = _llm(llm_model, llm_base_url, llm_provider, llm_key_env)
    result = evals.score_run(run_dir, judge=judge, llm=llm, ragas=ragas, workers=workers, parquet=parquet)
    _emit(output, result.scores.to_json, result.to_text)
    _require_judged(judge, result.scores, ragas)


@app.command("selftest")
@handles_errors
def selftest(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder.")],
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Inject every fault kind into reference answers; exit 1 unless each is caught and nothing else alarms."""
    from evals.score.selftest import run_selftest

    report = run_selftest(dataset)
    _emit(output, report.to_json, report.to_markdown, nl=True)
    if not report.ok:
        raise typer.Exit(1)


@app.command("probe")
@handles_errors
def probe(
    dataset: Annotated[Path | None, typer.Argument(help="Dataset folder to generate probe questions from.")] = None,
    backend: Annotated[
        str | None, typer.Option(help="Backend SPEC (default: reference; with --resume: the run's own).")
    ] = None,
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
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Ask the system generated probe questions (DESIGN 10); exit 1 when a kind's decorative rate
    is above the gates file's [probe] bound, 3 when the backend failed."""
    from evals.probe.core import resume_probe, run_probe
    from evals.probe.render import probe_markdown

    options = evals.RunOptions(concurrency=concurrency, timeout=timeout, retries=retries, label=label)
    with _Progress() as progress:
        if resume is not None:
            result = resume_probe(resume, backend_spec=backend, gates=gates, on_progress=progress)
        elif dataset is None:
            raise evals.UsageError("give a DATASET (or --resume RUN_DIR)")
        else:
            result = run_probe(
                dataset, backend or "reference", kinds=kinds, limit=limit, out=out, run_id=run_id, options=options,
                gates=gates, on_progress=progress,
            )
    if output is OutputFormat.json:
        _print_json(result.document)
    else:
        typer.echo(f"{result.run_dir}: {len(result.cases)} probe question(s)")
        typer.echo(probe_markdown(result.document, [c.to_json() for c in result.cases]))
    if result.errors:
        typer.echo(f"error: the backend failed on {result.errors} probe question(s); see {result.run_dir}", err=True)
    raise typer.Exit(result.exit_code)


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
    from evals.evaluate import evaluate

    options = evals.RunOptions(concurrency=concurrency, limit=limit, timeout=timeout, retries=retries, label=label)
    llm = _llm(llm_model, llm_base_url, llm_provider, llm_key_env)
    with _Progress() as progress:
        result = evaluate(
            dataset, backend, gates=gates, report=report_out, out=out, run_id=run_id, options=options, judge=judge,
            llm=llm, ragas=ragas, on_progress=progress,
        )
    typer.echo(result.to_text(), nl=False)
    raise typer.Exit(result.exit_code)


@app.command("agree")
@handles_errors
def agree(
    target: Annotated[Path, typer.Argument(help="Run folder (with judgments.jsonl) or a judgments .jsonl file.")],
    output: FormatOpt = OutputFormat.text,
    out: Annotated[Path | None, typer.Option("--out", help="Also write agreement.json to this file.")] = None,
    adjudicate: Annotated[
        Path | None, typer.Option("--adjudicate", help="JSONL of resolved labels to append as source 'adjudicated'.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = SEED,
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples.")] = RESAMPLES,
    limit: Annotated[int, typer.Option(help="Show at most this many disagreements per field.")] = 20,
) -> None:
    """Inter-rater agreement of the human raters per field; writes agreement.json into a run."""
    from evals.agreement.io import agree as compute  # numpy/krippendorff load only for this command

    result = compute(target, out=out, adjudicate_file=adjudicate, seed=seed, n_resamples=resamples)
    _emit(output, result.to_json, lambda: result.to_text(limit=limit))


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
    from evals.score import judges

    items = judges.read_pairs(pairs)
    config = _llm(llm_model, llm_base_url, llm_provider, llm_key_env) if judge_name == "llm" else None
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


class LabelKind(str, Enum):
    run = "run"
    quotes = "quotes"


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
    kind: Annotated[
        LabelKind, typer.Option("--kind", help="run: a run's answers; quotes: a quotes file's citations.")
    ] = LabelKind.run,
    matcher: Annotated[
        str | None, typer.Option(help="With --kind quotes: show this matcher's places as predictions (default: blind).")
    ] = None,
) -> None:
    """Create or update the review project: one task per answer, no duplicates (LABEL_STUDIO_URL / _API_KEY).
    With --kind quotes, RUN_DIR is a quotes file and each citation is a task: raters mark its place."""
    from evals import label as labels
    from evals.label import quotes as quote_labels

    quotes = kind is LabelKind.quotes
    if to_file is not None:
        if quotes:
            count = quote_labels.write_quote_tasks_file(run_dir, to_file, lang=lang.value, matcher=matcher)
        else:
            count = labels.write_tasks_file(run_dir, to_file, predictions=predictions, lang=lang.value)
        typer.echo(f"{to_file}: {count} task(s) in Label Studio import format")
        return
    if not project:
        raise evals.UsageError("give --project TITLE (or --to-file tasks.json)")
    if quotes:
        result = quote_labels.push_quotes(run_dir, project, lang=lang.value, matcher=matcher, batch_size=batch_size)
    else:
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
        list[str] | None,
        typer.Option(
            "--rater",
            help="ID=EMAIL for a Label Studio user id, annotation:ID=EMAIL for an annotation without an author; "
            "kept in RUN/label_raters.json for later pulls.",
        ),
    ] = None,
    anonymous_raters: Annotated[
        bool,
        typer.Option("--anonymous-raters", help="Keep annotations without an author apart: each a rater of its own."),
    ] = False,
    count_predictions: Annotated[
        bool, typer.Option("--count-predictions", help="Count annotations that accept a pre-annotation unchanged.")
    ] = False,
    output: FormatOpt = OutputFormat.text,
    kind: Annotated[
        LabelKind, typer.Option("--kind", help="run: judgments of a run; quotes: gold of a quotes file.")
    ] = LabelKind.run,
    out: Annotated[Path | None, typer.Option(help="With --kind quotes: the quotes file to write, with gold.")] = None,
    gold_rater: Annotated[
        str | None,
        typer.Option(help="With --kind quotes: this rater's places are the gold (default: where raters agree)."),
    ] = None,
) -> None:
    """Append the raters' labels as judgments; report per rater what is done and still missing.
    With --kind quotes, RUN_DIR is the quotes file that was pushed; --out gets it back with gold."""
    from evals import label as labels

    rater_flags = labels.parse_rater_flags(rater or [])
    if kind is LabelKind.quotes:
        from evals.label.quotes import pull_quotes

        if any(not key.isdigit() for key in rater_flags):
            raise evals.UsageError("--rater annotation:ID=EMAIL is for --kind run; quotes take --rater ID=EMAIL")
        raters = {int(key): email for key, email in rater_flags.items()}

        if out is None:
            raise evals.UsageError("give --out QUOTES.jsonl: the quotes file with the raters' gold")
        quote_report = pull_quotes(
            run_dir, out, project, from_file=from_file, raters=raters, gold_rater=gold_rater
        )
        _emit(output, quote_report.to_json, quote_report.summary, nl=True)
        return
    report = labels.pull(
        run_dir, project, from_file=from_file, rater_flags=rater_flags, anonymous_raters=anonymous_raters,
        count_predictions=count_predictions,
    )
    _emit(output, report.to_json, report.summary, nl=True)


# --- gate, report, compare (DESIGN 7) ------------------------------------------------------

@app.command("gate")
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
    """Apply the per-tier gates to a scored run (and the baseline rules against --baseline): exit 0 when
    every rule holds, 1 when one fails."""
    from evals.gate.core import run_gate
    from evals.gate.probe import gate_probe_run, is_probe_only_gates

    # a gates file with only a [probe] table judges the probe run's probe.json
    run = gate_probe_run if is_probe_only_gates(gates) else run_gate
    result = run(run_dir, gates, baseline=baseline, junit=junit, summary=summary)
    _emit(output, result.to_json, result.to_text)
    raise typer.Exit(result.exit_code)


@app.command("bundle")
@handles_errors
def bundle(
    run_dir: Annotated[Path, typer.Argument(help="Scored run folder.")],
    out: Annotated[Path, typer.Option("--out", help="Bundle to write, e.g. run.tar.gz.")],
) -> None:
    """Pack a scored run into one portable .tar.gz (no secrets) for `citeval gate --baseline`."""
    from evals.store.bundle import write_bundle

    typer.echo(write_bundle(run_dir, out).to_text(), nl=False)


@app.command("init")
@handles_errors
def init(
    folder: Annotated[Path, typer.Argument(help="New dataset folder to create.")],
    from_markdown: Annotated[
        Path | None, typer.Option("--from-markdown", help="Build the registry from this folder (citeval data ingest).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that is not empty.")] = False,
) -> None:
    """A skeleton dataset to fill in: registry, questions, replay answers, a commented gates file, a README."""
    from evals.ingest.init import init_dataset

    typer.echo(init_dataset(folder, from_markdown=from_markdown, force=force).to_text(), nl=False)


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
    from evals.report.render import render_report, render_weekly

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
    if result.quote_sections:
        gate_line += f"; {result.quote_sections} verbatim-quotes section(s)"
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
    from evals.report.compare import compare_runs
    from evals.report.load import load_run

    result = compare_runs(load_run(run_a), load_run(run_b))
    _emit(output, result.to_json, lambda: result.to_text(limit=limit))


@quotes_app.command("eval")
@handles_errors
def quotes_eval(
    path: Annotated[Path, typer.Argument(help="A quotes file, or a dataset (its quotes/*.jsonl).")],
    matcher: Annotated[str, typer.Option(help="NAME[,NAME…], NAME+order, python:mod:function, or all.")] = "all",
    threshold: Annotated[float | None, typer.Option(help="One threshold for every matcher (default: its own).")] = None,
    sweep: Annotated[bool, typer.Option("--sweep", help="Metrics over a range of thresholds.")] = False,
    tune: Annotated[bool, typer.Option("--tune", help="Tune on part of the answers, report on the rest.")] = False,
    out: Annotated[Path | None, typer.Option(help="Folder for quotes.json and placements.jsonl.")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Place each citation's quote in its answer with each matcher; score against gold (DESIGN 9)."""
    from evals.quotes.evaluate import evaluate_path
    from evals.quotes.render import summary_tables

    evaluation = evaluate_path(path, matcher, threshold, sweep=sweep, tune=tune)
    doc = evaluation.summary()
    if out is not None:
        evaluation.write(out, doc)
    if output is OutputFormat.json:
        _print_json(doc)
    else:
        from rich.console import Console

        Console(width=200 if not sys.stdout.isatty() else None).print(*summary_tables(doc))


class QuoteStyle(str, Enum):
    inline = "inline"
    footnote = "footnote"


class ParseMode(str, Enum):
    plain = "plain"
    markdown_v2 = "markdown_v2"
    html = "html"


@quotes_app.command("inject")
@handles_errors
def quotes_inject(
    path: Annotated[Path, typer.Argument(help="A quotes file, or a dataset (its quotes/*.jsonl).")],
    matcher: Annotated[str, typer.Option(help="The matcher that places the quotes, or gold (the raters' places).")],
    out: Annotated[Path, typer.Option(help="JSONL file: one message a line, with its checks.")],
    style: Annotated[
        QuoteStyle, typer.Option(help="inline (after the fragment) or footnote (marks, quotes at the end).")
    ] = QuoteStyle.inline,
    parse_mode: Annotated[
        ParseMode, typer.Option("--parse-mode", help="Telegram parse mode to escape for.")
    ] = ParseMode.plain,
    threshold: Annotated[float | None, typer.Option(help="The matcher's threshold (default: its own).")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """The answers with their verbatim quotes injected as the bot would send them; each message checked
    for its parse mode, Telegram's 4096-character limit and the round trip."""
    from evals.quotes.inject import inject_path

    report = inject_path(path, matcher, out, threshold, style.value, parse_mode.value)
    if output is OutputFormat.json:
        _print_json(report.summary())
    else:
        typer.echo(f"{out}: " + report.to_text(), nl=False)


@quotes_app.command("logs")
@handles_errors
def quotes_logs(
    logs: Annotated[list[Path], typer.Argument(help="The bot's metrics files (JSON lines; README 'Production logs').")],
    since: Annotated[str | None, typer.Option(help="Only answers sent at or after this ISO date or time.")] = None,
    export: Annotated[
        Path | None, typer.Option(help="Write the lowest-scoring injected answers here, a quotes file for raters.")
    ] = None,
    sample: Annotated[int, typer.Option(min=1, help="How many answers --export writes.")] = 50,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Per day and variant: answers with and without verbatim quotes, quotes injected, and the 👍 rate of
    each with Wilson intervals, their difference (Newcombe) and a two-proportion z-test."""
    from evals.quotes.logs import analyse_logs, export_sample

    report = analyse_logs(logs, since)
    written = export_sample(report, export, sample) if export is not None else None
    if output is OutputFormat.json:
        _print_json({**report.to_json(), "exported": written})
    else:
        typer.echo(report.to_text(), nl=False)
        if export is not None:
            typer.echo(f"{export}: {written} answer(s) for review (`citeval label push --kind quotes`)")


if __name__ == "__main__":  # `python cli.py …`
    sys.exit(app())
