"""Deterministic citation checks (DESIGN 4 and 6): every marker, claim and link of an answer
against the provenance registry, without any model. Produces findings and the per-marker
facts that the metrics stage counts."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from rapidfuzz import fuzz

from evals.contract.models import Answer, Chunk, Claim, Evidence, Finding, Question, Version, VersionStatus
from evals.data.registry import Registry, url_has_prefix
from evals.score.facts import GOLD_BASIS, AnswerCheck, ClaimCheck, MarkerCheck
from evals.score.gold import cited_place, gold_evidence_reached, gold_place, misplaced_markers
from evals.score.joint import missing_in_union
from evals.score.keyfacts import stated_facts
from evals.text.normalize import (
    MARKER_IDS,
    extract_numbers,
    markers_lead,
    normalize,
    split_sentences,
    strip_markers,
)
from evals.text.tokens import is_stopword, words

_MARKER = re.compile(r"\s*\[\s*(" + MARKER_IDS + r")\s*\]")
_MARKER_ID = re.compile(r"[A-Za-zА-Яа-я]{0,3}\d+")
_PAGE_IN_URL = re.compile(r"(?:^|[#?&])page=(\d+)")
LEAK_WINDOW = 24
# Findings about answer quality against gold, not about citation integrity.
QUALITY_CODES = frozenset({"SHOULD_HAVE_ABSTAINED", "UNNEEDED_ABSTENTION", "BACKEND_ERROR", "ANSWER_TRUNCATED"})


def derive_claims(answer_text: str) -> list[Claim]:
    """Claims of an answer that has none: its sentences, each owning the markers in it
    (a marker after closing punctuation belongs to the sentence before it — unless the answer's
    markers lead their sentences, "[1] One. [2] Two.": normalize.markers_lead)."""
    claims: list[Claim] = []
    for sentence in split_sentences(answer_text, leading_markers=markers_lead(answer_text)):
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
    # "quotes" is an extra field (Record keeps unknown fields); read from the extras, not through
    # getattr, whose miss walks pydantic's slow path on every claim
    quotes = (claim.model_extra or {}).get("quotes") or ([claim.quote] if claim.quote else [])
    return [q for q in quotes if isinstance(q, str) and q.strip()]


def is_substantive(text: str) -> bool:
    """A claim worth a citation: two content words or a number, and not a lead-in ending in a
    colon ("Да.", "Итак:" and "По действующим документам:" need no marker)."""
    if text.rstrip().endswith(":"):
        return False
    return _has_content_words(text, 2) or bool(extract_numbers(text))


def _has_content_words(text: str, wanted: int) -> bool:
    """Whether text has `wanted` content words (what content_tokens keeps: digits and words that
    are no stopwords), counted without stemming and stopping at `wanted`."""
    found = 0
    for word in words(text):
        if word.isdigit() or not is_stopword(word):
            found += 1
            if found >= wanted:
                return True
    return False


# The same chunk texts come back answer after answer; claim texts rarely repeat. A few thousand
# entries keep the chunks of a working set while bounding what a worker holds (a few MB).
@lru_cache(maxsize=4096)
def _norm(text: str) -> str:
    return normalize(text)


@lru_cache(maxsize=4096)
def _numbers(text: str) -> frozenset[str]:
    return frozenset(m.value for m in extract_numbers(text))


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
    # each window of the (short) URL searched in the text: no set of the text's every window,
    # which for a chunk of a few thousand characters is hundreds of kB
    norm = _norm(text)
    return any(url_norm[i : i + LEAK_WINDOW] in norm for i in range(len(url_norm) - LEAK_WINDOW + 1))


def check_answer(question: Question, answer: Answer, registry: Registry, asked_at: datetime) -> AnswerCheck:
    """Every deterministic check of one answer; findings carry question, claim and evidence ids."""
    result = AnswerCheck(question, answer, asked_at)
    result.findings += status_findings(question, answer)
    if answer.status != "answered":
        return result
    truncated = truncation_finding(question.question_id, answer)
    if truncated is not None:
        result.findings.append(truncated)
    evidence = EvidenceChecker(question, answer, registry, asked_at)
    link_codes, result.link_redirect = check_links(answer, registry, evidence)
    emit = _Emitter(question.question_id, result.findings)
    for claim in claims_of(answer):
        result.claims.append(check_claim(claim, evidence, link_codes, registry, emit))
    # a link on evidence that no claim cites still gets its findings
    cited_ids = {m.evidence_id for m in result.markers}
    for evidence_id, codes in link_codes.items():
        if evidence_id not in cited_ids:
            for code in codes:
                emit(code, None, evidence_id, "link of evidence no claim cites")
    result.findings += gold_anchor_findings(result) + key_fact_findings(result) + gold_evidence_findings(result)
    return result


def _gold_finding(question_id: str, code: str, detail: str, claim_id: str | None = None,
                  evidence_id: str | None = None) -> Finding:
    return Finding.model_validate(
        {"question_id": question_id, "claim_id": claim_id, "evidence_id": evidence_id, "code": code, "detail": detail,
         "basis": GOLD_BASIS}
    )


def answer_text_of(check: AnswerCheck) -> str:
    """What the answer says, markers removed: its text, else its claims."""
    text = strip_markers(check.answer.answer_text or "")
    return text or " ".join(cc.claim.text for cc in check.claims)


def key_fact_findings(check: AnswerCheck) -> list[Finding]:
    """KEY_FACT_MISSING for each gold key fact the answer does not state (evals.score.keyfacts);
    records which facts are stated on the check."""
    gold = check.question.gold
    if gold is None or not gold.key_facts or check.answer.status != "answered":
        return []
    check.key_facts_stated = stated_facts(gold.key_facts, answer_text_of(check))
    return [
        _gold_finding(
            check.question.question_id, "KEY_FACT_MISSING", f"gold key fact «{fact}» is not stated in the answer"
        )
        for fact, stated in zip(gold.key_facts, check.key_facts_stated, strict=True)
        if not stated
    ]


def gold_evidence_findings(check: AnswerCheck) -> list[Finding]:
    """GOLD_EVIDENCE_NOT_CITED for each gold evidence item no valid marker reaches (same
    document, edition and place, evals.score.gold); records which items are reached on the check."""
    gold = check.question.gold
    if gold is None or not gold.evidence or check.answer.status != "answered":
        return []
    reached = gold_evidence_reached(check)
    check.gold_evidence_reached = [ok for _, ok in reached]
    cited = sorted({cited_place(m.chunk, m.evidence) for m in check.markers if m.valid and m.chunk is not None})
    cites = f"; the answer cites {', '.join(cited[:3])}" if cited else "; the answer cites no valid registry passage"
    return [
        _gold_finding(
            check.question.question_id,
            "GOLD_EVIDENCE_NOT_CITED",
            f"gold evidence {gold_place(g)} is reached by no valid marker{cites}",
        )
        for g, ok in reached
        if not ok
    ]


def gold_anchor_findings(check: AnswerCheck) -> list[Finding]:
    """ANCHOR_MISMATCH for a valid marker to a gold document and edition that matches none of
    its gold anchors (DESIGN 6): the detail names the place cited and the gold place. A marker
    the registry already found misplaced keeps that finding only."""
    out: list[Finding] = []
    seen: set[tuple[str, str]] = set()
    for marker, items in misplaced_markers(check):
        if marker.chunk is None or (marker.claim_id, marker.evidence_id) in seen:
            continue
        seen.add((marker.claim_id, marker.evidence_id))
        gold = "; ".join(gold_place(g) for g in items[:2])
        detail = f"{marker.evidence_id} cites {cited_place(marker.chunk, marker.evidence)}; gold anchor: {gold}"
        out.append(_gold_finding(check.question.question_id, "ANCHOR_MISMATCH", detail, marker.claim_id,
                                 marker.evidence_id))
    return out


def status_findings(question: Question, answer: Answer) -> list[Finding]:
    """What the answer's status says against gold: a backend error, an abstention gold
    calls unneeded, or an answer where gold says the assistant must refuse."""
    qid = question.question_id
    gold = question.gold.should_abstain if question.gold else None
    if answer.status == "error":
        message = f"{answer.error.type}: {answer.error.message}" if answer.error else "backend error"
        return [Finding(question_id=qid, code="BACKEND_ERROR", detail=message)]
    if answer.status == "abstained":
        if gold is False:
            return [Finding(question_id=qid, code="UNNEEDED_ABSTENTION", detail="gold says the question is answerable")]
        return []
    if gold is True:
        return [Finding(question_id=qid, code="SHOULD_HAVE_ABSTAINED", detail="gold says the assistant must refuse")]
    return []


# Anthropic stop reasons that leave the answer unfinished. pause_turn: a long server-tool turn
# was paused and the bot showed what it had; the context-window stop cuts like max_tokens.
_CUT_STOP_REASONS = {
    "max_tokens": "the model hit its output limit",
    "model_context_window_exceeded": "the model ran out of context window",
    "pause_turn": "the turn was paused before the answer was finished",
}


def truncation_reason(raw: object) -> str | None:
    """Why the backend's raw payload says the answer was cut, or None: Anthropic's
    stop_reason "max_tokens", "model_context_window_exceeded" or "pause_turn" (the whole
    Messages response or a dict carrying stop_reason),
    OpenAI's finish_reason "length" (on the payload or on any of its choices)."""
    if not isinstance(raw, dict):
        return None
    stop_reason = raw.get("stop_reason")
    if stop_reason in _CUT_STOP_REASONS:
        return f"stop_reason {stop_reason}: {_CUT_STOP_REASONS[stop_reason]}"
    choices = raw.get("choices")
    reasons = [raw.get("finish_reason")]
    if isinstance(choices, list):
        reasons += [c.get("finish_reason") for c in choices if isinstance(c, dict)]
    if "length" in reasons:
        return "finish_reason length: the model hit its output limit"
    return None


