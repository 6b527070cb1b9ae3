"""`citeval data validate`: every problem of a dataset, one line each with file:line."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.contract.models import Chunk, Document, Version
from evals.data.registry import sha256_text
from evals.errors import DataError, DatasetInvalid
from evals.store.jsonl import iter_json_lines, questions_file, read_questions, validation_errors
from evals.store.reading import read_file_text
from evals.text.normalize import normalize

DEFAULT_LIMIT = 50
SHOWN_PROBLEMS = 10  # problems listed in a refusal's message


class DatasetNotValid(DatasetInvalid):
    """A dataset (or a registry being ingested) that does not validate; the message lists the first problems."""

    def __init__(self, problems: list[DataError], what: str = "dataset does not validate") -> None:
        super().__init__(problems)
        self.what = what

    def __str__(self) -> str:
        lines = [f"{self.what}: {self.total} problem(s)"]
        lines += [f"  {p}" for p in self.problems[:SHOWN_PROBLEMS]]
        if self.total > SHOWN_PROBLEMS:
            lines.append(f"  … and {self.total - SHOWN_PROBLEMS} more (citeval data validate lists them all)")
        return "\n".join(lines)


@dataclass
class ValidationReport:
    dataset: str
    problems: list[DataError] = field(default_factory=list)
    # not errors, but a reader should know: editions without page information, gold pages that cannot be checked
    warnings: list[DataError] = field(default_factory=list)
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
        warned = f", {len(self.warnings)} warning(s)" if self.warnings else ""
        return (
            f"{self.dataset}: ok — {self.documents} documents, {editions} editions ({by_status}), "
            f"{self.chunks} chunks, {questions} questions ({by_tier}){warned}"
        )

    def notes(self, limit: int = DEFAULT_LIMIT) -> list[str]:
        """The lines for a person: the warnings of a valid dataset, or the problems (at most `limit`)
        and their count."""
        if self.ok:
            return [f"warning: {warning}" for warning in self.warnings[:limit]]
        lines = [str(problem) for problem in self.problems[:limit]]
        hidden = len(self.problems) - limit
        if hidden > 0:
            lines.append(f"… and {hidden} more problem(s)")
        lines.append(f"{self.dataset}: {len(self.problems)} problem(s)")
        return lines

    def to_json(self, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "ok": self.ok,
            "problem_count": len(self.problems),
            "problems": [
                {"file": p.path, "line": p.line, "field": p.field, "message": p.message} for p in self.problems[:limit]
            ],
            "warnings": [
                {"file": p.path, "line": p.line, "field": p.field, "message": p.message} for p in self.warnings[:limit]
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
    loaded = _check_registry(root / "registry", report, questions_path=questions_file(root))
    if loaded is None:
        return report
    documents, versions, chunks, broken = loaded
    tiers = _check_questions(
        questions_file(root), documents, versions, chunks, broken, report.problems, report.warnings
    )
    _summarize(report, documents, versions, chunks, now)
    report.questions_by_tier = dict(tiers)
    from evals.store.quotes import validate_quotes_folder  # DATASET/quotes/*.jsonl (DESIGN 9), when present

    validate_quotes_folder(root, report.problems)
    return report


def validate_registry(folder: Path | str, now: datetime | None = None) -> ValidationReport:
    """The registry checks of `validate_dataset` on a registry folder alone (no questions)."""
    report = ValidationReport(dataset=str(folder))
    loaded = _check_registry(Path(folder), report)
    if loaded is not None:
        _summarize(report, loaded[0], loaded[1], loaded[2], now)
    return report


def require_valid(dataset: Path | str) -> ValidationReport:
    """The dataset's validation report; raises DatasetNotValid (exit 2, first problems listed) when it has problems.

    `eval`, `run` and `score` call this before they touch a backend or a run folder.
    """
    report = validate_dataset(dataset)
    if not report.ok:
        raise DatasetNotValid(report.problems, what=f"{dataset}: dataset does not validate (citeval data validate)")
    return report


def _summarize(
    report: ValidationReport,
    documents: dict[str, tuple[int, Document]],
    versions: dict[str, tuple[int, Version]],
    chunks: dict[str, tuple[int, Chunk]],
    now: datetime | None,
) -> None:
    now = now or datetime.now(timezone.utc)
    report.documents = len(documents)
    report.editions_by_status = dict(Counter(v.status_at(now).value for _, v in versions.values()))
    report.chunks = len(chunks)


_Loaded = tuple[
    dict[str, tuple[int, Document]], dict[str, tuple[int, Version]], dict[str, tuple[int, Chunk]], set[str]
]


def _check_registry(registry: Path, report: ValidationReport, questions_path: Path | None = None) -> _Loaded | None:
    problems = report.problems
    paths = {
        "documents": registry / "documents.jsonl",
        "versions": registry / "versions.jsonl",
        "chunks": registry / "chunks.jsonl",
    }
    if questions_path is not None:
        paths["questions"] = questions_path
    for name, path in paths.items():
        if not path.exists():
            problems.append(DataError(path, None, f"{name} file not found"))
    if problems:
        return None

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
    _check_pages_and_sources(paths["versions"], versions, chunks, problems, report.warnings)
    texts = _check_texts(registry / "texts", paths["versions"], versions, problems)
    _check_chunks(paths["chunks"], documents, versions, chunks, texts, broken, problems)
    return documents, versions, chunks, broken


def _check_pages_and_sources(
    path: Path,
    versions: dict[str, tuple[int, Version]],
    chunks: dict[str, tuple[int, Chunk]],
    problems: list[DataError],
    warnings: list[DataError],
) -> None:
    """An edition without page information: warn (page anchors cannot be checked); its chunks must not claim pages."""
    for version_id, (lineno, version) in versions.items():
        if version.pages_known is False:
            warnings.append(
                DataError(
                    path,
                    lineno,
                    f"edition {version_id!r} has no page information; page-level anchor checks are skipped for it",
                    "pages_known",
                )
            )
    for lineno, version in versions.values():
        name = getattr(version, "source_file", None)
        if name is None:
            continue
        folder = path.parent.resolve()
        if not isinstance(name, str) or not (folder / name).resolve().is_relative_to(folder):
            message = f"source_file {name!r} is not a path inside the registry"
            problems.append(DataError(path, lineno, message, "source_file"))
        elif not (folder / name).is_file():
            problems.append(DataError(path, lineno, f"source_file {name!r} not found in the registry", "source_file"))
    for _, (lineno, chunk) in chunks.items():
        entry = versions.get(chunk.version_id)
        if entry and entry[1].pages_known is False and (chunk.page_start is not None or chunk.bbox):
            problems.append(
                DataError(
                    path.with_name("chunks.jsonl"),
                    lineno,
                    f"chunk has pages but its edition {chunk.version_id!r} says pages_known: false",
                    "page_start",
                )
            )


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
        try:
            text = read_file_text(text_path)  # strict UTF-8, line ends exactly as written (CR LF counts)
        except DataError as exc:
            problems.append(exc)
            continue
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
        for i, box in enumerate(chunk.bbox or []):
            first, last = chunk.page_start, chunk.page_end if chunk.page_end is not None else chunk.page_start
            if first is not None and last is not None and not first <= box.page <= last:
                message = f"box on page {box.page} lies outside the chunk's pages {first}..{last}"
                problems.append(DataError(path, lineno, message, f"bbox.{i}.page"))
            if box.x1 < box.x0 or box.y1 < box.y0:
                problems.append(DataError(path, lineno, "box has x1 < x0 or y1 < y0", f"bbox.{i}"))


def _check_questions(
    path: Path,
    documents: dict[str, tuple[int, Document]],
    versions: dict[str, tuple[int, Version]],
    chunks: dict[str, tuple[int, Chunk]],
    broken: set[str],
    problems: list[DataError],
    warnings: list[DataError],
) -> Counter[str]:
    """Every question checked one at a time (a production log's 365,000 are never all held);
    returns the count of questions by risk tier."""
    chunks_by_version: dict[str, list[Chunk]] = {}
    for _, chunk in chunks.values():
        chunks_by_version.setdefault(chunk.version_id, []).append(chunk)
    normalized: dict[str, list[tuple[str, Chunk]]] = {}
    seen: dict[str, int] = {}
    tiers: Counter[str] = Counter()
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
        tiers[question.risk_tier] += 1
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
            if ev.page is not None and version[1].pages_known is False:
                warnings.append(
                    DataError(
                        path,
                        lineno,
                        f"gold names page {ev.page}, but edition {ev.version_id!r} has no page information: "
                        "its page anchor cannot be checked",
                        where + ".page",
                    )
                )
            if ev.quote:
                if ev.version_id not in normalized:  # each edition's chunks normalized once, not once per quote
                    edition = chunks_by_version.get(ev.version_id, [])
                    normalized[ev.version_id] = [(normalize(c.text), c) for c in edition]
                _check_gold_quote(path, lineno, where, ev.quote, ev.page, normalized[ev.version_id], problems)
    return tiers


def _check_gold_quote(
    path: Path,
    lineno: int,
    where: str,
    quote: str,
    page: int | None,
    chunks: list[tuple[str, Chunk]],
    problems: list[DataError],
) -> None:
    """`chunks`: the edition's chunks, each with its normalized text."""
    needle = normalize(quote)
    holders = [c for text, c in chunks if needle in text]
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
