"""Metrics of DESIGN 6: per answer first, then run means with 95 % bootstrap intervals over
questions, by risk tier and by tag. A value that cannot be computed is null with a reason."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .bootstrap import RESAMPLES, SEED, bootstrap_means, generator, percentile_interval
from .checks import AnswerCheck, MarkerCheck
from .data.models import Judgment
from .data.registry import Registry
from .data.text import normalize
from .joint import pair_credit, union_support
from .precedence import LabelKey, chosen_labels
from .scores import Breakdown, Cost, MetricEntry, QuestionScore, Scores

FAITHFULNESS_MISSING = "not computed (run score with --ragas)"
ANCHOR_LEVELS = ("document", "section", "page", "char")
Labels = Mapping[LabelKey, str]

PER_ANSWER = (
    "citation_validity",
    "citation_correctness",
    "citation_completeness",
    "anchor_accuracy",
    "version_correctness",
    "faithfulness",
    "quote_exactness",
    "number_support",
    "error_rate",
)
ABSTENTION = ("abstention_precision", "abstention_recall", "abstention_f1")
ALL_METRICS = (*PER_ANSWER, *ABSTENTION)


# --- support labels ------------------------------------------------------------------


def pick_labels(judgments: Iterable[Judgment], auto_source: str | None) -> dict[LabelKey, str]:
    """One label per (question, claim, evidence, field) by the precedence of DESIGN 5
    (evals.precedence): adjudicated, else the latest human, else the chosen auto judge; other
    auto judges are ignored."""
    return chosen_labels(judgments, auto_source)


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

    def to_row(self) -> QuestionScore:
        """The per_question.jsonl row."""
        return QuestionScore(
            question_id=self.question_id,
            risk_tier=self.risk_tier,
            tags=self.tags,
            status=self.status,
            **{name: _round(self.values.get(name)) for name in (*PER_ANSWER, *added_metrics([self]))},
            abstained=self.abstained,
            should_abstain=self.should_abstain,
            markers=self.markers,
            valid_markers=self.valid_markers,
            anchor_levels=self.anchor_levels,
            findings=self.findings,
            accepted=self.accepted,
            cost_usd=self.cost_usd,
            reasons=self.reasons,
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
    """Level at which a valid marker meets a gold anchor of the same document, and whether it matches.

    A gold item that names only a page, on an edition without page information, can neither match
    nor mismatch: it is left out and the reason appended to `skipped`.
    """
    gold = check.question.gold
    chunk = marker.chunk
    if gold is None or chunk is None:
        return None
    best: tuple[str, bool] | None = None
    order = {level: rank for rank, level in enumerate(ANCHOR_LEVELS)}
    for g in gold.evidence:
        if g.document_id != chunk.document_id:
            continue
        same_edition = g.version_id is None or g.version_id == chunk.version_id
        if same_edition and g.page is not None and not g.quote and g.char_start is None:
            reason = registry.page_check_skip_reason(chunk.version_id)
            if reason is not None:
                if skipped is not None:
                    skipped.append(reason)
                continue
        level, match = "document", same_edition and g.page is None and g.quote is None and g.char_start is None
        if same_edition:
            span_hit = (
                g.char_start is not None
                and g.char_end is not None
                and chunk.char_start is not None
                and chunk.char_end is not None
                and g.char_start < chunk.char_end
                and chunk.char_start < g.char_end
            )
            quote_hit = bool(g.quote) and normalize(g.quote or "") in normalize(chunk.text)
            page_hit = (
                g.page is not None
                and chunk.page_start is not None
                and chunk.page_start <= g.page <= (chunk.page_end or chunk.page_start)
            )
            if span_hit or quote_hit:
                level, match = "char", True
            elif page_hit:
                level, match = "page", True
        if level == "document" and g.quote:
            # same section: the gold quote lies under the same heading path in the cited edition
            siblings = [c for c in registry.chunks_of(chunk.version_id) if c.heading_path == chunk.heading_path]
            if any(normalize(g.quote) in normalize(c.text) for c in siblings):
                level = "section"
        if best is None or (match, order[level]) > (best[1], order[best[0]]):
            best = (level, match)
    return best


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
    (leave-one-out, evals.joint.pair_credit)."""
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
    or the union of its valid cited evidence does: evals.joint.union_support), "unsupported"
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


def faithfulness_outcome(faithfulness: float | None) -> MetricOutcome:
    return MetricOutcome(faithfulness, None if faithfulness is not None else FAITHFULNESS_MISSING)


def quote_exactness(check: AnswerCheck) -> MetricOutcome:
    quotes = [cc.quote_ok for cc in check.claims if cc.quote_ok is not None]
    return _outcome(sum(quotes), len(quotes), "no claim carries a quote")


def number_support(check: AnswerCheck) -> MetricOutcome:
    numbers = [cc.numbers_ok for cc in check.claims if cc.numbers_ok is not None]
    return _outcome(sum(numbers), len(numbers), "no claim carries a number")


def context_support(verdicts: Sequence[str]) -> MetricOutcome:
    """Claims the retrieved context supports / claims judged against it (evals.context_support):
    partial and unsupported count 0, cannot_judge is left out."""
    judged = [v for v in verdicts if v in ("supported", "partial", "unsupported")]
    return _outcome(judged.count("supported"), len(judged), "no claim could be judged against the retrieved context")


