"""Inter-rater agreement of the human raters, field by field (DESIGN 6, agreement.json)."""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table as RichTable

from evals.agreement.stats import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    MIN_VALID_FRACTION,
    Estimate,
    cohen_kappa,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    percent_agreement,
    with_ci,
)
from evals.agreement.table import FIELDS, AgreementTable, UnitKey, agreement_table
from evals.contract.agreement import (
    AgreementDocument,
    AgreementMethod,
    AgreementStatistic,
    BootstrapMethod,
    Confusion,
    FieldAgreementEntry,
    JudgeAgreementEntry,
    RaterTimeEntry,
    RoundCostEntry,
)
from evals.contract.models import Judgment

# `support` is ordered; cannot_judge is not a point on that scale, so the ordinal
# statistics treat it as a missing label.
ORDERED_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "support": (("unsupported", "partial", "supported"), ("cannot_judge",)),
}
ORDINAL_NOTE = "ordinal over unsupported < partial < supported; cannot_judge treated as missing"

DEFINITIONS = {
    "unit": "question_id × claim_id × evidence_id for support and anchor, question_id × claim_id for significant,"
    " question_id for should_abstain and version_ok",
    "raters": "human:<rater> sources; auto judges and adjudicated labels are not raters; a rater's later label"
    " (by at, then file order) replaces an earlier one on the same unit",
    "n_units": "units labelled by at least one rater; n_pairable: units labelled by two or more",
    "percent_agreement": "mean over units labelled by two or more raters of the share of agreeing rater pairs"
    " (two raters: share of co-labelled units with matching labels)",
    "cohen_kappa": "two raters only, over the units both labelled; unweighted over the field's declared categories",
    "krippendorff_alpha": "nominal, over all declared categories; missing labels allowed, single-label units ignored",
    "gwet_ac1": "Gwet (2008/2014) AC1 with q = the field's declared categories; prevalence from every labelled unit",
    "fleiss_kappa": "only with more than two raters; Fleiss (1971) generalised to missing labels as in Gwet (2014)",
    "ci": "percentile bootstrap over units (resampled with replacement); resamples where the statistic is undefined"
    " are dropped and no interval is given when fewer than the required share remain",
}


@dataclass
class Context:
    """Texts shown beside a disagreement so a person can adjudicate it."""

    questions: dict[str, str] = dc_field(default_factory=dict)
    claims: dict[tuple[str, str], str] = dc_field(default_factory=dict)


@dataclass
class Disagreement:
    unit: UnitKey
    labels: dict[str, str]
    question: str | None = None
    claim: str | None = None
    adjudicated: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = self.unit.to_json()
        if self.question is not None:
            out["question"] = self.question
        if self.claim is not None:
            out["claim"] = self.claim
        out["labels"] = self.labels
        if self.adjudicated is not None:
            out["adjudicated"] = self.adjudicated
        return out


@dataclass
class FieldAgreement:
    field: str
    n_units: int
    n_pairable: int
    raters: list[str]
    categories: list[str]
    percent_agreement: Estimate
    cohen_kappa: Estimate
    krippendorff_alpha: Estimate
    gwet_ac1: Estimate
    fleiss_kappa: Estimate | None = None  # only with more than two raters
    ordinal: dict[str, Estimate] = dc_field(default_factory=dict)
    confusion: list[list[int]] | None = None  # rows: raters[0], columns: raters[1]
    rater_counts: dict[str, dict[str, int]] = dc_field(default_factory=dict)
    disagreements: list[Disagreement] = dc_field(default_factory=list)

    def statistics(self) -> dict[str, Estimate]:
        out = {
            "percent_agreement": self.percent_agreement,
            "cohen_kappa": self.cohen_kappa,
            "krippendorff_alpha": self.krippendorff_alpha,
            "gwet_ac1": self.gwet_ac1,
        }
        if self.fleiss_kappa is not None:
            out["fleiss_kappa"] = self.fleiss_kappa
        return out

    def entry(self) -> FieldAgreementEntry:
        """This field's entry of agreement.json."""
        out: dict[str, Any] = {
            "n_units": self.n_units,
            "n_pairable": self.n_pairable,
            "raters": self.raters,
            "categories": self.categories,
        }
        for name, estimate in self.statistics().items():
            out[name] = _statistic(estimate, level="nominal") if name == "krippendorff_alpha" else _statistic(estimate)
        order_missing = ORDERED_FIELDS.get(self.field)
        for name, estimate in self.ordinal.items():
            how: dict[str, Any] = (
                {"level": "ordinal"} if name.startswith("krippendorff_alpha") else {"weights": name.rsplit("_", 1)[1]}
            )
            if order_missing:
                how["order"], how["missing"] = list(order_missing[0]), list(order_missing[1])
            out[name] = _statistic(estimate, **how, note=ORDINAL_NOTE)
        if self.confusion is not None:
            out["confusion"] = Confusion(
                rows=self.raters[0], columns=self.raters[1], categories=self.categories, counts=self.confusion
            )
        out["rater_counts"] = self.rater_counts
        out["n_disagreements"] = len(self.disagreements)
        out["disagreements"] = [d.to_json() for d in self.disagreements]
        return FieldAgreementEntry.model_validate(out)

    def to_json(self) -> dict[str, Any]:
        return self.entry().to_json()


