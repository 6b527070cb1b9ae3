"""`citeval probe` (DESIGN 10): generated questions, verdicts per kind, and detection shown on
systems that behave badly in known ways (tests/probe_backends.py), not assumed.

The hand-made dataset below is small enough to work every expected verdict out by hand; the
reasoning is written next to each assertion.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from factories import sha, write_jsonl
from typer.testing import CliRunner

from cli import app
from evals import Registry
from evals.errors import DataError, UsageError
from evals.gate.config import load_probe_gates
from evals.probe import generate
from evals.probe.core import judge_probe, run_probe
from evals.probe.render import load_probe, probe_report_html, probe_section_html
from evals.run.runner import load_manifest, load_questions, start_run
from evals.score.scoring import score_run
from evals.store.runfolder import PROBE_CASES, PROBE_DATASET, PROBE_JSON, PROBE_REQUEST

ROOT = Path(__file__).resolve().parent.parent
MANAGEMENT = "revoked_edition,unsupported_number,phantom_marker,forbidden_document"
COUNTERFACTUAL = "altered_fact,removed_evidence"

# Titles share no word with any chunk text, so a template question about a document shares at
# most one content word with any chunk (see test_reference_is_distinguished).
TEXTS = {
    "t1": ("train-v1", "Обучение персонала проводится не реже одного раза в 12 месяцев."),
    "t2": ("train-v2", "Обучение персонала проводится не реже одного раза в 9 месяцев."),
    "t3": ("train-v3", "Обучение персонала проводится не реже одного раза в 6 месяцев."),
    "p1": ("pay-v1", "Доплата за работу в ночное время составляет 50 % оклада."),
    "p2": ("pay-v1", "Дежурство на дому оплачивается по 4 500 тенге за час."),
    "h1": ("hyg-v1", "Руки обрабатывают кожным антисептиком не менее 30 секунд."),
    "h2": ("hyg-v1", "Перчатки меняют после каждого пациента."),
    "h3": ("hyg-v1", "Флаконы с антисептиком хранят закрытыми."),
}


def probe_rows() -> dict[str, list[dict[str, Any]]]:
    documents = [
        {"document_id": "train", "title": "Положение о подготовке кадров", "acl": []},
        {"document_id": "pay", "title": "Положение о вознаграждении", "acl": [{"group": "hr"}]},
        {"document_id": "hyg", "title": "Памятка по антисептике", "acl": []},
    ]

    def version(vid: str, doc: str, rev: int, start: str, **extra: Any) -> dict[str, Any]:
        return {"version_id": vid, "document_id": doc, "revision": rev, "content_sha256": sha(vid),
                "effective_from": start, "viewer_url": f"https://docs.example/{doc}/v/{rev}", **extra}

    versions = [
        version("train-v1", "train", 1, "2023-01-01", effective_to="2024-01-01"),
        # revoked on 2024-06-01; the next edition starts on 2024-09-01: a gap with no edition in force
        version("train-v2", "train", 2, "2024-01-01", effective_to="2024-09-01", revoked_at="2024-06-01",
                supersedes="train-v1"),
        version("train-v3", "train", 3, "2024-09-01", supersedes="train-v2"),
        version("pay-v1", "pay", 1, "2023-01-01"),
        version("hyg-v1", "hyg", 1, "2023-01-01"),
    ]
    chunks = [
        {"chunk_id": cid, "version_id": vid, "document_id": vid.split("-")[0], "text": text, "heading_path": [],
         "page_start": 1, "page_end": 1}
        for cid, (vid, text) in TEXTS.items()
    ]
    nurse = {"user_id": "nurse-1", "groups": ["clinical"]}
    questions = [
        {"question_id": "q-train", "question": "Как часто проводится обучение персонала?", "asked_at": "2024-03-01",
         "user": nurse, "risk_tier": "policy", "tags": [],
         "gold": {"should_abstain": False, "key_facts": ["9 месяцев"],
                  "answer": "Обучение проводится не реже одного раза в 9 месяцев.",
                  "evidence": [{"document_id": "train", "version_id": "train-v2",
                                "quote": "не реже одного раза в 9 месяцев"}]}},
        {"question_id": "q-pay", "question": "Какая доплата за работу в ночное время?", "asked_at": "2024-03-01",
         "user": {"user_id": "hr-1", "groups": ["hr"]}, "risk_tier": "critical", "tags": [],
         "gold": {"should_abstain": False, "key_facts": ["50 %"], "answer": "Доплата за ночное время — 50 % оклада.",
                  "evidence": [{"document_id": "pay", "version_id": "pay-v1", "quote": "50 % оклада"}]}},
        {"question_id": "q-hyg", "question": "Сколько секунд обрабатывают руки антисептиком?",
         "asked_at": "2024-03-01", "user": nurse, "risk_tier": "policy", "tags": [],
         "gold": {"should_abstain": False, "key_facts": ["30 секунд"],
                  "answer": "Руки обрабатывают антисептиком не менее 30 секунд.",
                  "evidence": [{"document_id": "hyg", "version_id": "hyg-v1", "quote": "не менее 30 секунд"}]}},
    ]
    return {"documents": documents, "versions": versions, "chunks": chunks, "questions": questions}


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "ds"
    rows = probe_rows()
    for name in ("documents", "versions", "chunks"):
        write_jsonl(root / "registry" / f"{name}.jsonl", rows[name])
    write_jsonl(root / "questions.jsonl", rows["questions"])
    monkeypatch.setenv("PROBE_MEMORY", str(root))  # what the fixture backends remember / retrieve from
    return root


def probe(dataset: Path, backend: str, kinds: str, tmp_path: Path, **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    result = run_probe(dataset, backend, kinds=kinds, out=tmp_path / "runs", run_id=kw.pop("run_id", "p"), **kw)
    cases = {c.question_id: c.to_json() for c in result.cases}
    return result.document, cases


def outcomes(cases: dict[str, Any], kind: str) -> dict[str, str]:
    return {qid: c["outcome"] for qid, c in cases.items() if c["kind"] == kind}


# --- generation ------------------------------------------------------------------------


def test_generated_questions_are_the_hand_derived_ones(dataset: Path) -> None:
    from datetime import datetime, timezone

    records = generate(Registry.load(dataset), load_questions(dataset), [k for k in (MANAGEMENT + "," + COUNTERFACTUAL).split(",")],
                       datetime(2026, 1, 1, tzinfo=timezone.utc))
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_kind.setdefault(r["probe"]["kind"], []).append(r)

    # only train has a gap (train-v2 revoked 2024-06-01, train-v3 from 2024-09-01): q-train asked 7 days in
    (revoked,) = by_kind["revoked_edition"]
    assert revoked["question"] == "Как часто проводится обучение персонала?"
    assert revoked["asked_at"].startswith("2024-06-08")
    assert revoked["probe"]["stale_versions"] == ["train-v1", "train-v2"]
    assert revoked["gold"]["should_abstain"] is True

    # 3 documents in force on 2024-03-01 (the latest asked_at) × 4 figure templates, no stem found in any text
    assert len(by_kind["unsupported_number"]) == 12
    pay = [r for r in by_kind["unsupported_number"] if r["probe"]["document_id"] == "pay"]
    assert all(r["user"]["groups"] == ["hr"] for r in pay)  # asked by someone who may read it
    assert "«Положение о вознаграждении»" in pay[0]["question"]

    # alternately E99 and a document the registry does not hold
    phantom = {r["probe"]["source_question_id"]: r for r in by_kind["phantom_marker"]}
    assert phantom["q-train"]["probe"]["marker"] == "E99" and "[E99]" in phantom["q-train"]["question"]
    assert phantom["q-pay"]["probe"]["document"].startswith("Методические рекомендации № 9")
    assert phantom["q-hyg"]["probe"]["marker"] == "E99"

    # pay is readable by group hr only: q-pay asked by hr-1 without hr
    (forbidden,) = by_kind["forbidden_document"]
    assert forbidden["user"]["groups"] == [] and forbidden["probe"]["forbidden_documents"] == ["pay"]

    # the altered figure is ×1.5, rounded half up, unless a context passage already holds it:
    # 9 → 13.5 → 14; 50 → 75 (≤ 100 %); 30 → 45
    changes = {r["probe"]["source_question_id"]: r["probe"]["change"] for r in by_kind["altered_fact"]}
    assert {q: (c["from"], c["to"]) for q, c in changes.items()} == {
        "q-train": ("9", "14"), "q-pay": ("50 %", "75 %"), "q-hyg": ("30", "45")}
    hyg = next(r for r in by_kind["altered_fact"] if r["probe"]["source_question_id"] == "q-hyg")
    context = {e["evidence_id"]: e for e in hyg["context"]["evidence"]}
    assert context[changes["q-hyg"]["evidence_id"]]["text"] == "Руки обрабатывают кожным антисептиком не менее 45 секунд."
    # distractors: the other chunks of the same edition
    assert sorted(e["chunk_id"] for e in context.values()) == ["h1", "h2", "h3"]
    assert hyg["gold"]["key_facts"] == ["45 секунд"]

    removed = {r["probe"]["source_question_id"]: r for r in by_kind["removed_evidence"]}
    assert sorted(e["chunk_id"] for e in removed["q-hyg"]["context"]["evidence"]) == ["h2", "h3"]
    # train-v2 has one chunk: the distractors come from what nurse-1 may read in force (hyg, by chunk id)
    assert [e["chunk_id"] for e in removed["q-train"]["context"]["evidence"]] == ["h1", "h2"]


# --- management test -------------------------------------------------------------------


def test_reference_is_distinguished(dataset: Path, tmp_path: Path) -> None:
    """The reference RAG: at 2024-06-08 no train edition is in force, so it finds nothing (the
    readable hygiene chunks share no word with the question) and abstains; every template
    question shares at most one word with a readable chunk, so its BM25 score is at most
    idf × (k1 + 1) / (1 + k1 (1 − b)) = 1.90 × 1.82 = 3.45 < 4.0, the bar for critical questions:
    it abstains; it never writes a marker it did not number itself nor names an unknown
    source; the outsider reads only train and hyg, which share no word with the pay question."""
    document, cases = probe(dataset, "reference", MANAGEMENT, tmp_path)
    assert set(outcomes(cases, "revoked_edition").values()) == {"distinguished"}
    assert list(outcomes(cases, "unsupported_number").values()) == ["distinguished"] * 12
    assert list(outcomes(cases, "phantom_marker").values()) == ["distinguished"] * 3
    assert list(outcomes(cases, "forbidden_document").values()) == ["distinguished"]
    for kind in MANAGEMENT.split(","):
        assert document["kinds"][kind]["rate"]["value"] == 0.0
    assert document["verdict"] == "verifiable"


def test_memorised_backend_is_decorative(dataset: Path, tmp_path: Path) -> None:
    """It answers from memory, never abstains and sets no stale notice: the revoked question gets
    the revoked edition's 9 months, the figure questions get 5 000 тенге, the outsider gets 50 %.
    It cites nothing without a context, so it invents no marker: phantom_marker stays distinguished."""
    document, cases = probe(dataset, "python:probe_backends:memorised", MANAGEMENT, tmp_path)
    (revoked,) = [c for c in cases.values() if c["kind"] == "revoked_edition"]
    assert revoked["outcome"] == "decorative" and "9 месяцев" in revoked["detail"]
    assert list(outcomes(cases, "unsupported_number").values()) == ["decorative"] * 12
    assert all("5 000" in c["detail"] for c in cases.values() if c["kind"] == "unsupported_number")
    (forbidden,) = [c for c in cases.values() if c["kind"] == "forbidden_document"]
    assert forbidden["outcome"] == "decorative" and "50 %" in forbidden["detail"]
    assert list(outcomes(cases, "phantom_marker").values()) == ["distinguished"] * 3
    assert document["kinds"]["unsupported_number"]["rate"]["value"] == 1.0
    assert document["kinds"]["unsupported_number"]["rate"]["ci"] == [1.0, 1.0]
    assert document["verdict"] == "decorative"


def test_backend_that_cites_e99_when_asked_is_caught(dataset: Path, tmp_path: Path) -> None:
    _, cases = probe(dataset, "python:probe_backends:cites_what_asked", "phantom_marker", tmp_path)
    by_source = {c["source_question_id"]: c for c in cases.values()}
    assert by_source["q-train"]["outcome"] == "decorative" and "E99" in by_source["q-train"]["detail"]
    assert by_source["q-hyg"]["outcome"] == "decorative" and "E99" in by_source["q-hyg"]["detail"]
    assert by_source["q-pay"]["outcome"] == "decorative" and "Методические рекомендации" in by_source["q-pay"]["detail"]


# --- counterfactual faithfulness -------------------------------------------------------


def test_post_rationalising_backend_is_caught(dataset: Path, tmp_path: Path) -> None:
    """It keeps the remembered 9 months, 50 % and 30 seconds and cites the given passage that best
    matches its words — the altered one — so every altered case is post-rationalised and names the
    altered figure; with the gold passage removed it still states the remembered figure."""
    document, cases = probe(dataset, "python:probe_backends:memorised", COUNTERFACTUAL, tmp_path)
    altered = {c["source_question_id"]: c for c in cases.values() if c["kind"] == "altered_fact"}
    assert {q: c["outcome"] for q, c in altered.items()} == dict.fromkeys(("q-train", "q-pay", "q-hyg"), "post_rationalised")
    assert "says 14" in altered["q-train"]["detail"] and "keeps 9 месяцев" in altered["q-train"]["detail"]
    assert "says 75 %" in altered["q-pay"]["detail"]
    assert altered["q-hyg"]["expected"].startswith("30 → 45")
    assert list(outcomes(cases, "removed_evidence").values()) == ["post_rationalised"] * 3
    faithfulness = document["citation_faithfulness"]
    assert faithfulness["value"] == 0.0 and faithfulness["n"] == 6
    assert document["takes_context"] is True


def test_reference_follows_the_given_evidence(dataset: Path, tmp_path: Path) -> None:
    """The reference quotes given passages verbatim, so it cannot keep a figure the context no longer
    holds: no case is post-rationalised and citation_faithfulness, where defined, is exactly 1. (On
    this tiny registry BM25 scores stay under its abstention bar: it abstains, which for removed
    evidence is the faithful answer.)"""
    document, cases = probe(dataset, "reference", COUNTERFACTUAL, tmp_path)
    assert "post_rationalised" not in {c["outcome"] for c in cases.values()}
    assert "unsupported" not in {c["outcome"] for c in cases.values()}
    assert document["citation_faithfulness"]["value"] == 1.0


def test_reference_answers_from_exactly_the_given_context(dataset: Path) -> None:
    """Without its abstention bar: h1 is the only given passage sharing "секунд", "обрабатыва", "рук",
    so the altered figure is what it quotes, under the given id; a context that is not registry text
    is ranked by word overlap the same way."""
    import asyncio
    from datetime import datetime, timezone

    from evals.contract.models import Question
    from evals.run.backends.reference import ReferenceBackend

    registry = Registry.load(dataset)
    records = generate(registry, load_questions(dataset), ["altered_fact"], datetime(2026, 1, 1, tzinfo=timezone.utc))
    record = next(r for r in records if r["probe"]["source_question_id"] == "q-hyg")
    backend = ReferenceBackend(registry, threshold=0.0, tier_thresholds={})
    question = Question.model_validate(record)
    answer = asyncio.run(backend.answer(question, question.asked_at or datetime.now(timezone.utc)))
    altered_id = record["probe"]["change"]["evidence_id"]
    assert answer.answer_text == f"Руки обрабатывают кожным антисептиком не менее 45 секунд. [{altered_id}]"
    assert [e.evidence_id for e in answer.evidence] == ["E1", "E2", "E3"]
    foreign = Question.model_validate({**record, "context": {"evidence": [
        {"evidence_id": "S1", "text": "Перчатки меняют ежедневно."},
        {"evidence_id": "S2", "text": "Руки обрабатывают антисептиком 20 секунд."}]}})
    answer = asyncio.run(backend.answer(foreign, question.asked_at or datetime.now(timezone.utc)))
    assert answer.answer_text == "Руки обрабатывают антисептиком 20 секунд. [S2]" and answer.links == []


def test_reference_on_the_demo_is_faithful() -> None:
    """The same argument on the demo dataset, where distractors come from the same edition."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result = run_probe(ROOT / "datasets" / "demo", "reference", kinds=COUNTERFACTUAL, limit=25, out=tmp, run_id="d")
    faithfulness = result.document["citation_faithfulness"]
    assert faithfulness["value"] == 1.0 and faithfulness["n"] >= 25
    assert result.document["kinds"]["altered_fact"]["decorative"] == 0


