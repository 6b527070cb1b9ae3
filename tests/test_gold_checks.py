"""Answers against gold (DESIGN 4 and 6): gold evidence reached at document, edition and page
level; KEY_FACT_MISSING, GOLD_EVIDENCE_NOT_CITED and ANCHOR_MISMATCH for a marker that misses the
gold anchor; key_fact_recall and gold_evidence_recall per answer, worked out by hand.

Registry (tests/factories.py, plus one open document): train-v1 (in force on 2024-05-01) has a1-1
"Обучение проводится не реже одного раза в 12 месяцев." on page 1 and a1-2 "Порог сдачи теста 70 %."
on page 2; train-v2 has a2-1 / a2-2 likewise (6 months, 80 %); visit-v1 has one chunk on page 3.
"""

from datetime import datetime, timezone

import pytest
from factories import dataset_rows, write_dataset

from evals.contract.models import Answer, GoldEvidence, Question
from evals.data.registry import Registry
from evals.score.checks import check_answer
from evals.score.facts import is_gold_finding
from evals.score.gold import reaches
from evals.score.metrics import score_answer

AT = datetime(2024, 5, 1, tzinfo=timezone.utc)  # train-v1 in force
VISIT = "Посещение пациентов разрешается ежедневно с 16:00 до 19:00."


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    rows = dataset_rows()
    rows["documents"].append({"document_id": "visit", "title": "Правила посещения", "acl": []})
    rows["versions"].append({"version_id": "visit-v1", "document_id": "visit", "revision": 1, "content_sha256": "0" * 64,
                             "effective_from": "2023-01-01", "viewer_url": "https://docs.example/d/visit/v/1"})
    rows["chunks"].append({"chunk_id": "v1-1", "version_id": "visit-v1", "document_id": "visit", "text": VISIT,
                           "heading_path": [], "page_start": 3, "page_end": 3, "char_start": 0, "char_end": len(VISIT)})
    return Registry.load(write_dataset(tmp_path_factory.mktemp("gold"), rows, texts=False))


@pytest.mark.parametrize(
    ("gold", "reached", "missed"),
    [
        # document level: any edition, any page
        ({"document_id": "train"}, ["a1-1", "a1-2", "a2-1", "a2-2"], ["v1-1"]),
        # edition level: only that edition's chunks
        ({"document_id": "train", "version_id": "train-v2"}, ["a2-1", "a2-2"], ["a1-1", "a1-2"]),
        # page level: the chunk must cover page 2 of train-v1
        ({"document_id": "train", "version_id": "train-v1", "page": 2}, ["a1-2"], ["a1-1", "a2-2"]),
        # span level: chars 60–70 of train-v1 lie in a1-2 (55–78), not in a1-1 (0–53)
        ({"document_id": "train", "version_id": "train-v1", "char_start": 60, "char_end": 70}, ["a1-2"], ["a1-1"]),
        # a quote alone places it
        ({"document_id": "train", "quote": "Порог сдачи теста 80 %"}, ["a2-2"], ["a1-2", "a2-1"]),
    ],
)
def test_gold_evidence_reached_at_each_level(registry, gold, reached, missed):
    g = GoldEvidence.model_validate(gold)
    assert [c for c in reached if not reaches(g, registry.chunks[c])] == []
    assert [c for c in missed if reaches(g, registry.chunks[c])] == []


def question(**gold) -> Question:
    return Question.model_validate({
        "question_id": "g1", "question": "Как часто проходить обучение и какой порог теста?", "asked_at": "2024-05-01",
        "risk_tier": "policy", "gold": {"should_abstain": False, **gold},
    })


def answer(text: str, chunk_id: str, page: int, document_id: str = "train", version_id: str = "train-v1") -> Answer:
    return Answer.model_validate({
        "question_id": "g1", "status": "answered", "answer_text": text,
        "evidence": [{"evidence_id": "E1", "chunk_id": chunk_id, "document_id": document_id, "version_id": version_id,
                      "page": page}],
    })


TWO_FACTS = {
    "evidence": [{"document_id": "train", "version_id": "train-v1", "page": 1,
                  "quote": "не реже одного раза в 12 месяцев"},
                 {"document_id": "train", "version_id": "train-v1", "page": 2, "quote": "Порог сдачи теста 70 %"}],
    "key_facts": ["12 месяцев", "70 %"],
}


