"""Joint support (DESIGN 6 "Details", issue 15 item 3): a claim with several citations is judged on
their evidence together, as ALCE does. Real run folders scored by `citeval score` with the
offline judge (or a local fake of an OpenAI-compatible endpoint); every expected value is worked
out by hand from the fragments below."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import sha, write_dataset
from servers.fixtures import fake_openai  # noqa: F401
from typer.testing import CliRunner

from cli import app
from evals.run.runner import start_run

runner = CliRunner()

CLAIM = "Донором может быть гражданин от 18 до 35 лет, прошедший обследование за 30 дней до сдачи крови."
AGE = "Донором может быть гражданин в возрасте от восемнадцати до тридцати пяти лет."  # no 30 days
EXAM = "Медицинское обследование донора проводится не позднее чем за тридцать дней до сдачи крови."  # no ages
OFFICE = "Пункт приёма открыт по графику, который утверждает руководитель организации."  # off the claim
WHOLE = CLAIM  # a fragment that states the whole claim by itself
FRAGMENTS = {"age": AGE, "exam": EXAM, "office": OFFICE, "whole": WHOLE}


def _dataset(root: Path) -> Path:
    text = "\n\n".join(FRAGMENTS.values())
    chunks, start = [], 0
    for chunk_id, fragment in FRAGMENTS.items():
        chunks.append({"chunk_id": chunk_id, "version_id": "donor-v1", "document_id": "donor", "text": fragment,
                       "heading_path": [], "page_start": 1, "page_end": 1, "char_start": start,
                       "char_end": start + len(fragment)})
        start += len(fragment) + 2
    question = {"question": "Кто может быть донором?", "asked_at": "2025-06-01", "risk_tier": "policy", "tags": []}
    rows = {
        "documents": [{"document_id": "donor", "title": "Правила донорства", "acl": []}],
        "versions": [{"version_id": "donor-v1", "document_id": "donor", "revision": 1, "content_sha256": sha(text),
                      "effective_from": "2023-01-01", "viewer_url": "https://docs.example/d/donor/v/1"}],
        "chunks": chunks,
        "questions": [{"question_id": qid, **question} for qid in ("q1", "q2", "q3", "q4")],
    }
    return write_dataset(root, rows, texts=False)


def _answer(qid: str, chunk_ids: list[str]) -> dict[str, Any]:
    ids = [f"E{i}" for i in range(1, len(chunk_ids) + 1)]
    return {"question_id": qid, "status": "answered", "answer_text": f"{CLAIM} [{', '.join(ids)}]",
            "claims": [{"claim_id": "c1", "text": CLAIM, "evidence_ids": ids}],
            "evidence": [{"evidence_id": e, "chunk_id": c, "text": FRAGMENTS[c]}
                         for e, c in zip(ids, chunk_ids, strict=True)]}


ANSWERS = [
    _answer("q1", ["age", "exam"]),  # supported only by the two together
    _answer("q2", ["whole", "office"]),  # the first supports alone, the second is off the claim
    _answer("q3", ["age", "exam", "office"]),  # three citations: leave-one-out decides
    _answer("q4", ["whole"]),  # one citation: judged as always
]


def _run(tmp_path: Path) -> Path:
    replay = tmp_path / "answers.jsonl"
    replay.write_text("".join(json.dumps(a, ensure_ascii=False) + "\n" for a in ANSWERS), encoding="utf-8")
    return start_run(_dataset(tmp_path / "ds"), f"replay:{replay}", out=tmp_path / "runs", run_id="r").run_dir


def _score(run: Path, *args: str) -> dict[str, dict[str, Any]]:
    result = runner.invoke(app, ["score", str(run), *args])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (run / "per_question.jsonl").read_text(encoding="utf-8").splitlines()]
    return {row["question_id"]: row for row in rows}


def _support(run: Path) -> dict[tuple[str, str], str]:
    rows = [json.loads(line) for line in (run / "judgments.jsonl").read_text(encoding="utf-8").splitlines()]
    return {(r["question_id"], r["evidence_id"]): r["value"] for r in rows if r["source"] == "auto:offline"}


def test_units_pairs_unions_and_leave_one_out_sets(tmp_path: Path) -> None:
    run = _run(tmp_path)
    _score(run)
    support = _support(run)
    # q1: each fragment alone misses numbers (AGE lacks 30, EXAM lacks 18 and 35); together they hold all
    assert {k: v for k, v in support.items() if k[0] == "q1"} == {
        ("q1", "E1"): "unsupported", ("q1", "E2"): "unsupported", ("q1", "E1+E2"): "supported"}
    # q2: WHOLE states the claim; OFFICE shares no number or content word with it
    assert {k: v for k, v in support.items() if k[0] == "q2"} == {
        ("q2", "E1"): "supported", ("q2", "E2"): "unsupported", ("q2", "E1+E2"): "supported"}
    # q3: no fragment alone, the union does: so the three sets without one fragment are judged too;
    # only AGE with EXAM (E1+E2, OFFICE left out) still holds every number
    assert {k: v for k, v in support.items() if k[0] == "q3"} == {
        ("q3", "E1"): "unsupported", ("q3", "E2"): "unsupported", ("q3", "E3"): "unsupported",
        ("q3", "E1+E2+E3"): "supported",
        ("q3", "E2+E3"): "unsupported", ("q3", "E1+E3"): "unsupported", ("q3", "E1+E2"): "supported"}
    # q4: one citation, one unit, as before joint support
    assert {k: v for k, v in support.items() if k[0] == "q4"} == {("q4", "E1"): "supported"}


def test_joint_metrics_by_hand(tmp_path: Path) -> None:
    rows = _score(_run(tmp_path))
    q1, q2, q3, q4 = (rows[q] for q in ("q1", "q2", "q3", "q4"))
    # q1: the union supports the claim → completeness 1 (per pair it was 0); numbers 18, 35 (in words
    # in AGE) and 30 (in words in EXAM) are all in some cited fragment → number_support 1; each pair
    # is unsupported alone, but the union loses support without either → both count: 2/2
    assert (q1["citation_completeness"], q1["number_support"], q1["citation_correctness"]) == (1.0, 1.0, 1.0)
    assert "NUMBER_UNSUPPORTED" not in q1["findings"]
    # q2: WHOLE supports alone → completeness 1; OFFICE is not supported alone and the union without
    # it (WHOLE) still supports → it does not count: 1/2
    assert (q2["citation_completeness"], q2["number_support"], q2["citation_correctness"]) == (1.0, 1.0, 0.5)
    # q3: AGE and EXAM each carry the union (without either, a number is missing); without OFFICE
    # the rest still supports → 2/3
    assert q3["citation_completeness"] == 1.0 and q3["citation_correctness"] == pytest.approx(2 / 3)
    assert (q4["citation_completeness"], q4["number_support"], q4["citation_correctness"]) == (1.0, 1.0, 1.0)


def _add_human(run: Path, qid: str, evidence_id: str, value: str) -> None:
    row = {"run_id": "r", "question_id": qid, "claim_id": "c1", "evidence_id": evidence_id,
           "source": "human:ann@example.org", "field": "support", "value": value, "at": "2020-01-01T00:00:00Z"}
    with open(run / "judgments.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(row) + "\n")


def test_human_labels_win_over_the_judge_on_pairs_and_unions(tmp_path: Path) -> None:
    run = _run(tmp_path)
    _score(run)
    # a rater says OFFICE supports q2's claim alone: the pair now counts, whatever the judge said → 2/2
    _add_human(run, "q2", "E2", "supported")
    # a rater says AGE and EXAM together do not support q1's claim: completeness 0, and no pair
    # gets joint credit (each is unsupported alone) → correctness 0/2
    _add_human(run, "q1", "E1+E2", "unsupported")
    rows = _score(run)  # re-scoring replaces the judge's rows and keeps the human ones
    assert rows["q2"]["citation_correctness"] == 1.0 and rows["q2"]["citation_completeness"] == 1.0
    assert (rows["q1"]["citation_completeness"], rows["q1"]["citation_correctness"]) == (0.0, 0.0)
    assert rows["q3"]["citation_correctness"] == pytest.approx(2 / 3)  # untouched
    # a human `supported` on the pair AGE of q1 makes it count alone, and the claim supported
    _add_human(run, "q1", "E1", "supported")
    rows = _score(run)
    # E1 counts alone; EXAM: the union (human: unsupported, but AGE alone supports, so it does)
    # keeps support without EXAM → 1/2
    assert (rows["q1"]["citation_completeness"], rows["q1"]["citation_correctness"]) == (1.0, 0.5)


def test_an_invalid_co_citation_does_not_back_a_number(tmp_path: Path) -> None:
    run = _run(tmp_path)
    answer = _answer("q1", ["age", "exam"])
    answer["links"] = [{"evidence_id": "E2", "url": "https://elsewhere.example/exam"}]  # E2: LINK_NOT_FROM_REGISTRY
    replay = tmp_path / "invalid.jsonl"
    replay.write_text(json.dumps(answer, ensure_ascii=False) + "\n", encoding="utf-8")
    run = start_run(tmp_path / "ds", f"replay:{replay}", out=tmp_path / "runs", run_id="r2").run_dir
    rows = _score(run)
    # the only valid evidence is AGE: 30 (days) is in no valid cited fragment
    assert rows["q1"]["number_support"] == 0.0 and "NUMBER_UNSUPPORTED" in rows["q1"]["findings"]
    findings = [json.loads(line) for line in (run / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [f["detail"] for f in findings if f["code"] == "NUMBER_UNSUPPORTED"] == ["not in cited evidence: 30"]
    # one valid marker: no union unit; the invalid marker is not judged and counts 0 → 0/2
    assert set(_support(run)) == {("q1", "E1")}
    assert rows["q1"]["citation_correctness"] == 0.0


def test_the_llm_judge_gets_the_union_as_one_input(tmp_path: Path, fake_openai) -> None:  # noqa: F811
    run = _run(tmp_path)
    result = runner.invoke(app, ["score", str(run), "--judge", "llm", "--llm-base-url", fake_openai.base_url,
                                 "--llm-model", "tiny"])
    assert result.exit_code == 0, result.output
    sent = []
    for request in fake_openai.requests:
        user = request["json"]["messages"][-1]["content"]
        task = json.JSONDecoder().raw_decode(user[user.rfind("### Task") + len("### Task"):].lstrip())[0]
        sent.append(task["evidence"])
    assert [AGE, EXAM] in sent and [AGE, EXAM, OFFICE] in sent  # q1's and q3's unions, each one request
    rows = [json.loads(line) for line in (run / "judgments.jsonl").read_text(encoding="utf-8").splitlines()]
    assert ("q1", "E1+E2") in {(r["question_id"], r["evidence_id"]) for r in rows if r["source"] == "auto:llm"}


def _labelled(tmp_path: Path, qid: str, chunk_ids: list[str], values: dict[str, str]) -> dict[str, float | None]:
    """The metrics of one answer from the given support labels alone (no judge): evidence id → value."""
    from evals.contract.models import Answer, Judgment, Question
    from evals.data.registry import Registry
    from evals.score.checks import check_answer
    from evals.score.metrics import pick_labels, score_answer

    ds = _dataset(tmp_path / "ds")
    registry = Registry.load(ds)
    question = Question.model_validate({"question_id": qid, "question": "?", "asked_at": "2025-06-01",
                                        "risk_tier": "policy", "tags": []})
    check = check_answer(question, Answer.model_validate(_answer(qid, chunk_ids)), registry, question.asked_at)
    labels = pick_labels([Judgment(run_id="r", question_id=qid, claim_id="c1", evidence_id=e, source="auto:offline",
                                   field="support", value=v, at="2025-01-01T00:00:00Z") for e, v in values.items()],
                         "auto:offline")
    return score_answer(check, labels, registry).values


def test_cannot_judge_and_missing_leave_one_out_verdicts(tmp_path: Path) -> None:
    # E1 cannot be judged alone: left out; E2 is unsupported alone, the union supports, but without E2
    # only E1 is left, whose verdict is cannot_judge: no joint credit → 0/1; the claim is supported
    v = _labelled(tmp_path, "q1", ["age", "exam"], {"E1": "cannot_judge", "E2": "unsupported", "E1+E2": "supported"})
    assert (v["citation_correctness"], v["citation_completeness"]) == (0.0, 1.0)
    # three markers, the union supported, no leave-one-out set judged: no pair gets joint credit → 0/3
    v = _labelled(tmp_path, "q3", ["age", "exam", "office"],
                  {"E1": "unsupported", "E2": "unsupported", "E3": "unsupported", "E1+E2+E3": "supported"})
    assert (v["citation_correctness"], v["citation_completeness"]) == (0.0, 1.0)
    # a partial union with unsupported pairs: the claim is unsupported
    v = _labelled(tmp_path, "q1", ["age", "exam"], {"E1": "unsupported", "E2": "unsupported", "E1+E2": "partial"})
    assert (v["citation_correctness"], v["citation_completeness"]) == (0.0, 0.0)
    # the union unlabelled (scored without a judge, raters labelled pairs only): pairs decide, as before
    v = _labelled(tmp_path, "q1", ["age", "exam"], {"E1": "supported", "E2": "unsupported"})
    assert (v["citation_correctness"], v["citation_completeness"]) == (0.5, 1.0)
