"""Anthropic Messages responses as the API returns them (shapes written from the anthropic SDK's
types and the Citations documentation) replayed against a small paged registry.

Every expected value is worked out by hand from the texts below: offsets are positions in
FULL_V2, pages are where each paragraph was put.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from factories import sha, write_jsonl

from evals.contract.models import Question
from evals.data.registry import Registry
from evals.run.backends.anthropic import anthropic_to_answer
from evals.run.backends.prices import PriceTable
from evals.run.runner import start_run
from evals.score.checks import check_answer
from evals.score.scoring import score_run

TITLE = "Положение об обучении персонала"
P0 = "1.1. Положение обязательно для всех работников."
P1 = "3.1. Обучение проводится не реже одного раза в 12 месяцев."
P2 = "3.2. Внеплановое обучение проводится при вводе нового оборудования."
P3 = "3.3. Порог сдачи теста составляет 80 %."
P4 = "3.4. Результаты теста хранятся 3 года."
PARAS = [P0, P1, P2, P3, P4]
PAGES = [1, 3, 3, 4, 5]
FULL_V2 = "\n\n".join(PARAS)
FULL_V1 = FULL_V2.replace("12 месяцев", "24 месяца")
AT = datetime(2025, 6, 1, tzinfo=timezone.utc)


def start_of(i: int) -> int:
    return sum(len(p) + 2 for p in PARAS[:i])


def chunk_id(version: str, i: int) -> str:
    return f"{version}-c{i}"


def build(root: Path) -> Path:
    """One document, two editions (v1 until 2025-01-01, v2 from then), five paged chunks each."""
    chunks = []
    for version, full in (("reg-v1", FULL_V1), ("reg-v2", FULL_V2)):
        paras = full.split("\n\n")
        offset = 0
        for i, (text, page) in enumerate(zip(paras, PAGES, strict=True)):
            chunks.append({"chunk_id": chunk_id(version, i), "version_id": version, "document_id": "reg",
                           "text": text, "heading_path": [TITLE], "page_start": page, "page_end": page,
                           "char_start": offset, "char_end": offset + len(text)})
            offset += len(text) + 2
    write_jsonl(root / "registry" / "documents.jsonl", [
        {"document_id": "reg", "title": TITLE, "acl": []},
        {"document_id": "other", "title": "Политика обработки персональных данных", "acl": []}])
    write_jsonl(root / "registry" / "versions.jsonl", [
        {"version_id": "reg-v1", "document_id": "reg", "revision": 1, "content_sha256": sha(FULL_V1),
         "effective_from": "2023-01-01", "effective_to": "2025-01-01"},
        {"version_id": "reg-v2", "document_id": "reg", "revision": 2, "content_sha256": sha(FULL_V2),
         "effective_from": "2025-01-01", "supersedes": "reg-v1"},
        {"version_id": "other-v1", "document_id": "other", "revision": 1, "content_sha256": sha("x"),
         "effective_from": "2023-01-01"}])
    write_jsonl(root / "registry" / "chunks.jsonl", chunks)
    (root / "registry" / "texts").mkdir(parents=True, exist_ok=True)
    (root / "registry" / "texts" / "reg-v1.txt").write_text(FULL_V1, encoding="utf-8")
    (root / "registry" / "texts" / "reg-v2.txt").write_text(FULL_V2, encoding="utf-8")
    write_jsonl(root / "questions.jsonl", [
        {"question_id": f"q{i}", "question": f"Вопрос номер {i}?", "asked_at": "2025-06-01"} for i in range(1, 6)])
    return root


def message(*blocks, stop_reason="end_turn", usage=None, model="claude-sonnet-4-5-20250929", **extra):
    """A Messages API response as returned (id, type, role, model, content, stop_reason, usage)."""
    return {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant", "model": model,
            "content": list(blocks), "stop_reason": stop_reason, "stop_sequence": None,
            "usage": usage or {"input_tokens": 1200, "output_tokens": 80, "cache_creation_input_tokens": 0,
                               "cache_read_input_tokens": 0}, **extra}


def text(value, *citations):
    block = {"type": "text", "text": value}
    if citations:
        block["citations"] = list(citations)
    return block


def char_cite(i: int, end_extra: str = "\n\n", index: int = 0, title=TITLE):
    """The API's char span of paragraph i: it runs on over the whitespace after the sentence."""
    return {"type": "char_location", "cited_text": PARAS[i] + end_extra, "document_index": index,
            "document_title": title, "start_char_index": start_of(i),
            "end_char_index": start_of(i) + len(PARAS[i]) + len(end_extra)}


DOCS = [{"document_id": "reg", "version_id": "reg-v2"}]


def convert(line, registry, at=AT, **kw):
    return anthropic_to_answer({"question_id": "q1", "documents": DOCS, **line}, registry, at, **kw)


def findings_of(answer, registry, at=AT):
    question = Question(question_id=answer.question_id, question="?", asked_at=at)
    return check_answer(question, answer, registry, at).findings


