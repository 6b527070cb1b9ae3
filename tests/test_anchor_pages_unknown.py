"""anchor_accuracy on an edition without page information (issue 18): a gold item that names only a
page there can neither match nor mismatch, so it is skipped and the reason kept."""

from datetime import datetime, timezone

import pytest
from factories import dataset_rows, write_dataset

from evals.contract.models import Answer, Judgment, Question
from evals.data.registry import Registry
from evals.data.validate import validate_dataset
from evals.score.checks import check_answer
from evals.score.metrics import pick_labels, score_answer

AT = datetime(2025, 6, 1, tzinfo=timezone.utc)
# Registry.page_check_skip_reason's wording for train-v2, written out here
SKIP = "edition train-v2 has no page information (pages_known: false); page anchor not checked"


def _rows(pages_known: bool):
    """The factories dataset; train-v2 (active on AT) recorded with or without page information."""
    rows = dataset_rows()
    if not pages_known:
        rows["versions"][1]["pages_known"] = False
        for chunk in rows["chunks"]:
            if chunk["version_id"] == "train-v2":
                del chunk["page_start"], chunk["page_end"]
    return rows


@pytest.fixture(scope="module")
def registries(tmp_path_factory):
    known = Registry.load(write_dataset(tmp_path_factory.mktemp("known"), _rows(True)))
    unknown_ds = write_dataset(tmp_path_factory.mktemp("unknown"), _rows(False))
    return known, Registry.load(unknown_ds), unknown_ds


def _question(*gold):
    return Question.model_validate({
        "question_id": "q2", "question": "Какой порог сдачи теста?", "asked_at": "2025-06-01", "risk_tier": "critical",
        "gold": {"should_abstain": False, "evidence": list(gold)},
    })


def _answer(*chunk_ids):
    return Answer.model_validate({
        "question_id": "q2", "status": "answered", "answer_text": "…",
        "claims": [{"claim_id": f"c{i}", "text": "Порог сдачи теста 80 %.", "evidence_ids": [f"E{i}"]}
                   for i in range(1, len(chunk_ids) + 1)],
        "evidence": [{"evidence_id": f"E{i}", "chunk_id": c} for i, c in enumerate(chunk_ids, start=1)],
    })


def _score(registry, question, answer, judgments=()):
    check = check_answer(question, answer, registry, AT)
    assert all(m.valid for m in check.markers)
    return score_answer(check, pick_labels(judgments, None), registry)


PAGE_ONLY = {"document_id": "train", "version_id": "train-v2", "page": 2}


def test_the_dataset_validates_with_a_warning_for_the_gold_page(registries):
    report = validate_dataset(registries[2])
    assert report.ok, report.problems
    assert any("gold names page 2" in w.message for w in report.warnings)


def test_page_only_gold_with_pages_known_is_scored(registries):
    known = registries[0]
    # a2-2 lies on page 2, a2-1 on page 1: one hit, one miss
    assert _score(known, _question(PAGE_ONLY), _answer("a2-2")).values["anchor_accuracy"] == 1.0
    miss = _score(known, _question(PAGE_ONLY), _answer("a2-1"))
    assert miss.values["anchor_accuracy"] == 0.0
    assert "anchor_accuracy" not in miss.reasons


@pytest.mark.parametrize("chunk_id", ["a2-1", "a2-2"])
def test_page_only_gold_without_pages_is_null_with_the_reason(registries, chunk_id):
    s = _score(registries[1], _question(PAGE_ONLY), _answer(chunk_id))
    assert s.values["anchor_accuracy"] is None
    assert s.reasons["anchor_accuracy"] == SKIP
    assert s.anchor_levels == []


def test_a_quote_still_decides_without_pages(registries):
    gold = {**PAGE_ONLY, "quote": "Порог сдачи теста 80 %"}
    hit = _score(registries[1], _question(gold), _answer("a2-2"))
    assert hit.values["anchor_accuracy"] == 1.0 and "anchor_accuracy" not in hit.reasons
    assert _score(registries[1], _question(gold), _answer("a2-1")).values["anchor_accuracy"] == 0.0


QUOTE_A21 = {"document_id": "train", "version_id": "train-v2", "quote": "не реже одного раза в 6 месяцев"}


