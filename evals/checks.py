"""Deterministic citation checks (DESIGN 4 and 6): every marker, claim and link of an answer
against the provenance registry, without any model. Produces findings and the per-marker
facts that the metrics stage counts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from .data.models import Answer, Chunk, Claim, Evidence, Finding, Question, Version, VersionStatus
from .data.registry import Registry, url_has_prefix
from .data.text import MARKER_IDS, extract_numbers, normalize, split_sentences, strip_markers
from .data.tokens import content_tokens

_MARKER = re.compile(r"\s*\[\s*(" + MARKER_IDS + r")\s*\]")
_MARKER_ID = re.compile(r"[A-Za-zА-Яа-я]{0,3}\d+")
_PAGE_IN_URL = re.compile(r"(?:^|[#?&])page=(\d+)")
LEAK_WINDOW = 24
# Findings about answer quality against gold, not about citation integrity.
QUALITY_CODES = frozenset({"SHOULD_HAVE_ABSTAINED", "UNNEEDED_ABSTENTION", "BACKEND_ERROR"})


def derive_claims(answer_text: str) -> list[Claim]:
    """Claims of an answer that has none: its sentences, each owning the markers in it
    (a marker after closing punctuation belongs to the sentence before it)."""
    claims: list[Claim] = []
    for sentence in split_sentences(answer_text):
        ids: list[str] = []
        for match in _MARKER.finditer(sentence.text):
            for token in _MARKER_ID.findall(match.group(1)):
                if token not in ids:
                    ids.append(token)
        text = strip_markers(sentence.text)
        if not text:
            continue
        claims.append(
            Claim(claim_id=f"s{len(claims) + 1}", text=text, evidence_ids=ids, span=(sentence.start, sentence.end))
        )
    return claims


def claims_of(answer: Answer) -> list[Claim]:
    """The answer's claims, derived from answer_text when it gives none (DESIGN 3)."""
    if answer.status != "answered":
        return []
    return list(answer.claims) if answer.claims else derive_claims(answer.answer_text)


def claim_quotes(claim: Claim) -> list[str]:
    quotes = getattr(claim, "quotes", None) or ([claim.quote] if claim.quote else [])
    return [q for q in quotes if isinstance(q, str) and q.strip()]


def is_substantive(text: str) -> bool:
    """A claim worth a citation: two content words or a number, and not a lead-in ending in a
    colon ("Да.", "Итак:" and "По действующим документам:" need no marker)."""
    if text.rstrip().endswith(":"):
        return False
    return len(content_tokens(text)) >= 2 or bool(extract_numbers(text))


@lru_cache(maxsize=65536)
def _norm(text: str) -> str:
    return normalize(text)


@lru_cache(maxsize=65536)
def _numbers(text: str) -> frozenset[str]:
    return frozenset(m.value for m in extract_numbers(text))


@lru_cache(maxsize=16384)
def _windows(text: str) -> frozenset[str]:
    norm = _norm(text)
    return frozenset(norm[i : i + LEAK_WINDOW] for i in range(len(norm) - LEAK_WINDOW + 1))


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

    @property
    def markers(self) -> list[MarkerCheck]:
        return [m for c in self.claims for m in c.markers]

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}


def _evidence_index(answer: Answer) -> dict[str, Evidence]:
    index = {e.evidence_id: e for e in answer.evidence}
    # "[1]" may stand for evidence "E1" when the answer's ids carry a prefix
    for e in answer.evidence:
        digits = re.sub(r"^[A-Za-zА-Яа-я]+", "", e.evidence_id)
        if digits and digits != e.evidence_id:
            index.setdefault(digits, e)
    return index


def _named_edition(registry: Registry, evidence: Evidence, chunk: Chunk | None) -> Version | None:
    version_id = chunk.version_id if chunk else evidence.version_id
    return registry.versions.get(version_id) if version_id else None


def _anchor_text(registry: Registry, evidence: Evidence, chunk: Chunk) -> str:
    """The registry text the evidence points at: its char span when the full text is known, else the chunk."""
    if evidence.chunk_id is None and evidence.char_start is not None and evidence.char_end is not None:
        full = registry.text(chunk.version_id)
        if full is not None:
            return full[evidence.char_start : evidence.char_end]
    return chunk.text


def leaks_text(url: str, text: str, registry_prefix: str | None = None) -> bool:
    """DESIGN 6: the decoded, normalized URL holds 24+ consecutive characters of the text,
    or a text-fragment directive. The registry's own prefix of the URL is not searched."""
    if registry_prefix and url.startswith(registry_prefix.rstrip("/")):
        url = url[len(registry_prefix.rstrip("/")) :]
    decoded = unquote(url.replace("+", " "))
    if "#:~:text=" in decoded or ":~:text=" in url:
        return True
    url_norm = _norm(decoded)
    if len(url_norm) < LEAK_WINDOW:
        return False
    windows = _windows(text)
    return any(url_norm[i : i + LEAK_WINDOW] in windows for i in range(len(url_norm) - LEAK_WINDOW + 1))


