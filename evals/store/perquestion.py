"""per_question rows as Parquet (per_question.parquet beside per_question.jsonl) for large runs.

The columns are the `QuestionScore` fields and every per-answer metric (float64, null where it
does not apply), typed: strings, lists of strings (tags, anchor levels, findings), booleans,
integers, `reasons` as a map of strings. Keys no column is made for (a section another stage
adds to the rows) go, JSON-encoded, into one `extra` column, so the schema never depends on the
data and every shard of a run writes the same one. `read_rows` gives back the rows as
per_question.jsonl holds them (`RunFolder.per_question` reads either file).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evals.contract.scores import QuestionScore

__all__ = ["ParquetRows", "read_rows", "schema", "table_of"]

EXTRA = "extra"
_STRINGS = ("question_id", "risk_tier", "status")
_LISTS = ("tags", "anchor_levels", "findings")
_BOOLS = ("abstained", "should_abstain", "accepted")
_INTS = ("markers", "valid_markers")
_MAPS = ("reasons",)


def _type_of(name: str, metrics: Sequence[str]) -> pa.DataType | None:
    if name in _STRINGS:
        return pa.string()
    if name in _LISTS:
        return pa.list_(pa.string())
    if name in _BOOLS:
        return pa.bool_()
    if name in _INTS:
        return pa.int64()
    if name in _MAPS:
        return pa.map_(pa.string(), pa.string())
    if name in metrics or name == "cost_usd":
        return pa.float64()
    return None


def schema(metrics: Sequence[str]) -> pa.Schema:
    """The QuestionScore fields and the per-answer metrics (the score stage passes its list), then `extra`."""
    names = [*QuestionScore.model_fields, *(m for m in metrics if m not in QuestionScore.model_fields)]
    fields = [pa.field(name, kind) for name in names if (kind := _type_of(name, metrics)) is not None]
    return pa.schema([*fields, pa.field(EXTRA, pa.string())])


def table_of(rows: Sequence[dict[str, Any]], table_schema: pa.Schema) -> pa.Table:
    """per_question rows (QuestionScore.to_json dicts) as a table of the given schema."""
    names = [n for n in table_schema.names if n != EXTRA]
    known = set(names)
    columns: dict[str, list[Any]] = {name: [] for name in table_schema.names}
    for row in rows:
        for name in names:
            value = row.get(name)
            if name in _MAPS:
                value = list((value or {}).items())
            elif name in _LISTS and value is None:
                value = []
            columns[name].append(value)
        rest = {k: v for k, v in row.items() if k not in known}
        columns[EXTRA].append(json.dumps(rest, ensure_ascii=False) if rest else None)
    return pa.table(columns, schema=table_schema)


def read_rows(path: Path | str) -> Iterator[dict[str, Any]]:
    """The rows of a per_question.parquet, batch by batch, as per_question.jsonl has them."""
    reader = pq.ParquetFile(path)
    for batch in reader.iter_batches(batch_size=8192):
        for row in batch.to_pylist():
            extra = row.pop(EXTRA, None)
            if "reasons" in row:
                reasons = dict(row["reasons"] or [])
                if reasons:
                    row["reasons"] = reasons
                else:
                    del row["reasons"]
            if extra:
                row.update(json.loads(extra))
            yield row


class ParquetRows:
    """Writes per_question.parquet one shard at a time (a row group per shard)."""

    def __init__(self, path: Path | str, metrics: Sequence[str]) -> None:
        self.path = Path(path)
        self.schema = schema(metrics)
        self._writer: pq.ParquetWriter | None = None

    def write(self, table: pa.Table) -> None:
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.path, self.schema, compression="zstd")
        self._writer.write_table(table)

    def close(self) -> None:
        """Finish the file (an empty run still gets a valid file with the schema)."""
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.path, self.schema, compression="zstd")
        self._writer.close()
        self._writer = None