def truncation_finding(question_id: str, answer: Answer) -> Finding | None:
    """ANSWER_TRUNCATED for an answered answer whose raw payload says it was cut (DESIGN 3, 4)."""
    reason = truncation_reason(answer.raw) if answer.status == "answered" else None
    return Finding(question_id=question_id, code="ANSWER_TRUNCATED", detail=reason) if reason else None


class EvidenceChecker:
    """The registry verdict on each evidence record of one answer, computed once per record."""

    def __init__(self, question: Question, answer: Answer, registry: Registry, asked_at: datetime) -> None:
        self.question = question
        self.answer = answer
        self.registry = registry
        self.asked_at = asked_at
        self.index = _evidence_index(answer)
        self._checked: dict[str, MarkerCheck] = {}

    def __contains__(self, evidence_id: str) -> bool:
        return evidence_id in self.index

    def check(self, evidence_id: str) -> MarkerCheck:
        if evidence_id not in self._checked:
            self._checked[evidence_id] = self._check(evidence_id)
        return self._checked[evidence_id]

    def _check(self, evidence_id: str) -> MarkerCheck:
        mc = MarkerCheck(claim_id="", evidence_id=evidence_id)
        ev = self.index.get(evidence_id)
        if ev is None:
            mc.codes.append("UNKNOWN_EVIDENCE_ID")
            return mc
        mc.evidence = ev
        mc.chunk = self.registry.resolve(ev)
        mc.edition = _named_edition(self.registry, ev, mc.chunk)
        if mc.edition is not None:
            mc.status = mc.edition.status_at(self.asked_at)
            code = edition_status_code(mc.status, self.answer.stale_notice)
            if code:
                mc.codes.append(code)
        if mc.chunk is None:
            mc.codes.append("UNRESOLVED_CHUNK")
            return mc
        mc.codes += self._chunk_codes(ev, mc.chunk)
        return mc

    def _chunk_codes(self, ev: Evidence, chunk: Chunk) -> list[str]:
        """Text, access and anchor problems of evidence that resolved to a registry chunk."""
        codes: list[str] = []
        if ev.text is not None and _norm(ev.text) not in _norm(_anchor_text(self.registry, ev, chunk)):
            codes.append("CHUNK_TEXT_MISMATCH")
        if not self.registry.can_read(self.question.user, chunk.document_id, self.asked_at):
            codes.append("ACCESS_DENIED")
        if (ev.document_id and ev.document_id != chunk.document_id) or (
            ev.page is not None and chunk.page_start is not None and not _page_in(ev.page, chunk)
        ):
            codes.append("ANCHOR_MISMATCH")
        return codes


