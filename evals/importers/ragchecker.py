"""RAGChecker (amazon-science/RAGChecker) input files → citeval records.

RAGChecker reads `{"results": [...]}` (its `RAGResults`; the repository's example file names
the list `input_data`), each `RAGResult` being `query_id`, `query`, `gt_answer`, `response` and
`retrieved_context: [{doc_id, text}]`. The response carries no citation markers: citeval's
checks then find every claim uncited, and `context_support` says whether the retrieved
passages back it.
"""

from __future__ import annotations

from pathlib import Path

from evals.errors import DataError
from evals.importers._read import list_field, text_field
from evals.importers.build import Passage, PeerRecord
from evals.store.jsonl import read_json

LIST_KEYS = ("results", "input_data")


def read_ragchecker(path: Path | str) -> tuple[list[PeerRecord], list[str]]:
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
            source = str(doc_id) if doc_id not in (None, "") else None
            passages.append(Passage(text=context["text"], source=source, title=source))
        gt_answer = text_field(item, "gt_answer", where, required=False)
        gold = {"answer": gt_answer} if gt_answer and gt_answer.strip() else None
        response = text_field(item, "response", where, required=False)
        raw = {k: v for k, v in item.items() if k != "retrieved_context"}
        records.append(PeerRecord(query_id, query, response, passages, gold, where, raw))
    return records, []
