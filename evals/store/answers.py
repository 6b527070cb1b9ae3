"""answers.jsonl, line by line: the one parser of an answer line and the one rule for its last line.

`run` appends answers a batch at a time, so a kill (or a reader while the run still writes) can
meet a last line that lacks its newline. Every reader — the run folder, the scoring's index and
shards, `run --resume`, the hash the score marker records — treats it the same way
(`evals.store.reading.torn_line`): a last line that does not parse as a JSON object is torn and
left out; one that does is a complete answer that only lacks its newline. Any other bad line is
a DataError naming its line. Only `run --resume` writes: `repair_answers` cuts a torn last line
(or ends a complete one) before the run appends.

A line that is no Answer gives one line per problem, naming the file, the line and the field,
with a hint for the common mistakes (`answer_errors`); a backend's reply that is no Answer gets
the same words on one line (`answer_problems_text`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.contract.models import Answer
from evals.errors import DataError, DataErrors
from evals.store.atomic import repair_last_line
from evals.store.reading import (
    BOM,
    decode_text,
    iter_raw_lines,
    json_type,
    open_binary,
    parse_json,
    torn_line,
    unended_last_line,
)

__all__ = [
    "answer_errors",
    "answer_from_line",
    "answer_problems_text",
    "answers_after",
    "answers_sha256",
    "iter_answer_lines",
    "iter_answers",
    "question_id_of_line",
    "read_answers",
    "repair_answers",
]

# the runner writes question_id first; an id with an escape falls back to the parsed line
_LEADING_ID = re.compile(rb'\A\s*\{\s*"question_id"\s*:\s*"([^"\\]*)"')


# What the common mistakes of an answer line need said beside pydantic's words (fields with their
# list indices as N; DESIGN 3).
_MISSING_HINTS = {
    "question_id": "the question_id of the question it answers, as in questions.jsonl",
    "status": "one of answered, abstained, error",
    "claims.N.claim_id": 'an id of the claim within the answer, e.g. "c1"',
    "claims.N.text": "the claim's sentence as shown to the user",
    "evidence.N.evidence_id": 'the id the answer\'s markers use, e.g. "E1" for [E1]',
    "links.N.evidence_id": "the evidence_id of the evidence the link opens",
    "links.N.url": "the link as rendered to the user",
    "error.type": 'a short kind of failure, e.g. "timeout"',
    "error.message": "what went wrong, in words",
}
_SHAPE_HINTS = {
    "claims": "a list of {claim_id, text, evidence_ids} objects",
    "evidence": "a list of {evidence_id, chunk_id} objects (or version_id with char_start and char_end)",
    "links": "a list of {evidence_id, url} objects",
    "claims.N.evidence_ids": 'a list of evidence ids, e.g. ["E1"]',
    "answer_text": "the text shown to the user, markers such as [E1] inside",
    "error": "an object {type, message}",
}
# a key that is often sent for the field
_OTHER_NAMES = {"evidence_id": ("id", "evidenceId"), "claim_id": ("id", "claimId"), "question_id": ("id", "qid")}


def _problem(error: Any, obj: Any) -> tuple[str, str]:
    """(field, message with its hint) of one pydantic error of an Answer."""
    loc = error["loc"]
    field = ".".join(str(part) for part in loc) or "(record)"
    shape = ".".join("N" if isinstance(part, int) else str(part) for part in loc)
    if error["type"] == "missing":
        message = "required field is missing"
        hint = _MISSING_HINTS.get(shape)
        sent = _sibling_keys(obj, loc[:-1])
        other = next((name for name in _OTHER_NAMES.get(str(loc[-1]), ()) if name in sent), None)
        if other is not None:
            hint = f'the line has "{other}": name it {loc[-1]}'
        return field, message + (f" ({hint})" if hint else "")
    message = error["msg"].removeprefix("Value error, ")
    if "input" in error and error["type"] != "value_error":
        message += f" (got {json.dumps(error['input'], ensure_ascii=False, default=str)[:60]})"
    if shape in _SHAPE_HINTS and error["type"].endswith("_type"):
        message += f": {shape.rpartition('.')[2]} is {_SHAPE_HINTS[shape]}"
    return field, message


def _sibling_keys(obj: Any, loc: tuple[Any, ...]) -> set[str]:
    for part in loc:
        try:
            obj = obj[part]
        except (KeyError, IndexError, TypeError):
            return set()
    return set(obj) if isinstance(obj, dict) else set()


def answer_errors(path: Path | str, lineno: int | None, exc: ValidationError, obj: Any = None) -> DataError:
    """Every problem of a line that is no Answer, one DataError each (DataErrors when several),
    with a hint for the common ones; `obj` is the line as parsed (for "you sent id")."""
    problems = [DataError(path, lineno, message, field=field)
                for field, message in (_problem(error, obj) for error in exc.errors(include_url=False))]
    return problems[0] if len(problems) == 1 else DataErrors(problems)


def answer_problems_text(exc: ValidationError, obj: Any = None) -> str:
    """The problems of a backend's reply that is no Answer, on one line: 'field: message; …'."""
    return "; ".join(f"{field}: {message}" for field, message in
                     (_problem(error, obj) for error in exc.errors(include_url=False)))


