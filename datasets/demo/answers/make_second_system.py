"""Write second_system.jsonl: recorded answers of a second (fictional) system to the demo
questions, in the plain answer form of DESIGN 3, as an LLM bot with its own retrieval answers.

The bot paraphrases: its text is the demo's gold answer (written by hand as a person would
answer, with the clause and edition named), a sentence each claim, each ending in its markers;
its evidence is the registry chunk holding the gold quote, with the page and a registry link.
Like a real bot it goes wrong in known, recorded ways, chosen by a fixed rotation over the
answerable questions (the variant is kept in `raw.variant`, so a reader can check every score):

- `wrong_document` — answers from a neighbouring document's passage (right-looking citation,
  off-topic answer): no key fact stated, no gold evidence reached;
- `vague` — cites the right passage but leaves the figures out ("см. документ");
- `wrong_page` — cites the right edition, but a passage on another page than the gold anchor;
- `page_typo` — the right passage, with a page number (and link) the chunk is not on;
- `superseded` / `superseded_stale` — answers from the edition that was in force before (its
  old figures), without and with a stale notice;
- `lead_in` — adds an uncited sentence of advice;
- `words` — the gold answer with some numbers written in words ("не позднее двух часов");
- `misquote` — quotes the passage with a figure changed;
- `clean` — the gold answer as it is.

Of the questions gold says to refuse, the bot refuses two in three and answers the third from
the nearest passage; two questions end in a backend timeout. Usage figures are invented but
plausible (tokens from text length, a price per million tokens).

Run from the repository root: `python datasets/demo/answers/make_second_system.py`.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from pathlib import Path

from evals.contract.models import Chunk, GoldEvidence, Question, VersionStatus
from evals.data.registry import Registry
from evals.score.checks import is_substantive
from evals.store.jsonl import load_questions
from evals.text.normalize import normalize, split_sentences

DATASET = Path(__file__).resolve().parents[1]
OUT = Path(__file__).with_name("second_system.jsonl")
MODEL = "demo-llm-bot-2"
PRICE_IN, PRICE_OUT = 0.8, 4.0  # USD per million tokens
# One variant per answerable question, in turn (20 answers: 6 with a fault, 2 in words); a
# question whose gold edition replaced one still superseded at asked_at is answered from that
# old edition one time in four instead (alternately without and with a stale notice).
ROTATION = (
    "clean", "words", "wrong_document", "clean", "clean", "vague", "clean", "wrong_page", "clean", "clean",
    "lead_in", "clean", "words", "clean", "page_typo", "clean", "clean", "misquote", "clean", "clean",
)
STALE_EVERY = 4
TIMEOUTS = {"q-p1-020", "q-p2-044"}
# Genitive number words, for a number after "не позднее", "не ранее", "до", "в течение", …
_GENITIVE = {"2": "двух", "3": "трех", "5": "пяти", "6": "шести", "7": "семи", "10": "десяти", "12": "двенадцати",
             "14": "четырнадцати", "15": "пятнадцати", "20": "двадцати", "24": "двадцати четырех", "30": "тридцати",
             "45": "сорока пяти", "60": "шестидесяти", "72": "семидесяти двух"}
_AFTER_GENITIVE = re.compile(r"(не позднее|не ранее|в течение|не более|не менее|до|свыше|более) (\d+)(?= [а-я])")
# Nominative number words before a unit in the genitive plural ("12 месяцев" → "двенадцать месяцев").
_NOMINATIVE = {"5": "пять", "6": "шесть", "7": "семь", "10": "десять", "12": "двенадцать", "14": "четырнадцать",
               "15": "пятнадцать", "20": "двадцать", "30": "тридцать", "45": "сорок пять", "60": "шестьдесят"}
_BEFORE_PLURAL = re.compile(
    r"(?<![\d,.–—-])(?<![\d,.–—-] )(\d+) (?=(?:рабочих |календарных )?(?:месяцев|дней|часов|минут|лет|суток)\b)"
)
_NUMBER = re.compile(r"\d+")
_CLAUSE = re.compile(r"\d+(?:\.\d+)+\.? ")
_LEADING_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*[.)]?|[-–—•])\s+")
_CLAUSE_NOTE = re.compile(
    r"\s*\((?:пп?\.|по п\.|раздел|приложени|Положени|Регламент|Инструкци|Договор|Поряд|СОП|в редакции)[^()]*\)"
)


def gold_chunk(registry: Registry, g: GoldEvidence) -> Chunk | None:
    """The registry chunk holding the gold span (else the first holding its quote)."""
    if g.version_id and g.char_start is not None and g.char_end is not None:
        found = registry.chunk_at(g.version_id, g.char_start, g.char_end)
        if found is not None:
            return found
    for chunk in registry.chunks_of(g.version_id or ""):
        if g.quote and normalize(g.quote) in normalize(chunk.text):
            return chunk
    return None


def evidence_record(registry: Registry, evidence_id: str, chunk: Chunk, page: int | None = None) -> dict:
    return {
        "evidence_id": evidence_id,
        "chunk_id": chunk.chunk_id,
        "document_id": chunk.document_id,
        "version_id": chunk.version_id,
        "page": page if page is not None else chunk.page_start,
        "text": chunk.text,
    }


def link(registry: Registry, evidence: dict) -> dict | None:
    version = registry.versions[evidence["version_id"]]
    if not version.viewer_url:
        return None
    page = f"#page={evidence['page']}" if evidence.get("page") else ""
    return {"evidence_id": evidence["evidence_id"], "url": version.viewer_url.rstrip("/") + page}


def first_sentence(text: str) -> str:
    """The passage's first sentence of some length, as a bot retells it: without its clause
    number or list dash, on one line."""
    lines = [_LEADING_NUMBER.sub("", line.strip()) for line in text.splitlines() if line.strip()]
    text = " ".join(lines)
    sentences = [s.text for s in split_sentences(text) if len(s.text) > 30 and not s.text.endswith(":")]
    if not sentences and len(lines) > 1:  # a lead-in ending in a colon: retell it with its first item
        sentences = [f"{lines[0]} {lines[1]}"]
    return (sentences or [text])[0].rstrip(";")


def claims_for(text: str, markers: list[str], quote: str | None) -> tuple[str, list[dict]]:
    """The answer text with markers before each sentence's closing punctuation ("… 12 месяцев
    [E1]."), a bare "Да." left unmarked, and its claims (the first marked one with the quote)."""
    parts, claims = [], []
    for sentence in split_sentences(text):
        body = sentence.text
        start = sum(len(p) + 1 for p in parts)
        ids = markers if is_substantive(body) else []
        if ids:
            stem = body.rstrip(".;:!?")
            parts.append(f"{stem} [{', '.join(ids)}]{body[len(stem):]}")
        else:
            parts.append(body)
        claim = {"claim_id": f"c{len(claims) + 1}", "text": body, "evidence_ids": ids,
                 "span": [start, start + len(parts[-1])]}
        if quote and ids and not any("quote" in c for c in claims):
            claim["quote"] = quote
        claims.append(claim)
    return " ".join(parts), claims


