"""The adjudication file (`citeval label adjudicate RUN --from FILE`, `citeval agree --adjudicate FILE`):
one JSON line per unit a person settled, appended to judgments.jsonl as source `adjudicated`.

    {"question_id": "q1", "claim_id": "c2", "evidence_id": "E1", "field": "support",
     "value": "unsupported", "comment": "E1 is about the deadline, not the fee"}

A unit is what its field is judged on (DESIGN 5): question × claim × evidence for `support` and
`anchor`, question × claim for `significant`, the question for `should_abstain` and `version_ok`;
a line must carry exactly the ids its field's unit needs. Extra keys (who settled it, why) are
kept on the line and not checked. An adjudicated label wins over every human and auto label of
its unit, whatever their times (evals.contract.precedence). The `disagreements` of
agreement.json list the units to settle with the raters' labels beside them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from evals.contract.models import JUDGMENT_VALUES, JudgmentField
from evals.contract.precedence import FIELD_GRAIN, UnitKey, grain_problem, unit_key

__all__ = ["ResolvedLabel"]


class ResolvedLabel(BaseModel):
    """One line of an adjudication file: the label a person settled on for a unit."""

    model_config = ConfigDict(extra="allow", json_schema_extra={"title": "adjudication line"})

    question_id: str = Field(description="the question (answer) the unit belongs to")
    claim_id: str | None = Field(None, description="for support, anchor and significant")
    evidence_id: str | None = Field(None, description="for support and anchor")
    field: JudgmentField
    value: str = Field(description="one of the field's values (DESIGN 5)")
    comment: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> ResolvedLabel:
        allowed = JUDGMENT_VALUES[self.field]
        if self.value not in allowed:
            expected = ", ".join(allowed)
            raise ValueError(f"{self.value!r} is not a value of field {self.field!r} (expected one of {expected})")
        if not self.question_id.strip():
            raise ValueError("question_id must not be empty")
        problem = grain_problem(self.field, self.claim_id, self.evidence_id)
        if problem:
            raise ValueError(problem[1])
        grain = FIELD_GRAIN[self.field]
        extra = [name for name, v in (("claim_id", self.claim_id), ("evidence_id", self.evidence_id))
                 if v is not None and name not in grain]
        if extra:
            raise ValueError(f"field {self.field!r} is judged per {' × '.join(grain)}: drop {' and '.join(extra)}")
        return self

    def unit(self) -> UnitKey:
        return unit_key(self.field, self.question_id, self.claim_id, self.evidence_id)
