"""Reading judgments for agreement, writing agreement.json, and appending adjudicated labels."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ..data.jsonl import JsonlAppender, iter_json_lines, read_jsonl, validation_errors, write_json_atomic
from ..data.models import JUDGMENT_VALUES, Judgment, JudgmentField
from ..errors import DataError, UsageError
from .report import AgreementReport, Context, compute_agreement
from .stats import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED
from .table import ADJUDICATED, FIELD_GRAIN, UnitKey, is_rater, unit_key

JUDGMENTS_FILE = "judgments.jsonl"
AGREEMENT_FILE = "agreement.json"
ANSWERS_FILE = "answers.jsonl"
MANIFEST_FILE = "manifest.json"


def _grain_problem(field_name: str, claim_id: str | None, evidence_id: str | None) -> tuple[str, str] | None:
    """(id field, message) when a label's ids do not match its field's unit (DESIGN 5)."""
    grain = FIELD_GRAIN[field_name]
    for id_name, value in (("claim_id", claim_id), ("evidence_id", evidence_id)):
        if id_name in grain and not value:
            needed = " and ".join(grain[1:])
            return id_name, f"field {field_name!r} is judged per {' × '.join(grain)}: {needed} required"
    return None


def locate(target: Path | str) -> tuple[Path, Path | None]:
    """(judgments file, run folder or None) for a run folder or a judgments file."""
    path = Path(target)
    if path.is_dir():
        judgments = path / JUDGMENTS_FILE
        if not judgments.is_file():
            raise DataError(path, None, f"no {JUDGMENTS_FILE} in this folder (is it a run folder?)")
        return judgments, path
    if not path.exists():
        raise DataError(path, None, "file not found")
    return path, None


def read_judgments(path: Path | str) -> list[Judgment]:
    """Every judgment in file order; a human or adjudicated label without its unit's ids is a DataError."""
    out = []
    for lineno, judgment in read_jsonl(path, Judgment):
        if is_rater(judgment.source) or judgment.source == ADJUDICATED:
            problem = _grain_problem(judgment.field, judgment.claim_id, judgment.evidence_id)
            if problem:
                raise DataError(path, lineno, problem[1], field=problem[0])
        out.append(judgment)
    return out


def _ignore(_: DataError) -> None:
    """Context files only add texts to disagreements; their problems are other commands' to report."""


def load_context(folder: Path) -> Context:
    """Question and claim texts from a run's answers and its dataset's questions, where present."""
    context = Context()
    answers = folder / ANSWERS_FILE
    if answers.is_file():
        for _, obj in iter_json_lines(answers, _ignore):
            qid = obj.get("question_id")
            claims = obj.get("claims")
            if not isinstance(qid, str) or not isinstance(claims, list):
                continue
            for claim in claims:
                if isinstance(claim, dict) and isinstance(claim.get("claim_id"), str):
                    context.claims[(qid, claim["claim_id"])] = str(claim.get("text") or "")
    manifest = folder / MANIFEST_FILE
    try:
        dataset = json.loads(manifest.read_text(encoding="utf-8"))["dataset"]["path"]
    except (OSError, ValueError, KeyError, TypeError):
        return context
    for base in (Path(dataset), folder / dataset):
        questions = base / "questions.jsonl"
        if questions.is_file():
            for _, obj in iter_json_lines(questions, _ignore):
                if isinstance(obj.get("question_id"), str) and isinstance(obj.get("question"), str):
                    context.questions[obj["question_id"]] = obj["question"]
            break
    return context


# --- adjudication --------------------------------------------------------------------


class ResolvedLabel(BaseModel):
    """One line of an adjudication file: the label a person settled on for a unit."""

    model_config = ConfigDict(extra="allow")

    question_id: str
    claim_id: str | None = None
    evidence_id: str | None = None
    field: JudgmentField
    value: str
    comment: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ResolvedLabel:
        allowed = JUDGMENT_VALUES[self.field]
        if self.value not in allowed:
            expected = ", ".join(allowed)
            raise ValueError(f"{self.value!r} is not a value of field {self.field!r} (expected one of {expected})")
        if not self.question_id.strip():
            raise ValueError("question_id must not be empty")
        problem = _grain_problem(self.field, self.claim_id, self.evidence_id)
        if problem:
            raise ValueError(problem[1])
        grain = FIELD_GRAIN[self.field]
        extra = [name for name, v in (("claim_id", self.claim_id), ("evidence_id", self.evidence_id))
                 if v is not None and name not in grain]
        if extra:
            raise ValueError(f"field {self.field!r} is judged per {' × '.join(grain)}: drop {' and '.join(extra)}")
        return self

    def unit(self) -> UnitKey:
        return unit_key(self.field, self.question_id, self.claim_id, self.evidence_id)


