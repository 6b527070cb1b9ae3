"""Records of the quotes file (DESIGN 9), of a matcher's placement, and what `citeval quotes
eval --out` writes: quotes.json (`QuotesDocument`).

Field names are the contract's; extra fields are kept, so a team's own annotations (the
demo set's `kind`, a log's request id) travel through unchanged.

    quotes.json: {"matchers": {<name>: {placement_accuracy, wrong_place_rate, coverage,
                   false_injection_rate, mean_iou: {value, ci, n}, latency_us: {p50, p95},
                   threshold, threshold_source}},
                  "answers", "citations", "citations_with_gold", "iou_correct", "seed", "files",
                  "comparisons": [..], "by_kind": {<matcher>: {<kind>: {..}}}, "sweep"?, "tuning"?}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from evals.contract.ordered import OrderedRecord, RateEntry

Span = tuple[int, int]


def _id_as_text(value: Any) -> Any:
    """An id a bot logs as a number (answer 101, citation 0) is the same id as a string; texts stay strict."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class QuoteCitation(_Record):
    """One citation of an answer, as the Citations API returned it."""

    citation_id: str = Field(min_length=1)
    cited_text: str
    document_id: str | None = None
    version_id: str | None = None
    chunk_id: str | None = None
    start_char_index: int | None = None
    end_char_index: int | None = None
    # the text block the API attached the citation to, as streamed (before post-processing)
    block_text: str | None = None

    _citation_id = field_validator("citation_id", mode="before")(_id_as_text)

    @field_validator("cited_text")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("cited_text is empty")
        return value


class GoldPlacement(_Record):
    """Where a careful rater puts the citation's quote: the fragment it supports, or null."""

    citation_id: str = Field(min_length=1)
    span: Span | None
    # the hard case this citation tests (demo set: paraphrase, number_rewrite, trap, …)
    kind: str | None = None

    _citation_id = field_validator("citation_id", mode="before")(_id_as_text)

    @field_validator("span")
    @classmethod
    def _ordered(cls, value: Span | None) -> Span | None:
        if value is not None and not 0 <= value[0] < value[1]:
            raise ValueError(f"span must be [start, end] with 0 <= start < end (got {list(value)})")
        return value


class QuoteAnswer(_Record):
    """One answer line of a quotes file."""

    answer_id: str = Field(min_length=1)
    question_id: str | None = None
    answer_text: str
    citations: list[QuoteCitation]
    gold: list[GoldPlacement] | None = None

    _ids = field_validator("answer_id", "question_id", mode="before")(_id_as_text)

    def gold_by_citation(self) -> dict[str, GoldPlacement]:
        return {g.citation_id: g for g in self.gold or []}


@dataclass(frozen=True)
class Placement:
    """A matcher's best place for one citation, before its threshold: span and score (higher
    is better), or span None when the matcher has nothing to offer (e.g. `block` without
    block_text). Whether the quote is injected is decided by comparing score to a threshold."""

    span: Span | None
    score: float | None

    def placed_at(self, threshold: float) -> Span | None:
        if self.span is None or self.score is None or self.score < threshold:
            return None
        return self.span

    def to_json(self) -> dict[str, Any]:
        return {"span": list(self.span) if self.span else None, "score": self.score}


NOTHING = Placement(None, None)


# --- quotes.json -------------------------------------------------------------------------


class MatcherLatency(OrderedRecord):
    """Microseconds per answer (all its citations), measured; null when nothing was timed."""

    p50: int | None = None
    p95: int | None = None


class MatcherSummary(OrderedRecord):
    """One matcher's placement metrics at its threshold (DESIGN 9)."""

    placement_accuracy: RateEntry = Field(default_factory=RateEntry)
    wrong_place_rate: RateEntry = Field(default_factory=RateEntry)
    coverage: RateEntry = Field(default_factory=RateEntry)
    false_injection_rate: RateEntry = Field(default_factory=RateEntry)
    mean_iou: RateEntry = Field(default_factory=RateEntry)
    latency_us: MatcherLatency = Field(default_factory=MatcherLatency)
    threshold: float | None = None
    threshold_source: str | None = None  # default | given


class MatcherComparison(OrderedRecord):
    """Two matchers over the same citations with gold: the exact McNemar test of which places right."""

    a: str
    b: str
    n: int = 0
    a_correct: int = 0
    b_correct: int = 0
    a_only: int = 0
    b_only: int = 0
    p_value: float | None = None
    significant: bool = False
    method: str | None = None


class KindPlacement(OrderedRecord):
    """The metrics of one matcher on the citations of one hard case (the gold's `kind`), no interval."""

    placement_accuracy: float | None = None
    wrong_place_rate: float | None = None
    coverage: float | None = None
    false_injection_rate: float | None = None
    mean_iou: float | None = None
    n: int = 0
    correct: int = 0


class SweepRow(OrderedRecord):
    """The metrics at one threshold of a sweep."""

    threshold: float
    placement_accuracy: float | None = None
    wrong_place_rate: float | None = None
    coverage: float | None = None
    false_injection_rate: float | None = None


class CrossValidation(OrderedRecord):
    placement_accuracy: float | None = None
    wrong_place_rate: float | None = None
    coverage: float | None = None
    folds: int = 0


class TuningReport(OrderedRecord):
    """A threshold tuned on part of the answers, with the metrics there and on the held-out rest."""

    threshold: float
    tuned: dict[str, RateEntry] | None = None
    heldout: dict[str, RateEntry] | None = None
    cv: CrossValidation = Field(default_factory=CrossValidation)
    answers: dict[str, int] = Field(default_factory=dict)  # tuned, heldout
    # the default cascade's own threshold set, tuned on the same part (block_min, fallback_min, …)
    cascade: dict[str, float] | None = None


class QuotesDocument(OrderedRecord):
    """quotes.json (and the JSON `citeval quotes eval --format json` prints)."""

    matchers: dict[str, MatcherSummary] = Field(default_factory=dict)
    answers: int = 0
    citations: int = 0
    citations_with_gold: int = 0
    iou_correct: float | None = None
    seed: int | None = None
    files: list[str] = Field(default_factory=list)
    comparisons: list[MatcherComparison] = Field(default_factory=list)
    by_kind: dict[str, dict[str, KindPlacement]] = Field(default_factory=dict)
    sweep: dict[str, list[SweepRow]] | None = None
    tuning: dict[str, TuningReport] | None = None
