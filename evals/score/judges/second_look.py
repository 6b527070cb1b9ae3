"""A second look at a Russian rule's flag: how often, on pairs no rule was written from, a claim
that rule flagged, with this much of its wording held, was in fact supported.

The rules are read in the verdict's order and the first that fires decides. On the sets they
were written from they look nearly exact, but on sets met for the first time a flag is wrong far
more often, and by rule: a changed number almost never, an added-detail or low-coverage flag one
time in three (docs/explanation/judges.md). A logistic model over which rule decided and the
overlap measures (coverage, bigram share, matched words, missing words, claim length) gives
P(supported | flag); where it reaches the shipped threshold the verdict is turned to supported,
the rule's reason kept in the new one. The threshold is the one that maximised binary macro-F1
on the fitting pairs (supported is the smaller class, so it sits below one half).

The model is fitted on bench/judge_ru_firstruns.jsonl: each pair of the fresh rounds
(fifth and sixth sessions, 1,200 pairs) as the judge of the day first ran it (before any rule was written from it), by
bench/judge_second_look.py, which also reports each round predicted by a model fitted on the
other rounds; bench/judge_firstruns_log.py rebuilds the log from those commits. This module
imports nothing of the package at load time, so that script can read an old checkout's
features through it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

LOW_COVERAGE = "low_coverage"
DETAIL_ADDED = "detail_added"
SUPPORTED = "supported"
OVERLAP = ("coverage", "share", "log_matched", "missing_words_fifths", "log_tokens")
# Flags the second look leaves as they are: the log saw modifier_conflict fire as an open rule
# (12 of its 18 flags supported); since 2026-12-07 it fires only on kinds that exclude one
# another, another rule the log has not seen.
NOT_REVIEWED = frozenset({"modifier_conflict"})


def rule_kind(features: Any, hard_rules: Sequence[str], partial_rules: Sequence[str], partial_coverage: float) -> str:
    """The rule that decided a Russian verdict, in decide_russian's order: the first hard rule
    that fired, else low coverage, else the first partial rule, else the added detail, else
    "supported". The shipped floors are equal (RU_PARAMS: min_coverage = partial_coverage), so
    no claim is partial by the min_coverage floor alone; were they to differ, such a claim would
    read "supported" here (bench/judge_firstruns_log.py asserts they agree on every pair)."""
    for name in hard_rules:
        if getattr(features, name, None):
            return name
    if features.coverage < partial_coverage:
        return LOW_COVERAGE
    for name in partial_rules:
        if getattr(features, name, None):
            return name
    if getattr(features, DETAIL_ADDED, None):
        return DETAIL_ADDED
    return SUPPORTED


def overlap(features: Any) -> list[float]:
    """The overlap measures, in OVERLAP's order."""
    share = features.matched / features.tokens if features.tokens else 0.0
    return [float(features.coverage), share, math.log1p(features.matched), len(features.missing_words) / 5,
            math.log1p(features.tokens)]


def vector(kind: str, measures: Sequence[float], kinds: Sequence[str]) -> list[float]:
    """One-hot of the deciding rule over kinds (an unknown one is all zeros), then the measures."""
    return [1.0 if kind == k else 0.0 for k in kinds] + [float(m) for m in measures]


def probability(kind: str, measures: Sequence[float], table: dict[str, Any]) -> float:
    """P(supported) of a flag, by the model in table ({kinds, weights, bias})."""
    terms = zip(table["weights"], vector(kind, measures, table["kinds"]), strict=True)
    z = table["bias"] + sum(w * x for w, x in terms)
    return 1.0 / (1.0 + math.exp(-z)) if z >= 0 else math.exp(z) / (1.0 + math.exp(z))


def overturning(kind: str, measures: Sequence[float], table: dict[str, Any]) -> float | None:
    """P(supported) of a flag of this rule, with these measures, when the second look calls it
    supported; None when the flag stands."""
    if kind == SUPPORTED or kind in NOT_REVIEWED:
        return None
    p = probability(kind, measures, table)
    return p if p >= float(table["threshold"]) else None


def shipped() -> dict[str, Any]:
    from evals.score.judges.second_look_table import SECOND_LOOK

    return SECOND_LOOK
