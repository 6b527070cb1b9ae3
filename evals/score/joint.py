"""Joint support (DESIGN 6 "Details"): a claim with several citations is judged on their evidence
together, as ALCE does (Gao et al. 2023, "Enabling Large Language Models to Generate Text with
Citations").

Judge units of a claim, from its valid markers (invalid markers count 0 and are never judged):
- one per (claim, cited evidence) pair, as before: evidence_id "E1";
- one for the union of the claim's valid cited evidence when it has two or more distinct valid
  markers: evidence_id = the ids sorted as strings and joined with "+" ("E1+E2"), the evidence
  texts given to the judge together as one input;
- leave-one-out units (the union without one marker, "E1+E3" when E2 is left out of
  E1+E2+E3), only where the verdict needs them: a claim with three or more valid markers
  whose union is supported while no fragment supports it alone. With two markers the
  leave-one-out set is the other pair, already judged.

Such rows are ordinary `support` labels of judgments.jsonl (DESIGN 5: a unit is question × claim
× evidence), so precedence is unchanged: a human or adjudicated label on "E1+E2" wins over the
judge's label on "E1+E2", a human label on the pair "E1" over the judge's on "E1".

What the metrics read (evals.score.metrics):
- a set of fragments supports the claim when its own label says "supported", or when one of its
  fragments supports the claim alone (a fragment that supports alone supports within any set);
- citation_completeness: the claim is supported when the union of its valid cited evidence is;
- citation_correctness: a valid pair counts as supporting when its label alone is "supported",
  or when it was judged (partial / unsupported) and the union supports the claim while the
  union without it does not. A pair without a judged label alone stays out of the ratio, and
  without a verdict on the set left over the pair gets no joint credit.

This module holds no judge: the units are made and judged in evals.score.judges.joint, so the
deterministic checks read union_texts and missing_in_union without loading the judge stack
(an LLM judge pulls in the HTTP client).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache

from evals.score.facts import ClaimCheck, MarkerCheck
from evals.text.normalize import missing_numbers

UNION_SEPARATOR = "+"
SupportLabels = Mapping[tuple[str, str | None, str | None, str], str]  # (question, claim, evidence, field) → value
JUDGED = ("supported", "partial", "unsupported")


def set_id(evidence_ids: Iterable[str]) -> str:
    """The evidence_id of a set of fragments in judgments.jsonl: ids sorted, joined with "+"
    (a single id stays as it is)."""
    return UNION_SEPARATOR.join(sorted(set(evidence_ids)))


def valid_cited(markers: Sequence[MarkerCheck]) -> list[MarkerCheck]:
    """The claim's valid markers that resolve to a registry chunk, each evidence id once, in order."""
    seen: set[str] = set()
    out = []
    for m in markers:
        if m.valid and m.chunk is not None and m.evidence_id not in seen:
            seen.add(m.evidence_id)
            out.append(m)
    return out


def union_texts(markers: Sequence[MarkerCheck]) -> list[str]:
    """The texts a claim's numbers are looked up in (number_support, NUMBER_UNSUPPORTED): the
    union of its valid cited chunks. A claim without a valid marker is looked up in the chunks it
    cites all the same (else, none resolving, in the texts its evidence carries): its invalid
    marker is already its own finding and counts 0 in validity, correctness and completeness, so
    one fault stays one finding."""
    valid = valid_cited(markers)
    chunks = valid or [m for m in markers if m.chunk is not None]
    if chunks:
        return distinct_texts(m.chunk.text for m in chunks if m.chunk is not None)
    return distinct_texts(m.evidence.text for m in markers if m.evidence is not None and m.evidence.text)


def missing_in_union(claim_text: str, markers: Sequence[MarkerCheck]) -> list[str]:
    """Values of the claim's numbers that no text of `union_texts` holds (data.text.missing_numbers)."""
    return list(_missing(claim_text, tuple(union_texts(markers))))


@lru_cache(maxsize=65536)
def _missing(claim_text: str, texts: tuple[str, ...]) -> tuple[str, ...]:
    # the same claim against the same fragments recurs across a log's answers: read it once
    return tuple(missing_numbers(claim_text, texts))


def distinct_texts(texts: Iterable[str]) -> list[str]:
    out: list[str] = []
    for text in texts:
        if text not in out:
            out.append(text)
    return out


# --- verdicts the metrics read ---------------------------------------------------------------


def own_label(labels: SupportLabels, qid: str, cid: str | None, evidence_ids: Sequence[str]) -> str | None:
    """The label of exactly this set of fragments (no credit from a fragment that supports alone)."""
    return labels.get((qid, cid, set_id(evidence_ids), "support"))


def set_support(labels: SupportLabels, qid: str, cid: str | None, evidence_ids: Sequence[str]) -> str | None:
    """The support of a set of fragments: "supported" when its label says so or one fragment
    supports alone; else its own label (None when unlabelled)."""
    if len(set(evidence_ids)) > 1 and any(own_label(labels, qid, cid, [e]) == "supported" for e in evidence_ids):
        return "supported"
    return own_label(labels, qid, cid, evidence_ids)


def union_support(labels: SupportLabels, qid: str, cc: ClaimCheck) -> str | None:
    """The support of the union of the claim's valid cited evidence (None: no valid marker, or unlabelled)."""
    ids = [m.evidence_id for m in valid_cited(cc.markers)]
    return set_support(labels, qid, cc.claim.claim_id, ids) if ids else None


def pair_credit(labels: SupportLabels, qid: str, cc: ClaimCheck, marker: MarkerCheck) -> bool | None:
    """Whether a valid pair counts as supporting in citation_correctness (None: left out): its
    evidence supports the claim alone, or the union supports it and loses that support without it."""
    alone = labels.get((qid, marker.claim_id, marker.evidence_id, "support"))
    if alone not in JUDGED:
        return None
    if alone == "supported":
        return True
    ids = [m.evidence_id for m in valid_cited(cc.markers)]
    rest = [e for e in ids if e != marker.evidence_id]
    if not rest or union_support(labels, qid, cc) != "supported":
        return False
    without = set_support(labels, qid, cc.claim.claim_id, rest)
    return without in ("partial", "unsupported")
