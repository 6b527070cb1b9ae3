"""Reading judgments for agreement, writing agreement.json, and appending adjudicated labels."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.agreement.report import AgreementReport, Context, compute_agreement
from evals.agreement.stats import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from evals.contract.adjudication import ResolvedLabel
from evals.contract.models import Judgment
from evals.contract.precedence import ADJUDICATED, UnitKey, latest_by_source
from evals.errors import CitevalError, DataError, UsageError
from evals.store.atomic import end_with_newline
from evals.store.jsonl import (
    JsonlAppender,
    iter_json_lines,
    load_questions,
    questions_file,
    validation_errors,
    write_json_atomic,
)
from evals.store.lock import folder_lock
from evals.store.runfolder import (
    AGREEMENT,
    JUDGMENTS,
    MANIFEST,
    RunFolder,
    read_agreement,
    read_judgments,
    recorded,
    recorded_run_id,
    require_complete_score,
)

JUDGMENTS_FILE = JUDGMENTS
AGREEMENT_FILE = AGREEMENT
MANIFEST_FILE = MANIFEST

__all__ = [
    "AGREEMENT_FILE", "AdjudicationResult", "AgreeResult", "ResolvedLabel", "adjudicate", "adjudicate_run", "agree",
    "load_context", "locate", "read_judgments", "read_resolved", "write_agreement",
]


def locate(target: Path | str) -> tuple[Path, Path | None]:
    """(judgments file, run folder or None) for a run folder or a judgments file."""
    path = Path(target)
    if path.is_dir():
        judgments = path / JUDGMENTS_FILE
        if not judgments.is_file():
            raise DataError(path, None, f"no {JUDGMENTS_FILE} in this folder (is it a run folder?)")
        require_complete_score(path)  # not the labels of a `score` killed halfway (ScoreSet)
        return judgments, path
    if not path.exists():
        raise DataError(path, None, "file not found")
    return path, None


def load_context(folder: Path) -> Context:
    """Question and claim texts from a run's answers and its dataset's questions (any format),
    where present; context only adds texts to disagreements, so what cannot be read is skipped."""
    context = Context()
    try:
        answers = RunFolder(folder).answer_list
    except CitevalError:
        answers = []
    for answer in answers:
        for claim in answer.claims:
            context.claims[(answer.question_id, claim.claim_id)] = claim.text or ""
    dataset = recorded(folder, "dataset", "path")
    if not isinstance(dataset, str):
        return context
    for base in (Path(dataset), folder / dataset):
        if questions_file(base).exists():
            try:
                context.questions.update({q.question_id: q.question for q in load_questions(base)})
            except CitevalError:
                pass
            break
    return context


# --- adjudication --------------------------------------------------------------------


@dataclass
class AdjudicationResult:
    path: Path
    added: int = 0
    unchanged: int = 0  # already the latest adjudicated label of that unit

    def to_json(self) -> dict[str, Any]:
        return {"judgments": str(self.path), "added": self.added, "unchanged": self.unchanged}

    def summary(self) -> str:
        return (
            f"adjudication: {self.added} label(s) added to {self.path} as source 'adjudicated', {self.unchanged} "
            "already present; run `citeval agree` to see what is left to settle"
        )


def read_resolved(path: Path | str) -> list[ResolvedLabel]:
    """Every resolved label, validated before anything is written (DataError names file and line)."""
    out: list[ResolvedLabel] = []
    first: dict[tuple[str, UnitKey], tuple[int, str]] = {}
    for lineno, obj in iter_json_lines(path):
        try:
            label = ResolvedLabel.model_validate(obj)
        except ValidationError as exc:
            raise validation_errors(path, lineno, exc)[0] from None
        key = (label.field, label.unit())
        if key in first and first[key][1] != label.value:
            raise DataError(
                path, lineno, f"{label.field} of this unit was already resolved as {first[key][1]!r} on line"
                f" {first[key][0]}; keep one resolution per unit", field="value",
            )
        first.setdefault(key, (lineno, label.value))
        out.append(label)
    return out


def _run_id(judgments: list[Judgment], run_dir: Path | None, judgments_path: Path) -> str:
    recorded = recorded_run_id(run_dir) if run_dir is not None else None
    if recorded:
        return recorded
    if judgments:
        return Counter(j.run_id for j in judgments).most_common(1)[0][0]
    return (run_dir or judgments_path.parent).name


def adjudicate(target: Path | str, resolved: Path | str, *, at: datetime | None = None) -> AdjudicationResult:
    """Append resolved labels to the judgments as source `adjudicated`; applying a file twice adds nothing.

    A label is skipped when it is already the latest adjudicated label of its unit and field.
    """
    judgments_path, run_dir = locate(target)
    labels = read_resolved(resolved)
    existing = read_judgments(judgments_path)
    latest = {
        (name, unit): j.value
        for (name, unit, source), j in latest_by_source(existing).items()
        if source == ADJUDICATED
    }
    run_id = _run_id(existing, run_dir, judgments_path)
    stamp = at or datetime.now(timezone.utc)
    result = AdjudicationResult(judgments_path)
    fresh: list[Judgment] = []
    seen: set[tuple[str, UnitKey]] = set()
    for label in labels:
        key = (label.field, label.unit())
        current = latest.get(key)
        if key in seen or (current is not None and current == label.value):
            result.unchanged += 1
            continue
        seen.add(key)
        unit = key[1]
        fresh.append(
            Judgment(
                run_id=run_id, question_id=unit.question_id, claim_id=unit.claim_id, evidence_id=unit.evidence_id,
                source=ADJUDICATED, field=label.field, value=label.value, comment=label.comment, at=stamp,
            )
        )
    if fresh:
        end_with_newline(judgments_path)  # a last line without its newline would swallow the first record
        with JsonlAppender(judgments_path) as appender:
            for judgment in fresh:
                appender.write(judgment)
    result.added = len(fresh)
    return result


def adjudicate_run(target: Path | str, resolved: Path | str, *, at: datetime | None = None) -> AdjudicationResult:
    """`citeval label adjudicate`: `adjudicate`, one writer at a time when TARGET is a run folder."""
    if Path(target).is_dir():
        with folder_lock(target, "citeval label adjudicate"):
            return adjudicate(target, resolved, at=at)
    return adjudicate(target, resolved, at=at)


# --- the command's one call ----------------------------------------------------------


@dataclass
class AgreeResult:
    report: AgreementReport
    judgments: Path
    written: list[Path] = field(default_factory=list)
    adjudication: AdjudicationResult | None = None

    def to_json(self) -> dict[str, Any]:
        out = self.report.to_json()
        out["judgments"] = str(self.judgments)
        out["written"] = [str(p) for p in self.written]
        if self.adjudication is not None:
            out["adjudication"] = self.adjudication.to_json()
        return out

    def to_text(self, limit: int = 20) -> str:
        lines = []
        if self.adjudication is not None:
            a = self.adjudication
            lines.append(f"adjudication: {a.added} label(s) added to {a.path}, {a.unchanged} already present")
        lines.append(self.report.to_text(limit=limit).rstrip())
        lines.extend(f"wrote {p}" for p in self.written)
        return "\n".join(lines) + "\n"


def _existing_judge_agreement(path: Path) -> dict[str, Any]:
    """Keep what the judge-evaluation stage wrote into agreement.json when rewriting the file; an
    unreadable file has nothing to keep."""
    try:
        return dict(read_agreement(path).judge_agreement) if path.exists() else {}
    except CitevalError:
        return {}


def judges_against_people(judgments: list[Judgment]) -> dict[str, Any]:
    """DESIGN 6 `judge_agreement`: each auto judge against the human / adjudicated support labels,
    when the judgments hold both; empty otherwise."""
    people = any(j.field == "support" and not j.source.startswith("auto:") for j in judgments)
    judges = any(j.field == "support" and j.source.startswith("auto:") for j in judgments)
    if not (people and judges):
        return {}
    from evals.score.judges.agreement import judge_agreement

    return judge_agreement(judgments)


def write_agreement(report: AgreementReport, path: Path | str) -> Path:
    """Write agreement.json atomically, keeping an existing judge_agreement section."""
    path = Path(path)
    if not report.judge_agreement:
        report.judge_agreement = _existing_judge_agreement(path)
    try:
        write_json_atomic(path, report.document().to_json())
    except OSError as exc:
        raise DataError(path, None, f"cannot write: {exc.strerror or exc}") from None
    return path


def agree(
    target: Path | str,
    *,
    out: Path | str | None = None,
    adjudicate_file: Path | str | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    at: datetime | None = None,
    hourly_rate: float | None = None,
) -> AgreeResult:
    """`citeval agree`: optional adjudication, then agreement; writes <run>/agreement.json for a run
    folder, and `out` when given (a judgments file alone writes nothing else)."""
    if n_resamples < 1:
        raise UsageError(f"--resamples must be at least 1, not {n_resamples}")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence must lie strictly between 0 and 1, not {confidence}")
    if hourly_rate is not None and not (hourly_rate >= 0 and hourly_rate != float("inf")):
        raise UsageError(f"--hourly-rate must be a non-negative number, not {hourly_rate}")
    if Path(target).is_dir():  # a run folder: one writer at a time (evals.store.lock)
        with folder_lock(target, "citeval agree"):
            return _agree(target, out, adjudicate_file, n_resamples, seed, confidence, at, hourly_rate)
    return _agree(target, out, adjudicate_file, n_resamples, seed, confidence, at, hourly_rate)


def _agree(
    target: Path | str,
    out: Path | str | None,
    adjudicate_file: Path | str | None,
    n_resamples: int,
    seed: int,
    confidence: float,
    at: datetime | None,
    hourly_rate: float | None = None,
) -> AgreeResult:
    judgments_path, run_dir = locate(target)
    adjudication = adjudicate(target, adjudicate_file, at=at) if adjudicate_file is not None else None
    judgments = read_judgments(judgments_path)
    context = load_context(run_dir or judgments_path.parent)
    report = compute_agreement(
        judgments, n_resamples=n_resamples, seed=seed, confidence=confidence, context=context, hourly_rate=hourly_rate
    )
    report.judge_agreement = judges_against_people(judgments)
    written = []
    if run_dir is not None:
        written.append(write_agreement(report, run_dir / AGREEMENT_FILE))
    if out is not None and (not written or Path(out).resolve() != written[0].resolve()):
        written.append(write_agreement(report, out))
    return AgreeResult(report, judgments_path, written, adjudication)