def test_trailing_whitespace_span_resolves_to_a_char_anchor(tmp_path):
    registry = Registry.load(build(tmp_path))
    answer = convert(message(text("Обучение проводится не реже раза в 12 месяцев. ", char_cite(1))), registry)
    [ev] = answer.evidence
    # hand-worked: P0 is 47 characters, so P1 starts at 47 + 2 = 49 and, 58 long, ends at 107;
    # the API's span (49, 109) includes the "\n\n" after it, which runs past the chunk
    assert start_of(1) == 49 and len(P1) == 58
    assert (ev.char_start, ev.char_end, ev.text) == (49, 107, P1)
    assert registry.resolve(ev).chunk_id == "reg-v2-c1"
    assert findings_of(answer, registry) == []


def test_page_range_end_is_exclusive(tmp_path):
    registry = Registry.load(build(tmp_path))
    page = {"type": "page_location", "document_index": 0, "document_title": TITLE, "start_page_number": 3,
            "end_page_number": 5}
    answer = convert(message(
        text("Порог — 80 %. ", {**page, "cited_text": P3 + "\r\n"}),
        text("Хранят 3 года. ", {**page, "cited_text": P4}),
        # a PDF span over two pages: CR LF line break and U+0002 for a hyphenated word
        text("Внепланово — при новом оборудовании, порог 80 %.",
             {**page, "cited_text": P2.replace("оборудования", "обору\x02дования") + "\r\n" + P3}),
    ), registry)
    by_id = {e.evidence_id: e for e in answer.evidence}
    # pages 3–4: P3 is on page 4; P4 (page 5) is outside the range; P2 + P3 cover pages 3 and 4
    assert (by_id["E1"].chunk_id, by_id["E1"].page) == ("reg-v2-c3", 4)
    assert by_id["E2"].chunk_id is None and "pages 3–4" in by_id["E2"].unresolved_reason
    assert [(by_id[i].chunk_id, by_id[i].page, by_id[i].text) for i in ("E3", "E4")] == [
        ("reg-v2-c2", 3, P2), ("reg-v2-c3", 4, P3)]
    assert [c.evidence_ids for c in answer.claims] == [["E1"], ["E2"], ["E3", "E4"]]
    codes = {(f.claim_id, f.code) for f in findings_of(answer, registry)}
    assert codes == {("c2", "UNRESOLVED_CHUNK"), ("c2", "QUOTE_NOT_FOUND")}


def test_two_block_content_range_is_valid(tmp_path):
    registry = Registry.load(build(tmp_path))
    docs = [{"document_id": "reg", "chunk_ids": [chunk_id("reg-v2", i) for i in (1, 2, 3)]}]
    cite = {"type": "content_block_location", "cited_text": P1 + P2, "document_index": 0, "document_title": TITLE,
            "start_block_index": 0, "end_block_index": 2}
    answer = anthropic_to_answer({"question_id": "q1", "documents": docs, **message(
        text("Обучение ежегодное, внеплановое — при новом оборудовании.", cite))}, registry, AT)
    assert [(e.chunk_id, e.text) for e in answer.evidence] == [("reg-v2-c1", P1), ("reg-v2-c2", P2)]
    check = check_answer(Question(question_id="q1", question="?"), answer, registry, AT)
    assert [m.valid for m in check.markers] == [True, True]
    assert check.findings == []


def test_chunk_sent_as_its_own_document(tmp_path):
    """Anthropic's RAG pattern: each chunk is one document; offsets count from the chunk's start."""
    registry = Registry.load(build(tmp_path))
    docs = [{"chunk_id": "reg-v2-c3"}]
    cite = {"type": "char_location", "cited_text": P3 + "\n", "document_index": 0, "document_title": TITLE,
            "start_char_index": 0, "end_char_index": len(P3) + 1}
    answer = anthropic_to_answer({"question_id": "q1", "documents": docs, **message(text("Порог — 80 %.", cite))},
                                 registry, AT)
    [ev] = answer.evidence
    # the chunk starts at 49 + 58 + 2 + 67 + 2 = 178 in the edition and is 39 characters long
    assert (ev.chunk_id, ev.version_id, ev.char_start, ev.char_end) == ("reg-v2-c3", "reg-v2", 178, 217)
    assert findings_of(answer, registry) == []


def test_document_without_version_is_the_edition_in_force(tmp_path):
    registry = Registry.load(build(tmp_path))
    line = {"question_id": "q1", "documents": [{"document_id": "reg"}],
            **message(text("Раз в 12 месяцев.", char_cite(1)))}
    assert anthropic_to_answer(line, registry, AT).evidence[0].version_id == "reg-v2"
    old = anthropic_to_answer(line, registry, datetime(2024, 6, 1, tzinfo=timezone.utc))
    assert old.evidence[0].version_id == "reg-v1"


def test_search_result_maps_through_search_results(tmp_path):
    registry = Registry.load(build(tmp_path))
    cite = {"type": "search_result_location", "cited_text": P4, "search_result_index": 0, "source": "kb://reg/3.4",
            "title": TITLE, "start_block_index": 0, "end_block_index": 1}
    answer = anthropic_to_answer({"question_id": "q1", "documents": [],
                                  "search_results": [{"document_id": "reg", "chunk_ids": ["reg-v2-c4"]}],
                                  **message(text("Результаты хранят 3 года.", cite))}, registry, AT)
    assert [(e.chunk_id, e.citation_type) for e in answer.evidence] == [("reg-v2-c4", "search_result_location")]
    assert findings_of(answer, registry) == []


