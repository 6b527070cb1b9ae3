"""Placement metrics of DESIGN 9, threshold sweeps and tuning, and the paired comparison of
matchers over the same citations.

A matcher runs once per answer and offers one place per citation with a score; every
threshold (the default, a given one, each step of a sweep, the tuned one) is applied
afterwards to those offers, so a sweep costs no extra matching.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evals.contract.quotes import (
    KindPlacement,
    MatcherSummary,
    Placement,
    QuoteAnswer,
    QuotesDocument,
    Span,
)
from evals.errors import UsageError
from evals.quotes.boundaries import IOU_CORRECT, iou
from evals.quotes.cascade import tune_cascade
from evals.quotes.fragments import split_fragments
from evals.quotes.matchers import BASELINE, DEFAULT, Matcher, get_matcher, parse_matchers
from evals.stats.bootstrap import RESAMPLES, SEED, percentile_interval, resample_counts
from evals.store.jsonl import write_json_atomic, write_jsonl_atomic
from evals.store.quotes import quote_files, read_quotes

MAX_WRONG_PLACE_RATE = 0.05  # the tuning limit: a wrong place is worse than none
HELDOUT_SHARE = 3  # one answer in three (by a hash of answer_id) is never tuned on
CV_FOLDS = 5
ALPHA = 0.05
METRICS = ("placement_accuracy", "wrong_place_rate", "coverage", "false_injection_rate", "mean_iou")


@dataclass(frozen=True)
class Offer:
    """One citation's gold and one matcher's offer for it."""

    answer: int  # index of the answer (the bootstrap's unit)
    answer_id: str
    citation_id: str
    has_gold: bool  # a gold entry exists (its span may be null)
    gold: Span | None
    kind: str | None
    placement: Placement
    kinds: tuple[str, ...] = ()  # every hard case the citation tests (the gold's `kinds`, else its `kind`)


@dataclass
class MatcherRun:
    name: str
    default_threshold: float
    offers: list[Offer]
    latency_us: list[float]

    def latency(self) -> dict[str, int | None]:
        if not self.latency_us:
            return {"p50": None, "p95": None}
        p50, p95 = np.percentile(np.array(self.latency_us), [50, 95])
        return {"p50": int(round(p50)), "p95": int(round(p95))}


def run_matcher(matcher: Matcher, answers: Sequence[QuoteAnswer]) -> MatcherRun:
    """Every citation's offer from one matcher, timing each answer (all its citations)."""
    split_fragments.cache_clear()  # each matcher pays for splitting, as it would alone
    offers: list[Offer] = []
    latency: list[float] = []
    for index, answer in enumerate(answers):
        started = time.perf_counter_ns()
        placements = matcher.place(answer.answer_text, answer.citations)
        latency.append((time.perf_counter_ns() - started) / 1000)
        gold = answer.gold_by_citation()
        for citation, placement in zip(answer.citations, placements, strict=True):
            entry = gold.get(citation.citation_id)
            offers.append(
                Offer(
                    index,
                    answer.answer_id,
                    citation.citation_id,
                    entry is not None,
                    entry.span if entry else None,
                    entry.kind if entry else None,
                    placement,
                    _kinds(entry),
                )
            )
    return MatcherRun(matcher.name, float(matcher.default_threshold), offers, latency)


def _kinds(entry: Any) -> tuple[str, ...]:
    if entry is None:
        return ()
    listed = (entry.model_extra or {}).get("kinds")
    if isinstance(listed, list) and all(isinstance(k, str) for k in listed):
        return tuple(listed)
    return (entry.kind,) if entry.kind else ()


# --- metrics --------------------------------------------------------------------------