def _statistic(estimate: Estimate, **how: Any) -> AgreementStatistic:
    """An estimate as agreement.json holds it: `{value, ci, n, reason?, …}`, then how it was computed
    (a note given here replaces the estimate's own)."""
    return AgreementStatistic.model_validate({**estimate.to_json(), **how})


@dataclass
class AgreementReport:
    fields: dict[str, FieldAgreement]
    n_resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    confidence: float = DEFAULT_CONFIDENCE
    judge_agreement: dict[str, Any] = dc_field(default_factory=dict)  # filled by the judge-evaluation stage
    rater_time: dict[str, RaterTimeEntry] = dc_field(default_factory=dict)
    cost: RoundCostEntry | None = None

    def document(self) -> AgreementDocument:
        """agreement.json."""
        return AgreementDocument(
            fields={name: fa.entry() for name, fa in self.fields.items()},
            judge_agreement={
                name: JudgeAgreementEntry.model_validate(entry) for name, entry in self.judge_agreement.items()
            },
            method=AgreementMethod(
                bootstrap=BootstrapMethod(
                    resamples=self.n_resamples,
                    seed=self.seed,
                    confidence=self.confidence,
                    min_valid_fraction=MIN_VALID_FRACTION,
                    unit="units of the field, resampled with replacement",
                ),
                definitions=DEFINITIONS,
            ),
            rater_time=self.rater_time,
            cost=self.cost,
        )

    def to_json(self) -> dict[str, Any]:
        return self.document().to_json()

    def to_text(self, limit: int = 20, width: int = 140) -> str:
        return render_text(self, limit=limit, width=width)


# --- computing -----------------------------------------------------------------------


def _undefined(reason: str) -> Estimate:
    return Estimate(None, reason=reason)


def _masked(rows: Sequence[Sequence[str | None]], missing: Sequence[str]) -> list[list[str | None]]:
    return [[None if label in missing else label for label in row] for row in rows]


def _field_agreement(
    table: AgreementTable, context: Context, n_resamples: int, seed: int, confidence: float
) -> FieldAgreement:
    categories = list(table.categories)
    rows = table.rows
    n_raters = len(table.raters)
    n_pairable = sum(1 for row in rows if sum(label is not None for label in row) >= 2)
    boot: dict[str, Any] = {"n_resamples": n_resamples, "seed": seed, "confidence": confidence}
    if n_raters == 0:
        none = _undefined("no human labels for this field")
        return FieldAgreement(table.field, 0, 0, [], categories, none, none, none, none)

    pa = with_ci(rows, percent_agreement, categories=categories, **boot)
    if n_raters == 2:
        kappa = with_ci(rows, cohen_kappa, categories=categories, **boot)
    else:
        kappa = _undefined(f"Cohen's kappa needs exactly two raters; this field has {n_raters}")
    alpha = with_ci(rows, krippendorff_alpha, categories=categories, level="nominal", **boot)
    ac1 = with_ci(rows, gwet_ac1, categories=categories, **boot)
    fleiss = with_ci(rows, fleiss_kappa, categories=categories, **boot) if n_raters > 2 else None

    ordinal: dict[str, Estimate] = {}
    if table.field in ORDERED_FIELDS:
        order, missing = ORDERED_FIELDS[table.field]
        ordered_rows = _masked(rows, missing)
        ordinal["krippendorff_alpha_ordinal"] = with_ci(
            ordered_rows, krippendorff_alpha, categories=order, level="ordinal", **boot
        )
        if n_raters == 2:
            ordinal["cohen_kappa_linear"] = with_ci(
                ordered_rows, cohen_kappa, categories=order, weights="linear", **boot
            )

    confusion = None
    if n_raters == 2:
        index = {c: i for i, c in enumerate(categories)}
        confusion = [[0] * len(categories) for _ in categories]
        for a, b in rows:
            if a is not None and b is not None:
                confusion[index[a]][index[b]] += 1

    rater_counts = {rater: dict.fromkeys(categories, 0) for rater in table.raters}
    for row in rows:
        for rater, label in zip(table.raters, row, strict=True):
            if label is not None:
                rater_counts[rater][label] += 1

    disagreements = []
    for unit, row in zip(table.units, rows, strict=True):
        labels = {rater: label for rater, label in zip(table.raters, row, strict=True) if label is not None}
        if len(set(labels.values())) > 1:
            disagreements.append(
                Disagreement(
                    unit,
                    labels,
                    question=context.questions.get(unit.question_id),
                    claim=context.claims.get((unit.question_id, unit.claim_id)) if unit.claim_id else None,
                    adjudicated=table.adjudicated.get(unit),
                )
            )

    return FieldAgreement(
        table.field,
        n_units=len(rows),
        n_pairable=n_pairable,
        raters=list(table.raters),
        categories=categories,
        percent_agreement=pa,
        cohen_kappa=kappa,
        krippendorff_alpha=alpha,
        gwet_ac1=ac1,
        fleiss_kappa=fleiss,
        ordinal=ordinal,
        confusion=confusion,
        rater_counts=rater_counts,
        disagreements=disagreements,
    )


