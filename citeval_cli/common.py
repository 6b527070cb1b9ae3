"""What every command shares: the option types, the error mapping, the progress bar and the
output helpers (a result as --format asks)."""

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


class ProgressBar:
    """A rich progress bar on a terminal; a plain line per tenth of the work in CI or a pipe."""

    def __init__(self) -> None:
        self._bar: Any = None
        self._task: Any = None
        self._next_plain = 0.0

    def __enter__(self) -> ProgressBar:
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


def print_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def emit(output: OutputFormat, to_json: Callable[[], Any], to_text: Callable[[], str], nl: bool = False) -> None:
    """A result on stdout as --format asks: its JSON document, or its text (only the one asked is built)."""
    if output is OutputFormat.json:
        print_json(to_json())
    else:
        typer.echo(to_text(), nl=nl)


def llm_config(model: str | None, base_url: str | None, provider: str, key_env: str | None) -> Any:
    from evals.score.judges.llm import LlmConfig

    if not model:
        return None
    return LlmConfig(model=model, provider=provider, base_url=base_url, api_key_env=key_env)  # type: ignore[arg-type]
