"""Citations against gold evidence (DESIGN 6): whether a cited registry chunk reaches a gold
evidence item (`gold_evidence_recall`, GOLD_EVIDENCE_NOT_CITED) and whether it lands on a gold
anchor (`anchor_accuracy`, and ANCHOR_MISMATCH for a marker to the gold document and edition
that matches none of its gold anchors). Reads the check objects of `evals.score.facts`; computes no
finding itself.

Reached (gold_evidence_recall): a valid marker whose chunk is of the gold document and, where
the gold names them, of the gold edition and covering the gold place — its char span (spans
index an edition, so only with the gold edition named), else its page, else its quote. A chunk
without char offsets or pages (an edition ingested without pages) is placed by the gold quote
when there is one; with nothing to place it by, the edition decides.

Anchor (anchor_accuracy): the most precise level at which the chunk meets a gold anchor of the
same document — char (span or quote), page, section (the gold quote under the same heading path
in the cited edition) or document — and whether it matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from evals.contract.models import Chunk, Evidence, GoldEvidence
from evals.data.registry import Registry
from evals.score.facts import AnswerCheck, MarkerCheck
from evals.text.normalize import normalize

ANCHOR_LEVELS = ("document", "section", "page", "char")

__all__ = [
    "ANCHOR_LEVELS",
    "anchor_hit",
    "cited_place",
    "gold_anchor_level",
    "gold_evidence_reached",
    "gold_evidence_recall_of",
    "gold_place",
    "misplaced_markers",
    "page_skip_reason",
    "page_unchecked",
    "reaches",
    "same_edition_gold",
]


def _span_overlaps(g: GoldEvidence, chunk: Chunk) -> bool | None:
    """Whether the chunk's char span overlaps the gold span; None when either side lacks one."""
    if g.char_start is None or g.char_end is None or chunk.char_start is None or chunk.char_end is None:
        return None
    return g.char_start < chunk.char_end and chunk.char_start < g.char_end


def _page_in_chunk(page: int, chunk: Chunk) -> bool | None:
    """Whether the page lies within the chunk's pages; None for a chunk without pages."""
    if chunk.page_start is None:
        return None
    return chunk.page_start <= page <= (chunk.page_end or chunk.page_start)


def _quote_in(quote: str | None, chunk: Chunk) -> bool:
    return bool(quote) and normalize(quote or "") in normalize(chunk.text)


def reaches(g: GoldEvidence, chunk: Chunk) -> bool:
    """The chunk reaches the gold evidence item (see the module doc)."""
    if chunk.document_id != g.document_id:
        return False
    if g.version_id is not None and g.version_id != chunk.version_id:
        return False
    if g.version_id is not None:
        span = _span_overlaps(g, chunk)
        if span is not None:
            return span
    if g.page is not None:
        page = _page_in_chunk(g.page, chunk)
        if page is not None:
            return page
    if g.quote:
        return _quote_in(g.quote, chunk)
    return True  # the gold names only the document (and edition)


def _valid_chunks(markers: Iterable[MarkerCheck]) -> list[Chunk]:
    return [m.chunk for m in markers if m.valid and m.chunk is not None]


def gold_evidence_reached(check: AnswerCheck) -> list[tuple[GoldEvidence, bool]]:
    """Each gold evidence item of the question, in gold order, with whether a valid marker of
    the answer reaches it."""
    gold = check.question.gold
    if gold is None:
        return []
    chunks = _valid_chunks(check.markers)
    return [(g, any(reaches(g, c) for c in chunks)) for g in gold.evidence]


def gold_evidence_recall_of(check: AnswerCheck) -> tuple[int, int]:
    """(gold items reached, gold items) of one answer."""
    reached = gold_evidence_reached(check)
    return sum(ok for _, ok in reached), len(reached)


def anchor_hit(g: GoldEvidence, chunk: Chunk) -> str | None:
    """The level at which a chunk of the gold edition matches this gold anchor ("char" for the
    span or the quote, "page", "document" for a gold that names no place), None when it misses."""
    span = _span_overlaps(g, chunk)
    if span or _quote_in(g.quote, chunk):
        return "char"
    if g.page is not None and _page_in_chunk(g.page, chunk):
        return "page"
    if g.page is None and g.quote is None and g.char_start is None:
        return "document"
    return None


def _page_only(g: GoldEvidence) -> bool:
    return g.page is not None and not g.quote and g.char_start is None


def page_skip_reason(g: GoldEvidence, chunk: Chunk, registry: Registry | None = None) -> str | None:
    """Why a gold item that names only a page can neither match nor mismatch this chunk of its
    edition, or None when it can be checked: the edition has no page information
    (Registry.page_check_skip_reason), or the chunk itself carries no pages (a hand-written
    registry that never recorded them)."""
    if not _page_only(g):
        return None
    reason = registry.page_check_skip_reason(chunk.version_id) if registry is not None else None
    if reason is None and chunk.page_start is None:
        reason = f"chunk {chunk.chunk_id} of {chunk.version_id} has no page information; page anchor not checked"
    return reason


