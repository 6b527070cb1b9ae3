"""The one metric table: every metric of scores.json (DESIGN 6 and citeval's additions), in the
order scores.json lists them.

Each entry says which way is better, how a run aggregates it (the mean over the answers it
applies to, or a run-level ratio such as the abstention metrics), its unit, the line a user
reads about it, and the function of the score stage that computes it. Gates, compare, the
report and every other module name a metric through the constants below and take directions
and display order from the table; only this module and evals.score.metrics (which computes
them) spell the names. A base layer imports no stage, so each function is given by its
qualified name and looked up on first use (`Metric.function()`).

docs/reference/metrics.md is `markdown_table()` (tests/test_reference_docs.py keeps it so).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from evals.contract.qualname import resolve

Direction = Literal["higher", "lower"]  # which values are better
Aggregation = Literal["mean", "ratio"]  # mean over answers, or one ratio over the run's questions

CITATION_VALIDITY = "citation_validity"
CITATION_CORRECTNESS = "citation_correctness"
CITATION_COMPLETENESS = "citation_completeness"
ANCHOR_ACCURACY = "anchor_accuracy"
VERSION_CORRECTNESS = "version_correctness"
FAITHFULNESS = "faithfulness"
CONTEXT_SUPPORT = "context_support"
QUOTE_EXACTNESS = "quote_exactness"
NUMBER_SUPPORT = "number_support"
KEY_FACT_RECALL = "key_fact_recall"
GOLD_EVIDENCE_RECALL = "gold_evidence_recall"
ERROR_RATE = "error_rate"
ABSTENTION_PRECISION = "abstention_precision"
ABSTENTION_RECALL = "abstention_recall"
ABSTENTION_F1 = "abstention_f1"

_COMPUTE = "evals.score.metrics."


@dataclass(frozen=True)
class Metric:
    name: str
    better: Direction
    aggregation: Aggregation
    unit: str  # what the value is a share of (every metric lies in 0..1)
    description: str  # one line for a user
    computed_by: str  # qualified name of the function that computes it

    @property
    def lower_is_better(self) -> bool:
        return self.better == "lower"

    def function(self) -> Callable[..., Any]:
        """The function that computes the metric (imports the score stage on first use)."""
        found = resolve(self.computed_by)
        if not callable(found):
            raise TypeError(f"{self.computed_by} is not a function")
        return found  # type: ignore[no-any-return]


METRICS: tuple[Metric, ...] = (
    Metric(CITATION_VALIDITY, "higher", "mean", "fraction of citation markers",
           "markers whose evidence the model was given and resolves to a registry chunk the user could read "
           "at asked_at, of an edition not deleted, any link to it built from the registry",
           _COMPUTE + "citation_validity"),
    Metric(CITATION_CORRECTNESS, "higher", "mean", "fraction of judged (claim, cited evidence) pairs",
           "pairs whose evidence supports the claim alone, or without which the claim's cited evidence "
           "together no longer does; partial support and invalid markers count 0, cannot_judge is left out",
           _COMPUTE + "citation_correctness"),
    Metric(CITATION_COMPLETENESS, "higher", "mean", "fraction of significant claims",
           "significant claims their valid cited evidence supports (taken together); an uncited claim counts 0",
           _COMPUTE + "citation_completeness"),
    Metric(ANCHOR_ACCURACY, "higher", "mean", "fraction of valid markers to a gold document",
           "markers whose anchor (edition, page, span or quote) matches a gold anchor of that document; "
           "a human anchor label decides",
           _COMPUTE + "anchor_accuracy"),
    Metric(VERSION_CORRECTNESS, "higher", "mean", "fraction of answers with a marker naming an edition",
           "answers whose every such marker names an edition in force at asked_at (or a superseded one, "
           "with a stale notice) and whose links open no other edition",
           _COMPUTE + "version_correctness"),
    Metric(FAITHFULNESS, "higher", "mean", "fraction of the answer's statements (Ragas)",
           "Ragas faithfulness: statements of the answer the retrieved contexts support (score with --ragas)",
           _COMPUTE + "faithfulness_outcome"),
    Metric(CONTEXT_SUPPORT, "higher", "mean", "fraction of judged claims",
           "claims the answer's retrieved evidence supports, cited or not; partial and unsupported count 0",
           _COMPUTE + "context_support"),
    Metric(QUOTE_EXACTNESS, "higher", "mean", "fraction of claims with a quote",
           "claims whose normalized quote occurs in a cited chunk",
           _COMPUTE + "quote_exactness"),
    Metric(NUMBER_SUPPORT, "higher", "mean", "fraction of claims with numbers",
           "claims whose every number occurs in their valid cited evidence",
           _COMPUTE + "number_support"),
    Metric(KEY_FACT_RECALL, "higher", "mean", "fraction of gold key facts",
           "gold key facts the answer states (a number by its value and unit, in digits or words)",
           _COMPUTE + "key_fact_recall"),
    Metric(GOLD_EVIDENCE_RECALL, "higher", "mean", "fraction of gold evidence items",
           "gold evidence items a valid marker reaches (same document; same edition and place where gold "
           "names them)",
           _COMPUTE + "gold_evidence_recall"),
    Metric(ERROR_RATE, "lower", "mean", "fraction of questions",
           "questions the backend answered with an error",
           _COMPUTE + "error_rate"),
    Metric(ABSTENTION_PRECISION, "higher", "ratio", "fraction of abstentions",
           "abstentions on questions gold says to refuse, over questions with gold should_abstain that did "
           "not error",
           _COMPUTE + "abstention_metrics"),
    Metric(ABSTENTION_RECALL, "higher", "ratio", "fraction of questions gold says to refuse",
           "of those questions, the ones the system refused (over questions with gold should_abstain that did "
           "not error)",
           _COMPUTE + "abstention_metrics"),
    Metric(ABSTENTION_F1, "higher", "ratio", "harmonic mean of two fractions",
           "harmonic mean of the abstention precision and recall",
           _COMPUTE + "abstention_metrics"),
)

BY_NAME: dict[str, Metric] = {m.name: m for m in METRICS}
METRIC_NAMES: tuple[str, ...] = tuple(BY_NAME)
# averaged over the answers they apply to (per_question.jsonl holds each answer's value)
PER_ANSWER_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS if m.aggregation == "mean")
# one ratio over the run's questions (abstaining as the positive class), none per answer
RUN_LEVEL_METRICS: tuple[str, ...] = tuple(m.name for m in METRICS if m.aggregation == "ratio")
LOWER_IS_BETTER: frozenset[str] = frozenset(m.name for m in METRICS if m.lower_is_better)


def metric(name: str) -> Metric:
    """The table's entry of a metric; KeyError naming the known metrics for any other name."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown metric {name!r} (known: {', '.join(METRIC_NAMES)})") from None


def markdown_table() -> str:
    """docs/reference/metrics.md: the table as a user reads it."""
    lines = [
        "# Metrics of scores.json",
        "",
        "Generated from `evals/contract/metrics.py` (the one metric table); regenerate with",
        "`python3 scripts/reference_docs.py`. Every value lies in 0..1. `mean`: the mean over the",
        "answers the metric applies to, with a 95 % bootstrap interval over questions; `ratio`: one",
        "ratio over the run's questions, its interval a bootstrap over those questions.",
        "",
        "| metric | better | aggregation | unit | what it measures | computed by |",
        "|---|---|---|---|---|---|",
    ]
    lines += [
        f"| `{m.name}` | {m.better} | {m.aggregation} | {m.unit} | {m.description} | `{m.computed_by}` |"
        for m in METRICS
    ]
    return "\n".join(lines) + "\n"
