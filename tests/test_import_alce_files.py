"""ALCE files as ALCE's own scripts write them, read the way ALCE's eval.py reads them.

tests/peers/alce/ (MIT, princeton-nlp/ALCE; how each file was made is in its make_fixtures.py
and README.md): a closed-book ASQA run and a closed-book QAMPARI run cited after the fact by
ALCE's post_hoc_cite.py (`ndoc: 0`, markers before each sentence or item), QAMPARI and ELI5
result files built from the repository's prompt demos. Expected claims and markers are read
off the files' text here with a regex, not by citeval's splitter.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from evals.score.checks import derive_claims

ALCE = Path(__file__).parent / "peers" / "alce"
ASQA_POST_HOC = ALCE / "asqa_closedbook.json.post_hoc_cite.tfidf-external"
QAMPARI_POST_HOC = ALCE / "qampari_closedbook.json.post_hoc_cite.tfidf-external"
runner = CliRunner()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _by_question(path: Path) -> dict[str, dict]:
    return {row["question_id"]: row for row in _lines(path)}


def _import(source: Path, out: Path, *extra: str) -> str:
    result = runner.invoke(app, ["data", "import", "alce", str(source), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    return result.output


def _eval(dataset: Path, tmp_path: Path) -> Path:
    result = runner.invoke(app, ["eval", str(dataset), "--backend", "replay:answers/alce.jsonl", "--out",
                                 str(tmp_path / "runs"), "--run-id", "r", "--report-out", str(tmp_path / "r.html")])
    assert result.exit_code in (0, 1), result.output
    return tmp_path / "runs" / "r"


def _data(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["data"]


def test_a_closed_book_run_cited_post_hoc_uses_every_doc_of_its_items(tmp_path: Path) -> None:
    doc = json.loads(ASQA_POST_HOC.read_text(encoding="utf-8"))
    assert doc["args"]["ndoc"] == 0 and all(len(item["docs"]) == 5 for item in doc["data"])
    output = _import(ASQA_POST_HOC, tmp_path / "ds")
    assert "more docs than args.ndoc = 0" in output
    answers = _by_question(tmp_path / "ds" / "answers" / "alce.jsonl")
    assert [len(a["evidence"]) for a in answers.values()] == [5, 5]

    run = _eval(tmp_path / "ds", tmp_path)
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))["metrics"]
    assert scores["citation_validity"]["value"] == 1.0  # every marker names one of the item's five docs
    codes = [f["code"] for f in _lines(run / "findings.jsonl")]
    assert "UNKNOWN_EVIDENCE_ID" not in codes and "CLAIM_UNCITED" not in codes


def test_markers_before_their_sentences_are_those_sentences_own() -> None:
    for item in _data(ASQA_POST_HOC):
        # post_hoc_cite.py writes each sentence as "[k] sentence": cut the output before each marker
        expected = [(m.group(2).strip(), [m.group(1)]) for m in re.finditer(r"\[(\d+)\] (.*?)(?= \[\d+\] |$)",
                                                                            item["output"])]
        assert len(expected) == 2
        assert [(c.text, c.evidence_ids) for c in derive_claims(item["output"])] == expected


def test_leading_and_trailing_markers_in_russian() -> None:
    leading = "[2] Срок хранения — 3 года. [1][3] Ст. 5 п. 2 это уточняет. Итог ясен."
    assert [(c.text, c.evidence_ids) for c in derive_claims(leading)] == [
        ("Срок хранения — 3 года.", ["2"]), ("Ст. 5 п. 2 это уточняет.", ["1", "3"]), ("Итог ясен.", [])]
    # an answer that does not open with a marker keeps a marker after the period with the sentence before
    trailing = "Срок хранения — 3 года. [2] Ст. 5 п. 2 это уточняет [1]."
    assert [(c.text, c.evidence_ids) for c in derive_claims(trailing)] == [
        ("Срок хранения — 3 года.", ["2"]), ("Ст. 5 п. 2 это уточняет.", ["1"])]


def _items(output: str) -> list[tuple[str, list[str]]]:
    """(item without markers, its markers) of a QAMPARI comma list, as eval.py splits it."""
    pieces = output.rstrip().rstrip(".").rstrip(",").split(",")
    return [(re.sub(r"\s*\[\d+\]\s*", " ", p).strip(), re.findall(r"\[(\d+)\]", p)) for p in pieces]


@pytest.mark.parametrize("source", [QAMPARI_POST_HOC, ALCE / "qampari_default_result.json"],
                         ids=["post-hoc", "demo"])
def test_a_qampari_answer_is_one_claim_per_item(source: Path, tmp_path: Path) -> None:
    output = _import(source, tmp_path / "ds")
    assert "QAMPARI" in output
    answers = _by_question(tmp_path / "ds" / "answers" / "alce.jsonl")
    items = _data(source)
    assert [len(a["claims"]) for a in answers.values()] == [11, 7]
    for item, answer in zip(items, answers.values(), strict=True):
        expected = [(f"{item['question']} {text}", ids) for text, ids in _items(item["output"])]
        assert [(c["text"], c["evidence_ids"]) for c in answer["claims"]] == expected
        for claim in answer["claims"]:  # each span is its item in the answer text
            start, end = claim["span"]
            assert claim["text"].endswith(re.sub(r"\s*\[\d+\]\s*", " ", answer["answer_text"][start:end]).strip())
    run = _eval(tmp_path / "ds", tmp_path)
    rows = _by_question(run / "per_question.jsonl")
    assert [r["markers"] for r in rows.values()] == [11, 7]
    assert all(r["citation_validity"] == 1.0 for r in rows.values())


def test_at_most_citations_keeps_each_claims_first_markers_and_is_recorded(tmp_path: Path) -> None:
    source = ALCE / "eli5_default_result.json"
    first = _data(source)[0]["output"]
    assert "[1][2][3]." in first  # its first sentence cites three docs
    _import(source, tmp_path / "capped", "--at-most-citations", "2")
    manifest = json.loads((tmp_path / "capped" / "import.json").read_text(encoding="utf-8"))
    assert manifest["options"] == {"at_most_citations": 2}
    answer = next(iter(_by_question(tmp_path / "capped" / "answers" / "alce.jsonl").values()))
    assert [c["evidence_ids"] for c in answer["claims"]] == [["1", "2"], ["2"]]
    assert answer["raw"]["import_options"] == {"at_most_citations": 2}  # carried into every run of it

    _import(source, tmp_path / "plain")  # off by default: the scorer derives the claims with every marker
    manifest = json.loads((tmp_path / "plain" / "import.json").read_text(encoding="utf-8"))
    assert manifest["options"] == {"at_most_citations": None}
    answer = next(iter(_by_question(tmp_path / "plain" / "answers" / "alce.jsonl").values()))
    assert answer["claims"] == []
    assert [c.evidence_ids for c in derive_claims(answer["answer_text"])] == [["1", "2", "3"], ["2"]]


@pytest.mark.parametrize(("kind", "value", "message"), [("ragchecker", "3", "only for alce"),
                                                         ("alce", "0", "1 or more")])
def test_at_most_citations_is_refused_where_it_means_nothing(tmp_path: Path, kind: str, value: str,
                                                             message: str) -> None:
    source = ALCE / "eli5_default_result.json"
    args = ["data", "import", kind, str(source), "--out", str(tmp_path / "ds"), "--at-most-citations", value]
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and (message in result.output or "No such option" in result.output), result.output
    assert not (tmp_path / "ds").exists()