def _counts(offers: Iterable[Offer], threshold: float, n_answers: int) -> dict[str, np.ndarray]:
    """Per answer: numerator and denominator counts of every metric."""
    keys = ("gold", "correct", "covered", "placed", "wrong", "null", "null_placed", "iou")
    c = {k: np.zeros(n_answers) for k in keys}
    for o in offers:
        if not o.has_gold:
            continue
        placed = o.placement.placed_at(threshold)
        a = o.answer
        if placed is not None:
            c["placed"][a] += 1
        if o.gold is None:
            c["null"][a] += 1
            if placed is not None:
                c["null_placed"][a] += 1
                c["wrong"][a] += 1
            continue
        overlap = iou(placed, o.gold)
        c["gold"][a] += 1
        c["iou"][a] += overlap
        if placed is not None:
            c["covered"][a] += 1
            if overlap >= IOU_CORRECT:
                c["correct"][a] += 1
            else:
                c["wrong"][a] += 1
    return c


_RATIOS = {
    "placement_accuracy": ("correct", "gold", "no citation with a gold span"),
    "wrong_place_rate": ("wrong", "placed", "nothing was placed"),
    "coverage": ("covered", "gold", "no citation with a gold span"),
    "false_injection_rate": ("null_placed", "null", "no citation with gold null"),
    "mean_iou": ("iou", "gold", "no citation with a gold span"),
}


def _ratio(
    num: np.ndarray, den: np.ndarray, weights: np.ndarray | None, reason: str, intervals: bool = True
) -> dict[str, Any]:
    total = float(den.sum())
    if total == 0:
        return {"value": None, "ci": None, "n": 0, "reason": reason}
    out: dict[str, Any] = {"value": round(float(num.sum()) / total, 6), "n": int(total)}
    if not intervals:
        return out
    if weights is None or len(num) < 2:
        out["ci"], out["ci_reason"] = None, "one answer: no interval"
        return out
    with np.errstate(divide="ignore", invalid="ignore"):
        samples = (weights @ num) / (weights @ den)  # a resample without a denominator is NaN
    out["ci"], ci_reason = percentile_interval(samples)
    if ci_reason:
        out["ci_reason"] = ci_reason
    return out


def placement_metrics(
    offers: Sequence[Offer], threshold: float, n_answers: int, seed: int = SEED, intervals: bool = True
) -> dict[str, dict[str, Any]]:
    """The five ratios of DESIGN 9, each `{value, ci, n}` with a percentile bootstrap interval
    over answers (fixed seed); n is the ratio's denominator in citations."""
    counts = _counts(offers, threshold, n_answers)
    weights = resample_counts(n_answers, seed, RESAMPLES) if intervals and n_answers > 1 else None
    return {
        name: _ratio(counts[num], counts[den], weights, reason, intervals)
        for name, (num, den, reason) in _RATIOS.items()
    }


def correct_at(offer: Offer, threshold: float) -> bool:
    """The outcome McNemar compares: placed in the right place, or rightly left out."""
    placed = offer.placement.placed_at(threshold)
    if offer.gold is None:
        return placed is None
    return placed is not None and iou(placed, offer.gold) >= IOU_CORRECT


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> dict[str, Any]:
    """Exact McNemar test (two-sided binomial on the discordant citations)."""
    from scipy.stats import binomtest

    a_only = sum(1 for x, y in zip(a, b, strict=True) if x and not y)
    b_only = sum(1 for x, y in zip(a, b, strict=True) if y and not x)
    discordant = a_only + b_only
    p_value = 1.0 if discordant == 0 else float(binomtest(a_only, discordant, 0.5).pvalue)
    return {
        "n": len(a),
        "a_correct": sum(a),
        "b_correct": sum(b),
        "a_only": a_only,
        "b_only": b_only,
        "p_value": round(p_value, 6),
        "significant": p_value < ALPHA,
        "method": "exact McNemar (two-sided binomial test on the discordant citations)",
    }


