"""The run folder: the one reader of runs/<run_id>/ that every stage uses (DESIGN 1).

    manifest.json       RunManifest            written by `run`
    answers.jsonl       Answer, one a line     written by `run` (appended, resumable)
    findings.jsonl      Finding                written by `score`
    judgments.jsonl     Judgment (long form)   written by `score`, grown by `label pull`, `agree --adjudicate`
    per_question.jsonl  QuestionScore          written by `score`
    per_question.parquet  the same rows        written by `score` for large runs (evals.store.perquestion)
    scores.json         Scores                 written by `score`
    score.complete      the score set's marker written by `score` (ScoreSet, below)
    judge_cache.jsonl   LLM verdicts           grown by `score --judge llm`
    agreement.json      AgreementDocument      written by `agree`
    junit.xml           gate outcomes          written by `gate --junit` / `eval`
    probe.json          ProbeDocument          written by `probe` (with probe_cases.jsonl, and probe_dataset/:
                                               the questions it asked and its ProbeRequest)

plus the dataset the manifest points to (questions in any supported format, the registry).
These names are spelled here only; every other module imports them. Every file is read on
first use and kept; a missing or broken file is a DataError naming it. Reading never writes:
answers are read as evals.store.answers reads them (a torn last line left out).

Why a marker and not a staging folder for `score`: the run folder also holds the answers and
the labels that other stages append to, so it cannot be swapped as a whole, and renaming four
files one by one is four steps. score.complete is first rewritten as {"state": "writing"},
then the files are swapped in, then it is rewritten as {"state": "complete", answers_sha256}.
A reader that finds "writing" knows a score was interrupted; one that finds "complete" with a
different answers hash knows the answers changed after scoring (a `--resume`); a run folder
without the marker was scored before it existed (or assembled by hand) and is read as it is.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.contract.agreement import AgreementDocument
from evals.contract.models import Answer, Finding, Judgment, Question, RunManifest
from evals.contract.precedence import grain_problem
from evals.contract.probe import ProbeDocument
from evals.contract.scores import QuestionScore, Scores
from evals.data.registry import Registry
from evals.errors import CitevalError, DataError
from evals.store.answers import answers_after, answers_sha256, iter_answers, read_answers, repair_answers
from evals.store.atomic import crash_point, write_json
from evals.store.jsonl import (
    M,
    load_questions,
    questions_file,
    read_document,
    read_json_object,
    read_jsonl,
    validation_errors,
)
from evals.store.reading import read_file_bytes, read_json, try_read_json

MANIFEST = "manifest.json"
ANSWERS = "answers.jsonl"
FINDINGS = "findings.jsonl"
JUDGMENTS = "judgments.jsonl"
PER_QUESTION = "per_question.jsonl"
PER_QUESTION_PARQUET = "per_question.parquet"
SCORES = "scores.json"
AGREEMENT = "agreement.json"
PROBE_JSON = "probe.json"
PROBE_CASES = "probe_cases.jsonl"
PROBE_DATASET = "probe_dataset"
PROBE_REQUEST = "probe_request.json"  # inside PROBE_DATASET
JUDGE_CACHE = "judge_cache.jsonl"
JUNIT = "junit.xml"
SCORE_MARKER = "score.complete"

__all__ = [
    "AGREEMENT",
    "ANSWERS",
    "FINDINGS",
    "JUDGE_CACHE",
    "JUDGMENTS",
    "JUNIT",
    "MANIFEST",
    "PER_QUESTION",
    "PER_QUESTION_PARQUET",
    "PROBE_CASES",
    "PROBE_DATASET",
    "PROBE_JSON",
    "PROBE_REQUEST",
    "SCORES",
    "SCORE_MARKER",
    "DatasetCache",
    "RunFolder",
    "ScoreSet",
    "iter_answers",
    "iter_judgments",
    "load_manifest",
    "read_agreement",
    "read_probe",
    "read_answers",
    "recorded",
    "recorded_run_id",
    "read_judgments",
    "generation",
    "repair_answers",
    "require_complete_score",
    "require_not_running",
    "require_same_generation",
    "score_set_problem",
]


# --- single files (also usable without a RunFolder) -----------------------------------


def load_manifest(run_dir: Path | str) -> RunManifest:
    """runs/<run_id>/manifest.json, validated."""
    path = Path(run_dir) / MANIFEST
    obj = read_json_object(path, "file not found (is this a run folder?)")
    try:
        return RunManifest.model_validate(obj)
    except ValidationError as exc:
        raise validation_errors(path, None, exc)[0] from None


def _document(path: Path, model: type[M], top: str, shape: str) -> M:
    """A document whose `top` key must hold an object: anything else is another file, said so."""
    obj = read_json_object(path)
    if not isinstance(obj.get(top), dict):
        raise DataError(path, None, f"not {shape}", top)
    return read_document(path, model)


def read_agreement(path: Path | str) -> AgreementDocument:
    """An agreement.json (`citeval agree` writes one into a run, or where --out says), validated."""
    return _document(
        Path(path), AgreementDocument, "fields", 'an agreement.json: expected {"fields": {<field>: {...}}}'
    )


def read_probe(path: Path | str) -> ProbeDocument:
    """A probe.json (`citeval probe` writes one into its run folder), validated."""
    return _document(
        Path(path), ProbeDocument, "kinds", 'a probe.json: expected {"kinds": {<kind>: {...}}, "verdict": ...}'
    )


def recorded(run_dir: Path | str, *keys: str) -> Any:
    """A value a manifest.json records (manifest["dataset"]["path"] …), read even when the rest of
    the manifest is not valid — for stages that only add context (texts beside a disagreement, the
    run id of appended labels); None when it is not there."""
    value: Any = try_read_json(Path(run_dir) / MANIFEST)
    try:
        for key in keys:
            value = value[key]
    except (KeyError, TypeError, IndexError):
        return None
    return value


def recorded_run_id(run_dir: Path | str) -> str | None:
    run_id = recorded(run_dir, "run_id")
    return run_id if isinstance(run_id, str) and run_id else None


def iter_judgments(path: Path | str) -> Iterator[Judgment]:
    """Every judgment in file order, streaming; a human or adjudicated label without the ids of
    its field's unit (DESIGN 5) is a DataError naming the line."""
    for lineno, judgment in read_jsonl(path, Judgment):
        if not judgment.source.startswith("auto:"):
            problem = grain_problem(judgment.field, judgment.claim_id, judgment.evidence_id)
            if problem:
                raise DataError(path, lineno, problem[1], field=problem[0])
        yield judgment