def check_answer(question: Question, answer: Answer, registry: Registry, asked_at: datetime) -> AnswerCheck:
    """Every deterministic check of one answer; findings carry question, claim and evidence ids."""
    result = AnswerCheck(question, answer, asked_at)
    qid = question.question_id
    add = result.findings.append
    gold = question.gold.should_abstain if question.gold else None

    if answer.status == "error":
        message = f"{answer.error.type}: {answer.error.message}" if answer.error else "backend error"
        add(Finding(question_id=qid, code="BACKEND_ERROR", detail=message))
        return result
    if answer.status == "abstained":
        if gold is False:
            add(Finding(question_id=qid, code="UNNEEDED_ABSTENTION", detail="gold says the question is answerable"))
        return result
    if gold is True:
        add(Finding(question_id=qid, code="SHOULD_HAVE_ABSTAINED", detail="gold says the assistant must refuse"))

    evidence = _evidence_index(answer)
    checked: dict[str, MarkerCheck] = {}  # one registry verdict per evidence record

    def check_evidence(evidence_id: str) -> MarkerCheck:
        if evidence_id in checked:
            return checked[evidence_id]
        mc = MarkerCheck(claim_id="", evidence_id=evidence_id)
        checked[evidence_id] = mc
        ev = evidence.get(evidence_id)
        if ev is None:
            mc.codes.append("UNKNOWN_EVIDENCE_ID")
            return mc
        mc.evidence = ev
        mc.chunk = registry.resolve(ev)
        mc.edition = _named_edition(registry, ev, mc.chunk)
        if mc.edition is not None:
            mc.status = mc.edition.status_at(asked_at)
            if mc.status is VersionStatus.deleted:
                mc.codes.append("VERSION_DELETED")
            elif mc.status is VersionStatus.revoked:
                mc.codes.append("VERSION_REVOKED")
            elif mc.status is VersionStatus.not_yet_effective:
                mc.codes.append("VERSION_NOT_YET_EFFECTIVE")
            elif mc.status is VersionStatus.superseded and not answer.stale_notice:
                mc.codes.append("VERSION_SUPERSEDED")
        if mc.chunk is None:
            mc.codes.append("UNRESOLVED_CHUNK")
            return mc
        chunk = mc.chunk
        if ev.text is not None and _norm(ev.text) not in _norm(_anchor_text(registry, ev, chunk)):
            mc.codes.append("CHUNK_TEXT_MISMATCH")
        if not registry.can_read(question.user, chunk.document_id, asked_at):
            mc.codes.append("ACCESS_DENIED")
        if (ev.document_id and ev.document_id != chunk.document_id) or (
            ev.page is not None
            and chunk.page_start is not None
            and not chunk.page_start <= ev.page <= (chunk.page_end or chunk.page_start)
        ):
            mc.codes.append("ANCHOR_MISMATCH")
        return mc

    # links are checked once each, against the edition of the evidence they belong to
    link_codes: dict[str, list[str]] = {}
    for link in answer.links:
        codes = link_codes.setdefault(link.evidence_id, [])
        scheme = urlsplit(link.url.strip()).scheme.lower()
        if scheme not in ("http", "https"):
            codes.append("LINK_UNSAFE_SCHEME")
            continue
        mc = check_evidence(link.evidence_id) if link.evidence_id in evidence else None
        cited = mc.edition if mc else None
        if cited is not None and cited.viewer_url and url_has_prefix(link.url, cited.viewer_url):
            page = _PAGE_IN_URL.search(urlsplit(link.url).fragment or urlsplit(link.url).query or "")
            chunk = mc.chunk if mc else None
            if page and chunk and chunk.page_start is not None:
                if not chunk.page_start <= int(page.group(1)) <= (chunk.page_end or chunk.page_start):
                    codes.append("ANCHOR_MISMATCH")
        else:
            other = registry.version_for_url(link.url)
            if other is not None:
                codes.append("LINK_VERSION_REDIRECT")
                result.link_redirect = True
            else:
                codes.append("LINK_NOT_FROM_REGISTRY")
        source_text = (mc.chunk.text if mc and mc.chunk else (mc.evidence.text if mc and mc.evidence else None)) or ""
        if leaks_text(link.url, source_text, cited.viewer_url if cited else None):
            codes.append("LINK_LEAKS_TEXT")

    emitted: set[tuple[str | None, str | None, str]] = set()

    def emit(code: str, claim_id: str | None, evidence_id: str | None, detail: str) -> None:
        key = (claim_id, evidence_id, code)
        if key not in emitted:
            emitted.add(key)
            add(Finding(question_id=qid, claim_id=claim_id, evidence_id=evidence_id, code=code, detail=detail))

    for claim in claims_of(answer):
        cc = ClaimCheck(claim=claim, markers=[], substantive=is_substantive(claim.text))
        for evidence_id in claim.evidence_ids:
            base = check_evidence(evidence_id)
            codes = [*base.codes, *link_codes.get(evidence_id, [])]
            mc = MarkerCheck(
                claim_id=claim.claim_id,
                evidence_id=evidence_id,
                evidence=base.evidence,
                chunk=base.chunk,
                edition=base.edition,
                status=base.status,
                codes=codes,
            )
            mc.valid = not set(codes) & _INVALIDATING
            cc.markers.append(mc)
            for code in codes:
                emit(code, claim.claim_id, evidence_id, _detail(code, mc))
        if not claim.evidence_ids and cc.substantive:
            emit("CLAIM_UNCITED", claim.claim_id, None, "a claim without a citation marker")
        cited_chunks = [m.chunk for m in cc.markers if m.chunk is not None]
        quotes = claim_quotes(claim)
        if quotes:
            cc.quote_ok = True
            for quote in quotes:
                needle = _norm(quote)
                holders = [m for m in cc.markers if m.chunk is not None and needle in _norm(m.chunk.text)]
                if not holders:
                    cc.quote_ok = False
                    emit("QUOTE_NOT_FOUND", claim.claim_id, None, f"quote not in any cited chunk: {quote[:80]!r}")
                elif not any(
                    m.evidence is None or needle in _norm(_anchor_text(registry, m.evidence, m.chunk))
                    for m in holders
                    if m.chunk is not None
                ):
                    emit(
                        "QUOTE_OUTSIDE_ANCHOR",
                        claim.claim_id,
                        holders[0].evidence_id,
                        "quote is in the chunk but outside the cited span",
                    )
        numbers = {m.value for m in extract_numbers(strip_markers(claim.text))}
        if numbers:
            sources = [c.text for c in cited_chunks] or [
                m.evidence.text for m in cc.markers if m.evidence is not None and m.evidence.text
            ]
            available = set().union(*(_numbers(text) for text in sources))
            missing = sorted(numbers - available)
            cc.numbers_ok = not missing
            if missing:
                emit("NUMBER_UNSUPPORTED", claim.claim_id, None, f"not in cited evidence: {', '.join(missing)}")
        result.claims.append(cc)

    # a link on evidence that no claim cites still gets its findings
    cited_ids = {m.evidence_id for m in result.markers}
    for evidence_id, codes in link_codes.items():
        if evidence_id not in cited_ids:
            for code in codes:
                emit(code, None, evidence_id, "link of evidence no claim cites")
    return result


