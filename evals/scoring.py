"""`citeval score`: checks, judges and metrics over a saved run; never re-runs the backend.

Writes findings.jsonl, judgments.jsonl (auto rows of the chosen judge replaced, human and
adjudicated rows kept), per_question.jsonl and scores.json into the run folder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ._version import __version__
from .checks import AnswerCheck, check_answer
from .data.jsonl import read_jsonl, write_json_atomic, write_jsonl_atomic
from .data.models import Answer, Judgment, Question
from .data.registry import Registry
from .errors import DataError
from .metrics import SEED, AnswerScore, pick_labels, score_answer, scores_document
from .runner import ANSWERS, load_manifest, load_questions, read_answered

FINDINGS = "findings.jsonl"
JUDGMENTS = "judgments.jsonl"
PER_QUESTION = "per_question.jsonl"
SCORES = "scores.json"
SCORES_SCHEMA_VERSION = 1

# (question, claim text, evidence texts) -> (label, score, reason) for each pair, in order
PairJudge = Callable[[list[tuple[Question, str, list[str]]]], list[tuple[str, float | None, str]]]


@dataclass
class ScoreResult:
    run_dir: Path
    scores: dict[str, Any]
    checks: list[AnswerCheck]
    per_question: list[AnswerScore]


def read_judgments(path: Path) -> list[Judgment]:
    if not path.exists():
        return []
    return [j for _, j in read_jsonl(path, Judgment)]


def load_run(run_dir: Path) -> tuple[Any, Registry, list[Question], dict[str, Answer]]:
    manifest = load_manifest(run_dir)
    dataset = Path(manifest.dataset.path)
    if not dataset.exists():
        raise DataError(run_dir / "manifest.json", None, f"dataset folder {dataset} not found", "dataset.path")
    registry = Registry.load(dataset)
    questions = load_questions(dataset)
    answers = read_answered(run_dir / ANSWERS)
    return manifest, registry, questions, answers


def check_run(
    registry: Registry, questions: list[Question], answers: dict[str, Answer], default_asked_at: datetime
) -> list[AnswerCheck]:
    return [
        check_answer(q, answers[q.question_id], registry, q.asked_at or default_asked_at)
        for q in questions
        if q.question_id in answers
    ]


def judge_checks(checks: list[AnswerCheck], judge: PairJudge, source: str, run_id: str) -> list[Judgment]:
    """Auto support labels for every valid (claim, evidence) pair; invalid markers are not judged."""
    items: list[tuple[AnswerCheck, str, str, str]] = []
    inputs: list[tuple[Question, str, list[str]]] = []
    for check in checks:
        for cc in check.claims:
            for m in cc.markers:
                if m.valid and m.chunk is not None:
                    items.append((check, cc.claim.claim_id, m.evidence_id, m.chunk.text))
                    inputs.append((check.question, cc.claim.text, [m.chunk.text]))
    verdicts = judge(inputs) if inputs else []
    now = datetime.now(timezone.utc)
    rows = []
    for (check, claim_id, evidence_id, _), (label, score, reason) in zip(items, verdicts, strict=True):
        comment = f"{reason} (score {score:.3f})" if score is not None else reason
        rows.append(
            Judgment(
                run_id=run_id,
                question_id=check.question.question_id,
                claim_id=claim_id,
                evidence_id=evidence_id,
                source=source,
                field="support",
                value=label,
                comment=comment[:300],
                at=now,
            )
        )
    return rows


def score_run(
    run_dir: Path | str,
    *,
    judge: PairJudge | None = None,
    judge_name: str | None = None,
    faithfulness: dict[str, float | None] | None = None,
    extra: dict[str, Any] | None = None,
    seed: int = SEED,
) -> ScoreResult:
    """Score a run folder. With a judge, its labels replace that judge's earlier auto rows."""
    run_dir = Path(run_dir)
    manifest, registry, questions, answers = load_run(run_dir)
    checks = check_run(registry, questions, answers, manifest.started_at)
    judgments_path = run_dir / JUDGMENTS
    judgments = read_judgments(judgments_path)
    source = f"auto:{judge_name}" if judge_name else None
    if judge is not None and source is not None:
        fresh = judge_checks(checks, judge, source, manifest.run_id)
        judgments = [j for j in judgments if j.source != source] + fresh
        write_jsonl_atomic(judgments_path, judgments)
    labels = pick_labels(judgments, source)
    per_question = [score_answer(c, labels, registry, (faithfulness or {}).get(c.question.question_id)) for c in checks]
    body = scores_document(per_question, seed)
    scores: dict[str, Any] = {
        "schema_version": SCORES_SCHEMA_VERSION,
        "run_id": manifest.run_id,
        "label": manifest.label,
        "scored_at": datetime.now(timezone.utc).isoformat(),
        "citeval_version": __version__,
        "judge": judge_name,
        "seed": seed,
        "n_unanswered": sum(q.question_id not in answers for q in questions),
        **body,
        **(extra or {}),
    }
    write_jsonl_atomic(run_dir / FINDINGS, (f for c in checks for f in c.findings))
    write_jsonl_atomic(run_dir / PER_QUESTION, (s.to_json() for s in per_question))
    write_json_atomic(run_dir / SCORES, scores)
    return ScoreResult(run_dir, scores, checks, per_question)
