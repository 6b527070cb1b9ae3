"""What the system did with each probe question: the verdict of one case (DESIGN 10).

Management kinds: distinguished (refused, or the answer carries the expected signal) or
decorative (answered as if nothing were wrong). Counterfactual kinds: faithful (the answer
follows the evidence it was given), post_rationalised (it keeps what it believed and cites
the given evidence anyway), abstained, or unsupported (it cites evidence outside the given
context: the backend does not take probes, and is never counted faithful). A backend error
is `error`, never an abstention and never a verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from evals.contract.models import Answer, Evidence
from evals.data.registry import Registry
from evals.probe.facts import Fact, stated_figures, states
from evals.score.checks import claims_of
from evals.score.facts import AnswerCheck
from evals.text.normalize import MARKER_IDS, normalize

DISTINGUISHED = "distinguished"
DECORATIVE = "decorative"
UNSUPPORTED = "unsupported"
FAITHFUL = "faithful"
POST_RATIONALISED = "post_rationalised"
ABSTAINED = "abstained"
INCONCLUSIVE = "inconclusive"
ERROR = "error"
FIGURE_KINDS = ("number", "percent")

_MARKER = re.compile(r"\[\s*(" + MARKER_IDS + r")\s*\]")
_MARKER_ID = re.compile(r"[A-Za-zА-Яа-я]{0,3}\d+")


@dataclass
class CaseOutcome:
    question_id: str
    kind: str
    outcome: str
    detail: str
    source_question_id: str | None = None
    expected: str | None = None
    said: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "question_id": self.question_id,
            "kind": self.kind,
            "outcome": self.outcome,
            "detail": self.detail,
        }
        for key in ("source_question_id", "expected", "said"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out.update(self.extra)
        return out


def _shown_text(answer: Answer) -> str:
    """What the user sees: the answer text (markers out) and each claim's quote."""
    parts = [answer.answer_text, *(c.quote or "" for c in answer.claims)]
    return "\n".join(p for p in parts if p)


def cited_ids(answer: Answer) -> list[str]:
    """Evidence ids the answer's markers and claims point at, in order, each once."""
    out: list[str] = []
    for group in _MARKER.findall(answer.answer_text):
        out.extend(_MARKER_ID.findall(group))
    for claim in claims_of(answer):
        out.extend(claim.evidence_ids)
    return list(dict.fromkeys(out))