@dataclass
class AdjudicationResult:
    path: Path
    added: int = 0
    unchanged: int = 0  # already the latest adjudicated label of that unit

    def to_json(self) -> dict[str, Any]:
        return {"judgments": str(self.path), "added": self.added, "unchanged": self.unchanged}


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
    if run_dir is not None:
        try:
            run_id = json.loads((run_dir / MANIFEST_FILE).read_text(encoding="utf-8"))["run_id"]
            if isinstance(run_id, str) and run_id:
                return run_id
        except (OSError, ValueError, KeyError, TypeError):
            pass
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
    latest: dict[tuple[str, UnitKey], tuple[datetime, int, str]] = {}
    for order, j in enumerate(existing):
        if j.source != ADJUDICATED:
            continue
        key = (j.field, unit_key(j.field, j.question_id, j.claim_id, j.evidence_id))
        if key not in latest or (j.at, order) >= latest[key][:2]:
            latest[key] = (j.at, order, j.value)
    run_id = _run_id(existing, run_dir, judgments_path)
    stamp = at or datetime.now(timezone.utc)
    result = AdjudicationResult(judgments_path)
    fresh: list[Judgment] = []
    seen: set[tuple[str, UnitKey]] = set()
    for label in labels:
        key = (label.field, label.unit())
        current = latest.get(key)
        if key in seen or (current is not None and current[2] == label.value):
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
        _end_with_newline(judgments_path)
        with JsonlAppender(judgments_path) as appender:
            for judgment in fresh:
                appender.write(judgment)
    result.added = len(fresh)
    return result


def _end_with_newline(path: Path) -> None:
    """A last line without its newline would swallow the first appended record."""
    with open(path, "rb") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return
        handle.seek(-1, 2)
        last = handle.read(1)
    if last != b"\n":
        with open(path, "ab") as handle:
            handle.write(b"\n")


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
    """Keep what the judge-evaluation stage wrote into agreement.json when rewriting the file."""
    try:
        value = json.loads(path.read_text(encoding="utf-8")).get("judge_agreement")
    except (OSError, ValueError, AttributeError):
        return {}
    return value if isinstance(value, dict) else {}


def write_agreement(report: AgreementReport, path: Path | str) -> Path:
    """Write agreement.json atomically, keeping an existing judge_agreement section."""
    path = Path(path)
    if not report.judge_agreement:
        report.judge_agreement = _existing_judge_agreement(path)
    try:
        write_json_atomic(path, report.to_json())
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
) -> AgreeResult:
    """`citeval agree`: optional adjudication, then agreement; writes <run>/agreement.json for a run
    folder, and `out` when given (a judgments file alone writes nothing else)."""
    if n_resamples < 1:
        raise UsageError(f"--resamples must be at least 1, not {n_resamples}")
    if not 0 < confidence < 1:
        raise UsageError(f"confidence must lie strictly between 0 and 1, not {confidence}")
    judgments_path, run_dir = locate(target)
    adjudication = adjudicate(target, adjudicate_file, at=at) if adjudicate_file is not None else None
    judgments = read_judgments(judgments_path)
    context = load_context(run_dir or judgments_path.parent)
    report = compute_agreement(judgments, n_resamples=n_resamples, seed=seed, confidence=confidence, context=context)
    written = []
    if run_dir is not None:
        written.append(write_agreement(report, run_dir / AGREEMENT_FILE))
    if out is not None and (not written or Path(out).resolve() != written[0].resolve()):
        written.append(write_agreement(report, out))
    return AgreeResult(report, judgments_path, written, adjudication)
