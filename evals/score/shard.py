"""Scoring one shard of a run: a plain function over a list of answers and a dataset path.

`citeval score` splits a run's answers, in question order, into shards of `SHARD_SIZE` and
scores each with `score_shard` — in the calling process, or in worker processes that load the
registry once each — then concatenates the results in shard order (evals.score.scoring). The
function needs nothing else of the run folder, so a bigger engine can map it over its own
partitions (see the README, "Scoring production-size logs"):

    result = score_shard(answers, "datasets/demo", judge="offline")
    result.columns          # compact per-question columns (evals.score.columns) for the run metrics
    result.per_question     # per_question.jsonl lines of these answers
    result.findings         # findings.jsonl lines
    result.judgments        # judgments.jsonl lines of the judge's fresh labels

What a shard returns depends only on its answers (and labels), never on which process scored
it or which answers stood in other shards, so the merged run is the same for any number of
workers and any shard size.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.contract.models import Answer, Judgment, Question
from evals.data.registry import Registry
from evals.errors import CitevalError, DataError, StoreError
from evals.score.checks import check_answer
from evals.score.columns import RunColumns
from evals.score.context_support import add_context_support
from evals.score.facts import AnswerCheck
from evals.score.judges.base import JudgeUnit, SupportJudge, support_judgments
from evals.score.judges.factory import make_judge
from evals.score.judges.faithfulness import FaithfulnessResult, FaithfulnessSample
from evals.score.judges.joint import joint_units, judge_joint
from evals.score.judges.llm import LlmConfig
from evals.score.memory import release_free_memory
from evals.score.metrics import pick_labels, score_answer
from evals.store.answers import answer_errors, answer_from_line
from evals.store.jsonl import dump_line, load_questions, validation_errors
from evals.text.normalize import strip_markers

__all__ = [
    "SHARD_SIZE",
    "ShardResult",
    "ShardSettings",
    "faithfulness_samples",
    "judge_units",
    "score_shard",
]

# Answers per shard: large enough that a worker's start-up and the transfer are small against the
# work, small enough that a shard's records (about 30 kB an answer of 5 claims) stay a few tens of MB.
SHARD_SIZE = 1000

AnswerLike = Answer | Mapping[str, Any] | str | bytes
Faithfulness = Callable[[list[FaithfulnessSample]], list[FaithfulnessResult]]


def judge_units(checks: Sequence[AnswerCheck]) -> list[JudgeUnit]:
    """One unit per valid (claim, cited evidence) pair, and one for the union of a claim's valid
    cited evidence when it has two or more (evals.score.judges.joint; the leave-one-out round
    needs verdicts: judge_joint); invalid markers already count 0 and are not judged."""
    return joint_units(list(checks))


def faithfulness_samples(checks: Sequence[AnswerCheck]) -> list[tuple[str, FaithfulnessSample]]:
    """Ragas faithfulness of each answered question: its answer against the evidence it was given."""
    samples = []
    for check in checks:
        answer = check.answer
        contexts = [e.text for e in answer.evidence if e.text]
        if answer.status == "answered" and contexts:
            text = strip_markers(answer.answer_text) or " ".join(c.claim.text for c in check.claims)
            samples.append(
                (
                    check.question.question_id,
                    FaithfulnessSample(question=check.question.question, answer=text, contexts=contexts),
                )
            )
    return samples


@dataclass
class ShardSettings:
    """What every shard of one scoring shares; picklable, sent once to each worker process.

    judge: a judge name ("offline", "llm"; built once per process) or a SupportJudge (used as
    given in-process, a pickled copy in a worker), None for no judge.
    """

    dataset: str
    run_id: str = ""
    default_asked_at: datetime | None = None
    judged_at: datetime | None = None  # the `at` of every fresh judgment of this scoring
    judge: str | SupportJudge | None = "offline"
    llm: LlmConfig | None = None
    cache_path: str | None = None
    faithfulness: Faithfulness | None = None
    parquet_schema: Any = None  # a pyarrow schema: also return the rows as a table of it
    questions_path: str | None = None  # where question objects of a task come from (error locations)
    raters: bool = False  # the run holds human or adjudicated labels (of any shard)
    answers_path: str | None = None  # the answers.jsonl a task's line locations point into


@dataclass
class ShardResult:
    """One shard's share of the run's files and metrics."""

    columns: RunColumns
    per_question: str = ""
    findings: str = ""
    judgments: str = ""
    table: Any = None  # the per_question rows as a pyarrow Table (when a schema was asked for)
    units: int = 0
    failed: int = 0
    usage: dict[str, Any] | None = None  # what the judge spent on this shard (LlmUsage fields)
    faithfulness_failures: list[str] = field(default_factory=list)
    answers: int = 0


# --- per-process state: the registry and judge are built once per process ---------------

_REGISTRIES: dict[str, Registry] = {}
_QUESTIONS: dict[str, dict[str, Question]] = {}
_JUDGES: dict[tuple[Any, ...], SupportJudge] = {}


def registry_of(dataset: Path | str) -> Registry:
    """The dataset's registry, loaded once per process (score_shard's callers: one dataset a process)."""
    key = str(Path(dataset).resolve())
    if key not in _REGISTRIES:
        _REGISTRIES[key] = Registry.load(dataset)
    return _REGISTRIES[key]


def _questions_of(dataset: Path | str) -> dict[str, Question]:
    key = str(Path(dataset).resolve())
    if key not in _QUESTIONS:
        _QUESTIONS[key] = {q.question_id: q for q in load_questions(dataset)}
    return _QUESTIONS[key]


def _judge_of(settings: ShardSettings) -> SupportJudge | None:
    judge = settings.judge
    if judge is None or isinstance(judge, SupportJudge):
        return judge
    key = (judge, settings.llm, settings.cache_path)
    if key not in _JUDGES:
        _JUDGES[key] = make_judge(judge, llm=settings.llm, cache_path=settings.cache_path)
    return _JUDGES[key]


def _usage_snapshot(judge: SupportJudge | None) -> Any:
    usage = getattr(judge, "usage", None)
    return dataclasses.replace(usage) if dataclasses.is_dataclass(usage) and not isinstance(usage, type) else None


def _usage_delta(before: Any, after: Any) -> dict[str, Any] | None:
    """What the judge spent between two snapshots of its LlmUsage."""
    if before is None or after is None:
        return None
    delta: dict[str, Any] = {}
    for item in dataclasses.fields(after):
        name = item.name
        old, new = getattr(before, name), getattr(after, name)
        if name == "last_failure":
            delta[name] = new if after.failures > before.failures else None
        elif name == "cost_usd":
            delta[name] = None if new is None else new - (old or 0.0)
        elif isinstance(new, int | float):
            delta[name] = new - old
    return delta


# --- the shard ---------------------------------------------------------------------------


class _RatersElsewhere(dict[Any, str]):
    """No rater labelled an answer of this shard, but raters labelled others of the run: every
    answer still gets its judge-only value for the prediction-powered estimate (evals.score.ppi),
    as it does when the whole run is scored at once."""

    def __bool__(self) -> bool:
        return True


def score_pairs(
    pairs: Sequence[tuple[Question, Answer]],
    registry: Registry,
    settings: ShardSettings,
    labels: Iterable[Judgment] = (),
    judge: SupportJudge | None = None,
) -> ShardResult:
    """Check, judge (with `judge`) and score (question, answer) pairs in the order given."""
    default_at = settings.default_asked_at or datetime.now(timezone.utc)
    checks = [check_answer(q, a, registry, q.asked_at or default_at) for q, a in pairs]
    result = ShardResult(columns=RunColumns(), answers=len(pairs))
    fresh: list[Judgment] = []
    labels = list(labels)
    source = f"auto:{judge.name}" if judge is not None else None
    before = _usage_snapshot(judge)  # every request of this shard counts: the joint units and context support
    if judge is not None:
        # pairs, claims' unions and the leave-one-out sets they call for (DESIGN 6 "Details")
        units, verdicts = judge_joint(judge, checks, prior=pick_labels(labels, None))
        fresh = support_judgments(settings.run_id, judge.name, units, verdicts, at=settings.judged_at)
        result.units, result.failed = len(units), sum(v.error is not None for v in verdicts)
        result.judgments = "".join(dump_line(j) for j in fresh)
    chosen = pick_labels([*labels, *fresh], source)
    if settings.raters and not getattr(chosen, "human", True):
        chosen.human = _RatersElsewhere()  # type: ignore[attr-defined]
    faith: dict[str, float | None] = {}
    if settings.faithfulness is not None:
        samples = faithfulness_samples(checks)
        found = settings.faithfulness([sample for _, sample in samples]) if samples else []
        faith = {qid: r.value for (qid, _), r in zip(samples, found, strict=True)}
        result.faithfulness_failures = sorted({r.reason for r in found if r.value is None and r.reason})
    scored = [score_answer(c, chosen, registry, faith.get(c.question.question_id), judged=judge is not None)
              for c in checks]
    add_context_support(scored, checks, registry, judge)  # claims vs all retrieved evidence (issue 19)
    if judge is not None:
        result.usage = _usage_delta(before, _usage_snapshot(judge))
    rows = [s.to_json() for s in scored]
    result.columns = RunColumns.of(scored)
    result.per_question = "".join(dump_line(row) for row in rows)
    result.findings = "".join(dump_line(f) for c in checks for f in c.findings)
    if settings.parquet_schema is not None:
        from evals.store.perquestion import table_of

        result.table = table_of(rows, settings.parquet_schema)
    return result


def _as_answer(answer: AnswerLike, number: int) -> Answer:
    """An answer given as a record, a dict or a JSON line (errors name its place in the list)."""
    if isinstance(answer, Answer):
        return answer
    if isinstance(answer, str | bytes):
        return answer_from_line("answers", number, answer.encode("utf-8") if isinstance(answer, str) else answer)
    try:
        return Answer.model_validate(answer)
    except ValidationError as exc:
        raise answer_errors("answers", number, exc, answer) from None


def score_shard(
    answers: Sequence[AnswerLike],
    dataset: Path | str,
    *,
    questions: Mapping[str, Question] | Sequence[Question] | None = None,
    judge: str | SupportJudge | None = "offline",
    llm: LlmConfig | None = None,
    labels: Iterable[Judgment] = (),
    run_id: str = "",
    default_asked_at: datetime | None = None,
    cache_path: Path | str | None = None,
) -> ShardResult:
    """Score one shard: answers (Answer records, dicts or JSON lines) against the registry of the
    dataset folder at `dataset` (loaded once per process). questions: the shard's questions (by
    id or as a list), default the dataset's own (loaded once per process); an answer whose
    question is not among them is left out, as `citeval score` leaves it out. labels: human or
    adjudicated judgments of these answers, which win over the judge's (DESIGN 5)."""
    if questions is None:
        by_id: Mapping[str, Question] = _questions_of(dataset)
    elif isinstance(questions, Mapping):
        by_id = questions
    else:
        by_id = {q.question_id: q for q in questions}
    parsed = [_as_answer(a, number) for number, a in enumerate(answers, 1)]
    pairs = [(by_id[a.question_id], a) for a in parsed if a.question_id in by_id]
    settings = ShardSettings(
        dataset=str(dataset), run_id=run_id, default_asked_at=default_asked_at, judge=judge, llm=llm,
        cache_path=str(cache_path) if cache_path is not None else None,
    )
    return score_pairs(pairs, registry_of(dataset), settings, labels, _judge_of(settings))


