"""Compact per-question columns: what the run-level metrics of scores.json need of every answer.

A scored answer (`metrics.AnswerScore`) holds its claims' texts, findings and reasons; a run of
365,000 answers cannot keep those until the end. The scoring stage keeps only these columns,
appended one answer at a time and concatenated shard by shard in question order:

- one column per metric, dictionary-encoded: a 2-byte code per answer into the metric's table of
  distinct values (exact float64s; code 0 is "does not apply"). A per-answer metric is a ratio of
  small counts, so a run has few distinct values; a column with more than 65,535 of them turns
  into plain float64. Read back as float64 with NaN where the metric does not apply (NaN never
  leaves this module: the aggregation turns it into null with a reason),
- codes of risk tier and status, and (question, tag) pairs,
- abstained / should_abstain / accepted as int8 (-1 for None), cost in USD (coded like a metric),
- per prediction-powered metric (evals.score.ppi), the answer's value with the raters' labels alone
  and with the judge's alone (NaN for None),
- counters of anchor levels and findings (overall and by tier), which do not grow with the run.

About 2 bytes per metric and a dozen more per question: 365,000 answers of 12 metrics and a
tag each hold about 16 MB. Built in question order, the columns are the same whatever the shard
size or the number of worker processes, so are the intervals
bootstrapped from them.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np

__all__ = ["Codes", "MetricColumn", "RunColumns", "ScoredAnswer"]


class ScoredAnswer(Protocol):
    """What the columns read of a scored answer (evals.score.metrics.AnswerScore, which computes
    the metrics from these columns: described here so the dependency runs one way). Its
    `ppi_inputs`, when it has them, are read too."""

    @property
    def risk_tier(self) -> str: ...
    @property
    def tags(self) -> Sequence[str]: ...
    @property
    def status(self) -> str: ...
    @property
    def values(self) -> Mapping[str, float | None]: ...
    @property
    def anchor_levels(self) -> Sequence[str]: ...
    @property
    def findings(self) -> Sequence[str]: ...
    @property
    def abstained(self) -> bool | None: ...
    @property
    def should_abstain(self) -> bool | None: ...
    @property
    def accepted(self) -> bool | None: ...
    @property
    def cost_usd(self) -> float | None: ...

_NONE = -1


def _flag(value: bool | None) -> int:
    return _NONE if value is None else int(bool(value))


class Codes:
    """A small table of names (tiers, tags, statuses) and their int codes, in first-seen order."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: list[str] = []
        self._code: dict[str, int] = {}
        for name in names:
            self.code(name)

    def code(self, name: str) -> int:
        found = self._code.get(name)
        if found is None:
            found = self._code[name] = len(self.names)
            self.names.append(name)
        return found

    def get(self, name: str) -> int | None:
        return self._code.get(name)

    def remap(self, other: Codes) -> np.ndarray:
        """other's codes → this table's codes (names added as needed)."""
        return np.array([self.code(name) for name in other.names], dtype=np.int64)


class MetricColumn:
    """One metric's values, one per answer: codes into a table of distinct values (exact), or
    plain float64 once there are too many distinct values for 2-byte codes."""

    _MAX_CODES = 65535  # code 0 stands for "does not apply"

    def __init__(self, rows: int = 0) -> None:
        self._codes: array[int] | None = array("H", bytes(2 * rows))
        self._table: list[float] = [math.nan]
        self._code: dict[float, int] = {}
        self._plain: array[float] | None = None

    def __len__(self) -> int:
        return len(self._codes) if self._codes is not None else len(self._plain or ())

    def _code_of(self, value: float) -> int | None:
        """value's code (added to the table as needed); None once the table is full."""
        code = self._code.get(value)
        if code is None:
            if len(self._table) > self._MAX_CODES:
                return None
            code = self._code[value] = len(self._table)
            self._table.append(value)
        return code

    def _to_plain(self) -> array[float]:
        if self._plain is None:
            self._plain = array("d", self.array().tobytes())
            self._codes, self._table, self._code = None, [math.nan], {}
        return self._plain

    def append(self, value: float | None) -> None:
        if self._codes is not None:
            if value is None or math.isnan(value):
                self._codes.append(0)
                return
            code = self._code_of(float(value))
            if code is not None:
                self._codes.append(code)
                return
        self._to_plain().append(math.nan if value is None else float(value))

    def pad(self, rows: int) -> None:
        """Rows that carry no value of this metric."""
        if self._codes is not None:
            self._codes.extend(array("H", bytes(2 * rows)))
        else:
            self._to_plain().extend(array("d", [math.nan]) * rows)

    def extend(self, other: MetricColumn) -> None:
        if self._codes is not None and other._codes is not None:
            codes = [self._code_of(v) if k else 0 for k, v in enumerate(other._table)]
            if None not in codes:
                mapping = np.array(codes, dtype=np.uint16)
                self._codes.extend(array("H", mapping[np.frombuffer(other._codes, dtype=np.uint16)].tobytes()))
                return
        self._to_plain().extend(array("d", other.array().tobytes()))

    def array(self) -> np.ndarray:
        """The values as float64, NaN where the metric does not apply."""
        if self._plain is not None:
            return np.frombuffer(self._plain, dtype=np.float64) if len(self._plain) else np.empty(0)
        assert self._codes is not None
        table = np.array(self._table, dtype=np.float64)
        return table[np.frombuffer(self._codes, dtype=np.uint16)] if len(self._codes) else np.empty(0)

    @property
    def nbytes(self) -> int:
        if self._plain is not None:
            return 8 * len(self._plain)
        assert self._codes is not None
        return 2 * len(self._codes) + 8 * len(self._table)