def test_off_topic_answer_citing_the_wrong_document_scores_zero_on_both(registry):
    """A valid, readable citation to another document: citation_validity 1, but no key fact is
    stated and no gold evidence is reached, and the reader sees both findings."""
    check = check_answer(question(**TWO_FACTS), answer(VISIT + " [E1]", "v1-1", 3, "visit", "visit-v1"), registry, AT)
    scored = score_answer(check, {}, registry)
    assert scored.values["citation_validity"] == 1.0
    assert scored.values["key_fact_recall"] == 0.0
    assert scored.values["gold_evidence_recall"] == 0.0
    found = sorted(f.code for f in check.findings)
    assert found == ["GOLD_EVIDENCE_NOT_CITED", "GOLD_EVIDENCE_NOT_CITED", "KEY_FACT_MISSING", "KEY_FACT_MISSING"]
    assert all(is_gold_finding(f) for f in check.findings)
    details = " | ".join(f.detail for f in check.findings)
    assert "«12 месяцев»" in details and "«70 %»" in details
    assert "train-v1 p. 1" in details and "the answer cites visit-v1 p. 3" in details
    assert scored.accepted is False


def test_partial_answer_scores_by_hand(registry):
    """States 12 months in words, cites only the page-1 chunk: 1 of 2 key facts, 1 of 2 gold items."""
    text = "Обучение проходят не реже одного раза в двенадцать месяцев [E1]."
    check = check_answer(question(**TWO_FACTS), answer(text, "a1-1", 1), registry, AT)
    scored = score_answer(check, {}, registry)
    assert (scored.values["key_fact_recall"], scored.values["gold_evidence_recall"]) == (0.5, 0.5)
    assert sorted(f.code for f in check.findings) == ["GOLD_EVIDENCE_NOT_CITED", "KEY_FACT_MISSING"]
    # the page-1 chunk matches its own gold anchor: no ANCHOR_MISMATCH although the second item is elsewhere
    assert "ANCHOR_MISMATCH" not in check.codes()


def test_wrong_page_citation_names_both_pages(registry):
    """The right edition, the passage on page 2, where gold's only anchor is on page 1."""
    gold = {"evidence": TWO_FACTS["evidence"][:1], "key_facts": ["12 месяцев"]}
    check = check_answer(question(**gold), answer("Порог сдачи теста 70 % [E1].", "a1-2", 2), registry, AT)
    mismatch = [f for f in check.findings if f.code == "ANCHOR_MISMATCH"]
    assert [(f.claim_id, f.evidence_id) for f in mismatch] == [("s1", "E1")]
    assert mismatch[0].detail.startswith("E1 cites train-v1 p. 2 (chunk a1-2")
    assert "gold anchor: train-v1 p. 1 «не реже одного раза в 12 месяцев»" in mismatch[0].detail
    scored = score_answer(check, {}, registry)
    assert scored.values["anchor_accuracy"] == 0.0 and scored.values["gold_evidence_recall"] == 0.0


def test_wrong_page_number_on_the_right_passage_names_both_pages(registry):
    """The evidence names page 2 for a chunk the registry has on page 1: the registry's
    ANCHOR_MISMATCH (not the gold one), and its detail says both pages."""
    gold = {"evidence": TWO_FACTS["evidence"][:1], "key_facts": ["12 месяцев"]}
    text = "Обучение проводится не реже одного раза в 12 месяцев [E1]."
    check = check_answer(question(**gold), answer(text, "a1-1", 2), registry, AT)
    mismatch = [f for f in check.findings if f.code == "ANCHOR_MISMATCH"]
    assert len(mismatch) == 1 and not is_gold_finding(mismatch[0])
    assert mismatch[0].detail == "E1 names page 2; the registry places it at train-v1 p. 1 (chunk a1-1, chars 0–53)"
    # the passage itself is the gold one: gold evidence is reached, the key fact stated
    scored = score_answer(check, {}, registry)
    assert (scored.values["key_fact_recall"], scored.values["gold_evidence_recall"]) == (1.0, 1.0)


def test_metrics_do_not_apply_without_gold_or_to_abstentions(registry):
    check = check_answer(question(), answer("Обучение раз в 12 месяцев [E1].", "a1-1", 1), registry, AT)
    scored = score_answer(check, {}, registry)
    assert scored.values["key_fact_recall"] is None and scored.values["gold_evidence_recall"] is None
    assert "key_fact_recall" in scored.reasons and "gold_evidence_recall" in scored.reasons
    refused = Answer.model_validate({"question_id": "g1", "status": "abstained", "answer_text": "Не знаю."})
    scored = score_answer(check_answer(question(**TWO_FACTS), refused, registry, AT), {}, registry)
    assert scored.values["key_fact_recall"] is None
