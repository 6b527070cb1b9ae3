"""`citeval data import anthropic LOGS…`: a bot's logs of Anthropic calls → a replay file.

A log line is one of:
- the Messages response as returned, with `question_id` (or the `question` text) and `documents`;
- `{question_id | question, documents, events: [...]}`: the stream's raw events (lossless), or
  only each content_block_delta's `{index, delta}` (lossless too: the block index is kept);
- `{question_id | question, documents, text, citations: [...]}`: the final text and a flat
  list of the citations the stream's citations_delta events carried, at the top or inside the
  usage dict the bot logs beside the text (`usage_out: {input_tokens, …, citations: [...]}`).
  Which text each citation belonged to is lost, so each is attached to the sentence of `text`
  that best matches its cited_text (rapidfuzz) and the answer is marked `attached_by: matcher`.

A citation may also be cut down to what a person prints (`type`, `cited_text`,
`document_title`, page numbers: the cookbook's Citations notebook): it is placed by its title
and its text and marked `resolution: inferred` (evals/run/backends/anthropic_inferred.py).

Questions are matched by question_id, else by the exact normalized question text. A line that
matches no question, a second line for one question, or a line of no known shape is listed
in the report, never dropped silently. The replay file keeps the lines in the API's shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from evals.contract.models import Question
from evals.data.registry import Registry
from evals.errors import DataError, UsageError
from evals.run.backends.anthropic import (
    AnthropicFormatError,
    anthropic_to_answer,
    clean_cited_text,
    parse_anthropic_line,
)
from evals.run.backends.anthropic_inferred import INFERRED
from evals.run.backends.prices import PriceTable
from evals.store.atomic import write_lines
from evals.store.jsonl import iter_json_lines, load_questions, read_json
from evals.store.reading import iter_lines, json_type
from evals.text.normalize import normalize, split_sentences

FLAT_TEXT_KEYS = ("text", "answer_text", "final_text", "answer")
# where a bot keeps the flat citation list and the token counts beside its text: at the top, or in
# the usage dict it returned with the answer (`usage_out["citations"]`)
FLAT_HOLDERS = ("usage_out", "usage", "metadata")


def _flat_citations(obj: dict[str, Any]) -> list[Any] | None:
    if isinstance(obj.get("citations"), list):
        return list(obj["citations"])
    for holder in FLAT_HOLDERS:
        inner = obj.get(holder)
        if isinstance(inner, dict) and isinstance(inner.get("citations"), list):
            return list(inner["citations"])
    return None


def _flat_usage(obj: dict[str, Any]) -> dict[str, Any] | None:
    for holder in ("usage", "usage_out"):
        inner = obj.get(holder)
        if isinstance(inner, dict) and ("input_tokens" in inner or "output_tokens" in inner):
            return {k: v for k, v in inner.items() if k != "citations"}
    return None


@dataclass
class LogLine:
    """Where a log line came from and what became of it."""

    source: str  # file:line
    question_id: str | None = None
    matched_by: str | None = None  # "id" | "question text"
    shape: str = ""  # "message" | "events" | "flat"
    reason: str | None = None  # why it was not written
    # citations without document_index, placed by document_title and cited_text (anthropic_inferred)
    inferred: int | None = None
    inferred_resolved: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass
class ImportReport:
    out: Path
    written: list[LogLine] = field(default_factory=list)
    unmatched: list[LogLine] = field(default_factory=list)

    @property
    def matcher_attached(self) -> list[LogLine]:
        return [line for line in self.written if line.shape == "flat"]

    def to_json(self) -> dict[str, Any]:
        return {
            "out": str(self.out),
            "written": len(self.written),
            "matched_by_id": sum(line.matched_by == "id" for line in self.written),
            "matched_by_text": sum(line.matched_by == "question text" for line in self.written),
            "lossless": sum(line.shape != "flat" for line in self.written),
            "inferred": sum(line.inferred or 0 for line in self.written),
            "inferred_resolved": sum(line.inferred_resolved or 0 for line in self.written),
            "matcher_attached": [line.to_json() for line in self.matcher_attached],
            "unmatched": [line.to_json() for line in self.unmatched],
            "lines": [line.to_json() for line in self.written],
        }

    def notes(self) -> list[str]:
        """The log lines left out, and why (stderr of `citeval data import anthropic`)."""
        return [f"{line.source}: not imported: {line.reason}" for line in self.unmatched]

    def to_text(self) -> str:
        """Each matcher-attached answer, then the counts."""
        lines = [f"{line.source}: {line.question_id}: citations attached by matcher (flat citation list)"
                 for line in self.matcher_attached]
        counts = self.to_json()
        if counts["inferred"]:
            lines.append(
                f"{counts['inferred']} citation part(s) without document_index placed by document_title and "
                f"cited_text (resolution: inferred): {counts['inferred_resolved']} reach a registry chunk"
            )
        lines.append(
            f"{self.out}: {counts['written']} answer(s) ({counts['matched_by_id']} matched by id, "
            f"{counts['matched_by_text']} by question text; {counts['lossless']} lossless, "
            f"{len(counts['matcher_attached'])} matcher-attached); {len(self.unmatched)} line(s) not imported"
        )
        return "".join(line + "\n" for line in lines)


def log_files(paths: Iterable[Path | str]) -> list[Path]:
    """The files given, and every *.jsonl / *.json under the folders given, in name order."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise UsageError(f"{path}: no such file or folder")
    return files


