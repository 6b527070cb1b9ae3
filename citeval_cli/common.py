"""What every command shares: the option types, the error mapping (DESIGN 7 exit codes), the
progress bar and the output helpers (a result as --format asks).

Exit codes: 0 ok · 1 a gate failed or a probe verdict is below its bound (the commands' own) ·
2 bad input or usage · 3 backend or service failure · 4 internal error (a bug: one line naming
the log file that holds the traceback) · 130 interrupted.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import inspect
import json
import logging
import os
import re
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterable, Iterator
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, TypeVar

import click
import typer

import evals
from evals.errors import CitevalError
from evals.run.settings import PRICES_ENV, REFUSAL_PATTERNS_ENV, spec_forms
from evals.text.escape import terminal_safe

EXIT_INTERNAL = 4  # a bug in citeval, never a verdict on the system under test
# what the system, not citeval, refuses: a path that cannot be used, a full disk, a read-only file
# system, no inode, a name too long … — exit 2 with the path, never "a bug"
SYSTEM_ERRNOS = frozenset({
    errno.EACCES, errno.EPERM, errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.ENOSPC, errno.EDQUOT, errno.EROFS,
    errno.ENAMETOOLONG, errno.EFBIG, errno.ELOOP, errno.EMLINK, errno.EIO, errno.EEXIST, errno.ENOTEMPTY,
    errno.EXDEV, errno.EBUSY, errno.ETXTBSY, errno.EMFILE, errno.ENFILE, errno.ENXIO,
})
EXIT_INTERRUPTED = 130

F = TypeVar("F", bound=Callable[..., Any])


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


class JudgeName(str, Enum):
    """Support judges of `score` and `eval` (none: checks only)."""

    offline = "offline"
    llm = "llm"
    cascade = "cascade"
    none = "none"


# Options shared by several commands.
FormatOpt = Annotated[OutputFormat, typer.Option("--format", help="text or json.")]
BackendOpt = Annotated[str, typer.Option(help=f"Backend SPEC: {spec_forms()}.")]
ResumableBackendOpt = Annotated[
    str | None, typer.Option("--backend", help=f"Backend SPEC: {spec_forms()} (default: reference; with --resume: "
                             "the run's own).")
]
OutOpt = Annotated[Path, typer.Option(help="Folder that holds run folders.")]
RunIdOpt = Annotated[str | None, typer.Option(help="Name of the run folder (default: time + backend).")]
LabelOpt = Annotated[str | None, typer.Option(help="Variant label, to group runs in reports.")]
ConcurrencyOpt = Annotated[int, typer.Option(min=1, help="Questions in flight at once.")]
LimitOpt = Annotated[int | None, typer.Option(min=1, help="Only the first N questions.")]
TimeoutOpt = Annotated[float, typer.Option(min=0.1, help="Seconds per backend request.")]
RetriesOpt = Annotated[int, typer.Option(min=0, help="Retries of a failed request (http).")]
PricesOpt = Annotated[
    Path | None, typer.Option(
        "--prices", envvar=PRICES_ENV, show_envvar=True,
        help="Price table (JSON) overriding the shipped one for replayed Anthropic answers' cost; recorded in "
        "the manifest.",
    ),
]
RefusalPatternsOpt = Annotated[
    Path | None, typer.Option(
        "--refusal-patterns", envvar=REFUSAL_PATTERNS_ENV, show_envvar=True,
        help="Regular expressions (one a line) replacing the shipped refusal patterns of replayed Anthropic "
        "answers; recorded in the manifest.",
    ),
]
JudgeOpt = Annotated[
    JudgeName, typer.Option("--judge", help="Support judge: offline, llm, cascade (offline, the least sure to the llm) "
                            "or none (checks only).")
]
LlmUrlOpt = Annotated[str | None, typer.Option(help="OpenAI-compatible base URL (…/v1), or Anthropic's.")]
LlmModelOpt = Annotated[str | None, typer.Option(help="Model for --judge llm and --ragas.")]
LlmProviderOpt = Annotated[str, typer.Option(help="openai (any compatible endpoint) or anthropic.")]
LlmKeyOpt = Annotated[str | None, typer.Option(help="Environment variable holding the API key.")]
RagasOpt = Annotated[bool, typer.Option("--ragas", help="Add Ragas faithfulness (needs --llm-model).")]
GatesOpt = Annotated[
    Path | None, typer.Option("--gates", help="Gates TOML (default: the shipped gates/default.toml).")
]
WaitOpt = Annotated[
    float, typer.Option(
        "--wait", min=0, help="Seconds to wait while another citeval writes the run folder (default 0: refuse at "
        "once, naming it).",
    ),
]


@contextlib.contextmanager
def lock_wait(seconds: float) -> Iterator[None]:
    """Around a command's library call: how long a locked run folder is waited for (--wait)."""
    from evals.store.lock import waiting_for_lock

    with waiting_for_lock(seconds):
        yield


# --- help ------------------------------------------------------------------------------------------

_MARKUP = re.compile(r"\[(?=[a-z#/@])")  # what rich would read as a markup tag, e.g. [probe]


