"""Flat citation logs: how often a scorer attaches a citation to the right sentence.

    python bench/anthropic_attach.py [QUOTES.jsonl]

A bot that logs only its final text and a flat list of citations has lost which text each
citation belonged to; `citeval data import anthropic` attaches each to the sentence of the
text that best matches its cited_text. This measures that choice on quote-placement answers
with gold spans (default: datasets/demo/quotes/answers.jsonl): a citation is attached right
when its sentence is the one its gold span overlaps most. Baselines measured in the same run:
difflib's SequenceMatcher ratio and "always the first sentence".
"""

from __future__ import annotations

import difflib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rapidfuzz import fuzz

from evals.run.backends.anthropic_logs import attach_citations
from evals.text.normalize import split_sentences

ROOT = Path(__file__).resolve().parent.parent


def evaluate(rows: list[dict], scorer: Callable[[str, str], float]) -> tuple[int, int, float]:
    right = total = 0
    started = time.perf_counter()
    for row in rows:
        sentences = split_sentences(row["answer_text"])
        gold = {g["citation_id"]: g["span"] for g in row.get("gold", []) if g.get("span")}
        citations = [c for c in row["citations"] if c["citation_id"] in gold]
        if not sentences or not citations:
            continue
        blocks = attach_citations(row["answer_text"], citations, scorer=scorer)
        for index, block in enumerate(blocks):
            for citation in block.get("citations", []):
                a, b = gold[citation["citation_id"]]
                overlap = [max(0, min(s.end, b) - max(s.start, a)) for s in sentences]
                right += index == max(range(len(sentences)), key=lambda i: overlap[i])
                total += 1
    return right, total, time.perf_counter() - started


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "datasets" / "demo" / "quotes" / "answers.jsonl"
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    scorers: dict[str, Callable[[str, str], float]] = {
        "rapidfuzz partial_ratio (shipped)": fuzz.partial_ratio,
        "rapidfuzz partial_token_sort_ratio": fuzz.partial_token_sort_ratio,
        "rapidfuzz token_set_ratio": fuzz.token_set_ratio,
        "rapidfuzz partial_token_set_ratio": fuzz.partial_token_set_ratio,
        "rapidfuzz WRatio": fuzz.WRatio,
        "difflib SequenceMatcher (baseline)": lambda a, b: difflib.SequenceMatcher(None, a, b).ratio(),
        "first sentence (baseline)": lambda a, b: 0.0,
    }
    print(f"{path}: citations with a gold span")
    for name, scorer in scorers.items():
        right, total, seconds = evaluate(rows, scorer)
        print(f"  {name:38s} {right:4d}/{total} = {right / max(total, 1):.3f}   {seconds * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
