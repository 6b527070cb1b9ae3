"""The check objects (DESIGN 4 and 6): what the deterministic checks found about one answer, its
claims and their markers. evals.score.checks fills them; gold, joint and the metrics only read
them, so they live apart from the checks and every reader depends on this module alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from evals.contract.models import Answer, Chunk, Claim, Evidence, Finding, Question, Version, VersionStatus

# Findings that grade an answer against its question's gold rather than check a citation against
# the registry carry `basis: "gold"` (a field DESIGN 4 allows adding): KEY_FACT_MISSING,
# GOLD_EVIDENCE_NOT_CITED, and ANCHOR_MISMATCH of a marker that misses the gold anchor.
GOLD_BASIS = "gold"


def is_gold_finding(finding: Finding) -> bool:
    return (finding.model_extra or {}).get("basis") == GOLD_BASIS


@dataclass
class MarkerCheck:
    """One marker: a (claim, evidence id) pair with what the registry says about it."""

    claim_id: str
    evidence_id: str
    evidence: Evidence | None = None
    chunk: Chunk | None = None
    edition: Version | None = None  # the registry edition the evidence names, resolved or not
    status: VersionStatus | None = None
    codes: list[str] = field(default_factory=list)
    valid: bool = False


@dataclass
class ClaimCheck:
    claim: Claim
    markers: list[MarkerCheck]
    quote_ok: bool | None = None  # None: the claim has no quote
    numbers_ok: bool | None = None  # None: the claim has no number
    substantive: bool = True


@dataclass
class AnswerCheck:
    question: Question
    answer: Answer
    asked_at: datetime
    claims: list[ClaimCheck] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    link_redirect: bool = False
    # Against gold (None where gold has nothing to compare): per gold key fact, stated or not;
    # per gold evidence item, reached by a valid marker or not.
    key_facts_stated: list[bool] | None = None
    gold_evidence_reached: list[bool] | None = None

    @property
    def markers(self) -> list[MarkerCheck]:
        return [m for c in self.claims for m in c.markers]

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}

    @property
    def integrity_findings(self) -> list[Finding]:
        """The findings of the registry checks, without those that grade the answer against gold
        key facts, evidence and anchors (`basis: "gold"`)."""
        return [f for f in self.findings if not is_gold_finding(f)]
