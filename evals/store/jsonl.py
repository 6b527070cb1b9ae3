"""Streaming readers and writers for the contract files (JSONL; questions also CSV/Parquet).

Readers yield one validated record at a time and report a bad record as a DataError that
names the file, the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from evals.errors import DataError
from evals.store.atomic import LineAppender, write_lines, write_text_atomic
from evals.store.reading import iter_csv_rows, iter_json_objects, iter_parquet_rows, json_type, parse_json
from evals.store.reading import read_json as read_json_document

if TYPE_CHECKING:
    from evals.contract.models import Question

M = TypeVar("M", bound=BaseModel)
ErrorHandler = Callable[[DataError], None]


def _field_path(loc: tuple[Any, ...]) -> str:
    return ".".join(str(part) for part in loc) or "(record)"


def validation_errors(path: Path | str, line: int | None, exc: ValidationError) -> list[DataError]:
    """One DataError per pydantic error, with a short, human message."""
    out = []
    for err in exc.errors(include_url=False):
        field = _field_path(err["loc"])
        if err["type"] == "missing":
            msg = "required field is missing"
        else:
            msg = err["msg"].removeprefix("Value error, ")
            if "input" in err and err["type"] not in ("value_error",):
                msg += f" (got {json.dumps(err['input'], ensure_ascii=False, default=str)[:60]})"
        out.append(DataError(path, line, msg, field=field))
    return out


def iter_json_lines(path: Path | str, on_error: ErrorHandler | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line, read through evals.store.reading (strict UTF-8,
    JSON limits, no duplicate keys, no lone surrogates); a bad line raises or goes to on_error."""
    for lineno, obj, _ in iter_json_objects(path, on_error=on_error):
        if not isinstance(obj, dict):
            _report(on_error, DataError(path, lineno, f"expected a JSON object, got {json_type(obj)}"))
            continue
        yield lineno, obj


def _report(on_error: ErrorHandler | None, error: DataError) -> None:
    if on_error is None:
        raise error
    on_error(error)


def _validated(
    path: Path | str,
    objects: Iterable[tuple[int, dict[str, Any]]],
    model: type[M],
    on_error: ErrorHandler | None,
) -> Iterator[tuple[int, M]]:
    for lineno, obj in objects:
        try:
            yield lineno, model.model_validate(obj)
        except ValidationError as exc:
            errors = validation_errors(path, lineno, exc)
            if on_error is None:
                raise errors[0] from None
            for error in errors:
                on_error(error)


def read_jsonl(
    path: Path | str, model: type[M], on_error: ErrorHandler | None = None
) -> Iterator[tuple[int, M]]:
    """(line number, record) for each valid record. Without on_error the first bad record raises."""
    return _validated(path, iter_json_lines(path, on_error), model, on_error)


def load_jsonl(path: Path | str, model: type[M]) -> list[M]:
    return [record for _, record in read_jsonl(path, model)]


def read_json(path: Path | str, missing: str = "file not found") -> Any:
    """One JSON document; a missing file or broken JSON is a DataError naming the file (and the
    line of broken JSON)."""
    path = Path(path)
    if not path.exists():
        raise DataError(path, None, missing)
    return read_json_document(path)


def read_json_object(path: Path | str, missing: str = "file not found") -> dict[str, Any]:
    """One JSON document holding an object (manifest.json, scores.json …); anything else is a DataError."""
    doc = read_json(path, missing)
    if not isinstance(doc, dict):
        raise DataError(path, None, f"expected a JSON object, got {json_type(doc)}")
    return doc


def read_document(path: Path | str, model: type[M], missing: str = "file not found") -> M:
    """One JSON document validated by its contract model (agreement.json, probe.json …); a missing,
    broken or invalid file is a DataError naming it (and the line of broken JSON, or the field)."""
    obj = read_json_object(path, missing)
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise validation_errors(path, None, exc)[0] from None


def dump_line(record: BaseModel | dict[str, Any]) -> str:
    if isinstance(record, BaseModel):
        return record.model_dump_json(exclude_none=True, by_alias=True) + "\n"
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


class JsonlAppender:
    """Appends records one line at a time, flushed and fsynced, so a kill loses at most the line in flight."""

    def __init__(self, path: Path | str, fsync: bool = True) -> None:
        self.path = Path(path)
        self._out = LineAppender(self.path, fsync=fsync)

    def write(self, record: BaseModel | dict[str, Any]) -> None:
        self._out.write(dump_line(record))

    def close(self) -> None:
        self._out.close()

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_jsonl_atomic(path: Path | str, records: Iterable[BaseModel | dict[str, Any]]) -> int:
    """Write a whole file via a temporary sibling and rename (evals.store.atomic), so readers never see half a file."""
    return write_lines(path, (dump_line(record) for record in records))


