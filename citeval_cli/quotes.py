"""`citeval quotes eval|inject|logs`: the verbatim-quotes lab (DESIGN 9)."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from citeval_cli.common import FormatOpt, OutputFormat, handles_errors, print_json, say, stdout_guard

quotes_app = typer.Typer(
    help="Verbatim quotes: which matcher places each cited quote best.\n\nExample: citeval quotes eval "
    "datasets/demo --matcher block,rapidfuzz",
    no_args_is_help=True,
)


@quotes_app.command("eval")
@handles_errors
def quotes_eval(
    path: Annotated[Path, typer.Argument(help="A quotes file, or a dataset (its quotes/*.jsonl).")],
    matcher: Annotated[
        str, typer.Option(help="NAME[,NAME…], NAME+order, python:mod:function, or all (default: the default cascade).")
    ] = "default",
    threshold: Annotated[float | None, typer.Option(help="One threshold for every matcher (default: its own).")] = None,
    sweep: Annotated[bool, typer.Option("--sweep", help="Metrics over a range of thresholds.")] = False,
    tune: Annotated[bool, typer.Option("--tune", help="Tune on part of the answers, report on the rest.")] = False,
    out: Annotated[Path | None, typer.Option(help="Folder for quotes.json and placements.jsonl.")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Place each citation's quote in its answer with each matcher; score against gold (DESIGN 9).

    Example: citeval quotes eval datasets/demo
    Example: citeval quotes eval datasets/demo --matcher default,block,rapidfuzz
    Example: citeval quotes eval datasets/demo --matcher all --sweep --tune
    """
    from evals.quotes.evaluate import evaluate_path
    from evals.quotes.render import summary_tables

    evaluation = evaluate_path(path, matcher, threshold, sweep=sweep, tune=tune)
    doc = evaluation.summary()
    if out is not None:
        evaluation.write(out, doc)
    if output is OutputFormat.json:
        print_json(doc)
    else:
        from rich.console import Console

        with stdout_guard():
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
    out: Annotated[Path, typer.Option(help="JSONL file: one message a line, with its checks.")],
    matcher: Annotated[
        str, typer.Option(help="The matcher that places the quotes, or gold (the raters' places).")
    ] = "default",
    style: Annotated[
        QuoteStyle, typer.Option(help="inline (after the fragment) or footnote (marks, quotes at the end).")
    ] = QuoteStyle.inline,
    parse_mode: Annotated[
        ParseMode, typer.Option("--parse-mode", help="Telegram parse mode to escape for.")
    ] = ParseMode.plain,
    threshold: Annotated[float | None, typer.Option(help="The matcher's threshold (default: its own).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when any message has a problem.")] = False,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """The answers with their verbatim quotes injected as the bot would send them.

    Each message is checked for its parse mode, Telegram's 4096-character limit, the round trip,
    and where its quotes land: after a clause, never inside a phrase, no two spans overlapping.

    Example: citeval quotes inject datasets/demo --out msgs.jsonl
    Example: citeval quotes inject datasets/demo --matcher gold --out g.jsonl
    """
    from evals.quotes.inject import inject_path

    report = inject_path(path, matcher, out, threshold, style.value, parse_mode.value)
    if output is OutputFormat.json:
        print_json(report.summary())
    else:
        say(f"{out}: " + report.to_text(), nl=False)
    if strict and report.has_problems():
        raise typer.Exit(1)


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
    """Did verbatim quotes change the 👍 rate? From the bot's metrics lines, per day and variant.

    Answers with and without verbatim quotes, quotes injected, and the 👍 rate of each with Wilson intervals,
    their difference (Newcombe) and a two-proportion z-test.

    Example: citeval quotes logs examples/production_logs/metrics.jsonl
    Example: citeval quotes logs metrics/*.jsonl --since 2026-11-23
    """
    from evals.quotes.logs import analyse_logs, export_sample

    report = analyse_logs(logs, since)
    written = export_sample(report, export, sample) if export is not None else None
    if output is OutputFormat.json:
        print_json({**report.to_json(), "exported": written})
    else:
        say(report.to_text(), nl=False)
        if export is not None:
            say(f"{export}: {written} answer(s) for review (`citeval label push --kind quotes`)")
