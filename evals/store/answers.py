"""answers.jsonl, line by line: the one parser of an answer line and the one rule for its last line.

`run` appends answers a batch at a time, so a kill (or a reader while the run still writes) can
meet a last line that lacks its newline. Every reader — the run folder, the scoring's index and
shards, `run --resume`, the hash the score marker records — treats it the same way
(`evals.store.reading.torn_line`): a last line that does not parse as a JSON object is torn and
left out; one that does is a complete answer that only lacks its newline. Any other bad line is
a DataError naming its line. Only `run --resume` writes: `repair_answers` cuts a torn last line
(or ends a complete one) before the run appends.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.contract.models import Answer
from evals.errors import DataError
from evals.store.atomic import repair_last_line
from evals.store.jsonl import validation_errors
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
    "answer_from_line",
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
        raise validation_errors(path, lineno, exc)[0] from None


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
