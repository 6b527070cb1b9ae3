"""Rebuild the demo dataset from its sources:  python datasets/demo/build.py

0. the editions that reach citeval as PDF or DoclingDocument JSON (manifest-part3.toml) are made
   from the Markdown beside them (pdfmake.py);
1. `citeval data ingest sources --out registry` (manifest*.toml; Markdown, PDF and Docling JSON);
2. questions-*.jsonl → questions.jsonl, each gold quote given its char span in its edition;
3. the question-mix table in README.md, between the mix markers.

Other tools read registry/ while this runs: the ingest swaps the new registry in with one
rename, and questions.jsonl is replaced the same way.
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

from evals.data.registry import Registry
from evals.ingest.sources import ingest
from evals.text.normalize import locate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pdfmake  # noqa: E402  (beside this script, not a package)

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


def make_generated_editions(sources: Path = HERE / "sources") -> int:
    """PDF and DoclingDocument editions from the Markdown file of the same name beside them."""
    made = 0
    for manifest in sorted(sources.glob("manifest*.toml")):
        for document in tomllib.loads(manifest.read_text(encoding="utf-8")).get("document", []):
            for edition in document.get("edition", []):
                target = sources / edition["file"]
                markdown = target.with_suffix(".md")
                if target.suffix not in (".pdf", ".json") or not markdown.is_file():
                    continue
                pdf = sources / edition["pdf"] if "pdf" in edition else (target if target.suffix == ".pdf" else None)
                docling = target if target.suffix == ".json" else None
                pdfmake.make(markdown, pdf_out=pdf, docling_out=docling)
                made += 1
    return made


def write_atomic(path: Path, text: str) -> None:
    staging = path.with_name(f".{path.name}.tmp")
    staging.write_text(text, encoding="utf-8")
    os.replace(staging, path)


def main() -> int:
    make_generated_editions()
    result = ingest(HERE / "sources", HERE / "registry")
    registry = Registry.load(HERE)
    rows = merged_questions(registry)
    write_atomic(HERE / "questions.jsonl", "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    write_readme_table(rows)
    print(f"{result.documents} documents, {result.editions} editions, {result.chunks} chunks, {len(rows)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
