"""Which label counts (DESIGN 5), decided in one place for every stage.

A label is about one unit of its field: (question, claim, evidence) for `support` and `anchor`,
(question, claim) for `significant`, the question for `should_abstain` and `version_ok`.
Labels of one unit are ordered by

    (source rank, at, position in judgments.jsonl)

source rank: adjudicated 2 > human:<rater> 1 > auto:<judge> 0 — so adjudicated wins over
human and human over auto, whatever their times; within a rank the later `at` wins; and of two
labels with the same `at` the one later in the file wins (the one tie-break). Metrics choose
one label per unit (`chosen_labels`); agreement, adjudication and `label pull` keep the latest
label of each source per unit (`latest_by_source`), both by this order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from datetime import datetime
from typing import NamedTuple, TypeVar

from evals.contract.models import Judgment

HUMAN_PREFIX = "human:"
AUTO_PREFIX = "auto:"
ADJUDICATED = "adjudicated"

# Which ids identify a unit of each field (DESIGN 5).
FIELD_GRAIN: dict[str, tuple[str, ...]] = {
    "support": ("question_id", "claim_id", "evidence_id"),
    "anchor": ("question_id", "claim_id", "evidence_id"),
    "significant": ("question_id", "claim_id"),
    "should_abstain": ("question_id",),
    "version_ok": ("question_id",),
}

K = TypeVar("K", bound=Hashable)
LabelKey = tuple[str, str | None, str | None, str]  # (question_id, claim_id, evidence_id, field)


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
    """The unit a label is about, ids outside its field's grain dropped."""
    grain = FIELD_GRAIN[field_name]
    return UnitKey(
        question_id,
        claim_id if "claim_id" in grain else None,
        evidence_id if "evidence_id" in grain else None,
    )


def unit_of(judgment: Judgment) -> UnitKey:
    return unit_key(judgment.field, judgment.question_id, judgment.claim_id, judgment.evidence_id)


def grain_problem(field_name: str, claim_id: str | None, evidence_id: str | None) -> tuple[str, str] | None:
    """(id field, message) when a label lacks an id its field's unit needs."""
    grain = FIELD_GRAIN[field_name]
    for id_name, value in (("claim_id", claim_id), ("evidence_id", evidence_id)):
        if id_name in grain and not value:
            needed = " and ".join(grain[1:])
            return id_name, f"field {field_name!r} is judged per {' × '.join(grain)}: {needed} required"
    return None


def source_rank(source: str) -> int:
    """adjudicated 2 > human:<rater> 1 > auto:<judge> 0."""
    if source == ADJUDICATED:
        return 2
    return 1 if source.startswith(HUMAN_PREFIX) else 0


def is_rater(source: str) -> bool:
    return source.startswith(HUMAN_PREFIX)


def precedence(judgment: Judgment, position: int) -> tuple[int, datetime, int]:
    """The order of DESIGN 5: the larger tuple wins."""
    return source_rank(judgment.source), judgment.at, position


def winners(judgments: Iterable[Judgment], key: Callable[[Judgment], K | None]) -> dict[K, Judgment]:
    """The winning label per key (by `precedence`); rows whose key is None are skipped."""
    best: dict[K, tuple[tuple[int, datetime, int], Judgment]] = {}
    for position, judgment in enumerate(judgments):
        k = key(judgment)
        if k is None:
            continue
        rank = precedence(judgment, position)
        held = best.get(k)
        if held is None or rank > held[0]:
            best[k] = (rank, judgment)
    return {k: j for k, (_, j) in best.items()}


def latest_by_source(
    judgments: Iterable[Judgment], field_name: str | None = None
) -> dict[tuple[str, UnitKey, str], Judgment]:
    """Each source's latest label per unit: (field, unit, source) → judgment; one field or all."""

    def key(j: Judgment) -> tuple[str, UnitKey, str] | None:
        if field_name is not None and j.field != field_name:
            return None
        return j.field, unit_of(j), j.source

    return winners(judgments, key)


def chosen_labels(judgments: Iterable[Judgment], auto_source: str | None) -> dict[LabelKey, str]:
    """One label per (question, claim, evidence, field): the winner among adjudicated, human and
    the chosen auto judge's labels; other auto judges are ignored (metrics use this)."""

    def key(j: Judgment) -> LabelKey | None:
        if j.source.startswith(AUTO_PREFIX) and j.source != auto_source:
            return None
        return j.question_id, j.claim_id, j.evidence_id, j.field

    return {k: j.value for k, j in winners(judgments, key).items()}