# --- tasks of `citeval score` ----------------------------------------------------------


@dataclass
class ShardTask:
    """One shard as the scoring stage sends it: question objects with their line, where each
    answer line stands in answers.jsonl, and the human / adjudicated labels of these questions."""

    questions: list[tuple[int, dict[str, Any]]]
    answers: list[tuple[int, int, int]]  # (offset, length, line number)
    labels: list[Judgment] = field(default_factory=list)


@dataclass
class ShardFailure:
    """A citeval error raised in a worker, carried back to be raised again in the caller."""

    kind: str
    message: str
    path: str | None = None
    line: int | None = None
    field: str | None = None

    def error(self) -> CitevalError:
        if self.kind == "DataError":
            return DataError(self.path, self.line, self.message, self.field)
        if self.kind == "StoreError":
            return StoreError(self.path, self.message, self.line or 2)
        from evals import errors

        cls = getattr(errors, self.kind, CitevalError)
        return cls(self.message) if issubclass(cls, CitevalError) else CitevalError(self.message)


@dataclass
class _Worker:
    settings: ShardSettings
    registry: Registry
    judge: SupportJudge | None


_WORKER: _Worker | None = None


def _die_with_parent() -> None:
    """A worker ends when the scoring that started it is killed (Linux: PR_SET_PDEATHSIG), so no
    orphan keeps scoring — or keeps the run folder's lock, which it shares — after a kill -9."""
    import multiprocessing
    import signal
    import sys

    if sys.platform.startswith("linux"):
        import ctypes

        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            return
    parent = multiprocessing.parent_process()
    if parent is not None and not parent.is_alive():  # the parent died before the line above
        os._exit(1)


