"""`citeval data validate|ingest|import|export-hf` and `citeval init`: check, build and export datasets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import evals
from citeval_cli.common import FormatOpt, OutputFormat, emit, handles_errors, note, print_json, say

data_app = typer.Typer(
    help="Check and build datasets.\n\nExample: citeval data validate datasets/demo", no_args_is_help=True
)


@data_app.command("validate")
@handles_errors
def data_validate(
    dataset: Annotated[Path, typer.Argument(help="Dataset folder (registry/ and questions.jsonl).")],
    output: FormatOpt = OutputFormat.text,
    limit: Annotated[int, typer.Option(help="Show at most this many problems.")] = 50,
) -> None:
    """Check a dataset's schema and references without running any model.

    Example: citeval data validate datasets/demo
    """
    report = evals.validate_dataset(dataset)
    if output is OutputFormat.json:
        print_json(report.to_json(limit=limit))
    else:
        note(report.notes(limit))
        if report.ok:
            say(report.summary())
    if not report.ok:
        raise typer.Exit(2)


@data_app.command("ingest")
@handles_errors
def data_ingest(
    sources: Annotated[Path, typer.Argument(help="Folder with manifest.toml and editions (Markdown, PDF, JSON).")],
    out: Annotated[Path, typer.Option("--out", help="Registry folder to write, e.g. DATASET/registry.")],
    output: FormatOpt = OutputFormat.text,
) -> None:
    """Build a registry (documents, editions, chunks, texts) from Markdown, PDF or DoclingDocument sources.

    Example: citeval data ingest datasets/demo/sources --out my-dataset/registry
    """
    result = evals.ingest(sources, out)
    note(result.warnings(), "warning: ")
    emit(output, result.to_json, result.to_text)


@data_app.command("export-hf")
@handles_errors
def data_export_hf(
    run: Annotated[Path, typer.Argument(help="A scored run folder (per_question.jsonl).")],
    out: Annotated[Path, typer.Option("--out", help="Folder to write the Hugging Face dataset into (replaced).")],
    output: FormatOpt = OutputFormat.text,
) -> None:
    """A run's per-question rows (metrics, findings, question and answer text) as a Hugging Face dataset.

    Read it with datasets.load_from_disk(OUT). Needs the datasets package: pip install 'citeval[hf]'.

    Example: citeval data export-hf runs/2025-06-01 --out results-hf
    """
    from evals.data.export import export_run_hf

    result = export_run_hf(run, out)
    emit(output, result.to_json, result.to_text)


import_app = typer.Typer(
    help="Turn a system's own logs, or an ALCE / RAGChecker / Ragas file, into citeval data.\n\n"
    "Example: citeval data import ragas samples.jsonl --out ragas-dataset",
    no_args_is_help=True,
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
    """Bot logs of Anthropic responses, streams or flat citation lists → a replay file.

    Example: citeval data import anthropic logs/ --dataset ds --out answers.jsonl
    """
    from evals.run.backends.anthropic_logs import import_anthropic_logs
    from evals.run.backends.prices import PriceTable

    report = import_anthropic_logs(logs, dataset, out, prices=PriceTable.load(prices))
    note(report.notes())  # the lines left out, on stderr whichever --format
    emit(output, report.to_json, report.to_text)


PeerFileArg = Annotated[Path, typer.Argument(help="The peer tool's file.")]
PeerOutOpt = Annotated[Path, typer.Option("--out", help="Dataset folder to write (new or empty).")]
PeerAnswersOpt = Annotated[
    Path | None, typer.Option("--answers", help="Replay file to write (default: DATASET/answers/<format>.jsonl).")
]
PeerForceOpt = Annotated[bool, typer.Option("--force", help="Replace a dataset folder that is not empty.")]

# `citeval data import KIND`: the peer formats differ only in the reader import_peer picks by KIND.
PEER_FORMATS = {
    "alce": "An ALCE result file (question, docs, output with [1] markers, gold) → a dataset and a replay file."
    "\n\nExample: citeval data import alce result.json --out alce-dataset",
    "ragchecker": "A RAGChecker input file (results: query, gt_answer, response, retrieved_context) → a dataset "
    "and replay file.\n\nExample: citeval data import ragchecker input.json --out rc-dataset",
    "ragas": "A Ragas EvaluationDataset (JSONL, CSV or JSON of SingleTurnSamples) → a dataset and a replay file."
    "\n\nExample: citeval data import ragas samples.jsonl --out ragas-dataset",
}


def _add_peer_import(kind: str, doc: str) -> None:
    def command(
        source: PeerFileArg, out: PeerOutOpt, answers: PeerAnswersOpt = None, force: PeerForceOpt = False,
        output: FormatOpt = OutputFormat.text,
    ) -> None:
        from evals.importers import import_peer

        report = import_peer(kind, source, out, answers=answers, force=force)
        emit(output, report.to_json, report.summary, nl=True)

    command.__name__ = command.__qualname__ = f"data_import_{kind}"
    command.__doc__ = doc
    import_app.command(kind)(handles_errors(command))


@import_app.command("alce")
@handles_errors
def data_import_alce(
    source: PeerFileArg, out: PeerOutOpt, answers: PeerAnswersOpt = None, force: PeerForceOpt = False,
    at_most_citations: Annotated[int | None, typer.Option(
        "--at-most-citations", help="Keep each claim's first N markers, as ALCE's eval.py --at_most_citations "
        "(3 there); off by default, recorded in DATASET/import.json.")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    from evals.importers import import_peer

    report = import_peer("alce", source, out, answers=answers, force=force, at_most_citations=at_most_citations)
    emit(output, report.to_json, report.summary, nl=True)


data_import_alce.__doc__ = PEER_FORMATS["alce"]
for _kind, _doc in PEER_FORMATS.items():
    if _kind != "alce":
        _add_peer_import(_kind, _doc)


@handles_errors
def init(
    folder: Annotated[Path, typer.Argument(help="New dataset folder to create.")],
    from_markdown: Annotated[
        Path | None, typer.Option("--from-markdown", help="Build the registry from this folder (citeval data ingest).")
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that is not empty.")] = False,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """A skeleton dataset to fill in: registry, questions, replay answers, a commented gates file, a README.

    Example: citeval init my-dataset
    Example: citeval init my-dataset --from-markdown docs/
    """
    from evals.ingest.init import init_dataset

    result = init_dataset(folder, from_markdown=from_markdown, force=force)
    emit(output, result.to_json, result.to_text)


@data_app.command("peers")
@handles_errors
def data_peers(
    run: Annotated[Path, typer.Argument(help="A scored run of an imported dataset's replay answers.")],
    dataset: Annotated[Path | None, typer.Option(
        "--dataset", help="The imported dataset (default: the one the run names).")] = None,
    output: FormatOpt = OutputFormat.text,
) -> None:
    """The peer tool's own scores (RAGChecker, Ragas) beside citeval's for an imported dataset's run.

    Example: citeval data peers runs/rc --format json
    """
    from evals.importers.peers import peer_table

    table = peer_table(run, dataset)
    emit(output, table.to_json, table.to_text)
