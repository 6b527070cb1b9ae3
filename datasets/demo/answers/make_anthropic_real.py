"""Writes anthropic_real.jsonl: demo answers in the Anthropic Messages API's real shape.

What the API really sends, as the anthropic SDK's types and the Citations documentation
describe it: char spans that include the whitespace after a sentence (for the last sentence
of a paragraph that runs past the registry chunk), uncited lead-in blocks, a trailing "."
block, a refusal and a text that only declines, a page_location with an exclusive end page
and PDF-style cited_text (CR LF, U+0002), a content-block range over two chunks, a
search_result_location, a web_search_result_location, and one answer logged as raw stream
events (citations_delta before text_delta). Offsets are taken from the registry's texts.

Run from the repository root: python datasets/demo/answers/make_anthropic_real.py
"""

from __future__ import annotations

import json
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent
DOC = "infection-training"
TITLE = "Положение об обучении персонала требованиям инфекционной безопасности"


def chunks() -> list[dict]:
    return [json.loads(x) for x in (DEMO / "registry" / "chunks.jsonl").read_text(encoding="utf-8").splitlines()]


def chunk_with(version_id: str, needle: str) -> dict:
    return next(c for c in chunks() if c["version_id"] == version_id and needle in c["text"])


def char_cite(version_id: str, sentence: str, index: int = 0) -> dict:
    """The API's char_location for a sentence: the span runs on over the whitespace after it."""
    full = (DEMO / "registry" / "texts" / f"{version_id}.txt").read_text(encoding="utf-8")
    start = full.index(sentence)
    end = start + len(sentence)
    while end < len(full) and full[end].isspace():
        end += 1
    return {"type": "char_location", "cited_text": full[start:end], "document_index": index,
            "document_title": TITLE, "start_char_index": start, "end_char_index": end}


def usage(inp: int, out: int, write: int = 0, read: int = 0) -> dict:
    return {"input_tokens": inp, "output_tokens": out, "cache_creation_input_tokens": write,
            "cache_read_input_tokens": read}


def message(msg_id: str, content: list, stop_reason: str = "end_turn", tokens: dict | None = None) -> dict:
    return {"id": msg_id, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929",
            "content": content, "stop_reason": stop_reason, "stop_sequence": None,
            "usage": tokens or usage(2400, 90, 0, 1800)}


def text(value: str, *citations: dict) -> dict:
    block: dict = {"type": "text", "text": value}
    if citations:
        block["citations"] = list(citations)
    return block