def test_title_mismatch_is_reported_not_blamed_on_the_edition(tmp_path):
    registry = Registry.load(build(tmp_path))
    answer = convert(message(text("Раз в 12 месяцев.", char_cite(1, title="Политика обработки персональных данных"))),
                     registry)
    [finding] = [f for f in findings_of(answer, registry) if f.code == "UNRESOLVED_CHUNK"]
    assert "document_title 'Политика обработки персональных данных'" in finding.detail
    assert "shifted" in finding.detail
    assert not any(f.code.startswith("VERSION_") for f in findings_of(answer, registry))
    # a neighbouring document's title is a mismatch too; the bot's shortened or extended title is not
    assert convert(message(text("Да.", char_cite(1, title="Положение об оплате труда"))), registry) \
        .evidence[0].unresolved_reason
    for title in ("Положение об обучении", TITLE + " (ред. 2025)"):
        assert findings_of(convert(message(text("Раз в 12 месяцев.", char_cite(1, title=title))), registry),
                           registry) == []


def test_web_search_citation_replays_every_line(tmp_path):
    ds = build(tmp_path / "ds")
    web = {"type": "web_search_result_location", "cited_text": "Training is held yearly.", "url":
           "https://example.org/training", "title": "Training", "encrypted_index": "EqQBCioIAhgBIiQ0"}
    lines = [
        {"question_id": "q1", "documents": DOCS, **message(text("Раз в 12 месяцев. ", char_cite(1)))},
        {"question_id": "q2", "documents": DOCS, **message(text("Раз в 12 месяцев. ", char_cite(1), web))},
        {"question_id": "q3", "documents": DOCS, **message(text("Порог 80 %.", char_cite(3, end_extra="")))},
    ]
    write_jsonl(tmp_path / "a.jsonl", lines)
    run = start_run(ds, f"replay:{tmp_path / 'a.jsonl'}", out=tmp_path / "runs", run_id="r").run_dir
    score_run(run, judge="none")
    answers = {a["question_id"]: a for a in map(json.loads, (run / "answers.jsonl").read_text().splitlines())}
    assert [answers[q]["status"] for q in ("q1", "q2", "q3")] == ["answered"] * 3
    findings = [json.loads(x) for x in (run / "findings.jsonl").read_text().splitlines()]
    unresolved = [f for f in findings if f["code"] == "UNRESOLVED_CHUNK"]
    assert [(f["question_id"], f["evidence_id"]) for f in unresolved] == [("q2", "E2")]
    assert "web_search_result_location" in unresolved[0]["detail"]


def test_lead_in_block_joins_its_cited_sentence(tmp_path):
    registry = Registry.load(build(tmp_path))
    answer = convert(message(
        text("Согласно Положению об обучении персонала, "),
        text("обучение проводится не реже одного раза в 12 месяцев", char_cite(1)),
        text("."),
        text("\n- "),
        text("Порог сдачи теста составляет 80 %.", char_cite(3, end_extra="")),
    ), registry)
    assert [(c.claim_id, c.text, c.evidence_ids) for c in answer.claims] == [
        ("c1", "Согласно Положению об обучении персонала, обучение проводится не реже одного раза в 12 месяцев.",
         ["E1"]),
        ("c2", "Порог сдачи теста составляет 80 %.", ["E2"]),
    ]
    # 42 characters of lead-in + 52 of the cited block + "." = 95; the list markup is no claim
    assert answer.claims[0].span == (0, 95) and answer.answer_text[95:98] == "\n- "
    assert not [f for f in findings_of(answer, registry) if f.code == "CLAIM_UNCITED"]


def test_lead_in_counts_once_in_completeness(tmp_path):
    ds = build(tmp_path / "ds")
    write_jsonl(tmp_path / "a.jsonl", [{"question_id": "q1", "documents": DOCS, **message(
        text("Согласно Положению об обучении персонала, "),
        text("обучение проводится не реже одного раза в 12 месяцев. ", char_cite(1)))}])
    run = start_run(ds, f"replay:{tmp_path / 'a.jsonl'}", out=tmp_path / "runs", run_id="r").run_dir
    scores = score_run(run, judge="offline").scores
    # one claim, cited and supported: 1/1 (the lead-in alone used to be a second, uncited claim: 1/2)
    assert scores["metrics"]["citation_completeness"]["value"] == 1.0
    assert scores["metrics"]["citation_completeness"]["n"] == 1


def test_refusals_are_abstentions(tmp_path):
    registry = Registry.load(build(tmp_path))
    refused = convert(message(text("Я не могу помочь с этим запросом."), stop_reason="refusal"), registry)
    assert (refused.status, refused.abstain_reason, refused.claims) == ("abstained", "stop_reason: refusal", [])
    for declining in ("К сожалению, в предоставленных документах нет информации об этом. Обратитесь в отдел кадров.",
                      "I cannot answer this from the provided documents."):
        answer = convert(message(text(declining)), registry)
        assert (answer.status, answer.abstain_reason) == ("abstained", "the text only declines"), declining
    # an uncited statement is not a refusal, and a cited one never is
    assert convert(message(text("Обучение проводится раз в год.")), registry).status == "answered"
    cited = convert(message(text("Не могу сказать точнее: раз в 12 месяцев.", char_cite(1))), registry)
    assert cited.status == "answered"


