"""A citeval dataset synthesised from a peer tool's file (ALCE, RAGChecker, Ragas).

Those files hold, per question, the passages the system retrieved as bare text (a title or a
source id at most), the system's response and, where the format has it, a reference answer.
citeval needs a registry, so one is built from the passages themselves:

- one document per passage source: ALCE's `title`, RAGChecker's `doc_id`, Ragas's
  `retrieved_context_ids` (a Ragas context without an id is its own source, named by a hash
  of its text), with empty `acl` (everyone may read it);
- one edition per document (`<document_id>-v1`, revision 1, in force from 1970-01-01, no
  pages), whose full text is its distinct passages joined by blank lines
  (`registry/texts/<version_id>.txt`, the edition's `content_sha256`);
- one chunk per distinct passage text, with DESIGN 2's default chunk id and its char span;
- the questions, with gold where the format has it;
- the answers as a replay file: each retrieved passage becomes evidence `"1"`, `"2"`, … in
  retrieval order (naming its chunk and carrying its text), so a marker `[1]` reaches the
  first passage, as in ALCE's prompts;
- `import.json`: what was imported and how (the format, the file, the options that change a
  result such as ALCE's at_most_citations, the notes) and the peer tool's own scores found in
  the file (per question and over the file), for `citeval data peers` to set beside citeval's.

The dataset is written into a staging folder, validated there, and moved into place only when
it validates: nothing is half-written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.contract.models import Answer, Chunk, Claim, Document, Evidence, Gold, Question, Version
from evals.data.registry import default_chunk_id, sha256_text
from evals.errors import DataError, UsageError
from evals.store.atomic import staged_folder, write_text_atomic
from evals.store.jsonl import write_jsonl_atomic

IMPORT_MANIFEST = "import.json"
EDITION_FROM = datetime(1970, 1, 1, tzinfo=timezone.utc)  # no date in the peer formats: in force for any asked_at
PASSAGE_SEPARATOR = "\n\n"


@dataclass(frozen=True)
class Passage:
    """One retrieved passage as the peer file gives it."""

    text: str
    source: str | None = None  # a title, a doc_id, a context id: which document it belongs to
    title: str | None = None


@dataclass
class PeerRecord:
    """One question of a peer file: what was asked, what was retrieved, what the system said."""

    question_id: str
    question: str
    response: str | None  # None: the file holds no response for it (no answer is written)
    passages: list[Passage]
    gold: dict[str, Any] | None = None
    where: str = ""  # "file: data[3]" for messages
    raw: dict[str, Any] | None = None
    claims: list[Claim] | None = None  # claims as the peer scores them, when not the answer's sentences
    peer_scores: dict[str, float] | None = None  # the peer tool's own metrics for this question


@dataclass
class ImportReport:
    kind: str
    source: Path
    dataset: Path
    answers: Path | None
    questions: int = 0
    documents: int = 0
    chunks: int = 0
    answered: int = 0
    with_gold: int = 0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        head = (
            f"{self.dataset}: {self.questions} question(s) ({self.with_gold} with gold), {self.documents} document(s), "
            f"{self.chunks} chunk(s) from {self.kind} file {self.source}"
        )
        if self.answers is not None:
            head += f"; {self.answered} answer(s) in {self.answers}"
        return "\n".join([head, *self.notes])

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "source": str(self.source),
            "dataset": str(self.dataset),
            "answers": str(self.answers) if self.answers is not None else None,
            "questions": self.questions,
            "with_gold": self.with_gold,
            "documents": self.documents,
            "chunks": self.chunks,
            "answered": self.answered,
            "notes": self.notes,
        }


_SLUG_DROP = re.compile(r"[^\w]+", re.UNICODE)


def slug(text: str, limit: int = 60) -> str:
    """A readable document id from a title or source: word characters (any script) joined by '-'."""
    cleaned = _SLUG_DROP.sub("-", text.strip().casefold()).strip("-_")
    return cleaned[:limit].rstrip("-_") or "doc"


def text_source(text: str) -> str:
    """The source of a passage that names none: the passage itself, by a hash of its text."""
    return "ctx-" + hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:10]


class _Registry:
    """Documents, editions and chunks as passages arrive (first seen, first numbered)."""

    def __init__(self) -> None:
        self.doc_ids: dict[str, str] = {}  # source → document_id
        self.titles: dict[str, str] = {}  # document_id → title
        self.texts: dict[str, list[str]] = {}  # document_id → distinct passage texts in order
        self.chunk_index: dict[tuple[str, str], int] = {}  # (document_id, collapsed text) → position
        self._used: set[str] = set()

    def document_for(self, passage: Passage) -> str:
        source = passage.source or passage.title or text_source(passage.text)
        found = self.doc_ids.get(source)
        if found is not None:
            return found
        base = slug(source)
        document_id, n = base, 2
        while document_id in self._used:
            document_id, n = f"{base}-{n}", n + 1
        self._used.add(document_id)
        self.doc_ids[source] = document_id
        self.titles[document_id] = passage.title or source
        self.texts[document_id] = []
        return document_id

    def add(self, passage: Passage) -> tuple[str, int]:
        """(document_id, position of the passage's chunk in its edition)."""
        document_id = self.document_for(passage)
        key = (document_id, " ".join(passage.text.split()))
        if key not in self.chunk_index:
            self.chunk_index[key] = len(self.texts[document_id])
            self.texts[document_id].append(passage.text.strip())
        return document_id, self.chunk_index[key]

    def build(self) -> tuple[list[Document], list[Version], list[Chunk], dict[str, str]]:
        documents, versions, chunks, full_texts = [], [], [], {}
        for document_id, texts in self.texts.items():
            version_id = f"{document_id}-v1"
            full = PASSAGE_SEPARATOR.join(texts)
            full_texts[version_id] = full
            documents.append(Document(document_id=document_id, title=self.titles[document_id], acl=[]))
            versions.append(
                Version(
                    version_id=version_id,
                    document_id=document_id,
                    revision=1,
                    content_sha256=sha256_text(full),
                    effective_from=EDITION_FROM,
                    pages_known=False,
                )
            )
            start = 0
            for text in texts:
                chunks.append(
                    Chunk(
                        chunk_id=default_chunk_id(version_id, [], text),
                        version_id=version_id,
                        document_id=document_id,
                        text=text,
                        heading_path=[],
                        char_start=start,
                        char_end=start + len(text),
                    )
                )
                start += len(text) + len(PASSAGE_SEPARATOR)
        return documents, versions, chunks, full_texts

    def chunk_id(self, document_id: str, position: int) -> str:
        version_id = f"{document_id}-v1"
        return default_chunk_id(version_id, [], self.texts[document_id][position])


def _gold(record: PeerRecord) -> Gold | None:
    if not record.gold:
        return None
    try:
        return Gold.model_validate(record.gold)
    except ValueError as exc:
        raise DataError(record.where, None, f"gold: {exc}") from None


def write_dataset(
    kind: str,
    source: Path,
    records: Sequence[PeerRecord],
    out: Path | str,
    answers: Path | str | None = None,
    *,
    force: bool = False,
    options: dict[str, Any] | None = None,
    notes: Sequence[str] = (),
    peer_overall: dict[str, Any] | None = None,
) -> ImportReport:
    """Write DATASET (registry, questions.jsonl, import.json) and the replay file from peer records."""
    from evals.data.validate import DatasetNotValid, validate_dataset

    out = Path(out)
    _check_records(kind, source, records)
    if out.exists() and any(out.iterdir()) and not force:
        raise UsageError(f"{out} is not empty: choose a new folder for the imported dataset (or --force)")
    answers_path = Path(answers) if answers is not None else out / "answers" / f"{kind}.jsonl"
    inside = _inside(answers_path, out)

    registry = _Registry()
    placed: list[list[tuple[str, int]]] = [[registry.add(p) for p in r.passages if p.text.strip()] for r in records]
    documents, versions, chunks, texts = registry.build()
    questions = [
        Question(question_id=r.question_id, question=r.question, gold=_gold(r), tags=[f"import:{kind}"])
        for r in records
    ]
    replay = _replay_answers(kind, records, placed, registry, options or {})

    with staged_folder(out, existing="replace") as staging:
        _write_registry(staging / "registry", documents, versions, chunks, texts)
        write_jsonl_atomic(staging / "questions.jsonl", questions)
        manifest = import_manifest(kind, source, records, options or {}, notes, peer_overall)
        write_text_atomic(staging / IMPORT_MANIFEST, json.dumps(manifest, ensure_ascii=False, indent=2) + "\n")
        if inside:
            staged_answers = staging / answers_path.resolve().relative_to(out.resolve())
            staged_answers.parent.mkdir(parents=True, exist_ok=True)
            write_jsonl_atomic(staged_answers, replay)
        problems = validate_dataset(staging).problems
        if problems:
            named = [DataError(p.path.replace(str(staging), str(out)), p.line, p.message, p.field) for p in problems]
            raise DatasetNotValid(named, what=f"the {kind} import would not validate; nothing written to {out}")
    if not inside:
        answers_path.parent.mkdir(parents=True, exist_ok=True)
        write_jsonl_atomic(answers_path, replay)
    report = ImportReport(kind, source, out, answers_path, len(questions), len(documents), len(chunks), len(replay))
    report.with_gold = sum(q.gold is not None for q in questions)
    report.notes.extend(notes)
    return report


def import_manifest(
    kind: str, source: Path, records: Sequence[PeerRecord], options: dict[str, Any], notes: Sequence[str],
    peer_overall: dict[str, Any] | None,
) -> dict[str, Any]:
    """DATASET/import.json: the import's format, file, options and notes, and the peer's own scores."""
    per_question = {r.question_id: r.peer_scores for r in records if r.peer_scores}
    return {
        "kind": kind,
        "source": source.name,
        "options": options,
        "notes": list(notes),
        "peer_scores": {"overall": peer_overall or {}, "questions": per_question},
    }


def _check_records(kind: str, source: Path, records: Sequence[PeerRecord]) -> None:
    """The peer file has questions, and no question id twice."""
    if not records:
        raise DataError(source, None, f"no questions found in this {kind} file")
    seen: dict[str, str] = {}
    for record in records:
        if record.question_id in seen:
            first = seen[record.question_id]
            raise DataError(record.where, None, f"question id {record.question_id!r} repeats {first}")
        seen[record.question_id] = record.where


def _replay_answers(
    kind: str, records: Sequence[PeerRecord], placed: list[list[tuple[str, int]]], registry: _Registry,
    options: dict[str, Any],
) -> list[Answer]:
    """The replay answers: each record's response with its passages as evidence (each placed in
    the registry as (document, position)); a record without a response has none."""
    replay: list[Answer] = []
    for record, spots in zip(records, placed, strict=True):
        if record.response is None:
            continue
        evidence = [
            Evidence(
                evidence_id=str(n),
                chunk_id=registry.chunk_id(document_id, position),
                document_id=document_id,
                version_id=f"{document_id}-v1",
                text=registry.texts[document_id][position],
            )
            for n, (document_id, position) in enumerate(spots, start=1)
        ]
        replay.append(
            Answer(
                question_id=record.question_id,
                status="answered",
                answer_text=record.response,
                claims=record.claims or [],
                evidence=evidence,
                # the import's options that change a result travel with each answer into the run
                raw={"imported_from": kind, **({"import_options": options} if options else {}),
                     "record": record.raw} if record.raw is not None else None,
            )
        )
    return replay


def _write_registry(
    registry_dir: Path, documents: list[Document], versions: list[Version], chunks: list[Chunk], texts: dict[str, str]
) -> None:
    """DATASET/registry: documents, versions and chunks as JSON lines, each edition's full text."""
    (registry_dir / "texts").mkdir(parents=True)
    for name, items in (("documents", documents), ("versions", versions), ("chunks", chunks)):
        write_jsonl_atomic(registry_dir / f"{name}.jsonl", items)
    for version_id, text in texts.items():
        write_text_atomic(registry_dir / "texts" / f"{version_id}.txt", text)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True
