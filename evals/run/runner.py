"""`citeval run`: replay a dataset's questions through a backend into a resumable run folder.

runs/<run_id>/manifest.json   what was run (RunManifest), rewritten at start and end
runs/<run_id>/answers.jsonl   one Answer per question, appended as it arrives (fsynced)

A killed run loses at most the line being written: `resume_run` repairs a half-written
last line and asks only the questions that have no answer yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import platform
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals._version import __version__
from evals.contract.config import SettingsFile
from evals.contract.models import RUN_ID_PATTERN, Answer, DatasetRef, Question, RunManifest, RunSettings
from evals.data.registry import Registry
from evals.data.validate import require_valid
from evals.errors import CitevalError, DataError, UsageError
from evals.run.backends import BackendSpec, make_backend, spec_text
from evals.run.backends.base import BaseBackend, error_answer
from evals.run.settings import PRICES_ENV, REFUSAL_PATTERNS_ENV
from evals.store.answers import repair_answers
from evals.store.atomic import LineAppender, crash_point, make_folder_with
from evals.store.jsonl import dump_line, existing_questions_file, load_questions, write_json_atomic
from evals.store.lock import folder_lock
from evals.store.reading import JsonLimits, file_sha256, parse_json, path_sha256
from evals.store.runfolder import ANSWERS, MANIFEST, load_manifest
from evals.store.secrets import is_scrubbed, scrub, scrub_spec

MIN_SECRET_LENGTH = 4  # a shorter backend secret would be replaced all over the answers' text


class RunInterrupted(CitevalError):
    """Ctrl-C: everything answered so far is kept; `--resume` continues."""

    exit_code = 130


def _setting_file(value: Path | str | None) -> str | None:
    """A settings file as the manifest records it: its absolute path (a resume may run elsewhere)."""
    return str(Path(value).resolve()) if value not in (None, "") else None


def _from_environment(name: str) -> str | None:
    return _setting_file(os.environ.get(name))


MAX_CONCURRENCY = 1024
MAX_TIMEOUT_S = 24 * 3600.0
MAX_RETRIES = 20  # past this a retry loop is a hang (each retry waits up to the timeout)


def check_run_numbers(concurrency: Any, timeout: Any, retries: Any, limit: Any = None) -> None:
    """The run's numbers, finite and bounded (a UsageError naming the option otherwise): --timeout nan
    or --retries 100000 would run forever."""
    def whole(value: Any) -> bool:
        return isinstance(value, int) and not isinstance(value, bool)

    if not whole(concurrency) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be a whole number from 1 to {MAX_CONCURRENCY} (got {concurrency!r})")
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or not 0.1 <= timeout <= MAX_TIMEOUT_S:
        raise UsageError(f"--timeout must be a number of seconds from 0.1 to {MAX_TIMEOUT_S:g} (got {timeout!r})")
    if not whole(retries) or not 0 <= retries <= MAX_RETRIES:
        raise UsageError(f"--retries must be a whole number from 0 to {MAX_RETRIES} (got {retries!r})")
    if limit is not None and (not whole(limit) or limit < 1):
        raise UsageError(f"--limit must be a whole number from 1 (got {limit!r})")


@dataclass
class RunOptions:
    concurrency: int = 8
    limit: int | None = None
    timeout: float = 60.0
    retries: int = 2
    label: str | None = None
    # Files that change what a replayed answer becomes: its cost_usd (a price table overriding the
    # shipped one) and whether an uncited text is a refusal (regular expressions replacing the
    # shipped ones). Unset: the environment's CITEVAL_PRICES / CITEVAL_REFUSAL_PATTERNS when the
    # options are made. Either way the manifest records them, so a run says how it was made.
    prices: Path | str | None = field(default_factory=lambda: _from_environment(PRICES_ENV))
    refusal_patterns: Path | str | None = field(default_factory=lambda: _from_environment(REFUSAL_PATTERNS_ENV))
    # the settings file (citeval.toml) the command read: the manifest records its path and sha256
    config: SettingsFile | None = None

    def __post_init__(self) -> None:
        self.prices = _setting_file(self.prices)
        self.refusal_patterns = _setting_file(self.refusal_patterns)
        check_run_numbers(self.concurrency, self.timeout, self.retries, self.limit)

    def as_dict(self) -> dict[str, Any]:
        return {
            "concurrency": self.concurrency, "limit": self.limit, "timeout": self.timeout, "retries": self.retries,
            "prices": self.prices, "refusal_patterns": self.refusal_patterns,
            "config_file": self.config.path if self.config else None,
            "config_sha256": self.config.sha256 if self.config else None,
        }


@dataclass
class RunProgress:
    total: int
    done: int = 0
    errors: int = 0
    skipped: int = 0
    abstained: int = 0
    started: float = field(default_factory=time.monotonic)

    @property
    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return (self.done - self.skipped) / elapsed if elapsed > 0 else 0.0


@dataclass
class RunResult:
    run_dir: Path
    manifest: RunManifest
    answered: int  # questions with an answer line (of any status)
    errors: int
    total: int
    abstained: int = 0

    @property
    def statuses(self) -> dict[str, int]:
        """Answer lines by status (answered, abstained, error)."""
        return {"answered": self.answered - self.abstained - self.errors, "abstained": self.abstained,
                "error": self.errors}

    def to_text(self) -> str:
        """'runs/x: 148 question(s): 140 answered, 6 abstained, 2 error(s)'."""
        counts = self.statuses
        return (f"{self.run_dir}: {self.total} question(s): {counts['answered']} answered, "
                f"{counts['abstained']} abstained, {counts['error']} error(s)\n")

    def to_json(self) -> dict[str, Any]:
        return {
            "run_dir": str(self.run_dir), "run_id": self.manifest.run_id, "answered": self.answered,
            "errors": self.errors, "total": self.total, "statuses": self.statuses,
            "manifest": self.manifest.model_dump(mode="json", exclude_none=True, by_alias=True),
        }


ProgressCallback = Callable[[RunProgress], None]


def dataset_ref(dataset: Path) -> DatasetRef:
    registry = dataset / "registry"
    return DatasetRef(
        path=str(dataset.resolve()),
        questions_sha256=path_sha256(existing_questions_file(dataset)),
        registry_sha256=file_sha256(*(registry / f"{n}.jsonl" for n in ("documents", "versions", "chunks")),
                                    skip_missing=True),
    )


def _new_run_id(spec: str, label: str | None) -> str:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", label or spec.split(":", 1)[0]).strip("-")[:40]
    return f"{stamp}-{name}" if name else stamp


def _answer_line(answer: Answer, secrets: list[str]) -> tuple[Answer, str]:
    """The answers.jsonl line of an answer. One that cannot be written as UTF-8 (a lone surrogate
    from a backend's JSON) becomes an error answer, so the rest of its batch is still written and
    a resumed run does not meet it again."""
    try:
        line = scrub(dump_line(answer), secrets, min_length=MIN_SECRET_LENGTH)
        line.encode("utf-8")
    except (ValueError, UnicodeError) as exc:  # PydanticSerializationError is a ValueError
        reason = str(exc).encode("utf-8", "backslashreplace").decode("utf-8")
        return _unstorable(answer, "unencodable_answer", "holds text that is not valid Unicode", reason, secrets)
    try:
        # what every reader will demand of the line (evals.store.reading): refused here, the run stays scorable
        parse_json(line, ANSWERS)
        if len(line.encode("utf-8")) > JsonLimits.from_env().max_line_bytes:
            raise DataError(ANSWERS, None, f"a line longer than {JsonLimits.from_env().max_line_bytes} bytes")
    except DataError as exc:
        return _unstorable(answer, "unreadable_answer", "is beyond the limits citeval reads answers within",
                           exc.message, secrets)
    return answer, line


def _unstorable(answer: Answer, kind: str, what: str, reason: str, secrets: list[str]) -> tuple[Answer, str]:
    """An error answer in place of one that cannot be saved as it came."""
    failed = error_answer(
        answer.question_id.encode("utf-8", "backslashreplace").decode("utf-8"), kind,
        f"the backend's answer {what} and cannot be saved ({reason[:200]})",
    )
    return failed, scrub(dump_line(failed), secrets, min_length=MIN_SECRET_LENGTH)


async def _answer_one(backend: BaseBackend, question: Question, asked_at: datetime, deadline: float) -> Answer:
    started = time.perf_counter()
    try:
        answer = await asyncio.wait_for(backend.answer(question, asked_at), timeout=deadline)
    except asyncio.TimeoutError:
        return error_answer(question.question_id, "timeout", f"no answer within {deadline:.0f} s")
    except Exception as exc:  # noqa: BLE001 - any backend failure is recorded, never dropped
        return error_answer(question.question_id, type(exc).__name__, str(exc) or type(exc).__name__)
    if answer.question_id != question.question_id:
        return error_answer(
            question.question_id, "question_id_mismatch", f"backend answered {answer.question_id!r} instead"
        )
    if answer.usage is not None and answer.usage.latency_ms is None:
        answer.usage.latency_ms = round((time.perf_counter() - started) * 1000, 1)
    return answer


async def _run_questions(
    backend: BaseBackend,
    questions: list[Question],
    default_asked_at: datetime,
    answers_path: Path,
    options: RunOptions,
    progress: RunProgress,
    on_progress: ProgressCallback | None,
) -> None:
    semaphore = asyncio.Semaphore(max(1, options.concurrency))
    # the whole call, retries included, must end within this; backends time single requests themselves
    # (the http backend waits between attempts at most one timeout: see evals.run.backends.http)
    deadline = options.timeout * (2 * options.retries + 1) + 5
    secrets = backend.secrets()
    pending: asyncio.Queue[Answer | None] = asyncio.Queue()

    async def writer(out: LineAppender) -> None:
        # group commit: write every answer that arrived meanwhile, then one fsync off the event loop
        while True:
            batch = [await pending.get()]
            while not pending.empty():
                batch.append(pending.get_nowait())
            written = [_answer_line(a, secrets) for a in batch if a is not None]
            answers = [answer for answer, _ in written]
            if answers:
                out.write("".join(line for _, line in written), sync=False)
                await asyncio.to_thread(out.sync)
                crash_point("run:answers")
                progress.done += len(answers)
                progress.errors += sum(a.status == "error" for a in answers)
                progress.abstained += sum(a.status == "abstained" for a in answers)
                if on_progress:
                    on_progress(progress)
            if None in batch:
                return

    async def one(question: Question) -> None:
        async with semaphore:
            if writing.done():  # the answers file refused a write (a full disk): ask nothing more
                return
            answer = await _answer_one(backend, question, question.asked_at or default_asked_at, deadline)
        pending.put_nowait(answer)

    with LineAppender(answers_path) as out:
        writing = asyncio.create_task(writer(out))
        try:
            await asyncio.gather(*(one(q) for q in questions))
        finally:
            pending.put_nowait(None)
            await writing
            await backend.aclose()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, `kill`) ends a run as Ctrl-C does: the answers so far kept, the
    manifest saying "interrupted" rather than "running" (main thread only: where signals arrive)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _execute(
    run_dir: Path,
    manifest: RunManifest,
    backend: BaseBackend,
    questions: list[Question],
    options: RunOptions,
    on_progress: ProgressCallback | None,
    retry_errors: bool = False,
) -> RunResult:
    answers_path = run_dir / ANSWERS
    done = repair_answers(answers_path)
    if retry_errors:  # asked again: the new answer's line comes later, and a later line wins
        done = {qid: answer for qid, answer in done.items() if answer.status != "error"}
    todo = [q for q in questions if q.question_id not in done]
    progress = RunProgress(total=len(questions), done=len(questions) - len(todo), skipped=len(questions) - len(todo))
    earlier = [done[q.question_id].status for q in questions if q.question_id in done]
    progress.errors, progress.abstained = earlier.count("error"), earlier.count("abstained")
    if on_progress:
        on_progress(progress)
    manifest.finished_at = None
    manifest.options.status = "running"
    write_json_atomic(run_dir / MANIFEST, manifest)
    try:
        with _terminate_as_interrupt():
            asyncio.run(_run_questions(backend, todo, manifest.started_at, answers_path, options, progress,
                                       on_progress))
    except (KeyboardInterrupt, asyncio.CancelledError):
        manifest.options.status = "interrupted"
        write_json_atomic(run_dir / MANIFEST, manifest)
        raise RunInterrupted(
            f"interrupted; {progress.done} of {progress.total} answered; resume with --resume {run_dir}"
        ) from None
    manifest.finished_at = datetime.now(timezone.utc)
    manifest.options.status = "finished"
    write_json_atomic(run_dir / MANIFEST, manifest)
    return RunResult(run_dir, manifest, answered=progress.done, errors=progress.errors, total=progress.total,
                     abstained=progress.abstained)


def _prepare(dataset: Path, spec: BackendSpec, options: RunOptions) -> tuple[list[Question], BaseBackend]:
    """The questions to ask (after --limit) and the backend that answers them.

    A dataset that does not validate is refused here (DatasetNotValid, exit 2), before any backend
    call or run folder: scores over a broken registry would look like the system's faults.
    """
    require_valid(dataset)
    registry = Registry.load(dataset)
    questions = load_questions(dataset)
    if options.limit is not None:
        questions = questions[: options.limit]
    if not questions:
        raise DataError(existing_questions_file(dataset), None, "holds no questions; a run of none measures nothing")
    backend = make_backend(
        spec, registry, timeout=options.timeout, retries=options.retries, concurrency=options.concurrency,
        dataset=dataset, prices=options.prices, refusal_patterns=options.refusal_patterns,
    )
    return questions, backend


def start_run(
    dataset: Path | str,
    backend_spec: BackendSpec,
    *,
    out: Path | str = "runs",
    run_id: str | None = None,
    options: RunOptions | None = None,
    on_progress: ProgressCallback | None = None,
    keep_dataset_as: str | None = None,
) -> RunResult:
    """Answer every question of DATASET with the backend SPEC (or a backend object, or a callable
    taking the request payload) into OUT/<run_id>/.

    keep_dataset_as: move DATASET — a folder made for this one run, such as the questions `citeval
    probe` generates — into the run folder under this name, in the rename that makes the folder;
    the manifest records it there, so the run carries what it was asked."""
    dataset = Path(dataset)
    options = options or RunOptions()
    questions, backend = _prepare(dataset, backend_spec, options)
    recorded_spec = spec_text(backend_spec)
    run_id = run_id or _new_run_id(recorded_spec, options.label)
    if not RUN_ID_PATTERN.fullmatch(run_id) or run_id in (".", ".."):
        raise UsageError(f"run id {run_id!r} may hold only letters, digits, '.', '_' and '-'")
    run_dir = Path(out) / run_id
    if run_dir.exists():
        raise UsageError(f"run folder {run_dir} exists; continue it with --resume {run_dir}")
    ref = dataset_ref(dataset)
    if keep_dataset_as is not None:
        ref.path = str((run_dir / keep_dataset_as).resolve())
    manifest = RunManifest(
        run_id=run_id,
        label=options.label,
        started_at=datetime.now(timezone.utc),
        dataset=ref,
        backend=scrub_spec(recorded_spec),
        citeval_version=__version__,
        options=RunSettings(**options.as_dict(), python=platform.python_version(), questions=len(questions)),
    )
    # the folder appears with its manifest in one rename: never a run folder that cannot be resumed
    make_folder_with(
        run_dir, {MANIFEST: (manifest.model_dump_json(indent=2, exclude_none=True) + "\n").encode("utf-8")},
        point="run:folder-staged", move_in={keep_dataset_as: dataset} if keep_dataset_as is not None else None,
    )
    with folder_lock(run_dir, "citeval run"):
        return _execute(run_dir, manifest, backend, questions, options, on_progress)


def _same_settings(saved: RunSettings, prices: Path | str | None, refusal_patterns: Path | str | None) -> None:
    """Settings given again to a resume (an option or the environment) must be the run's own: the
    answers of one run are never priced, or read as refusals, two ways."""
    for name, given, own in (
        ("prices", prices, saved.prices), ("refusal patterns", refusal_patterns, saved.refusal_patterns),
    ):
        if _setting_file(given) not in (None, own):
            flag = "--" + name.replace(" ", "-")
            raise UsageError(
                f"this run was made with {name} {own or '(the shipped ones)'}, not {_setting_file(given)}: resume it "
                f"without {flag} (and its environment variable) or start a new run"
            )


def resume_run(
    run_dir: Path | str,
    *,
    backend_spec: BackendSpec | None = None,
    options: RunOptions | None = None,
    on_progress: ProgressCallback | None = None,
    prices: Path | str | None = None,
    refusal_patterns: Path | str | None = None,
    retry_errors: bool = False,
) -> RunResult:
    """Continue a run: same dataset, backend and settings, only the questions without an answer
    (retry_errors: and those whose answer is an error, e.g. after an outage). prices /
    refusal_patterns, when given, must be the files the run was made with. The run folder's lock
    is held throughout: a second resume waits or refuses (evals.store.lock)."""
    run_dir = Path(run_dir)
    load_manifest(run_dir)  # a folder without a manifest is no run folder: said so before any lock
    with folder_lock(run_dir, "citeval run --resume"):
        return _resume_locked(run_dir, backend_spec, options, on_progress, prices, refusal_patterns, retry_errors)


def _resume_locked(
    run_dir: Path,
    backend_spec: BackendSpec | None,
    options: RunOptions | None,
    on_progress: ProgressCallback | None,
    prices: Path | str | None,
    refusal_patterns: Path | str | None,
    retry_errors: bool = False,
) -> RunResult:
    manifest = load_manifest(run_dir)  # read again under the lock: the last writer's
    dataset = Path(manifest.dataset.path)
    current = dataset_ref(dataset)
    if current.questions_sha256 != manifest.dataset.questions_sha256:
        raise UsageError(f"the questions of {dataset} changed since this run started; start a new run")
    saved = manifest.options
    _same_settings(saved, prices, refusal_patterns)
    options = options or RunOptions(
        concurrency=saved.concurrency, limit=saved.limit, timeout=saved.timeout, retries=saved.retries,
        label=manifest.label,
    )
    options.prices, options.refusal_patterns = saved.prices, saved.refusal_patterns  # the run's own, always
    if backend_spec == "":
        backend_spec = None  # as if not given: the run's own
    if backend_spec is None and is_scrubbed(manifest.backend):
        raise UsageError("the saved backend spec had secrets removed; pass --backend again with --resume")
    questions, backend = _prepare(dataset, manifest.backend if backend_spec is None else backend_spec, options)
    return _execute(run_dir, manifest, backend, questions, options, on_progress, retry_errors)