def help_text(doc: str | None) -> str | None:
    """A command's docstring as its --help shows it: each paragraph on one line (rich wraps it to
    the terminal; the source's line breaks would show as broken lines), an `Example: citeval …`
    paragraph kept line by line, and `[table]` kept from being read as rich markup."""
    if not doc:
        return doc
    paragraphs = []
    for paragraph in inspect.cleandoc(doc).split("\n\n"):
        lines = [line.strip() for line in paragraph.splitlines() if line.strip()]
        examples = all(line.startswith("Example") for line in lines)
        paragraphs.append("\n".join(lines) if examples else " ".join(lines))
    return _MARKUP.sub(r"\\[", "\n\n".join(paragraphs))


def tidy_help(app: typer.Typer) -> None:
    """Set every command's help (and its groups', recursively) from its docstring by `help_text`."""
    callback = app.registered_callback
    if callback is not None and not isinstance(callback.help, str) and callback.callback is not None:
        callback.help = help_text(callback.callback.__doc__)
    for info in app.registered_commands:
        if info.help is None and info.callback is not None:
            info.help = help_text(info.callback.__doc__)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            tidy_help(group.typer_instance)


# --- output ------------------------------------------------------------------------------------


def _drop_stdout() -> None:
    """The reader of stdout went away (`citeval … | head`): point stdout at /dev/null, so the rest
    of the output and the flush at exit vanish quietly and the command ends with its own code."""
    with contextlib.suppress(OSError, ValueError):  # no file descriptor (an in-process runner's stream)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


@contextlib.contextmanager
def stdout_guard() -> Iterator[None]:
    """Around every write to stdout: a closed pipe ends the output, not the command."""
    try:
        yield
    except BrokenPipeError:
        _drop_stdout()


def say(text: str = "", *, nl: bool = True) -> None:
    """Write to stdout."""
    with stdout_guard():
        typer.echo(text, nl=nl)


def note(lines: Iterable[str], prefix: str = "") -> None:
    """Human notes on stderr (warnings, lines left out), whichever --format."""
    for line in lines:
        typer.echo(terminal_safe(f"{prefix}{line}"), err=True)


def print_json(obj: Any) -> None:
    say(json.dumps(obj, ensure_ascii=False, indent=2, default=str))


def emit(output: OutputFormat, to_json: Callable[[], Any], to_text: Callable[[], str], nl: bool = False) -> None:
    """A result on stdout as --format asks: its JSON document, or its text (only the one asked is built)."""
    if output is OutputFormat.json:
        print_json(to_json())
    else:
        say(to_text(), nl=nl)


# --- errors ------------------------------------------------------------------------------------


def _fail(message: str, code: int) -> None:
    for line in message.splitlines() or [""]:  # several problems (DataErrors): one line each
        # a message quotes file names, ids and contents: no control character reaches the terminal
        typer.echo(terminal_safe(f"error: {line}"), err=True)
    raise typer.Exit(code)


class _NoteHandler(logging.Handler):
    """citeval's notes (logger "citeval.notes": a stale lock taken over …) as `note: …` on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        with contextlib.suppress(Exception):
            typer.echo(terminal_safe(f"note: {record.getMessage()}"), err=True)


def _show_notes() -> None:
    notes = logging.getLogger("citeval.notes")
    if not any(isinstance(h, _NoteHandler) for h in notes.handlers):
        notes.addHandler(_NoteHandler())
        notes.propagate = False


def handles_errors(func: F) -> F:
    """Turn exceptions into `error: …` on stderr and an exit code: citeval's own carry theirs (2 bad
    input, 3 backend or service), a path that cannot be used is 2, anything else is a bug (4)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _show_notes()
        try:
            return func(*args, **kwargs)
        except CitevalError as exc:
            _fail(str(exc), exc.exit_code)
        except KeyboardInterrupt:
            _fail("interrupted", EXIT_INTERRUPTED)
        except (typer.Exit, typer.Abort, click.ClickException):
            raise
        except BrokenPipeError:
            _drop_stdout()  # the reader of stdout went away (`| head`): quiet, with the command's own code
        except OSError as exc:
            if exc.errno not in SYSTEM_ERRNOS:
                _fail(unexpected(exc), EXIT_INTERNAL)
            from evals.store.atomic import os_failure

            _fail(str(os_failure(exc.filename or "(no file named)", exc, "use it")), 2)  # disk full, read-only …
        except Exception as exc:  # noqa: BLE001 - a bug: one line for the user, the traceback in a log
            _fail(unexpected(exc), EXIT_INTERNAL)
        finally:
            with stdout_guard():
                sys.stdout.flush()  # a pipe closed after the last write shows here, not at exit

    return wrapper  # type: ignore[return-value]


def unexpected(exc: BaseException) -> str:
    """One line naming the exception and the log file that holds its traceback."""
    from evals.store.atomic import write_crash_log

    folder = Path(os.environ.get("CITEVAL_LOG_DIR") or tempfile.gettempdir())
    first = (str(exc).splitlines() or [""])[0][:200]
    trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    try:
        log = write_crash_log(folder, f"citeval {evals.__version__}: {' '.join(sys.argv)}\n{trace}")
        where = f"traceback in {log}"
    except OSError:
        where = "no log written"
    return f"unexpected {type(exc).__name__}: {first} (a bug in citeval; {where})"


# --- progress ----------------------------------------------------------------------------------


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


def llm_config(model: str | None, base_url: str | None, provider: str, key_env: str | None) -> Any:
    """The LLM judge's endpoint from --llm-* (None without --llm-model)."""
    from evals.score.judges.llm import LlmConfig

    if not model:
        return None
    return LlmConfig(model=model, provider=provider, base_url=base_url, api_key_env=key_env)  # type: ignore[arg-type]
