"""Anthropic Messages responses with citations → Answer (DESIGN 3 and 6 details).

Each text block with citations is one claim whose quotes are its citations' cited_text;
a non-blank block without citations is an uncited claim; `documents[i]` names the
registry edition (and optionally its chunk ids, for content-block documents) that
document_index i stood for.
"""

from __future__ import annotations

from typing import Any, cast

from ..data.models import Answer, Claim, Evidence, Usage


class AnthropicFormatError(ValueError):
    """The line is not a usable Anthropic response; the message names the part."""


def _evidence_for(citation: dict[str, Any], documents: list[dict[str, Any]], evidence_id: str) -> Evidence:
    index = citation.get("document_index")
    if not isinstance(index, int) or not 0 <= index < len(documents):
        raise AnthropicFormatError(f"citation document_index {index!r} has no entry in documents")
    doc = documents[index]
    fields: dict[str, Any] = {
        "evidence_id": evidence_id,
        "document_id": doc.get("document_id"),
        "version_id": doc.get("version_id"),
        "text": citation.get("cited_text"),
    }
    kind = citation.get("type")
    if kind == "char_location":
        fields["char_start"] = citation.get("start_char_index")
        fields["char_end"] = citation.get("end_char_index")
    elif kind == "page_location":
        fields["page"] = citation.get("start_page_number")
    elif kind == "content_block_location":
        chunk_ids = doc.get("chunk_ids") or []
        start = citation.get("start_block_index")
        if isinstance(start, int) and 0 <= start < len(chunk_ids):
            fields["chunk_id"] = chunk_ids[start]
    else:
        raise AnthropicFormatError(f"unsupported citation type {kind!r}")
    return Evidence.model_validate(fields)


def _citation_key(citation: dict[str, Any]) -> tuple[Any, ...]:
    return (
        citation.get("document_index"),
        citation.get("type"),
        citation.get("start_char_index", citation.get("start_page_number", citation.get("start_block_index"))),
        citation.get("end_char_index", citation.get("end_page_number", citation.get("end_block_index"))),
    )


def anthropic_to_answer(line: dict[str, Any]) -> Answer:
    """Convert one replay line of format "anthropic"; raises AnthropicFormatError on a malformed line."""
    content = line.get("content")
    if not isinstance(content, list):
        raise AnthropicFormatError("content must be a list of blocks")
    documents = line.get("documents") or []
    if not isinstance(documents, list):
        raise AnthropicFormatError("documents must be a list")
    evidence: dict[tuple[Any, ...], Evidence] = {}
    claims: list[Claim] = []
    text_parts: list[str] = []
    offset = 0
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "text":
            continue
        text = block.get("text") or ""
        start = offset
        text_parts.append(text)
        offset += len(text)
        if not text.strip():
            continue
        ids: list[str] = []
        quotes: list[str] = []
        for citation in block.get("citations") or []:
            key = _citation_key(citation)
            if key not in evidence:
                evidence[key] = _evidence_for(citation, documents, f"E{len(evidence) + 1}")
            if evidence[key].evidence_id not in ids:
                ids.append(evidence[key].evidence_id)
            if citation.get("cited_text"):
                quotes.append(citation["cited_text"])
        claims.append(
            Claim.model_validate(
                {
                    "claim_id": f"c{len(claims) + 1}",
                    "text": text.strip(),
                    "evidence_ids": ids,
                    "quote": quotes[0] if quotes else None,
                    "quotes": quotes,
                    "span": (start, start + len(text)),
                }
            )
        )
    usage = line.get("usage") or {}
    status = line.get("status") or ("answered" if claims else "abstained")
    if status not in ("answered", "abstained", "error"):
        raise AnthropicFormatError(f"status {status!r} is not answered, abstained or error")
    return Answer(
        question_id=str(line.get("question_id")),
        status=cast(Any, status),
        answer_text="".join(text_parts),
        claims=claims,
        evidence=list(evidence.values()),
        links=[],
        stale_notice=bool(line.get("stale_notice", False)),
        abstain_reason=line.get("abstain_reason"),
        usage=Usage(
            input_tokens=usage.get("input_tokens"),
            output_tokens=usage.get("output_tokens"),
            latency_ms=usage.get("latency_ms"),
            cost_usd=usage.get("cost_usd"),
        )
        if usage
        else None,
        model=line.get("model"),
        raw={"format": "anthropic", "stop_reason": line.get("stop_reason")},
    )
