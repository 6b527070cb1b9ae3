"""Metrics of DESIGN 6: per answer first, then run means with 95 % bootstrap intervals over
questions, by risk tier and by tag. A value that cannot be computed is null with a reason."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evals.contract.metrics import METRIC_NAMES, PER_ANSWER_METRICS, RUN_LEVEL_METRICS
from evals.contract.models import Answer, Judgment
from evals.contract.precedence import AUTO_PREFIX, LabelKey, chosen_labels
from evals.contract.scores import Breakdown, Cost, MetricEntry, PpiEntry, QuestionScore, Scores
from evals.data.registry import Registry
from evals.score.columns import RunColumns
from evals.score.facts import AnswerCheck, MarkerCheck
from evals.score.gold import ANCHOR_LEVELS, gold_anchor_level
from evals.score.joint import pair_credit, union_support
from evals.score.ppi import PPI_METRICS, ppi_estimate
from evals.stats.bootstrap import RESAMPLES, SEED, bootstrap_means, generator, percentile_interval

FAITHFULNESS_MISSING = "not computed (run score with --ragas)"
# a support metric of an answer no judge and no person labelled (DESIGN: null with a reason)
NO_SUPPORT_JUDGE = "no support judge (--judge none): score with --judge offline or llm"
Labels = Mapping[LabelKey, str]

# The names, their order and aggregation are the metric table's (evals.contract.metrics).
PER_ANSWER = PER_ANSWER_METRICS
ABSTENTION = RUN_LEVEL_METRICS
ALL_METRICS = METRIC_NAMES


# --- support labels ------------------------------------------------------------------


class ChosenLabels(dict[LabelKey, str]):
    """The labels the metrics count, plus each side alone for the prediction-powered estimates
    (evals.score.ppi): `human` (human and adjudicated labels only) and `auto` (the chosen judge's)."""

    def __init__(self, chosen: dict[LabelKey, str], human: dict[LabelKey, str], auto: dict[LabelKey, str]) -> None:
        super().__init__(chosen)
        self.human = human
        self.auto = auto


def pick_labels(judgments: Iterable[Judgment], auto_source: str | None) -> ChosenLabels:
    """One label per (question, claim, evidence, field) by the precedence of DESIGN 5
    (evals.contract.precedence): adjudicated, else the latest human, else the chosen auto judge; other
    auto judges are ignored. The human-only and judge-only choices ride along (same function)."""
    rows = list(judgments)
    human = [j for j in rows if not j.source.startswith(AUTO_PREFIX)]
    auto = [j for j in rows if auto_source is not None and j.source == auto_source]
    return ChosenLabels(chosen_labels(rows, auto_source), chosen_labels(human, None), chosen_labels(auto, auto_source))


# --- per answer ----------------------------------------------------------------------


@dataclass
class AnswerScore:
    question_id: str
    risk_tier: str
    tags: list[str]
    status: str
    values: dict[str, float | None] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    anchor_levels: list[str] = field(default_factory=list)
    abstained: bool | None = None
    should_abstain: bool | None = None
    markers: int = 0
    valid_markers: int = 0
    findings: list[str] = field(default_factory=list)
    accepted: bool | None = None
    cost_usd: float | None = None
    # per PPI metric: (value with human / adjudicated labels only, value with the judge's only);
    # set only when the run has human labels (evals.score.ppi)
    ppi_inputs: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)

    def to_row(self) -> QuestionScore:
        """The per_question.jsonl row."""
        values: dict[str, Any] = {name: _round(self.values.get(name)) for name in (*PER_ANSWER, *added_metrics([self]))}
        return QuestionScore(
            question_id=self.question_id,
            risk_tier=self.risk_tier,
            tags=self.tags,
            status=self.status,
            **values,
            abstained=self.abstained,
            should_abstain=self.should_abstain,
            markers=self.markers,
            valid_markers=self.valid_markers,
            anchor_levels=self.anchor_levels,
            findings=self.findings,
            accepted=self.accepted,
            cost_usd=self.cost_usd,
            reasons=self.reasons,
            ppi_inputs={
                name: {"human": _round(human), "judge": _round(judge)}
                for name, (human, judge) in self.ppi_inputs.items()
            }
            or None,
        )

    def to_json(self) -> dict[str, Any]:
        return self.to_row().to_json()


