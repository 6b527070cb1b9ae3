"""Tune the reference backend's abstention threshold on a dataset (default: the demo).

    python bench/reference_tuning.py [DATASET]

For each threshold prints abstention precision / recall / F1 against gold should_abstain,
and hit@1 (the first evidence is from a gold edition) on the answered questions that have
gold evidence. The shipped DEFAULT_THRESHOLD is the best F1 here, ties to the lower one.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import datetime, timezone
from pathlib import Path

from evals.data.registry import Registry
from evals.run.backends.reference import DEFAULT_THRESHOLD, TIER_THRESHOLDS, ReferenceBackend
from evals.run.runner import load_questions


def main() -> None:
    dataset = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "datasets" / "demo"
    registry = Registry.load(dataset)
    questions = load_questions(dataset)
    backend = ReferenceBackend(registry, threshold=0.0, tier_thresholds={})
    now = datetime.now(timezone.utc)
    best_scores, hits, tiers = [], [], []
    for q in questions:
        answer = asyncio.run(backend.answer(q, q.asked_at or now))
        best = answer.raw["scores"][0] if answer.raw and answer.raw.get("scores") else 0.0
        gold_versions = {e.version_id for e in (q.gold.evidence if q.gold else [])}
        first = answer.evidence[0].version_id if answer.evidence else None
        best_scores.append((best, bool(q.gold and q.gold.should_abstain)))
        tiers.append(q.risk_tier)
        hits.append(first in gold_versions if gold_versions else None)
    print(f"{'threshold':>9} {'precision':>9} {'recall':>7} {'f1':>6} {'hit@1':>6} answered")
    for t in [x / 2 for x in range(0, 31)]:
        tp = sum(s < t and gold for s, gold in best_scores)
        fp = sum(s < t and not gold for s, gold in best_scores)
        fn = sum(s >= t and gold for s, gold in best_scores)
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        answered = [h for (s, _), h in zip(best_scores, hits, strict=True) if s >= t and h is not None]
        hit = sum(answered) / len(answered) if answered else 0.0
        mark = "  <- shipped" if t == DEFAULT_THRESHOLD else ""
        print(f"{t:9.1f} {p:9.2f} {r:7.2f} {f1:6.2f} {hit:6.2f} {len(answered):4d}{mark}")
    tier_sweep(best_scores, tiers, "critical")




def tier_sweep(best_scores: list[tuple[float, bool]], tiers: list[str], tier: str) -> None:
    print(f"\n{tier} questions only: refused / should-abstain answered / answerable refused")
    rows = [row for row, t in zip(best_scores, tiers, strict=True) if t == tier]
    for t in (3.0, 3.5, 4.0, 4.5, 5.0):
        tp = sum(s < t and gold for s, gold in rows)
        fn = sum(s >= t and gold for s, gold in rows)
        fp = sum(s < t and not gold for s, gold in rows)
        mark = "  <- shipped" if TIER_THRESHOLDS.get(tier) == t else ""
        print(f"{t:9.1f} refused {tp} of {tp + fn} should-abstain; answered {fn}; answerable refused {fp}{mark}")


if __name__ == "__main__":
    main()