def _object(path: Path | str, lineno: int, line: bytes) -> dict[str, Any]:
    obj = parse_json(decode_text(line, path, lineno), path, lineno)
    if not isinstance(obj, dict):
        raise DataError(path, lineno, f"expected an Answer object, got {json_type(obj)}")
    return obj


def answer_from_line(path: Path | str, lineno: int, line: bytes) -> Answer:
    """One answers.jsonl line as an Answer; a line that is not one is a DataError naming the
    line (and the field)."""
    obj = _object(path, lineno, line)
    try:
        return Answer.model_validate(obj)
    except ValidationError as exc:
        raise answer_errors(path, lineno, exc, obj) from None


def question_id_of_line(path: Path | str, lineno: int, line: bytes) -> str:
    """The question_id of one answers.jsonl line (read from its start when the runner wrote it;
    the whole line is parsed later, by whoever scores it); a line that is no JSON object with a
    string question_id is a DataError naming its line."""
    found = _LEADING_ID.match(line)
    if found is not None:
        try:
            return found.group(1).decode("utf-8")
        except UnicodeDecodeError:
            pass
    qid = _object(path, lineno, line).get("question_id")
    if not isinstance(qid, str):
        raise DataError(path, lineno, "question_id must be a string", field="question_id")
    return qid


def _blank(path: Path, lineno: int, line: bytes) -> bool:
    """A line of whitespace only (a leading BOM counts as none), decided without decoding a record."""
    stripped = (line.removeprefix(BOM) if lineno == 1 else line).strip()
    if not stripped:
        return True
    if stripped[:1] in b'{["':  # a JSON record, the common case
        return False
    return not decode_text(line, path, lineno).strip()


def iter_answer_lines(path: Path | str) -> Iterator[tuple[int, int, bytes]]:
    """(line number, byte offset, line) of each answer line that counts, in file order: blank
    lines are skipped and a torn last line is left out (see the module's docstring). Nothing when
    the file does not exist (a run that has not answered yet)."""
    path = Path(path)
    if not path.exists():
        return
    offset = 0
    for lineno, line in iter_raw_lines(path):  # a line over the reading layer's limit is an error
        if not line.endswith(b"\n") and torn_line(line, path, lineno):
            return  # torn or in flight
        if not _blank(path, lineno, line):
            yield lineno, offset, line
        offset += len(line)


def iter_answers(path: Path | str) -> Iterator[Answer]:
    """Answers in file order, streaming, read-only."""
    path = Path(path)
    for lineno, _, line in iter_answer_lines(path):
        yield answer_from_line(path, lineno, line)


def read_answers(path: Path | str) -> dict[str, Answer]:
    """Answers by question id (a resumed run's later line wins); read-only."""
    return {answer.question_id: answer for answer in iter_answers(path)}


def repair_answers(path: Path | str) -> dict[str, Answer]:
    """The runner's reader (`run --resume`): cut a torn last line left by a kill (a complete last
    answer gets its missing newline instead), then read the answers."""
    path = Path(path)
    repair_last_line(path, lambda line: torn_line(line, path))
    return read_answers(path)


def answers_sha256(path: Path | str, upto: int | None = None) -> str | None:
    """The hash of the answers a reader sees: a torn last line is not part of them, so a kill
    during a later `run --resume` does not look like changed answers. None without the file.
    upto: the hash of the first `upto` bytes only (the answers one scoring read; None when the
    file is shorter now)."""
    path = Path(path)
    if not path.exists():
        return None
    if upto is None:
        start, tail = unended_last_line(path)
        end = start if tail and torn_line(tail, path) else start + len(tail)
    else:
        end = upto
    digest = hashlib.sha256()
    with open_binary(path) as handle:  # streamed: a year of answers is more than a gigabyte
        left = end
        while left > 0:
            block = handle.read(min(left, 1 << 20))
            if not block:
                return None if upto is not None else digest.hexdigest()
            digest.update(block)
            left -= len(block)
    return digest.hexdigest()


def answers_after(path: Path | str, offset: int) -> bool:
    """Whether answers.jsonl holds an answer line past `offset` (what a scoring read): anything
    but blank lines and a torn last line there counts."""
    path = Path(path)
    if not path.exists():
        return False
    start, tail = unended_last_line(path)
    end = start if tail and torn_line(tail, path) else start + len(tail)
    with open_binary(path) as handle:
        handle.seek(offset)
        left = end - offset
        while left > 0:
            block = handle.read(min(left, 1 << 16))
            if not block:
                return False
            if block.strip():
                return True
            left -= len(block)
    return False
