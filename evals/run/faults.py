"""Fault injection: change a good answer in one known way, to prove each check catches it.

Each kind returns a changed copy of the answer with `raw["fault"]` saying what changed, or
None when the kind does not apply to that answer (e.g. no edition with the needed status).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import quote as url_quote

from evals.contract.models import Answer, Chunk, Claim, Evidence, Link, Question, VersionStatus
from evals.data.registry import Registry
from evals.score.checks import claims_of, is_substantive
from evals.text.normalize import extract_numbers, split_sentences

FABRICATED_QUOTE = "Настоящее требование утверждено решением наблюдательного совета от 31.02.2019"

Fault = Callable[[Answer, Question, Registry, datetime], "Answer | None"]


def _explicit(answer: Answer) -> Answer:
    """A copy whose claims are explicit (derived from answer_text when the answer had none)."""
    copy = answer.model_copy(deep=True)
    copy.claims = [c.model_copy(deep=True) for c in claims_of(answer)]
    return copy


def _first_cited(answer: Answer, substantive: bool = False) -> tuple[Claim, Evidence] | None:
    """The first (claim, evidence) the answer cites; with substantive, only claims worth a
    citation count (a lead-in such as "Виды обучения:" losing its marker is no fault)."""
    evidence = {e.evidence_id: e for e in answer.evidence}
    for claim in answer.claims:
        if substantive and not is_substantive(claim.text):
            continue
        for evidence_id in claim.evidence_ids:
            if evidence_id in evidence:
                return claim, evidence[evidence_id]
    return None


def _mark(answer: Answer, kind: str, what: str) -> Answer:
    raw = answer.raw if isinstance(answer.raw, dict) else {"original_raw": answer.raw}
    answer.raw = {**raw, "fault": {"kind": kind, "changed": what}}
    return answer


def _retarget(answer: Answer, evidence: Evidence, chunk: Chunk, registry: Registry) -> None:
    """Point an evidence record (and its links) at another registry chunk."""
    evidence.chunk_id = chunk.chunk_id
    evidence.document_id = chunk.document_id
    evidence.version_id = chunk.version_id
    evidence.page = chunk.page_start
    evidence.char_start, evidence.char_end = chunk.char_start, chunk.char_end
    evidence.text = chunk.text
    viewer = registry.versions[chunk.version_id].viewer_url
    for link in answer.links:
        if link.evidence_id == evidence.evidence_id and viewer:
            link.url = viewer.rstrip("/") + (f"#page={chunk.page_start}" if chunk.page_start else "")


def _edition_chunk(
    registry: Registry,
    question: Question,
    asked_at: datetime,
    status: VersionStatus,
    prefer_document: str | None,
    readable: bool = True,
) -> Chunk | None:
    """A chunk of an edition with the given status at asked_at, of the same document if possible."""
    candidates = []
    for version in sorted(registry.versions.values(), key=lambda v: v.version_id):
        if version.status_at(asked_at) is not status:
            continue
        if registry.can_read(question.user, version.document_id, asked_at) != readable:
            continue
        chunks = registry.chunks_of(version.version_id)
        if chunks:
            candidates.append((version.document_id != prefer_document, version.version_id, chunks[0]))
    return min(candidates, key=lambda c: c[:2])[2] if candidates else None


# A change to the first cited (claim, evidence) of an answer copy: edits it in place and says
# what it changed, or returns None when it cannot apply.
CitedChange = Callable[[Answer, Claim, Evidence, Question, Registry, datetime], "str | None"]


def _on_first_citation(kind: str, change: CitedChange, substantive: bool = False) -> Fault:
    def fault(answer: Answer, question: Question, registry: Registry, asked_at: datetime) -> Answer | None:
        out = _explicit(answer)
        found = _first_cited(out, substantive)
        if found is None:
            return None
        what = change(out, found[0], found[1], question, registry, asked_at)
        return None if what is None else _mark(out, kind, what)

    return fault


def _swap_edition(status: VersionStatus) -> CitedChange:
    def change(
        out: Answer, claim: Claim, evidence: Evidence, question: Question, registry: Registry, asked_at: datetime
    ) -> str | None:
        chunk = _edition_chunk(registry, question, asked_at, status, evidence.document_id)
        if chunk is None:
            return None
        # same heading path in the other edition when there is one: the closest real counterpart
        original = registry.resolve(evidence)
        same = [c for c in registry.chunks_of(chunk.version_id) if original and c.heading_path == original.heading_path]
        target = same[0] if same else chunk
        _retarget(out, evidence, target, registry)
        return f"{evidence.evidence_id} now cites {target.version_id} ({status.value} at asked_at)"

    return change


def _unknown_marker(
    out: Answer, claim: Claim, evidence: Evidence, question: Question, registry: Registry, asked_at: datetime
) -> str | None:
    claim.evidence_ids = ["E99" if e == evidence.evidence_id else e for e in claim.evidence_ids]
    out.answer_text = re.sub(rf"\b{re.escape(evidence.evidence_id)}\b", "E99", out.answer_text, count=1)
    return f"claim {claim.claim_id} cites E99 instead of {evidence.evidence_id}"


def _forbidden_document(
    out: Answer, claim: Claim, evidence: Evidence, question: Question, registry: Registry, asked_at: datetime
) -> str | None:
    chunk = _edition_chunk(registry, question, asked_at, VersionStatus.active, None, readable=False)
    if chunk is None:
        return None
    _retarget(out, evidence, chunk, registry)
    return f"{evidence.evidence_id} now cites {chunk.document_id}, closed to the user"


def changed_number(answer: Answer, question: Question, registry: Registry, asked_at: datetime) -> Answer | None:
    out = _explicit(answer)
    for claim in out.claims:
        numbers = [m for m in extract_numbers(claim.text) if m.kind in ("number", "percent")]
        if numbers:
            m = numbers[-1]
            new = str(int(float(m.value)) + 7) if float(m.value) >= 1 else "17"
            claim.text = claim.text[: m.start] + new + claim.text[m.end :]
            out.answer_text = out.answer_text.replace(m.text, new, 1)
            return _mark(out, "changed_number", f"claim {claim.claim_id}: {m.text} → {new}")
    if not out.claims:
        return None
    claim = out.claims[0]
    claim.text = claim.text.rstrip(".") + " — не позднее 17 дней."
    return _mark(out, "changed_number", f"claim {claim.claim_id}: added an unsupported deadline of 17 days")


def fabricated_quote(answer: Answer, question: Question, registry: Registry, asked_at: datetime) -> Answer | None:
    out = _explicit(answer)
    if not out.claims:
        return None
    claim = out.claims[0]
    claim.quote = FABRICATED_QUOTE
    if hasattr(claim, "quotes"):
        claim.quotes = [FABRICATED_QUOTE]  # type: ignore[attr-defined]
    return _mark(out, "fabricated_quote", f"claim {claim.claim_id} quotes a sentence no document holds")


def _set_link(make: Callable[[Evidence, Registry], str | None]) -> CitedChange:
    def change(
        out: Answer, claim: Claim, evidence: Evidence, question: Question, registry: Registry, asked_at: datetime
    ) -> str | None:
        url = make(evidence, registry)
        if url is None:
            return None
        out.links = [link for link in out.links if link.evidence_id != evidence.evidence_id]
        out.links.append(Link(evidence_id=evidence.evidence_id, url=url))
        return f"link of {evidence.evidence_id} set to {url[:120]}"

    return change


def _redirect(evidence: Evidence, registry: Registry) -> str | None:
    cited = evidence.version_id
    document = registry.versions[cited].document_id if cited in registry.versions else None
    others = [v for v in registry.versions.values() if v.viewer_url and v.version_id != cited]
    # another edition of the same document first: the redirect a real viewer would do
    others.sort(key=lambda v: (v.document_id != document, v.version_id))
    return others[0].viewer_url if others else None


def _leak(evidence: Evidence, registry: Registry) -> str | None:
    version = registry.versions.get(evidence.version_id or "")
    text = evidence.text or ""
    if version is None or not version.viewer_url or len(text) < 30:
        return None
    return f"{version.viewer_url}?q={url_quote(text[:60])}"


def _uncited_claim(
    out: Answer, claim: Claim, evidence: Evidence, question: Question, registry: Registry, asked_at: datetime
) -> str | None:
    removed = claim.evidence_ids
    claim.evidence_ids = []
    for evidence_id in removed:
        out.answer_text = re.sub(rf"\s*\[{re.escape(evidence_id)}\]", "", out.answer_text, count=1)
    return f"claim {claim.claim_id} lost its markers {removed}"


def merged_claims(answer: Answer, question: Question, registry: Registry, asked_at: datetime) -> Answer | None:
    out = _explicit(answer)
    cited = [c for c in out.claims if c.evidence_ids]
    if len(cited) >= 2 and is_substantive(cited[0].text):
        first, last = cited[0], cited[-1]
        last.evidence_ids = list(dict.fromkeys(first.evidence_ids + last.evidence_ids))
        first.evidence_ids = []
        return _mark(out, "merged_claims", f"markers of {first.claim_id} moved after {last.claim_id}")
    found = _first_cited(out)
    if found is None:
        return None
    claim, evidence = found
    # one claim only: add a second statement from the same evidence and put one marker after both
    extra_text = next(
        (s.text for s in split_sentences(evidence.text or "") if s.text not in claim.text and is_substantive(s.text)),
        None,
    )
    if not extra_text:
        return None
    lead = Claim(claim_id=f"{claim.claim_id}m", text=extra_text, evidence_ids=[])
    out.claims.insert(out.claims.index(claim), lead)
    return _mark(out, "merged_claims", f"claim {lead.claim_id} shares the marker of {claim.claim_id}")


def _wrong_page(
    out: Answer, claim: Claim, evidence: Evidence, question: Question, registry: Registry, asked_at: datetime
) -> str | None:
    chunk = registry.resolve(evidence)
    if chunk is None or chunk.page_start is None:
        return None
    page = (chunk.page_end or chunk.page_start) + 1 if chunk.page_start == 1 else chunk.page_start - 1
    evidence.page = page
    for link in out.links:
        if link.evidence_id == evidence.evidence_id:
            link.url = re.sub(r"#page=\d+", f"#page={page}", link.url)
    return f"{evidence.evidence_id} points to page {page}, the chunk is on {chunk.page_start}"


def answered_instead_of_abstaining(
    answer: Answer, question: Question, registry: Registry, asked_at: datetime
) -> Answer | None:
    if answer.status != "abstained" or not (question.gold and question.gold.should_abstain):
        return None
    out = answer.model_copy(deep=True)
    out.status = "answered"
    out.abstain_reason = None
    out.answer_text = "Да, это предусмотрено внутренними документами больницы."
    return _mark(out, "answered_instead_of_abstaining", "answered a question that must be refused")


@dataclass(frozen=True)
class FaultKind:
    """One fault: its name (the SPEC of `faults:KIND`), the finding it must raise, and the change."""

    name: str
    expected: str
    apply: Fault


def _cited(name: str, expected: str, change: CitedChange, substantive: bool = False) -> FaultKind:
    return FaultKind(name, expected, _on_first_citation(name, change, substantive))


def _link(name: str, expected: str, make: Callable[[Evidence, Registry], str | None]) -> FaultKind:
    return _cited(name, expected, _set_link(make))


# The one table of fault kinds: the backend wrapper, the selftest and the benches read it.
FAULTS: dict[str, FaultKind] = {
    kind.name: kind
    for kind in (
        _cited("unknown_marker", "UNKNOWN_EVIDENCE_ID", _unknown_marker),
        _cited("superseded_edition", "VERSION_SUPERSEDED", _swap_edition(VersionStatus.superseded)),
        _cited("revoked_edition", "VERSION_REVOKED", _swap_edition(VersionStatus.revoked)),
        _cited("deleted_edition", "VERSION_DELETED", _swap_edition(VersionStatus.deleted)),
        _cited("forbidden_document", "ACCESS_DENIED", _forbidden_document),
        FaultKind("changed_number", "NUMBER_UNSUPPORTED", changed_number),
        FaultKind("fabricated_quote", "QUOTE_NOT_FOUND", fabricated_quote),
        _link("foreign_link", "LINK_NOT_FROM_REGISTRY", lambda e, r: f"https://regs-mirror.example.org/{e.document_id}/page"),
        _link("unsafe_link", "LINK_UNSAFE_SCHEME", lambda e, r: "javascript:alert(document.cookie)"),
        _link("redirect_link", "LINK_VERSION_REDIRECT", _redirect),
        _link("leaked_text_link", "LINK_LEAKS_TEXT", _leak),
        _cited("uncited_claim", "CLAIM_UNCITED", _uncited_claim, substantive=True),
        FaultKind("merged_claims", "CLAIM_UNCITED", merged_claims),
        _cited("wrong_page", "ANCHOR_MISMATCH", _wrong_page),
        FaultKind("answered_instead_of_abstaining", "SHOULD_HAVE_ABSTAINED", answered_instead_of_abstaining),
    )
}
FAULT_KINDS = tuple(FAULTS)


def apply_fault(kind: str, answer: Answer, question: Question, registry: Registry, asked_at: datetime) -> Answer | None:
    """The answer with one fault of this kind, or None where the kind does not apply."""
    if answer.status == "error":
        return None
    if kind != "answered_instead_of_abstaining" and answer.status != "answered":
        return None
    return FAULTS[kind].apply(answer, question, registry, asked_at)