def _page_in(page: int, chunk: Chunk) -> bool:
    """The page lies within the chunk's pages (a chunk without pages holds any)."""
    if chunk.page_start is None:
        return True
    return chunk.page_start <= page <= (chunk.page_end or chunk.page_start)


def edition_status_code(status: VersionStatus | None, stale_notice: bool) -> str | None:
    """The finding an edition's status at asked_at earns; a superseded edition is fine when
    the answer says it relies on an old edition."""
    if status is VersionStatus.deleted:
        return "VERSION_DELETED"
    if status is VersionStatus.revoked:
        return "VERSION_REVOKED"
    if status is VersionStatus.not_yet_effective:
        return "VERSION_NOT_YET_EFFECTIVE"
    if status is VersionStatus.superseded and not stale_notice:
        return "VERSION_SUPERSEDED"
    return None


def check_links(answer: Answer, registry: Registry, evidence: EvidenceChecker) -> tuple[dict[str, list[str]], bool]:
    """Each link checked once, against the edition of the evidence it belongs to: codes per
    evidence id, and whether any link opens another registry edition than its evidence."""
    link_codes: dict[str, list[str]] = {}
    redirect = False
    for link in answer.links:
        codes = link_codes.setdefault(link.evidence_id, [])
        try:
            scheme = urlsplit(link.url.strip()).scheme.lower()
        except ValueError:  # not a URL at all (e.g. "http://[::1"): no one may be sent there
            scheme = ""
        if scheme not in ("http", "https"):
            codes.append("LINK_UNSAFE_SCHEME")
            continue
        mc = evidence.check(link.evidence_id) if link.evidence_id in evidence else None
        cited = mc.edition if mc else None
        if cited is not None and cited.viewer_url and url_has_prefix(link.url, cited.viewer_url):
            if _link_page_outside_chunk(link.url, mc.chunk if mc else None):
                codes.append("ANCHOR_MISMATCH")
        elif registry.version_for_url(link.url) is not None:
            codes.append("LINK_VERSION_REDIRECT")
            redirect = True
        else:
            codes.append("LINK_NOT_FROM_REGISTRY")
        source_text = (mc.chunk.text if mc and mc.chunk else (mc.evidence.text if mc and mc.evidence else None)) or ""
        if leaks_text(link.url, source_text, cited.viewer_url if cited else None):
            codes.append("LINK_LEAKS_TEXT")
    return link_codes, redirect