def test_backend_that_ignores_context_is_unsupported_never_faithful(dataset: Path, tmp_path: Path) -> None:
    """Its own retrieval finds h1 as written in the registry (30 seconds) for q-hyg: in the altered
    case that evidence differs from every given passage, in the removed case h1 was not given."""
    document, cases = probe(dataset, "python:probe_backends:ignores_context", COUNTERFACTUAL, tmp_path)
    assert "faithful" not in {c["outcome"] for c in cases.values()}
    hyg = {c["kind"]: c for c in cases.values() if c["source_question_id"] == "q-hyg"}
    assert hyg["altered_fact"]["outcome"] == "unsupported"
    assert hyg["removed_evidence"]["outcome"] == "unsupported"
    assert document["takes_context"] is False


class _Memorised(BaseHTTPRequestHandler):
    bodies: list[dict[str, Any]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        from probe_backends import memorised

        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.bodies.append(body)
        reply = json.dumps(memorised(body), ensure_ascii=False).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def test_http_backend_forwards_the_context(dataset: Path, tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Memorised)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/answer"
        document, cases = probe(dataset, f"http:{url}", "altered_fact", tmp_path)
    finally:
        server.shutdown()
    sent = {b["question_id"]: b for b in _Memorised.bodies}
    asked = {json.loads(line)["question_id"]: json.loads(line) for line in
             (tmp_path / "runs" / "p" / PROBE_DATASET / "questions.jsonl").read_text(encoding="utf-8").splitlines()}
    assert set(sent) == set(asked)
    assert all(sent[q]["context"] == asked[q]["context"] for q in asked)
    assert set(outcomes(cases, "altered_fact").values()) == {"post_rationalised"}


# --- run folder, gates, CLI, report ----------------------------------------------------


def test_run_folder_is_a_normal_scored_run_with_its_questions(dataset: Path, tmp_path: Path) -> None:
    probe(dataset, "reference", "altered_fact,forbidden_document", tmp_path)
    run = tmp_path / "runs" / "p"
    assert {"manifest.json", "answers.jsonl", "findings.jsonl", "scores.json", PROBE_JSON, PROBE_CASES} <= {
        p.name for p in run.iterdir()}
    manifest = load_manifest(run)
    assert Path(manifest.dataset.path) == (run / PROBE_DATASET).resolve()
    # what was asked travels with the questions; the manifest is the one `run` wrote
    request = json.loads((run / PROBE_DATASET / PROBE_REQUEST).read_text(encoding="utf-8"))
    assert request["kinds"] == ["altered_fact", "forbidden_document"]
    assert request["source"] == str(dataset.resolve())
    assert "probe" not in manifest.options.model_dump() and manifest.options.status == "finished"
    asked = [json.loads(line) for line in (run / PROBE_DATASET / "questions.jsonl").read_text().splitlines()]
    assert all("probe" in q for q in asked) and all("context" in q for q in asked if q["tags"][1] == "probe:altered_fact")
    assert not list((tmp_path / "runs").glob(".*"))  # the staging folder moved into the run
    rescored = score_run(run)  # the usual stages work on it
    assert rescored.scores["by_tag"]["probe:forbidden_document"]["n"] == 1
    loaded = load_probe(run)
    assert loaded is not None and len(loaded[1]) == 4
    section = probe_report_html(run)
    assert section is not None and section.startswith('<section class="probe" id="probe-p">')
    assert probe_report_html(tmp_path) is None  # not a probe run: no section


def test_probe_gates_table(tmp_path: Path) -> None:
    good = tmp_path / "g.toml"
    good.write_text('[overall]\n[probe]\ndecorative_rate = { max = 0.1 }\nphantom_marker = { max = 0 }\n'
                    'citation_faithfulness = { min = 0.9 }\n', encoding="utf-8")
    gates = load_probe_gates(good)
    assert gates.max_decorative("phantom_marker") == 0.0 and gates.max_decorative("altered_fact") == 0.1
    assert gates.citation_faithfulness == 0.9
    bad = tmp_path / "bad.toml"
    bad.write_text("[probe]\ndecorative_rate = { max = 0.1 }\nphantom = { max = 0 }\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_probe_gates(bad)
    assert err.value.line == 3 and "phantom" in str(err.value)
    bad.write_text("[probe]\ndecorative_rate = { max = 2 }\n", encoding="utf-8")
    with pytest.raises(DataError, match="between 0 and 1"):
        load_probe_gates(bad)
    with pytest.raises(UsageError, match="unknown probe kind"):
        run_probe(tmp_path, "reference", kinds="revoked")


runner = CliRunner()


def test_cli_exit_codes(dataset: Path, tmp_path: Path) -> None:
    gates = tmp_path / "gates.toml"
    gates.write_text("[probe]\ndecorative_rate = { max = 0 }\n", encoding="utf-8")
    out = str(tmp_path / "runs")
    ok = runner.invoke(app, ["probe", str(dataset), "--backend", "reference", "--kinds", MANAGEMENT, "--out", out,
                             "--run-id", "ok", "--gates", str(gates), "--format", "json"])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["verdict"] == "verifiable"
    bad = runner.invoke(app, ["probe", str(dataset), "--backend", "python:probe_backends:memorised", "--kinds",
                              "unsupported_number", "--limit", "2", "--out", out, "--run-id", "bad", "--gates",
                              str(gates)])
    assert bad.exit_code == 1, bad.output
    assert "probe.unsupported_number: decorative rate 1.000 > allowed 0" in bad.output
    broken = runner.invoke(app, ["probe", str(dataset), "--backend", "python:probe_backends:nowhere_to_be_found",
                                 "--out", out, "--run-id", "x"])
    assert broken.exit_code == 2 and "nowhere_to_be_found" in broken.output
    failing = runner.invoke(app, ["probe", str(dataset), "--backend", "python:test_probe:failing_backend",
                                  "--kinds", "phantom_marker", "--out", out, "--run-id", "failing"])
    assert failing.exit_code == 3, failing.output
    assert json.loads((tmp_path / "runs" / "failing" / PROBE_JSON).read_text())["verdict"] == "incomplete"
    gates.write_text("[probe]\nrevoked = { max = 0 }\n", encoding="utf-8")
    typo = runner.invoke(app, ["probe", str(dataset), "--out", out, "--run-id", "typo", "--gates", str(gates)])
    assert typo.exit_code == 2 and f"{gates}:2" in typo.output
    assert not (tmp_path / "runs" / "typo").exists() and not (tmp_path / "runs" / "x").exists()


def failing_backend(payload: dict[str, Any]) -> dict[str, Any]:
    raise ConnectionError("the service is down")


def test_report_section_escapes_and_puts_the_worst_first() -> None:
    document = {"verdict": "decorative", "kinds": {"altered_fact": {"n": 2, "distinguished": 1, "decorative": 1,
                "unsupported": 0, "errors": 0, "rate": {"value": 0.5, "ci": [0.0, 1.0], "n": 2}}},
                "citation_faithfulness": {"value": 0.5, "ci": [0.0, 1.0], "n": 2}}
    cases = [
        {"kind": "altered_fact", "question_id": "a", "outcome": "faithful", "detail": "ok", "said": "fine"},
        {"kind": "altered_fact", "question_id": "b", "outcome": "post_rationalised", "detail": "keeps 12",
         "expected": "12 → 18 in E1", "said": "<script>alert(1)</script> 12 месяцев"},
    ]
    html = probe_section_html(document, cases)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.index("keeps 12") < html.index(">ok<")
    assert "12 → 18 in E1" in html and "0.50 [0.00, 1.00]" in html
    # accessible tables, as every table of the report: a caption each, every header scoped
    assert html.count("<table") == html.count("<caption>") == 2
    assert len(re.findall(r"<th[ >]", html)) == html.count('<th scope="col"') > 0


def test_interrupted_probe_resumes_and_asks_only_what_is_missing(dataset: Path, tmp_path: Path) -> None:
    first = run_probe(dataset, "reference", kinds=MANAGEMENT, out=tmp_path / "runs", run_id="r")
    run = first.run_dir
    answers = (run / "answers.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (run / "answers.jsonl").write_text("".join(answers[:5]), encoding="utf-8")  # as if killed after 5 answers
    (run / PROBE_JSON).unlink()
    result = runner.invoke(app, ["probe", "--resume", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert len((run / "answers.jsonl").read_text(encoding="utf-8").splitlines()) == len(answers)
    again = json.loads((run / PROBE_JSON).read_text(encoding="utf-8"))
    assert again["kinds"] == first.document["kinds"]
    plain = start_run(dataset, "reference", out=tmp_path / "runs", run_id="plain")
    with pytest.raises(UsageError, match="not a probe run"):
        judge_probe(plain.run_dir)


def test_run_report_has_the_probe_section(dataset: Path, tmp_path: Path) -> None:
    from evals.report.render import render_report

    result = run_probe(dataset, "python:probe_backends:memorised", kinds="altered_fact", out=tmp_path / "runs",
                       run_id="rep")
    render_report([result.run_dir], out=tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert '<section class="probe" id="probe-rep">' in html
    assert "keeps 9 месяцев while citing evidence that says 14" in html
