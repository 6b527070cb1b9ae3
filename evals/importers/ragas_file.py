"""Ragas evaluation datasets (explodinggradients/ragas) → citeval records.

An `EvaluationDataset` of `SingleTurnSample`s, saved with its own `to_jsonl` (one sample a
line), `to_csv` (lists written as Python literals, e.g. `['…', '…']`) or as a JSON list
(`to_list`): `user_input`, `retrieved_contexts`, `retrieved_context_ids` (newer ragas),
`response`, `reference`, `reference_contexts`. When ragas is installed the rows are read with
ragas's own schema (`EvaluationDataset.from_list`, which validates each sample); otherwise the
same fields are read by hand. Ragas samples carry no id: a row's `question_id` (or `id`) is used
when the file has one, else `ragas-<n>`.

A file written from ragas's `evaluate()` result (`result.to_pandas()` saved as CSV or JSON
lines) also holds its metric columns (faithfulness, answer_relevancy, context_precision, …):
every numeric column that is not a sample field is taken for one and kept in
DATASET/import.json as the peer's own score of that question (a NaN — a metric ragas could
not compute — is left out and counted in the notes).
"""

from __future__ import annotations

import ast
import csv
import importlib.util
import io
import json
import os
from pathlib import Path
from typing import Any

from evals.errors import DataError
from evals.importers.build import Passage, PeerRecord, text_source
from evals.store.jsonl import read_json
from evals.store.reading import iter_lines, read_file_text

LIST_COLUMNS = ("retrieved_contexts", "reference_contexts", "retrieved_context_ids", "reference_context_ids")
ID_COLUMNS = ("question_id", "id", "sample_id")
# ragas v0.1 column names (a HuggingFace Dataset) → v0.2 names, as ragas.utils.REQUIRED_COLS_v1 maps them
V1_COLUMNS = {"question": "user_input", "contexts": "retrieved_contexts", "answer": "response",
              "ground_truth": "reference"}


# SingleTurnSample's fields and the testset generator's columns: never a metric
SAMPLE_COLUMNS = frozenset({"user_input", "retrieved_contexts", "reference_contexts", "retrieved_context_ids",
                            "reference_context_ids", "response", "multi_responses", "reference", "rubrics",
                            "persona_name", "query_style", "query_length", "synthesizer_name", *V1_COLUMNS})


def metric_columns(row: dict[str, Any]) -> tuple[dict[str, float], int]:
    """(the row's numeric columns that are not sample fields or ids, how many were NaN)."""
    scores: dict[str, float] = {}
    nan = 0
    for key, value in row.items():
        if key in SAMPLE_COLUMNS or key in ID_COLUMNS or isinstance(value, bool):
            continue
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                continue
        if not isinstance(value, (int, float)):
            continue
        if value != value or value in (float("inf"), float("-inf")):
            nan += 1
            continue
        scores[str(key)] = float(value)
    return scores, nan


def ragas_available() -> bool:
    return importlib.util.find_spec("ragas") is not None


def _rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """(where, row) for every row of a JSONL, JSON or CSV export."""
    if not path.exists():
        raise DataError(path, None, "file not found")
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return _csv_rows(path)
    if suffix == ".json":
        doc = read_json(path)
        if not isinstance(doc, list):
            raise DataError(path, None, "expected a list of samples (EvaluationDataset.to_list())")
        return [(f"{path}: [{n}]", row) for n, row in enumerate(doc)]
    rows = []
    for lineno, line, _ in iter_lines(path):  # strict UTF-8 naming the line, within the line limit
        if not line.strip():
            continue
        try:
            rows.append((f"{path}:{lineno}", json.loads(line)))
        except json.JSONDecodeError as exc:
            raise DataError(path, lineno, f"invalid JSON: {exc.msg}") from None
    return rows


def _csv_rows(path: Path) -> list[tuple[str, dict[str, Any]]]:
    rows = []
    reader = csv.DictReader(io.StringIO(read_file_text(path), newline=""))
    for n, row in enumerate(reader, start=2):
        where = f"{path}:{n}"
        parsed: dict[str, Any] = {}
        for key, value in row.items():
            if key is None:
                raise DataError(path, n, "more cells than the header has columns")
            if key in LIST_COLUMNS or key == "contexts":
                parsed[key] = _list_cell(value, path, n, key)
            else:
                parsed[key] = value if value != "" else None
        rows.append((where, parsed))
    return rows