def compute_agreement(
    judgments: Iterable[Judgment],
    *,
    fields: Sequence[str] = FIELDS,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = DEFAULT_CONFIDENCE,
    context: Context | None = None,
    hourly_rate: float | None = None,
) -> AgreementReport:
    """Agreement of the human raters on each judgment field, with bootstrap intervals, and the
    raters' time and the round's cost (evals.agreement.time)."""
    from evals.agreement.time import rater_time, round_cost

    rows = list(judgments)
    context = context or Context()
    out = {
        name: _field_agreement(agreement_table(rows, name), context, n_resamples, seed, confidence)
        for name in fields
    }
    return AgreementReport(
        out, n_resamples=n_resamples, seed=seed, confidence=confidence, rater_time=rater_time(rows),
        cost=round_cost(rows, hourly_rate),
    )


# --- text ----------------------------------------------------------------------------

_LABELS = {
    "percent_agreement": "% agree",
    "cohen_kappa": "Cohen κ",
    "krippendorff_alpha": "α nominal",
    "gwet_ac1": "Gwet AC1",
    "fleiss_kappa": "Fleiss κ",
    "krippendorff_alpha_ordinal": "α ordinal",
    "cohen_kappa_linear": "κ linear",
}


def _cell(estimate: Estimate | None) -> str:
    if estimate is None:
        return ""
    if estimate.value is None:
        return "—"
    text = f"{estimate.value:.3f}"
    if estimate.ci is not None:
        text += f" [{estimate.ci[0]:.2f},{estimate.ci[1]:.2f}]"
    return text


def _short(text: str | None, size: int) -> str:
    if not text:
        return ""
    return text if len(text) <= size else text[: size - 1] + "…"


def _notes(name: str, fa: FieldAgreement) -> list[str]:
    """One line per undefined value, missing interval or caveat; one line when a whole field is empty."""
    estimates = [*fa.statistics().items(), *fa.ordinal.items()]
    reasons = {e.reason for _, e in estimates}
    if len(reasons) == 1 and None not in reasons:
        return [f"{name}: {reasons.pop()}"]
    out = []
    for stat_name, estimate in estimates:
        label = _LABELS.get(stat_name, stat_name)
        if estimate.reason:
            out.append(f"{name} {label}: undefined — {estimate.reason}")
        elif estimate.ci_reason:
            out.append(f"{name} {label}: no interval — {estimate.ci_reason}")
        if estimate.note:
            out.append(f"{name} {label}: {estimate.note}")
    return out


