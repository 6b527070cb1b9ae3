"""Label Studio tasks from a run folder: one task per answered question.

A task's data holds everything a rater needs (question, answer, claims with evidence
cards); every string in it comes from the run or the registry and is shown by the label
config with <Text> (plain text), so nothing in it is ever interpreted as HTML; the one image,
a card's cited page region (`page_images`), is a PNG data URI citeval renders itself from the
registry's copy of a PDF edition, shown with <Image>. A task is
keyed by (run_id, question_id), in its data and in its meta, and carries a hash of its
data so that a second push can tell changed tasks from unchanged ones.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from evals.contract.models import Answer, Chunk, Claim, Evidence, Judgment, Version, VersionStatus
from evals.data.registry import Registry
from evals.data.render import cached_chunk_region, cited_page, page_link
from evals.errors import DataError
from evals.label.config import ReviewConfig
from evals.label.hotkeys import hotkey
from evals.score.checks import claims_of
from evals.store.runfolder import RunFolder

TASK_SCHEMA = 1
LAYOUT_KEY = "claims"

# --- claims --------------------------------------------------------------------------

def answer_claims(answer: Answer) -> list[Claim]:
    """The answer's claims as the checks see them (DESIGN 3: an answered answer without claims
    gets one claim a sentence), so claim ids (s1, s2, …) match the auto judgments and findings."""
    return claims_of(answer)


# --- wording (Russian first) ---------------------------------------------------------

_WORDS: dict[str, dict[str, Any]] = {
    "ru": {
        "asked": "задан",
        "asked_default": "дата вопроса не указана, взято начало прогона",
        "tier": "уровень риска",
        "tags": "теги",
        "status": "статус ответа",
        "answered": "дан ответ",
        "abstained": "отказ отвечать",
        "error": "ошибка",
        "stale_yes": "ответ предупреждает, что опирается на старую редакцию",
        "reason": "причина отказа",
        "claim": "Утверждение",
        "of": "из",
        "sources": "источники",
        "no_sources": "без ссылки на источник",
        "edition": "редакция",
        "at_asked": "на дату вопроса",
        "page": "стр.",
        "pages": "стр.",
        "link": "Ссылка в ответе",
        "no_link": "Ссылка в ответе: нет",
        "viewer": "В реестре",
        "not_http": "не http(s), не открывается",
        "now": "сейчас",
        "source_no": "источник",
        "unknown_doc": "документ не найден в реестре",
        "unknown_evidence": "такого источника нет в наборе, переданном модели",
        "no_text": "(текст фрагмента недоступен)",
        "unknown_edition": "редакция не указана",
        "empty_answer": "(пустой ответ)",
        "highlighted": "процитированный фрагмент выделен",
        "status_names": {
            "active": "действует",
            "superseded": "заменена более новой",
            "revoked": "отозвана",
            "deleted": "удалена",
            "not_yet_effective": "ещё не вступила в силу",
        },
        "choices": {
            "significant": {"yes": "Да", "no": "Нет"},
            "support": {
                "supported": "Подтверждает", "partial": "Частично", "unsupported": "Не подтверждает",
                "cannot_judge": "Не могу оценить",
            },
            "anchor": {"yes": "Да", "no": "Нет", "na": "Неприменимо"},
        },
    },
    "en": {
        "asked": "asked",
        "asked_default": "no asked_at, the run's start is used",
        "tier": "risk tier",
        "tags": "tags",
        "status": "answer status",
        "answered": "answered",
        "abstained": "abstained",
        "error": "error",
        "stale_yes": "the answer says it relies on an old edition",
        "reason": "abstain reason",
        "claim": "Claim",
        "of": "of",
        "sources": "sources",
        "no_sources": "cites no source",
        "edition": "edition",
        "at_asked": "at the time of the question",
        "page": "p.",
        "pages": "pp.",
        "link": "Link in the answer",
        "no_link": "Link in the answer: none",
        "viewer": "In the registry",
        "not_http": "not http(s), not opened",
        "now": "now",
        "source_no": "source",
        "unknown_doc": "document not in the registry",
        "unknown_evidence": "no such source in the set given to the model",
        "no_text": "(fragment text not available)",
        "unknown_edition": "edition not given",
        "empty_answer": "(empty answer)",
        "highlighted": "the cited passage highlighted",
        "status_names": {
            "active": "active",
            "superseded": "superseded",
            "revoked": "revoked",
            "deleted": "deleted",
            "not_yet_effective": "not yet effective",
        },
        "choices": {
            "significant": {"yes": "Yes", "no": "No"},
            "support": {
                "supported": "Supported", "partial": "Partially", "unsupported": "Not supported",
                "cannot_judge": "Cannot judge",
            },
            "anchor": {"yes": "Yes", "no": "No", "na": "Not applicable"},
        },
    },
}


def _fmt_time(t: datetime) -> str:
    return t.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


# --- building tasks ------------------------------------------------------------------


def task_key(run_id: str, question_id: str) -> str:
    return json.dumps([run_id, question_id], ensure_ascii=False)


def data_hash(data: dict[str, Any]) -> str:
    payload = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:20]


def layout_of(data: dict[str, Any]) -> list[tuple[str, tuple[str, ...]]]:
    """(claim_id, evidence ids of its cards) in order: what control indices point to."""
    out = []
    for claim in data.get(LAYOUT_KEY) or []:
        if not isinstance(claim, dict):
            continue
        cards = claim.get("cards") or []
        out.append((str(claim.get("claim_id")), tuple(str(c.get("evidence_id")) for c in cards if isinstance(c, dict))))
    return out


def reviewable(answer: Answer) -> bool:
    """Answers a rater can judge: answered or abstained (a backend error has nothing to judge)."""
    return answer.status in ("answered", "abstained")


def choices(w: dict[str, Any], field: str, claim: int, card: int | None = None) -> list[dict[str, str]]:
    """The dynamic choices of a per-claim control: {value (shown), alias (stored), hotkey} each."""
    return [
        {"value": label, "alias": value, "hotkey": hotkey(field, value, claim, card)}
        for value, label in w["choices"][field].items()
    ]


def link_html(urls: list[str], viewer: str | None, w: dict[str, Any]) -> str:
    """The card's links as HTML for a <HyperText>: every text escaped; only an http(s) URL becomes a
    link, opened in a new tab; the registry's viewer link for the cited page after the answer's."""

    def one(url: str) -> str:
        shown = html.escape(url)
        if urlsplit(url.strip()).scheme.lower() not in ("http", "https"):
            return f"{shown} ({html.escape(w['not_http'])})"
        return f'<a href="{html.escape(url.strip(), quote=True)}" target="_blank" rel="noopener noreferrer">{shown}</a>'

    parts = [f"{html.escape(w['link'])}: " + " ; ".join(one(u) for u in urls) if urls else html.escape(w["no_link"])]
    if viewer:
        parts.append(f"{html.escape(w['viewer'])}: {one(viewer)}")
    return " · ".join(parts)


class TaskBuilder:
    def __init__(self, run: RunFolder, lang: str = "ru", now: datetime | None = None) -> None:
        if lang not in _WORDS:
            raise DataError("--lang", None, f"unknown language {lang!r} (expected one of {', '.join(_WORDS)})")
        self.run = run
        self.lang = lang
        self.w = _WORDS[lang]
        self.now = now or datetime.now(timezone.utc)  # "status now": when the task is pushed

    def tasks(self, *, predictions: bool = False, config: ReviewConfig | None = None) -> list[dict[str, Any]]:
        out = []
        for answer in self.run.answer_list:
            if not reviewable(answer):
                continue
            task = self.task(answer)
            if predictions:
                preds = predictions_for(task["data"], self.run.judgments, config or ReviewConfig.default(self.lang))
                if preds:
                    task["predictions"] = preds
            out.append(task)
        return out

    def task(self, answer: Answer) -> dict[str, Any]:
        run = self.run
        question = run.try_questions().get(answer.question_id)
        asked_at = run.asked_at(answer.question_id)
        w = self.w
        meta_parts = [f"id {answer.question_id}"]
        if question is not None and question.asked_at is not None:
            meta_parts.append(f"{w['asked']} {_fmt_time(question.asked_at)}")
        else:
            meta_parts.append(f"{w['asked_default']} ({_fmt_time(asked_at)})")
        if question is not None:
            meta_parts.append(f"{w['tier']}: {question.risk_tier}")
            if question.tags:
                meta_parts.append(f"{w['tags']}: {', '.join(question.tags)}")
        answer_parts = [f"{w['status']}: {w.get(answer.status, answer.status)}"]
        if answer.stale_notice:
            answer_parts.append(w["stale_yes"])
        if answer.abstain_reason:
            answer_parts.append(f"{w['reason']}: {answer.abstain_reason}")
        if answer.model:
            answer_parts.append(f"model: {answer.model}")
        evidence = {e.evidence_id: e for e in answer.evidence}
        links: dict[str, list[str]] = {}
        for link in answer.links:
            links.setdefault(link.evidence_id, []).append(link.url)
        claims = answer_claims(answer)
        claim_items = []
        for i, claim in enumerate(claims):
            ids = list(dict.fromkeys(claim.evidence_ids))
            head = f"{w['claim']} {i + 1} {w['of']} {len(claims)} (#{i}) · {claim.claim_id} · "
            head += f"{w['sources']}: {', '.join(ids)}" if ids else w["no_sources"]
            cards = []
            for j, eid in enumerate(ids):
                card = self._card(eid, evidence.get(eid), links.get(eid, []), asked_at)
                card["head"] = f"{w['source_no']} #{j} · {card['head']}"
                card["support_choices"] = choices(w, "support", i, j)
                card["anchor_choices"] = choices(w, "anchor", i, j)
                cards.append(card)
            claim_items.append({
                "claim_id": claim.claim_id, "head": head, "text": claim.text, "cards": cards,
                "significant_choices": choices(w, "significant", i),
            })
        data: dict[str, Any] = {
            "run_id": run.run_id,
            "question_id": answer.question_id,
            "question": question.question if question else f"({answer.question_id})",
            "question_meta": " · ".join(meta_parts),
            "answer_text": answer.answer_text or w["empty_answer"],
            "answer_meta": " · ".join(answer_parts),
            "status": answer.status,
            "asked_at": asked_at.isoformat(),
            LAYOUT_KEY: claim_items,
            "citeval_task_schema": TASK_SCHEMA,
        }
        meta = {
            "run_id": run.run_id,
            "question_id": answer.question_id,
            "citeval_key": task_key(run.run_id, answer.question_id),
            "citeval_hash": data_hash(data),
        }
        return {"data": data, "meta": meta}

    def _card(self, evidence_id: str, ev: Evidence | None, urls: list[str], asked_at: datetime) -> dict[str, Any]:
        w = self.w
        registry = self.run.try_registry()
        if ev is None:
            return {
                "evidence_id": evidence_id,
                "head": f"[{evidence_id}] {w['unknown_evidence']}",
                "link": w["no_link"],
                "link_html": link_html(urls, None, w),
                "snippet": w["no_text"],
            }
        chunk = registry.resolve(ev) if registry is not None else None
        document_id = ev.document_id or (chunk.document_id if chunk else None)
        version_id = ev.version_id or (chunk.version_id if chunk else None)
        parts = [f"[{evidence_id}]"]
        document = registry.documents.get(document_id) if registry is not None and document_id else None
        if document is not None:
            parts.append(f"«{document.title}»")
        elif document_id:
            parts.append(f"{document_id} ({w['unknown_doc']})")
        version = registry.versions.get(version_id) if registry is not None and version_id else None
        if version is not None:
            status = version.status_at(asked_at)
            status_now = version.status_at(self.now)
            parts.append(f"{w['edition']} {version.revision} ({version.version_id})")
            parts.append(f"{w['at_asked']}: {w['status_names'][VersionStatus(status).value]}")
            parts.append(f"{w['now']} ({self.now:%Y-%m-%d}): {w['status_names'][VersionStatus(status_now).value]}")
        elif version_id:
            parts.append(f"{w['edition']} {version_id}")
        else:
            parts.append(w["unknown_edition"])
        page = _pages(ev, chunk, w)
        if page:
            parts.append(page)
        snippet = chunk.text if chunk is not None else (ev.text or w["no_text"])
        link = f"{w['link']}: " + " ; ".join(urls) if urls else w["no_link"]
        viewer = page_link(version, cited_page(chunk, ev.page) if chunk is not None else ev.page) if version else None
        card: dict[str, Any] = {
            "evidence_id": evidence_id, "head": " · ".join(parts), "link": link,
            "link_html": link_html(urls, viewer, w), "snippet": snippet,
        }
        if version is not None:
            card["edition_status"] = VersionStatus(version.status_at(asked_at)).value
            card["edition_status_now"] = VersionStatus(version.status_at(self.now)).value
        if registry is not None and chunk is not None and version is not None:
            image = _page_image(registry, chunk, ev, version, w)
            if image is not None:  # the config's <Image> sits in a Repeater over this list: no key, no image
                card["page_images"] = [image]
        return card


# the cited page in a task: 90 DPI, cropped to the chunk's boxes with more context than the report (~50 KB)
TASK_REGION_SCALE = 1.25
TASK_REGION_MARGIN = 72.0


def _page_image(
    registry: Registry, chunk: Chunk, ev: Evidence, version: Version, w: dict[str, Any]
) -> dict[str, str] | None:
    """The cited page region of a PDF-backed edition ({image: PNG data URI, caption}), or None."""
    page = cited_page(chunk, ev.page)
    if page is None:
        return None
    try:
        uri = cached_chunk_region(registry, chunk, page, scale=TASK_REGION_SCALE, crop_margin=TASK_REGION_MARGIN)
    except DataError:
        return None  # an unreadable PDF copy costs the card its image, not the push
    if uri is None:
        return None
    link = page_link(version, page)
    caption = f"{w['page']} {page} · {version.version_id} · {w['highlighted']}" + (f" · {link}" if link else "")
    return {"image": uri, "caption": caption}


def _pages(ev: Evidence, chunk: Any, w: dict[str, Any]) -> str | None:
    if ev.page is not None:
        return f"{w['page']} {ev.page}"
    if chunk is not None and chunk.page_start is not None:
        if chunk.page_end is not None and chunk.page_end != chunk.page_start:
            return f"{w['pages']} {chunk.page_start}–{chunk.page_end}"
        return f"{w['page']} {chunk.page_start}"
    return None


# --- auto-judge labels as predictions ------------------------------------------------


def predictions_for(data: dict[str, Any], judgments: Iterable[Judgment], config: ReviewConfig) -> list[dict[str, Any]]:
    """One Label Studio prediction per auto judge, from its labels on this task's answer."""
    run_id, question_id = data["run_id"], data["question_id"]
    claim_index: dict[str, int] = {}
    card_index: dict[tuple[str, str], tuple[int, int]] = {}
    for i, (claim_id, evidence_ids) in enumerate(layout_of(data)):
        claim_index.setdefault(claim_id, i)
        for j, evidence_id in enumerate(evidence_ids):
            card_index.setdefault((claim_id, evidence_id), (i, j))
    by_judge: dict[str, dict[str, tuple[str, str, str]]] = {}
    for judgment in judgments:
        if judgment.run_id != run_id or judgment.question_id != question_id or not judgment.source.startswith("auto:"):
            continue
        indices: tuple[int, ...] | None
        if judgment.field in ("support", "anchor"):
            indices = card_index.get((judgment.claim_id or "", judgment.evidence_id or ""))
        elif judgment.field == "significant":
            claim_at = claim_index.get(judgment.claim_id or "")
            indices = None if claim_at is None else (claim_at,)
        else:
            indices = ()
        if indices is None:
            continue
        from_name, to_name = config.names_for(judgment.field, *indices)
        by_judge.setdefault(judgment.source, {})[from_name] = (to_name, judgment.field, judgment.value)  # later wins
    out = []
    for source in sorted(by_judge):
        result = [
            {"from_name": name, "to_name": to_name, "type": "choices", "value": {"choices": [value]}}
            for name, (to_name, _, value) in sorted(by_judge[source].items())
        ]
        out.append({"model_version": source, "result": result})
    return out
