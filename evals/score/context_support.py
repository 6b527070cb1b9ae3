"""context_support: are the answer's claims backed by what the system retrieved?

Citation metrics ask whether each marker's fragment supports its claim; an answer without
markers (RAGChecker's and Ragas's responses) scores nothing there but CLAIM_UNCITED. This asks
the question those tools ask — like RAGChecker's and Ragas's faithfulness, but with citeval's
own judge (the offline judge by default, or the LLM judge): each substantive claim is judged
against the answer's whole evidence set taken together (the registry text of each evidence that
resolves, else the text it carries), and

    context_support = claims judged supported / claims judged

per answer (partial and unsupported count 0, cannot_judge is left out), averaged over answers
like every metric. It is reported beside the citation metrics and never replaces them: a claim
backed by the context but uncited still fails citation_completeness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evals.contract.metrics import CONTEXT_SUPPORT
from evals.data.registry import Registry
from evals.score.facts import AnswerCheck
from evals.score.judges.base import JudgeInput, SupportJudge
from evals.score.metrics import NO_SUPPORT_JUDGE, AnswerScore, MetricOutcome, context_support

NO_JUDGE = NO_SUPPORT_JUDGE
NO_CONTEXT = "the answer carries no retrieved evidence text"
NO_CLAIM = "no substantive claim"


@dataclass(frozen=True)
class ContextUnit:
    question_id: str
    claim_id: str
    input: JudgeInput


def context_texts(check: AnswerCheck, registry: Registry) -> list[str]:
    """The texts of the answer's evidence set, in order, each once: the registry chunk's text
    when the evidence resolves to one, else the text the evidence carries."""
    texts: list[str] = []
    for evidence in check.answer.evidence:
        chunk = registry.resolve(evidence)
        text = chunk.text if chunk is not None else evidence.text
        if text and text.strip() and text not in texts:
            texts.append(text)
    return texts


def context_units(checks: Sequence[AnswerCheck], registry: Registry) -> list[ContextUnit]:
    """One judge unit per substantive claim of each answered answer that carries evidence text."""
    units = []
    for check in checks:
        if check.answer.status != "answered":
            continue
        texts = context_texts(check, registry)
        if not texts:
            continue
        question = check.question.question
        for cc in check.claims:
            if cc.substantive:
                unit_input = JudgeInput(cc.claim.text, texts, question)
                units.append(ContextUnit(check.question.question_id, cc.claim.claim_id, unit_input))
    return units


def context_support_outcomes(
    checks: Sequence[AnswerCheck], registry: Registry, judge: SupportJudge | None
) -> dict[str, MetricOutcome]:
    """context_support of every answered answer (value, or None with the reason)."""
    answered = [c for c in checks if c.answer.status == "answered"]
    if judge is None:
        return {c.question.question_id: MetricOutcome(None, NO_JUDGE) for c in answered}
    units = context_units(answered, registry)
    results = judge.judge([u.input for u in units]) if units else []
    verdicts: dict[str, list[str]] = {}
    for unit, result in zip(units, results, strict=True):
        verdicts.setdefault(unit.question_id, []).append(result.value)
    out = {}
    for check in answered:
        qid = check.question.question_id
        if qid in verdicts:
            out[qid] = context_support(verdicts[qid])
        elif not context_texts(check, registry):
            out[qid] = MetricOutcome(None, NO_CONTEXT)
        else:
            out[qid] = MetricOutcome(None, NO_CLAIM)
    return out


def add_context_support(
    scores: Sequence[AnswerScore], checks: Sequence[AnswerCheck], registry: Registry, judge: SupportJudge | None
) -> None:
    """Put context_support into each answered answer's per-answer values (the metrics stage
    averages every value it finds, evals.score.metrics.added_metrics)."""
    outcomes = context_support_outcomes(checks, registry, judge)
    for score in scores:
        outcome = outcomes.get(score.question_id)
        if outcome is None:
            continue  # not answered: no claims to support
        score.values[CONTEXT_SUPPORT] = outcome.value
        if outcome.reason is not None:
            score.reasons[CONTEXT_SUPPORT] = outcome.reason