def compare(run_a: MatcherRun, threshold_a: float, run_b: MatcherRun, threshold_b: float) -> dict[str, Any]:
    """Paired comparison of two matchers over the citations with gold that both scored."""
    a = [correct_at(o, threshold_a) for o in run_a.offers if o.has_gold]
    b = [correct_at(o, threshold_b) for o in run_b.offers if o.has_gold]
    return {"a": run_a.name, "b": run_b.name, **mcnemar(a, b)}


# --- thresholds -----------------------------------------------------------------------


def sweep_thresholds(offers: Sequence[Offer]) -> list[float]:
    """0, 0.05, …, 1 for scores in [0, 1]; otherwise 21 quantiles of the offered scores."""
    scores = np.array([o.placement.score for o in offers if o.placement.score is not None])
    if len(scores) == 0 or (scores.min() >= 0 and scores.max() <= 1):
        return [round(x, 2) for x in np.linspace(0, 1, 21)]
    return sorted({round(float(q), 3) for q in np.quantile(scores, np.linspace(0, 1, 21))})


def sweep(offers: Sequence[Offer], n_answers: int, thresholds: Sequence[float] | None = None) -> list[dict[str, Any]]:
    """placement_accuracy, wrong_place_rate, coverage and false_injection_rate at each threshold."""
    rows = []
    for threshold in thresholds if thresholds is not None else sweep_thresholds(offers):
        metrics = placement_metrics(offers, threshold, n_answers, intervals=False)
        row: dict[str, Any] = {"threshold": threshold}
        for name in ("placement_accuracy", "wrong_place_rate", "coverage", "false_injection_rate"):
            row[name] = metrics[name]["value"]
        rows.append(row)
    return rows


def tune_threshold(offers: Sequence[Offer], max_wrong: float = MAX_WRONG_PLACE_RATE) -> float:
    """The threshold with the highest placement_accuracy whose wrong_place_rate ≤ max_wrong
    (ties: the higher threshold, which places less); if none keeps the limit, the one with the
    lowest wrong_place_rate. Candidates are the scores offered, so the choice is exact."""
    scored = [o for o in offers if o.has_gold and o.placement.score is not None]
    if not scored:
        return 0.0
    candidates = sorted({o.placement.score for o in scored if o.placement.score is not None})
    candidates.append(candidates[-1] + 1e-6)  # above every score: place nothing
    n = max(o.answer for o in offers) + 1
    best: tuple[float, float, float] | None = None  # (accuracy, threshold) within the limit
    fallback: tuple[float, float, float] | None = None
    for threshold in candidates:
        c = _counts(scored, threshold, n)
        gold, placed = c["gold"].sum(), c["placed"].sum()
        accuracy = c["correct"].sum() / gold if gold else 0.0
        wrong = c["wrong"].sum() / placed if placed else 0.0
        if wrong <= max_wrong:
            key = (accuracy, threshold, 0.0)
            if best is None or key > best:
                best = key
        key_f = (-wrong, accuracy, threshold)
        if fallback is None or key_f > fallback:
            fallback = key_f
    if best is not None:
        return float(best[1])
    assert fallback is not None
    return float(fallback[2])


def _bucket(answer_id: str, buckets: int) -> int:
    return int(hashlib.sha256(answer_id.encode("utf-8")).hexdigest()[:8], 16) % buckets


def is_heldout(answer_id: str) -> bool:
    """The fixed held-out part: answers never used to tune a default threshold."""
    return _bucket(answer_id, HELDOUT_SHARE) == 0


def _renumber(offers: Sequence[Offer]) -> tuple[list[Offer], int]:
    index: dict[int, int] = {}
    out = []
    for o in offers:
        new = index.setdefault(o.answer, len(index))
        out.append(Offer(new, o.answer_id, o.citation_id, o.has_gold, o.gold, o.kind, o.placement, o.kinds))
    return out, len(index)


