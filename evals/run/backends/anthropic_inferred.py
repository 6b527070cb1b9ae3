"""Citations cut down to what a person prints: `type`, `cited_text`, `document_title` and, for a
PDF, the page numbers — no `document_index`, no char or block offsets.

That is how the Anthropic cookbook's Citations notebook (misc/using_citations.ipynb,
`visualize_raw_response`) shows Claude's answers, and how a bot that logs only what it shows
keeps them. Such a citation cannot be read by the SDK's types (their `document_index` and
offsets are required), so it is set aside from validation and resolved another way: its
`document_title` names the registry document (the titles the request gave are the registry's
titles when the documents came from it), the edition in force at asked_at is that document's,
and the cited text is found among its chunks (on the cited pages for a page citation). The
evidence then says `resolution: "inferred"`, so a run can tell these from citations the API
placed itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Annotated, Any, get_args, get_origin

from anthropic.types import TextCitation
from rapidfuzz import fuzz

from evals.contract.models import Chunk
from evals.data.registry import Registry
from evals.text.normalize import normalize

INFERRED = "inferred"  # Evidence.resolution of a citation placed by title and cited text
TITLE_MATCH = 80  # rapidfuzz token_set_ratio at which a cited title names a registry document


def _required_fields() -> dict[str, frozenset[str]]:
    """Each SDK citation type's required fields, read from the SDK's own models."""
    union = get_args(TextCitation)[0] if get_origin(TextCitation) is Annotated else TextCitation
    out: dict[str, frozenset[str]] = {}
    for model in get_args(union):
        kind = get_args(model.model_fields["type"].annotation)[0]
        out[kind] = frozenset(name for name, f in model.model_fields.items() if f.is_required())
    return out


_REQUIRED = _required_fields()
# what a printed citation still has: without these it is not a citation at all
_KEPT = frozenset({"type", "cited_text"})


def is_cut(citation: Any, kinds: frozenset[str]) -> bool:
    """A citation of one of `kinds` that lacks a field the SDK requires, but keeps its type and
    cited text (the rest — document_index, offsets — was left out when it was logged)."""
    if not isinstance(citation, dict) or citation.get("type") not in kinds:
        return False
    if not isinstance(citation.get("cited_text"), str):
        return False
    required = _REQUIRED.get(str(citation["type"]), frozenset())
    return any(name not in citation for name in required - _KEPT)


def titled(registry: Registry, title: Any) -> list[str]:
    """The registry documents whose title is `title` once normalized."""
    if not isinstance(title, str) or not title.strip():
        return []
    cited = normalize(title)
    return [d.document_id for d in registry.documents.values() if normalize(d.title) == cited]


def document_by_title(registry: Registry, title: Any) -> tuple[str | None, str]:
    """The registry document a cited `document_title` names: the one whose title is the same
    once normalized, else the one best matching it at token_set_ratio ≥ 80 (a shortened or
    extended title) if no other document matches it as well. (document_id, why not) ."""
    if not isinstance(title, str) or not title.strip():
        return None, "the citation gives no document_index and no document_title"
    cited = normalize(title)
    same = [d.document_id for d in registry.documents.values() if normalize(d.title) == cited]
    if len(same) == 1:
        return same[0], ""
    if len(same) > 1:
        return None, f"document_title {title!r} is the title of {len(same)} registry documents ({', '.join(same)})"
    scored = sorted(
        ((fuzz.token_set_ratio(cited, normalize(d.title)), d.document_id) for d in registry.documents.values()),
        reverse=True,
    )
    if not scored or scored[0][0] < TITLE_MATCH:
        return None, f"document_title {title!r} names no registry document"
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None, (f"document_title {title!r} matches {scored[0][1]} and {scored[1][1]} equally: "
                      "give document_index and documents")
    return scored[0][1], ""


MIN_TEXT = 20  # normalized characters a cited text needs to name its document alone
NEAR = 0.95  # locate_quote similarity at which a cited text not found verbatim is still that passage


def near_parts(
    registry: Registry, version_id: str, text: str, pages: tuple[int, int] | None
) -> list[tuple[Chunk, str]]:
    """Where the edition holds `text` nearly verbatim (evals.quotes' locator, similarity ≥ 0.95:
    a character or a word form apart), as (chunk, the edition's own text there)
    for each chunk the span falls in — only chunks on `pages` (first, last) when given."""
    from evals.quotes.locate import locate_quote  # the quote lab's locator, loaded only when needed

    full = registry.text(version_id)
    if not full or not text.strip():
        return []
    found = locate_quote(text, full, NEAR)
    if found is None:
        return []
    parts: list[tuple[Chunk, str]] = []
    for chunk in sorted(registry.chunks_of(version_id), key=lambda c: c.char_start or 0):
        if chunk.char_start is None or chunk.char_end is None:
            continue
        if chunk.char_start >= found.end or chunk.char_end <= found.start:
            continue
        if pages is not None and chunk.page_start is not None and not (
                chunk.page_start <= pages[1] and (chunk.page_end or chunk.page_start) >= pages[0]):
            continue
        part = full[max(found.start, chunk.char_start) : min(found.end, chunk.char_end)].strip()
        if part:
            parts.append((chunk, part))
    return parts


def document_by_text(
    registry: Registry, text: str, asked_at: datetime, among: Sequence[str] | None = None
) -> str | None:
    """The one registry document (of `among`, else any) whose edition in force at asked_at holds
    `text` verbatim once normalized; None when none does or several do. For a cut citation whose
    title names no registry document (or several): the API's cited_text is always text of a
    document the request sent."""
    needle = normalize(text)
    if len(needle) < MIN_TEXT:
        return None
    found: list[str] = []
    for document_id in among if among is not None else list(registry.documents):
        edition = registry.active_edition(document_id, asked_at)
        if edition is None:
            continue
        full = registry.text(edition.version_id)
        texts = [full] if full else [c.text for c in registry.chunks_of(edition.version_id)]
        if any(needle in normalize(t) for t in texts):
            found.append(document_id)
            if len(found) > 1:
                return None
    return found[0] if found else None
