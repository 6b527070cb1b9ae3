"""Rebuild the demo dataset from its sources:  python datasets/demo/build.py

1. `citeval data ingest sources --out registry` (Markdown editions + manifest*.toml);
2. questions-*.jsonl → questions.jsonl, each gold quote given its char span in its edition;
3. the question-mix table in README.md, between the mix markers.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from evals.data import Registry, ingest, locate

HERE = Path(__file__).resolve().parent
KINDS = ("single_fact", "multi_document", "version_trap", "should_abstain", "numeric", "paraphrase")
START, END = "<!-- mix:start -->", "<!-- mix:end -->"


def merged_questions(registry: Registry) -> list[dict]:
    rows = []
    for path in sorted((HERE / "sources").glob("questions-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            for ev in (row.get("gold") or {}).get("evidence", []):
                text = registry.text(ev["version_id"]) if ev.get("version_id") else None
                span = locate(ev["quote"], text) if text and ev.get("quote") else None
                if span:
                    ev["char_start"], ev["char_end"] = span
            rows.append(row)
    return rows


def mix_table(rows: list[dict]) -> str:
    kinds = Counter(tag for row in rows for tag in row.get("tags", []) if tag in KINDS)
    tiers = Counter(row.get("risk_tier", "policy") for row in rows)
    lines = ["| kind | questions |", "|---|---|"]
    lines += [f"| {kind} | {kinds[kind]} |" for kind in KINDS]
    lines += [f"| **all questions** | **{len(rows)}** |", "", "| risk tier | questions |", "|---|---|"]
    for tier in ("critical", "policy", "reference"):
        lines.append(f"| {tier} | {tiers[tier]} ({tiers[tier] / len(rows):.0%}) |")
    return "\n".join(lines)


def write_readme_table(rows: list[dict], readme: Path = HERE / "README.md") -> None:
    text = readme.read_text(encoding="utf-8")
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    readme.write_text(f"{head}{START}\n{mix_table(rows)}\n{END}{tail}", encoding="utf-8")


def main() -> int:
    result = ingest(HERE / "sources", HERE / "registry")
    registry = Registry.load(HERE)
    rows = merged_questions(registry)
    with open(HERE / "questions.jsonl", "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    write_readme_table(rows)
    print(f"{result.documents} documents, {result.editions} editions, {result.chunks} chunks, {len(rows)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
