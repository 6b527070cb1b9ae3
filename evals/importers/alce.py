"""ALCE (Gao et al. 2023, princeton-nlp/ALCE) result files → citeval records.

A result file of ALCE's run.py is `{"args": {...}, "data": [...]}` (a data file of the
benchmark is the bare list); each item has `question`, `docs` (`[{title, text}]`, or
`{title, sent}` for QA-extracted docs), the model's `output` with markers `[1]`, `[2]` … that
count the docs from 1, and the gold of its dataset: `answer` (ASQA, ELI5), `qa_pairs` with
`short_answers` (ASQA), `claims` (ELI5), `answers` (QAMPARI). `output` is read the way ALCE's
eval.py reads it: up to its first line break, `<|im_end|>` removed.

Also as eval.py reads it:
- every doc of an item counts, whatever `args.ndoc` says: run.py already cut `docs` to the ndoc
  the model was shown, and a closed-book run cited after the fact by post_hoc_cite.py keeps
  `ndoc: 0` beside the docs it cited;
- a QAMPARI answer (`args.dataset_name` or the file's name says qampari) is a comma list whose
  every item is a claim, "<question> <item>", citing the markers in the item;
- `at_most_citations` (eval.py's `--at_most_citations`, 3 there; off unless asked for here)
  keeps each claim's first N markers.
Markers before their sentence (`[1] Sentence.`, what post_hoc_cite.py writes) are the
sentence's own: the scorer reads an answer that opens with a marker that way.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from evals.contract.models import Claim
from evals.errors import DataError
from evals.importers._read import list_field, text_field
from evals.importers.build import Passage, PeerRecord
from evals.score.checks import derive_claims
from evals.store.jsonl import read_json
from evals.text.normalize import strip_markers

ID_KEYS = ("sample_id", "id", "question_id")
GOLD_KEYS = ("qa_pairs", "claims", "answers", "annotations")


def alce_output(output: str) -> str:
    """ALCE eval.py: `output.strip().split("\\n")[0].replace("<|im_end|>", "")`."""
    return output.strip().split("\n")[0].replace("<|im_end|>", "")


_ALCE_REF = re.compile(r"\[(\d+)")  # eval.py: `re.findall(r"\[\d+", sent)`, the number after each "["


def qampari_claims(question: str, output: str) -> list[Claim]:
    """eval.py's QAMPARI sentences: `output.rstrip().rstrip(".").rstrip(",").split(",")`, each
    item a claim "<question> <item>" (markers removed) citing the markers in the item; the
    span is the item's place in the output."""
    body = output.rstrip().rstrip(".").rstrip(",")
    claims: list[Claim] = []
    start = 0
    for piece in body.split(","):
        end = start + len(piece)
        item = strip_markers(piece)
        if item:
            ids = list(dict.fromkeys(_ALCE_REF.findall(piece)))
            lead = len(piece) - len(piece.lstrip())
            span = (start + lead, start + len(piece.rstrip()))
            claims.append(Claim(claim_id=f"s{len(claims) + 1}", text=f"{question} {item}", evidence_ids=ids, span=span))
        start = end + 1
    return claims


def capped(claims: list[Claim], at_most: int | None) -> list[Claim]:
    """eval.py's `ref[:at_most_citations]`: each claim's first N markers."""
    if at_most is None:
        return claims
    return [c.model_copy(update={"evidence_ids": c.evidence_ids[:at_most]}) for c in claims]


def is_qampari(path: Path, args: Any) -> bool:
    """QAMPARI as eval.py decides (`"qampari" in args.f`), or as run.py's args name it."""
    named = isinstance(args, dict) and str(args.get("dataset_name") or "").lower() == "qampari"
    return named or "qampari" in path.name.lower()


def read_alce(path: Path | str, *, at_most_citations: int | None = None) -> tuple[list[PeerRecord], list[str]]:
    path = Path(path)
    doc = read_json(path)
    ndoc: int | None = None
    args: Any = None
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
    truncated = sampled = beyond_ndoc = 0
    qampari = is_qampari(path, args)
    for n, item in enumerate(items):
        where = f"{path}: data[{n}]"
        if not isinstance(item, dict):
            raise DataError(where, None, "an item must be an object")
        question = text_field(item, "question", where) or ""
        question_id = next((str(item[k]) for k in ID_KEYS if item.get(k) not in (None, "")), f"alce-{n + 1}")
        docs = list_field(item, "docs", where)
        if ndoc is not None and len(docs) > ndoc:
            beyond_ndoc += 1
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
        claims = None
        if response is not None and (qampari or at_most_citations is not None):
            claims = capped(qampari_claims(question, response) if qampari else derive_claims(response),
                            at_most_citations)
        records.append(PeerRecord(question_id, question, response, passages, gold or None, where, raw, claims))
    if truncated:
        notes.append(f"{truncated} output(s) cut at their first line break, as ALCE's eval.py reads them")
    if sampled:
        notes.append(f"{sampled} item(s) hold several sampled outputs (run.py --num_samples): the first is replayed")
    if beyond_ndoc:
        notes.append(f"{beyond_ndoc} item(s) hold more docs than args.ndoc = {ndoc}: every doc counts, as in "
                     "ALCE's eval.py (post_hoc_cite.py cites beyond ndoc)")
    if qampari:
        notes.append("QAMPARI: each comma-separated item of an answer is a claim, as eval.py scores it")
    if at_most_citations is not None:
        notes.append(f"at most {at_most_citations} citation(s) per claim kept (eval.py --at_most_citations)")
    return records, notes