class RunColumns:
    """The run-level facts of scored answers, one row per answer in question order."""

    def __init__(self) -> None:
        self.n = 0
        self.metric_names: list[str] = []  # in first-seen order
        self._values: dict[str, MetricColumn] = {}
        self.tiers = Codes()
        self.tags = Codes()
        self.statuses = Codes()
        self._tier: array[int] = array("h")
        self._status: array[int] = array("h")
        self._tag_row: array[int] = array("q")
        self._tag_code: array[int] = array("h")
        self._abstained: array[int] = array("b")
        self._should_abstain: array[int] = array("b")
        self._accepted: array[int] = array("b")
        self._cost = MetricColumn()  # USD; a run without costs holds 2 bytes an answer
        self.ppi_names: list[str] = []
        self._ppi: dict[str, tuple[array[float], array[float]]] = {}
        self.anchor_levels: Counter[str] = Counter()
        self.findings: Counter[str] = Counter()
        self.findings_by_tier: dict[str, Counter[str]] = {}

    # building ---------------------------------------------------------------------------

    @classmethod
    def of(cls, scores: Iterable[ScoredAnswer]) -> RunColumns:
        columns = cls()
        for score in scores:
            columns.add(score)
        return columns

    def _metric(self, name: str) -> MetricColumn:
        column = self._values.get(name)
        if column is None:
            column = self._values[name] = MetricColumn(self.n)  # earlier rows: no value
            self.metric_names.append(name)
        return column

    def _ppi_pair(self, name: str) -> tuple[array[float], array[float]]:
        pair = self._ppi.get(name)
        if pair is None:
            pair = self._ppi[name] = (array("d", [math.nan]) * self.n, array("d", [math.nan]) * self.n)
            self.ppi_names.append(name)
        return pair

    def add(self, score: ScoredAnswer) -> None:
        """Append one scored answer."""
        row = self.n
        for name, value in score.values.items():
            self._metric(name).append(value)
        self.n += 1
        for column in self._values.values():
            if len(column) < self.n:  # a metric this answer does not carry
                column.append(None)
        for name, (human, judge) in getattr(score, "ppi_inputs", {}).items():
            pair = self._ppi_pair(name)
            pair[0].append(math.nan if human is None else float(human))
            pair[1].append(math.nan if judge is None else float(judge))
        for human_column, judge_column in self._ppi.values():
            if len(human_column) < self.n:
                human_column.append(math.nan)
                judge_column.append(math.nan)
        tier = score.risk_tier
        self._tier.append(self.tiers.code(tier))
        self._status.append(self.statuses.code(score.status))
        for tag in dict.fromkeys(score.tags):  # a tag counts once per question
            self._tag_row.append(row)
            self._tag_code.append(self.tags.code(tag))
        self._abstained.append(_flag(score.abstained))
        self._should_abstain.append(_flag(score.should_abstain))
        self._accepted.append(_flag(score.accepted))
        self._cost.append(score.cost_usd)
        self.anchor_levels.update(score.anchor_levels)
        self.findings.update(score.findings)
        self.findings_by_tier.setdefault(tier, Counter()).update(score.findings)

    def extend(self, other: RunColumns) -> None:
        """Append another shard's rows (the shard after this one in question order)."""
        offset = self.n
        for name in other.metric_names:
            self._metric(name)
        total = self.n + other.n
        for name, column in self._values.items():
            source = other._values.get(name)
            if source is not None:
                column.extend(source)
            else:
                column.pad(other.n)
            assert len(column) == total
        for name in other.ppi_names:
            self._ppi_pair(name)
        for name, (human_column, judge_column) in self._ppi.items():
            source_pair = other._ppi.get(name)
            blank = array("d", [math.nan]) * other.n
            human_column.extend(source_pair[0] if source_pair is not None else blank)
            judge_column.extend(source_pair[1] if source_pair is not None else blank)
        self.n = total
        for mine, theirs, codes_mine, codes_theirs in (
            (self._tier, other._tier, self.tiers, other.tiers),
            (self._status, other._status, self.statuses, other.statuses),
        ):
            mapping = codes_mine.remap(codes_theirs)
            mine.extend(array("h", mapping[np.frombuffer(theirs, dtype=np.int16)].astype(np.int16).tobytes()))
        tag_map = self.tags.remap(other.tags)
        self._tag_row.extend(array("q", (np.frombuffer(other._tag_row, dtype=np.int64) + offset).tobytes()))
        self._tag_code.extend(
            array("h", tag_map[np.frombuffer(other._tag_code, dtype=np.int16)].astype(np.int16).tobytes())
        )
        self._abstained.extend(other._abstained)
        self._should_abstain.extend(other._should_abstain)
        self._accepted.extend(other._accepted)
        self._cost.extend(other._cost)
        self.anchor_levels.update(other.anchor_levels)
        self.findings.update(other.findings)
        for tier, counts in other.findings_by_tier.items():
            self.findings_by_tier.setdefault(tier, Counter()).update(counts)

    # reading ----------------------------------------------------------------------------

    def values(self, name: str) -> np.ndarray:
        """The metric's column (NaN: does not apply); all NaN for a metric no answer carries."""
        column = self._values.get(name)
        if column is None:
            return np.full(self.n, np.nan)
        return column.array()

    def ppi_inputs(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(raters' value, judge's value) per answer of a prediction-powered metric (NaN: none)."""
        pair = self._ppi.get(name)
        if pair is None or not self.n:
            return np.full(self.n, np.nan), np.full(self.n, np.nan)
        return np.frombuffer(pair[0], dtype=np.float64), np.frombuffer(pair[1], dtype=np.float64)

    @property
    def tier(self) -> np.ndarray:
        return np.frombuffer(self._tier, dtype=np.int16) if self.n else np.empty(0, dtype=np.int16)

    @property
    def status(self) -> np.ndarray:
        return np.frombuffer(self._status, dtype=np.int16) if self.n else np.empty(0, dtype=np.int16)

    def _flags(self, column: array[int]) -> np.ndarray:
        return np.frombuffer(column, dtype=np.int8) if self.n else np.empty(0, dtype=np.int8)

    @property
    def abstained(self) -> np.ndarray:
        return self._flags(self._abstained)

    @property
    def should_abstain(self) -> np.ndarray:
        return self._flags(self._should_abstain)

    @property
    def accepted(self) -> np.ndarray:
        return self._flags(self._accepted)

    @property
    def cost(self) -> np.ndarray:
        return self._cost.array() if self.n else np.empty(0)

    def rows_of_tier(self, tier: str) -> np.ndarray:
        code = self.tiers.get(tier)
        return np.flatnonzero(self.tier == code) if code is not None else np.empty(0, dtype=np.int64)

    def rows_of_tag(self, tag: str) -> np.ndarray:
        code = self.tags.get(tag)
        if code is None or not len(self._tag_row):
            return np.empty(0, dtype=np.int64)
        rows = np.frombuffer(self._tag_row, dtype=np.int64)
        return rows[np.frombuffer(self._tag_code, dtype=np.int16) == code]

    def status_count(self, status: str, rows: np.ndarray | None = None) -> int:
        code = self.statuses.get(status)
        if code is None:
            return 0
        column = self.status if rows is None else self.status[rows]
        return int((column == code).sum())

    def nbytes(self) -> int:
        """Memory held by the per-row columns (the counters are bounded by the codes)."""
        arrays: Sequence[array[int] | array[float]] = [
            *(c for pair in self._ppi.values() for c in pair), self._tier, self._status,
            self._tag_row, self._tag_code, self._abstained, self._should_abstain, self._accepted,
        ]
        return sum(a.itemsize * len(a) for a in arrays) + sum(c.nbytes for c in (*self._values.values(), self._cost))