def _link_page_outside_chunk(url: str, chunk: Chunk | None) -> bool:
    """A viewer link whose page=N (fragment or query) lies outside the cited chunk's pages."""
    parts = urlsplit(url)
    page = _PAGE_IN_URL.search(parts.fragment or parts.query or "")
    return bool(page and chunk and chunk.page_start is not None and not _page_in(int(page.group(1)), chunk))


class _Emitter:
    """Appends a finding once per (claim, evidence, code)."""

    def __init__(self, question_id: str, findings: list[Finding]) -> None:
        self.question_id = question_id
        self.findings = findings
        self._emitted: set[tuple[str | None, str | None, str]] = set()

    def __call__(self, code: str, claim_id: str | None, evidence_id: str | None, detail: str) -> None:
        key = (claim_id, evidence_id, code)
        if key not in self._emitted:
            self._emitted.add(key)
            self.findings.append(
                Finding(question_id=self.question_id, claim_id=claim_id, evidence_id=evidence_id, code=code,
                        detail=detail)
            )


def check_claim(
    claim: Claim, evidence: EvidenceChecker, link_codes: dict[str, list[str]], registry: Registry, emit: _Emitter
) -> ClaimCheck:
    """One claim: its markers against the registry, a missing marker, its quotes and numbers."""
    cc = ClaimCheck(claim=claim, markers=[], substantive=is_substantive(claim.text))
    for evidence_id in claim.evidence_ids:
        mc = claim_marker(claim.claim_id, evidence.check(evidence_id), link_codes.get(evidence_id, []))
        cc.markers.append(mc)
        for code in mc.codes:
            emit(code, claim.claim_id, evidence_id, _detail(code, mc))
    if not claim.evidence_ids and cc.substantive:
        emit("CLAIM_UNCITED", claim.claim_id, None, "a claim without a citation marker")
    cc.quote_ok = check_quotes(claim, cc.markers, registry, emit)
    cc.numbers_ok = check_numbers(claim, cc.markers, emit)
    return cc


def claim_marker(claim_id: str, base: MarkerCheck, link_codes: list[str]) -> MarkerCheck:
    """The marker of one claim: its evidence's registry verdict plus the codes of its links."""
    codes = [*base.codes, *link_codes]
    return MarkerCheck(
        claim_id=claim_id,
        evidence_id=base.evidence_id,
        evidence=base.evidence,
        chunk=base.chunk,
        edition=base.edition,
        status=base.status,
        codes=codes,
        valid=not set(codes) & _INVALIDATING,
    )


def check_quotes(claim: Claim, markers: list[MarkerCheck], registry: Registry, emit: _Emitter) -> bool | None:
    """Each quote must stand in a cited chunk, and inside the cited span; None when no quote."""
    quotes = claim_quotes(claim)
    if not quotes:
        return None
    ok = True
    for quote in quotes:
        needle = _norm(quote)
        holders = [m for m in markers if m.chunk is not None and needle in _norm(m.chunk.text)]
        if not holders:
            ok = False
            detail = f"quote not in any cited chunk: {quote[:80]!r}" + closest_fragment(needle, markers)
            emit("QUOTE_NOT_FOUND", claim.claim_id, None, detail)
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
    return ok