def stream_of(final: dict) -> list[dict]:
    start = {**final, "content": [], "stop_reason": None, "usage": {**final["usage"], "output_tokens": 1}}
    events: list[dict] = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for i, block in enumerate(final["content"]):
        events.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": "",
                       **({"citations": []} if "citations" in block else {})}})
        for citation in block.get("citations", []):
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "citations_delta", "citation": citation}})
        words = block["text"].split(" ")
        for k, word in enumerate(words):
            piece = word + (" " if k < len(words) - 1 else "")
            if piece:
                events.append({"type": "content_block_delta", "index": i,
                               "delta": {"type": "text_delta", "text": piece}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": final["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": final["usage"]["output_tokens"]}})
    events.append({"type": "message_stop"})
    return events


def lines() -> list[dict]:
    v1, v2 = "infection-training-v1", "infection-training-v2"
    out = []
    # lead-in block + a paragraph's first sentence; documents[0] has no version_id: the edition
    # in force at asked_at (2024-11-22 → v1)
    out.append({"question_id": "q-p1-007", "documents": [{"document_id": DOC}], **message("msg_01demo007", [
        text("Согласно Положению об обучении персонала, "),
        text("об аварийной ситуации нужно сообщить заведующему отделением и врачу-эпидемиологу незамедлительно, "
             "но не позднее 2 часов",
             char_cite(v1, "6.3. Об аварийной ситуации работник сообщает заведующему отделением и врачу-эпидемиологу "
                           "незамедлительно, но не позднее 2 часов.")),
        text("."),
    ])})
    # page_location: pages 4 … 5 − 1 of a paged edition; PDF text with CR LF and U+0002
    pass_mark = chunk_with(v2, "дал не менее 80 %")
    pdf_text = pass_mark["text"].replace("правильных", "пра\x02вильных").replace(", если", ",\r\nесли")
    out.append({"question_id": "q-p1-004", "documents": [{"document_id": DOC, "version_id": v2, "title": TITLE}],
                **message("msg_01demo004", [
                    text("Сейчас тест считается сданным при "),
                    text("не менее 80 % правильных ответов.",
                         {"type": "page_location", "cited_text": pdf_text + "\r\n", "document_index": 0,
                          "document_title": TITLE, "start_page_number": 4, "end_page_number": 5}),
                ])})
    # content-block range over two chunks of a custom-content document
    retake = chunk_with(v2, "не ранее чем через 3")
    after = chunk_with(v2, "не прошедший повторное тестирование")
    out.append({"question_id": "q-p1-006",
                "documents": [{"document_id": DOC, "version_id": v2, "chunk_ids": [retake["chunk_id"],
                                                                                   after["chunk_id"]]}],
                **message("msg_01demo006", [
                    text("Пересдать можно не ранее чем через 3 и не позднее чем через 10 рабочих дней; до сдачи "
                         "к инвазивным манипуляциям не допускают.",
                         {"type": "content_block_location", "cited_text": retake["text"] + after["text"],
                          "document_index": 0, "document_title": TITLE, "start_block_index": 0,
                          "end_block_index": 2}),
                    text("\n"),
                ])})
    # a search result (the bot's own retrieval tool) and a web search citation beside it
    cost = chunk_with(v2, "до 80 000 тенге")
    out.append({"question_id": "q-p1-010", "documents": [],
                "search_results": [{"document_id": DOC, "version_id": v2, "chunk_ids": [cost["chunk_id"]]}],
                **message("msg_01demo010", [
                    text("Больница оплачивает внешнее обучение до 80 000 тенге на работника. ",
                         {"type": "search_result_location", "cited_text": cost["text"], "search_result_index": 0,
                          "source": "https://docs.altyndala.example/d/infection-training/v/2", "title": TITLE,
                          "start_block_index": 0, "end_block_index": 1}),
                    text("Курсы по инфекционному контролю в регионе стоят от 60 000 тенге.",
                         {"type": "web_search_result_location", "cited_text": "Стоимость курса — от 60 000 тенге.",
                          "url": "https://courses.example.kz/infection-control", "title": "Курсы",
                          "encrypted_index": "EpMBCioIAhgBIiQ3YmU0"}),
                ])})
    # a refusal by stop_reason, and a text that only declines
    out.append({"question_id": "q-p1-066", "documents": [], **message("msg_01demo066", [
        text("Я не могу ответить на этот вопрос по документам больницы.")], stop_reason="refusal",
        tokens=usage(900, 20))})
    out.append({"question_id": "q-p1-013", "documents": [{"document_id": "disinfection"}],
                **message("msg_01demo013", [
                    text("К сожалению, в предоставленных документах нет действующего режима дезинфекции "
                         "для этого средства. Обратитесь в центральное стерилизационное отделение.")],
                    tokens=usage(1500, 40))})
    # a streamed answer logged as raw events; the cited sentence ends its paragraph
    final = message("msg_01demo008", [
        text("По Положению, "),
        text("постконтактную профилактику начинают в первые 2 часа, но не позднее 72 часов после аварийной "
             "ситуации.",
             char_cite(v2, "Решение о постконтактной профилактике принимает врач-инфекционист; профилактику "
                           "начинают в первые 2 часа, но не позднее 72 часов после аварийной ситуации.")),
    ], tokens=usage(2600, 70, 2400, 0))
    out.append({"question_id": "q-p1-008", "documents": [{"document_id": DOC, "version_id": v2}],
                "events": stream_of(final)})
    return out


if __name__ == "__main__":
    path = DEMO / "answers" / "anthropic_real.jsonl"
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines()), encoding="utf-8")
    print(f"{path}: {len(lines())} lines")
