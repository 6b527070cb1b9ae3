"""Real files from the field: the Anthropic cookbook's Citations notebook (tests/fixtures/cookbook,
source and licence in its README). Its PDFs are set without space characters (the Amazon letter)
or with an arXiv stamp down the margin (the Constitutional AI paper), and the notebook prints
Claude's real answers over them: char, content-block and page citations.

Expected values come from outside citeval: the words are Claude's own `cited_text` (Anthropic's
extraction of the same PDF pages), the stamp is the paper's arXiv identifier and submission date.
"""

from __future__ import annotations

import json
from pathlib import Path

from factories import write_jsonl

from evals.data.registry import Registry
from evals.ingest.pdf import read_pdf
from evals.ingest.sources import ingest
from evals.run.runner import start_run
from evals.score.scoring import score_run
from evals.text.normalize import collapse_whitespace

FIXTURES = Path(__file__).parent / "fixtures" / "cookbook"
SOURCES = FIXTURES / "sources"
ARTICLES = [SOURCES / "help_center_articles" / f"{i}.txt" for i in range(10)]


def raw_responses() -> list[dict]:
    """The notebook's printed "Raw response:" JSON, cell by cell, as the notebook shows it."""
    notebook = json.loads((FIXTURES / "using_citations.ipynb.json").read_text(encoding="utf-8"))
    found = []
    for cell in notebook["cells"]:
        for output in cell.get("outputs", []):
            printed = "".join(output.get("text", []))
            if "Raw response:" in printed:
                start = printed.index("{", printed.index("Raw response:"))
                found.append(json.JSONDecoder().raw_decode(printed[start:])[0])
    return found


def printed_citations(response: dict) -> list[dict]:
    return [c for block in response["content"] for c in block.get("citations", [])]


def test_words_of_a_pdf_without_space_characters_are_split_where_the_gaps_are():
    pdf = read_pdf(SOURCES / "amazon-2023-letter-p1-2.pdf")
    text = collapse_whitespace(pdf.edition.text)
    assert text.startswith("Dear Shareholders: Last year at this time, I shared my enthusiasm")
    amazon = raw_responses()[4]
    for citation in printed_citations(amazon):
        assert collapse_whitespace(citation["cited_text"]) in text
    # the page's words, not one glued word per line: no word of the letter is longer than 30 letters
    assert max(len(w) for w in text.split()) < 30


def test_arxiv_margin_stamp_is_one_paragraph_and_no_heading_is_a_letter():
    edition = read_pdf(SOURCES / "constitutional-ai-p1-p15.pdf").edition
    blocks = [edition.text[b.start : b.end] for b in edition.blocks]
    assert "arXiv:2212.08073v1 [cs.CL] 15 Dec 2022" in blocks
    headings = [edition.text[b.start : b.end] for b in edition.blocks if b.heading_level is not None]
    # the paper's larger type on its pages 1 and 15 (the fixture's other pages are blank)
    assert headings == ["Constitutional AI: Harmlessness from AI Feedback", "Anthropic", "Abstract", "6 Discussion"]
    text = collapse_whitespace(edition.text)
    assert "Yuntao Bai ∗ , Saurav Kadavath, Sandipan Kundu" in text


# the notebook's five questions, in the order its cells ask them; `sent` is the documents of the
# request (document_index counts in it): the ten help-center articles by file name, or one document
TRACKING = ("I just checked out, where is my order tracking number? Track package is not available on the "
            "website yet for my order.")
ANSWERS = [
    ("cb-tracking", TRACKING, [f"petworld-{i}" for i in range(10)]),
    ("cb-cai", "What is the main idea of Constitutional AI?", ["constitutional-ai"]),
    ("cb-content", TRACKING, [f"petworld-{i}" for i in range(10)]),
    ("cb-loyalty", "How does PetWorld's loyalty program work? When do points expire?", ["petworld-loyalty"]),
    ("cb-amazon", "What was Amazon's total revenue in 2023 and how much did it grow year-over-year?",
     ["amazon-2023-letter"]),
]


def as_returned(citation: dict, sent: list[str], registry: Registry) -> dict:
    """The citation as the API returns it: the notebook's print keeps only type, cited_text, title
    and pages. document_index is the titled document's place in the request; a char span is where
    cited_text stands in the text sent (the file, which is the registry edition's text); a
    custom-content article is one block (0–1)."""
    titles = [registry.documents[d].title for d in sent]
    index = titles.index(citation["document_title"])
    out = {**citation, "document_index": index}
    if citation["type"] == "char_location":
        edition = registry.editions(sent[index])[0].version_id
        full = registry.text(edition) or ""
        start = full.index(citation["cited_text"].rstrip())
        out.update(start_char_index=start, end_char_index=start + len(citation["cited_text"]))
    if citation["type"] == "content_block_location":
        out.update(start_block_index=0, end_block_index=1)
    return out


def test_cookbook_answers_replay_against_the_ingested_documents(tmp_path):
    dataset = tmp_path / "ds"
    ingest(SOURCES, dataset / "registry")
    write_jsonl(dataset / "questions.jsonl", [
        {"question_id": q, "question": text, "asked_at": "2025-01-15"} for q, text, _ in ANSWERS])
    registry = Registry.load(dataset)
    lines = []
    for (question_id, _, sent), response in zip(ANSWERS, raw_responses(), strict=True):
        content = [{**block, "citations": [as_returned(c, sent, registry) for c in block["citations"]]}
                   if block.get("citations") else block for block in response["content"]]
        lines.append({"question_id": question_id, "documents": [{"document_id": d} for d in sent],
                      "id": f"msg_{question_id}", "type": "message", "role": "assistant",
                      "model": "claude-3-5-sonnet-20241022", "content": content, "stop_reason": "end_turn"})
    assert sorted({c["type"] for line in lines for b in line["content"] for c in b.get("citations", [])}) == [
        "char_location", "content_block_location", "page_location"]
    write_jsonl(tmp_path / "answers.jsonl", lines)
    run = start_run(dataset, f"replay:{tmp_path / 'answers.jsonl'}", out=tmp_path / "runs", run_id="r").run_dir
    scores = score_run(run, judge="none").scores
    validity = scores["metrics"]["citation_validity"]
    assert (validity["value"], validity["n"]) == (1.0, 5)
    findings = [json.loads(x) for x in (run / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert not [f for f in findings if f["code"] in ("UNRESOLVED_CHUNK", "QUOTE_MISMATCH")]