def added_metrics(scores: Sequence[AnswerScore]) -> list[str]:
    """Per-answer metrics beyond DESIGN 6's core set that a stage put into `values` (e.g.
    key_fact_recall): averaged and written like the others, after them, in name order."""
    return sorted({name for s in scores for name in s.values} - set(PER_ANSWER))


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def _gold_anchor_level(
    check: AnswerCheck, marker: MarkerCheck, registry: Registry, skipped: list[str] | None = None
) -> tuple[str, bool] | None:
    """Level at which a valid marker meets a gold anchor of the same document, and whether it
    matches (evals.score.gold.gold_anchor_level; unchecked gold pages go to `skipped`)."""
    gold = check.question.gold
    if gold is None or marker.chunk is None:
        return None
    return gold_anchor_level(gold.evidence, marker.chunk, registry, skipped)


@dataclass(frozen=True)
class MetricOutcome:
    """One metric of one answer: its value, or None with the reason it does not apply."""

    value: float | None
    reason: str | None = None


def _outcome(num: int, den: int, reason_if_empty: str) -> MetricOutcome:
    return MetricOutcome(num / den, None) if den else MetricOutcome(None, reason_if_empty)


def citation_validity(check: AnswerCheck) -> MetricOutcome:
    """Valid markers / markers."""
    markers = check.markers
    return _outcome(sum(m.valid for m in markers), len(markers), "no citation markers")


def citation_correctness(check: AnswerCheck, labels: Labels) -> MetricOutcome:
    """Supported (claim, cited evidence) pairs / pairs judged; invalid markers count 0, partial
    counts 0, cannot_judge is left out. A pair also counts as supporting when the union of the
    claim's valid cited evidence supports the claim and loses that support without it
    (leave-one-out, evals.score.joint.pair_credit)."""
    qid = check.question.question_id
    judged = supported = 0
    for cc in check.claims:
        for m in cc.markers:
            credit = False if not m.valid else pair_credit(labels, qid, cc, m)
            if credit is not None:
                judged += 1
                supported += credit
    reason = "no judged (claim, evidence) pair" if check.markers else "no citation markers"
    return _outcome(supported, judged, reason)


def claim_support(check: AnswerCheck, labels: Labels) -> list[str]:
    """Per claim: "not_significant", "uncited", "supported" (a valid cited evidence supports it,
    or the union of its valid cited evidence does: evals.score.joint.union_support), "unsupported"
    (judged partial/unsupported, or only invalid markers) or "unjudged"."""
    qid = check.question.question_id
    states = []
    for cc in check.claims:
        flag = labels.get((qid, cc.claim.claim_id, None, "significant"))
        if flag == "no" or (flag is None and not cc.substantive):
            states.append("not_significant")
            continue
        if not cc.markers:
            states.append("uncited")
            continue
        pair_labels = [labels.get((qid, cc.claim.claim_id, m.evidence_id, "support")) for m in cc.markers]
        union = union_support(labels, qid, cc)
        if union == "supported" or any(
            m.valid and lab == "supported" for m, lab in zip(cc.markers, pair_labels, strict=True)
        ):
            states.append("supported")
        elif (
            union in ("partial", "unsupported")
            or any(lab in ("partial", "unsupported") for lab in pair_labels)
            or not any(m.valid for m in cc.markers)
        ):
            states.append("unsupported")
        else:
            states.append("unjudged")  # left out of the ratio, and the answer cannot be accepted
    return states


def citation_completeness(states: Sequence[str]) -> MetricOutcome:
    """Significant claims supported by their cited evidence / significant claims judged; an
    uncited claim counts 0."""
    significant = sum(s in ("uncited", "supported", "unsupported") for s in states)
    return _outcome(states.count("supported"), significant, "no judged significant claim")


