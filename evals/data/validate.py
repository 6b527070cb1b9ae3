"""`citeval data validate`: every problem of a dataset, one line each with file:line."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..errors import DataError
from .jsonl import iter_json_lines, questions_file, read_questions, validation_errors
from .models import Chunk, Document, Question, Version
from .registry import sha256_text
from .text import normalize

DEFAULT_LIMIT = 50


@dataclass
class ValidationReport:
    dataset: str
    problems: list[DataError] = field(default_factory=list)
    documents: int = 0
    editions_by_status: dict[str, int] = field(default_factory=dict)
    chunks: int = 0
    questions_by_tier: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        editions = sum(self.editions_by_status.values())
        by_status = ", ".join(f"{k} {v}" for k, v in sorted(self.editions_by_status.items()))
        by_tier = ", ".join(f"{k} {v}" for k, v in sorted(self.questions_by_tier.items()))
        questions = sum(self.questions_by_tier.values())
        return (
            f"{self.dataset}: ok — {self.documents} documents, {editions} editions ({by_status}), "
            f"{self.chunks} chunks, {questions} questions ({by_tier})"
        )

    def to_json(self, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "ok": self.ok,
            "problem_count": len(self.problems),
            "problems": [
                {"file": p.path, "line": p.line, "field": p.field, "message": p.message} for p in self.problems[:limit]
            ],
            "documents": self.documents,
            "editions_by_status": self.editions_by_status,
            "chunks": self.chunks,
            "questions_by_tier": self.questions_by_tier,
        }


def validate_dataset(dataset: Path | str, now: datetime | None = None) -> ValidationReport:
    """Check a dataset without running anything; collects every problem rather than stopping."""
    root = Path(dataset)
    report = ValidationReport(dataset=str(root))
    problems = report.problems
    registry = root / "registry"
    paths = {
        "documents": registry / "documents.jsonl",
        "versions": registry / "versions.jsonl",
        "chunks": registry / "chunks.jsonl",
        "questions": questions_file(root),
    }
    for name, path in paths.items():
        if not path.exists():
            problems.append(DataError(path, None, f"{name} file not found"))
    if problems:
        return report

    broken: set[str] = set()  # ids of records that failed their schema: no collateral dangling errors

    def load(path: Path, model: Any, key: str) -> dict[str, tuple[int, Any]]:
        seen: dict[str, tuple[int, Any]] = {}
        for lineno, obj in iter_json_lines(path, on_error=problems.append):
            try:
                record = model.model_validate(obj)
            except ValidationError as exc:
                problems.extend(validation_errors(path, lineno, exc))
                if isinstance(obj.get(key), str):
                    broken.add(obj[key])
                continue
            ident = getattr(record, key)
            if ident in seen:
                problems.append(DataError(path, lineno, f"duplicate {key} {ident!r} (first on line {seen[ident][0]})"))
                continue
            seen[ident] = (lineno, record)
        return seen

    documents: dict[str, tuple[int, Document]] = load(paths["documents"], Document, "document_id")
    versions: dict[str, tuple[int, Version]] = load(paths["versions"], Version, "version_id")
    chunks: dict[str, tuple[int, Chunk]] = load(paths["chunks"], Chunk, "chunk_id")

    _check_versions(paths["versions"], documents, versions, broken, problems)
    texts = _check_texts(registry / "texts", paths["versions"], versions, problems)
    _check_chunks(paths["chunks"], documents, versions, chunks, texts, broken, problems)
    questions = _check_questions(paths["questions"], documents, versions, chunks, broken, problems)

    now = now or datetime.now(timezone.utc)
    report.documents = len(documents)
    report.editions_by_status = dict(Counter(v.status_at(now).value for _, v in versions.values()))
    report.chunks = len(chunks)
    report.questions_by_tier = dict(Counter(q.risk_tier for q in questions))
    return report


def _check_versions(
    path: Path,
    documents: dict[str, tuple[int, Document]],
    versions: dict[str, tuple[int, Version]],
    broken: set[str],
    problems: list[DataError],
) -> None:
    by_document: dict[str, list[tuple[int, Version]]] = {}
    for lineno, version in versions.values():
        if version.document_id not in documents and version.document_id not in broken:
            problems.append(DataError(path, lineno, f"unknown document_id {version.document_id!r}", "document_id"))
        if version.supersedes is not None and version.supersedes not in versions | dict.fromkeys(broken):
            problems.append(DataError(path, lineno, f"supersedes unknown version {version.supersedes!r}", "supersedes"))
        if version.effective_to is not None and version.effective_to <= version.effective_from:
            problems.append(DataError(path, lineno, "effective_to is not after effective_from", "effective_to"))
        by_document.setdefault(version.document_id, []).append((lineno, version))

    # supersedes cycles: follow each chain; a chain that returns to a visited version is a cycle
    reported: set[str] = set()
    for _, start in versions.values():
        chain: list[str] = []
        current: str | None = start.version_id
        while current is not None and current in versions and current not in chain:
            chain.append(current)
            current = versions[current][1].supersedes
        if current is not None and current in chain:
            cycle = chain[chain.index(current) :]
            key = min(cycle)
            if key not in reported:
                reported.add(key)
                shown = " → ".join(cycle + [current])
                problems.append(DataError(path, versions[key][0], f"supersedes cycle: {shown}", "supersedes"))

    # editions of one document must not be active at the same time
    for editions in by_document.values():
        editions.sort(key=lambda item: item[1].effective_from)
        for i, (line_a, a) in enumerate(editions):
            end_a = a.active_until()
            for line_b, b in editions[i + 1 :]:
                end_b = b.active_until()
                if end_a is not None and end_a <= a.effective_from:
                    break  # a is never active
                if end_b is not None and end_b <= b.effective_from:
                    continue
                if end_a is None or b.effective_from < end_a:
                    problems.append(
                        DataError(
                            path,
                            line_b,
                            f"effective window of {b.version_id!r} overlaps {a.version_id!r} (line {line_a}) "
                            f"of document {a.document_id!r}",
                            "effective_from",
                        )
                    )


def _check_texts(
    texts_dir: Path, path: Path, versions: dict[str, tuple[int, Version]], problems: list[DataError]
) -> dict[str, str]:
    texts: dict[str, str] = {}
    if not texts_dir.is_dir():
        return texts
    for version_id, (lineno, version) in versions.items():
        text_path = texts_dir / f"{version_id}.txt"
        if not text_path.is_file():
            continue
        text = text_path.read_text(encoding="utf-8")
        texts[version_id] = text
        if sha256_text(text) != version.content_sha256:
            problems.append(
                DataError(path, lineno, f"content_sha256 does not match {text_path.name}", "content_sha256")
            )
    return texts


def _check_chunks(
    path: Path,
    documents: dict[str, tuple[int, Document]],
    versions: dict[str, tuple[int, Version]],
    chunks: dict[str, tuple[int, Chunk]],
    texts: dict[str, str],
    broken: set[str],
    problems: list[DataError],
) -> None:
    for lineno, chunk in chunks.values():
        version = versions.get(chunk.version_id)
        if version is None:
            if chunk.version_id not in broken:
                problems.append(DataError(path, lineno, f"unknown version_id {chunk.version_id!r}", "version_id"))
        elif version[1].document_id in documents and version[1].document_id != chunk.document_id:
            problems.append(
                DataError(
                    path,
                    lineno,
                    f"document_id {chunk.document_id!r} differs from its version's {version[1].document_id!r}",
                    "document_id",
                )
            )
        if (chunk.char_start is None) != (chunk.char_end is None):
            problems.append(DataError(path, lineno, "char_start and char_end must be given together", "char_start"))
        elif chunk.char_start is not None and chunk.char_end is not None:
            if not 0 <= chunk.char_start <= chunk.char_end:
                problems.append(DataError(path, lineno, "char span is negative or reversed", "char_start"))
            elif chunk.version_id in texts:
                text = texts[chunk.version_id]
                if chunk.char_end > len(text):
                    problems.append(
                        DataError(path, lineno, f"char_end {chunk.char_end} is past the end of the text", "char_end")
                    )
                elif text[chunk.char_start : chunk.char_end] != chunk.text:
                    problems.append(
                        DataError(
                            path,
                            lineno,
                            f"text does not match texts/{chunk.version_id}.txt[{chunk.char_start}:{chunk.char_end}]",
                            "text",
                        )
                    )
        if chunk.page_start is not None and chunk.page_end is not None and chunk.page_end < chunk.page_start:
            problems.append(DataError(path, lineno, "page_end is before page_start", "page_end"))


def _check_questions(
    path: Path,
    documents: dict[str, tuple[int, Document]],
    versions: dict[str, tuple[int, Version]],
    chunks: dict[str, tuple[int, Chunk]],
    broken: set[str],
    problems: list[DataError],
) -> list[Question]:
    chunks_by_version: dict[str, list[Chunk]] = {}
    for _, chunk in chunks.values():
        chunks_by_version.setdefault(chunk.version_id, []).append(chunk)
    seen: dict[str, int] = {}
    out: list[Question] = []
    for lineno, question in read_questions(path, on_error=problems.append):
        if question.question_id in seen:
            problems.append(
                DataError(
                    path,
                    lineno,
                    f"duplicate question_id {question.question_id!r} (first on line {seen[question.question_id]})",
                )
            )
            continue
        seen[question.question_id] = lineno
        out.append(question)
        for i, ev in enumerate(question.gold.evidence if question.gold else []):
            where = f"gold.evidence.{i}"
            if ev.document_id in broken:
                continue
            if ev.document_id not in documents:
                problems.append(
                    DataError(path, lineno, f"unknown document_id {ev.document_id!r}", where + ".document_id")
                )
                continue
            if ev.version_id is None:
                continue
            version = versions.get(ev.version_id)
            if version is None and ev.version_id in broken:
                continue
            if version is None:
                problems.append(DataError(path, lineno, f"unknown version_id {ev.version_id!r}", where + ".version_id"))
                continue
            if version[1].document_id != ev.document_id:
                problems.append(
                    DataError(path, lineno, f"version {ev.version_id!r} is not an edition of {ev.document_id!r}", where)
                )
                continue
            if ev.quote:
                _check_gold_quote(
                    path, lineno, where, ev.quote, ev.page, chunks_by_version.get(ev.version_id, []), problems
                )
    return out


def _check_gold_quote(
    path: Path, lineno: int, where: str, quote: str, page: int | None, chunks: list[Chunk], problems: list[DataError]
) -> None:
    needle = normalize(quote)
    holders = [c for c in chunks if needle in normalize(c.text)]
    if not holders:
        problems.append(
            DataError(path, lineno, "gold quote does not occur in any chunk of its edition", where + ".quote")
        )
        return
    if page is not None and not any(
        c.page_start is None or (c.page_start <= page <= (c.page_end or c.page_start)) for c in holders
    ):
        pages = sorted({c.page_start for c in holders if c.page_start is not None})
        problems.append(
            DataError(path, lineno, f"gold quote is on page(s) {pages}, not on page {page}", where + ".page")
        )