def usage(question: Question, text: str, n_evidence: int) -> dict:
    tokens_in = 350 + 420 * n_evidence + len(question.question) // 3
    tokens_out = 20 + len(text) // 3
    latency = 900 + 6 * tokens_out
    cost = (tokens_in * PRICE_IN + tokens_out * PRICE_OUT) / 1e6
    return {"latency_ms": float(latency), "input_tokens": tokens_in, "output_tokens": tokens_out,
            "cost_usd": round(cost, 6)}


def asked(question: Question) -> datetime:
    return question.asked_at or datetime.now(timezone.utc)


def readable_other_chunk(registry: Registry, question: Question, avoid: set[str]) -> Chunk:
    """A passage of another document the user may read, in force at asked_at, with a figure."""
    at = asked(question)
    documents = sorted(d for d in registry.documents if d not in avoid and registry.can_read(question.user, d, at))
    start = sum(map(ord, question.question_id)) % len(documents)
    for document_id in documents[start:] + documents[:start]:
        edition = registry.active_edition(document_id, at)
        chunks = registry.chunks_of(edition.version_id) if edition else []
        with_figure = [c for c in chunks if _NUMBER.search(c.text) and len(c.text) > 80]
        if with_figure:
            return with_figure[len(question.question_id) % len(with_figure)]
    raise SystemExit(f"{question.question_id}: no readable passage of another document")


