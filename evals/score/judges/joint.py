"""Judge units of joint support (DESIGN 6 "Details"; the scheme and the verdicts the metrics read
are in evals.score.joint): a first round of pairs and unions, then the leave-one-out sets the
first round's verdicts call for."""

from __future__ import annotations

from collections.abc import Sequence

from evals.score.facts import AnswerCheck, ClaimCheck, MarkerCheck
from evals.score.joint import SupportLabels, distinct_texts, own_label, set_id, valid_cited
from evals.score.judges.base import JudgeInput, JudgeResult, JudgeUnit, SupportJudge


def _unit(check: AnswerCheck, cc: ClaimCheck, markers: Sequence[MarkerCheck]) -> JudgeUnit:
    texts = distinct_texts(m.chunk.text for m in markers if m.chunk is not None)
    return JudgeUnit(
        question_id=check.question.question_id,
        claim_id=cc.claim.claim_id,
        evidence_id=set_id(m.evidence_id for m in markers),
        input=JudgeInput(claim=cc.claim.text, evidence=texts, question=check.question.question),
    )


def joint_units(checks: Sequence[AnswerCheck]) -> list[JudgeUnit]:
    """First round: one unit per valid (claim, cited evidence) pair, and after a claim's pairs one
    union unit when it has two or more distinct valid markers."""
    units = []
    for check in checks:
        for cc in check.claims:
            for m in cc.markers:
                if m.valid and m.chunk is not None:
                    units.append(_unit(check, cc, [m]))
            valid = valid_cited(cc.markers)
            if len(valid) >= 2:
                units.append(_unit(check, cc, valid))
    return units


def leave_one_out_units(checks: Sequence[AnswerCheck], labels: SupportLabels) -> list[JudgeUnit]:
    """Second round: the union without one marker, for each claim of three or more valid markers
    whose union `labels` call supported while no fragment supports it alone (elsewhere the verdict
    follows from the first round); sets `labels` already hold are not asked again."""
    units = []
    for check in checks:
        qid = check.question.question_id
        for cc in check.claims:
            valid = valid_cited(cc.markers)
            if len(valid) < 3:
                continue
            cid = cc.claim.claim_id
            ids = [m.evidence_id for m in valid]
            if any(own_label(labels, qid, cid, [e]) == "supported" for e in ids):
                continue
            if own_label(labels, qid, cid, ids) != "supported":
                continue
            for left_out in valid:
                rest = [m for m in valid if m is not left_out]
                if own_label(labels, qid, cid, [m.evidence_id for m in rest]) is None:
                    units.append(_unit(check, cc, rest))
    return units


def judge_joint(
    judge: SupportJudge, checks: Sequence[AnswerCheck], prior: SupportLabels | None = None
) -> tuple[list[JudgeUnit], list[JudgeResult]]:
    """Judge every unit the metrics need: pairs and unions, then the leave-one-out sets the first
    round's verdicts call for. prior: human / adjudicated labels (they win when deciding what
    the second round needs, as they win in the metrics). Units and results are parallel."""
    units = joint_units(checks)
    results = judge.judge([u.input for u in units]) if units else []
    labels: dict[tuple[str, str | None, str | None, str], str] = {
        (u.question_id, u.claim_id, u.evidence_id, "support"): r.value for u, r in zip(units, results, strict=True)
    }
    labels.update(prior or {})
    more = leave_one_out_units(checks, labels)
    if more:
        units += more
        results += judge.judge([u.input for u in more])
    return units, results
