"""View models for the report templates: plain data, every text still untrusted (the
templates escape it; URLs pass `safe_url` before they may become links)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from evals.contract.metrics import ERROR_RATE, LOWER_IS_BETTER, PER_ANSWER_METRICS
from evals.contract.models import TIERS_BY_RISK, Answer, Chunk, Claim, Evidence, Finding, Link, Version
from evals.contract.scores import QuestionScore
from evals.data.registry import Registry
from evals.data.render import cached_chunk_region, cited_page, page_link
from evals.errors import DataError
from evals.report.stats import question_passed
from evals.score.checks import claims_of
from evals.store.runfolder import RunFolder

TIER_ORDER = {tier: rank for rank, tier in enumerate(TIERS_BY_RISK)}
SNIPPET = 360
# one question's drill-down shows at most this many claims and findings (those with findings
# first, then in answer order): an answer of 40,000 citations would otherwise make a report of
# 47 MB that takes seconds to render and no one reads; the rest stay in answers.jsonl and
# findings.jsonl, and the card says how many were left out
MAX_CLAIMS_SHOWN = 200
MAX_FINDINGS_SHOWN = 200
MAX_URL = 4096
_SAFE_URL = re.compile(r"^https?://[^\s\x00-\x1f\x7f<>\"'`\\]+$", re.IGNORECASE)


def safe_url(url: object) -> str | None:
    """The URL if it may be a link (absolute http(s), no spaces or quote characters); else None."""
    if not isinstance(url, str) or len(url) > MAX_URL or not _SAFE_URL.match(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url


def anchor_id(*parts: str) -> str:
    """An HTML id for any run / question id (which may hold any character)."""
    return "q-" + hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:12]


@dataclass
class LinkView:
    url: str  # as given (untrusted)
    href: str | None  # set only when safe_url accepts it


@dataclass
class CitationView:
    evidence_id: str
    known: bool  # the id is in the answer's evidence set
    document_id: str | None = None
    title: str | None = None
    version_id: str | None = None
    revision: int | None = None
    status_then: str | None = None
    status_now: str | None = None
    pages: str | None = None
    snippet_before: str = ""
    snippet_mark: str = ""
    snippet_after: str = ""
    links: list[LinkView] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)
    # a PDF-backed edition: the cited page region (PNG data URI, the chunk's boxes highlighted),
    # the page it shows, its alt text and the viewer_url opened at that page (through safe_url)
    page_image: str | None = None
    page_shown: int | None = None
    page_image_alt: str = ""
    page_href: str | None = None

    @property
    def stale_now(self) -> bool:
        return self.status_then == "active" and self.status_now not in (None, "active")


@dataclass
class ClaimView:
    claim_id: str
    text: str
    quote: str | None
    citations: list[CitationView]
    codes: list[str]


@dataclass
class QuestionView:
    anchor: str
    question_id: str
    question: str | None
    risk_tier: str
    tags: list[str]
    asked_at: datetime | None
    status: str
    passed: bool
    answer_text: str
    abstain_reason: str | None
    error: str | None
    stale_notice: bool
    should_abstain: bool | None
    findings: list[Finding]
    claims: list[ClaimView]
    metrics: dict[str, float | None]
    codes: list[str]
    hidden_claims: int = 0
    hidden_findings: int = 0

    @property
    def answer_findings(self) -> list[Finding]:
        """Findings not tied to one claim (shown beside the answer)."""
        return [f for f in self.findings if f.claim_id is None]


def _pages(start: int | None, end: int | None) -> str | None:
    if start is None:
        return None
    return str(start) if end in (None, start) else f"{start}–{end}"


def _snippet(text: str, quote: str | None) -> tuple[str, str, str]:
    """(before, quote as found, after), cut to about SNIPPET characters around the quote."""
    text = " ".join(text.split())
    if quote:
        q = " ".join(quote.split())
        low, ql = text.lower(), q.lower()
        i = low.find(ql) if len(low) == len(text) and ql else -1
        if i >= 0:
            room = max(0, (SNIPPET - len(q)) // 2)
            start, end = max(0, i - room), min(len(text), i + len(q) + room)
            before = ("…" if start > 0 else "") + text[start:i]
            after = text[i + len(q):end] + ("…" if end < len(text) else "")
            return before, text[i:i + len(q)], after
    if len(text) > SNIPPET:
        return text[:SNIPPET] + "…", "", ""
    return text, "", ""


_ID_LETTERS = re.compile(r"^[A-Za-zА-Яа-я]+")


def _evidence_index(answer: Answer) -> dict[str, Evidence]:
    index = {e.evidence_id: e for e in answer.evidence}
    for e in answer.evidence:  # "[1]" may stand for "E1", as in the checks
        digits = _ID_LETTERS.sub("", e.evidence_id)
        if digits and digits != e.evidence_id:
            index.setdefault(digits, e)
    return index


class AnswerIndex:
    """One answer's evidence by id (and by its digits) and links by evidence id (in the answer's
    order), built once per answer: looked up per citation, an answer of 40,000 citations would
    otherwise cost 40,000 × 40,000 steps."""

    def __init__(self, answer: Answer) -> None:
        self.evidence = _evidence_index(answer)
        self.links: dict[str, list[tuple[int, Link]]] = {}
        for i, link in enumerate(answer.links):
            self.links.setdefault(link.evidence_id, []).append((i, link))


def _citation(run: RunFolder, answer: Answer, evidence_id: str, quote: str | None, asked_at: datetime,
              now: datetime, codes: list[str], index: AnswerIndex | None = None) -> CitationView:
    index = index or AnswerIndex(answer)
    evidence = index.evidence.get(evidence_id)
    view = CitationView(evidence_id=evidence_id, known=evidence is not None, codes=codes)
    if evidence is None:
        return view
    registry = run.try_registry()
    chunk = registry.resolve(evidence) if registry else None
    version_id = evidence.version_id or (chunk.version_id if chunk else None)
    document_id = evidence.document_id or (chunk.document_id if chunk else None)
    edition = registry.versions.get(version_id) if registry and version_id else None
    if edition is not None:
        document_id = document_id or edition.document_id
        view.revision = edition.revision
        view.status_then = edition.status_at(asked_at).value
        view.status_now = edition.status_at(now).value
    document = registry.documents.get(document_id) if registry and document_id else None
    view.document_id, view.version_id = document_id, version_id
    view.title = document.title if document else None
    if chunk is not None:
        view.pages = _pages(chunk.page_start, chunk.page_end)
    if view.pages is None and evidence.page is not None:
        view.pages = str(evidence.page)
    text = chunk.text if chunk is not None else (evidence.text or "")
    view.snippet_before, view.snippet_mark, view.snippet_after = _snippet(text, quote)
    if registry is not None and chunk is not None and edition is not None:
        _add_page_region(view, registry, chunk, edition, evidence)
    links = index.links.get(evidence_id, [])
    if evidence.evidence_id != evidence_id:
        links = sorted(links + index.links.get(evidence.evidence_id, []), key=lambda pair: pair[0])
    view.links.extend(LinkView(url=link.url, href=safe_url(link.url)) for _, link in links)
    return view


# the report's page images: 90 DPI, cropped to the chunk's boxes plus a margin (about 40 KB each)
REGION_SCALE = 1.25
REGION_MARGIN = 36.0


def _add_page_region(
    view: CitationView, registry: Registry, chunk: Chunk, edition: Version, evidence: Evidence
) -> None:
    """The cited page region of a PDF-backed edition and the link opening the edition at that page."""
    page = cited_page(chunk, evidence.page)
    if page is None:
        return
    try:
        view.page_image = cached_chunk_region(registry, chunk, page, scale=REGION_SCALE, crop_margin=REGION_MARGIN)
    except DataError:
        return  # an unreadable PDF copy costs the card its image, not the report
    if view.page_image is None:
        return
    view.page_shown = page
    view.page_image_alt = (
        f"Page {page} of {view.title or chunk.document_id} ({chunk.version_id}), the cited passage highlighted"
    )
    view.page_href = safe_url(page_link(edition, page))


def _shown_claims(claims: list[Claim], by_claim: dict[str | None, set[str]]) -> list[Claim]:
    """At most MAX_CLAIMS_SHOWN claims, those with findings first, kept in answer order."""
    if len(claims) <= MAX_CLAIMS_SHOWN:
        return claims
    flagged = [i for i, c in enumerate(claims) if c.claim_id in by_claim]
    rest = [i for i, c in enumerate(claims) if c.claim_id not in by_claim]
    keep = sorted((flagged + rest)[:MAX_CLAIMS_SHOWN])
    return [claims[i] for i in keep]


def question_view(run: RunFolder, question_id: str, now: datetime, findings: list[Finding]) -> QuestionView:
    row = run.per_question[question_id]
    q = run.try_questions().get(question_id)
    answer = run.answers.get(question_id)
    asked_at = run.asked_at(question_id)
    claims: list[ClaimView] = []
    hidden_claims = 0
    if answer is not None:
        index = AnswerIndex(answer)
        by_claim: dict[str | None, set[str]] = {}
        by_citation: dict[tuple[str | None, str | None], set[str]] = {}
        for f in findings:
            by_claim.setdefault(f.claim_id, set()).add(f.code)
            by_citation.setdefault((f.claim_id, f.evidence_id), set()).add(f.code)
        all_claims = claims_of(answer)
        for claim in _shown_claims(all_claims, by_claim):
            cites = [
                _citation(run, answer, eid, claim.quote, asked_at, now,
                          sorted(by_citation.get((claim.claim_id, eid), ())), index)
                for eid in claim.evidence_ids
            ]
            claim_codes = sorted(by_claim.get(claim.claim_id, ()))
            claims.append(ClaimView(claim.claim_id, claim.text, claim.quote, cites, claim_codes))
        hidden_claims = len(all_claims) - len(claims)
    error = None
    if answer is not None and answer.error is not None:
        error = f"{answer.error.type}: {answer.error.message}"
    return QuestionView(
        anchor=anchor_id(run.run_id, question_id),
        question_id=question_id,
        question=q.question if q else None,
        risk_tier=row.risk_tier or "policy",
        tags=[str(t) for t in row.tags],
        asked_at=asked_at,
        status=row.status,
        passed=question_passed(row),
        answer_text=answer.answer_text if answer else "",
        abstain_reason=answer.abstain_reason if answer else None,
        error=error,
        stale_notice=bool(answer.stale_notice) if answer else False,
        should_abstain=row.should_abstain,
        findings=findings[:MAX_FINDINGS_SHOWN],
        claims=claims,
        hidden_claims=hidden_claims,
        hidden_findings=max(0, len(findings) - MAX_FINDINGS_SHOWN),
        metrics={name: row.value(name) for name in PER_ANSWER_METRICS if name != ERROR_RATE},
        codes=sorted(set(row.findings)),
    )


def worst_first_key(row: QuestionScore) -> tuple[Any, ...]:
    """Failing questions first, critical before policy before reference, more findings first,
    then the lowest mean of the per-answer metrics."""
    values = [row.value(n) for n in PER_ANSWER_METRICS if n not in LOWER_IS_BETTER]  # all higher-is-better
    present = [v for v in values if v is not None]
    mean = sum(present) / len(present) if present else 1.0
    return (
        question_passed(row),
        TIER_ORDER.get(row.risk_tier, 9),
        -len(row.findings),
        mean,
        row.question_id,
    )


def drilldown(run: RunFolder, now: datetime, limit: int) -> tuple[list[QuestionView], int]:
    """Per-question views, worst first, at most `limit` of them; and how many were left out."""
    by_question: dict[str, list[Finding]] = {}
    for f in run.findings:
        by_question.setdefault(f.question_id, []).append(f)
    order = sorted(run.per_question, key=lambda qid: worst_first_key(run.per_question[qid]))
    shown = order[:limit]
    return [question_view(run, qid, now, by_question.get(qid, [])) for qid in shown], len(order) - len(shown)
