"""From long-form judgments (DESIGN 5) to a units × raters table for one field.

A unit is (question_id, claim_id, evidence_id) for per-claim × evidence fields, (question_id,
claim_id) for per-claim fields and question_id for per-answer fields. Raters are the human
sources `human:<rater>`; auto judges and `adjudicated` are not raters. When a rater labelled
a unit twice, the later row (by `at`, then by position in the input) wins.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field as dc_field
from datetime import datetime
from typing import Any, NamedTuple

from ..data.models import JUDGMENT_VALUES, Judgment

FIELDS: tuple[str, ...] = tuple(JUDGMENT_VALUES)

# Which ids identify a unit of each field (DESIGN 5).
FIELD_GRAIN: dict[str, tuple[str, ...]] = {
    "support": ("question_id", "claim_id", "evidence_id"),
    "anchor": ("question_id", "claim_id", "evidence_id"),
    "significant": ("question_id", "claim_id"),
    "should_abstain": ("question_id",),
    "version_ok": ("question_id",),
}

HUMAN_PREFIX = "human:"
ADJUDICATED = "adjudicated"


class UnitKey(NamedTuple):
    question_id: str
    claim_id: str | None = None
    evidence_id: str | None = None

    def to_json(self) -> dict[str, str]:
        out = {"question_id": self.question_id}
        if self.claim_id is not None:
            out["claim_id"] = self.claim_id
        if self.evidence_id is not None:
            out["evidence_id"] = self.evidence_id
        return out


def unit_key(field_name: str, question_id: str, claim_id: str | None, evidence_id: str | None) -> UnitKey:
    grain = FIELD_GRAIN[field_name]
    return UnitKey(
        question_id,
        claim_id if "claim_id" in grain else None,
        evidence_id if "evidence_id" in grain else None,
    )


def is_rater(source: str) -> bool:
    return source.startswith(HUMAN_PREFIX)


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str | None) -> tuple[Any, ...]:
    """Sort key that puts q2 before q10."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in _DIGITS.split(text or ""))


def unit_sort_key(unit: UnitKey) -> tuple[Any, ...]:
    return tuple(natural_key(part) for part in unit)


@dataclass
class AgreementTable:
    """Human labels of one field: rows[i][j] is rater j's label on unit i, or None."""

    field: str
    raters: list[str]
    units: list[UnitKey]
    rows: list[list[str | None]]
    adjudicated: dict[UnitKey, str] = dc_field(default_factory=dict)  # unit → resolved label

    @property
    def categories(self) -> tuple[str, ...]:
        return JUDGMENT_VALUES[self.field]


@dataclass
class _Latest:
    labels: dict[tuple[UnitKey, str], tuple[datetime, int, str]] = dc_field(default_factory=dict)

    def offer(self, key: tuple[UnitKey, str], at: datetime, order: int, value: str) -> None:
        current = self.labels.get(key)
        if current is None or (at, order) >= (current[0], current[1]):
            self.labels[key] = (at, order, value)


def agreement_table(judgments: Iterable[Judgment], field_name: str) -> AgreementTable:
    """The units × raters table of `field_name` (later label wins per rater and unit)."""
    if field_name not in FIELD_GRAIN:
        raise ValueError(f"unknown judgment field {field_name!r} (expected one of {', '.join(FIELDS)})")
    human = _Latest()
    adjudicated = _Latest()
    for order, judgment in enumerate(judgments):
        if judgment.field != field_name:
            continue
        unit = unit_key(field_name, judgment.question_id, judgment.claim_id, judgment.evidence_id)
        if is_rater(judgment.source):
            human.offer((unit, judgment.source), judgment.at, order, judgment.value)
        elif judgment.source == ADJUDICATED:
            adjudicated.offer((unit, ADJUDICATED), judgment.at, order, judgment.value)
    raters = sorted({rater for _, rater in human.labels}, key=natural_key)
    units = sorted({unit for unit, _ in human.labels}, key=unit_sort_key)
    column = {rater: j for j, rater in enumerate(raters)}
    row_of = {unit: i for i, unit in enumerate(units)}
    rows: list[list[str | None]] = [[None] * len(raters) for _ in units]
    for (unit, rater), (_, _, value) in human.labels.items():
        rows[row_of[unit]][column[rater]] = value
    resolved = {unit: value for (unit, _), (_, _, value) in adjudicated.labels.items()}
    return AgreementTable(field_name, raters, units, rows, resolved)
