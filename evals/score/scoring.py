"""`citeval score`: checks, judges and metrics over a saved run; never re-runs the backend.

Writes findings.jsonl, judgments.jsonl (auto rows of the chosen judge replaced, human and
adjudicated rows kept), per_question.jsonl (and per_question.parquet when asked) and
scores.json into the run folder.

Production-size runs (issue 22): the answers are streamed, never all held. One pass over
answers.jsonl notes where each question's answer line stands (evals.store.answerindex); the questions
are read in file order and cut into shards of SHARD_SIZE answered questions; each shard is read,
checked, judged and scored by `evals.score.shard` — in this process, or in `workers` processes that
load the registry once each — and its lines are appended, in question order, to staging files
in the run folder. What the run-level metrics need stays in compact columns (evals.score.columns),
from which scores.json is computed. Only when everything is written are the staging files moved
over the old ones (scores.json last), so a failed or interrupted scoring leaves the previous
outputs as they were. The result is the same for any number of workers and any shard size:
scores.json is byte-identical except `scored_at`, the time it was written.
"""

from __future__ import annotations

import math
import os
import pickle
import shutil
import threading
from array import array
from collections import deque
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from contextlib import ExitStack, closing, contextmanager, suppress
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from functools import cached_property, partial
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from evals._version import __version__
from evals.contract.config import SettingsFile
from evals.contract.metrics import CITATION_COMPLETENESS, CITATION_CORRECTNESS, CONTEXT_SUPPORT
from evals.contract.models import Answer, Judgment, Question
from evals.contract.scores import (
    SCORES_SCHEMA_VERSION,
    JudgeAgreement,
    JudgeSummary,
    JudgeUsage,
    QuestionScore,
    Scores,
)
from evals.data.registry import Registry
from evals.data.validate import require_valid
from evals.errors import DataError, UsageError
from evals.score.checks import check_answer
from evals.score.columns import RunColumns
from evals.score.facts import AnswerCheck
from evals.score.judges.agreement import judge_agreement
from evals.score.judges.base import SupportJudge
from evals.score.judges.cascade import CascadeSettings
from evals.score.judges.factory import make_judge
from evals.score.judges.faithfulness import FaithfulnessResult, FaithfulnessSample, ragas_faithfulness_sync
from evals.score.judges.llm import LlmConfig
from evals.score.memory import release_free_memory
from evals.score.metrics import NO_SUPPORT_JUDGE, PER_ANSWER, AnswerScore, build_scores
from evals.score.provenance import provenance
from evals.score.shard import (
    SHARD_SIZE,
    Faithfulness,
    ShardFailure,
    ShardResult,
    ShardSettings,
    ShardTask,
    faithfulness_samples,
    init_worker,
    judge_units,
    run_task,
    worker_task,
)
from evals.stats.bootstrap import SEED
from evals.store.answerindex import AnswerIndex, read_lines
from evals.store.answers import answer_from_line
from evals.store.atomic import (
    crash_point,
    open_staged_text,
    remove_staging_leftovers,
    staging_folder,
    system_errors,
)
from evals.store.jsonl import dump_line, iter_question_objects, validation_errors, write_json_atomic
from evals.store.lock import folder_lock
from evals.store.runfolder import (
    ANSWERS,
    FINDINGS,
    JUDGE_CACHE,
    JUDGMENTS,
    PER_QUESTION,
    PER_QUESTION_PARQUET,
    SCORES,
    RunFolder,
    ScoreSet,
    iter_judgments,
    require_not_running,
)

if TYPE_CHECKING:  # pyarrow is imported only when per_question.parquet is asked for
    from evals.store.perquestion import ParquetRows

__all__ = [
    "SHARD_SIZE",
    "UNSTABLE_FIELDS",
    "ScoreResult",
    "available_cores",
    "check_run",
    "faithfulness_samples",
    "judge_units",
    "score_run",
]

# scores.json fields that differ between two scorings of the same run with the same options
# (the only ones: any number of workers, any shard size gives the same bytes otherwise).
UNSTABLE_FIELDS = ("scored_at",)
# Metrics whose per-answer value needs a support label; when the judge failed on every unit
# their null entries say so.
_SUPPORT_METRICS = (CITATION_CORRECTNESS, CITATION_COMPLETENESS)
# what a support metric still counts when no label came from the judge
_JUDGE_FREE = {
    CITATION_CORRECTNESS: "the value counts only invalid markers, and labels given by people",
    CITATION_COMPLETENESS: "the value counts only uncited claims, and labels given by people",
}