def test_other_anchors_decide_and_the_reason_is_kept(registries):
    # gold: the page-only item on train-v2 and a quote of its first chunk. E1 → a2-1 meets the quote
    # (char, a match); E2 → a2-2 misses the quote but may be the unchecked page 2: undecided, left out.
    # 1 of 1 decided marker matches. (Scoring E2 as a miss would give 0.5.)
    s = _score(registries[1], _question(PAGE_ONLY, QUOTE_A21), _answer("a2-1", "a2-2"))
    assert s.values["anchor_accuracy"] == 1.0
    assert s.anchor_levels == ["char"]
    assert s.reasons["anchor_accuracy"] == SKIP


def test_with_pages_known_both_markers_are_decided(registries):
    # E1 meets the quote (char), E2 lies on page 2 (page): 2 of 2
    s = _score(registries[0], _question(PAGE_ONLY, QUOTE_A21), _answer("a2-1", "a2-2"))
    assert s.values["anchor_accuracy"] == 1.0 and s.anchor_levels == ["char", "page"]
    assert "anchor_accuracy" not in s.reasons
    # a2-1 alone on page 1 against the page-only gold: a decided miss
    assert _score(registries[0], _question(PAGE_ONLY), _answer("a2-1")).anchor_levels == ["document"]


def test_a_human_anchor_label_decides_an_unchecked_page(registries):
    label = Judgment(run_id="r", question_id="q2", claim_id="c1", evidence_id="E1", source="human:ann@x",
                     field="anchor", value="no", at=AT)
    s = _score(registries[1], _question(PAGE_ONLY), _answer("a2-2"), [label])
    assert s.values["anchor_accuracy"] == 0.0
    assert s.reasons["anchor_accuracy"] == SKIP


# --- the finding a reader sees: ANCHOR_MISMATCH follows the same rule as anchor_accuracy ----------


def _findings(registry, question, answer):
    return [(f.code, f.detail) for f in check_answer(question, answer, registry, AT).findings
            if f.code == "ANCHOR_MISMATCH"]


def test_page_only_gold_on_an_edition_without_pages_raises_no_anchor_mismatch(registries):
    # with pages known, a2-1 (page 1) against gold page 2 is a mismatch naming both pages ...
    assert _findings(registries[0], _question(PAGE_ONLY), _answer("a2-1")) == [
        ("ANCHOR_MISMATCH", "E1 cites train-v2 p. 1 (chunk a2-1, chars 0–52); gold anchor: train-v2 p. 2")]
    # ... without page information neither chunk can be told apart from page 2: no finding
    for chunk_id in ("a2-1", "a2-2"):
        assert _findings(registries[1], _question(PAGE_ONLY), _answer(chunk_id)) == []
        # an item naming the document only (no edition) and a page is as undecidable
        assert _findings(registries[1], _question({**PAGE_ONLY, "version_id": None}), _answer(chunk_id)) == []


def test_a_quote_still_raises_anchor_mismatch_without_pages(registries):
    gold = {**PAGE_ONLY, "quote": "Порог сдачи теста 80 %"}
    assert _findings(registries[1], _question(gold), _answer("a2-2")) == []
    assert [code for code, _ in _findings(registries[1], _question(gold), _answer("a2-1"))] == ["ANCHOR_MISMATCH"]


def test_chunks_that_never_recorded_pages_are_skipped_alike(tmp_path):
    """A hand-written registry whose chunks carry no pages and whose edition does not say
    pages_known: false: the page-only gold cannot be checked either — the finding and the metric
    agree (no ANCHOR_MISMATCH, anchor_accuracy null with the reason), instead of a silent miss."""
    rows = dataset_rows()
    for chunk in rows["chunks"]:
        if chunk["version_id"] == "train-v2":
            del chunk["page_start"], chunk["page_end"]
    registry = Registry.load(write_dataset(tmp_path, rows))
    assert _findings(registry, _question(PAGE_ONLY), _answer("a2-1")) == []
    s = _score(registry, _question(PAGE_ONLY), _answer("a2-1"))
    assert s.values["anchor_accuracy"] is None
    assert s.reasons["anchor_accuracy"] == "chunk a2-1 of train-v2 has no page information; page anchor not checked"
