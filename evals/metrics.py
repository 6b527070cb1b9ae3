"""Metrics of DESIGN 6: per answer first, then run means with 95 % bootstrap intervals over
questions, by risk tier and by tag. A value that cannot be computed is null with a reason."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .checks import AnswerCheck, MarkerCheck
from .data.models import Judgment
from .data.registry import Registry
from .data.text import normalize

SEED = 20240601
RESAMPLES = 2000
CONFIDENCE = 0.95
# Resamples in which a ratio is undefined are dropped; below this share there is no interval.
MIN_VALID = 0.9

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


def pick_labels(judgments: list[Judgment], auto_source: str | None) -> dict[tuple[Any, ...], str]:
    """One label per (question, claim, evidence, field): adjudicated, else the latest human, else the
    chosen auto judge (DESIGN 5). Other auto judges are ignored."""
    chosen: dict[tuple[Any, ...], tuple[int, Any, int, str]] = {}
    for order, j in enumerate(judgments):
        if j.source.startswith("auto:") and j.source != auto_source:
            continue
        key = (j.question_id, j.claim_id, j.evidence_id, j.field)
        rank = (j.source_rank(), j.at, order, j.value)
        if key not in chosen or rank[:3] > chosen[key][:3]:
            chosen[key] = rank
    return {key: rank[3] for key, rank in chosen.items()}


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

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {
            "question_id": self.question_id,
            "risk_tier": self.risk_tier,
            "tags": self.tags,
            "status": self.status,
        }
        row.update({name: _round(self.values.get(name)) for name in PER_ANSWER})
        row.update(
            {
                "abstained": self.abstained,
                "should_abstain": self.should_abstain,
                "markers": self.markers,
                "valid_markers": self.valid_markers,
                "anchor_levels": self.anchor_levels,
                "findings": self.findings,
                "accepted": self.accepted,
                "cost_usd": self.cost_usd,
            }
        )
        if self.reasons:
            row["reasons"] = self.reasons
        return row


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 6)


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _gold_anchor_level(check: AnswerCheck, marker: MarkerCheck, registry: Registry) -> tuple[str, bool] | None:
    """Level at which a valid marker meets a gold anchor of the same document, and whether it matches."""
    gold = check.question.gold
    chunk = marker.chunk
    if gold is None or chunk is None:
        return None
    best: tuple[str, bool] | None = None
    order = {"document": 0, "section": 1, "page": 2, "char": 3}
    for g in gold.evidence:
        if g.document_id != chunk.document_id:
            continue
        same_edition = g.version_id is None or g.version_id == chunk.version_id
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


def score_answer(
    check: AnswerCheck,
    labels: dict[tuple[Any, ...], str],
    registry: Registry,
    faithfulness: float | None = None,
) -> AnswerScore:
    """The per-answer metrics of one checked answer, with the labels chosen by pick_labels."""
    q, a = check.question, check.answer
    s = AnswerScore(question_id=q.question_id, risk_tier=q.risk_tier, tags=list(q.tags), status=a.status)
    s.findings = sorted(f.code for f in check.findings)
    s.should_abstain = q.gold.should_abstain if q.gold else None
    s.cost_usd = a.usage.cost_usd if a.usage else None
    v, why = s.values, s.reasons
    v["error_rate"] = 1.0 if a.status == "error" else 0.0
    if a.status != "error":
        s.abstained = a.status == "abstained"
    if a.status != "answered":
        for name in PER_ANSWER:
            if name != "error_rate":
                v[name] = None
        why["all"] = f"answer {a.status}"
        return s
    markers = check.markers
    s.markers = len(markers)
    s.valid_markers = sum(m.valid for m in markers)
    v["citation_validity"] = _ratio(s.valid_markers, s.markers)
    if not markers:
        why["citation_validity"] = "no citation markers"

    # correctness over (claim, cited evidence) pairs; invalid markers count 0, cannot_judge is left out
    judged = supported = 0
    for m in markers:
        label = labels.get((q.question_id, m.claim_id, m.evidence_id, "support"))
        if not m.valid:
            judged += 1
        elif label in ("supported", "partial", "unsupported"):
            judged += 1
            supported += label == "supported"
    v["citation_correctness"] = _ratio(supported, judged)
    if not judged:
        why["citation_correctness"] = "no judged (claim, evidence) pair" if markers else "no citation markers"

    # completeness over significant claims; an uncited claim counts 0
    significant = complete = 0
    all_supported = True
    for cc in check.claims:
        flag = labels.get((q.question_id, cc.claim.claim_id, None, "significant"))
        if flag == "no" or (flag is None and not cc.substantive):
            continue
        if not cc.markers:
            significant += 1
            all_supported = False
            continue
        pair_labels = [labels.get((q.question_id, cc.claim.claim_id, m.evidence_id, "support")) for m in cc.markers]
        if any(m.valid and lab == "supported" for m, lab in zip(cc.markers, pair_labels, strict=True)):
            significant += 1
            complete += 1
        elif any(lab in ("partial", "unsupported") for lab in pair_labels) or not any(m.valid for m in cc.markers):
            significant += 1
            all_supported = False
        else:
            all_supported = False  # not judged: left out of the ratio, and the answer cannot be accepted
    v["citation_completeness"] = _ratio(complete, significant)
    if not significant:
        why["citation_completeness"] = "no judged significant claim"

    # anchors: valid markers to gold documents; a human anchor label overrides
    to_gold = matched = 0
    for m in markers:
        if not m.valid:
            continue
        found = _gold_anchor_level(check, m, registry)
        if found is None:
            continue
        level, match = found
        if "ANCHOR_MISMATCH" in m.codes:
            level, match = "document", False  # the citation sends the reader to the wrong page
        human = labels.get((q.question_id, m.claim_id, m.evidence_id, "anchor"))
        if human == "na":
            continue
        if human in ("yes", "no"):
            match = human == "yes"
        to_gold += 1
        matched += match
        s.anchor_levels.append(level)
    v["anchor_accuracy"] = _ratio(matched, to_gold)
    if not to_gold:
        why["anchor_accuracy"] = "no valid marker to a gold document"

    resolved = [m for m in markers if m.edition is not None]
    if resolved:
        ok = (
            all(
                m.status is not None
                and (m.status.value == "active" or (m.status.value == "superseded" and a.stale_notice))
                for m in resolved
            )
            and not check.link_redirect
        )
        human = labels.get((q.question_id, None, None, "version_ok"))
        v["version_correctness"] = 1.0 if (human == "yes" if human else ok) else 0.0
    else:
        v["version_correctness"] = None
        why["version_correctness"] = "no marker names a registry edition"

    v["faithfulness"] = faithfulness
    if faithfulness is None:
        why["faithfulness"] = "not computed (run score with --ragas)"
    quotes = [cc.quote_ok for cc in check.claims if cc.quote_ok is not None]
    v["quote_exactness"] = _ratio(sum(quotes), len(quotes))
    if not quotes:
        why["quote_exactness"] = "no claim carries a quote"
    numbers = [cc.numbers_ok for cc in check.claims if cc.numbers_ok is not None]
    v["number_support"] = _ratio(sum(numbers), len(numbers))
    if not numbers:
        why["number_support"] = "no claim carries a number"

    integrity = [f for f in check.findings if f.code not in ("SHOULD_HAVE_ABSTAINED", "UNNEEDED_ABSTENTION")]
    has_labels = any((q.question_id, m.claim_id, m.evidence_id, "support") in labels for m in markers)
    if integrity or check.question.gold and check.question.gold.should_abstain:
        s.accepted = False
    elif has_labels:
        s.accepted = all_supported and bool(check.claims)
    else:
        s.accepted = None
    return s


# --- run level -----------------------------------------------------------------------


def bootstrap_weights(n: int, seed: int = SEED, resamples: int = RESAMPLES) -> np.ndarray:
    """Multinomial resample counts (resamples × n) of n questions drawn with replacement; for
    statistics that need the pairing of questions (run comparisons)."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(np.float64)


