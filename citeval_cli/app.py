"""The typer app: the command groups' modules, registered in the order `citeval --help` lists them.

Each command parses its options, makes one library call, and maps the library's exceptions to a
one-line message and an exit code (citeval_cli.common; DESIGN 7).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

import evals
from citeval_cli import data, gate, label, quotes, report, run, schema, score
from citeval_cli.common import tidy_help
from citeval_cli.config import apply_config
from evals.store.config import CONFIG_ENV

app = typer.Typer(
    name="citeval",
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
    ("schema", schema.schema),
):
    app.command(name)(command)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"citeval {evals.__version__}")
        raise typer.Exit(0)


@app.callback(invoke_without_command=True)
def main(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit."),
    ] = False,
    config: Annotated[
        Path | None,
        typer.Option(
            "--config", envvar=CONFIG_ENV, show_envvar=True, dir_okay=False,
            help="Settings file to read instead of ./citeval.toml (see `citeval schema config`).",
        ),
    ] = None,
) -> None:
    """Evaluate whether a RAG system's citations can be checked by a person.

    Settings come from the command line, then environment variables, then ./citeval.toml (or --config
    FILE), then the defaults.

    Example: citeval eval datasets/demo
    """
    apply_config(ctx, config)
    # `citeval --version` needs no command; nothing at all still shows the help (no_args_is_help)
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())
        raise typer.Exit(2)


tidy_help(app)  # every --help from its docstring, each paragraph on one line (citeval_cli.common.help_text)
