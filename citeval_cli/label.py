"""`citeval label push|pull` (Label Studio review rounds) and `citeval agree` (inter-rater agreement)."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from citeval_cli.common import FormatOpt, OutputFormat, WaitOpt, emit, handles_errors, lock_wait
from evals.stats.bootstrap import RESAMPLES, SEED

label_app = typer.Typer(
    help="Review rounds in Label Studio: push answers, pull labels.\n\nExample: citeval label push runs/demo "
    "--to-file tasks.json",
    no_args_is_help=True,
)


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
        str | None,
        typer.Option(
            help="With --kind quotes: show this matcher's places as predictions (default: the default cascade; "
            "none: raters mark blind)."
        ),
    ] = None,
    output: FormatOpt = OutputFormat.text,
    wait: WaitOpt = 0.0,
) -> None:
    """Create or update the review project in Label Studio: one task per answer, no duplicates.

    The server and key come from LABEL_STUDIO_URL and LABEL_STUDIO_API_KEY. With --kind quotes, RUN_DIR is a
    quotes file and each citation is a task: raters mark its place.

    Example: citeval label push runs/demo --project "Проверка цитат"
    Example: citeval label push runs/demo --to-file tasks.json
    """
    from evals.label.round import push_round

    with lock_wait(wait):
        result = push_round(
            run_dir, kind=kind.value, project=project, to_file=to_file, predictions=predictions, lang=lang.value,
            batch_size=batch_size, matcher=_quote_matcher(kind, matcher),
        )
    emit(output, result.to_json, result.summary, nl=True)


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
    wait: WaitOpt = 0.0,
) -> None:
    """Append the raters' labels as judgments; report per rater what is done and still missing.

    With --kind quotes, RUN_DIR is the quotes file that was pushed; --out gets it back with gold.

    Example: citeval label pull runs/demo --project "Проверка цитат"
    Example: citeval label pull runs/demo --from-file export.json --rater 7=a@b.kz
    """
    from evals.label.round import pull_round

    with lock_wait(wait):
        report = pull_round(
            run_dir, kind=kind.value, project=project, from_file=from_file, raters=rater or [],
            anonymous_raters=anonymous_raters, count_predictions=count_predictions, out=out, gold_rater=gold_rater,
        )
    emit(output, report.to_json, report.summary, nl=True)


@label_app.command("adjudicate")
@handles_errors
def label_adjudicate(
    run_dir: Annotated[Path, typer.Argument(help="Run folder (or a judgments .jsonl file) to settle labels in.")],
    from_file: Annotated[
        Path,
        typer.Option("--from", help="JSONL of settled labels, one unit a line (format: citeval schema adjudication)."),
    ],
    output: FormatOpt = OutputFormat.text,
    wait: WaitOpt = 0.0,
) -> None:
    """Append settled labels as source 'adjudicated' (they win over human and auto labels); twice adds nothing.

    A line: {"question_id", "claim_id"?, "evidence_id"?, "field", "value", "comment"?}; agreement.json's
    disagreements list the units to settle. A ground-truth annotation in Label Studio is pulled the same way.

    Example: citeval label adjudicate runs/demo --from settled.jsonl
    """
    from evals.agreement.io import adjudicate_run

    with lock_wait(wait):
        result = adjudicate_run(run_dir, from_file)
    emit(output, result.to_json, result.summary, nl=True)


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
    hourly_rate: Annotated[
        float | None,
        typer.Option(help="Raters' cost per hour: prices the round per accepted answer (recorded in agreement.json)."),
    ] = None,
    wait: WaitOpt = 0.0,
) -> None:
    """Inter-rater agreement of the human raters per field, and their seconds per task; writes agreement.json.

    Example: citeval agree runs/demo
    Example: citeval agree runs/demo --hourly-rate 1500
    """
    from evals.agreement.io import agree as compute  # numpy/krippendorff load only for this command

    with lock_wait(wait):
        result = compute(
            target, out=out, adjudicate_file=adjudicate, seed=seed, n_resamples=resamples, hourly_rate=hourly_rate
        )
    emit(output, result.to_json, lambda: result.to_text(limit=limit))


def _quote_matcher(kind: LabelKind, matcher: str | None) -> str | None:
    """The matcher whose places a quotes project shows: `default` unless named; `none` for blind marking."""
    if kind is not LabelKind.quotes:
        return matcher
    if matcher is None:
        return "default"
    return None if matcher.lower() == "none" else matcher