def accepted(check: AnswerCheck, labels: Labels, states: Sequence[str]) -> bool | None:
    """Whether the answer could be shown as is: no integrity finding, not one it should have
    refused, and every significant claim supported; None while its pairs are unlabelled."""
    q = check.question
    integrity = [f for f in check.findings if f.code not in ("SHOULD_HAVE_ABSTAINED", "UNNEEDED_ABSTENTION")]
    if integrity or (q.gold and q.gold.should_abstain):
        return False
    if any((q.question_id, m.claim_id, m.evidence_id, "support") in labels for m in check.markers):
        return all(s in ("not_significant", "supported") for s in states) and bool(check.claims)
    return None


def score_answer(
    check: AnswerCheck,
    labels: Labels,
    registry: Registry,
    faithfulness: float | None = None,
) -> AnswerScore:
    """The per-answer metrics of one checked answer, with the labels chosen by pick_labels."""
    q, a = check.question, check.answer
    s = AnswerScore(question_id=q.question_id, risk_tier=q.risk_tier, tags=list(q.tags), status=a.status)
    s.findings = sorted(f.code for f in check.findings)
    s.should_abstain = q.gold.should_abstain if q.gold else None
    s.cost_usd = a.usage.cost_usd if a.usage else None
    s.values["error_rate"] = 1.0 if a.status == "error" else 0.0
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
    }
    for name, outcome in outcomes.items():
        s.values[name] = outcome.value
        if outcome.reason is not None:
            s.reasons[name] = outcome.reason
    s.accepted = accepted(check, labels, states)
    return s


# --- run level -----------------------------------------------------------------------


def mean_metric(values: Sequence[float | None], seed: int = SEED) -> dict[str, Any]:
    """Mean over the answers where the metric applies, with a percentile bootstrap interval."""
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
    n = len(pairs)
    if n == 0:
        reason = "no non-error question with gold should_abstain"
        return {name: {"value": None, "ci": None, "n": 0, "reason": reason} for name in ABSTENTION}
    pred = np.array([p for p, _ in pairs], dtype=np.float64)
    gold = np.array([g for _, g in pairs], dtype=np.float64)
    point = _abstention_stats(np.array([(pred * gold).sum()]), np.array([pred.sum()]), np.array([gold.sum()]))
    # resampling questions = drawing counts of the four (abstained, should_abstain) cells
    cells = np.array([p * 2 + g for p, g in zip(pred, gold, strict=True)], dtype=np.int64)
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


def aggregate(scores: Sequence[AnswerScore], seed: int = SEED) -> dict[str, MetricEntry]:
    """Every metric of DESIGN 6 over a set of answers."""
    names = (*PER_ANSWER, *added_metrics(scores))
    out = {name: mean_metric([s.values.get(name) for s in scores], seed) for name in names}
    # error_rate is over every question
    pairs = [
        (bool(s.abstained), bool(s.should_abstain))
        for s in scores
        if s.abstained is not None and s.should_abstain is not None
    ]
    out.update(abstention_metrics(pairs, seed))
    if out["faithfulness"]["value"] is None:
        out["faithfulness"]["reason"] = FAITHFULNESS_MISSING
    return {name: MetricEntry.model_validate(entry) for name, entry in out.items()}


def run_cost(scores: Sequence[AnswerScore]) -> Cost:
    """Total cost and cost per accepted answer (null with a reason when it cannot be known)."""
    costs = [s.cost_usd for s in scores if s.cost_usd is not None]
    accepted_n = sum(1 for s in scores if s.accepted)
    decided = sum(1 for s in scores if s.accepted is not None)
    answered = sum(1 for s in scores if s.status == "answered")
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


def build_scores(scores: Sequence[AnswerScore], seed: int = SEED) -> Scores:
    """The metric part of scores.json: metrics, by_tier, by_tag, anchor levels, findings and cost
    (the scoring stage adds the run's identity, judges and provenance)."""
    tiers = sorted({s.risk_tier for s in scores})
    tags = sorted({t for s in scores for t in s.tags})
    levels = Counter(level for s in scores for level in s.anchor_levels)
    findings = Counter(code for s in scores for code in s.findings)
    return Scores(
        n_questions=len(scores),
        metrics=aggregate(scores, seed),
        by_tier={t: breakdown([s for s in scores if s.risk_tier == t], seed) for t in tiers},
        by_tag={t: breakdown([s for s in scores if t in s.tags], seed) for t in tags},
        anchor_level={k: levels.get(k, 0) for k in ANCHOR_LEVELS},
        findings=dict(sorted(findings.items())),
        findings_by_tier={t: dict(Counter(c for s in scores if s.risk_tier == t for c in s.findings)) for t in tiers},
        cost=run_cost(scores),
    )


_BODY = ("n_questions", "metrics", "by_tier", "by_tag", "anchor_level", "findings", "findings_by_tier", "cost")


def scores_document(scores: Sequence[AnswerScore], seed: int = SEED) -> dict[str, Any]:
    """The metric part of scores.json as JSON (see build_scores)."""
    doc = build_scores(scores, seed).to_json()
    return {key: doc[key] for key in _BODY}


def breakdown(subset: Sequence[AnswerScore], seed: int) -> Breakdown:
    """One tier's or tag's metrics (on disk each also stands at the top of the entry)."""
    return Breakdown(n=len(subset), metrics=aggregate(subset, seed))
