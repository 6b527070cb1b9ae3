"""The typer app: the command groups' modules registered in the order `citeval --help` lists them.

Each command parses its options, makes one library call, and turns citeval's own exceptions
into a one-line message and an exit code (DESIGN 7: 0 ok, 1 gate failed, 2 bad input,
3 backend or service failure).
"""

from __future__ import annotations

from typing import Annotated

import typer

import evals
from citeval_cli import data, gate, label, quotes, report, run, score

app = typer.Typer(
    name="citeval",
    help="Evaluate whether a RAG system's citations can be checked by a person.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.add_typer(data.data_app, name="data")
app.add_typer(label.label_app, name="label")
app.add_typer(quotes.quotes_app, name="quotes")

for name, command in (
    ("run", run.run),
    ("score", score.score),
    ("selftest", score.selftest),
    ("probe", run.probe),
    ("eval", run.eval_),
    ("agree", label.agree),
    ("judge", score.judge),
    ("gate", gate.gate),
    ("bundle", gate.bundle),
    ("init", data.init),
    ("report", report.report),
    ("compare", report.compare),
):
    app.command(name)(command)


@app.callback()
def main(
    version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False,
) -> None:
    if version:
        typer.echo(f"citeval {evals.__version__}")
        raise typer.Exit(0)
