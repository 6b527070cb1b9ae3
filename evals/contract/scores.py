"""Typed models of what `citeval score` writes (DESIGN 6): scores.json (`Scores`) and one
per_question.jsonl row (`QuestionScore`).

The JSON shape is the contract's: `metrics.<name>: {value, ci: [lo, hi], n, reason?}`,
`by_tier.<tier>` and `by_tag.<tag>` with `n`, each metric at the top of the entry
(`by_tier.critical.citation_validity`) and again under `.metrics`. Every model keeps unknown
fields (`extra="allow"`), so a stage may add a metric or a section (key_fact_recall, ppi, …)
without editing these models; fields may be added here, none renamed.

Read a file with `Scores.read(path)` / `QuestionScore.model_validate(row)`; write with
`to_json()` (the dict written to disk: absent optional sections are left out, never null).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
    model_validator,
)

from evals.contract.models import TIERS_BY_RISK, Timestamp
from evals.errors import DataError

SCORES_SCHEMA_VERSION = 1

__all__ = [
    "SCORES_SCHEMA_VERSION",
    "AgreementStat",
    "Breakdown",
    "Cost",
    "JudgeAgreement",
    "JudgeParams",
    "JudgeSummary",
    "JudgeUsage",
    "MetricEntry",
    "PpiEntry",
    "Provenance",
    "QuestionScore",
    "Scores",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


def _drop_none(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    for key in keys:
        if key in data and data[key] is None:
            del data[key]
    return data


class MetricEntry(_Model):
    """One metric over a set of answers: the mean with its 95 % bootstrap interval, or
    value null with the reason it cannot be computed (never NaN)."""

    value: float | None = None
    ci: tuple[float, float] | None = None
    n: int = 0
    reason: str | None = None
    ci_reason: str | None = None  # why there is no interval although there is a value

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), ("reason", "ci_reason"))

    def cell(self) -> str:
        """`0.678 [0.59, 0.75]`, or `—` without a value."""
        if self.value is None:
            return "—"
        ci = f" [{self.ci[0]:.2f}, {self.ci[1]:.2f}]" if self.ci else ""
        return f"{self.value:.3f}{ci}"


def _cell(entry: MetricEntry | None) -> str:
    return entry.cell() if entry is not None else "—"


class Breakdown(_Model):
    """One risk tier's or tag's metrics. On disk each metric also stands at the top of the entry,
    mirroring `metrics.<name>`, so `by_tier.critical.citation_validity` and
    `by_tier.critical.metrics.citation_validity` both find it; in Python read `.metrics[name]`
    (or `entry[name]`)."""

    n: int = 0
    metrics: dict[str, MetricEntry] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _fold_top_level_copies(cls, data: Any) -> Any:
        """The top-level copies are a mirror of `.metrics`: read them into `.metrics` when only
        they exist (a hand-written file), drop them otherwise, so they never become extras."""
        if not isinstance(data, dict):
            return data
        metrics = data.get("metrics")
        out: dict[str, Any] = {}
        found: dict[str, Any] = dict(metrics) if isinstance(metrics, dict) else {}
        for key, value in data.items():
            if key in ("n", "metrics"):
                out[key] = value
            elif isinstance(value, dict) and "value" in value:
                found.setdefault(key, value)
            else:
                out[key] = value
        out["metrics"] = found
        return out

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        metrics = data.pop("metrics", {})
        return {"n": data.pop("n", 0), **metrics, **data, "metrics": metrics}

    def __getitem__(self, name: str) -> MetricEntry:
        return self.metrics[name]


class Cost(_Model):
    total_usd: float | None = None
    accepted_answers: int | None = None
    per_accepted_answer_usd: float | None = None
    reason: str | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), ("reason",))


class JudgeSummary(_Model):
    """How many (claim, evidence) units the support judge was asked about, and how many failed."""

    units: int = 0
    failed: int = 0


class JudgeUsage(_Model):
    """Requests, tokens and cost of an LLM judge (cache hits cost nothing)."""

    requests: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    failures: int = 0


class AgreementStat(_Model):
    """A statistic of agreement: value with its interval, or null with a reason."""

    value: float | None = None
    ci: tuple[float, float] | None = None
    reason: str | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), ("reason",))


class JudgeAgreement(_Model):
    """One auto judge against the human / adjudicated support labels of the same units."""

    n: int = 0
    n_questions: int = 0
    cohen_kappa: AgreementStat = Field(default_factory=AgreementStat)
    accuracy: AgreementStat = Field(default_factory=AgreementStat)
    unsupported_precision: AgreementStat = Field(default_factory=AgreementStat)
    unsupported_recall: AgreementStat = Field(default_factory=AgreementStat)
    reason: str | None = None
    units_tied: int | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), ("reason", "units_tied"))


class PpiEntry(_Model):
    """DESIGN 6 `ppi.<metric>`: the prediction-powered estimate from partial human labels."""

    value: float | None = None
    ci: tuple[float, float] | None = None
    n_labelled: int = 0
    n_auto: int = 0
    reason: str | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), ("reason",))

    def _side(self, name: str) -> str:
        side = (self.model_extra or {}).get(name) or {}
        return MetricEntry.model_validate(side).cell() + f" (n {side.get('n', 0)})" if side else "—"

    def estimate_line(self, metric: str) -> str:
        """`ppi citation_correctness: 0.812 [0.76, 0.86] (40 labelled, 108 judged only); judge
        only 0.905 [0.86, 0.95] (n 148); human only 0.800 [0.68, 0.90] (n 40)`."""
        head = f"ppi {metric}: "
        if self.value is None:
            return head + f"— ({self.reason or 'not computed'})"
        ci = f" [{self.ci[0]:.2f}, {self.ci[1]:.2f}]" if self.ci else ""
        return (
            f"{head}{self.value:.3f}{ci} ({self.n_labelled} labelled, {self.n_auto} judged only); "
            f"judge only {self._side('judge_only')}; human only {self._side('human_only')}"
        )

    def labels_needed_line(self, metric: str) -> str:
        """`labels needed for citation_correctness ±0.05: 64 of 148 answers labelled by raters, …`:
        how many human-labelled answers bring the interval under the chosen width."""
        plan = (self.model_extra or {}).get("labels_needed") or {}
        width = float(plan.get("width", 0.1))
        head = f"labels needed for {metric} ±{width / 2:g}:"
        if plan.get("answers") is None:
            known = [plan.get("reason", "not computed")]
            if plan.get("ppi_corr") is not None:
                known.append(f"judge PPI correlation {plan['ppi_corr']:.2f}")
            if plan.get("human_only_answers") is not None:
                known.append(f"human labels alone: {plan['human_only_answers']}")
            return f"{head} — ({'; '.join(known)})"
        return (
            f"{head} {plan['answers']} of {self.n_labelled + self.n_auto} answers labelled by raters, the judge "
            f"scoring the rest (judge PPI correlation {plan['ppi_corr']:.2f}; human labels alone: "
            f"{plan['human_only_answers']}; labelled now: {self.n_labelled})"
        )

    def lines(self, metric: str) -> list[str]:
        return [self.estimate_line(metric), self.labels_needed_line(metric)]


class JudgeParams(_Model):
    """What decided the support labels: the judge and, for an LLM, its model and prompt."""

    name: str | None = None
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    prompt_version: str | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        return {key: value for key, value in data.items() if value is not None}


class Provenance(_Model):
    """What produced these scores, as inspect_ai's logs record it: enough to tell two scorings apart."""

    citeval_version: str | None = None
    git_revision: str | None = None  # of the citeval checkout, when it is one
    python: str | None = None
    packages: dict[str, str | None] = Field(default_factory=dict)  # judge stack (ragas, instructor)
    judge: JudgeParams | None = None
    seed: int | None = None
    resamples: int | None = None
    gates_file: str | None = None
    gates_sha256: str | None = None  # set when the run was gated (citeval eval / gate)
    config_file: str | None = None  # the settings file (citeval.toml) the scoring command read
    config_sha256: str | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(
            handler(self), ("git_revision", "judge", "gates_file", "gates_sha256", "config_file", "config_sha256")
        )