def anchor_matches(
    check: AnswerCheck, labels: Labels, registry: Registry, skipped: list[str] | None = None
) -> list[tuple[str, bool]]:
    """(anchor level, matched) of each valid marker to a gold document; a human anchor label
    overrides the match, "na" leaves the marker out. Gold pages that cannot be checked go to `skipped`;
    a marker that matches no other gold anchor then counts only when a human anchor label decides it."""
    qid = check.question.question_id
    out = []
    for m in check.markers:
        if not m.valid:
            continue
        before = len(skipped) if skipped is not None else 0
        found = _gold_anchor_level(check, m, registry, skipped)
        if skipped is not None and len(skipped) > before and (found is None or not found[1]):
            # the unchecked gold page may be the very place cited: undecided unless a human label decides
            if labels.get((qid, m.claim_id, m.evidence_id, "anchor")) not in ("yes", "no"):
                continue
            found = found or ("document", False)
        if found is None:
            continue
        level, match = found
        if "ANCHOR_MISMATCH" in m.codes:
            level, match = "document", False  # the citation sends the reader to the wrong page
        human = labels.get((qid, m.claim_id, m.evidence_id, "anchor"))
        if human == "na":
            continue
        if human in ("yes", "no"):
            match = human == "yes"
        out.append((level, match))
    return out


def anchor_accuracy(matches: Sequence[tuple[str, bool]], skipped: Sequence[str] = ()) -> MetricOutcome:
    """Matched / valid markers to a gold document; the reason a gold page was not checked is kept,
    with the value when other anchors decide it, alone (null) when nothing does."""
    if skipped and not matches:
        return MetricOutcome(None, skipped[0])
    outcome = _outcome(sum(match for _, match in matches), len(matches), "no valid marker to a gold document")
    return MetricOutcome(outcome.value, skipped[0]) if skipped else outcome


def version_correctness(check: AnswerCheck, labels: Labels) -> MetricOutcome:
    """1 when every resolved marker points to an edition active at asked_at (or superseded with
    a stale notice) and no link redirects; a human version_ok label overrides."""
    resolved = [m for m in check.markers if m.edition is not None]
    if not resolved:
        return MetricOutcome(None, "no marker names a registry edition")
    stale_ok = check.answer.stale_notice
    ok = (
        all(
            m.status is not None and (m.status.value == "active" or (m.status.value == "superseded" and stale_ok))
            for m in resolved
        )
        and not check.link_redirect
    )
    human = labels.get((check.question.question_id, None, None, "version_ok"))
    return MetricOutcome(1.0 if (human == "yes" if human else ok) else 0.0)


def error_rate(answer: Answer) -> MetricOutcome:
    """1 for an answer that is a backend error, else 0 (over every question)."""
    return MetricOutcome(1.0 if answer.status == "error" else 0.0)


def faithfulness_outcome(faithfulness: float | None) -> MetricOutcome:
    return MetricOutcome(faithfulness, None if faithfulness is not None else FAITHFULNESS_MISSING)


def quote_exactness(check: AnswerCheck) -> MetricOutcome:
    quotes = [cc.quote_ok for cc in check.claims if cc.quote_ok is not None]
    return _outcome(sum(quotes), len(quotes), "no claim carries a quote")


def number_support(check: AnswerCheck) -> MetricOutcome:
    numbers = [cc.numbers_ok for cc in check.claims if cc.numbers_ok is not None]
    return _outcome(sum(numbers), len(numbers), "no claim carries a number")


def key_fact_recall(check: AnswerCheck) -> MetricOutcome:
    """Gold key facts the answer states / gold key facts (evals.score.keyfacts, read by the checks)."""
    stated = check.key_facts_stated or []
    return _outcome(sum(stated), len(stated), "gold lists no key facts")


def gold_evidence_recall(check: AnswerCheck) -> MetricOutcome:
    """Gold evidence items a valid marker reaches / gold evidence items (evals.score.gold); an answer
    that cites only other documents scores 0."""
    reached = check.gold_evidence_reached or []
    return _outcome(sum(reached), len(reached), "gold names no evidence")


def ppi_inputs(check: AnswerCheck, human: Labels, auto: Labels) -> dict[str, tuple[float | None, float | None]]:
    """Per PPI metric, the answer's value with the raters' labels alone (None when they labelled
    no (claim, evidence) pair of it) and with the judge's alone."""
    qid = check.question.question_id
    labelled = any((qid, m.claim_id, m.evidence_id, "support") in human for m in check.markers)
    values = {
        "citation_correctness": (citation_correctness(check, human).value, citation_correctness(check, auto).value),
        "citation_completeness": (
            citation_completeness(claim_support(check, human)).value,
            citation_completeness(claim_support(check, auto)).value,
        ),
    }
    return {name: (h if labelled else None, j) for name, (h, j) in values.items() if name in PPI_METRICS}