def available_cores() -> int:
    """The cores this process may run on (os.sched_getaffinity), the default worker count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@dataclass
class ScoreResult:
    run_dir: Path
    scores: Scores
    workers: int = 1  # processes that scored the shards (1: this one)

    def to_text(self) -> str:
        """The metrics table of the run (overall and per risk tier), titled with the run folder."""
        return self.scores.to_text(str(self.run_dir))

    @cached_property
    def checks(self) -> list[AnswerCheck]:
        """Every answer's checks, computed again on first use (the scoring keeps none: a large run's
        checks do not fit in memory); for small runs such as a probe's."""
        run = RunFolder(self.run_dir)
        return check_run(run.registry, run.question_list, run.answers, run.manifest.started_at)

    @cached_property
    def per_question(self) -> list[AnswerScore]:
        """The scored answers as their per_question rows hold them (values rounded to 6 digits),
        in question order, read back on first use."""
        return [_answer_score(row) for row in RunFolder(self.run_dir).iter_per_question()]


def _answer_score(row: QuestionScore) -> AnswerScore:
    extra = [k for k, v in (row.model_extra or {}).items() if isinstance(v, int | float) or v is None]
    return AnswerScore(
        question_id=row.question_id, risk_tier=row.risk_tier, tags=list(row.tags), status=row.status,
        values={name: row.value(name) for name in (*PER_ANSWER, *extra)}, reasons=dict(row.reasons),
        anchor_levels=list(row.anchor_levels), abstained=row.abstained, should_abstain=row.should_abstain,
        markers=row.markers, valid_markers=row.valid_markers, findings=list(row.findings), accepted=row.accepted,
        cost_usd=row.cost_usd,
        ppi_inputs={name: (side.get("human"), side.get("judge")) for name, side in (row.ppi_inputs or {}).items()},
    )


def check_run(
    registry: Registry, questions: list[Question], answers: dict[str, Answer], default_asked_at: datetime
) -> list[AnswerCheck]:
    return [
        check_answer(q, answers[q.question_id], registry, q.asked_at or default_asked_at)
        for q in questions
        if q.question_id in answers
    ]


def score_run(
    run_dir: Path | str,
    *,
    judge: SupportJudge | str | None = "offline",
    llm: LlmConfig | None = None,
    ragas: bool = False,
    faithfulness: Callable[[list[FaithfulnessSample]], list[FaithfulnessResult]] | None = None,
    seed: int = SEED,
    workers: int | None = None,
    parquet: bool = False,
    shard_size: int = SHARD_SIZE,
    gates: Path | str | None = None,
    config: SettingsFile | None = None,
    cascade: CascadeSettings | None = None,
) -> ScoreResult:
    """Score a run folder.

    judge: "offline" (default), "llm" (with `llm`), "none"/None, or a SupportJudge; its labels
    replace that judge's earlier auto rows, human and adjudicated rows are kept. LLM verdicts
    are cached in the run (judge_cache.jsonl), so re-scoring costs nothing. ragas: Ragas
    faithfulness through the same LLM endpoint (or pass a `faithfulness` callable).
    workers: processes scoring shards in parallel (default: the cores available; a judge object
    or callable that cannot be pickled keeps the work in this process). parquet: also write
    per_question.parquet (pyarrow, and the pandas it imports, add about 75 MB to each process:
    asked for, never automatic, so a run's memory does not jump with its size). gates: the gates
    file that will gate this run (`citeval eval`), recorded with its sha256 in the provenance, so
    scores.json is written once. config: the settings file (citeval.toml) the command read,
    recorded with its sha256 in the provenance. cascade: for judge="cascade", which units go to
    the LLM (the least confident share, default 0.2, or those below a confidence).
    """
    run_dir = Path(run_dir)
    _check_sizes(workers, shard_size)
    RunFolder(run_dir).manifest  # noqa: B018 - a folder without a manifest is no run folder: said so first
    with folder_lock(run_dir, "citeval score"), system_errors(run_dir):  # one writer (evals.store.lock)
        if judge == "cascade":  # built here: its settings travel with the object (to workers too), not the name
            judge = make_judge("cascade", llm=llm, cache_path=run_dir / JUDGE_CACHE, cascade=cascade)
        return _score_locked(run_dir, judge, llm, ragas, faithfulness, seed, workers, parquet, shard_size, gates,
                             config)