def page_unchecked(g: GoldEvidence, chunk: Chunk, registry: Registry | None = None) -> bool:
    """A gold item that names only a page, against a chunk whose pages are unknown (see
    page_skip_reason): it can neither match nor mismatch."""
    return page_skip_reason(g, chunk, registry) is not None


def same_edition_gold(gold: Sequence[GoldEvidence], chunk: Chunk) -> list[GoldEvidence]:
    """The gold items of the chunk's document and edition (an item naming no edition counts)."""
    return [
        g
        for g in gold
        if g.document_id == chunk.document_id and (g.version_id is None or g.version_id == chunk.version_id)
    ]


def gold_anchor_level(
    gold: Sequence[GoldEvidence], chunk: Chunk, registry: Registry, skipped: list[str] | None = None
) -> tuple[str, bool] | None:
    """(level, matched) of the best gold anchor of the chunk's document, None when no gold item
    is of that document. An item of another edition meets the chunk only at document level. A
    gold item that names only a page, on an edition without page information, can neither match
    nor mismatch: it is left out and the reason appended to `skipped`."""
    order = {level: rank for rank, level in enumerate(ANCHOR_LEVELS)}
    best: tuple[str, bool] | None = None
    for g in gold:
        if g.document_id != chunk.document_id:
            continue
        same_edition = g.version_id is None or g.version_id == chunk.version_id
        reason = page_skip_reason(g, chunk, registry) if same_edition else None
        if reason is not None:
            if skipped is not None:
                skipped.append(reason)
            continue
        level, match = "document", False
        if same_edition:
            hit = anchor_hit(g, chunk)
            if hit is not None:
                level, match = hit, True
        if level == "document" and not match and g.quote:
            # same section: the gold quote lies under the same heading path in the cited edition
            siblings = [c for c in registry.chunks_of(chunk.version_id) if c.heading_path == chunk.heading_path]
            if any(_quote_in(g.quote, c) for c in siblings):
                level = "section"
        if best is None or (match, order[level]) > (best[1], order[best[0]]):
            best = (level, match)
    return best


def misplaced_markers(
    check: AnswerCheck, registry: Registry | None = None
) -> list[tuple[MarkerCheck, list[GoldEvidence]]]:
    """Valid markers to a gold document and edition whose chunk matches none of that edition's
    gold anchors, each with those gold items. Markers the registry already found misplaced
    (ANCHOR_MISMATCH on the evidence or its link) are left to that finding. A gold item that
    names only a page the chunk's pages cannot be compared with (page_skip_reason — the rule
    anchor_accuracy skips by) leaves the marker undecided: no finding."""
    gold = check.question.gold
    if gold is None or not gold.evidence:
        return []
    out = []
    for m in check.markers:
        if not m.valid or m.chunk is None or "ANCHOR_MISMATCH" in m.codes:
            continue
        items = same_edition_gold(gold.evidence, m.chunk)
        if any(page_unchecked(g, m.chunk, registry) for g in items):
            continue  # the unchecked gold page may be the very place cited
        if items and not any(anchor_hit(g, m.chunk) for g in items):
            out.append((m, items))
    return out


def _pages(chunk: Chunk) -> str | None:
    if chunk.page_start is None:
        return None
    end = chunk.page_end or chunk.page_start
    return f"p. {chunk.page_start}" if end == chunk.page_start else f"pp. {chunk.page_start}–{end}"


def _short(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def gold_place(g: GoldEvidence) -> str:
    """`infection-training-v1 p. 2, chars 3181–3213 «не реже одного раза в 12 месяцев»`."""
    parts = [g.version_id or g.document_id]
    if g.page is not None:
        parts.append(f"p. {g.page}")
    if g.char_start is not None and g.char_end is not None:
        parts.append(f"chars {g.char_start}–{g.char_end}")
    place = " ".join(parts[:2]) + (", " + parts[2] if len(parts) > 2 else "")
    return place + (f" «{_short(g.quote)}»" if g.quote else "")


def cited_place(chunk: Chunk, evidence: Evidence | None = None) -> str:
    """`infection-training-v1 p. 3 (chunk 66aea1a0428bf6f9, chars 4013–4220)`: the page the
    citation sends the reader to (the evidence's own page when it gives one) and the chunk."""
    page = f"p. {evidence.page}" if evidence is not None and evidence.page is not None else _pages(chunk)
    where = f"{chunk.version_id} {page}" if page else chunk.version_id
    span = f", chars {chunk.char_start}–{chunk.char_end}" if chunk.char_start is not None else ""
    return f"{where} (chunk {chunk.chunk_id}{span})"