def closest_fragment(needle: str, markers: list[MarkerCheck]) -> str:
    """'; closest: «…» (similarity 0.93)' — the cited chunk fragment nearest the quote, for a
    rater looking for the misquote; empty when nothing cited is at least half similar."""
    best: tuple[float, str] | None = None
    for chunk in {id(m.chunk): m.chunk for m in markers if m.chunk is not None}.values():
        text = _norm(chunk.text)
        found = fuzz.partial_ratio_alignment(needle, text)
        if found is not None and (best is None or found.score > best[0]):
            best = (found.score, text[found.dest_start : found.dest_end])
    if best is None or not best[1] or best[0] < 50:
        return ""  # nothing close enough to help
    fragment = best[1] if len(best[1]) <= 80 else best[1][:79] + "…"
    return f"; closest: «{fragment}» (similarity {best[0] / 100:.2f})"


def check_numbers(claim: Claim, markers: list[MarkerCheck], emit: _Emitter) -> bool | None:
    """Every number of the claim must stand in some fragment of the union of its valid cited
    evidence (DESIGN 6 "Details"; evals.score.joint.union_texts: with no marker resolved, the cited
    evidence texts), by value or exact duration (data.text.missing_numbers); None when the claim
    has no number."""
    text = strip_markers(claim.text)
    if not _numbers(text):
        return None
    missing = sorted(missing_in_union(text, markers))
    if missing:
        emit("NUMBER_UNSUPPORTED", claim.claim_id, None, f"not in cited evidence: {', '.join(missing)}")
    return not missing


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


def _anchor_detail(mc: MarkerCheck) -> str:
    """Where the evidence (or its link) sends the reader, against the registry chunk's place."""
    ev, chunk = mc.evidence, mc.chunk
    if ev is None or chunk is None:
        return "page or document of the citation disagrees with the registry chunk"
    if ev.document_id and ev.document_id != chunk.document_id:
        return f"{mc.evidence_id} names document {ev.document_id}; chunk {chunk.chunk_id} is of {chunk.document_id}"
    if ev.page is not None and chunk.page_start is not None and not _page_in(ev.page, chunk):
        return f"{mc.evidence_id} names page {ev.page}; the registry places it at {cited_place(chunk)}"
    return f"the link of {mc.evidence_id} opens a page outside {cited_place(chunk)}"


def _unresolved_detail(mc: MarkerCheck) -> str:
    """Why the evidence resolves to no chunk, and what to send instead (README "Answers")."""
    ev = mc.evidence
    # a converter (e.g. Anthropic replay) may say why, naming the citation type it could not map
    reason = (ev.model_extra or {}).get("unresolved_reason") if ev is not None else None
    if reason or ev is None:
        return "evidence matches no registry chunk" + (f": {reason}" if reason else "")
    if ev.chunk_id is not None:
        return f"evidence {ev.evidence_id}: chunk_id {ev.chunk_id!r} is not in registry/chunks.jsonl"
    if ev.version_id is not None and ev.char_start is not None and ev.char_end is not None:
        return (f"evidence {ev.evidence_id}: no chunk of edition {ev.version_id} spans characters "
                f"{ev.char_start}–{ev.char_end} (chunk char spans index registry/texts/{ev.version_id}.txt)")
    return (f"evidence {ev.evidence_id} names no registry chunk: send chunk_id (from registry/chunks.jsonl), "
            "or version_id with char_start and char_end")


def _edition_of(mc: MarkerCheck) -> str:
    return mc.edition.version_id if mc.edition else "?"


# each detail is worked out only for the code emitted
_DETAILS: dict[str, Callable[[MarkerCheck], str]] = {
    "UNKNOWN_EVIDENCE_ID": lambda mc: f"marker {mc.evidence_id} is not in the evidence set",
    "UNRESOLVED_CHUNK": _unresolved_detail,
    "CHUNK_TEXT_MISMATCH": lambda mc: (
        f"evidence text differs from registry chunk {mc.chunk.chunk_id if mc.chunk else '?'}"
    ),
    "ACCESS_DENIED": lambda mc: f"user may not read {mc.chunk.document_id if mc.chunk else '?'} at asked_at",
    "VERSION_SUPERSEDED": lambda mc: f"edition {_edition_of(mc)} was superseded at asked_at",
    "VERSION_REVOKED": lambda mc: f"edition {_edition_of(mc)} was revoked at asked_at",
    "VERSION_DELETED": lambda mc: f"edition {_edition_of(mc)} was deleted at asked_at",
    "VERSION_NOT_YET_EFFECTIVE": lambda mc: f"edition {_edition_of(mc)} was not yet in force at asked_at",
    "ANCHOR_MISMATCH": _anchor_detail,
}


def _detail(code: str, mc: MarkerCheck) -> str:
    found = _DETAILS.get(code)
    return found(mc) if found is not None else code.lower().replace("_", " ")