def tuning_report(run: MatcherRun, seed: int = SEED) -> dict[str, Any]:
    """Tune on the tuning part, report there and on the held-out part; plus 5-fold
    cross-validation (tune on four folds, count on the fifth, pooled)."""
    tune, n_tune = _renumber([o for o in run.offers if not is_heldout(o.answer_id)])
    held, n_held = _renumber([o for o in run.offers if is_heldout(o.answer_id)])
    threshold = tune_threshold(tune)
    pooled = {k: 0.0 for k in ("correct", "gold", "wrong", "placed", "covered")}
    for fold in range(CV_FOLDS):
        train = [o for o in run.offers if _bucket(o.answer_id + "#cv", CV_FOLDS) != fold]
        test = [o for o in run.offers if _bucket(o.answer_id + "#cv", CV_FOLDS) == fold]
        if not train or not test:
            continue
        train_r, _ = _renumber(train)
        test_r, n_test = _renumber(test)
        c = _counts(test_r, tune_threshold(train_r), n_test)
        for key in pooled:
            pooled[key] += float(c[key].sum())
    cv = {
        "placement_accuracy": round(pooled["correct"] / pooled["gold"], 6) if pooled["gold"] else None,
        "wrong_place_rate": round(pooled["wrong"] / pooled["placed"], 6) if pooled["placed"] else None,
        "coverage": round(pooled["covered"] / pooled["gold"], 6) if pooled["gold"] else None,
        "folds": CV_FOLDS,
    }
    return {
        "threshold": round(threshold, 6),
        "tuned": placement_metrics(tune, threshold, n_tune, seed) if n_tune else None,
        "heldout": placement_metrics(held, threshold, n_held, seed) if n_held else None,
        "cv": cv,
        "answers": {"tuned": n_tune, "heldout": n_held},
    }


# --- the whole evaluation ---------------------------------------------------------------


@dataclass
class QuoteEvaluation:
    answers: Sequence[QuoteAnswer]
    runs: list[MatcherRun]
    thresholds: dict[str, float]
    threshold_source: str  # default | given
    seed: int = SEED
    with_sweep: bool = False
    with_tuning: bool = False
    files: list[str] = field(default_factory=list)

    def document(self) -> QuotesDocument:
        """quotes.json: each matcher's metrics, the comparisons, the hard cases, sweep and tuning."""
        n = len(self.answers)
        matchers: dict[str, MatcherSummary] = {}
        by_kind: dict[str, dict[str, KindPlacement]] = {}
        for run in self.runs:
            threshold = self.thresholds[run.name]
            matchers[run.name] = MatcherSummary.model_validate({
                **placement_metrics(run.offers, threshold, n, self.seed),
                "latency_us": run.latency(),
                "threshold": threshold,
                "threshold_source": self.threshold_source,
            })
            kinds = sorted({k for o in run.offers for k in o.kinds})
            by_kind[run.name] = {
                kind: _kind_metrics([o for o in run.offers if kind in o.kinds], threshold) for kind in kinds
            }
        doc: dict[str, Any] = {
            "matchers": matchers,
            "answers": n,
            "citations": sum(len(a.citations) for a in self.answers),
            "citations_with_gold": sum(1 for o in self.runs[0].offers if o.has_gold) if self.runs else 0,
            "iou_correct": IOU_CORRECT,
            "seed": self.seed,
            "files": self.files,
            "comparisons": self.comparisons(),
            "by_kind": by_kind,
        }
        if self.with_sweep:
            doc["sweep"] = {run.name: sweep(run.offers, n) for run in self.runs}
        if self.with_tuning:
            doc["tuning"] = {run.name: tuning_report(run, self.seed) for run in self.runs}
            if DEFAULT in doc["tuning"]:
                part = [a for a in self.answers if not is_heldout(a.answer_id)]
                doc["tuning"][DEFAULT]["cascade"] = tune_cascade(part, MAX_WRONG_PLACE_RATE)
        return QuotesDocument.model_validate(doc)

    def summary(self) -> dict[str, Any]:
        """quotes.json as written (and printed by --format json)."""
        return self.document().to_json()

    def comparisons(self) -> list[dict[str, Any]]:
        """Each matcher against the baseline (sequencematcher when evaluated, else the first)."""
        if len(self.runs) < 2:
            return []
        base = next((r for r in self.runs if r.name == BASELINE), self.runs[0])
        return [
            compare(base, self.thresholds[base.name], run, self.thresholds[run.name])
            for run in self.runs
            if run is not base
        ]

    def write(self, out_dir: Path | str, summary: QuotesDocument | dict[str, Any] | None = None) -> list[Path]:
        """quotes.json (the document, computed here unless given, or its JSON form) and
        placements.jsonl in out_dir, each written whole."""
        out = Path(out_dir)
        # first: an error leaves no file
        document = self.document() if summary is None else QuotesDocument.model_validate(summary)
        rows = list(self.placements())
        out.mkdir(parents=True, exist_ok=True)
        write_json_atomic(out / "quotes.json", document.to_json())
        write_jsonl_atomic(out / "placements.jsonl", rows)
        return [out / "quotes.json", out / "placements.jsonl"]

    def placements(self) -> Iterable[dict[str, Any]]:
        """placements.jsonl rows: the span each matcher placed at its threshold (or null)."""
        for run in self.runs:
            threshold = self.thresholds[run.name]
            for o in run.offers:
                placed = o.placement.placed_at(threshold)
                row: dict[str, Any] = {
                    "answer_id": o.answer_id,
                    "citation_id": o.citation_id,
                    "matcher": run.name,
                    "span": list(placed) if placed else None,
                    "score": o.placement.score,
                }
                if o.has_gold and o.gold is not None:
                    row["iou"] = round(iou(placed, o.gold), 6)
                yield row