# sections that are written only when they were computed
_OPTIONAL_SECTIONS = (
    "judge_summary",
    "judge_usage",
    "faithfulness_failures",
    "judge_agreement",
    "ppi",
    "provenance",
)


class Scores(_Model):
    """scores.json. Only `metrics` is required when reading: hand-written or older files may
    carry just part of the document."""

    schema_version: int = SCORES_SCHEMA_VERSION
    run_id: str | None = None
    label: str | None = None
    scored_at: Timestamp | None = None
    citeval_version: str | None = None
    judge: str | None = None
    seed: int | None = None
    n_unanswered: int = 0
    n_questions: int = 0
    metrics: dict[str, MetricEntry]
    by_tier: dict[str, Breakdown] = Field(default_factory=dict)
    by_tag: dict[str, Breakdown] = Field(default_factory=dict)
    anchor_level: dict[str, int] = Field(default_factory=dict)
    findings: dict[str, int] = Field(default_factory=dict)
    findings_by_tier: dict[str, dict[str, int]] = Field(default_factory=dict)
    cost: Cost = Field(default_factory=Cost)
    judge_summary: JudgeSummary | None = None
    judge_usage: JudgeUsage | None = None
    faithfulness_failures: list[str] | None = None
    judge_agreement: dict[str, JudgeAgreement] | None = None
    ppi: dict[str, PpiEntry] | None = None
    provenance: Provenance | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), _OPTIONAL_SECTIONS)

    def to_json(self) -> dict[str, Any]:
        """The document as written to scores.json."""
        return self.model_dump(mode="json")

    def metric(self, name: str, tier: str | None = None) -> MetricEntry | None:
        """A metric overall, or within one risk tier; None when the document does not hold it."""
        if tier is None:
            return self.metrics.get(name)
        breakdown = self.by_tier.get(tier)
        return breakdown.metrics.get(name) if breakdown is not None else None

    def to_text(self, title: str = "", width: int | None = None) -> str:
        """Metrics as rows, overall and per risk tier as columns (value [95 % CI]), then the
        metrics without a value and why, then the findings by code."""
        import io

        from rich.console import Console
        from rich.table import Table

        tiers = [t for t in TIERS_BY_RISK if t in self.by_tier]
        table = Table(title=title or None)
        table.add_column("metric")
        table.add_column(f"all (n={self.n_questions})", justify="right")
        for tier in tiers:
            table.add_column(f"{tier} (n={self.by_tier[tier].n})", justify="right")
        for name, entry in self.metrics.items():
            table.add_row(name, entry.cell(), *(_cell(self.by_tier[t].metrics.get(name)) for t in tiers))
        buffer = io.StringIO()
        Console(file=buffer, width=width or max(120, Console().width), color_system=None).print(table)
        lines = [buffer.getvalue().rstrip("\n")]
        lines += [f"  {name}: {m.reason}" for name, m in self.metrics.items() if m.value is None and m.reason]
        if self.findings:
            lines.append("findings: " + ", ".join(f"{code} {n}" for code, n in self.findings.items()))
        for name, ppi_entry in (self.ppi or {}).items():
            lines += ppi_entry.lines(name)
        return "\n".join(lines) + "\n"

    # Mapping-style reading of the JSON form, for callers written against the former dict.
    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json().get(key, default)

    def keys(self) -> Iterator[str]:
        return iter(self.to_json())

    @classmethod
    def read(cls, path: Path | str) -> Scores:
        """scores.json from disk; a missing, broken or foreign file is a DataError naming it."""
        from evals.store.jsonl import read_json_object, validation_errors

        path = Path(path)
        doc = read_json_object(path, "file not found (score the run first: citeval score RUN)")
        if not isinstance(doc.get("metrics"), dict):
            raise DataError(path, None, "not a scores.json document (no metrics)")
        try:
            return cls.model_validate(doc)
        except ValidationError as exc:
            raise validation_errors(path, None, exc)[0] from None


