"""RAGChecker (amazon-science/RAGChecker) input files → citeval records.

RAGChecker reads `{"results": [...]}` (its `RAGResults`; the repository's example file names
the list `input_data`), each `RAGResult` being `query_id`, `query`, `gt_answer`, `response` and
`retrieved_context: [{doc_id, text}]`. The response carries no citation markers: citeval's
checks then find every claim uncited, and `context_support` says whether the retrieved
passages back it.

A `doc_id` names a passage within its query's retrieved_context, not across the file: the
repository's example numbers each query's passages "000", "001", … afresh, so the same id in
two queries is two passages. Each (query_id, doc_id) is therefore its own document.

A file RAGChecker has checked (its `checking_outputs.json`) also holds its scores: each
result's `metrics` (precision, recall, f1, claim_recall, context_precision, faithfulness, …,
fractions) and the file's `metrics` by group (overall, retriever, generator; percentages, as
RAGChecker prints them). They are kept in DATASET/import.json beside citeval's own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.errors import DataError
from evals.importers._read import list_field, text_field
from evals.importers.build import Passage, PeerRecord
from evals.store.jsonl import read_json

LIST_KEYS = ("results", "input_data")


def read_ragchecker(path: Path | str) -> tuple[list[PeerRecord], list[str]]:
    records, notes, _ = read_ragchecker_file(path)
    return records, notes


def _scores(value: Any) -> dict[str, float]:
    """The numeric entries of a metrics dict (a value RAGChecker could not compute is left out)."""
    if not isinstance(value, dict):
        return {}
    return {str(k): float(v) for k, v in value.items()
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v}  # v == v: not NaN


def _overall(doc: Any) -> dict[str, dict[str, float]]:
    groups = doc.get("metrics") if isinstance(doc, dict) else None
    if not isinstance(groups, dict):
        return {}
    return {str(group): scores for group, values in groups.items() if (scores := _scores(values))}


def read_ragchecker_file(path: Path | str) -> tuple[list[PeerRecord], list[str], dict[str, Any]]:
    """The records, notes and the file's own overall metrics (by group; empty for an input file)."""
    path = Path(path)
    doc = read_json(path)
    if isinstance(doc, dict):
        key = next((k for k in LIST_KEYS if isinstance(doc.get(k), list)), None)
        if key is None:
            raise DataError(path, None, "expected a RAGChecker file: an object with a 'results' list")
        items, name = doc[key], key
    elif isinstance(doc, list):
        items, name = doc, "results"
    else:
        raise DataError(path, None, "expected a RAGChecker file: an object with a 'results' list")
    records = []
    for n, item in enumerate(items):
        where = f"{path}: {name}[{n}]"
        if not isinstance(item, dict):
            raise DataError(where, None, "a result must be an object")
        query_id = text_field(item, "query_id", where, required=False) or f"ragchecker-{n + 1}"
        query = text_field(item, "query", where) or ""
        passages = []
        for i, context in enumerate(list_field(item, "retrieved_context", where)):
            if not isinstance(context, dict) or not isinstance(context.get("text"), str):
                raise DataError(f"{where}.retrieved_context[{i}]", None, "expected {doc_id, text}")
            doc_id = context.get("doc_id")
            if doc_id in (None, ""):
                passages.append(Passage(text=context["text"]))  # named by its text, as any unnamed passage
                continue
            # a doc_id counts within its query: "000" of query 0 and "000" of query 1 are two passages
            passages.append(Passage(text=context["text"], source=f"{query_id}/{doc_id}",
                                    title=f"{doc_id} (query {query_id})"))
        gt_answer = text_field(item, "gt_answer", where, required=False)
        gold = {"answer": gt_answer} if gt_answer and gt_answer.strip() else None
        response = text_field(item, "response", where, required=False)
        raw = {k: v for k, v in item.items() if k != "retrieved_context"}
        record = PeerRecord(query_id, query, response, passages, gold, where, raw)
        record.peer_scores = _scores(item.get("metrics")) or None
        records.append(record)
    overall = _overall(doc)
    scored = sum(r.peer_scores is not None for r in records)
    notes = [f"RAGChecker's own metrics kept for {scored} result(s) in import.json"] if scored or overall else []
    return records, notes, overall