def _score_locked(
    run_dir: Path,
    judge: SupportJudge | str | None,
    llm: LlmConfig | None,
    ragas: bool,
    faithfulness: Callable[[list[FaithfulnessSample]], list[FaithfulnessResult]] | None,
    seed: int,
    workers: int | None,
    parquet: bool,
    shard_size: int,
    gates: Path | str | None,
    config: SettingsFile | None,
) -> ScoreResult:
    """score_run with the run folder's lock held: what it reads at its start (the labels, the
    answers) is what it replaces and hashes at its end."""
    run = RunFolder(run_dir)
    require_not_running(run_dir, run.manifest)  # a run still answering, or one that died doing it
    require_valid(run.require_dataset())  # the dataset may have changed since the run; nothing written if broken
    judge, judge_spec = _judge_of(judge, llm, run_dir)
    faithfulness = _faithfulness_of(ragas, faithfulness, llm)
    manifest = run.manifest
    answers_path = run.file(ANSWERS)
    index = AnswerIndex(answers_path)  # read-only: a torn last line is left out, as every reader does
    release_free_memory()  # what building the index needed and let go
    settings = _shard_settings(run, answers_path, judge, llm, faithfulness, parquet)
    shards = math.ceil(len(index) / shard_size)
    workers = min(workers or available_cores(), max(shards, 1))
    source = f"auto:{judge.name}" if judge is not None else None

    with _Staging(run_dir, answers_path, index.end) as staging, ExitStack() as stack:
        labels = _Labels(run.file(JUDGMENTS), source, staging.stream(JUDGMENTS) if judge is not None else None)
        settings.raters = bool(labels.by_question)
        context = _context() if workers > 1 else None
        pool_settings = _pool_settings(settings, judge_spec, workers) if context is not None else None
        feed = _Questions(Path(settings.questions_path or ""), index, labels, shard_size)
        outputs = _ShardOutputs.start(staging, parquet)
        if pool_settings is None:
            results = _scored_here(feed, settings, judge, stack)
        else:
            results = _in_pool(feed.tasks(), pool_settings, workers, context)
        totals = _write_shards(results, outputs)
        feed.check_unique()
        unused = index.unused()
        del index, feed.index  # the bootstrap below gets their memory (365,000 answers: 15 MB)
        _check_unscored_answers(answers_path, unused)
        outputs.close_table()
        staging.close_files()  # judge agreement reads the new judgments.jsonl
        scores = _scores(totals, feed, labels, judge, faithfulness, manifest, seed, staging, run, (gates, config))
        staging.write_json(SCORES, scores.to_json())
        staging.commit(remove=() if parquet else (PER_QUESTION_PARQUET,))
    return ScoreResult(run_dir, scores, workers if pool_settings is not None else 1)


# --- the parts of score_run -------------------------------------------------------------


def _check_sizes(workers: int | None, shard_size: int) -> None:
    if workers is not None and workers < 1:
        raise UsageError("--workers must be at least 1")
    if shard_size < 1:
        raise UsageError("shard_size must be at least 1")


def _judge_of(
    judge: SupportJudge | str | None, llm: LlmConfig | None, run_dir: Path
) -> tuple[SupportJudge | None, Any]:
    """The judge to score with, and how a worker process builds it: by name when it was given
    by name (a judge object is sent as it is, see _pool_settings)."""
    judge_spec: Any = judge
    if isinstance(judge, str):
        judge = None if judge == "none" else make_judge(judge, llm=llm, cache_path=run_dir / JUDGE_CACHE)
        judge_spec = None if judge is None else judge_spec
    return judge, judge_spec


def _faithfulness_of(
    ragas: bool, faithfulness: Faithfulness | None, llm: LlmConfig | None
) -> Faithfulness | None:
    """The faithfulness callable: the one given, else Ragas through the LLM endpoint when asked for."""
    if ragas and faithfulness is None:
        if llm is None:
            raise UsageError("--ragas needs an LLM endpoint: --llm-model with --llm-base-url or --llm-provider")
        faithfulness = partial(
            ragas_faithfulness_sync, provider=llm.provider, base_url=llm.base_url, model=llm.model,
            api_key_env=llm.api_key_env,
        )
    return faithfulness


