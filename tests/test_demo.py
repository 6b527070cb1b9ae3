"""The bundled demo dataset: valid, its gold quotes where they claim to be, its traps real."""

import json
import re
import sys
from collections import Counter
from pathlib import Path

from evals.data.validate import validate_dataset
from evals.text.normalize import normalize

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo"
QUESTIONS = [json.loads(line) for line in (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines()]


def source_pages():
    """{version_id: {page: normalized text}} read straight from the Markdown sources (not via ingest);
    a PDF or DoclingDocument edition is read from the Markdown it was made from."""
    pages = {}
    for manifest in sorted((DEMO / "sources").glob("manifest*.toml")):
        for doc in tomllib.loads(manifest.read_text(encoding="utf-8"))["document"]:
            for edition in doc["edition"]:
                text = (DEMO / "sources" / edition["file"]).with_suffix(".md").read_text(encoding="utf-8")
                parts = re.split(r"<!--\s*page\s+(\d+)\s*-->", text)
                pages[edition["version_id"]] = {int(parts[i]): normalize(parts[i + 1]) for i in range(1, len(parts), 2)}
    return pages


PAGES = source_pages()


def test_demo_validates():
    report = validate_dataset(DEMO)
    assert report.ok, [str(p) for p in report.problems[:5]]
    assert report.documents >= 12 and sum(report.editions_by_status.values()) >= 25
    assert 120 <= len(QUESTIONS) <= 160


def test_gold_quotes_stand_on_their_gold_page():
    for q in QUESTIONS:
        for ev in q["gold"]["evidence"]:
            page_text = PAGES[ev["version_id"]][ev["page"]]
            assert normalize(ev["quote"]) in page_text, (q["question_id"], ev["quote"])


def test_version_traps_differ_between_editions():
    traps = [q for q in QUESTIONS if "version_trap" in q["tags"] and q["gold"]["evidence"]]
    assert len(traps) >= 20
    for q in traps:
        trapped = 0
        for ev in q["gold"]["evidence"]:
            others = [v for v in PAGES if v.startswith(ev["document_id"] + "-v") and v != ev["version_id"]]
            for other in others:
                assert normalize(ev["quote"]) not in " ".join(PAGES[other].values()), (q["question_id"], other)
            trapped += bool(others)
        assert trapped, f"{q['question_id']} cites no document with other editions"


def test_mix_meets_the_brief():
    kinds = Counter(t for q in QUESTIONS for t in q["tags"])
    assert kinds["single_fact"] >= 40 and kinds["multi_document"] >= 15 and kinds["version_trap"] >= 20
    assert kinds["should_abstain"] >= 15 and kinds["numeric"] >= 20 and kinds["paraphrase"] >= 10
    assert all(q["gold"].get("should_abstain") is not None for q in QUESTIONS)
    assert all(q["gold"]["should_abstain"] == ("should_abstain" in q["tags"]) for q in QUESTIONS)
    critical = sum(q["risk_tier"] == "critical" for q in QUESTIONS) / len(QUESTIONS)
    assert 0.25 <= critical <= 0.35
    years = Counter(q["asked_at"][:4] for q in QUESTIONS)
    assert set(years) == {"2024", "2025", "2026"}


def test_readme_mix_table_matches_the_questions():
    readme = (DEMO / "README.md").read_text(encoding="utf-8")
    table = readme.split("<!-- mix:start -->")[1].split("<!-- mix:end -->")[0]
    rows = dict(re.findall(r"^\| (\w+) \| (\d+)", table, re.MULTILINE))
    kinds = Counter(t for q in QUESTIONS for t in q["tags"])
    for kind in ("single_fact", "multi_document", "version_trap", "should_abstain", "numeric", "paraphrase"):
        assert int(rows[kind]) == kinds[kind]
    tiers = Counter(q["risk_tier"] for q in QUESTIONS)
    for tier in ("critical", "policy", "reference"):
        assert int(rows[tier]) == tiers[tier]


def test_gold_editions_are_in_force_at_asked_at():
    windows = {}
    for manifest in sorted((DEMO / "sources").glob("manifest*.toml")):
        for doc in tomllib.loads(manifest.read_text(encoding="utf-8"))["document"]:
            for e in doc["edition"]:
                ends = [e[k] for k in ("effective_to", "revoked_at", "deleted_at") if k in e]
                windows[e["version_id"]] = (e["effective_from"], min(ends) if ends else "9999")
    for q in QUESTIONS:
        day = q["asked_at"][:10]  # every window in the demo starts and ends at a day boundary
        for ev in q["gold"]["evidence"]:
            start, end = windows[ev["version_id"]]
            assert start <= day < end, (q["question_id"], ev["version_id"], day)


def test_pdf_and_docling_editions_keep_pages_and_boxes():
    from evals.data.registry import Registry
    from evals.data.render import render_chunk_region

    registry = Registry.load(DEMO)
    formats = {v.version_id: getattr(v, "source_format", "markdown") for v in registry.versions.values()}
    generated = sorted(v for v, f in formats.items() if f != "markdown")
    assert [formats[v] for v in generated] == ["docling", "pdf", "pdf"]
    for version_id in generated:
        chunks = registry.chunks_of(version_id)
        assert chunks and all(c.bbox and c.page_start == c.bbox[0].page for c in chunks)
        assert registry.source_pdf(version_id) is not None
    assert all(c.prov for c in registry.chunks_of(generated[0]))  # docling's own provenance, kept
    # every question on these editions names its page, and the gold quote stands in a chunk on that page
    asked = [(q, ev) for q in QUESTIONS for ev in q["gold"]["evidence"] if ev["version_id"] in generated]
    assert len(asked) >= 5
    for q, ev in asked:
        holders = [
            c for c in registry.chunks_of(ev["version_id"]) if normalize(ev["quote"]) in normalize(c.text)
        ]
        assert [c.page_start for c in holders] == [ev["page"]], q["question_id"]
    card = render_chunk_region(registry, holders[0])
    assert card.startswith("data:image/png;base64,") and len(card) > 1000
