"""A `python:module:function` backend: citeval calls `answer(payload)` once per question.

`payload` is what the http backend would POST: {question_id, question, asked_at, user}. Return a
dict shaped like an answer line (DESIGN 3); an exception becomes that question's error answer,
never an abstention. This one stands for "your RAG": a keyword lookup over the demo registry that
cites by edition and character span (version_id, char_start, char_end) instead of by chunk_id,
with the claim and its verbatim quote spelled out. It ignores asked_at and the user's groups, so
`citeval score` shows what that costs (VERSION_SUPERSEDED, ACCESS_DENIED). See examples/README.md.

    PYTHONPATH=examples/python_backend citeval run datasets/demo --backend python:bot:answer
"""

import json
import re
from pathlib import Path

CHUNKS_FILE = Path(__file__).resolve().parents[2] / "datasets" / "demo" / "registry" / "chunks.jsonl"
CHUNKS = [json.loads(line) for line in CHUNKS_FILE.open(encoding="utf-8")]


def stems(text: str) -> set[str]:
    return {word[:5] for word in re.findall(r"\w{4,}", text.lower())}


def answer(payload: dict) -> dict:
    asked = stems(payload["question"])
    best = max(((len(asked & stems(sentence)), sentence, chunk) for chunk in CHUNKS
                for sentence in re.split(r"(?<=[.!?])\s+", chunk["text"])), key=lambda found: found[0])
    score, sentence, chunk = best
    if score < 3:
        return {"status": "abstained", "abstain_reason": "nothing in the registry matches"}
    start = chunk["char_start"] + chunk["text"].index(sentence)  # offsets into the edition's full text
    return {
        "status": "answered",
        "answer_text": f"{sentence} [E1]",
        "claims": [{"claim_id": "c1", "text": sentence, "evidence_ids": ["E1"], "quote": sentence}],
        "evidence": [{"evidence_id": "E1", "version_id": chunk["version_id"], "char_start": start,
                      "char_end": start + len(sentence)}],
        "model": "demo-python-bot",
    }