def _shard_settings(
    run: RunFolder,
    answers_path: Path,
    judge: SupportJudge | None,
    llm: LlmConfig | None,
    faithfulness: Faithfulness | None,
    parquet: bool,
) -> ShardSettings:
    """What every shard is scored with (the same in this process and in each worker)."""
    manifest = run.manifest
    settings = ShardSettings(
        dataset=str(run.dataset_path),
        run_id=manifest.run_id,
        default_asked_at=manifest.started_at,
        judged_at=datetime.now(timezone.utc),
        judge=judge,
        llm=llm,
        cache_path=str(run.file(JUDGE_CACHE)),
        faithfulness=faithfulness,
        questions_path=str(run.questions_file),
        answers_path=str(answers_path),
    )
    if parquet:
        from evals.store.perquestion import schema, table_of

        settings.parquet_schema = schema(PER_ANSWER)
        table_of([], settings.parquet_schema)  # pyarrow imports pandas now: forked workers share it
    return settings


ShardResults = Generator[ShardResult | ShardFailure, None, None]


@dataclass
class _ShardOutputs:
    """The staging files every scored shard is appended to, in question order."""

    per_question: IO[str]
    findings: IO[str]
    judgments: IO[str] | None  # None: no judge, judgments.jsonl is left as it is
    table: ParquetRows | None = None  # per_question.parquet, when asked for

    @classmethod
    def start(cls, staging: _Staging, parquet: bool) -> _ShardOutputs:
        outputs = cls(staging.stream(PER_QUESTION), staging.stream(FINDINGS), staging.handles.get(JUDGMENTS))
        if parquet:
            from evals.store.perquestion import ParquetRows

            outputs.table = ParquetRows(staging.path(PER_QUESTION_PARQUET), PER_ANSWER)
        return outputs

    def write(self, result: ShardResult) -> None:
        self.per_question.write(result.per_question)
        self.findings.write(result.findings)
        if self.judgments is not None:
            self.judgments.write(result.judgments)
        if self.table is not None and result.table is not None:
            self.table.write(result.table)

    def close_table(self) -> None:
        if self.table is not None:
            self.table.close()


def _scored_here(feed: _Questions, settings: ShardSettings, judge: SupportJudge | None,
                 stack: ExitStack) -> ShardResults:
    """The shards scored in this process, on one registry kept out of the collector's sight
    until the stack closes."""
    registry = Registry.load(settings.dataset)
    stack.enter_context(_frozen_heap())
    return (run_task(task, settings, registry, judge) for task in feed.tasks())


def _write_shards(results: ShardResults, outputs: _ShardOutputs) -> _Totals:
    """Each shard's lines written as it comes, its columns and counts added up; a shard that
    failed raises its error."""
    totals = _Totals()
    with closing(results):  # an error stops the workers at once, not when the generator is collected
        for result in results:
            if isinstance(result, ShardFailure):
                raise result.error()
            totals.add(result)
            outputs.write(result)
            del result
            release_free_memory()  # the shard's lines, written: its pages go back, not kept
    return totals


def _check_unscored_answers(answers_path: Path, unused: list[tuple[int, int, int]]) -> None:
    """The answer lines no shard scored (answers to no question of the dataset, answers a later
    line replaced) are still read as answers: a broken one fails the scoring like any other."""
    for lineno, line in read_lines(answers_path, unused):
        answer_from_line(answers_path, lineno, line)
    release_free_memory()