def other_page_chunk(registry: Registry, chunk: Chunk, g: GoldEvidence) -> Chunk | None:
    """The nearest chunk of the same edition on another page than the gold anchor."""
    candidates = [
        c for c in registry.chunks_of(chunk.version_id)
        if c.page_start is not None and g.page is not None
        and not (c.page_start <= g.page <= (c.page_end or c.page_start))
        and not (g.quote and normalize(g.quote) in normalize(c.text))
    ]
    if not candidates:
        return None
    return min(candidates, key=lambda c: abs((c.char_start or 0) - (chunk.char_start or 0)))


def previous_edition_chunk(registry: Registry, chunk: Chunk, at: datetime) -> Chunk | None:
    """The chunk under the same heading in the edition the cited one superseded (when that
    edition is superseded at asked_at, not revoked or deleted)."""
    version = registry.versions[chunk.version_id]
    if not version.supersedes or registry.status(version.supersedes, at) is not VersionStatus.superseded:
        return None
    older = registry.chunks_of(version.supersedes)
    same = [c for c in older if c.heading_path == chunk.heading_path]
    clause = _CLAUSE.match(chunk.text)
    if not same and clause:  # the same numbered clause ("3.1.") of the older edition
        same = [c for c in older if c.text.startswith(clause.group(0))]
    same = [c for c in same if not c.text.rstrip().endswith(":")]  # a bare lead-in answers nothing
    return same[0] if same else None


def without_clause_note(text: str) -> str:
    """The gold answer without its closing note on the clause and edition ("(п. 3.1 Положения,
    редакция 2023 года)"): the bot names its sources by markers, not by clause."""
    return _CLAUSE_NOTE.sub("", text)


def in_words(text: str) -> str:
    """Some numbers written in words, as a bot paraphrasing a passage does."""
    text = _AFTER_GENITIVE.sub(lambda m: f"{m.group(1)} {_GENITIVE.get(m.group(2), m.group(2))}", text)
    return _BEFORE_PLURAL.sub(lambda m: f"{_NOMINATIVE.get(m.group(1), m.group(1))} ", text)


def misquote(quote: str) -> str | None:
    match = _NUMBER.search(quote)
    if match is None:
        return None
    changed = str(int(match.group(0)) + 1)
    return quote[: match.start()] + changed + quote[match.end() :]


def answer_for(registry: Registry, question: Question, variant: str) -> dict:
    qid = question.question_id
    gold = question.gold
    assert gold is not None and gold.answer
    pairs = [(g, c) for g in gold.evidence if (c := gold_chunk(registry, g)) is not None]
    if not pairs:
        variant = "wrong_document"
    base = {"question_id": qid, "status": "answered", "stale_notice": False, "model": MODEL}
    text, quote = without_clause_note(gold.answer), pairs[0][0].quote if pairs else None
    evidence = [evidence_record(registry, f"E{i + 1}", c) for i, (_, c) in enumerate(pairs)]
    if variant == "wrong_document":
        chunk = readable_other_chunk(registry, question, {g.document_id for g in gold.evidence})
        title = registry.documents[chunk.document_id].title
        text = f"Согласно документу «{title}»: {first_sentence(chunk.text)}"
        evidence, quote = [evidence_record(registry, "E1", chunk)], None
    elif variant == "vague":
        title = registry.documents[pairs[0][1].document_id].title
        text = f"Этот вопрос регулируется документом «{title}». Конкретные сроки и значения приведены в документе."
        quote = None
    elif variant == "wrong_page":
        other = other_page_chunk(registry, pairs[0][1], pairs[0][0])
        if other is None:
            variant = "clean"
        else:
            evidence[0] = evidence_record(registry, "E1", other)
            quote = None
    elif variant == "page_typo":
        chunk = pairs[0][1]
        if chunk.page_start is None:
            variant = "clean"
        else:
            evidence[0] = evidence_record(registry, "E1", chunk, page=(chunk.page_end or chunk.page_start) + 1)
    elif variant in ("superseded", "superseded_stale"):
        older = previous_edition_chunk(registry, pairs[0][1], asked(question))
        if older is None:
            variant = "clean"
        else:
            evidence[0] = evidence_record(registry, "E1", older)
            text, quote = first_sentence(older.text), None
            if variant == "superseded_stale":
                base["stale_notice"] = True
                text = f"По предыдущей редакции документа (она уже не действует): {text}"
    elif variant == "lead_in":
        text = f"{text} Перед применением уточните порядок у старшей медицинской сестры отделения."
    elif variant == "words":
        spoken = in_words(text)
        variant, text = ("words", spoken) if spoken != text else ("clean", text)
    elif variant == "misquote":
        changed = misquote(quote or "")
        variant, quote = ("misquote", changed) if changed else ("clean", quote)
    markers = [e["evidence_id"] for e in evidence]
    answer_text, claims = claims_for(text, markers, quote)
    if variant == "lead_in":  # the advice sentence carries no marker
        claims[-1]["evidence_ids"] = []
        cut = answer_text.rindex(" [")
        answer_text = answer_text[:cut] + answer_text[answer_text.index("]", cut) + 1 :]
    links = [lk for e in evidence if (lk := link(registry, e)) is not None]
    return {**base, "answer_text": answer_text, "claims": claims, "evidence": evidence, "links": links,
            "usage": usage(question, answer_text, len(evidence)), "raw": {"variant": variant}}