# Problems that make a marker invalid (DESIGN 6, citation_validity).
_INVALIDATING = frozenset(
    {
        "UNKNOWN_EVIDENCE_ID",
        "UNRESOLVED_CHUNK",
        "CHUNK_TEXT_MISMATCH",
        "ACCESS_DENIED",
        "VERSION_DELETED",
        "LINK_NOT_FROM_REGISTRY",
        "LINK_VERSION_REDIRECT",
        "LINK_LEAKS_TEXT",
        "LINK_UNSAFE_SCHEME",
    }
)


def _detail(code: str, mc: MarkerCheck) -> str:
    edition = mc.edition.version_id if mc.edition else "?"
    return {
        "UNKNOWN_EVIDENCE_ID": f"marker {mc.evidence_id} is not in the evidence set",
        "UNRESOLVED_CHUNK": "evidence matches no registry chunk",
        "CHUNK_TEXT_MISMATCH": f"evidence text differs from registry chunk {mc.chunk.chunk_id if mc.chunk else '?'}",
        "ACCESS_DENIED": f"user may not read {mc.chunk.document_id if mc.chunk else '?'} at asked_at",
        "VERSION_SUPERSEDED": f"edition {edition} was superseded at asked_at",
        "VERSION_REVOKED": f"edition {edition} was revoked at asked_at",
        "VERSION_DELETED": f"edition {edition} was deleted at asked_at",
        "VERSION_NOT_YET_EFFECTIVE": f"edition {edition} was not yet in force at asked_at",
        "ANCHOR_MISMATCH": "page or document of the citation disagrees with the registry chunk",
    }.get(code, code.lower().replace("_", " "))