def write_json_atomic(path: Path | str, obj: Any) -> None:
    text = (
        obj.model_dump_json(indent=2, exclude_none=True)
        if isinstance(obj, BaseModel)
        else json.dumps(obj, ensure_ascii=False, indent=2, default=str)
    )
    write_text_atomic(path, text + "\n")


# --- questions from tables -----------------------------------------------------------

# questions/ is a Hugging Face dataset folder (save_to_disk, or Parquet / JSON files): evals.store.hf
QUESTION_FILES = ("questions.jsonl", "questions.csv", "questions.parquet", "questions")


def questions_file(dataset: Path | str) -> Path:
    """The dataset's questions file (JSONL, CSV or Parquet) or Hugging Face dataset folder
    (questions/); questions.jsonl when none exists."""
    root = Path(dataset)
    return next((root / name for name in QUESTION_FILES if (root / name).exists()), root / QUESTION_FILES[0])


_JSON_COLUMNS = ("user", "gold", "tags")
_LIST_SEPARATOR = ";"


def _table_row_to_question(row: dict[str, Any], path: Path, lineno: int) -> dict[str, Any]:
    """A flat table row → a question object: JSON-text columns are parsed; user_id/groups build user."""
    obj: dict[str, Any] = {key: value for key, value in row.items() if value is not None and value != ""}
    for key in _JSON_COLUMNS:
        value = obj.get(key)
        if isinstance(value, str) and value.strip()[:1] in ("{", "["):
            try:
                obj[key] = parse_json(value, path, lineno)
            except DataError as exc:
                raise DataError(path, lineno, exc.message.replace("invalid JSON", "invalid JSON in a cell"),
                                field=key) from None
    if isinstance(obj.get("tags"), str):
        obj["tags"] = [t.strip() for t in obj["tags"].split(_LIST_SEPARATOR) if t.strip()]
    if "user" not in obj and "user_id" in obj:
        groups = obj.pop("groups", "")
        if isinstance(groups, str):
            groups = [g.strip() for g in groups.split(_LIST_SEPARATOR) if g.strip()]
        obj["user"] = {"user_id": str(obj.pop("user_id")), "groups": groups}
    qid = obj.get("question_id")
    if isinstance(qid, (int, float)) and not isinstance(qid, bool):
        obj["question_id"] = str(qid)
    return obj


def iter_question_objects(
    path: Path | str, on_error: ErrorHandler | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Raw question objects with their line (JSONL), the line a row starts on (CSV; line 1 is the
    header) or their row number (Parquet, a Hugging Face dataset folder)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if path.is_dir():
        from evals.store.hf import iter_hf_rows

        rows_of_folder = iter_hf_rows(path)
        for lineno, row in rows_of_folder:
            try:
                yield lineno, _table_row_to_question(row, path, lineno)
            except DataError as error:
                _report(on_error, error)
        return
    if suffix in (".jsonl", ".json", ".ndjson"):
        yield from iter_json_lines(path, on_error)
        return
    rows: Iterator[tuple[int, dict[str, Any]]]
    if suffix == ".csv":
        rows = iter_csv_rows(path)
    elif suffix in (".parquet", ".pq"):
        rows = iter_parquet_rows(path)
    else:
        raise DataError(path, None, f"unsupported questions format {suffix!r} (use .jsonl, .csv or .parquet)")
    for lineno, row in rows:
        try:
            yield lineno, _table_row_to_question(row, path, lineno)
        except DataError as error:
            _report(on_error, error)


def read_questions(path: Path | str, on_error: ErrorHandler | None = None) -> Iterator[tuple[int, Any]]:
    """Questions from JSONL, CSV, Parquet or a Hugging Face dataset folder, each with the line (or row)
    it came from."""
    from evals.contract.models import Question

    return _validated(path, iter_question_objects(path, on_error), Question, on_error)


def existing_questions_file(dataset: Path | str) -> Path:
    """The dataset's questions file; a DataError when the folder holds none."""
    path = questions_file(dataset)
    if not path.exists():
        raise DataError(path, None, "file not found (is this a dataset folder?)")
    return path


def load_questions(dataset: Path | str) -> list[Question]:
    """Every question of a dataset folder in file order (JSONL, CSV or Parquet); a repeated
    question_id is a DataError naming its line."""
    path = existing_questions_file(dataset)
    seen: dict[str, int] = {}
    out: list[Question] = []
    for lineno, question in read_questions(path):
        if question.question_id in seen:
            raise DataError(path, lineno, f"duplicate question_id {question.question_id!r}")
        seen[question.question_id] = lineno
        out.append(question)
    return out