def stale_possible(registry: Registry, question: Question) -> bool:
    gold = question.gold
    if gold is None or not gold.evidence:
        return False
    chunk = gold_chunk(registry, gold.evidence[0])
    return chunk is not None and previous_edition_chunk(registry, chunk, asked(question)) is not None


def refusal(question: Question) -> dict:
    text = ("В предоставленных документах нет сведений об этом. "
            "Обратитесь, пожалуйста, к ответственному специалисту.")
    return {"question_id": question.question_id, "status": "abstained", "answer_text": text,
            "abstain_reason": "no passage answers the question", "model": MODEL,
            "usage": usage(question, text, 3), "raw": {"variant": "refusal"}}


def timeout(question: Question) -> dict:
    return {"question_id": question.question_id, "status": "error", "answer_text": "",
            "error": {"type": "timeout", "message": "no reply within 30 s"}, "model": MODEL,
            "raw": {"variant": "timeout"}}


def build(dataset: Path = DATASET) -> list[dict]:
    """Every answer of the second system, in question order."""
    registry = Registry.load(dataset)
    questions = load_questions(dataset)
    rows, turn, refusals, stale_turn = [], 0, 0, 0
    for question in questions:
        gold = question.gold
        if question.question_id in TIMEOUTS:
            rows.append(timeout(question))
        elif gold is not None and gold.should_abstain:
            refusals += 1
            if refusals % 3:
                rows.append(refusal(question))
            else:  # answers anyway, from the nearest passage it may read
                chunk = readable_other_chunk(registry, question, set())
                text = first_sentence(chunk.text)
                evidence = [evidence_record(registry, "E1", chunk)]
                answer_text, claims = claims_for(text, ["E1"], None)
                rows.append({"question_id": question.question_id, "status": "answered", "answer_text": answer_text,
                             "claims": claims, "evidence": evidence,
                             "links": [lk for e in evidence if (lk := link(registry, e))], "stale_notice": False,
                             "model": MODEL, "usage": usage(question, answer_text, 1),
                             "raw": {"variant": "answered_instead_of_refusing"}})
        else:
            variant = ROTATION[turn % len(ROTATION)]
            turn += 1
            if stale_possible(registry, question):
                stale_turn += 1
                if stale_turn % STALE_EVERY == 1:
                    variant = "superseded" if stale_turn % (2 * STALE_EVERY) == 1 else "superseded_stale"
            rows.append(answer_for(registry, question, variant))
    return rows


def main() -> None:
    rows = build()
    with OUT.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{OUT.name}: {len(rows)} answers")


if __name__ == "__main__":
    main()
