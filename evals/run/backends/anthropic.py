"""Anthropic Messages responses with citations → Answer (DESIGN 3 and the "Anthropic" details of 6).

A replay line is the Messages response as the API returned it with citeval's keys beside it
(`question_id`, `documents`, optionally `search_results`), or `{question_id, documents,
events: [...]}` holding the raw stream events, folded into the message by the SDK's own
accumulator. Responses are read with the `anthropic` SDK's types, so every citation type
the API defines is known; a type citeval cannot map to the registry makes its evidence
unresolved (UNRESOLVED_CHUNK naming the type), never a rejected file.

Conversion needs the registry and the question's asked_at: a `documents[i]` without
version_id stands for the edition in force at asked_at, and page and content-block
citations resolve to the registry's chunks.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Annotated, Any, cast, get_args, get_origin

from anthropic import __version__ as _SDK_VERSION
from anthropic.lib.streaming._messages import accumulate_event as _sdk_accumulate_event
from anthropic.types import ContentBlock, Message, StopReason, TextCitation
from pydantic import BaseModel, ConfigDict, ValidationError
from rapidfuzz import fuzz

from evals.contract.models import Answer, Chunk, Claim, ErrorInfo, Evidence, Usage
from evals.data.registry import Registry
from evals.run.backends.anthropic_inferred import (
    INFERRED,
    TITLE_MATCH,
    document_by_text,
    document_by_title,
    is_cut,
    near_parts,
    titled,
)
from evals.run.backends.prices import PriceTable
from evals.store.reading import json_type
from evals.text.normalize import ABBREVIATIONS, extract_numbers, normalize, normalize_with_map, split_sentences

# The SDK's own stream folding, the function its MessageStream applies to every event. It is
# typed for event models but builds them from plain dicts itself, as logged events are.
_SDK_TAKES_JSON_BUFS = "json_bufs" in inspect.signature(_sdk_accumulate_event).parameters


def stream_accumulator() -> Callable[..., Any]:
    """The SDK's accumulate_event bound to one stream's own state. From anthropic 1.x on it also
    takes `json_bufs` (each tool block's input JSON as streamed so far), which its MessageStream
    keeps per stream; 0.x keeps that inside the snapshot."""
    if _SDK_TAKES_JSON_BUFS:
        return functools.partial(cast(Any, _sdk_accumulate_event), json_bufs={})
    return cast(Callable[..., Any], _sdk_accumulate_event)


class AnthropicFormatError(ValueError):
    """The line is not a usable Anthropic response; the message names the part."""


# Keys citeval reads beside the response; everything else is the response itself (kept in raw).
CITEVAL_KEYS = frozenset(
    {
        "question_id",
        "question",
        "documents",
        "search_results",
        "format",
        "events",
        "status",
        "stale_notice",
        "abstain_reason",
        "latency_ms",
        "attached_by",
    }
)
DOCUMENT_CITATIONS = ("char_location", "page_location", "content_block_location")

# Texts that only decline (an uncited answer made only of such sentences is an abstention).
DEFAULT_REFUSAL_PATTERNS: tuple[str, ...] = (
    # Russian
    r"\bне (?:могу|можем|удалось|получилось)\b.{0,60}\b(?:ответить|помочь|предоставить|подсказать|найти|сказать|"
    r"дать ответ|определить)",
    r"\bне (?:нашел|нашёл|нашла|нашли|найдено|обнаружено|обнаружил\w*)\b",
    r"\bнет (?:информации|сведений|данных|ответа)\b",
    r"\b(?:информаци[яи]|сведени[йя]|данны[хе]|ответ\w*) .{0,40}"
    r"\b(?:нет|отсутству\w*|не (?:содерж|упомина|привод)\w*)\b",
    # "в предоставленных документах нет …", "… отсутствует в материалах"
    r"\b(?:документ|источник|материал|контекст|баз[аеыу] знаний)\w*\b.{0,60}"
    r"\b(?:нет|отсутству\w*|не (?:содерж|упомина|привод|освеща|описыва|указ)\w*)",
    r"\b(?:нет|отсутству\w*)\b.{0,60}\b(?:в|во) (?:\w+ )?(?:документ|источник|материал|контекст)\w*",
    r"\bне располага\w*\b",
    r"\bне (?:вправе|имею права|уполномочен\w*)\b",
    r"\b(?:обратитесь|рекомендую обратиться|рекомендуем обратиться|уточните у)\b",
    # English
    r"\b(?:i|we) (?:can ?not|can't|am unable to|'m unable to|am not able to|'m not able to)\b",
    r"\b(?:i|we) (?:do not|don't|could not|couldn't) (?:have|find|see)\b.{0,40}\b(?:information|details|data|answer)",
    r"\b(?:documents?|sources?|context|materials?) .{0,30}\b(?:do(?:es)? not|don't|doesn't) (?:contain|mention|include|"
    r"say|cover|address)",
    r"\bno (?:relevant )?(?:information|details|answer)\b",
    r"\bplease (?:contact|consult|ask)\b",
)


class DocumentRef(BaseModel):
    """documents[i] / search_results[i]: the registry source the i-th request document stood for."""

    model_config = ConfigDict(extra="allow")

    document_id: str | None = None
    version_id: str | None = None
    chunk_id: str | None = None
    chunk_ids: list[str] | None = None
    title: str | None = None


@dataclass
class AnthropicLine:
    """One parsed replay line: the response as the SDK's Message, and citeval's keys beside it."""

    question_id: str
    message: Message
    documents: list[DocumentRef] = field(default_factory=list)
    search_results: list[DocumentRef] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)
    usage_given: bool = True
    stream_error: dict[str, Any] | None = None
    aside: SetAside = field(default_factory=lambda: SetAside())

    @property
    def stop_reason(self) -> str | None:
        """The response's stop_reason, also one newer than this SDK (e.g. model_context_window_exceeded)."""
        return self.aside.stop_reason or self.message.stop_reason

    def citations_of(self, block_index: int) -> list[Any]:
        """A block's citations in order: the SDK-typed ones and those set aside, as dicts."""
        typed = list(_get(self.message.content[block_index], "citations") or [])
        for b, position, citation in self.aside.citations:
            if b == block_index:
                typed.insert(position, citation)
        return typed

    def response(self) -> dict[str, Any]:
        """The whole response as a dict (nulls left out), what was set aside back in its place."""
        raw: dict[str, Any] = self.message.to_dict(mode="json", exclude_none=True)
        for b, position, citation in self.aside.citations:
            raw["content"][b].setdefault("citations", []).insert(position, citation)
        for b, block in self.aside.blocks:
            raw["content"].insert(b, block)
        if self.aside.usage:
            raw.setdefault("usage", {}).update({k: v for k, v in self.aside.usage.items() if v is not None})
        if self.aside.stop_reason:
            raw["stop_reason"] = self.aside.stop_reason
        return raw


def is_anthropic_line(obj: dict[str, Any]) -> bool:
    """A replay line in Anthropic's shape: marked so, a Messages response, or a stream of events."""
    if obj.get("format") == "anthropic":
        return True
    if "status" in obj:
        return False
    return obj.get("type") == "message" or isinstance(obj.get("events"), list)


# --- parsing ---------------------------------------------------------------------------


def _refs(obj: dict[str, Any], key: str) -> list[DocumentRef]:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise AnthropicFormatError(f"{key} must be a list of {{document_id, version_id?, chunk_id?, chunk_ids?}}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            raise AnthropicFormatError(f"{key}[{i}] must be an object, got {type(item).__name__}")
        try:
            out.append(DocumentRef.model_validate(item))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(p) for p in err["loc"])
            raise AnthropicFormatError(f"{key}[{i}].{where}: {err['msg']}") from None
    return out


NewerCitations = list[tuple[int, int, dict[str, Any]]]  # (block index, position, citation)


def _literal_values(model: Any) -> frozenset[str]:
    union = get_args(model)[0] if get_origin(model) is Annotated else model
    return frozenset(get_args(m.model_fields["type"].annotation)[0] for m in get_args(union))


KNOWN_BLOCK_TYPES = _literal_values(ContentBlock)
KNOWN_CITATION_TYPES = _literal_values(TextCitation)
KNOWN_STOP_REASONS = frozenset(get_args(StopReason))
USAGE_TOKENS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
# Citations citeval resolves against the registry; any other kind is carried along as a dict
# (validated or not, it ends up UNRESOLVED_CHUNK naming its type).
RESOLVABLE_CITATIONS = frozenset((*DOCUMENT_CITATIONS, "search_result_location"))


@dataclass
class SetAside:
    """Parts of a response this SDK's types do not know (newer API fields), kept for raw."""

    citations: NewerCitations = field(default_factory=list)
    blocks: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (index in the response, block)
    usage: dict[str, Any] = field(default_factory=dict)
    stop_reason: str | None = None


def _validate_message(body: dict[str, Any]) -> tuple[Message, SetAside]:
    """The body as the SDK's Message. What the API added after this SDK was released is set aside
    and returned, so it is carried along instead of rejecting the line, as the SDK's own client
    (which builds responses without validating them) would: content blocks of a newer type,
    citations of a type citeval cannot map (they end up unresolved with the type named), usage
    fields beyond the token counts (server_tool_use, cache_creation, …) and a newer stop_reason.
    A document citation cut down to type, cited_text and document_title (as printed, see
    anthropic_inferred) is set aside too, and resolved by its title and text."""
    aside = SetAside()
    content = body.get("content")
    if isinstance(content, list):
        blocks: list[Any] = []
        for b, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if isinstance(kind, str) and kind not in KNOWN_BLOCK_TYPES:
                aside.blocks.append((b, block))
                continue
            citations = block.get("citations") if isinstance(block, dict) else None
            if isinstance(citations, list) and any(_set_aside(c) for c in citations):
                kept = []
                for c_index, citation in enumerate(citations):
                    if _set_aside(citation):
                        aside.citations.append((len(blocks), c_index, citation))
                    else:
                        kept.append(citation)
                block = {**block, "citations": kept}
            blocks.append(block)
        body = {**body, "content": blocks}
    usage = body.get("usage")
    if isinstance(usage, dict):
        aside.usage = {k: v for k, v in usage.items() if k not in USAGE_TOKENS}
        body = {**body, "usage": {k: v for k, v in usage.items() if k in USAGE_TOKENS}}
    stop_reason = body.get("stop_reason")
    if isinstance(stop_reason, str) and stop_reason not in KNOWN_STOP_REASONS:
        aside.stop_reason = stop_reason
        body = {**body, "stop_reason": None}
    try:
        message = Message.model_validate(body)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "response"
        raise AnthropicFormatError(f"{where}: {err['msg']}") from None
    return message, aside


def _set_aside(citation: Any) -> bool:
    """A citation the SDK's types cannot hold: a type citeval cannot map, or one cut down as printed."""
    if not isinstance(citation, dict):
        return False
    return citation.get("type") not in RESOLVABLE_CITATIONS or is_cut(citation, frozenset(DOCUMENT_CITATIONS))


_RAW_EVENTS = frozenset(
    {"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "error"}
)


def fold_events(events: Sequence[Any]) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The message a stream of raw events builds, folded by the SDK's accumulate_event, and the
    stream's error event if it had one. Logs that keep only each content_block_delta's
    `{index, delta}` fold too (message_start and block starts are filled in)."""
    snapshot: Any = None
    error: dict[str, Any] | None = None
    newer: dict[Any, list[Any]] = {}  # index → [block of a newer type, its streamed input JSON]
    accumulate_event = stream_accumulator()
    for i, raw in enumerate(events):
        if not isinstance(raw, dict):
            raise AnthropicFormatError(f"events[{i}] must be an object")
        event = raw if "type" in raw else ({"type": "content_block_delta", **raw} if "delta" in raw else raw)
        kind = event.get("type")
        if kind not in _RAW_EVENTS:
            continue  # ping, message_stop, and the SDK's helper events (text, citation, …) of a MessageStream
        if kind == "error":
            error = event.get("error") if isinstance(event.get("error"), dict) else {"message": str(event)}
            continue
        _check_event_usage(i, kind, event)
        if kind == "content_block_start" and _newer_block(event.get("content_block")):
            # a block type newer than this SDK: the accumulator would build a text block of it, so it
            # folds a placeholder and the block itself is put back (with its streamed input) below
            newer[event.get("index")] = [dict(event["content_block"]), ""]
            event = {**event, "content_block": {"type": "redacted_thinking", "data": ""}}
        elif kind == "content_block_delta" and event.get("index") in newer:
            partial = event.get("delta", {}).get("partial_json") if isinstance(event.get("delta"), dict) else None
            newer[event["index"]][1] += partial if isinstance(partial, str) else ""
            continue
        try:
            if snapshot is None and kind != "message_start":
                start = {"id": "", "type": "message", "role": "assistant", "model": "", "content": [],
                         "usage": {"input_tokens": 0, "output_tokens": 0}}
                snapshot = accumulate_event(event={"type": "message_start", "message": start}, current_snapshot=None)
            if kind == "content_block_delta":
                index = event.get("index")
                while isinstance(index, int) and len(snapshot.content) <= index:
                    block = {"type": "content_block_start", "index": len(snapshot.content),
                             "content_block": {"type": "text", "text": ""}}
                    snapshot = accumulate_event(event=block, current_snapshot=snapshot)
            snapshot = accumulate_event(event=event, current_snapshot=snapshot)
        except AnthropicFormatError:
            raise
        except Exception as exc:  # noqa: BLE001 - any malformed event, named by its position
            raise AnthropicFormatError(
                f"events[{i}] ({kind}): {type(exc).__name__}: {exc} (folded by the anthropic SDK {_SDK_VERSION})"
            ) from None
    if snapshot is None:
        return {}, error
    folded = cast(dict[str, Any], snapshot.to_dict(mode="json"))
    for index, (block, streamed_input) in newer.items():
        if isinstance(index, int) and 0 <= index < len(folded["content"]):
            if streamed_input:
                try:
                    block["input"] = json.loads(streamed_input)
                except (ValueError, RecursionError):  # kept as streamed (a depth the limits refuse too)
                    block["input"] = streamed_input
            folded["content"][index] = block
    return folded, error


def _check_event_usage(i: int, kind: str, event: dict[str, Any]) -> None:
    """message_start's message.usage and message_delta's usage are objects: a list or a number is
    a malformed line, said as such (the SDK's folding would fail on it with an AttributeError)."""
    holder = event.get("message") if kind == "message_start" else event if kind == "message_delta" else None
    usage = holder.get("usage") if isinstance(holder, dict) else None
    if usage is not None and not isinstance(usage, dict):
        raise AnthropicFormatError(f"events[{i}] ({kind}): usage must be an object of token counts, "
                                   f"not {json_type(usage)}")


def _newer_block(block: Any) -> bool:
    return isinstance(block, dict) and isinstance(block.get("type"), str) and block["type"] not in KNOWN_BLOCK_TYPES


def parse_anthropic_line(obj: dict[str, Any]) -> AnthropicLine:
    """Read one line with the SDK's types; raises AnthropicFormatError naming the bad part."""
    question_id = obj.get("question_id")
    if not isinstance(question_id, (str, int)) or isinstance(question_id, bool) or str(question_id) == "":
        raise AnthropicFormatError("question_id is missing (put citeval's question_id beside the response)")
    documents = _refs(obj, "documents")
    search_results = _refs(obj, "search_results")
    stream_error = None
    if isinstance(obj.get("events"), list):
        body, stream_error = fold_events(obj["events"])
        usage_given = any(isinstance(e, dict) and e.get("type") in ("message_start", "message_delta")
                          for e in obj["events"])
        if not body:
            body = {"id": "", "type": "message", "role": "assistant", "model": "", "content": [],
                    "usage": {"input_tokens": 0, "output_tokens": 0}}
            usage_given = False
    else:
        body = {k: v for k, v in obj.items() if k not in CITEVAL_KEYS}
        if not isinstance(body.get("content"), list):
            raise AnthropicFormatError("content must be a list of blocks (or give the stream as events)")
        usage = body.get("usage")
        if usage is not None and not isinstance(usage, dict):  # a list, a number: malformed, not "no usage"
            raise AnthropicFormatError(f"usage must be an object of token counts, not {json_type(usage)}")
        usage_given = isinstance(usage, dict)
        # hand-written lines of the older "format": "anthropic" shape may lack the envelope
        body.setdefault("id", "")
        body.setdefault("type", "message")
        body.setdefault("role", "assistant")
        body.setdefault("model", "")
        if not usage_given:
            body["usage"] = {"input_tokens": 0, "output_tokens": 0}
    message, aside = _validate_message(body)
    kept = ("status", "stale_notice", "abstain_reason", "latency_ms", "attached_by")
    extras: dict[str, Any] = {k: obj[k] for k in kept if k in obj}
    if "status" in extras and extras["status"] not in ("answered", "abstained", "error"):
        raise AnthropicFormatError(f"status {extras['status']!r} is not answered, abstained or error")
    return AnthropicLine(str(question_id), message, documents, search_results, extras, usage_given, stream_error,
                         aside)


# --- citations → evidence ------------------------------------------------------------------


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _require_forward(start: Any, end: Any, what: str) -> None:
    """A citation whose end comes before its start is malformed, not an empty span."""
    if isinstance(start, int) and isinstance(end, int) and (start < 0 or end < start):
        raise AnthropicFormatError(f"citation end_{what} {end} is before start_{what} {start}")


def clean_cited_text(text: str) -> str:
    """PDF cited_text: U+0002 (hyphenation) removed, CR LF read as LF (DESIGN 6)."""
    return text.replace("\x02", "").replace("\r\n", "\n").replace("\r", "\n")


def _edge_whitespace(text: str) -> tuple[int, int]:
    lead = len(text) - len(text.lstrip())
    trail = len(text) - len(text.rstrip()) if text.strip() else 0
    return lead, trail


def _split_run(text: str, chunks: Sequence[Chunk], anchored: bool) -> list[tuple[Chunk, str]] | None:
    """Cover `text` by consecutive chunks (a suffix of the first, whole middles, a prefix of the
    last), compared normalized; each chunk gets its part of the original text. With `anchored`
    the run must start at chunks[0] and use every chunk (a content-block range)."""
    if not chunks:
        return None
    if anchored:
        verbatim = _verbatim_run(text, chunks)
        if verbatim:
            return verbatim
    norm, origin = normalize_with_map(text)
    if not norm:
        return None
    texts = [normalize(c.text) for c in chunks]
    starts = [0] if anchored else range(len(chunks))
    for i in starts:
        first = texts[i]
        for p in range(len(first)):
            if first[p] != norm[0] or not norm.startswith(first[p:]) or len(first) - p >= len(norm):
                continue
            parts = [(i, 0, len(first) - p)]
            pos, j = len(first) - p, i + 1
            while pos < len(norm):
                while pos < len(norm) and norm[pos] == " ":
                    pos += 1
                if pos >= len(norm):
                    break
                if j >= len(chunks):
                    parts = []
                    break
                rest, nxt = norm[pos:], texts[j]
                if nxt and rest.startswith(nxt):
                    parts.append((j, pos, pos + len(nxt)))
                    pos += len(nxt)
                elif nxt and nxt.startswith(rest):
                    parts.append((j, pos, len(norm)))
                    pos = len(norm)
                else:
                    parts = []
                    break
                j += 1
            if not parts or len(parts) < 2 or (anchored and len(parts) != len(chunks)):
                continue
            return [(chunks[k], text[origin[a] : origin[b - 1] + 1].strip()) for k, a, b in parts]
    return None


def _verbatim_run(text: str, chunks: Sequence[Chunk]) -> list[tuple[Chunk, str]] | None:
    """The common content-block case, without normalizing: `text` is the chunks' texts one after
    another (the API concatenates the cited blocks), whitespace between them allowed."""
    parts: list[tuple[Chunk, str]] = []
    pos = 0
    for chunk in chunks:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        body = chunk.text.strip()
        if not body or not text.startswith(body, pos):
            return None
        parts.append((chunk, body))
        pos += len(body)
    return parts if not text[pos:].strip() else None


def _locate(text: str, chunks: Sequence[Chunk]) -> list[tuple[Chunk, str]] | None:
    """The first chunk whose text holds `text`, else a run of consecutive chunks that covers it."""
    needle = normalize(text)
    if not needle:
        return None
    for chunk in chunks:
        if needle in normalize(chunk.text):
            return [(chunk, text)]
    return _split_run(text, chunks, anchored=False)


class _Resolver:
    """Evidence records for one answer's citations, one per registry chunk a citation reaches."""

    def __init__(self, registry: Registry, asked_at: datetime, line: AnthropicLine) -> None:
        self.registry = registry
        self.asked_at = asked_at
        self.line = line
        self.evidence: list[Evidence] = []
        self._seen: dict[tuple[Any, ...], list[tuple[str, str | None]]] = {}

    def citation(self, citation: Any) -> list[tuple[str, str | None]]:
        """(evidence_id, quote or None) for each part of one citation; the same citation twice
        (in two blocks) is the same evidence."""
        kind = _get(citation, "type")
        key = tuple(
            _get(citation, k)
            for k in ("type", "document_index", "search_result_index", "start_char_index", "end_char_index",
                      "start_page_number", "end_page_number", "start_block_index", "end_block_index", "url",
                      "cited_text", "document_title")
        )
        if key not in self._seen:
            parts: list[tuple[str, str | None]] = []
            for fields, quoted in self._resolve(kind, citation):
                evidence_id = f"E{len(self.evidence) + 1}"
                self.evidence.append(Evidence.model_validate({"evidence_id": evidence_id, **fields}))
                parts.append((evidence_id, fields.get("text") if quoted else None))
            self._seen[key] = parts
        return self._seen[key]

    # Each resolution returns (evidence fields, whether its text is a quote of the registry).
    def _unresolved(
        self, kind: Any, text: str, reason: str, *, quoted: bool = False, **fields: Any
    ) -> list[tuple[dict[str, Any], bool]]:
        """Evidence that names no registry chunk; `reason` reaches the UNRESOLVED_CHUNK detail.
        Its text is a claim quote only when it claims to come from a registry document."""
        base = {"citation_type": kind, "text": text or None, "unresolved_reason": reason}
        return [({**base, **{k: v for k, v in fields.items() if v is not None}}, quoted)]

    def _resolve(self, kind: Any, citation: Any) -> list[tuple[dict[str, Any], bool]]:
        raw_text = _get(citation, "cited_text") or ""
        text = clean_cited_text(raw_text).strip()
        if kind in DOCUMENT_CITATIONS:
            index, refs, label = _get(citation, "document_index"), self.line.documents, "documents"
            cited_title = _get(citation, "document_title")
        elif kind == "search_result_location":
            index, refs, label = _get(citation, "search_result_index"), self.line.search_results, "search_results"
            cited_title = _get(citation, "title")
        else:
            extra = {"url": _get(citation, "url"), "title": _get(citation, "title")}
            return self._unresolved(kind, text, f"a {kind} citation: citeval cannot map it to the registry", **extra)
        where = f"{label}[{index}]"
        if kind in DOCUMENT_CITATIONS and (is_cut(citation, frozenset(DOCUMENT_CITATIONS)) or (
                not refs and isinstance(cited_title, str) and cited_title.strip())):
            # printed without document_index, or logged without the documents mapping: by title and text
            return self._inferred(kind, citation, text)
        if isinstance(index, int) and 0 <= index < len(refs):
            ref = refs[index]
        elif kind == "search_result_location" and self._source_ref(_get(citation, "source")) is not None:
            # no mapping, but the bot named the registry source in the search result's `source`
            ref, where = cast(DocumentRef, self._source_ref(_get(citation, "source"))), "source"
        else:
            return self._unresolved(kind, text, f"{label}[{index}] is missing: the line maps {len(refs)} entries")
        problem = self._title_problem(ref, where, cited_title)
        if problem:
            return self._unresolved(kind, text, problem, document_id=ref.document_id, quoted=True)
        if ref.chunk_id is not None:
            return self._one_chunk(kind, citation, ref, where, text, raw_text)
        if kind in ("content_block_location", "search_result_location") and ref.chunk_ids is not None:
            return self._blocks(kind, citation, ref, where, text)
        version_id, reason = self._edition(ref, where)
        if version_id is None:
            return self._unresolved(kind, text, reason or f"{where} names no edition", document_id=ref.document_id,
                                    quoted=True)
        document_id = ref.document_id or self.registry.versions[version_id].document_id
        if kind == "char_location":
            return self._chars(citation, document_id, version_id, raw_text)
        if kind == "page_location":
            return self._pages(citation, document_id, version_id, text)
        # a content or search-result document without chunk_ids: find the cited text in the edition
        found = _locate(text, self.registry.chunks_of(version_id))
        if not found:
            return self._unresolved(kind, text, f"{where} gives no chunk_ids and no chunk of {version_id} holds "
                                    "the cited text", document_id=document_id, version_id=version_id, quoted=True)
        return [({"citation_type": kind, "chunk_id": c.chunk_id, "document_id": document_id,
                  "version_id": c.version_id, "text": part}, True) for c, part in found]

    def _inferred(self, kind: Any, citation: Any, text: str) -> list[tuple[dict[str, Any], bool]]:
        """A citation without document_index or offsets (anthropic_inferred): its document by its
        title, the edition in force at asked_at, the chunks holding its text (on its pages)."""
        ref, where = self._ref_by_title(citation)
        if ref is None:
            return self._unresolved(kind, text, where, resolution=INFERRED, quoted=True)
        version_id, reason_ = self._edition(ref, where)
        document_id = ref.document_id or (self.registry.versions[version_id].document_id if version_id else None)
        if version_id is None or document_id is None:
            return self._unresolved(kind, text, reason_ or "no edition", document_id=document_id,
                                    resolution=INFERRED, quoted=True)
        chunks = self.registry.chunks_of(version_id)
        paged = kind == "page_location" and any(c.page_start is not None for c in chunks)
        found = self._pages(citation, document_id, version_id, text) if paged else [
            ({"citation_type": kind, "chunk_id": c.chunk_id, "document_id": document_id, "version_id": version_id,
              "text": part}, True) for c, part in _locate(text, chunks) or []]
        if not found or all("unresolved_reason" in fields for fields, _ in found):
            first, end = _get(citation, "start_page_number"), _get(citation, "end_page_number")
            pages = (first, max(first, (end if isinstance(end, int) else first + 1) - 1)) if (
                paged and isinstance(first, int)) else None
            near = near_parts(self.registry, version_id, text, pages)
            found = [({"citation_type": kind, "chunk_id": c.chunk_id, "document_id": document_id,
                       "version_id": version_id, "text": part, "page": max(pages[0], c.page_start or pages[0])
                       if pages else None}, True) for c, part in near] or found or self._unresolved(
                kind, text, f"no chunk of {version_id} holds the cited text", document_id=document_id,
                version_id=version_id, quoted=True)
        return [({**{k: v for k, v in fields.items() if v is not None}, "resolution": INFERRED}, quoted)
                for fields, quoted in found]

    def _ref_by_title(self, citation: Any) -> tuple[DocumentRef | None, str]:
        """(the document a cut citation names, where it was named) or (None, why not): the
        line's documents[document_index] if it has one, the line's documents entry of that
        title, else the registry document of that title, else the one registry document holding
        the cited text."""
        index, title = _get(citation, "document_index"), _get(citation, "document_title")
        refs = self.line.documents
        if isinstance(index, int) and 0 <= index < len(refs) and (refs[index].document_id or refs[index].version_id):
            return refs[index], f"documents[{index}]"
        if isinstance(title, str) and title.strip():
            sent = [r for r in refs if r.title and normalize(r.title) == normalize(title)
                    and (r.document_id or r.version_id)]
            if len(sent) == 1:
                return sent[0], "documents (by title)"
        document_id, reason = document_by_title(self.registry, title)
        if document_id is not None:
            return DocumentRef(document_id=document_id), "document_title"
        # no title, a title of several documents, or one the registry does not know: the cited text
        # names the document when exactly one (of those titled so) holds it
        same = titled(self.registry, title)
        text = clean_cited_text(_get(citation, "cited_text") or "")
        document_id = document_by_text(self.registry, text, self.asked_at, same if len(same) > 1 else None)
        if document_id is not None:
            return DocumentRef(document_id=document_id), "cited_text"
        return None, f"{reason}, and no single registry document holds the cited text"

    def _source_ref(self, source: Any) -> DocumentRef | None:
        """A search result's `source` that is a registry chunk, edition or document id."""
        if not isinstance(source, str) or not source:
            return None
        if source in self.registry.chunks:
            return DocumentRef(chunk_id=source)
        if source in self.registry.versions:
            return DocumentRef(version_id=source)
        if source in self.registry.documents:
            return DocumentRef(document_id=source)
        return None

    def _title_problem(self, ref: DocumentRef, where: str, cited_title: Any) -> str | None:
        """A cited document_title that is neither the registry title nor the title the line says it sent:
        the documents mapping is probably shifted, so the citation is not trusted to any edition."""
        if not isinstance(cited_title, str) or not cited_title.strip():
            return None
        document_id = ref.document_id
        if document_id is None and ref.chunk_id and ref.chunk_id in self.registry.chunks:
            document_id = self.registry.chunks[ref.chunk_id].document_id
        document = self.registry.documents.get(document_id or "")
        cited = normalize(cited_title)
        if ref.title and cited == normalize(ref.title):
            return None
        if document is None:
            return None
        # a title the bot shortened or extended ("Положение об обучении", "… (ред. 2025)") is the
        # same document: every word of the shorter one in the longer (token-set ratio ≥ 80)
        if fuzz.token_set_ratio(cited, normalize(document.title)) >= TITLE_MATCH:
            return None
        return (f"document_title {cited_title!r} is not the title of {where} ({document.document_id}: "
                f"{document.title!r}): is the documents mapping shifted?")

    def _edition(self, ref: DocumentRef, where: str) -> tuple[str | None, str | None]:
        if ref.version_id is not None:
            if ref.version_id not in self.registry.versions:
                return None, f"edition {ref.version_id!r} of {where} is not in the registry"
            return ref.version_id, None
        if ref.document_id is None:
            return None, f"{where} names neither document_id, version_id nor chunk_id"
        if ref.document_id not in self.registry.documents:
            return None, f"document {ref.document_id!r} of {where} is not in the registry"
        edition = self.registry.active_edition(ref.document_id, self.asked_at)
        if edition is None:
            return None, f"no edition of {ref.document_id} was in force at {self.asked_at.isoformat()}"
        return edition.version_id, None

    def _one_chunk(self, kind: Any, citation: Any, ref: DocumentRef, where: str, text: str,
                   raw_text: str) -> list[tuple[dict[str, Any], bool]]:
        """A chunk sent as its own document: char offsets count from the chunk's start."""
        chunk = self.registry.chunks.get(ref.chunk_id or "")
        if chunk is None:
            return self._unresolved(kind, text, f"chunk {ref.chunk_id!r} of {where} is not in the registry",
                                    document_id=ref.document_id, quoted=True)
        fields: dict[str, Any] = {"citation_type": kind, "chunk_id": chunk.chunk_id,
                                  "document_id": ref.document_id or chunk.document_id,
                                  "version_id": chunk.version_id, "text": text}
        start, end = _get(citation, "start_char_index"), _get(citation, "end_char_index")
        _require_forward(start, end, "char_index")
        if kind == "char_location" and isinstance(start, int) and isinstance(end, int) and chunk.char_start is not None:
            lead, trail = _edge_whitespace(raw_text)
            fields["char_start"] = chunk.char_start + start + lead
            fields["char_end"] = chunk.char_start + max(start + lead, end - trail)
        if kind == "page_location" and chunk.page_start is not None:
            fields["page"] = max(chunk.page_start, _get(citation, "start_page_number") or chunk.page_start)
        return [(fields, True)]

    def _blocks(self, kind: Any, citation: Any, ref: DocumentRef, where: str,
                text: str) -> list[tuple[dict[str, Any], bool]]:
        """Blocks start_block_index … end_block_index − 1 of documents[i].chunk_ids."""
        chunk_ids = ref.chunk_ids or []
        start, end = _get(citation, "start_block_index"), _get(citation, "end_block_index")
        _require_forward(start, end, "block_index")
        if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start < len(chunk_ids):
            return self._unresolved(kind, text, f"blocks {start}–{end} are outside {where}.chunk_ids "
                                    f"({len(chunk_ids)} chunks)", document_id=ref.document_id, quoted=True)
        ids = chunk_ids[start : max(end, start + 1)]
        known = [self.registry.chunks.get(i) for i in ids]
        parts: list[tuple[Chunk | None, str]]
        if len(ids) == 1 or None in known:
            parts = [(c, text) for c in known]
        else:
            split = _split_run(text, cast(list[Chunk], known), anchored=True)
            # text the registry does not hold: every block keeps the whole text, so each mismatches
            parts = list(split) if split else [(c, text) for c in known]
        out: list[tuple[dict[str, Any], bool]] = []
        for chunk_id, (chunk, part) in zip(ids, parts, strict=True):
            fields = {"citation_type": kind, "chunk_id": chunk_id, "text": part,
                      "document_id": ref.document_id or (chunk.document_id if chunk else None),
                      "version_id": chunk.version_id if chunk else ref.version_id}
            if chunk is None:
                fields["unresolved_reason"] = f"chunk {chunk_id!r} of {where}.chunk_ids is not in the registry"
            out.append(({k: v for k, v in fields.items() if v is not None}, True))
        return out

    def _chars(self, citation: Any, document_id: str, version_id: str,
               raw_text: str) -> list[tuple[dict[str, Any], bool]]:
        """Offsets into the edition's full text, trimmed of the whitespace the API includes."""
        start, end = _get(citation, "start_char_index"), _get(citation, "end_char_index")
        _require_forward(start, end, "char_index")
        text = clean_cited_text(raw_text).strip()
        if not isinstance(start, int) or not isinstance(end, int):
            return self._unresolved("char_location", text, "char_location without start/end_char_index",
                                    document_id=document_id, version_id=version_id, quoted=True)
        lead, trail = _edge_whitespace(raw_text)
        s, e = start + lead, max(start + lead, end - trail)
        base = {"citation_type": "char_location", "document_id": document_id, "version_id": version_id}
        if self.registry.chunk_at(version_id, s, e) is None and len(raw_text) == end - start:
            parts = self._char_parts(version_id, start, raw_text, s, e)
            if parts:
                return [({**base, "char_start": a, "char_end": b, "text": clean_cited_text(part).strip()}, True)
                        for a, b, part in parts]
        fields = {**base, "char_start": s, "char_end": e, "text": text}
        if self.registry.chunk_at(version_id, s, e) is None:
            fields["unresolved_reason"] = f"no chunk of {version_id} holds characters {s}–{e}"
        return [(fields, True)]

    def _char_parts(self, version_id: str, start: int, raw_text: str, s: int, e: int) -> list[tuple[int, int, str]]:
        """A span over several chunks, cut at chunk borders (only whitespace may fall between)."""
        spanned = sorted((c for c in self.registry.chunks_of(version_id)
                          if c.char_start is not None and c.char_end is not None
                          and c.char_start < e and c.char_end > s), key=lambda c: c.char_start or 0)
        parts: list[tuple[int, int, str]] = []
        covered = s
        for chunk in spanned:
            a, b = max(s, chunk.char_start or 0), min(e, chunk.char_end or 0)
            if raw_text[covered - start : a - start].strip():
                return []  # text outside every chunk
            piece = raw_text[a - start : b - start]
            lead, trail = _edge_whitespace(piece)
            if piece.strip():
                parts.append((a + lead, b - trail, piece))
            covered = max(covered, b)
        if raw_text[covered - start : e - start].strip() or len(parts) < 2:
            return []
        return parts

    def _pages(self, citation: Any, document_id: str, version_id: str,
               text: str) -> list[tuple[dict[str, Any], bool]]:
        """Pages start_page_number … end_page_number − 1: the edition's chunks there holding the text."""
        first, end = _get(citation, "start_page_number"), _get(citation, "end_page_number")
        if not isinstance(first, int):
            return self._unresolved("page_location", text, "page_location without start_page_number",
                                    document_id=document_id, version_id=version_id, quoted=True)
        last = max(first, (end if isinstance(end, int) else first + 1) - 1)
        chunks = self.registry.chunks_of(version_id)
        paged = sorted((c for c in chunks if c.page_start is not None),
                       key=lambda c: (c.page_start or 0, c.char_start or 0))
        if not paged:
            return self._unresolved("page_location", text, f"edition {version_id} has no page numbers",
                                    document_id=document_id, version_id=version_id, page=first, quoted=True)
        on_pages = [c for c in paged if (c.page_start or 0) <= last and (c.page_end or c.page_start or 0) >= first]
        found = _locate(text, on_pages)
        if not found:
            return self._unresolved("page_location", text,
                                    f"no chunk of {version_id} on pages {first}–{last} holds the cited text",
                                    document_id=document_id, version_id=version_id, page=first, quoted=True)
        return [({"citation_type": "page_location", "chunk_id": c.chunk_id, "document_id": document_id,
                  "version_id": version_id, "page": max(first, c.page_start or first), "text": part}, True)
                for c, part in found]


# --- blocks → claims -------------------------------------------------------------------

_SENTENCE_END = re.compile(r"[.!?…][\"'»”)\]]*$")
_MARKUP = re.compile(r"^[\s\W_]*(?:(?:\d+(?:\.\d+)*[.)]|[A-Za-zА-Яа-яЁё]\))[\s\W_]*)?$")
_LAST_TOKEN = re.compile(r"(\w+)\.$")


def is_markup(text: str) -> bool:
    """Only whitespace, punctuation or list markup ("\\n- ", ".", "2.1. "): never a claim on its own."""
    return bool(_MARKUP.match(text))


def _ends_sentence(text: str) -> bool:
    stripped = text.rstrip(" \t")
    if stripped.endswith("\n"):
        return True
    stripped = stripped.rstrip()
    if not _SENTENCE_END.search(stripped):
        return False
    token = _LAST_TOKEN.search(stripped)
    return not (token and token.group(1).lower() in ABBREVIATIONS)


@dataclass
class _Block:
    text: str
    start: int
    citations: list[Any]


def _ends_with_punctuation(text: str) -> bool:
    stripped = text.rstrip()
    token = _LAST_TOKEN.search(stripped)
    return bool(_SENTENCE_END.search(stripped)) and not (token and token.group(1).lower() in ABBREVIATIONS)


def _at_sentence_ends(block: _Block) -> list[_Block]:
    """A block cut where a sentence ends inside it, so the part before the cut closes the claim it
    belongs to: an uncited block at every sentence or line end (". Согласно п. 3.3, " → ". " and
    "Согласно п. 3.3, "; ";\n- хранение" → ";\n" and "- хранение"), a cited one only after a
    leading punctuation mark that closes the sentence before it (its citations stay with the words
    it carries)."""
    sentences = split_sentences(block.text)
    cuts: list[int] = []
    for k in range(1, len(sentences)):
        before = block.text[cuts[-1] if cuts else 0 : sentences[k].start]
        if not (_ends_with_punctuation(before) or (not block.citations and _ends_sentence(before))):
            continue
        if block.citations and not (k == 1 and is_markup(before)):
            break
        cuts.append(sentences[k].start)
        if block.citations:
            break
    if not cuts:
        return [block]
    bounds = [0, *cuts, len(block.text)]
    pieces = [_Block(block.text[a:b], block.start + a, []) for a, b in zip(bounds, bounds[1:], strict=False)]
    pieces[-1].citations = block.citations
    return pieces


def group_blocks(blocks: Sequence[_Block]) -> list[list[_Block]]:
    """Consecutive text blocks up to the end of a sentence form one claim (an uncited lead-in joins
    the cited block after it); blocks of only whitespace, punctuation or list markup start none."""
    groups: list[list[_Block]] = []
    current: list[_Block] = []
    for block in (piece for whole in blocks for piece in _at_sentence_ends(whole)):
        if current and block.text[:1] == "\n":
            groups.append(current)
            current = []
        if not current and not block.citations and is_markup(block.text):
            continue
        current.append(block)
        if _ends_sentence(block.text):
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return [g for g in groups if any(b.citations for b in g) or not is_markup("".join(b.text for b in g))]


def declines_only(text: str, patterns: Sequence[re.Pattern[str]]) -> bool:
    """An uncited text that only declines: every sentence matches a refusal pattern, and it states no number."""
    sentences = [s.text for s in split_sentences(text) if not is_markup(s.text)]
    if not sentences or extract_numbers(text):
        return False
    return all(any(p.search(s) for p in patterns) for s in sentences)


def compile_patterns(patterns: Iterable[str] | None) -> list[re.Pattern[str]]:
    return [re.compile(p, re.IGNORECASE) for p in (DEFAULT_REFUSAL_PATTERNS if patterns is None else patterns)]


_DEFAULT_PATTERNS = compile_patterns(None)


def anthropic_to_answer(
    line: AnthropicLine | dict[str, Any],
    registry: Registry,
    asked_at: datetime,
    *,
    prices: PriceTable | None = None,
    refusal_patterns: Sequence[re.Pattern[str]] | None = None,
) -> Answer:
    """One Anthropic replay line as an Answer, judged at asked_at against the registry.
    Raises AnthropicFormatError for a line that is not a response (see parse_anthropic_line)."""
    parsed = line if isinstance(line, AnthropicLine) else parse_anthropic_line(line)
    message = parsed.message
    patterns = _DEFAULT_PATTERNS if refusal_patterns is None else refusal_patterns
    blocks = _text_blocks(parsed)
    answer_text = "".join(b.text for b in blocks)
    resolver = _Resolver(registry, asked_at, parsed)
    claims = [_claim(group, number, resolver) for number, group in enumerate(group_blocks(blocks), start=1)]
    # after the claims: their citations are what put evidence into the resolver
    status, reason, error = _status(parsed, answer_text, resolver, patterns)
    if status != "answered":
        claims = []
    return Answer(
        question_id=parsed.question_id,
        status=cast(Any, status),
        answer_text=answer_text,
        claims=claims,
        evidence=resolver.evidence if status == "answered" else [],
        links=[],
        stale_notice=bool(parsed.extras.get("stale_notice", False)),
        abstain_reason=reason if status == "abstained" else None,
        error=error,
        usage=_usage(parsed, prices),
        model=message.model or None,
        raw=_raw(parsed),
    )


def _text_blocks(parsed: AnthropicLine) -> list[_Block]:
    """The message's text blocks with their offsets in the answer text and their citations."""
    blocks: list[_Block] = []
    offset = 0
    for index, content in enumerate(parsed.message.content):
        if _get(content, "type") != "text":
            continue
        text = _get(content, "text") or ""
        blocks.append(_Block(text, offset, parsed.citations_of(index)))
        offset += len(text)
    return blocks


def _claim(group: Sequence[_Block], number: int, resolver: _Resolver) -> Claim:
    """Claim c<number>: one group of text blocks, citing the evidence its citations resolve to,
    each evidence id and each quote once."""
    ids: list[str] = []
    quotes: list[str] = []
    for block in group:
        for citation in block.citations:
            for evidence_id, quote in resolver.citation(citation):
                if evidence_id not in ids:
                    ids.append(evidence_id)
                if quote and quote not in quotes:
                    quotes.append(quote)
    joined = "".join(b.text for b in group)
    lead, trail = _edge_whitespace(joined)
    start, end = group[0].start + lead, group[0].start + len(joined) - trail
    return Claim.model_validate({
        "claim_id": f"c{number}", "text": " ".join(joined.split()), "evidence_ids": ids,
        "quote": quotes[0] if quotes else None, "quotes": quotes, "span": (start, end),
    })


def _status(
    parsed: AnthropicLine, answer_text: str, resolver: _Resolver, patterns: Sequence[re.Pattern[str]]
) -> tuple[str, str | None, ErrorInfo | None]:
    """(status, abstain reason, error): a stream that broke is an error; a refusal, an empty text
    or a text that only declines, citing nothing, is an abstention; the line's own status wins."""
    status, reason, error = "answered", parsed.extras.get("abstain_reason"), None
    if parsed.stream_error is not None:
        status = "error"
        error = ErrorInfo(type=str(parsed.stream_error.get("type") or "stream_error"),
                          message=str(parsed.stream_error.get("message") or "")[:500])
    elif parsed.stop_reason == "refusal":
        status, reason = "abstained", reason or "stop_reason: refusal"
    elif not answer_text.strip():
        status, reason = "abstained", reason or "empty response"
    elif not resolver.evidence and declines_only(answer_text, patterns):
        status, reason = "abstained", reason or "the text only declines"
    return parsed.extras.get("status", status), reason, error


def _usage(parsed: AnthropicLine, prices: PriceTable | None) -> Usage | None:
    """Tokens and cost when the response reports usage, latency when the line gives it."""
    if not (parsed.usage_given or parsed.extras.get("latency_ms") is not None):
        return None
    message = parsed.message
    u = message.usage
    tokens = (u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens)
    return Usage(
        latency_ms=parsed.extras.get("latency_ms"),
        input_tokens=tokens[0] if parsed.usage_given else None,
        output_tokens=tokens[1] if parsed.usage_given else None,
        cache_creation_input_tokens=tokens[2],
        cache_read_input_tokens=tokens[3],
        cost_usd=(prices or _shipped_prices()).cost(message.model, *tokens) if parsed.usage_given else None,
    )


def _raw(parsed: AnthropicLine) -> dict[str, Any]:
    raw: dict[str, Any] = {**parsed.response(), "format": "anthropic"}
    if parsed.extras.get("attached_by"):
        raw["attached_by"] = parsed.extras["attached_by"]
    return raw


_PRICES: PriceTable | None = None


def _shipped_prices() -> PriceTable:
    global _PRICES
    if _PRICES is None:
        _PRICES = PriceTable.load()
    return _PRICES