class QuestionScore(_Model):
    """One per_question.jsonl row: each metric's value for one answer, null where it does not
    apply (`reasons.<metric>` says why; `reasons.all` when the answer was not given)."""

    question_id: str
    risk_tier: str = "policy"
    tags: list[str] = Field(default_factory=list)
    status: str = "answered"
    citation_validity: float | None = None
    citation_correctness: float | None = None
    citation_completeness: float | None = None
    anchor_accuracy: float | None = None
    version_correctness: float | None = None
    faithfulness: float | None = None
    quote_exactness: float | None = None
    number_support: float | None = None
    key_fact_recall: float | None = None
    gold_evidence_recall: float | None = None
    error_rate: float | None = None
    abstained: bool | None = None
    should_abstain: bool | None = None
    markers: int = 0
    valid_markers: int = 0
    anchor_levels: list[str] = Field(default_factory=list)
    findings: list[str] = Field(default_factory=list)
    accepted: bool | None = None
    cost_usd: float | None = None
    reasons: dict[str, str] = Field(default_factory=dict)
    # per PPI metric {human, judge}: the answer's value with the raters' labels alone and with the
    # judge's alone; only in runs with human labels (evals.score.ppi)
    ppi_inputs: dict[str, dict[str, float | None]] | None = None

    @model_serializer(mode="wrap")
    def _serialize(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        if not data.get("reasons"):
            data.pop("reasons", None)
        if data.get("ppi_inputs") is None:
            data.pop("ppi_inputs", None)
        return data

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def value(self, metric: str) -> float | None:
        """A metric's value for this answer (also one added by another stage), None when absent."""
        found = getattr(self, metric, None)
        if found is None and self.model_extra:
            found = self.model_extra.get(metric)
        return None if found is None else float(found)

    # Mapping-style reading, for callers written against the former dict rows.
    def __getitem__(self, key: str) -> Any:
        return self.to_json()[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.to_json().get(key, default)

