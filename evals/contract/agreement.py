"""What `citeval agree` writes (DESIGN 6): agreement.json (`AgreementDocument`).

    {"fields": {<field>: {n_units, n_pairable, raters, categories, percent_agreement, cohen_kappa,
                          krippendorff_alpha, gwet_ac1, fleiss_kappa?, <ordinal statistics>?,
                          confusion?, rater_counts, n_disagreements, disagreements}},
     "judge_agreement": {<auto judge>: {n, n_questions, cohen_kappa, accuracy, …}},
     "method": {"bootstrap": {…}, "definitions": {…}}}

each statistic `{value, ci: [lo, hi], n, reason?}` (value null with a reason when undefined);
`rater_time` ({source: {tasks, seconds_total, seconds_per_task: {median, p90}, tasks_per_hour}})
and `cost` (the round's rater-seconds and cost per accepted answer at `--hourly-rate`) come from
the labels' Label Studio lead_time.
Only `fields` is required when reading; unknown keys are kept. Built by evals.agreement, read by
the report (and by `agree` itself, which keeps an earlier judge_agreement when it rewrites).
"""

from __future__ import annotations

from pydantic import Field

from evals.contract.ordered import OrderedRecord, RateEntry

__all__ = [
    "AgreementDocument",
    "AgreementMethod",
    "AgreementStatistic",
    "BootstrapMethod",
    "Confusion",
    "DisagreementEntry",
    "FieldAgreementEntry",
    "JudgeAgreementEntry",
    "RaterTimeEntry",
    "RoundCostEntry",
    "SecondsPerTask",
]


class AgreementStatistic(RateEntry):
    """One agreement statistic over a field's units, with how it was computed where that varies:
    `level` of Krippendorff's alpha, `weights` of a weighted kappa, and for the ordinal statistics
    the `order` of the categories and the labels treated as `missing`."""

    level: str | None = None  # nominal | ordinal
    weights: str | None = None  # linear
    order: list[str] | None = None
    missing: list[str] | None = None
    note: str | None = None


class Confusion(OrderedRecord):
    """Two raters' labels against each other: counts[i][j] units the row rater labelled
    categories[i] and the column rater categories[j]."""

    rows: str
    columns: str
    categories: list[str]
    counts: list[list[int]]


class DisagreementEntry(OrderedRecord):
    """A unit the raters labelled differently, with the texts a person adjudicating it needs."""

    question_id: str
    claim_id: str | None = None
    evidence_id: str | None = None
    question: str | None = None
    claim: str | None = None
    labels: dict[str, str] = Field(default_factory=dict)  # rater → label
    adjudicated: str | None = None


class FieldAgreementEntry(OrderedRecord):
    """The human raters' agreement on one judgment field."""

    n_units: int = 0  # units labelled by at least one rater
    n_pairable: int = 0  # units labelled by two or more
    raters: list[str] = Field(default_factory=list)
    categories: list[str] = Field(default_factory=list)
    percent_agreement: AgreementStatistic = Field(default_factory=AgreementStatistic)
    cohen_kappa: AgreementStatistic = Field(default_factory=AgreementStatistic)
    krippendorff_alpha: AgreementStatistic = Field(default_factory=AgreementStatistic)
    gwet_ac1: AgreementStatistic = Field(default_factory=AgreementStatistic)
    fleiss_kappa: AgreementStatistic | None = None  # only with more than two raters
    krippendorff_alpha_ordinal: AgreementStatistic | None = None  # ordered fields (support)
    cohen_kappa_linear: AgreementStatistic | None = None  # ordered fields, two raters
    confusion: Confusion | None = None  # two raters
    rater_counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    n_disagreements: int = 0
    disagreements: list[DisagreementEntry] = Field(default_factory=list)


class JudgeAgreementEntry(OrderedRecord):
    """One auto judge against the human / adjudicated support labels of the same units."""

    n: int = 0
    n_questions: int = 0
    cohen_kappa: AgreementStatistic = Field(default_factory=AgreementStatistic)
    accuracy: AgreementStatistic = Field(default_factory=AgreementStatistic)
    unsupported_precision: AgreementStatistic = Field(default_factory=AgreementStatistic)
    unsupported_recall: AgreementStatistic = Field(default_factory=AgreementStatistic)
    reason: str | None = None
    units_tied: int | None = None


class BootstrapMethod(OrderedRecord):
    resamples: int
    seed: int
    confidence: float
    min_valid_fraction: float
    unit: str


class AgreementMethod(OrderedRecord):
    bootstrap: BootstrapMethod
    definitions: dict[str, str] = Field(default_factory=dict)


class AgreementDocument(OrderedRecord):
    """agreement.json."""

    fields: dict[str, FieldAgreementEntry]
    judge_agreement: dict[str, JudgeAgreementEntry] = Field(default_factory=dict)
    method: AgreementMethod | None = None
    rater_time: dict[str, RaterTimeEntry] = Field(default_factory=dict)  # source → time on the round
    cost: RoundCostEntry | None = None


class SecondsPerTask(OrderedRecord):
    """Seconds a rater spent per task (Label Studio's lead_time): median and 90th percentile
    (linear interpolation between order statistics, as numpy's default)."""

    median: float | None = None
    p90: float | None = None
    reason: str | None = None


class RaterTimeEntry(OrderedRecord):
    """One rater's (or the adjudicator's) time on the round."""

    tasks: int = 0  # tasks whose labels carry a lead_time
    tasks_without_time: int = 0  # labelled tasks whose annotation had no lead_time
    seconds_total: float = 0.0
    seconds_per_task: SecondsPerTask = Field(default_factory=SecondsPerTask)
    tasks_per_hour: float | None = None


class RoundCostEntry(OrderedRecord):
    """The round's cost: rater-seconds (raters and adjudicators) per accepted answer at an hourly rate.

    An answer is accepted when every unit of it that a rater labelled is settled: adjudicated, or
    labelled alike by two or more raters."""

    hourly_rate: float | None = None  # `citeval agree --hourly-rate`, in the team's currency
    rater_seconds: float = 0.0
    answers: int = 0  # questions with a rater's or an adjudicated label
    accepted_answers: int = 0
    seconds_per_accepted_answer: float | None = None
    cost_per_accepted_answer: float | None = None
    reason: str | None = None


AgreementDocument.model_rebuild()