def _shape(obj: dict[str, Any]) -> str | None:
    # a line that says what it is but holds the wrong type is malformed, not some other log line
    if "events" in obj and not isinstance(obj["events"], list):
        raise AnthropicFormatError("events must be a list of stream events")
    if obj.get("type") == "message" and not isinstance(obj.get("content"), list):
        raise AnthropicFormatError("content must be a list of blocks")
    for holder in ("usage", "usage_out"):  # a list or a number is malformed, not "no usage" (issue 33)
        if obj.get(holder) is not None and not isinstance(obj[holder], dict):
            raise AnthropicFormatError(f"{holder} must be an object of token counts, not {json_type(obj[holder])}")
    if isinstance(obj.get("events"), list):
        return "events"
    if isinstance(obj.get("content"), list):
        return "message"
    if _flat_citations(obj) is not None and any(isinstance(obj.get(k), str) for k in FLAT_TEXT_KEYS):
        return "flat"
    return None


def attach_citations(
    text: str, citations: Sequence[Any], scorer: Callable[[str, str], float] = fuzz.partial_ratio
) -> list[dict[str, Any]]:
    """Text blocks for a flat log: one block per sentence of `text` (the whitespace before a
    sentence stays with it, so the blocks join back to `text`), each citation on the sentence
    whose normalized text best matches its cited_text (the earlier sentence wins a tie).
    rapidfuzz's partial_ratio: on the demo's quote-placement answers it picks the gold sentence
    for 161 of 176 citations, partial_token_set_ratio for 93 (bench/anthropic_attach.py)."""
    sentences = split_sentences(text)
    if not sentences:
        return [{"type": "text", "text": text, "citations": list(citations)}] if text else []
    cuts = [0] + [s.end for s in sentences[:-1]] + [len(text)]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": text[a:b]} for a, b in zip(cuts, cuts[1:], strict=False)]
    normalized = [normalize(s.text) for s in sentences]
    for citation in citations:
        cited = normalize(clean_cited_text(str(citation.get("cited_text") or ""))) if isinstance(citation, dict) else ""
        scores = [scorer(cited, s) if cited else 0.0 for s in normalized]
        best = max(range(len(scores)), key=lambda i: (scores[i], -i))
        blocks[best].setdefault("citations", []).append(citation)
    return blocks


def _flat_message(obj: dict[str, Any]) -> dict[str, Any]:
    text = next(obj[k] for k in FLAT_TEXT_KEYS if isinstance(obj.get(k), str))
    message: dict[str, Any] = {
        "id": str(obj.get("message_id") or obj.get("id") or ""),
        "type": "message",
        "role": "assistant",
        "model": str(obj.get("model") or ""),
        "content": attach_citations(text, _flat_citations(obj) or []),
        "stop_reason": obj.get("stop_reason") or "end_turn",
    }
    usage = _flat_usage(obj)
    if usage is not None:
        message["usage"] = usage
    return message


def _replay_line(obj: dict[str, Any], shape: str, question_id: str) -> dict[str, Any]:
    citeval = {"question_id": question_id, "format": "anthropic"}
    for key in ("documents", "search_results", "latency_ms", "stale_notice"):
        if key in obj:
            citeval[key] = obj[key]
    if shape == "events":
        return {**citeval, "events": obj["events"]}
    if shape == "flat":
        return {**_flat_message(obj), **citeval, "attached_by": "matcher"}
    body = {k: v for k, v in obj.items() if k not in ("question", "question_id", "format")}
    return {**body, **citeval}