def _pool_settings(settings: ShardSettings, judge_spec: Any, workers: int) -> ShardSettings | None:
    """Settings for worker processes: a judge by name is built in each worker, an LLM judge's
    concurrency is shared out so that the run keeps the same bound on requests in flight.
    None when the judge or faithfulness callable cannot be sent to another process."""
    llm = settings.llm
    if llm is not None:
        llm = replace(llm, max_concurrency=max(1, llm.max_concurrency // workers))
    pooled = replace(settings, judge=judge_spec if isinstance(judge_spec, str) else settings.judge, llm=llm)
    try:
        pickle.dumps(pooled)
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return pooled


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """The objects alive now (imported code, the registry) move out of the garbage collector's
    sight while the shards are scored, and back afterwards: a full collection would otherwise
    walk them all, again and again — half the scoring time of a 10,000-answer run."""
    import gc

    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def _context() -> Any:
    """fork where it is safe (on Linux, with no thread but daemon helpers such as tqdm's monitor:
    workers start at once, sharing the imported code); forkserver or spawn otherwise, which
    re-import the main module — None when that cannot work (a script read from stdin), and the
    shards are then scored in this process."""
    import multiprocessing
    import sys

    methods = multiprocessing.get_all_start_methods()
    others = [t for t in threading.enumerate() if t is not threading.current_thread()]
    if "fork" in methods and all(t.daemon for t in others):
        return multiprocessing.get_context("fork")
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    if main is not None and not Path(main).exists():
        return None
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _in_pool(
    tasks: Iterator[ShardTask], settings: ShardSettings, workers: int, context: Any
) -> Generator[ShardResult | ShardFailure, None, None]:
    """Results in task order, at most two tasks a worker in flight (the rest are not read yet)."""
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=init_worker, initargs=(settings,))
    pending: deque[Future[ShardResult | ShardFailure]] = deque()
    try:
        for task in tasks:
            pending.append(pool.submit(worker_task, task))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class _Labels:
    """The run's judgments, streamed once: rows of the judge being replaced are dropped, the rest
    copied to the staging judgments.jsonl; human and adjudicated rows are kept by question for
    the shards (they win over auto labels, DESIGN 5)."""

    def __init__(self, path: Path, source: str | None, out: IO[str] | None) -> None:
        self.path = path
        self.by_question: dict[str, list[Judgment]] = {}
        self.human_support: set[tuple[str, str | None, str | None]] = set()
        if not path.exists():
            return
        for judgment in iter_judgments(path):
            if out is not None and judgment.source != source:
                out.write(dump_line(judgment))
            if not judgment.source.startswith("auto:"):
                self.by_question.setdefault(judgment.question_id, []).append(judgment)
                if judgment.field == "support":
                    self.human_support.add((judgment.question_id, judgment.claim_id, judgment.evidence_id))


class _Questions:
    """The questions in file order, cut into tasks of shard_size answered questions; counts the
    unanswered ones and checks that no question_id repeats (by hash, confirmed by id)."""

    def __init__(self, path: Path, index: AnswerIndex, labels: _Labels, shard_size: int) -> None:
        self.path = path
        self.index = index
        self.labels = labels
        self.shard_size = shard_size
        self.unanswered = 0
        self.total = 0
        self._hashes: array[int] = array("q")
        self._lines: array[int] = array("q")

    def _id(self, lineno: int, obj: dict[str, Any]) -> str:
        qid = obj.get("question_id")
        if not isinstance(qid, str):
            self._validate(lineno, obj)  # the model's own message names what is wrong
            raise DataError(self.path, lineno, "question_id must be a string", field="question_id")
        return qid

    def _validate(self, lineno: int, obj: dict[str, Any]) -> Question:
        from pydantic import ValidationError

        try:
            return Question.model_validate(obj)
        except ValidationError as exc:
            raise validation_errors(self.path, lineno, exc)[0] from None

    def tasks(self) -> Iterator[ShardTask]:
        task = ShardTask([], [], [])
        block: list[tuple[int, dict[str, Any], str]] = []
        for lineno, obj in iter_question_objects(self.path):
            qid = self._id(lineno, obj)
            self._hashes.append(hash(qid))
            self._lines.append(lineno)
            block.append((lineno, obj, qid))
            if len(block) >= self.shard_size:
                yield from self._fill(task, block)
                block = []
        yield from self._fill(task, block)
        if task.questions:
            yield task

    def _fill(self, task: ShardTask, block: list[tuple[int, dict[str, Any], str]]) -> Iterator[ShardTask]:
        """Add a block of questions to the task being filled; yield it each time it is full."""
        self.total += len(block)
        for (lineno, obj, qid), where in zip(block, self.index.locate([q for _, _, q in block]), strict=True):
            if where is None:
                self._validate(lineno, obj)  # scored nowhere, still checked
                self.unanswered += 1
                continue
            task.questions.append((lineno, obj))
            task.answers.append(where)
            task.labels.extend(self.labels.by_question.get(qid, ()))
            if len(task.questions) >= self.shard_size:
                yield ShardTask(list(task.questions), list(task.answers), list(task.labels))
                task.questions.clear()
                task.answers.clear()
                task.labels.clear()

    def check_unique(self) -> None:
        """A repeated question_id is a DataError naming its (first repeated) line; the hashes
        and line numbers kept for it are let go afterwards."""
        hashes = np.frombuffer(self._hashes, dtype=np.int64) if self._hashes else np.empty(0, dtype=np.int64)
        ordered = np.sort(hashes)
        if not (ordered[1:] == ordered[:-1]).any():  # the common case, without an argsort's arrays
            self._hashes, self._lines = array("q"), array("q")
            return
        del ordered
        order = np.argsort(hashes, kind="stable")
        same = np.flatnonzero(hashes[order][1:] == hashes[order][:-1])
        del hashes
        line_numbers, self._hashes, self._lines = self._lines, array("q"), array("q")
        suspects = {int(order[k]) for k in same} | {int(order[k + 1]) for k in same}
        lines = {line_numbers[k] for k in suspects}
        seen: dict[str, int] = {}
        for lineno, obj in iter_question_objects(self.path):
            if lineno in lines:
                qid = obj["question_id"]
                if qid in seen:
                    raise DataError(self.path, lineno, f"duplicate question_id {qid!r}")
                seen[qid] = lineno


class _Totals:
    """What the shards add up to, merged in shard order."""

    def __init__(self) -> None:
        self.columns = RunColumns()
        self.units = 0
        self.failed = 0
        self.usage: dict[str, Any] | None = None
        self.faithfulness_failures: set[str] = set()

    def add(self, result: ShardResult) -> None:
        self.columns.extend(result.columns)
        self.units += result.units
        self.failed += result.failed
        self.faithfulness_failures.update(result.faithfulness_failures)
        if result.usage is not None:
            self.usage = _add_usage(self.usage, result.usage)


def _add_usage(total: dict[str, Any] | None, part: dict[str, Any]) -> dict[str, Any]:
    if total is None:
        return dict(part)
    out = dict(total)
    for name, value in part.items():
        if name == "last_failure":
            out[name] = value or out.get(name)
        elif name == "cost_usd":
            out[name] = None if value is None or out.get(name) is None else out[name] + value
        else:
            out[name] = out.get(name, 0) + value
    return out


def _judge_usage(judge: SupportJudge | None, merged: dict[str, Any] | None) -> JudgeUsage | None:
    usage = getattr(judge, "usage", None)
    if usage is None or not hasattr(usage, "to_json"):
        return None
    doc = usage.to_json() if merged is None else replace(usage, **merged).to_json()
    return JudgeUsage.model_validate(doc)


def _scores(
    totals: _Totals,
    feed: _Questions,
    labels: _Labels,
    judge: SupportJudge | None,
    faithfulness: Any,
    manifest: Any,
    seed: int,
    staging: _Staging,
    run: RunFolder,
    recorded: tuple[Path | str | None, SettingsFile | None] = (None, None),
) -> Scores:
    body = build_scores(totals.columns, seed)
    extra: dict[str, Any] = {}
    if judge is not None:
        extra["judge_summary"] = JudgeSummary(units=totals.units, failed=totals.failed)
        usage = _judge_usage(judge, totals.usage)
        if usage is not None:
            extra["judge_usage"] = usage
        if totals.units and totals.failed >= totals.units:
            _say_judge_failed(body, judge, usage)
    else:
        _say_no_judge(body)
    if faithfulness is not None:
        extra["faithfulness_failures"] = sorted(totals.faithfulness_failures)[:20]
    if labels.human_support:
        rows = staging.path(JUDGMENTS) if judge is not None else run.file(JUDGMENTS)
        extra["judge_agreement"] = {
            name: JudgeAgreement.model_validate(entry)
            for name, entry in judge_agreement(_agreement_rows(rows, labels.human_support)).items()
        }
    header = {
        "schema_version": SCORES_SCHEMA_VERSION,
        "run_id": manifest.run_id,
        "label": manifest.label,
        "scored_at": datetime.now(timezone.utc),
        "citeval_version": __version__,
        "judge": judge.name if judge is not None else None,
        "seed": seed,
        "n_unanswered": feed.unanswered,
    }
    gates, config = recorded  # the gates file and the settings file, for the provenance
    record = provenance(judge=judge, seed=seed, gates_file=gates, config=config)
    return body.model_copy(update={**header, **extra, "provenance": record})


def _say_no_judge(scores: Scores) -> None:
    """No support judge ran: the judged metrics left null say so (overall, by tier, by tag)."""
    breakdowns = [*scores.by_tier.values(), *scores.by_tag.values()]
    for metrics in [scores.metrics, *(b.metrics for b in breakdowns)]:
        for name in (*_SUPPORT_METRICS, CONTEXT_SUPPORT):
            entry = metrics.get(name)
            if entry is not None and entry.value is None:
                entry.reason = NO_SUPPORT_JUDGE


def _say_judge_failed(scores: Scores, judge: SupportJudge, usage: JudgeUsage | None) -> None:
    """The judge failed on every unit: the support metrics it left null say so (overall, by tier, by tag)."""
    who = "the LLM judge" if judge.name == "llm" else f"the {judge.name} judge"
    reason = f"{who} failed on every unit"
    last = getattr(usage, "last_failure", None) if usage is not None else None
    if last:
        reason += f": {last}"
    breakdowns = [*scores.by_tier.values(), *scores.by_tag.values()]
    sections = [scores.metrics, *(b.metrics for b in breakdowns)]
    for metrics in sections:
        for name in _SUPPORT_METRICS:
            entry = metrics.get(name)
            if entry is not None:
                entry.reason = reason if entry.value is None else f"{reason} ({_JUDGE_FREE[name]})"


def _agreement_rows(path: Path, units: set[tuple[str, str | None, str | None]]) -> Iterator[Judgment]:
    """The support rows judge agreement reads: every row of a unit a person labelled, and one row
    of each auto judge (so a judge that shares no unit with the people still gets its entry)."""
    judges: set[str] = set()
    for judgment in iter_judgments(path):
        if judgment.field != "support":
            continue
        if (judgment.question_id, judgment.claim_id, judgment.evidence_id) in units:
            yield judgment
        elif judgment.source.startswith("auto:") and judgment.source not in judges:
            judges.add(judgment.source)
            yield judgment


class _Staging:
    """The new outputs are streamed into a staging folder in the run folder (evals.store.atomic); `commit`
    then swaps them in as one set: the score.complete marker says "writing", each file is fsynced
    and renamed over the old one (scores.json last), the marker says "complete". Until the commit
    nothing of the old set is touched, so a scoring that fails or is interrupted while it scores
    (most of its time) leaves the previous set complete; a kill during the swap leaves "writing",
    which gate, report and agree refuse. Staging folders of killed scorings are removed on entry."""

    def __init__(self, run_dir: Path, answers: Path, answers_bytes: int) -> None:
        self.run_dir = run_dir
        self.answers = answers
        self.answers_bytes = answers_bytes  # the answers scored: what the marker hashes
        self.handles: dict[str, IO[str]] = {}
        self.names: list[str] = []

    def __enter__(self) -> _Staging:
        remove_staging_leftovers(self.run_dir, "score")
        self.dir = staging_folder(self.run_dir, "score")
        return self

    def path(self, name: str) -> Path:
        if name not in self.names:
            self.names.append(name)
        return self.dir / name

    def stream(self, name: str) -> IO[str]:
        handle = open_staged_text(self.path(name))
        self.handles[name] = handle
        return handle

    def write_json(self, name: str, doc: Any) -> None:
        write_json_atomic(self.path(name), doc)

    def close_files(self) -> None:
        for handle in self.handles.values():
            if not handle.closed:
                handle.flush()
                os.fsync(handle.fileno())
                handle.close()

    def commit(self, remove: tuple[str, ...] = ()) -> None:
        self.close_files()
        score_set = ScoreSet(self.run_dir, self.answers, self.answers_bytes)
        score_set.begin()
        for name in remove:
            (self.run_dir / name).unlink(missing_ok=True)  # a stale copy must not outlive its sibling
        for name in sorted(self.names, key=lambda n: n == SCORES):
            crash_point(f"write:{name}")
            os.replace(self.dir / name, self.run_dir / name)
        score_set.finish()

    def __exit__(self, *exc: object) -> None:
        try:
            for handle in self.handles.values():
                with suppress(OSError):  # a full disk fails the flush of a close: the folder still goes
                    handle.close()
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