def bootstrap_means(x: np.ndarray, seed: int = SEED, resamples: int = RESAMPLES) -> np.ndarray:
    """Means of `resamples` bootstrap resamples of x (questions drawn with replacement).

    A resample's mean depends only on how often each distinct value is drawn, so the draws
    are made over the distinct values (multinomial with their frequencies): the same
    distribution as resampling questions, at a cost of resamples × distinct values.
    """
    values, counts = np.unique(x, return_counts=True)
    rng = np.random.default_rng(seed)
    n = len(x)
    if len(values) <= 512:
        draws = rng.multinomial(n, counts / n, size=resamples)
        return (draws @ values) / n
    out = np.empty(resamples)
    for start in range(0, resamples, 100):  # bounded memory for many distinct values
        idx = rng.integers(0, n, size=(min(100, resamples - start), n))
        out[start : start + len(idx)] = x[idx].mean(axis=1)
    return out


def _interval(samples: np.ndarray, resamples: int) -> tuple[list[float] | None, str | None]:
    finite = samples[np.isfinite(samples)]
    if len(finite) < MIN_VALID * resamples:
        return None, f"only {len(finite)} of {resamples} resamples defined"
    tail = (1 - CONFIDENCE) / 2 * 100
    lo, hi = np.percentile(finite, [tail, 100 - tail])
    return [round(float(lo), 6), round(float(hi), 6)], None


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
    out["ci"], reason = _interval(samples, len(samples))
    if reason:
        out["ci_reason"] = reason
    return out


