"""Per-answer metrics with labels, run aggregation and intervals, each value worked out by hand."""

from datetime import datetime, timezone

import numpy as np
import pytest
from factories import TEXT_A1, TEXT_A2, dataset_rows, write_dataset
from scipy import stats

from evals.contract.models import Answer, Judgment, Question
from evals.data.registry import Registry
from evals.score.checks import check_answer
from evals.score.metrics import (
    AnswerScore,
    abstention_metrics,
    mean_metric,
    pick_labels,
    score_answer,
    scores_document,
)

AT = datetime(2025, 6, 1, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def registry(tmp_path_factory):
    return Registry.load(write_dataset(tmp_path_factory.mktemp("ds")))


def q2():
    return Question.model_validate(dataset_rows()["questions"][1])


def three_claims():
    """c1 → E1 (a2-1), c2 → E2 (a2-2), c3 → E99 (unknown), c4 uncited."""
    return Answer.model_validate({
        "question_id": "q2", "status": "answered", "answer_text": "…",
        "claims": [
            {"claim_id": "c1", "text": "Обучение раз в 6 месяцев.", "evidence_ids": ["E1"]},
            {"claim_id": "c2", "text": "Порог теста 80 %.", "evidence_ids": ["E2"]},
            {"claim_id": "c3", "text": "Тест сдают письменно онлайн.", "evidence_ids": ["E99"]},
            {"claim_id": "c4", "text": "Результаты хранятся в отделе кадров.", "evidence_ids": []},
        ],
        "evidence": [{"evidence_id": "E1", "chunk_id": "a2-1", "text": TEXT_A2[:52]},
                     {"evidence_id": "E2", "chunk_id": "a2-2"}],
        "usage": {"cost_usd": 0.02},
    })


def label(claim, evidence, field, value, source="auto:offline", minute=0):
    return Judgment(run_id="r", question_id="q2", claim_id=claim, evidence_id=evidence, source=source, field=field,
                    value=value, at=datetime(2025, 1, 1, 0, minute, tzinfo=timezone.utc))


def test_correctness_and_completeness_with_labels(registry):
    check = check_answer(q2(), three_claims(), registry, AT)
    labels = pick_labels([
        label("c1", "E1", "support", "supported"),
        label("c2", "E2", "support", "partial"),
        label("c4", None, "significant", "yes", source="human:ann@x"),
    ], "auto:offline")
    v = score_answer(check, labels, registry).values
    # validity: E1, E2 valid, E99 not → 2/3
    assert v["citation_validity"] == pytest.approx(2 / 3)
    # correctness pairs: (c1,E1) supported, (c2,E2) partial = 0, (c3,E99) invalid = 0 → 1/3
    assert v["citation_correctness"] == pytest.approx(1 / 3)
    # completeness: c1 yes, c2 no (partial), c3 no (only an invalid marker), c4 uncited → 1/4
    assert v["citation_completeness"] == pytest.approx(1 / 4)


def test_cannot_judge_is_left_out_and_humans_win(registry):
    check = check_answer(q2(), three_claims(), registry, AT)
    labels = pick_labels([
        label("c1", "E1", "support", "unsupported"),
        label("c1", "E1", "support", "supported", source="human:a@x", minute=1),
        label("c2", "E2", "support", "cannot_judge"),
        label("c1", "E1", "support", "unsupported", source="auto:llm"),  # another judge: ignored
        label("c3", None, "significant", "no", source="human:a@x"),
        label("c4", None, "significant", "no", source="adjudicated"),
    ], "auto:offline")
    v = score_answer(check, labels, registry).values
    # pairs judged: (c1,E1) supported by the human over the auto label, (c3,E99) invalid → 1/2
    assert v["citation_correctness"] == pytest.approx(1 / 2)
    # significant: c1 (supported), c2 (only cannot_judge: left out); c3 and c4 marked not significant → 1/1
    assert v["citation_completeness"] == 1.0


def test_adjudicated_beats_a_later_human():
    js = [label("c1", "E1", "support", "supported", source="adjudicated", minute=0),
          label("c1", "E1", "support", "unsupported", source="human:b@x", minute=9)]
    assert pick_labels(js, None)[("q2", "c1", "E1", "support")] == "supported"


def test_mean_metric_interval_matches_scipy():
    values = [1.0, 0.0, 1.0, 1.0, 0.5, None, 1.0, 0.0, 1.0, 1.0, 0.75, 1.0]
    m = mean_metric(values)
    present = np.array([v for v in values if v is not None])
    assert m["n"] == 11 and m["value"] == pytest.approx(present.mean())
    # a second implementation: scipy's percentile bootstrap (its own random stream)
    ref = stats.bootstrap((present,), np.mean, n_resamples=20000, method="percentile", random_state=1,
                          confidence_level=0.95).confidence_interval
    assert m["ci"][0] == pytest.approx(ref.low, abs=0.04) and m["ci"][1] == pytest.approx(ref.high, abs=0.04)


def test_no_nan_and_reasons():
    assert mean_metric([None, None]) == {"value": None, "ci": None, "n": 0,
                                         "reason": "no answer to which the metric applies"}
    one = mean_metric([0.5])
    assert one["value"] == 0.5 and one["ci"] is None and one["ci_reason"] == "one answer: no interval"
    constant = mean_metric([1.0, 1.0, 1.0])
    assert constant["ci"] == [1.0, 1.0]


def test_abstention_by_hand():
    # (abstained, gold should_abstain): tp = 2, predicted = 3, gold = 3
    pairs = [(True, True), (True, False), (False, True), (False, False), (True, True)]
    m = abstention_metrics(pairs)
    assert m["abstention_precision"]["value"] == pytest.approx(2 / 3)
    assert m["abstention_recall"]["value"] == pytest.approx(2 / 3)
    assert m["abstention_f1"]["value"] == pytest.approx(2 / 3)
    never = abstention_metrics([(False, True), (False, False)])
    assert never["abstention_precision"] == {"value": None, "ci": None, "n": 2, "reason": "the system never abstained"}
    assert never["abstention_recall"]["value"] == 0.0
    assert never["abstention_f1"]["value"] is None


def test_scores_document_tiers_tags_and_cost():
    def s(qid, tier, tags, validity, status="answered", accepted=True, cost=0.01):
        a = AnswerScore(question_id=qid, risk_tier=tier, tags=tags, status=status, accepted=accepted, cost_usd=cost)
        a.values = {"citation_validity": validity, "error_rate": 1.0 if status == "error" else 0.0}
        a.findings = ["BACKEND_ERROR"] if status == "error" else []
        return a

    doc = scores_document([
        s("a", "critical", ["numeric"], 1.0), s("b", "critical", [], 0.5, accepted=False),
        s("c", "policy", ["numeric"], 0.0, accepted=False), s("d", "policy", [], None, status="error", accepted=None),
    ])
    assert doc["metrics"]["citation_validity"]["value"] == pytest.approx(0.5)  # (1 + .5 + 0) / 3
    assert doc["metrics"]["error_rate"]["value"] == pytest.approx(0.25)
    assert doc["by_tier"]["critical"]["metrics"]["citation_validity"]["value"] == pytest.approx(0.75)
    assert doc["by_tag"]["numeric"]["metrics"]["citation_validity"]["value"] == pytest.approx(0.5)
    assert doc["findings"] == {"BACKEND_ERROR": 1} and doc["findings_by_tier"]["policy"] == {"BACKEND_ERROR": 1}
    # 4 × 0.01 USD over the one accepted answer
    assert doc["cost"] == {"total_usd": 0.04, "accepted_answers": 1, "per_accepted_answer_usd": 0.04}


def test_scores_never_hold_nan(registry):
    check = check_answer(q2(), Answer(question_id="q2", status="abstained"), registry, AT)
    doc = scores_document([score_answer(check, {}, registry)])
    import json

    json.loads(json.dumps(doc), parse_constant=lambda token: pytest.fail(f"{token} in scores"))


def test_gold_anchor_levels(registry):
    q1 = Question.model_validate(dataset_rows()["questions"][0])  # gold: train-v1 page 1, quote in a1-1
    answer = Answer.model_validate({
        "question_id": "q1", "status": "answered", "answer_text": "…",
        "claims": [{"claim_id": "c1", "text": "Раз в 12 месяцев.", "evidence_ids": ["E1", "E2"]}],
        "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1", "text": TEXT_A1[:53]},
                     {"evidence_id": "E2", "chunk_id": "a1-2"}]})
    s = score_answer(check_answer(q1, answer, registry, datetime(2024, 5, 1, tzinfo=timezone.utc)), {}, registry)
    # E1 holds the gold quote (char); E2 is another page under the same heading "Обучение" (section)
    assert sorted(s.anchor_levels) == ["char", "section"]
    assert s.values["anchor_accuracy"] == 0.5


def test_breakdowns_mirror_the_metrics_block():
    a = AnswerScore(question_id="a", risk_tier="critical", tags=["numeric"], status="answered")
    a.values = {"citation_validity": 0.5, "error_rate": 0.0}
    doc = scores_document([a])
    tier = doc["by_tier"]["critical"]
    assert tier["n"] == 1 and tier["citation_validity"]["value"] == 0.5
    assert tier["metrics"]["citation_validity"] == tier["citation_validity"]
    assert doc["by_tag"]["numeric"]["citation_validity"]["value"] == 0.5