def context_support(verdicts: Sequence[str]) -> MetricOutcome:
    """Claims the retrieved context supports / claims judged against it (evals.score.context_support):
    partial and unsupported count 0, cannot_judge is left out."""
    judged = [v for v in verdicts if v in ("supported", "partial", "unsupported")]
    return _outcome(judged.count("supported"), len(judged), "no claim could be judged against the retrieved context")


def accepted(check: AnswerCheck, labels: Labels, states: Sequence[str]) -> bool | None:
    """Whether the answer could be shown as is: no finding (the registry's, and those against
    gold: every key fact stated, every gold evidence item reached, no marker off the gold
    anchor, where gold says so), not one it should have refused, and every significant claim
    supported; None while its pairs are unlabelled."""
    q = check.question
    integrity = [f for f in check.findings if f.code not in ("SHOULD_HAVE_ABSTAINED", "UNNEEDED_ABSTENTION")]
    if integrity or (q.gold and q.gold.should_abstain):
        return False
    if any((q.question_id, m.claim_id, m.evidence_id, "support") in labels for m in check.markers):
        return all(s in ("not_significant", "supported") for s in states) and bool(check.claims)
    return None


def support_labelled(check: AnswerCheck, labels: Labels) -> bool:
    """Whether a claim of the answer has a support label (a judge's or a person's), on a cited
    pair or on the union of its cited evidence."""
    qid = check.question.question_id
    return any(
        union_support(labels, qid, cc) is not None
        or any(labels.get((qid, cc.claim.claim_id, m.evidence_id, "support")) for m in cc.markers)
        for cc in check.claims
    )


def score_answer(
    check: AnswerCheck,
    labels: Labels,
    registry: Registry,
    faithfulness: float | None = None,
    judged: bool = True,
) -> AnswerScore:
    """The per-answer metrics of one checked answer, with the labels chosen by pick_labels.
    judged=False (no support judge ran): an answer nobody labelled has no support metrics — an
    invalid marker or an uncited claim alone is not a judgment — so they are null with a reason."""
    q, a = check.question, check.answer
    s = AnswerScore(question_id=q.question_id, risk_tier=q.risk_tier, tags=list(q.tags), status=a.status)
    s.findings = sorted(f.code for f in check.findings)
    s.should_abstain = q.gold.should_abstain if q.gold else None
    s.cost_usd = a.usage.cost_usd if a.usage else None
    s.values["error_rate"] = error_rate(a).value
    if a.status != "error":
        s.abstained = a.status == "abstained"
    if a.status != "answered":
        s.values.update({name: None for name in PER_ANSWER if name != "error_rate"})
        s.reasons["all"] = f"answer {a.status}"
        return s
    s.markers = len(check.markers)
    s.valid_markers = sum(m.valid for m in check.markers)
    states = claim_support(check, labels)
    skipped_pages: list[str] = []
    matches = anchor_matches(check, labels, registry, skipped_pages)
    s.anchor_levels = [level for level, _ in matches]
    outcomes = {
        "citation_validity": citation_validity(check),
        "citation_correctness": citation_correctness(check, labels),
        "citation_completeness": citation_completeness(states),
        "anchor_accuracy": anchor_accuracy(matches, skipped_pages),
        "version_correctness": version_correctness(check, labels),
        "faithfulness": faithfulness_outcome(faithfulness),
        "quote_exactness": quote_exactness(check),
        "number_support": number_support(check),
        "key_fact_recall": key_fact_recall(check),
        "gold_evidence_recall": gold_evidence_recall(check),
    }
    if not judged and not support_labelled(check, labels):
        outcomes["citation_correctness"] = outcomes["citation_completeness"] = MetricOutcome(None, NO_SUPPORT_JUDGE)
    for name, outcome in outcomes.items():
        s.values[name] = outcome.value
        if outcome.reason is not None:
            s.reasons[name] = outcome.reason
    s.accepted = accepted(check, labels, states)
    human, auto = getattr(labels, "human", None), getattr(labels, "auto", None)
    if human and auto is not None:  # raters labelled something in this run
        s.ppi_inputs = ppi_inputs(check, human, auto)
    return s


# --- run level -----------------------------------------------------------------------