def abstention_metrics(pairs: Sequence[tuple[bool, bool]], seed: int = SEED) -> dict[str, dict[str, Any]]:
    """Precision, recall and F1 of abstaining (positive class) against gold, as run-level ratios."""
    n = len(pairs)
    if n == 0:
        reason = "no non-error question with gold should_abstain"
        return {name: {"value": None, "ci": None, "n": 0, "reason": reason} for name in ABSTENTION}
    pred = np.array([p for p, _ in pairs], dtype=np.float64)
    gold = np.array([g for _, g in pairs], dtype=np.float64)
    tp_v, pred_v, gold_v = pred * gold, pred, gold

    def stats(tp: np.ndarray, pp: np.ndarray, gp: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        with np.errstate(divide="ignore", invalid="ignore"):
            precision = np.where(pp > 0, tp / np.where(pp > 0, pp, 1), np.nan)
            recall = np.where(gp > 0, tp / np.where(gp > 0, gp, 1), np.nan)
            denom = precision + recall
            f1 = np.where(denom > 0, 2 * precision * recall / np.where(denom > 0, denom, 1), np.nan)
            f1 = np.where(np.isnan(precision) | np.isnan(recall), np.nan, f1)
            # both zero with defined parts: F1 is 0
            f1 = np.where((denom == 0), 0.0, f1)
        return precision, recall, f1

    point = stats(np.array([tp_v.sum()]), np.array([pred_v.sum()]), np.array([gold_v.sum()]))
    # resampling questions = drawing counts of the four (abstained, should_abstain) cells
    cells = np.array([pred * 2 + gold for pred, gold in zip(pred_v, gold_v, strict=True)], dtype=np.int64)
    freq = np.bincount(cells, minlength=4) / n
    draws = np.random.default_rng(seed).multinomial(n, freq, size=RESAMPLES).astype(np.float64)
    boot = stats(draws[:, 3], draws[:, 2] + draws[:, 3], draws[:, 1] + draws[:, 3])
    reasons = {
        "abstention_precision": "the system never abstained",
        "abstention_recall": "no question should be refused",
        "abstention_f1": "precision or recall undefined",
    }
    out: dict[str, dict[str, Any]] = {}
    for name, value, samples in zip(ABSTENTION, point, boot, strict=True):
        val = float(value[0])
        if np.isnan(val):
            out[name] = {"value": None, "ci": None, "n": n, "reason": reasons[name]}
            continue
        ci, ci_reason = _interval(samples, RESAMPLES)
        out[name] = {"value": round(val, 6), "ci": ci, "n": n}
        if ci_reason:
            out[name]["ci_reason"] = ci_reason
    return out


def aggregate(scores: Sequence[AnswerScore], seed: int = SEED) -> dict[str, dict[str, Any]]:
    """Every metric of DESIGN 6 over a set of answers."""
    out = {name: mean_metric([s.values.get(name) for s in scores], seed) for name in PER_ANSWER}
    # error_rate is over every question
    pairs = [
        (bool(s.abstained), bool(s.should_abstain))
        for s in scores
        if s.abstained is not None and s.should_abstain is not None
    ]
    out.update(abstention_metrics(pairs, seed))
    for name in ("faithfulness",):
        if out[name]["value"] is None:
            out[name]["reason"] = "not computed (run score with --ragas)"
    return out


def scores_document(scores: Sequence[AnswerScore], seed: int = SEED) -> dict[str, Any]:
    """The body of scores.json: metrics, by_tier, by_tag, anchor levels, findings and cost."""
    tiers = sorted({s.risk_tier for s in scores})
    tags = sorted({t for s in scores for t in s.tags})
    levels = Counter(level for s in scores for level in s.anchor_levels)
    findings = Counter(code for s in scores for code in s.findings)
    findings_by_tier = {t: dict(Counter(c for s in scores if s.risk_tier == t for c in s.findings)) for t in tiers}
    costs = [s.cost_usd for s in scores if s.cost_usd is not None]
    accepted = [s for s in scores if s.accepted]
    decided = [s for s in scores if s.accepted is not None]
    total = round(sum(costs), 6) if costs else None
    answered = [s for s in scores if s.status == "answered"]
    all_decided = len(decided) >= len(answered)
    cost: dict[str, Any] = {"total_usd": total, "accepted_answers": len(accepted) if all_decided else None}
    if total is None:
        cost["per_accepted_answer_usd"], cost["reason"] = None, "the backend reported no cost"
    elif not all_decided:
        cost["per_accepted_answer_usd"] = None
        cost["reason"] = "support labels missing for some answers (score with a judge)"
    elif not accepted:
        cost["per_accepted_answer_usd"], cost["reason"] = None, "no answer was accepted"
    else:
        cost["per_accepted_answer_usd"] = round(total / len(accepted), 6)
    return {
        "n_questions": len(scores),
        "metrics": aggregate(scores, seed),
        "by_tier": {t: _breakdown([s for s in scores if s.risk_tier == t], seed) for t in tiers},
        "by_tag": {t: _breakdown([s for s in scores if t in s.tags], seed) for t in tags},
        "anchor_level": {k: levels.get(k, 0) for k in ("document", "section", "page", "char")},
        "findings": dict(sorted(findings.items())),
        "findings_by_tier": findings_by_tier,
        "cost": cost,
    }


def _breakdown(subset: Sequence[AnswerScore], seed: int) -> dict[str, Any]:
    """One tier's or tag's metrics. Each metric stands both at the top of the entry, mirroring
    `metrics.<name>` (by_tier.critical.citation_validity), and under `metrics`, so either
    reading of DESIGN 6 finds it."""
    metrics = aggregate(subset, seed)
    return {"n": len(subset), **metrics, "metrics": metrics}