def _time_text(console: Console, report: AgreementReport) -> None:
    """Seconds per task per rater and the round's cost, when the labels carry lead_time."""
    if not any(t.tasks for t in report.rater_time.values()):
        return
    console.print("\nRater time (Label Studio lead_time): seconds per task")
    grid = RichTable(box=box.SIMPLE_HEAD)
    for name in ("rater", "tasks", "median s", "p90 s", "tasks/hour", "hours"):
        grid.add_column(name, justify="left" if name == "rater" else "right", no_wrap=True)
    for source, t in report.rater_time.items():
        per = t.seconds_per_task
        hours = f"{t.seconds_total / 3600:.2f}"
        grid.add_row(source, str(t.tasks), _num(per.median), _num(per.p90), _num(t.tasks_per_hour), hours)
    console.print(grid)
    cost = report.cost
    if cost is not None:
        line = f"accepted answers: {cost.accepted_answers} of {cost.answers}; rater-seconds {cost.rater_seconds:.0f}"
        if cost.seconds_per_accepted_answer is not None:
            line += f", {cost.seconds_per_accepted_answer:.0f} s per accepted answer"
        if cost.cost_per_accepted_answer is not None:
            line += f", cost {cost.cost_per_accepted_answer:.2f} per accepted answer at {cost.hourly_rate:g}/hour"
        if cost.reason:
            line += f" ({cost.reason})"
        console.print(line, soft_wrap=True)


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def render_text(report: AgreementReport, limit: int = 20, width: int = 140) -> str:
    """A compact table of the statistics, the notes on undefined values, and the disagreements."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None, highlight=False)
    any_fleiss = any(fa.fleiss_kappa is not None for fa in report.fields.values())
    pct = round(report.confidence * 100)
    console.print(
        f"Inter-rater agreement ({pct}% bootstrap CI over units, {report.n_resamples} resamples, seed {report.seed})"
    )
    table = RichTable(box=box.SIMPLE_HEAD)
    columns = ["field", "units", "raters", "percent_agreement", "cohen_kappa", "krippendorff_alpha", "gwet_ac1"]
    if any_fleiss:
        columns.append("fleiss_kappa")
    for name in columns:
        table.add_column(_LABELS.get(name, name), justify="left" if name == "field" else "right", no_wrap=True)
    notes: list[str] = []
    for name, fa in report.fields.items():
        stats = fa.statistics()
        cells = [name, f"{fa.n_pairable}/{fa.n_units}", str(len(fa.raters))]
        cells += [_cell(stats.get(col)) for col in columns[3:]]
        table.add_row(*cells)
        notes.extend(_notes(name, fa))
    console.print(table)
    console.print("units: labelled by two or more raters / by at least one; — undefined (see below)")
    for name, fa in report.fields.items():
        if fa.ordinal:
            parts = [f"{_LABELS.get(k, k)} {_cell(v)}" for k, v in fa.ordinal.items()]
            console.print(f"{name}, {ORDINAL_NOTE}: " + "; ".join(parts), soft_wrap=True)
    for note in notes:
        console.print(note, soft_wrap=True)

    for name, fa in report.fields.items():
        if fa.confusion is None or not any(any(row) for row in fa.confusion):
            continue
        console.print(f"\n{name}: confusion matrix, rows {fa.raters[0]}, columns {fa.raters[1]}")
        matrix = RichTable(box=box.SIMPLE)
        matrix.add_column("")
        for category in fa.categories:
            matrix.add_column(category, justify="right")
        for category, counts in zip(fa.categories, fa.confusion, strict=True):
            matrix.add_row(category, *(str(c) for c in counts))
        console.print(matrix)

    _time_text(console, report)

    for name, fa in report.fields.items():
        if not fa.disagreements:
            continue
        shown = fa.disagreements[:limit]
        console.print(f"\n{name}: {len(fa.disagreements)} disagreement(s) to adjudicate")
        grid = RichTable(box=box.SIMPLE)
        grid.add_column("unit")
        grid.add_column("question / claim", max_width=60)
        for rater in fa.raters:
            grid.add_column(rater)
        grid.add_column("adjudicated")
        for d in shown:
            unit = "/".join(part for part in d.unit if part is not None)
            text = " — ".join(t for t in (_short(d.question, 60), _short(d.claim, 60)) if t)
            grid.add_row(unit, text, *(d.labels.get(r, "") for r in fa.raters), d.adjudicated or "")
        console.print(grid)
        if len(fa.disagreements) > len(shown):
            console.print(f"… and {len(fa.disagreements) - len(shown)} more (see --format json)")
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    # rich ends each table with a blank line; keep single blank lines between blocks
    kept = [line for i, line in enumerate(lines) if line or (i > 0 and lines[i - 1])]
    return "\n".join(kept).strip("\n") + "\n"
