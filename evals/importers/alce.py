"""ALCE (Gao et al. 2023, princeton-nlp/ALCE) result files → citeval records.

A result file of ALCE's run.py is `{"args": {...}, "data": [...]}` (a data file of the
benchmark is the bare list); each item has `question`, `docs` (`[{title, text}]`, or
`{title, sent}` for QA-extracted docs), the model's `output` with markers `[1]`, `[2]` … that
count the docs from 1, and the gold of its dataset: `answer` (ASQA, ELI5), `qa_pairs` with
`short_answers` (ASQA), `claims` (ELI5), `answers` (QAMPARI). `output` is read the way ALCE's
eval.py reads it: up to its first line break, `<|im_end|>` removed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.errors import DataError
from evals.importers._read import list_field, text_field
from evals.importers.build import Passage, PeerRecord
from evals.store.jsonl import read_json

ID_KEYS = ("sample_id", "id", "question_id")
GOLD_KEYS = ("qa_pairs", "claims", "answers", "annotations")


def alce_output(output: str) -> str:
    """ALCE eval.py: `output.strip().split("\\n")[0].replace("<|im_end|>", "")`."""
    return output.strip().split("\n")[0].replace("<|im_end|>", "")


def read_alce(path: Path | str) -> tuple[list[PeerRecord], list[str]]:
    path = Path(path)
    doc = read_json(path)
    ndoc: int | None = None
    if isinstance(doc, dict):
        if not isinstance(doc.get("data"), list):
            raise DataError(path, None, "expected an ALCE result file: an object with a 'data' list, or the list")
        args = doc.get("args")
        if isinstance(args, dict) and isinstance(args.get("ndoc"), int) and args["ndoc"] >= 0:
            ndoc = args["ndoc"]
        items = doc["data"]
    elif isinstance(doc, list):
        items = doc
    else:
        raise DataError(path, None, "expected an ALCE result file: an object with a 'data' list")
    records: list[PeerRecord] = []
    notes: list[str] = []
    truncated = sampled = 0
    for n, item in enumerate(items):
        where = f"{path}: data[{n}]"
        if not isinstance(item, dict):
            raise DataError(where, None, "an item must be an object")
        question = text_field(item, "question", where) or ""
        question_id = next((str(item[k]) for k in ID_KEYS if item.get(k) not in (None, "")), f"alce-{n + 1}")
        docs = list_field(item, "docs", where)
        if ndoc is not None:
            docs = docs[:ndoc]
        passages = []
        for i, d in enumerate(docs):
            if not isinstance(d, dict):
                raise DataError(f"{where}.docs[{i}]", None, "a doc must be an object with title and text")
            text = d.get("text") if isinstance(d.get("text"), str) else d.get("sent")
            if not isinstance(text, str):
                raise DataError(f"{where}.docs[{i}]", None, "'text' (or 'sent') is missing")
            title = d.get("title") if isinstance(d.get("title"), str) and d.get("title") else None
            passages.append(Passage(text=text, source=title, title=title))
        if isinstance(item.get("output"), list) and item["output"]:
            # run.py --num_samples N > 1 saves the N sampled outputs as a list: the first is replayed
            item = {**item, "output": item["output"][0]}
            sampled += 1
        output = text_field(item, "output", where, required=False)
        response = alce_output(output) if output is not None else None
        if output is not None and response != output.strip():
            truncated += 1
        gold: dict[str, Any] = {}
        answer = item.get("answer")
        if isinstance(answer, str) and answer.strip():
            gold["answer"] = answer
        for key in GOLD_KEYS:
            if item.get(key) not in (None, [], ""):
                gold[key] = item[key]
        raw = {k: v for k, v in item.items() if k != "docs"}
        records.append(PeerRecord(question_id, question, response, passages, gold or None, where, raw))
    if truncated:
        notes.append(f"{truncated} output(s) cut at their first line break, as ALCE's eval.py reads them")
    if sampled:
        notes.append(f"{sampled} item(s) hold several sampled outputs (run.py --num_samples): the first is replayed")
    if ndoc is not None:
        notes.append(f"docs limited to the first {ndoc} of each item (args.ndoc: the passages the model was shown)")
    return records, notes
