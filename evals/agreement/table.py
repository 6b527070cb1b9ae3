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
from typing import Any

from evals.contract.models import JUDGMENT_VALUES, Judgment
from evals.contract.precedence import (
    ADJUDICATED,
    FIELD_GRAIN,
    HUMAN_PREFIX,
    UnitKey,
    is_rater,
    latest_by_source,
    unit_key,
)

__all__ = [
    "ADJUDICATED", "FIELDS", "FIELD_GRAIN", "HUMAN_PREFIX", "AgreementTable", "UnitKey", "agreement_table",
    "is_rater", "natural_key", "unit_key", "unit_sort_key",
]

FIELDS: tuple[str, ...] = tuple(JUDGMENT_VALUES)

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


def agreement_table(judgments: Iterable[Judgment], field_name: str) -> AgreementTable:
    """The units × raters table of `field_name` (later label wins per rater and unit)."""
    if field_name not in FIELD_GRAIN:
        raise ValueError(f"unknown judgment field {field_name!r} (expected one of {', '.join(FIELDS)})")
    latest = latest_by_source(judgments, field_name)
    human = {(unit, source): j.value for (_, unit, source), j in latest.items() if is_rater(source)}
    resolved = {unit: j.value for (_, unit, source), j in latest.items() if source == ADJUDICATED}
    raters = sorted({rater for _, rater in human}, key=natural_key)
    units = sorted({unit for unit, _ in human}, key=unit_sort_key)
    column = {rater: j for j, rater in enumerate(raters)}
    row_of = {unit: i for i, unit in enumerate(units)}
    rows: list[list[str | None]] = [[None] * len(raters) for _ in units]
    for (unit, rater), value in human.items():
        rows[row_of[unit]][column[rater]] = value
    return AgreementTable(field_name, raters, units, rows, resolved)
