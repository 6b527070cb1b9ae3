"""What `citeval probe` writes (DESIGN 10): probe.json (`ProbeDocument`) and the request it asked
(`ProbeRequest`, probe_dataset/probe_request.json), with the names of the probe kinds.

    {"run_id", "dataset", "schema_version",
     "kinds": {<kind>: {n, distinguished, decorative, unsupported, errors, inconclusive, outcomes,
                        rate: {value, ci, n}, max_decorative_rate}},
     "citation_faithfulness": {value, ci, n}, "takes_context", "errors", "verdict",
     "gates": {source, decorative_rate: {<kind>: bound}, citation_faithfulness, failed: [..]}}

Only `kinds` is required when reading (a hand-written probe.json may hold just the figures a gate
judges); unknown keys are kept. Built by evals.probe, read by the gate and the report.
"""

from __future__ import annotations

from pydantic import Field

from evals.contract.ordered import OrderedRecord, RateEntry

MANAGEMENT_KINDS = ("revoked_edition", "unsupported_number", "phantom_marker", "forbidden_document")
COUNTERFACTUAL_KINDS = ("altered_fact", "removed_evidence")
PROBE_KINDS = MANAGEMENT_KINDS + COUNTERFACTUAL_KINDS
PROBE_SCHEMA_VERSION = 1

__all__ = [
    "COUNTERFACTUAL_KINDS",
    "MANAGEMENT_KINDS",
    "PROBE_KINDS",
    "PROBE_SCHEMA_VERSION",
    "ProbeDocument",
    "ProbeGatesRecord",
    "ProbeKind",
    "ProbeRequest",
]


class ProbeKind(OrderedRecord):
    """One kind's cases: how many the system distinguished, how many were decorative (for the
    counterfactual kinds: faithful and post-rationalised), and the decorative rate."""

    n: int = 0
    distinguished: int = 0
    decorative: int = 0
    unsupported: int = 0
    errors: int = 0
    inconclusive: int = 0
    outcomes: dict[str, int] = Field(default_factory=dict)
    rate: RateEntry = Field(default_factory=RateEntry)
    max_decorative_rate: float | None = None  # the [probe] bound this kind was judged against


class ProbeGatesRecord(OrderedRecord):
    """The [probe] bounds the run was judged against, and the ones it broke."""

    source: str | None = None  # the gates file
    decorative_rate: dict[str, float | None] = Field(default_factory=dict)
    citation_faithfulness: float | None = None
    failed: list[str] = Field(default_factory=list)


class ProbeDocument(OrderedRecord):
    """probe.json."""

    run_id: str | None = None
    dataset: str | None = None  # the dataset the questions were generated from
    schema_version: int = PROBE_SCHEMA_VERSION
    kinds: dict[str, ProbeKind]
    citation_faithfulness: RateEntry | None = None
    takes_context: bool | None = None  # None: no counterfactual case was asked
    errors: int = 0
    verdict: str | None = None  # verifiable | decorative | incomplete
    gates: ProbeGatesRecord | None = None

    @property
    def failed(self) -> list[str]:
        return self.gates.failed if self.gates is not None else []


class ProbeRequest(OrderedRecord):
    """What a probe run asked, beside the questions it generated: the kinds, the per-kind limit,
    the dataset they came from. `citeval probe --resume` and the judging read it back."""

    kinds: list[str]
    limit: int | None = None
    source: str | None = None