def _kind_metrics(offers: Sequence[Offer], threshold: float) -> KindPlacement:
    renumbered, n = _renumber(offers)
    metrics = placement_metrics(renumbered, threshold, n, intervals=False)
    out: dict[str, Any] = {name: metrics[name]["value"] for name in METRICS}
    out["n"] = len(offers)
    out["correct"] = sum(correct_at(o, threshold) for o in offers)
    return KindPlacement.model_validate(out)


def evaluate_quotes(
    answers: Sequence[QuoteAnswer],
    matcher_names: Sequence[str | Matcher],
    threshold: float | None = None,
    sweep: bool = False,
    tune: bool = False,
    seed: int = SEED,
    files: Sequence[str] = (),
) -> QuoteEvaluation:
    """Run each matcher over every answer; thresholds are each matcher's default unless one
    is given for all."""
    matchers = [get_matcher(m) if isinstance(m, str) else m for m in matcher_names]
    runs = [run_matcher(m, answers) for m in matchers]
    thresholds = {r.name: (threshold if threshold is not None else r.default_threshold) for r in runs}
    return QuoteEvaluation(
        answers,
        runs,
        thresholds,
        "given" if threshold is not None else "default",
        seed,
        sweep,
        tune,
        list(files),
    )


def evaluate_path(
    path: Path | str,
    matchers: str = DEFAULT,
    threshold: float | None = None,
    sweep: bool = False,
    tune: bool = False,
    seed: int = SEED,
) -> QuoteEvaluation:
    """`citeval quotes eval`: a quotes file or a dataset's quotes/*.jsonl, the named matchers
    (comma-separated, or all; `default` unless told)."""
    if threshold is not None and not 0 <= threshold <= 1e9:
        raise UsageError(f"--threshold must be ≥ 0 (got {threshold})")
    chosen = [get_matcher(name) for name in parse_matchers(matchers)]  # a bad name fails before any reading
    files = [str(f) for f in quote_files(path)]
    answers = read_quotes(path)
    return evaluate_quotes(answers, chosen, threshold, sweep, tune, seed, files)
