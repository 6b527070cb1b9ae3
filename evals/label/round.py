"""`citeval label push|pull` as one call each: a run's answers or a quotes file's citations,
to a Label Studio server or through files (a server citeval cannot reach)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import UsageError
from evals.label.export import parse_rater_flags
from evals.label.pull import PullReport, pull
from evals.label.push import DEFAULT_BATCH, PushResult, push, write_tasks_file
from evals.label.quotes import QuotePullReport, pull_quotes, push_quotes, write_quote_tasks_file
from evals.store.lock import folder_lock
from evals.store.runfolder import load_manifest

ROUND_KINDS: tuple[str, ...] = ("run", "quotes")  # a run's answers; a quotes file's citations


@dataclass
class TasksFileResult:
    """Tasks written as a Label Studio import file instead of pushed to a server."""

    path: Path
    tasks: int

    def summary(self) -> str:
        return f"{self.path}: {self.tasks} task(s) in Label Studio import format"

    def to_json(self) -> dict[str, Any]:
        return {"file": str(self.path), "tasks": self.tasks}


def _is_quotes(kind: str) -> bool:
    if kind not in ROUND_KINDS:
        raise UsageError(f"unknown kind {kind!r} (expected {' or '.join(ROUND_KINDS)})")
    return kind == "quotes"


def push_round(
    target: Path | str,
    *,
    kind: str = "run",
    project: str | None = None,
    to_file: Path | str | None = None,
    predictions: bool = False,
    lang: str = "ru",
    batch_size: int = DEFAULT_BATCH,
    matcher: str | None = None,
) -> PushResult | TasksFileResult:
    """Push a run folder's answers (kind run) or a quotes file's citations (kind quotes) to the
    project titled `project`, or write them to `to_file` as Label Studio import JSON."""
    quotes = _is_quotes(kind)
    if quotes:
        if to_file is not None:
            return TasksFileResult(Path(to_file), write_quote_tasks_file(target, to_file, lang=lang, matcher=matcher))
        if not project:
            raise UsageError("give --project TITLE (or --to-file tasks.json)")
        return push_quotes(target, project, lang=lang, matcher=matcher, batch_size=batch_size)
    if to_file is None and not project:
        raise UsageError("give --project TITLE (or --to-file tasks.json)")
    load_manifest(target)  # a folder without a manifest is no run folder: said so before any lock
    with folder_lock(target, "citeval label push"):  # a second push of the run waits or refuses
        if to_file is not None:
            return TasksFileResult(Path(to_file), write_tasks_file(target, to_file, predictions=predictions, lang=lang))
        assert project is not None
        return push(target, project, predictions=predictions, lang=lang, batch_size=batch_size)


def pull_round(
    target: Path | str,
    *,
    kind: str = "run",
    project: str | None = None,
    from_file: Path | str | None = None,
    raters: Sequence[str] = (),
    anonymous_raters: bool = False,
    count_predictions: bool = False,
    out: Path | str | None = None,
    gold_rater: str | None = None,
) -> PullReport | QuotePullReport:
    """Pull the raters' labels: a run's judgments gain human:<rater> rows (kind run), or the
    quotes file comes back with gold at `out` (kind quotes). `raters` are --rater flags
    (ID=EMAIL; annotation:ID=EMAIL for kind run only)."""
    quotes = _is_quotes(kind)
    rater_flags = parse_rater_flags(raters)
    if quotes:
        if any(not key.isdigit() for key in rater_flags):
            raise UsageError("--rater annotation:ID=EMAIL is for --kind run; quotes take --rater ID=EMAIL")
        emails = {int(key): email for key, email in rater_flags.items()}
        if out is None:
            raise UsageError("give --out QUOTES.jsonl: the quotes file with the raters' gold")
        return pull_quotes(target, out, project, from_file=from_file, raters=emails, gold_rater=gold_rater)
    load_manifest(target)  # a folder without a manifest is no run folder: said so before any lock
    with folder_lock(target, "citeval label pull"):  # never beside a score that replaces judgments.jsonl
        return pull(
            target, project, from_file=from_file, rater_flags=rater_flags, anonymous_raters=anonymous_raters,
            count_predictions=count_predictions,
        )
