"""Build datasets/demo/quotes/answers.jsonl from answers_src.py (the first, near-verbatim demo
set, kind `verbatim_demo`) and real.jsonl from real_src.py (the realistic set: paraphrase,
citations without block_text, drift; kinds per citation), both in the DESIGN 9 format.

Gold spans are computed from the `[[key|…]]` marks, never counted by hand; every cited_text
is the text of one chunk of the demo registry, found by a locator that must match exactly
one chunk of its edition; citations are listed in the order of their places in the text, as
the Citations API emits them. Run: python datasets/demo/quotes/build.py
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from answers_src import ANSWERS  # noqa: E402
from real_src import ANSWERS as REAL_ANSWERS  # noqa: E402

CHUNKS = HERE.parent / "registry" / "chunks.jsonl"
OUT = HERE / "answers.jsonl"
REAL_OUT = HERE / "real.jsonl"
VERBATIM_KIND = "verbatim_demo"  # every citation of the first set, as one kind of the realistic table
# the realistic set's kind codes (real_src.py) and the kinds the build derives
REAL_CODES = {"p": "paraphrase", "v": "near_verbatim", "d": "drift", "ts": "two_in_sentence", "t": "lexical_trap"}
BULLET_LINE = re.compile(r"^(?:•|▪️|🔹|✅|—|-) ", re.MULTILINE)
TOKEN = re.compile(r"\[\[(?P<keys>[a-z,]+)\||\]\]")
KINDS = {
    "paraphrase",
    "number_rewrite",
    "two_claims",
    "list_item",
    "cited_twice",
    "shared",
    "lexical_trap",
    "drift",
    "no_place",
}


def load_chunks() -> dict[str, list[dict]]:
    by_version: dict[str, list[dict]] = {}
    for line in CHUNKS.read_text(encoding="utf-8").splitlines():
        chunk = json.loads(line)
        by_version.setdefault(chunk["version_id"], []).append(chunk)
    return by_version


def find_chunk(chunks: dict[str, list[dict]], default_version: str, locator: str) -> dict:
    version, _, needle = (
        locator.partition(":") if ":" in locator and "-v" in locator.split(":")[0] else ("", "", locator)
    )
    version = version or default_version
    hits = [c for c in chunks[version] if c["text"].startswith(needle)] or [
        c for c in chunks[version] if needle in c["text"]
    ]
    if len(hits) != 1:
        raise SystemExit(f"locator {locator!r} in {version}: {len(hits)} chunks match")
    return hits[0]


def unmark(marked: str) -> tuple[str, dict[str, tuple[int, int, str]]]:
    """Plain text and, for each citation key, the span (and text) of its mark; marks nest
    (`[[a|… [[b|…]]]]`: b supports a part of what a supports)."""
    out: list[str] = []
    spans: dict[str, tuple[int, int, str]] = {}
    open_marks: list[tuple[list[str], int]] = []
    length, pos = 0, 0
    for m in TOKEN.finditer(marked):
        text = marked[pos : m.start()]
        out.append(text)
        length += len(text)
        pos = m.end()
        if m.group("keys") is not None:
            open_marks.append((m.group("keys").split(","), length))
            continue
        if not open_marks:
            raise SystemExit(f"unbalanced mark in {marked[:60]!r}")
        keys, start = open_marks.pop()
        for key in keys:
            if key in spans:
                raise SystemExit(f"key {key!r} marked twice in {marked[:60]!r}")
            spans[key] = (start, length, "".join(out)[start:length])
    out.append(marked[pos:])
    if open_marks:
        raise SystemExit(f"unbalanced mark in {marked[:60]!r}")
    return "".join(out), spans


def _stream_order(citations: dict, spans: dict) -> list:
    """Citations in the order the Citations API emits them: the order of their blocks in the
    text. A citation without a place keeps its spot after the one written before it (its
    block stood there before post-processing removed or rewrote it)."""
    keyed, anchor = [], 0
    for index, (key, value) in enumerate(citations.items()):
        if key in spans:
            anchor = spans[key][0]
        keyed.append(((anchor, index), key, value))
    return [(key, value) for _, key, value in sorted(keyed, key=lambda item: item[0])]


def build() -> list[dict]:
    chunks = load_chunks()
    lines, seen = [], set()
    for answer_id, question_id, version, marked, citations in ANSWERS:
        if answer_id in seen:
            raise SystemExit(f"duplicate answer_id {answer_id}")
        seen.add(answer_id)
        text, spans = unmark(marked)
        unknown = set(spans) - set(citations)
        if unknown:
            raise SystemExit(f"{answer_id}: marks without citations {sorted(unknown)}")
        record_citations, gold = [], []
        for key, (locator, kind, block) in _stream_order(citations, spans):
            if kind not in KINDS:
                raise SystemExit(f"{answer_id}.{key}: unknown kind {kind!r}")
            chunk = find_chunk(chunks, version, locator)
            span = spans.get(key)
            if span is None and block is None:
                raise SystemExit(f"{answer_id}.{key}: no place and no block_text (the text post-processing removed)")
            if span is None and kind not in ("no_place", "lexical_trap"):
                raise SystemExit(f"{answer_id}.{key}: kind {kind} but gold null")
            citation_id = f"c{len(record_citations) + 1}"
            record_citations.append(
                {
                    "citation_id": citation_id,
                    "cited_text": chunk["text"],
                    "document_id": chunk["document_id"],
                    "version_id": chunk["version_id"],
                    "chunk_id": chunk["chunk_id"],
                    "block_text": block if block is not None else span[2],
                }
            )
            gold.append(
                {
                    "citation_id": citation_id,
                    "span": [span[0], span[1]] if span else None,
                    "kind": kind,
                    "kinds": [VERBATIM_KIND],
                }
            )
        record = {"answer_id": answer_id, "answer_text": text, "citations": record_citations, "gold": gold}
        if question_id:
            record["question_id"] = question_id
        lines.append(record)
    return lines


def _real_kinds(codes: str, block: str | None, span: tuple | None, again: bool, telegram: bool) -> list[str]:
    kinds = [REAL_CODES[c] for c in codes.split(",") if c]
    if span is None:
        kinds.append("gold_null")
    if block is None:
        kinds.append("no_block")
    if again:
        kinds.append("cited_twice")
    if telegram:
        kinds.append("telegram")
    return kinds


def build_real() -> list[dict]:
    """The realistic set: block None means no block_text at all, "=" the marked fragment."""
    chunks = load_chunks()
    lines, seen = [], set()
    for answer_id, version, marked, citations in REAL_ANSWERS:
        if answer_id in seen:
            raise SystemExit(f"duplicate answer_id {answer_id}")
        seen.add(answer_id)
        text, spans = unmark(marked)
        if set(spans) - set(citations):
            raise SystemExit(f"{answer_id}: marks without citations {sorted(set(spans) - set(citations))}")
        telegram = bool(BULLET_LINE.search(text))
        record_citations, gold, cited = [], [], Counter()
        for key, (locator, codes, block) in _stream_order(citations, spans):
            chunk = find_chunk(chunks, version, locator)
            span = spans.get(key)
            if block == "=":
                if span is None:
                    raise SystemExit(f"{answer_id}.{key}: block '=' but no mark")
                block = span[2]
            citation_id = f"c{len(record_citations) + 1}"
            citation = {
                "citation_id": citation_id,
                "cited_text": chunk["text"],
                "document_id": chunk["document_id"],
                "version_id": chunk["version_id"],
                "chunk_id": chunk["chunk_id"],
            }
            if block is not None:
                citation["block_text"] = block
            record_citations.append(citation)
            kinds = _real_kinds(codes, block, span, chunk["chunk_id"] in cited, telegram)
            cited[chunk["chunk_id"]] += 1
            if not kinds:
                raise SystemExit(f"{answer_id}.{key}: no kind")
            gold.append(
                {
                    "citation_id": citation_id,
                    "span": [span[0], span[1]] if span else None,
                    "kind": kinds[0],
                    "kinds": kinds,
                }
            )
        # the first of a passage cited twice is a cited_twice place too
        twice = {cid for cid, n in cited.items() if n > 1}
        for citation, entry in zip(record_citations, gold, strict=True):
            if citation["chunk_id"] in twice and "cited_twice" not in entry["kinds"]:
                entry["kinds"].append("cited_twice")
        lines.append({"answer_id": answer_id, "answer_text": text, "citations": record_citations, "gold": gold})
    return lines


def _write(out: Path, records: list[dict], key: str) -> None:
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    kinds = Counter(k for r in records for g in r["gold"] for k in (g.get(key) or [g["kind"]]))
    citations = sum(len(r["citations"]) for r in records)
    nulls = sum(1 for r in records for g in r["gold"] if g["span"] is None)
    print(f"{out}: {len(records)} answers, {citations} citations ({nulls} with gold null)")
    for kind, n in sorted(kinds.items()):
        print(f"  {kind:<17}{n:>4}  {n / citations:.0%}")


def main() -> None:
    _write(OUT, build(), "kind_of_first_set")
    _write(REAL_OUT, build_real(), "kinds")


if __name__ == "__main__":
    main()
