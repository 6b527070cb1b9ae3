"""Records of the quotes file (DESIGN 9) and of a matcher's placement.

Field names are the contract's; extra fields are kept, so a team's own annotations (the
demo set's `kind`, a log's request id) travel through unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
