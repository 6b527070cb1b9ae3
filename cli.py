"""citeval's command line: thin typer commands over the evals library.

Each command parses its options, makes one library call, and turns citeval's own
exceptions into a one-line message and an exit code (DESIGN 7: 0 ok, 1 gate failed,
2 bad input, 3 backend or service failure).
"""

from __future__ import annotations

import functools
import json
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

F = TypeVar("F", bound=Callable[..., Any])


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


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
    output: Annotated[OutputFormat, typer.Option("--format", help="text or json.")] = OutputFormat.text,
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


if __name__ == "__main__":  # `python cli.py …`
    sys.exit(app())