def import_anthropic_logs(
    logs: Iterable[Path | str],
    dataset: Path | str,
    out: Path | str,
    *,
    prices: PriceTable | None = None,
) -> ImportReport:
    """Turn log lines into a replay file for `citeval run DATASET --backend replay:OUT`.
    A malformed line raises DataError naming its file and line; nothing is written then."""
    now = datetime.now(timezone.utc)  # asked_at of a question without one, as in a run
    questions = load_questions(dataset)
    registry = Registry.load(dataset)
    by_id: dict[str, Question] = {q.question_id: q for q in questions}
    by_text: dict[str, list[Question]] = {}
    for question in questions:
        by_text.setdefault(normalize(question.question), []).append(question)
    report = ImportReport(out=Path(out))
    lines: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    files = log_files(logs)
    if not files:
        raise UsageError("no log files (*.jsonl, *.json) found")
    for path in files:
        for lineno, obj in _log_objects(path):
            entry = LogLine(source=f"{path}:{lineno}")
            try:
                shape = _shape(obj)
            except AnthropicFormatError as exc:
                raise DataError(path, lineno, f"anthropic log line: {exc}") from None
            if shape is None:
                entry.reason = "not a Messages response, a stream of events or a text with a citations list"
                report.unmatched.append(entry)
                continue
            entry.shape = shape
            found, entry.matched_by, entry.reason = _match(obj, by_id, by_text)
            if found is None:
                report.unmatched.append(entry)
                continue
            question = found
            entry.question_id = question.question_id
            if question.question_id in seen:
                first = seen[question.question_id]
                entry.reason = f"a second line for question {question.question_id!r} (first: {first})"
                report.unmatched.append(entry)
                continue
            line = _replay_line(obj, shape, question.question_id)
            try:
                parsed = parse_anthropic_line(line)
                # convert once now, so a line that cannot become an answer fails here, not in the run
                answer = anthropic_to_answer(parsed, registry, question.asked_at or now, prices=prices)
            except AnthropicFormatError as exc:
                raise DataError(path, lineno, f"anthropic log line: {exc}") from None
            inferred = [e for e in answer.evidence if (e.model_extra or {}).get("resolution") == INFERRED]
            if inferred:
                entry.inferred = len(inferred)
                entry.inferred_resolved = sum(registry.resolve(e) is not None for e in inferred)
            seen[question.question_id] = entry.source
            lines.append(line)
            report.written.append(entry)
    _write_lines(Path(out), lines)
    return report


def _log_objects(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """A log file's objects with their line numbers: JSON lines; a `.json` file holding one
    pretty-printed response (as a notebook prints it) or a list of them is read whole instead,
    each object numbered by its place in the file (1 for a single response)."""
    if path.suffix == ".json" and not _first_line_is_an_object(path):
        doc = read_json(path)
        items = doc if isinstance(doc, list) else [doc]
        for n, item in enumerate(items, start=1):
            if not isinstance(item, dict):
                raise DataError(path, None, f"item {n}: expected a JSON object, got {type(item).__name__}")
            yield n, item
        return
    yield from iter_json_lines(path)


def _first_line_is_an_object(path: Path) -> bool:
    """Whether the file's first non-blank line is a whole JSON object (JSON lines named .json);
    only that line is read."""
    for _, line, _ in iter_lines(path):
        if line.strip():
            try:
                return isinstance(json.loads(line), dict)
            except ValueError:
                return False
    return True  # an empty file: no lines either way


def _match(
    obj: dict[str, Any], by_id: dict[str, Question], by_text: dict[str, list[Question]]
) -> tuple[Question | None, str | None, str | None]:
    qid = obj.get("question_id")
    if qid is not None and str(qid) in by_id:
        return by_id[str(qid)], "id", None
    text = obj.get("question")
    if isinstance(text, str) and text.strip():
        found = by_text.get(normalize(text), [])
        if len(found) == 1:
            return found[0], "question text", None
        if len(found) > 1:
            ids = ", ".join(q.question_id for q in found)
            return None, None, f"question text matches {len(found)} questions ({ids})"
        if qid is None:
            return None, None, f"no dataset question has the text {text[:60]!r}"
    if qid is not None:
        return None, None, f"question_id {qid!r} is not in the dataset"
    return None, None, "no question_id and no question text"


def _write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_lines(path, (json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