def _list_cell(value: str | None, path: Path, line: int, column: str) -> list[Any] | None:
    """ragas's to_csv writes a list as its Python literal; a JSON list reads too."""
    if value is None or not value.strip():
        return None
    for parse in (ast.literal_eval, json.loads):
        try:
            parsed = parse(value)
        except (ValueError, SyntaxError, json.JSONDecodeError):
            continue
        if isinstance(parsed, list):
            return parsed
    raise DataError(path, line, f"{column}: expected a list such as ['…', '…'], got {value[:60]!r}")


def _with_ragas(rows: list[tuple[str, dict[str, Any]]], path: Path) -> list[dict[str, Any]]:
    """The samples as ragas's own SingleTurnSample reads them (unknown fields dropped by ragas)."""
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"  # before the import: ragas phones home otherwise
    from pydantic import ValidationError
    from ragas import EvaluationDataset
    from ragas.dataset_schema import SingleTurnSample

    samples: list[dict[str, Any]] = []
    for where, row in rows:
        if "user_input" in row and isinstance(row["user_input"], list):
            raise DataError(where, None, "a multi-turn sample (user_input is a list of messages): not supported")
        try:
            sample = SingleTurnSample.model_validate(row)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first.get("loc", ()))
            raise DataError(where, None, f"not a ragas SingleTurnSample: {first.get('msg')}", field or None) from None
        samples.append(sample.model_dump())
    # the whole set through EvaluationDataset too: it refuses a mix of sample types
    EvaluationDataset.from_list([{k: v for k, v in s.items() if v is not None} for s in samples])
    return samples


def _by_hand(rows: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    samples = []
    for where, row in rows:
        if not isinstance(row, dict):
            raise DataError(where, None, "a sample must be an object")
        for key in ("user_input", "response", "reference"):
            if row.get(key) is not None and not isinstance(row[key], str):
                raise DataError(where, None, f"{key!r} must be a string", key)
        for key in LIST_COLUMNS:
            value = row.get(key)
            if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
                raise DataError(where, None, f"{key!r} must be a list of strings", key)
        samples.append(row)
    return samples


def read_ragas(path: Path | str, *, use_ragas: bool | None = None) -> tuple[list[PeerRecord], list[str]]:
    """use_ragas: None reads with ragas's schema when ragas is installed; True requires it."""
    path = Path(path)
    rows = _rows(path)
    v1 = [isinstance(row, dict) and "user_input" not in row and "question" in row for _, row in rows]
    if any(v1):
        # a v0.1 dataset: renamed the way ragas's own convert_v1_to_v2_dataset does
        rows = [(where, {V1_COLUMNS.get(k, k): v for k, v in row.items()} if old else row)
                for (where, row), old in zip(rows, v1, strict=True)]
    ragas = ragas_available() if use_ragas is None else use_ragas
    samples = _with_ragas(rows, path) if ragas else _by_hand(rows)
    notes = ["read with ragas's own schema (SingleTurnSample)" if ragas else "read without ragas (not installed)"]
    if any(v1):
        notes.append(f"{sum(v1)} row(s) in ragas v0.1 columns (question, contexts, answer, ground_truth), "
                     "read as user_input, retrieved_contexts, response, reference")
    records = []
    nan = 0
    for n, ((where, row), sample) in enumerate(zip(rows, samples, strict=True)):
        question = sample.get("user_input")
        if not isinstance(question, str) or not question.strip():
            raise DataError(where, None, "'user_input' is missing", "user_input")
        question_id = next((str(row[k]) for k in ID_COLUMNS if row.get(k) not in (None, "")), f"ragas-{n + 1}")
        contexts = sample.get("retrieved_contexts") or []
        ids = sample.get("retrieved_context_ids") or []
        passages = []
        for i, text in enumerate(contexts):
            source = str(ids[i]) if i < len(ids) and ids[i] not in (None, "") else text_source(text)
            passages.append(Passage(text=text, source=source, title=source))
        gold: dict[str, Any] = {}
        if isinstance(sample.get("reference"), str) and sample["reference"].strip():
            gold["answer"] = sample["reference"]
        if sample.get("reference_contexts"):
            gold["reference_contexts"] = sample["reference_contexts"]
        raw = {k: v for k, v in sample.items() if k not in ("retrieved_contexts",) and v is not None}
        record = PeerRecord(question_id, question, sample.get("response"), passages, gold or None, where, raw)
        scores, missing = metric_columns(row) if isinstance(row, dict) else ({}, 0)
        record.peer_scores, nan = scores or None, nan + missing
        records.append(record)
    scored = sum(r.peer_scores is not None for r in records)
    if scored:
        names = sorted({k for r in records for k in r.peer_scores or {}})
        notes.append(f"ragas metric columns kept for {scored} sample(s) in import.json: {', '.join(names)}"
                     + (f" ({nan} NaN value(s) left out)" if nan else ""))
    return records, notes