def mean_metric(values: Sequence[float | None] | np.ndarray, seed: int = SEED) -> dict[str, Any]:
    """Mean over the answers where the metric applies, with a percentile bootstrap interval
    (values: None, or NaN in an array column, where it does not apply)."""
    if isinstance(values, np.ndarray):
        x = values[~np.isnan(values)].astype(np.float64, copy=False)
    else:
        x = np.array([v for v in values if v is not None], dtype=np.float64)
    n = len(x)
    if n == 0:
        return {"value": None, "ci": None, "n": 0, "reason": "no answer to which the metric applies"}
    out: dict[str, Any] = {"value": round(float(x.mean()), 6), "n": n}
    if n == 1:
        out["ci"], out["ci_reason"] = None, "one answer: no interval"
        return out
    samples = bootstrap_means(x, seed)
    out["ci"], reason = percentile_interval(samples)
    if reason:
        out["ci_reason"] = reason
    return out


def _abstention_stats(
    tp: np.ndarray, pp: np.ndarray, gp: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and F1 from true positives, predicted and gold positives (NaN: undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(pp > 0, tp / np.where(pp > 0, pp, 1), np.nan)
        recall = np.where(gp > 0, tp / np.where(gp > 0, gp, 1), np.nan)
        denom = precision + recall
        f1 = np.where(denom > 0, 2 * precision * recall / np.where(denom > 0, denom, 1), np.nan)
        f1 = np.where(np.isnan(precision) | np.isnan(recall), np.nan, f1)
        # both zero with defined parts: F1 is 0
        f1 = np.where((denom == 0), 0.0, f1)
    return precision, recall, f1


_ABSTENTION_UNDEFINED = {
    "abstention_precision": "the system never abstained",
    "abstention_recall": "no question should be refused",
    "abstention_f1": "precision or recall undefined",
}


def abstention_metrics(pairs: Sequence[tuple[bool, bool]], seed: int = SEED) -> dict[str, dict[str, Any]]:
    """Precision, recall and F1 of abstaining (positive class) against gold, as run-level ratios."""
    pred = np.array([p for p, _ in pairs], dtype=np.float64)
    gold = np.array([g for _, g in pairs], dtype=np.float64)
    return abstention_from_flags(pred, gold, seed)


def abstention_from_flags(pred: np.ndarray, gold: np.ndarray, seed: int = SEED) -> dict[str, dict[str, Any]]:
    """abstention_metrics over two parallel 0/1 arrays (abstained, should_abstain)."""
    n = len(pred)
    if n == 0:
        reason = "no non-error question with gold should_abstain"
        return {name: {"value": None, "ci": None, "n": 0, "reason": reason} for name in ABSTENTION}
    pred = pred.astype(np.float64, copy=False)
    gold = gold.astype(np.float64, copy=False)
    point = _abstention_stats(np.array([(pred * gold).sum()]), np.array([pred.sum()]), np.array([gold.sum()]))
    # resampling questions = drawing counts of the four (abstained, should_abstain) cells
    cells = (pred * 2 + gold).astype(np.int64)
    freq = np.bincount(cells, minlength=4) / n
    draws = generator(seed).multinomial(n, freq, size=RESAMPLES).astype(np.float64)
    boot = _abstention_stats(draws[:, 3], draws[:, 2] + draws[:, 3], draws[:, 1] + draws[:, 3])
    out: dict[str, dict[str, Any]] = {}
    for name, value, samples in zip(ABSTENTION, point, boot, strict=True):
        val = float(value[0])
        if np.isnan(val):
            out[name] = {"value": None, "ci": None, "n": n, "reason": _ABSTENTION_UNDEFINED[name]}
            continue
        ci, ci_reason = percentile_interval(samples, RESAMPLES)
        out[name] = {"value": round(val, 6), "ci": ci, "n": n}
        if ci_reason:
            out[name]["ci_reason"] = ci_reason
    return out


Scored = Sequence[AnswerScore] | RunColumns


def _columns(scores: Scored) -> RunColumns:
    return scores if isinstance(scores, RunColumns) else RunColumns.of(scores)


def aggregate(scores: Scored, seed: int = SEED, rows: np.ndarray | None = None) -> dict[str, MetricEntry]:
    """Every metric of DESIGN 6 over a set of answers (scored answers, or the run's compact
    columns and, optionally, the rows of a tier or tag): each per-answer metric — DESIGN 6's,
    then any other a stage put into the answers' values, in name order — then abstention."""
    columns = _columns(scores)

    def column(values: np.ndarray) -> np.ndarray:
        return values if rows is None else values[rows]

    names = (*PER_ANSWER, *sorted(set(columns.metric_names) - set(PER_ANSWER)))
    out = {name: mean_metric(column(columns.values(name)), seed) for name in names}
    # error_rate is over every question
    abstained, should_abstain = column(columns.abstained), column(columns.should_abstain)
    known = (abstained >= 0) & (should_abstain >= 0)
    out.update(abstention_from_flags(abstained[known], should_abstain[known], seed))
    if out["faithfulness"]["value"] is None:
        out["faithfulness"]["reason"] = FAITHFULNESS_MISSING
    return {name: MetricEntry.model_validate(entry) for name, entry in out.items()}


def run_cost(scores: Scored) -> Cost:
    """Total cost and cost per accepted answer (null with a reason when it cannot be known)."""
    columns = _columns(scores)
    costs = [float(c) for c in columns.cost if not np.isnan(c)]  # summed in question order, as floats
    accepted_n = int((columns.accepted == 1).sum())
    decided = int((columns.accepted >= 0).sum())
    answered = columns.status_count("answered")
    total = round(sum(costs), 6) if costs else None
    all_decided = decided >= answered
    cost = Cost(total_usd=total, accepted_answers=accepted_n if all_decided else None)
    if total is None:
        cost.reason = "the backend reported no cost"
    elif not all_decided:
        cost.reason = "support labels missing for some answers (score with a judge)"
    elif not accepted_n:
        cost.reason = "no answer was accepted"
    else:
        cost.per_accepted_answer_usd = round(total / accepted_n, 6)
    return cost


def build_scores(scores: Scored, seed: int = SEED) -> Scores:
    """The metric part of scores.json: metrics, by_tier, by_tag, anchor levels, findings, cost
    and ppi (the scoring stage adds the run's identity, judges and provenance), from scored
    answers or from the compact columns a streamed scoring keeps (evals.score.columns)."""
    columns = _columns(scores)
    tiers = sorted(columns.tiers.names)
    tags = sorted(columns.tags.names)
    return Scores(
        n_questions=columns.n,
        metrics=aggregate(columns, seed),
        by_tier={t: _breakdown(columns, columns.rows_of_tier(t), seed) for t in tiers},
        by_tag={t: _breakdown(columns, columns.rows_of_tag(t), seed) for t in tags},
        anchor_level={k: columns.anchor_levels.get(k, 0) for k in ANCHOR_LEVELS},
        findings=dict(sorted(columns.findings.items())),
        findings_by_tier={t: dict(columns.findings_by_tier.get(t, Counter())) for t in tiers},
        cost=run_cost(columns),
        ppi=run_ppi(columns, seed),
    )


def _optional(values: np.ndarray) -> list[float | None]:
    return [None if math.isnan(v) else v for v in values.tolist()]


def run_ppi(scores: Scored, seed: int = SEED) -> dict[str, PpiEntry] | None:
    """DESIGN 6 `ppi.<metric>` when raters labelled part of the run (None when they labelled
    nothing): the prediction-powered mean beside the judge-only and human-only ones."""
    columns = _columns(scores)
    sides = {name: columns.ppi_inputs(name) for name in PPI_METRICS}
    if not any((~np.isnan(human)).any() for human, _ in sides.values()):
        return None
    return {
        name: ppi_estimate(_optional(human), _optional(judge), seed=seed) for name, (human, judge) in sides.items()
    }


_BODY = ("n_questions", "metrics", "by_tier", "by_tag", "anchor_level", "findings", "findings_by_tier", "cost", "ppi")


def scores_document(scores: Scored, seed: int = SEED) -> dict[str, Any]:
    """The metric part of scores.json as JSON (see build_scores; `ppi` only when computed)."""
    doc = build_scores(scores, seed).to_json()
    return {key: doc[key] for key in _BODY if key in doc}


def breakdown(subset: Sequence[AnswerScore], seed: int) -> Breakdown:
    """One tier's or tag's metrics (on disk each also stands at the top of the entry)."""
    return _breakdown(_columns(subset), None, seed)


def _breakdown(columns: RunColumns, rows: np.ndarray | None, seed: int) -> Breakdown:
    return Breakdown(n=columns.n if rows is None else len(rows), metrics=aggregate(columns, seed, rows))