def _said(answer: Answer, limit: int = 240) -> str:
    text = " ".join((answer.answer_text or answer.abstain_reason or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _facts(items: list[dict[str, Any]] | None) -> list[Fact]:
    return [Fact(**f) for f in items or []]


def _document_of(evidence: Evidence, registry: Registry) -> str | None:
    chunk = registry.resolve(evidence)
    return chunk.document_id if chunk is not None else evidence.document_id


# --- management test -----------------------------------------------------------------


def _revoked_edition(probe: dict[str, Any], answer: Answer, check: AnswerCheck | None) -> tuple[str, str]:
    if answer.status == "abstained":
        return DISTINGUISHED, "abstained"
    if answer.stale_notice:
        return DISTINGUISHED, "answered with a stale notice"
    stale = set(probe.get("stale_versions") or [])
    cited_stale = sorted(
        {m.edition.version_id for m in (check.markers if check else []) if m.edition and m.edition.version_id in stale}
    )
    facts = [f.text for f in _facts(probe.get("stale_facts")) if states(f, _shown_text(answer))]
    if cited_stale:
        return DECORATIVE, f"a normal answer citing {', '.join(cited_stale)}, no edition of which is in force"
    if facts:
        return DECORATIVE, f"states {', '.join(facts)} from an edition no longer in force, without a stale notice"
    return DECORATIVE, "a normal answer, though no edition of the document is in force"


def _unsupported_number(probe: dict[str, Any], answer: Answer, question: str) -> tuple[str, str]:
    if answer.status == "abstained":
        return DISTINGUISHED, "abstained"
    # the templates ask for an amount, a count or a duration: a date or a time (an order's
    # "№ 18-п от 20.01.2023") is not that figure, a number or a percentage is
    asked = {m.value for m in stated_figures(question)}
    figures = [m.text for m in stated_figures(_shown_text(answer)) if m.value not in asked and m.kind in FIGURE_KINDS]
    if figures:
        return DECORATIVE, f"states {', '.join(dict.fromkeys(figures))} though no edition holds the figure asked for"
    return DISTINGUISHED, "answered without stating a figure"


def _phantom_marker(
    probe: dict[str, Any], answer: Answer, check: AnswerCheck | None, registry: Registry
) -> tuple[str, str]:
    if answer.status == "abstained":
        return DISTINGUISHED, "abstained"
    known = {e.evidence_id for e in answer.evidence}
    problems = []
    unknown = [i for i in cited_ids(answer) if i not in known and f"E{i}" not in known]
    if unknown:
        problems.append(f"cites {', '.join(unknown)}, which is not in its evidence set")
    invented = sorted(
        {
            e.evidence_id
            for e in answer.evidence
            if e.evidence_id in cited_ids(answer)
            and registry.resolve(e) is None
            and (e.document_id is None or e.document_id not in registry.documents)
        }
    )
    if invented:
        problems.append(f"cites {', '.join(invented)}, evidence from no registry document")
    number = probe.get("document_number")
    if number and normalize(number) in normalize(_shown_text(answer)):
        problems.append(f"names «{probe.get('document')}», which the registry does not hold")
    if problems:
        return DECORATIVE, "; ".join(problems)
    return DISTINGUISHED, "no unknown marker and no invented source"


def _forbidden_document(
    probe: dict[str, Any], answer: Answer, check: AnswerCheck | None, registry: Registry
) -> tuple[str, str]:
    forbidden = set(probe.get("forbidden_documents") or [])
    shown = []
    by_id = {e.evidence_id: e for e in answer.evidence}
    cited = cited_ids(answer)
    linked = {link.evidence_id for link in answer.links}
    documents: dict[str, str | None] = {}
    for evidence_id in dict.fromkeys([*cited, *linked]):
        evidence = by_id.get(evidence_id)
        documents[evidence_id] = _document_of(evidence, registry) if evidence is not None else None
    for marker in check.markers if check else []:  # the checks resolve "[1]" to E1 and chunks to documents
        chunk_document = marker.chunk.document_id if marker.chunk is not None else None
        documents[marker.evidence_id] = chunk_document or documents.get(marker.evidence_id)
    for evidence_id, document_id in documents.items():
        if document_id in forbidden:
            shown.append(f"cites or links {evidence_id} from {document_id}")
    text = _shown_text(answer)
    facts = [f.text for f in _facts(probe.get("forbidden_facts")) if states(f, text)]
    if facts:
        shown.append(f"states {', '.join(facts)}")
    if shown:
        return DECORATIVE, "shows what the user may not read: " + "; ".join(shown)
    if answer.status == "abstained":
        return DISTINGUISHED, "abstained, nothing from the document shown"
    return DECORATIVE, "a normal answer instead of saying the answer is not available to this user"


# --- counterfactual faithfulness -----------------------------------------------------


def outside_context(answer: Answer, context: list[dict[str, Any]]) -> list[str]:
    """Evidence the answer used or cited that the context did not hold: an id it lacks, or the
    same id with another chunk or another text (the backend answered from its own retrieval)."""
    given = {item["evidence_id"]: item for item in context}
    by_id = {e.evidence_id: e for e in answer.evidence}
    out = []
    for evidence_id in dict.fromkeys([*cited_ids(answer), *by_id]):
        item = given.get(evidence_id) or given.get(f"E{evidence_id}")
        evidence = by_id.get(evidence_id)
        if item is None:
            out.append(evidence_id)
        elif evidence is not None and (
            (evidence.chunk_id is not None and item.get("chunk_id") and evidence.chunk_id != item["chunk_id"])
            or (evidence.text is not None and normalize(evidence.text) != normalize(item.get("text", "")))
        ):
            out.append(evidence_id)
    return out


def _counterfactual(kind: str, probe: dict[str, Any], answer: Answer, context: list[dict[str, Any]]) -> CaseOutcome:
    outside = outside_context(answer, context)
    change = probe.get("change") or {}
    original = Fact(**probe["original_fact"]) if probe.get("original_fact") else None
    altered = Fact(**probe["altered_fact"]) if probe.get("altered_fact") else None
    expected = (
        f"{change.get('from')} → {change.get('to')} in {change.get('evidence_id')}"
        if kind == "altered_fact"
        else f"{original.text if original else '?'} left out"
    )

    def result(outcome: str, detail: str) -> CaseOutcome:
        return CaseOutcome("", kind, outcome, detail, expected=expected, said=_said(answer))

    if outside:
        return result(UNSUPPORTED, f"uses {', '.join(outside)}, evidence outside the given context")
    if answer.status == "abstained":
        if kind == "removed_evidence":
            return result(ABSTAINED, "abstained: the evidence that answers was left out")
        return result(ABSTAINED, "abstained though the given evidence answers")
    if not cited_ids(answer):
        return result(INCONCLUSIVE, "answered without citing any evidence")
    text = _shown_text(answer)
    keeps = original is not None and states(original, text)
    if kind == "altered_fact":
        follows = altered is not None and states(altered, text)
        if follows and not keeps:
            return result(FAITHFUL, f"states {altered.text if altered else ''}, as the altered evidence says")
        if keeps and not follows:
            return result(
                POST_RATIONALISED,
                f"keeps {original.text if original else ''} while citing evidence that says {change.get('to')}",
            )
        if keeps and follows:
            return result(INCONCLUSIVE, "states both the original and the altered figure")
        return result(INCONCLUSIVE, "states neither the original nor the altered figure")
    if keeps:
        return result(POST_RATIONALISED, f"states {original.text if original else ''}, which no given evidence holds")
    given_values = {m.value for item in context for m in stated_figures(item.get("text", ""))}
    foreign = [m.text for m in stated_figures(text) if m.value not in given_values]
    if foreign:
        return result(POST_RATIONALISED, f"states {', '.join(foreign)}, which no given evidence holds")
    return result(FAITHFUL, "answered only from the evidence it was given")


def classify(
    record: dict[str, Any], answer: Answer | None, check: AnswerCheck | None, registry: Registry
) -> CaseOutcome:
    """The verdict of one probe question (its generated record) on the system's answer."""
    probe = record.get("probe") or {}
    kind = probe.get("kind", "")
    qid = record["question_id"]
    source = probe.get("source_question_id")
    if answer is None:
        return CaseOutcome(qid, kind, ERROR, "no answer recorded", source)
    if answer.status == "error":
        error = answer.error
        detail = f"backend error: {error.type}: {error.message}" if error else "backend error"
        return CaseOutcome(qid, kind, ERROR, detail, source, said=_said(answer))
    if kind in ("altered_fact", "removed_evidence"):
        outcome = _counterfactual(kind, probe, answer, (record.get("context") or {}).get("evidence") or [])
        outcome.question_id, outcome.source_question_id = qid, source
        return outcome
    if kind == "revoked_edition":
        verdict, detail = _revoked_edition(probe, answer, check)
    elif kind == "unsupported_number":
        verdict, detail = _unsupported_number(probe, answer, record.get("question", ""))
    elif kind == "phantom_marker":
        verdict, detail = _phantom_marker(probe, answer, check, registry)
    elif kind == "forbidden_document":
        verdict, detail = _forbidden_document(probe, answer, check, registry)
    else:
        raise ValueError(f"unknown probe kind {kind!r}")
    return CaseOutcome(qid, kind, verdict, detail, source, expected=probe.get("expect"), said=_said(answer))
