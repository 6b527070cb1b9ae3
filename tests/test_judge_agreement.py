"""judge_agreement: each auto judge against the human / adjudicated support labels."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from evals.score.judges.agreement import judge_agreement, label_agreement, reference_labels

T0 = datetime(2025, 3, 1, tzinfo=timezone.utc)


def row(q: str, c: str, source: str, value: str, minutes: int = 0, e: str = "E1") -> dict:
    return {"run_id": "r1", "question_id": q, "claim_id": c, "evidence_id": e, "source": source,
            "field": "support", "value": value, "at": (T0 + timedelta(minutes=minutes)).isoformat()}


def test_hand_worked_agreement() -> None:
    rows = [
        # q1: three units; human and judge agree on two
        row("q1", "c1", "human:ann", "supported"), row("q1", "c1", "auto:offline", "supported"),
        row("q1", "c2", "human:ann", "unsupported"), row("q1", "c2", "auto:offline", "unsupported"),
        row("q1", "c3", "human:ann", "unsupported"), row("q1", "c3", "auto:offline", "supported"),
        # q2: the adjudicated label wins over the humans (who tie)
        row("q2", "c1", "human:ann", "supported"), row("q2", "c1", "human:bob", "unsupported"),
        row("q2", "c1", "adjudicated", "unsupported"), row("q2", "c1", "auto:offline", "unsupported"),
        # q2 c2: humans tie, no adjudication → left out
        row("q2", "c2", "human:ann", "supported"), row("q2", "c2", "human:bob", "partial"),
        row("q2", "c2", "auto:offline", "supported"),
        # q3: the judge could not judge → left out; a re-label replaces the earlier one
        row("q3", "c1", "human:ann", "supported"), row("q3", "c1", "auto:offline", "cannot_judge"),
        row("q3", "c2", "human:ann", "partial"), row("q3", "c2", "human:ann", "supported", minutes=5),
        row("q3", "c2", "auto:offline", "supported"),
        # a field other than support is ignored
        {**row("q1", "c1", "human:ann", "yes"), "field": "significant"},
        # a second judge with nothing in common with the humans
        row("q9", "c1", "auto:llm", "supported"),
    ]
    reference, ties = reference_labels(rows)
    assert ties == 1 and reference[("q2", "c1", "E1")] == "unsupported"
    result = judge_agreement(rows)
    offline = result["auto:offline"]
    # units: (sup,sup) (uns,uns) (uns,sup) | (uns,uns) | (sup,sup) → n = 5
    assert (offline["n"], offline["n_questions"], offline["units_tied"]) == (5, 3, 1)
    assert offline["accuracy"]["value"] == pytest.approx(4 / 5)
    # kappa: po = 0.8; truth sup 2 / uns 3, judge sup 3 / uns 2 → pe = (2·3 + 3·2)/25 = 0.48
    assert offline["cohen_kappa"]["value"] == pytest.approx((0.8 - 0.48) / (1 - 0.48))
    assert offline["unsupported_precision"]["value"] == pytest.approx(1.0)  # 2 of 2 judged unsupported
    assert offline["unsupported_recall"]["value"] == pytest.approx(2 / 3)  # 2 of 3 truly unsupported
    lo, hi = offline["accuracy"]["ci"]
    assert 0.0 <= lo <= 0.8 <= hi <= 1.0
    llm = result["auto:llm"]
    assert llm["n"] == 0 and llm["cohen_kappa"] == {"value": None, "ci": None, "reason": llm["reason"]}


def test_undefined_statistics_are_null_with_reason_never_nan() -> None:
    rows = [row("q1", "c1", "human:ann", "supported"), row("q1", "c1", "auto:offline", "supported"),
            row("q2", "c1", "human:ann", "supported"), row("q2", "c1", "auto:offline", "supported")]
    stats = judge_agreement(rows)["auto:offline"]
    assert stats["accuracy"]["value"] == 1.0
    assert stats["cohen_kappa"]["value"] is None and "undefined" in stats["cohen_kappa"]["reason"]
    assert stats["unsupported_precision"] == {"value": None, "ci": None, "reason": "the judge never said unsupported"}
    assert stats["unsupported_recall"]["reason"] == "the reference never says unsupported"


def test_label_agreement_views() -> None:
    out = label_agreement(["supported", "partial", "unsupported", "cannot_judge"],
                          ["supported", "unsupported", "unsupported", "supported"])
    assert (out["n"], out["left_out"]) == (3, 1)
    assert out["labels"]["accuracy"]["value"] == pytest.approx(2 / 3)
    assert out["binary"]["accuracy"]["value"] == 1.0 and out["binary"]["cohen_kappa"]["value"] == 1.0
