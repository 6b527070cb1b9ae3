"""Claude's answers as the Anthropic cookbook prints them, imported against a registry ingested
from the cookbook's own documents.

tests/peers/anthropic_cookbook/ (source and MIT licence in its README.md) holds the "Raw
response" outputs of misc/using_citations.ipynb verbatim — each citation cut down to `type`,
`cited_text`, `document_title` and page numbers, no `document_index` — and the documents they
cite. Before, such a log was refused whole (`document_index: Field required`, exit 2); now each
citation is placed by its title and cited text and marked `resolution: inferred`.

Expected places are read off the sources by hand: the document is the one the manifest gives
the cited title, the chunk the one whose text holds the cited sentence.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from factories import eval_replay
from typer.testing import CliRunner

from cli import app

COOKBOOK = Path(__file__).parent / "peers" / "anthropic_cookbook"
runner = CliRunner()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    ds = tmp_path_factory.mktemp("cookbook") / "ds"
    ds.mkdir()
    shutil.copy(COOKBOOK / "questions.jsonl", ds / "questions.jsonl")
    result = runner.invoke(app, ["data", "ingest", str(COOKBOOK / "sources"), "--out", str(ds / "registry")])
    assert result.exit_code == 0, result.output
    return ds


def _by_question(path: Path) -> dict[str, dict]:
    return {row["question_id"]: row for row in _lines(path)}


def _import(dataset: Path, logs: Path, out: Path) -> dict:
    result = runner.invoke(app, ["data", "import", "anthropic", str(logs), "--dataset", str(dataset), "--out",
                                 str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _run(dataset: Path, replay: Path | str, tmp: Path) -> Path:
    return eval_replay(lambda *args: runner.invoke(app, list(args)), dataset, replay, tmp)


def _chunk_holding(dataset: Path, document_id: str, sentence: str) -> str:
    """The one chunk of the document whose text holds the sentence (spaces collapsed)."""
    wanted = " ".join(sentence.split())
    found = [c["chunk_id"] for c in _lines(dataset / "registry" / "chunks.jsonl")
             if c["document_id"] == document_id and wanted in " ".join(c["text"].split())]
    assert len(found) == 1, (document_id, sentence, found)
    return found[0]


def _pdf_words_glued(dataset: Path) -> bool:
    text = (dataset / "registry" / "texts" / "amazon-2023-shareholder-letter-v1.txt").read_text(encoding="utf-8")
    return "DearShareholders" in text


def test_printed_citations_import_and_resolve_by_title_and_text(dataset: Path, tmp_path: Path) -> None:
    report = _import(dataset, COOKBOOK / "printed.jsonl", tmp_path / "replay.jsonl")
    assert report["written"] == 4 and report["unmatched"] == []
    assert report["inferred"] == 8  # 2 + 1 + 3 char / content-block citations, 2 page citations

    run = _run(dataset, tmp_path / "replay.jsonl", tmp_path)
    answers = {a["question_id"]: a for a in _lines(run / "answers.jsonl")}
    tracking = _chunk_holding(dataset, "order-tracking-information",
                              "Once your order ships, you'll receive an email with a tracking number.")
    loyalty = _chunk_holding(dataset, "loyalty-program-details", "Points expire 12 months after they are earned.")
    places = {q: [(e["document_id"], e.get("chunk_id"), e["resolution"]) for e in a["evidence"]]
              for q, a in answers.items()}
    # the plain-text answer's two sentences are both in the one paragraph of "Order Tracking Information"
    assert places["plain-text"] == [("order-tracking-information", tracking, "inferred")] * 2
    # the custom-content citation is the whole article: the same paragraph
    assert places["custom-content"] == [("order-tracking-information", tracking, "inferred")]
    assert places["context-field"] == [("loyalty-program-details", loyalty, "inferred")] * 3

    rows = {r["question_id"]: r for r in _lines(run / "per_question.jsonl")}
    for question_id in ("plain-text", "custom-content", "context-field"):
        assert rows[question_id]["citation_validity"] == 1.0, question_id
    codes = {(f["question_id"], f["code"]) for f in _lines(run / "findings.jsonl")}
    assert not {c for c in codes if c[1] in ("UNRESOLVED_CHUNK", "CHUNK_TEXT_MISMATCH", "UNKNOWN_EVIDENCE_ID")
                and c[0] != "pdf-highlighting"}


def test_printed_page_citations_resolve_on_their_page(dataset: Path, tmp_path: Path) -> None:
    # The ingest keeps this letter's word breaks (no space characters in the PDF): its cited
    # sentences are found on their page.
    assert not _pdf_words_glued(dataset)
    _import(dataset, COOKBOOK / "printed.jsonl", tmp_path / "replay.jsonl")
    run = _run(dataset, tmp_path / "replay.jsonl", tmp_path)
    answers = {a["question_id"]: a for a in _lines(run / "answers.jsonl")}
    evidence = answers["pdf-highlighting"]["evidence"]
    assert [(e["citation_type"], e["page"], e["resolution"]) for e in evidence] == [("page_location", 1, "inferred")] * 2
    assert all(e.get("chunk_id") for e in evidence)
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert scores["metrics"]["citation_validity"]["value"] >= 0.90


def test_a_title_no_registry_document_has_is_placed_by_its_text_alone(dataset: Path, tmp_path: Path) -> None:
    """A title the registry does not know (or none): the one document holding the cited text is
    the one cited; a text no document holds stays unresolved and says why."""
    line = _lines(COOKBOOK / "printed.jsonl")[2]  # context-field: three citations of "Loyalty Program Details"
    line["content"][1]["citations"][0]["document_title"] = "Frequent Flyer Terms"
    line["content"][3]["citations"][0]["document_title"] = None
    line["content"][5]["citations"][0].update(document_title="Frequent Flyer Terms",
                                              cited_text="Miles never expire while the account is open.")
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps(line) + "\n", encoding="utf-8")
    report = _import(dataset, logs, tmp_path / "replay.jsonl")
    assert (report["inferred"], report["inferred_resolved"]) == (3, 2)
    run = _run(dataset, tmp_path / "replay.jsonl", tmp_path)
    evidence = _by_question(run / "answers.jsonl")["context-field"]["evidence"]
    assert [e.get("document_id") for e in evidence[:2]] == ["loyalty-program-details"] * 2
    assert evidence[2]["unresolved_reason"] == ("document_title 'Frequent Flyer Terms' names no registry document, "
                                                "and no single registry document holds the cited text")
    assert evidence[2]["resolution"] == "inferred" and "chunk_id" not in evidence[2]
    row = _by_question(run / "per_question.jsonl")["context-field"]
    assert row["citation_validity"] == pytest.approx(2 / 3)


def test_a_title_of_two_documents_is_told_apart_by_the_cited_text(dataset: Path, tmp_path: Path) -> None:
    """Two registry documents of one title: the cited text picks the one that holds it."""
    ds = tmp_path / "ds"
    shutil.copytree(dataset, ds)
    documents = _lines(ds / "registry" / "documents.jsonl")
    for d in documents:
        if d["document_id"] in ("loyalty-program-details", "rewards-program-points-system"):
            d["title"] = "Rewards"
    (ds / "registry" / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents), "utf-8")
    line = _lines(COOKBOOK / "printed.jsonl")[2]
    for block in line["content"]:
        for citation in block.get("citations", []):
            citation["document_title"] = "Rewards"
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert _import(ds, logs, tmp_path / "replay.jsonl")["inferred_resolved"] == 3
    run = _run(ds, tmp_path / "replay.jsonl", tmp_path)
    evidence = _by_question(run / "answers.jsonl")["context-field"]["evidence"]
    assert {e["document_id"] for e in evidence} == {"loyalty-program-details"}


def test_a_full_citation_logged_without_the_documents_mapping_is_placed_by_title(dataset: Path, tmp_path: Path) -> None:
    """The API's own shape (document_index and offsets present) but the bot logged no `documents`:
    documents[0] means nothing, so the title decides, as for a printed citation."""
    body = "PetWorld offers a loyalty program where customers earn 1 point for every dollar spent. "
    line = {"question_id": "context-field", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [{"type": "text", "text": "You earn a point per dollar.", "citations": [
                {"type": "char_location", "cited_text": body, "document_index": 0, "document_title":
                 "Loyalty Program Details", "start_char_index": 0, "end_char_index": len(body)}]}],
            "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 5}}
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert _import(dataset, logs, tmp_path / "replay.jsonl")["inferred_resolved"] == 1
    run = _run(dataset, tmp_path / "replay.jsonl", tmp_path)
    evidence = _by_question(run / "answers.jsonl")["context-field"]["evidence"]
    loyalty = _chunk_holding(dataset, "loyalty-program-details", body)
    assert [(e["chunk_id"], e["resolution"]) for e in evidence] == [(loyalty, "inferred")]


def test_a_printed_citation_in_a_flat_log_is_attached_and_placed(dataset: Path, tmp_path: Path) -> None:
    """A bot that logs the final text and the streamed citations flat, each as printed."""
    printed = _lines(COOKBOOK / "printed.jsonl")[0]
    text = "".join(block["text"] for block in printed["content"])
    citations = [c for block in printed["content"] for c in block.get("citations", [])]
    logs = tmp_path / "flat.jsonl"
    logs.write_text(json.dumps({"question_id": "plain-text", "text": text, "citations": citations}) + "\n", "utf-8")
    report = _import(dataset, logs, tmp_path / "replay.jsonl")
    assert (report["inferred"], report["inferred_resolved"]) == (2, 2)
    assert len(report["matcher_attached"]) == 1


def test_a_cited_text_a_word_form_apart_is_placed_with_the_editions_own_text(dataset: Path, tmp_path: Path) -> None:
    """"were earned" for the article's "are earned" (similarity 0.97 ≥ 0.95): the same passage;
    "twelve" for "12" (0.92) is not taken for it."""
    line = _lines(COOKBOOK / "printed.jsonl")[2]
    line["content"][3]["citations"][0]["cited_text"] = "Points expire 12 months after they were earned. "
    line["content"][5]["citations"][0]["cited_text"] = "You can check your point balance every twelve months."
    logs = tmp_path / "logs.jsonl"
    logs.write_text(json.dumps(line) + "\n", encoding="utf-8")
    assert _import(dataset, logs, tmp_path / "replay.jsonl")["inferred_resolved"] == 2
    run = _run(dataset, tmp_path / "replay.jsonl", tmp_path)
    evidence = _by_question(run / "answers.jsonl")["context-field"]["evidence"]
    assert evidence[1]["text"] == "Points expire 12 months after they are earned."
    assert evidence[1]["chunk_id"] == _chunk_holding(dataset, "loyalty-program-details", evidence[1]["text"])
    assert "chunk_id" not in evidence[2] and evidence[2]["resolution"] == "inferred"


def test_a_pretty_printed_json_file_as_the_notebook_prints_it_is_read_whole(dataset: Path, tmp_path: Path) -> None:
    """The notebook prints each response as indented JSON: saved as a .json file (one response, or a
    list of them) with the question beside it, it is read as one document, not line by line."""
    printed = _lines(COOKBOOK / "printed.jsonl")
    questions = _by_question(COOKBOOK / "questions.jsonl")
    one = {"question": questions["context-field"]["question"],
           **{k: v for k, v in printed[2].items() if k != "question_id"}}
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "loyalty.json").write_text(json.dumps(one, indent=2), encoding="utf-8")
    report = _import(dataset, tmp_path / "one", tmp_path / "one.jsonl")
    assert report["written"] == 1 and report["matched_by_text"] == 1 and report["inferred_resolved"] == 3
    assert report["lines"][0]["source"].endswith("loyalty.json:1")
    (tmp_path / "many.json").write_text(json.dumps(printed[:3], indent=2), encoding="utf-8")
    report = _import(dataset, tmp_path / "many.json", tmp_path / "many.jsonl")
    assert [line["source"].rsplit(":", 1)[1] for line in report["lines"]] == ["1", "2", "3"]
    assert (report["inferred"], report["inferred_resolved"]) == (6, 6)