def test_refusal_patterns_are_configurable(tmp_path):
    from evals.run.backends.anthropic import compile_patterns

    registry = Registry.load(build(tmp_path))
    line = message(text("Вопрос вне моей компетенции."))
    assert convert(line, registry).status == "answered"
    assert convert(line, registry, refusal_patterns=compile_patterns([r"вне моей компетенции"])).status == "abstained"


def test_max_tokens_stays_answered_and_is_flagged(tmp_path):
    registry = Registry.load(build(tmp_path))
    answer = convert(message(text("Обучение проводится не реже", char_cite(1)), stop_reason="max_tokens"), registry)
    assert answer.status == "answered"
    assert answer.raw["stop_reason"] == "max_tokens" and answer.raw["id"] == "msg_01XFDUDYJgAACzvnptvVoYEL"
    assert answer.raw["usage"]["input_tokens"] == 1200


def test_max_tokens_gives_answer_truncated(tmp_path):
    ds = build(tmp_path / "ds")
    write_jsonl(tmp_path / "a.jsonl", [{"question_id": "q1", "documents": DOCS, **message(
        text("Обучение проводится не реже", char_cite(1)), stop_reason="max_tokens")}])
    run = start_run(ds, f"replay:{tmp_path / 'a.jsonl'}", out=tmp_path / "runs", run_id="r").run_dir
    score_run(run, judge="none")
    findings = [json.loads(x) for x in (run / "findings.jsonl").read_text().splitlines()]
    assert [f["code"] for f in findings if f["question_id"] == "q1"] == ["ANSWER_TRUNCATED"]


def test_cost_is_tokens_times_the_price_table(tmp_path):
    registry = Registry.load(build(tmp_path))
    usage = {"input_tokens": 1000, "output_tokens": 200, "cache_creation_input_tokens": 2000,
             "cache_read_input_tokens": 10000}
    answer = convert(message(text("Раз в 12 месяцев.", char_cite(1)), usage=usage), registry)
    # claude-sonnet-4-5: $3 in, $15 out, $3.75 cache write, $0.30 cache read per million tokens
    # (1000·3 + 200·15 + 2000·3.75 + 10000·0.30) / 1e6 = (3000 + 3000 + 7500 + 3000) / 1e6
    assert answer.usage.cost_usd == 0.0165
    assert (answer.usage.cache_creation_input_tokens, answer.usage.cache_read_input_tokens) == (2000, 10000)
    override = tmp_path / "prices.json"
    override.write_text(json.dumps({"claude-sonnet-4-5": {"input": 1, "output": 2, "cache_write": 3,
                                                          "cache_read": 4}}))
    cheap = convert(message(text("Раз в 12 месяцев.", char_cite(1)), usage=usage), registry,
                    prices=PriceTable.load(override))
    assert cheap.usage.cost_usd == (1000 * 1 + 200 * 2 + 2000 * 3 + 10000 * 4) / 1e6
    # a dated id takes the longest key it starts with: claude-opus-4-5 ($5 in), not claude-opus-4 ($15 in)
    assert PriceTable.load().cost("claude-opus-4-5-20251101", 1_000_000, 0) == 5.0
    assert PriceTable.load().cost("claude-opus-4-20250514", 1_000_000, 0) == 15.0
    # a Bedrock or Vertex id names the same model: sonnet 4.5 at $15 per million output tokens
    assert PriceTable.load().cost("us.anthropic.claude-sonnet-4-5-20250929-v1:0", 0, 1_000_000) == 15.0
    assert PriceTable.load().cost("claude-sonnet-4-5@20250929", 0, 1_000_000) == 15.0
    unknown = convert(message(text("Раз в 12 месяцев.", char_cite(1)), usage=usage, model="my-model"), registry)
    assert unknown.usage.cost_usd is None and unknown.usage.input_tokens == 1000


def stream_of(final: dict) -> list[dict]:
    """The raw events the API streams for `final`: citations_delta before text_delta, text in pieces."""
    start = {**final, "content": [], "stop_reason": None,
             "usage": {**final["usage"], "output_tokens": 1}}
    events = [{"type": "message_start", "message": start}, {"type": "ping"}]
    for i, block in enumerate(final["content"]):
        events.append({"type": "content_block_start", "index": i,
                       "content_block": {"type": "text", "text": "", **({"citations": []} if "citations" in block
                                                                         else {})}})
        for citation in block.get("citations", []):
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "citations_delta", "citation": citation}})
        half = len(block["text"]) // 2
        for piece in (block["text"][:half], block["text"][half:]):
            events.append({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": piece}})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": final["stop_reason"], "stop_sequence": None},
                   "usage": {"output_tokens": final["usage"]["output_tokens"]}})
    events.append({"type": "message_stop"})
    return events