def read_judgments(path: Path | str) -> list[Judgment]:
    """Every judgment in file order (see iter_judgments)."""
    return list(iter_judgments(path))


# --- the set of files `score` writes ---------------------------------------------------


class ScoreSet:
    """The files one `score` writes, as one set: `begin()` before the first of them is replaced
    (the marker then says "writing"), `finish()` after the last (it then says "complete", with
    the hash of exactly the answers scored: the first `answers_bytes` bytes of answers.jsonl).
    A failure or a kill in between leaves "writing", which readers refuse. Each scoring's marker
    carries a generation id of its own, so a reader can tell that the set changed while it read
    (`generation`, `require_same_generation`). Also a context manager."""

    def __init__(self, run_dir: Path | str, answers: Path | str, answers_bytes: int | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.answers = Path(answers)
        self.answers_bytes = answers_bytes
        self.generation = uuid.uuid4().hex
        self.begun = False

    def begin(self) -> None:
        if not self.begun:
            crash_point("score:marker-writing")
            write_json(self.run_dir / SCORE_MARKER, {"state": "writing", "generation": self.generation})
            self.begun = True

    def finish(self) -> None:
        self.begin()
        crash_point("score:before-complete")
        doc: dict[str, Any] = {"state": "complete", "generation": self.generation,
                               "answers_sha256": answers_sha256(self.answers, self.answers_bytes)}
        if self.answers_bytes is not None:
            doc["answers_bytes"] = self.answers_bytes
        write_json(self.run_dir / SCORE_MARKER, doc)
        crash_point("score:marker-complete")

    def __enter__(self) -> ScoreSet:
        self.begin()
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.finish()


def _answers_changed(doc: dict[str, Any], answers: Path) -> bool:
    scored = doc.get("answers_bytes")
    if isinstance(scored, int) and not isinstance(scored, bool) and scored >= 0:
        return doc.get("answers_sha256") != answers_sha256(answers, scored) or answers_after(answers, scored)
    return bool(doc.get("answers_sha256") != answers_sha256(answers))


def score_set_problem(run_dir: Path | str, answers_name: str = ANSWERS, *, answers: bool = True) -> str | None:
    """Why the scored files of run_dir cannot be trusted as one set, or None when they can
    (answers=False: only whether a score was interrupted, not whether the answers changed since)."""
    marker = Path(run_dir) / SCORE_MARKER
    if not marker.exists():
        return None
    try:
        doc = read_json(marker)
    except DataError:
        return f"its {SCORE_MARKER} marker is unreadable; score the run again"
    state = doc.get("state") if isinstance(doc, dict) else None
    if state == "writing":
        return ("it is being scored now, or a scoring was interrupted, so its scored files may be a mix of two "
                "scorings; wait for the scoring to end, or score the run again")
    if state != "complete":
        return f"its {SCORE_MARKER} marker has an unknown state {state!r}; score the run again"
    if answers and _answers_changed(doc, Path(run_dir) / answers_name):
        return "its answers changed after it was scored (a resumed run?); score the run again"
    return None


def require_complete_score(run_dir: Path | str, *, answers: bool = True) -> None:
    """A DataError naming the marker when the run's scored files are not one complete set."""
    problem = score_set_problem(run_dir, answers=answers)
    if problem:
        raise DataError(Path(run_dir) / SCORE_MARKER, None, problem)


def generation(run_dir: Path | str) -> bytes | None:
    """The score marker's bytes (None without one): read before and after reading a scored set,
    they tell whether a scoring replaced it meanwhile (`require_same_generation`)."""
    marker = Path(run_dir) / SCORE_MARKER
    return read_file_bytes(marker) if marker.is_file() else None


def require_same_generation(run_dir: Path | str, before: bytes | None) -> None:
    """A DataError when the run was scored again (or is being scored) since `generation()` said `before`."""
    if generation(run_dir) != before:
        raise DataError(Path(run_dir) / SCORE_MARKER, None,
                        "the run was scored again while it was read; read it again when the scoring has ended")


def require_not_running(run_dir: Path | str, manifest: RunManifest) -> None:
    """For a writer that holds the run folder's lock: a manifest still saying "running" means the
    run's process ended without finishing (a kill, a crash): a DataError saying to resume it."""
    if manifest.options.status == "running":
        raise DataError(
            Path(run_dir) / MANIFEST, None,
            f"the run never finished (its process ended while it ran): finish it first with "
            f"citeval run --resume {run_dir}",
        )


# --- the dataset behind a run ---------------------------------------------------------


@dataclass
class DatasetCache:
    """Registries and questions shared by many run folders of one dataset (a weekly report over
    ten runs loads the dataset once), keyed by folder and the content hash the manifest recorded."""

    registries: dict[tuple[str, str], Registry] = field(default_factory=dict)
    questions: dict[tuple[str, str], list[Question]] = field(default_factory=dict)

    def clear(self) -> None:
        self.registries.clear()
        self.questions.clear()


# --- the folder -----------------------------------------------------------------------


class RunFolder:
    """runs/<run_id>/ and the dataset it was run on. Attributes load on first use."""

    def __init__(self, path: Path | str, *, cache: DatasetCache | None = None) -> None:
        self.path = Path(path)
        self.cache = cache
        self.notes: list[str] = []  # what could not be read by the lenient readers (try_*)
        self.seen_generation: bytes | None = None  # the score marker a reader saw (`generation`)
        self._unavailable: dict[str, bool] = {}

    def __repr__(self) -> str:
        return f"RunFolder({str(self.path)!r})"

    def file(self, name: str) -> Path:
        return self.path / name

    def has(self, name: str) -> bool:
        return (self.path / name).exists()

    def require(self, *names: str) -> RunFolder:
        """This folder, after checking that its manifest and the named files exist."""
        self.manifest  # noqa: B018 - a folder without a manifest is no run folder
        for name in names:
            if not self.has(name):
                raise DataError(self.file(name), None, "file not found")
        return self

    def require_dir(self) -> RunFolder:
        if not self.path.is_dir():
            raise DataError(self.path, None, "run folder not found")
        return self

    # manifest -------------------------------------------------------------------------

    @cached_property
    def manifest(self) -> RunManifest:
        return load_manifest(self.path)

    @property
    def run_id(self) -> str:
        return self.manifest.run_id

    @property
    def started_at(self) -> datetime:
        return self.manifest.started_at

    @property
    def label(self) -> str:
        """The variant label: the manifest's, else the one scores.json recorded, else "unlabelled"."""
        if self.manifest.label:
            return self.manifest.label
        scored = self.scores.label if self.has(SCORES) else None
        return scored or "unlabelled"

    @property
    def dataset_path(self) -> Path:
        """The dataset folder; a relative path is tried as given, then from the run folder."""
        dataset = Path(self.manifest.dataset.path)
        if not dataset.is_absolute() and not dataset.exists() and (self.path / dataset).exists():
            dataset = (self.path / dataset).resolve()
        return dataset

    def require_dataset(self) -> Path:
        dataset = self.dataset_path
        if not dataset.exists():
            raise DataError(self.file(MANIFEST), None, f"dataset folder {dataset} not found", "dataset.path")
        return dataset

    # answers --------------------------------------------------------------------------

    def iter_answers(self) -> Iterator[Answer]:
        """Answers in file order, streaming (read-only)."""
        return iter_answers(self.file(ANSWERS))

    @cached_property
    def answers(self) -> dict[str, Answer]:
        """Answers by question id; a resumed run's later line wins."""
        return read_answers(self.file(ANSWERS))

    @property
    def answer_list(self) -> list[Answer]:
        """One answer per question, in the order the questions were first answered."""
        return list(self.answers.values())

    def repair_answers(self) -> dict[str, Answer]:
        """`run --resume`: repair a torn last line in place, then read (not cached)."""
        return repair_answers(self.file(ANSWERS))

    # dataset --------------------------------------------------------------------------

    @cached_property
    def question_list(self) -> list[Question]:
        """The dataset's questions in file order, from questions.jsonl, .csv or .parquet."""
        ref = self.manifest.dataset
        key = (ref.path, ref.questions_sha256)
        if self.cache is not None and key in self.cache.questions:
            return self.cache.questions[key]
        found = load_questions(self.require_dataset())
        if self.cache is not None:
            self.cache.questions[key] = found
        return found

    @cached_property
    def questions(self) -> dict[str, Question]:
        return {q.question_id: q for q in self.question_list}

    @property
    def questions_file(self) -> Path:
        return questions_file(self.dataset_path)

    @cached_property
    def registry(self) -> Registry:
        ref = self.manifest.dataset
        key = (ref.path, ref.registry_sha256)
        if self.cache is not None and key in self.cache.registries:
            return self.cache.registries[key]
        found = Registry.load(self.require_dataset())
        if self.cache is not None:
            self.cache.registries[key] = found
        return found

    def try_questions(self) -> dict[str, Question]:
        """The questions, or none (with a note) when the dataset is not on this machine."""
        if self._unavailable.get("questions"):
            return {}
        try:
            return self.questions
        except CitevalError as exc:
            self._unavailable["questions"] = True
            self._note(f"questions not available: {exc}")
            return {}

    def try_registry(self) -> Registry | None:
        """The registry, or None (with a note) when the dataset is not on this machine."""
        if self._unavailable.get("registry"):
            return None
        try:
            return self.registry
        except CitevalError as exc:
            self._unavailable["registry"] = True
            self._note(f"registry not available (citation statuses unknown): {exc}")
            return None

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def asked_at(self, question_id: str) -> datetime:
        """When the question was asked: its asked_at, else the run's start (DESIGN 2)."""
        q = self.try_questions().get(question_id)
        return (q.asked_at if q and q.asked_at else None) or self.manifest.started_at

    def question_text(self, question_id: str) -> str | None:
        q = self.try_questions().get(question_id)
        return q.question if q else None

    # score artifacts ------------------------------------------------------------------

    @cached_property
    def judgments(self) -> list[Judgment]:
        """judgments.jsonl in file order; none before the first judge or review round."""
        path = self.file(JUDGMENTS)
        return read_judgments(path) if path.exists() else []

    def require_complete_score(self) -> RunFolder:
        """This folder, after checking that its scored files are one complete set (evals.store.atomic:
        not left half-swapped by a killed `score`, not older than its answers)."""
        require_complete_score(self.path)
        return self

    @cached_property
    def findings(self) -> list[Finding]:
        self.require_complete_score()
        path = self.file(FINDINGS)
        return [f for _, f in read_jsonl(path, Finding)] if path.exists() else []

    @cached_property
    def per_question(self) -> dict[str, QuestionScore]:
        """The per_question rows by question id, from per_question.parquet when the scoring wrote
        one (large runs), else per_question.jsonl."""
        return {row.question_id: row for row in self.iter_per_question()}

    def iter_per_question(self) -> Iterator[QuestionScore]:
        """The per_question rows in question order, streaming (read-only, not cached)."""
        self.require_complete_score()
        parquet = self.file(PER_QUESTION_PARQUET)
        if parquet.exists():
            from evals.store.perquestion import read_rows

            for number, row in enumerate(read_rows(parquet), 1):
                try:
                    yield QuestionScore.model_validate(row)
                except ValidationError as exc:
                    raise validation_errors(parquet, number, exc)[0] from None
            return
        path = self.file(PER_QUESTION)
        if not path.exists():
            raise DataError(path, None, "file not found (score the run first: citeval score RUN)")
        for _, record in read_jsonl(path, QuestionScore):
            yield record

    @cached_property
    def scores(self) -> Scores:
        self.require_complete_score()
        return Scores.read(self.file(SCORES))

    @cached_property
    def agreement(self) -> AgreementDocument | None:
        """agreement.json as written by `citeval agree`, or None before the first agree."""
        return read_agreement(self.file(AGREEMENT)) if self.has(AGREEMENT) else None

    @cached_property
    def probe(self) -> ProbeDocument | None:
        """probe.json as written by `citeval probe`, or None when the run is not a probe."""
        return read_probe(self.file(PROBE_JSON)) if self.file(PROBE_JSON).is_file() else None

    def forget(self, *names: str) -> None:
        """Drop loaded attributes (after a stage rewrote their files), all when none is named."""
        every = ("manifest", "answers", "judgments", "findings", "per_question", "scores", "agreement", "probe")
        for name in names or every:
            self.__dict__.pop(name, None)