def init_worker(settings: ShardSettings) -> None:
    """Worker start: keep the settings, load the registry and build the judge, once per worker
    (fresh, not from a cache a forked parent may hold)."""
    import signal

    global _WORKER
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent()
    judge = settings.judge
    if isinstance(judge, str):
        judge = make_judge(judge, llm=settings.llm, cache_path=settings.cache_path)
    _WORKER = _Worker(settings, Registry.load(settings.dataset), judge)
    import gc

    # what the worker holds for good (code, registry, judge) is kept out of every later full
    # collection, which would otherwise walk it again and again: half the scoring time
    gc.freeze()


def worker_task(task: ShardTask) -> ShardResult | ShardFailure:
    """Score one task in a worker started by init_worker."""
    assert _WORKER is not None, "worker_task runs in a worker started by init_worker"
    return run_task(task, _WORKER.settings, _WORKER.registry, _WORKER.judge)


def run_task(
    task: ShardTask, settings: ShardSettings, registry: Registry, judge: SupportJudge | None
) -> ShardResult | ShardFailure:
    """Score one task; a citeval error comes back as a ShardFailure (exceptions with their own
    constructor arguments do not survive pickling)."""
    release_free_memory()  # the previous shard's records, freed: their pages go back to the system
    try:
        return _run(task, settings, registry, judge)
    except DataError as exc:
        return ShardFailure("DataError", exc.message, exc.path, exc.line, exc.field)
    except StoreError as exc:  # its exit code rides in `line`
        return ShardFailure("StoreError", exc.message, exc.path, exc.exit_code)
    except CitevalError as exc:
        return ShardFailure(type(exc).__name__, str(exc))


def _run(task: ShardTask, settings: ShardSettings, registry: Registry, judge: SupportJudge | None) -> ShardResult:
    from evals.store.answerindex import read_lines

    questions_path = settings.questions_path or "questions"
    questions = []
    for lineno, obj in task.questions:
        try:
            questions.append(Question.model_validate(obj))
        except ValidationError as exc:
            raise validation_errors(questions_path, lineno, exc)[0] from None
    answers_path = settings.answers_path
    assert answers_path is not None
    pairs = []
    for question, (lineno, line) in zip(questions, read_lines(answers_path, task.answers), strict=True):
        answer = answer_from_line(answers_path, lineno, line)
        if answer.question_id != question.question_id:  # the index pointed elsewhere: never silently
            raise DataError(answers_path, lineno, f"expected the answer to {question.question_id!r}")
        pairs.append((question, answer))
    return score_pairs(pairs, registry, settings, task.labels, judge)