def test_stream_replays_to_the_same_answer_as_its_final_message(tmp_path):
    registry = Registry.load(build(tmp_path))
    final = message(text("Согласно Положению, "), text("обучение — раз в 12 месяцев", char_cite(1)), text(". "),
                    text("Порог — 80 %.", char_cite(3, end_extra="")))
    from_final = anthropic_to_answer({"question_id": "q1", "documents": DOCS, **final}, registry, AT)
    from_stream = anthropic_to_answer({"question_id": "q1", "documents": DOCS, "events": stream_of(final)},
                                      registry, AT)
    assert from_stream == from_final
    assert from_final.usage.output_tokens == 80 and len(from_final.claims) == 2


def test_data_import_anthropic_reports_every_line(tmp_path):
    from typer.testing import CliRunner

    from cli import app

    ds = build(tmp_path / "ds")
    logs = tmp_path / "logs"
    final = message(text("Раз в 12 месяцев. ", char_cite(1)))
    deltas = [{"index": 0, "delta": {"type": "citations_delta", "citation": char_cite(3, end_extra="")}},
              {"index": 0, "delta": {"type": "text_delta", "text": "Порог — "}},
              {"index": 0, "delta": {"type": "text_delta", "text": "80 %."}}]
    write_jsonl(logs / "2025-06-01.jsonl", [
        {"question_id": "q1", "documents": DOCS, **final},                                  # by id, as returned
        {"question": "  вопрос НОМЕР 2?", "documents": DOCS, "events": stream_of(final)},   # by text, a stream
        {"question_id": "q3", "documents": DOCS, "events": deltas},                         # each delta's index
    ])
    write_jsonl(logs / "2025-06-02.jsonl", [
        {"question_id": "q99", "documents": DOCS, **final},                                 # no such question
        {"question_id": "q5", "documents": DOCS, "model": "claude-haiku-4-5",               # flat citations
         "text": "Обучение проводится не реже раза в 12 месяцев. Порог сдачи теста — 80 %.",
         "citations": [char_cite(3, end_extra=""), char_cite(1)],
         "usage": {"input_tokens": 1000, "output_tokens": 100}},
    ])
    out = tmp_path / "answers.jsonl"
    result = CliRunner().invoke(app, ["data", "import", "anthropic", str(logs), "--dataset", str(ds),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"{logs / '2025-06-02.jsonl'}:1: not imported: question_id 'q99' is not in the dataset" in result.output
    assert f"{logs / '2025-06-02.jsonl'}:2: q5: citations attached by matcher" in result.output
    assert ("4 answer(s) (3 matched by id, 1 by question text; 3 lossless, 1 matcher-attached); "
            "1 line(s) not imported") in result.output
    run = start_run(ds, f"replay:{out}", out=tmp_path / "runs", run_id="r").run_dir
    answers = {a["question_id"]: a for a in map(json.loads, (run / "answers.jsonl").read_text().splitlines())}
    assert answers["q4"]["status"] == "error"  # no log line for it
    assert answers["q2"]["claims"] == answers["q1"]["claims"]
    assert answers["q3"]["answer_text"] == "Порог — 80 %." and answers["q3"]["evidence"][0]["char_start"] == 178
    flat = answers["q5"]
    assert flat["raw"]["attached_by"] == "matcher" and "attached_by" not in answers["q1"]["raw"]
    # the P3 citation (listed first) belongs to the second sentence, the P1 citation to the first
    assert [(c["text"], c["quote"]) for c in flat["claims"]] == [
        ("Обучение проводится не реже раза в 12 месяцев.", P1), ("Порог сдачи теста — 80 %.", P3)]
    assert flat["usage"]["cost_usd"] == (1000 * 1.0 + 100 * 5.0) / 1e6


def test_import_rejects_a_malformed_line_and_writes_nothing(tmp_path):
    from typer.testing import CliRunner

    from cli import app

    ds = build(tmp_path / "ds")
    write_jsonl(tmp_path / "logs" / "a.jsonl", [
        {"question_id": "q1", "documents": DOCS, **message(text("Да."))},
        {"question_id": "q2", "documents": "reg", **message(text("Да."))}])
    out = tmp_path / "answers.jsonl"
    result = CliRunner().invoke(app, ["data", "import", "anthropic", str(tmp_path / "logs"), "--dataset", str(ds),
                                      "--out", str(out)])
    assert result.exit_code == 2
    assert f"{tmp_path / 'logs' / 'a.jsonl'}:2: anthropic log line: documents must be a list" in result.output
    assert not out.exists()


def test_raw_response_without_question_id_names_the_fix(tmp_path):
    from typer.testing import CliRunner

    from cli import app

    ds = build(tmp_path / "ds")
    write_jsonl(tmp_path / "a.jsonl", [message(text("Да."))])
    result = CliRunner().invoke(app, ["run", str(ds), "--backend", f"replay:{tmp_path / 'a.jsonl'}",
                                      "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "a.jsonl:1: question_id: required field is missing (put citeval's question_id and documents" \
        in result.output


DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo"


def hand_trimmed(citation: dict) -> dict:
    """What a person would send instead: the cited text without the whitespace after it."""
    trimmed = citation["cited_text"].rstrip()
    out = {**citation, "cited_text": trimmed}
    if citation["type"] == "char_location":
        out["end_char_index"] = citation["start_char_index"] + len(trimmed)
    return out


def trim_line(line: dict) -> dict:
    line = json.loads(json.dumps(line))
    for event in line.get("events", []):
        if event.get("delta", {}).get("type") == "citations_delta":
            event["delta"]["citation"] = hand_trimmed(event["delta"]["citation"])
    for block in line.get("content", []):
        block["citations"] = [hand_trimmed(c) for c in block.get("citations", [])] or block.get("citations")
        if block["citations"] is None:
            del block["citations"]
    return line


def test_demo_real_shape_sample_scores_as_its_hand_trimmed_twin(tmp_path):
    sample = DEMO / "answers" / "anthropic_real.jsonl"
    real = [json.loads(x) for x in sample.read_text(encoding="utf-8").splitlines()]
    assert any(c["cited_text"] != c["cited_text"].rstrip() for line in real for b in line.get("content", [])
               for c in b.get("citations", []))  # the sample does carry the API's trailing whitespace
    write_jsonl(tmp_path / "trimmed.jsonl", [trim_line(line) for line in real])
    scores = {}
    for name, path in (("real", sample), ("trimmed", tmp_path / "trimmed.jsonl")):
        run = start_run(DEMO, f"replay:{path}", out=tmp_path / "runs", run_id=name).run_dir
        scores[name] = score_run(run, judge="none").scores
    validity = scores["real"]["metrics"]["citation_validity"]
    assert validity == scores["trimmed"]["metrics"]["citation_validity"]
    # hand-worked: five answers cite; four hold every marker, q-p1-010 holds 1 of 2 (the web search one
    # is UNRESOLVED_CHUNK): (4 × 1 + 0.5) / 5 = 0.9; two refusals are abstentions
    assert (validity["value"], validity["n"]) == (0.9, 5)
    findings = dict(scores["real"]["findings"])
    n_questions = len((DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines())
    assert findings.pop("BACKEND_ERROR") == n_questions - 7  # the demo questions the sample does not answer
    assert findings == {"UNRESOLVED_CHUNK": 1}
    assert scores["real"]["metrics"]["quote_exactness"]["value"] == 1.0


def test_recommended_log_lines_from_the_real_sdk(tmp_path):
    """The README's log lines, written by the anthropic SDK reading a local server that speaks the
    Messages API's server-sent events: the MessageStream's final message, and the raw events of
    create(stream=True). Both replay as the final message itself does."""
    import anthropic
    from servers.http import Response, start_http_server

    from evals.run.backends.anthropic_logs import import_anthropic_logs

    final = message(text("Согласно Положению, "), text("обучение — раз в 12 месяцев", char_cite(1)), text(". "),
                    text("Порог — 80 %.", char_cite(3, end_extra="")))
    sse = "".join(f"event: {e['type']}\ndata: {json.dumps(e, ensure_ascii=False)}\n\n" for e in stream_of(final))
    server = start_http_server(lambda request: Response(200, sse, headers={"content-type": "text/event-stream"}))
    ask = {"model": final["model"], "max_tokens": 256, "messages": [{"role": "user", "content": "Как часто?"}]}
    try:
        client = anthropic.Anthropic(api_key="sk-test", base_url=server.base_url, max_retries=0)
        with client.messages.stream(**ask) as stream:
            for _ in stream.text_stream:  # the bot shows the text as it arrives
                pass
            response = stream.get_final_message().to_dict()
        events = [event.to_dict() for event in client.messages.create(**ask, stream=True)]
    finally:
        server.stop()
    ds = build(tmp_path / "ds")
    write_jsonl(tmp_path / "logs" / "bot.jsonl", [
        {"question_id": "q1", "documents": DOCS, **response},
        {"question_id": "q2", "documents": DOCS, "events": events}])
    import_anthropic_logs([tmp_path / "logs"], ds, tmp_path / "answers.jsonl")
    lines = [json.loads(x) for x in (tmp_path / "answers.jsonl").read_text().splitlines()]
    registry = Registry.load(ds)
    expected = anthropic_to_answer({"question_id": "q1", "documents": DOCS, **final}, registry, AT)
    assert anthropic_to_answer(lines[0], registry, AT) == expected
    assert anthropic_to_answer(lines[1], registry, AT) == expected.model_copy(update={"question_id": "q2"})
    assert [c.evidence_ids for c in expected.claims] == [["E1"], ["E2"]]


def test_span_over_two_chunks_is_cut_at_the_border(tmp_path):
    registry = Registry.load(build(tmp_path))
    cite = {"type": "char_location", "cited_text": P1 + "\n\n" + P2 + "\n\n", "document_index": 0,
            "document_title": TITLE, "start_char_index": 49, "end_char_index": 49 + 58 + 2 + 67 + 2}
    answer = convert(message(text("Обучение ежегодное и при новом оборудовании.", cite)), registry)
    # P1 is 49–107, P2 is 109–176 (the blank line between them belongs to no chunk)
    assert [(e.char_start, e.char_end, e.text) for e in answer.evidence] == [(49, 107, P1), (109, 176, P2)]
    assert answer.claims[0].quotes == [P1, P2]
    assert findings_of(answer, registry) == []


def test_citations_without_a_mapping_or_of_an_unknown_type_never_reject_the_line(tmp_path):
    registry = Registry.load(build(tmp_path))
    search = {"type": "search_result_location", "cited_text": P4, "search_result_index": 0, "source": "kb",
              "title": None, "start_block_index": 0, "end_block_index": 1}
    future = {"type": "map_location", "cited_text": "Главный корпус", "place_id": "x1"}  # newer than this SDK
    answer = convert(message(text("Хранят 3 года. ", search), text("Корпус рядом.", future)), registry)
    reasons = [e.unresolved_reason for e in answer.evidence]
    assert reasons[0] == "search_results[0] is missing: the line maps 0 entries"
    assert "map_location" in reasons[1]
    assert {f.code for f in findings_of(answer, registry)} >= {"UNRESOLVED_CHUNK"}


def test_stream_cut_by_an_error_event_is_a_backend_error_not_an_abstention(tmp_path):
    registry = Registry.load(build(tmp_path))
    events = stream_of(message(text("Раз в 12 месяцев.", char_cite(1))))[:5]
    events.append({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    answer = anthropic_to_answer({"question_id": "q1", "documents": DOCS, "events": events}, registry, AT)
    assert (answer.status, answer.error.type, answer.error.message) == ("error", "overloaded_error", "Overloaded")


def web_search_response(stop_reason="end_turn"):
    """A response with the web search tool as the API returns it (server_tool_use and
    web_search_tool_result blocks before the text, usage with server_tool_use, cache_creation and
    service_tier), in the shape of a response recorded before web_fetch existed."""
    web = {"type": "web_search_result_location", "cited_text": "Training is held yearly. ",
           "url": "https://example.org/training", "title": "Training", "encrypted_index": "EqQBCioIAhgBIiQ0"}
    return message(
        {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {"query": "обучение"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
            {"type": "web_search_result", "url": "https://example.org/training", "title": "Training",
             "encrypted_content": "EqgfCioIARgBIiQ3", "page_age": "April 30, 2025"}]},
        {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "lookup", "server_name": "kb", "input": {}},
        text("Раз в 12 месяцев. ", char_cite(1), web),
        stop_reason=stop_reason,
        usage={"input_tokens": 1000, "output_tokens": 100, "cache_creation_input_tokens": 0,
               "cache_read_input_tokens": 0, "server_tool_use": {"web_search_requests": 1},
               "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 0},
               "service_tier": "standard"})


def test_fields_newer_or_older_than_the_sdk_never_reject_a_response(tmp_path):
    registry = Registry.load(build(tmp_path))
    final = web_search_response(stop_reason="model_context_window_exceeded")
    answer = convert(final, registry)
    # the text block is the only text: one claim, its document citation valid, the web one unresolved
    assert answer.status == "answered" and answer.answer_text == "Раз в 12 месяцев. "
    assert [c.evidence_ids for c in answer.claims] == [["E1", "E2"]]
    first = answer.evidence[0]
    assert (first.version_id, first.char_start, first.char_end) == ("reg-v2", 49, 107)  # P1 without "\n\n"
    # the context window cut the answer as max_tokens would (DESIGN 3): truncated, and the web
    # citation unresolved with its type named
    assert [(f.evidence_id, f.code) for f in findings_of(answer, registry)] == [
        (None, "ANSWER_TRUNCATED"), ("E2", "UNRESOLVED_CHUNK")]
    assert "web_search_result_location" in answer.evidence[1].unresolved_reason
    # raw is the response as given: every block in its place, usage and the newer stop_reason kept
    assert [b["type"] for b in answer.raw["content"]] == ["server_tool_use", "web_search_tool_result",
                                                          "mcp_tool_use", "text"]
    assert answer.raw["content"][3]["citations"][1]["encrypted_index"] == "EqQBCioIAhgBIiQ0"
    assert answer.raw["usage"]["server_tool_use"] == {"web_search_requests": 1}
    assert answer.raw["usage"]["service_tier"] == "standard"
    assert answer.raw["stop_reason"] == "model_context_window_exceeded"
    # sonnet 4.5 at $3 in / $15 out per million: (1000·3 + 100·15) / 1e6
    assert answer.usage.cost_usd == 0.0045


def test_pause_turn_and_refusal_from_a_stream(tmp_path):
    registry = Registry.load(build(tmp_path))
    paused = convert(web_search_response(stop_reason="pause_turn"), registry)
    assert paused.status == "answered" and paused.raw["stop_reason"] == "pause_turn"
    refused = message(text("Я не могу помочь с этим запросом."), stop_reason="refusal")
    events = stream_of(refused)
    answer = anthropic_to_answer({"question_id": "q1", "documents": DOCS, "events": events}, registry, AT)
    assert (answer.status, answer.abstain_reason, answer.claims) == ("abstained", "stop_reason: refusal", [])


def tool_stream_of(final: dict) -> list[dict]:
    """The events the API streams for a response with tool blocks: a tool block starts with empty
    input that arrives as input_json_delta; a tool result block arrives whole in its start event."""
    start = {**final, "content": [], "stop_reason": None, "usage": {**final["usage"], "output_tokens": 1}}
    events = [{"type": "message_start", "message": start}]
    for i, block in enumerate(final["content"]):
        if "input" in block:
            events.append({"type": "content_block_start", "index": i, "content_block": {**block, "input": {}}})
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}})
        elif block["type"] == "text":
            events.append({"type": "content_block_start", "index": i,
                           "content_block": {"type": "text", "text": "", "citations": []}})
            events += [{"type": "content_block_delta", "index": i, "delta": {"type": "citations_delta",
                                                                            "citation": c}} for c in block["citations"]]
            events.append({"type": "content_block_delta", "index": i,
                           "delta": {"type": "text_delta", "text": block["text"]}})
        else:
            events.append({"type": "content_block_start", "index": i, "content_block": block})
        events.append({"type": "content_block_stop", "index": i})
    events.append({"type": "message_delta", "delta": {"stop_reason": final["stop_reason"], "stop_sequence": None},
                   "usage": final["usage"]})
    events.append({"type": "message_stop"})
    return events


def test_stream_with_tool_blocks_of_any_type_replays_to_its_final_message(tmp_path):
    registry = Registry.load(build(tmp_path))
    final = web_search_response()
    from_final = convert(final, registry)
    from_stream = anthropic_to_answer({"question_id": "q1", "documents": DOCS, "events": tool_stream_of(final)},
                                      registry, AT)
    assert from_stream == from_final
    assert from_stream.raw["content"][2] == final["content"][2]  # the mcp_tool_use block as it was sent


def test_flat_citations_inside_the_bots_usage_dict_are_imported(tmp_path):
    from evals.run.backends.anthropic_logs import import_anthropic_logs

    ds = build(tmp_path / "ds")
    write_jsonl(tmp_path / "logs" / "bot.jsonl", [
        {"question": "Вопрос номер 1?", "documents": DOCS, "model": "claude-haiku-4-5",
         "answer": "Порог сдачи теста — 80 %. Обучение проводится раз в 12 месяцев.",
         "usage_out": {"input_tokens": 2000, "output_tokens": 40,
                       "citations": [char_cite(1), char_cite(3, end_extra="")]}}])
    out = tmp_path / "answers.jsonl"
    report = import_anthropic_logs([tmp_path / "logs"], ds, out)
    assert [(x.question_id, x.matched_by, x.shape) for x in report.written] == [("q1", "question text", "flat")]
    registry = Registry.load(ds)
    answer = anthropic_to_answer(json.loads(out.read_text()), registry, AT)
    assert [(c.text, c.quote) for c in answer.claims] == [
        ("Порог сдачи теста — 80 %.", P3), ("Обучение проводится раз в 12 месяцев.", P1)]
    # claude-haiku-4-5 at $1 in / $5 out per million: (2000·1 + 40·5) / 1e6
    assert answer.usage.cost_usd == 0.0022 and answer.raw["attached_by"] == "matcher"


def test_a_sentence_end_inside_an_uncited_block_closes_the_claim_before_it(tmp_path):
    registry = Registry.load(build(tmp_path))
    # the API's blocks: the text between two citations is one block that ends one sentence and
    # leads into the next ("п." is an abbreviation, not a sentence end)
    answer = convert(message(text("Обучение раз в 12 месяцев", char_cite(1)), text(". Согласно п. 3.3, "),
                             text("порог — 80 %", char_cite(3, end_extra="")), text(";\n- хранение 3 года.")),
                     registry)
    # "Обучение раз в 12 месяцев" is 0–25, ". " 25–27, "Согласно п. 3.3, " 27–44, "порог — 80 %" 44–56,
    # ";\n" 56–58, "- хранение 3 года." (18 characters) 58–76
    assert [(c.text, c.evidence_ids, c.span) for c in answer.claims] == [
        ("Обучение раз в 12 месяцев.", ["E1"], (0, 26)),
        ("Согласно п. 3.3, порог — 80 %;", ["E2"], (27, 57)),
        ("- хранение 3 года.", [], (58, 76)),
    ]


def test_search_result_without_a_mapping_resolves_by_its_registry_source(tmp_path):
    registry = Registry.load(build(tmp_path))

    def cite(source):
        return {"type": "search_result_location", "cited_text": P4, "search_result_index": 0, "source": source,
                "title": TITLE, "start_block_index": 0, "end_block_index": 1}

    # the bot put the chunk id, or the document id (the edition in force: reg-v2 on 2025-06-01), in `source`
    for source in ("reg-v2-c4", "reg"):
        answer = convert(message(text("Результаты хранят 3 года.", cite(source))), registry)
        assert [(e.chunk_id, e.version_id) for e in answer.evidence] == [("reg-v2-c4", "reg-v2")]
        assert findings_of(answer, registry) == []
    unknown = convert(message(text("Результаты хранят 3 года.", cite("https://kb.example/3.4"))), registry)
    assert unknown.evidence[0].unresolved_reason == "search_results[0] is missing: the line maps 0 entries"
