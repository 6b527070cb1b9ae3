"""Reading a run folder for reports: the scores and per-question rows always, answers,
findings, questions and the registry only when a section needs them (a weekly report over
many runs drills down into few of them)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from ..data.jsonl import iter_json_lines, read_jsonl
from ..data.models import Answer, Finding, Question, RunManifest
from ..data.registry import Registry
from ..errors import CitevalError, DataError
from ..gates.core import load_scores
from ..runner import load_manifest, load_questions

PER_QUESTION = "per_question.jsonl"
FINDINGS = "findings.jsonl"
ANSWERS = "answers.jsonl"
AGREEMENT = "agreement.json"

# one registry per dataset folder and content hash: ten runs of one dataset load it once
_REGISTRIES: dict[tuple[str, str], Registry | None] = {}
_QUESTIONS: dict[tuple[str, str], dict[str, Question] | None] = {}


@dataclass
class RunData:
    run_dir: Path
    manifest: RunManifest
    scores: dict[str, Any]
    per_question: dict[str, dict[str, Any]]
    agreement: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def run_id(self) -> str:
        return self.manifest.run_id

    @property
    def label(self) -> str:
        return self.manifest.label or self.scores.get("label") or "unlabelled"

    @property
    def started_at(self) -> datetime:
        return self.manifest.started_at

    @cached_property
    def answers(self) -> dict[str, Answer]:
        return read_answers(self.run_dir / ANSWERS)

    @cached_property
    def findings(self) -> list[Finding]:
        path = self.run_dir / FINDINGS
        return [f for _, f in read_jsonl(path, Finding)] if path.exists() else []

    @cached_property
    def questions(self) -> dict[str, Question]:
        """The dataset's questions (empty, with a note, when the dataset is not on this machine)."""
        ref = self.manifest.dataset
        key = (ref.path, ref.questions_sha256)
        if key not in _QUESTIONS:
            try:
                _QUESTIONS[key] = {q.question_id: q for q in load_questions(Path(ref.path))}
            except CitevalError as exc:
                _QUESTIONS[key] = None
                self.notes.append(f"questions not available: {exc}")
        return _QUESTIONS[key] or {}

    @cached_property
    def registry(self) -> Registry | None:
        ref = self.manifest.dataset
        key = (ref.path, ref.registry_sha256)
        if key not in _REGISTRIES:
            try:
                _REGISTRIES[key] = Registry.load(Path(ref.path))
            except CitevalError as exc:
                _REGISTRIES[key] = None
                self.notes.append(f"registry not available (citation statuses unknown): {exc}")
        return _REGISTRIES[key]

    def asked_at(self, question_id: str) -> datetime:
        q = self.questions.get(question_id)
        return (q.asked_at if q and q.asked_at else None) or self.manifest.started_at

    def question_text(self, question_id: str) -> str | None:
        q = self.questions.get(question_id)
        return q.question if q else None


def read_answers(path: Path) -> dict[str, Answer]:
    """A run's answers without touching the file (runner.read_answered repairs a torn last line
    in place; a report must not write into a run that may still be running): a last line
    without its newline is left out."""
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    if not text.endswith("\n"):
        lines = lines[:-1]  # torn by a kill or still being written
    answers: dict[str, Answer] = {}
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            answer = Answer.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValueError) as exc:
            raise DataError(path, lineno, f"not an Answer: {exc}") from None
        answers[answer.question_id] = answer
    return answers


def _read_json(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
    if not isinstance(doc, dict):
        raise DataError(path, None, "expected a JSON object")
    return doc


def load_run(run_dir: Path | str) -> RunData:
    """A scored run folder (manifest.json, scores.json, per_question.jsonl; agreement.json if any)."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise DataError(run_dir, None, "run folder not found")
    manifest = load_manifest(run_dir)
    scores = load_scores(run_dir)
    rows: dict[str, dict[str, Any]] = {}
    path = run_dir / PER_QUESTION
    if not path.exists():
        raise DataError(path, None, "file not found (score the run first: citeval score RUN)")
    for lineno, row in iter_json_lines(path):
        qid = row.get("question_id")
        if not isinstance(qid, str):
            raise DataError(path, lineno, "question_id is missing", "question_id")
        rows[qid] = row
    agreement = _read_json(run_dir / AGREEMENT)
    return RunData(run_dir=run_dir, manifest=manifest, scores=scores, per_question=rows, agreement=agreement)


def clear_caches() -> None:
    """Forget loaded registries and questions (tests that rewrite a dataset in place)."""
    _REGISTRIES.clear()
    _QUESTIONS.clear()


def now_utc() -> datetime:
    return datetime.now(timezone.utc)
