"""`citeval data import alce|ragchecker|ragas`: peer files in their real shapes → a dataset
that validates, a replay file that `citeval eval` runs, markers that resolve, context_support.

The files in tests/peers/ take their field names from the peers' own code (ALCE's eval.py and
run.py result files, RAGChecker's container.py `RAGResults`, ragas's `SingleTurnSample` and
`EvaluationDataset.to_jsonl` / `to_csv`); their content is ours. Expected ids and hashes are
computed here from DESIGN 2's formulas, not by citeval's functions.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from servers.fixtures import fake_openai  # noqa: F401
from typer.testing import CliRunner

from cli import app
from evals.data.validate import validate_dataset
from evals.importers import import_peer

PEERS = Path(__file__).parent / "peers"
runner = CliRunner()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _chunk_id(version_id: str, text: str) -> str:
    """DESIGN 2: first 16 hex of sha256(version_id \\x1f heading path \\x1f collapsed text)."""
    return hashlib.sha256(f"{version_id}\x1f\x1f{' '.join(text.split())}".encode()).hexdigest()[:16]


def _import(kind: str, name: str, out: Path) -> None:
    result = runner.invoke(app, ["data", "import", kind, str(PEERS / name), "--out", str(out)])
    assert result.exit_code == 0, result.output


def _eval(dataset: Path, replay: str, tmp_path: Path, run_id: str) -> Path:
    result = runner.invoke(
        app,
        ["eval", str(dataset), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"), "--run-id", run_id,
         "--report-out", str(tmp_path / f"{run_id}.html")],
    )
    assert result.exit_code in (0, 1), result.output  # 1: a gate failed, which is the gate's business
    return tmp_path / "runs" / run_id


# --- ALCE ------------------------------------------------------------------------------


def test_alce_result_file_becomes_a_dataset_whose_markers_resolve(tmp_path: Path) -> None:
    ds = tmp_path / "alce"
    _import("alce", "alce_result.json", ds)
    assert validate_dataset(ds).ok
    documents = {d["document_id"]: d for d in _lines(ds / "registry" / "documents.jsonl")}
    # one document per title; the 4th doc is beyond args.ndoc = 3 but in the file, and ALCE's eval.py
    # scores a marker against every doc in the file, so "Moskva (magazine)" is a document too
    assert set(documents) == {"the-master-and-margarita", "mikhail-bulgakov", "moskva-magazine", "ice", "water"}
    assert documents["the-master-and-margarita"]["title"] == "The Master and Margarita"
    novel_1 = "The Master and Margarita is a novel by Mikhail Bulgakov, written between 1928 and 1940."
    novel_2 = "The novel was first published in 1966 in the magazine Moskva."
    versions = {v["version_id"]: v for v in _lines(ds / "registry" / "versions.jsonl")}
    full = novel_1 + "\n\n" + novel_2
    assert versions["the-master-and-margarita-v1"]["content_sha256"] == hashlib.sha256(full.encode()).hexdigest()
    chunks = {c["chunk_id"]: c for c in _lines(ds / "registry" / "chunks.jsonl")}
    first, second = _chunk_id("the-master-and-margarita-v1", novel_1), _chunk_id("the-master-and-margarita-v1", novel_2)
    assert (chunks[first]["char_start"], chunks[first]["char_end"]) == (0, len(novel_1))
    assert (chunks[second]["char_start"], chunks[second]["char_end"]) == (len(novel_1) + 2, len(full))

    questions = {q["question_id"]: q for q in _lines(ds / "questions.jsonl")}
    assert set(questions) == {"-3011", "alce-2"}  # ASQA's sample_id; an item without an id is numbered
    assert questions["-3011"]["gold"]["qa_pairs"][0]["short_answers"] == ["Mikhail Bulgakov", "Bulgakov"]
    assert questions["alce-2"]["gold"]["claims"][1] == "Water expands when it freezes."

    answers = {a["question_id"]: a for a in _lines(ds / "answers" / "alce.jsonl")}
    novel = answers["-3011"]
    # eval.py reads the output up to its first line break
    assert novel["answer_text"] == (
        "The Master and Margarita was written by Mikhail Bulgakov [1][2]. It was first published in 1966 [3]."
    )
    # [n] → the n-th doc of the item
    assert [(e["evidence_id"], e["chunk_id"]) for e in novel["evidence"]] == [
        ("1", first),
        ("2", _chunk_id("mikhail-bulgakov-v1", "Mikhail Bulgakov was a Russian writer and playwright, born in Kyiv in 1891.")),
        ("3", second),
        ("4", _chunk_id("moskva-magazine-v1", "Moskva is a literary magazine founded in 1957.")),
    ]

    run = _eval(ds, "answers/alce.jsonl", tmp_path, "alce")
    rows = {r["question_id"]: r for r in _lines(run / "per_question.jsonl")}
    # -3011: markers 1, 2, 3 all resolve; alce-2: [1] resolves, [4] is beyond its two docs
    assert (rows["-3011"]["markers"], rows["-3011"]["valid_markers"]) == (3, 3)
    assert rows["-3011"]["citation_validity"] == 1.0
    assert (rows["alce-2"]["markers"], rows["alce-2"]["valid_markers"]) == (2, 1)
    findings = _lines(run / "findings.jsonl")
    assert {(f["question_id"], f["code"], f.get("evidence_id")) for f in findings if f["code"] == "UNKNOWN_EVIDENCE_ID"} == {
        ("alce-2", "UNKNOWN_EVIDENCE_ID", "4")
    }
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert scores["metrics"]["citation_validity"]["value"] == pytest.approx((1.0 + 0.5) / 2)


def test_a_bad_alce_item_names_its_place_and_writes_nothing(tmp_path: Path) -> None:
    bad = json.loads((PEERS / "alce_result.json").read_text(encoding="utf-8"))
    del bad["data"][1]["question"]
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(bad), encoding="utf-8")
    result = runner.invoke(app, ["data", "import", "alce", str(source), "--out", str(tmp_path / "ds")])
    assert result.exit_code == 2
    assert "bad.json: data[1]" in result.output and "'question' is missing" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "ds").exists()


def test_alce_sampled_outputs_replay_the_first(tmp_path: Path) -> None:
    """run.py --num_samples 2 saves `output` as the list of samples (`item['output'] = output_array if
    len(output_array) > 1 else output_array[0]`): the first sample is the one replayed."""
    doc = json.loads((PEERS / "alce_result.json").read_text(encoding="utf-8"))
    first = "Mikhail Bulgakov wrote it [1]."
    doc["data"][0]["output"] = [first, "It was Bulgakov [2]."]
    source = tmp_path / "sampled.json"
    source.write_text(json.dumps(doc), encoding="utf-8")
    result = runner.invoke(app, ["data", "import", "alce", str(source), "--out", str(tmp_path / "ds")])
    assert result.exit_code == 0, result.output
    assert "--num_samples" in result.output
    answers = {a["question_id"]: a for a in _lines(tmp_path / "ds" / "answers" / "alce.jsonl")}
    assert answers["-3011"]["answer_text"] == first


def test_an_import_never_overwrites_a_folder_in_use(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "keep.txt").write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["data", "import", "alce", str(PEERS / "alce_result.json"), "--out", str(ds)])
    assert result.exit_code == 2 and "not empty" in result.output
    assert (ds / "keep.txt").read_text(encoding="utf-8") == "mine"


# --- RAGChecker ------------------------------------------------------------------------


def test_ragchecker_answers_without_markers_get_context_support(tmp_path: Path) -> None:
    ds = tmp_path / "rc"
    _import("ragchecker", "ragchecker_results.json", ds)
    assert validate_dataset(ds).ok
    questions = {q["question_id"]: q for q in _lines(ds / "questions.jsonl")}
    assert questions["r2"]["gold"]["answer"] == "По графику отпусков."
    # a doc_id names a passage within its query: r1's ot-polozhenie holds two chunks; kadry, retrieved
    # by both queries, is one document per query
    chunks = _lines(ds / "registry" / "chunks.jsonl")
    assert sorted(c["document_id"] for c in chunks) == ["r1-kadry", "r1-ot-polozhenie", "r1-ot-polozhenie",
                                                        "r2-kadry"]

    run = _eval(ds, "answers/ragchecker.jsonl", tmp_path, "rc")
    rows = {r["question_id"]: r for r in _lines(run / "per_question.jsonl")}
    # Hand-worked. r1's three sentences: the first two are stated by its passages word for word;
    # the third (a 5000-rouble fine) is in none of them → 2 of 3. r2's one sentence is its passage → 1.
    assert rows["r1"]["context_support"] == pytest.approx(2 / 3, abs=1e-6)
    assert rows["r2"]["context_support"] == 1.0
    # the citation metrics still say what they say: nothing is cited
    assert rows["r1"]["citation_validity"] is None and rows["r1"]["citation_completeness"] == 0.0
    findings = [f["code"] for f in _lines(run / "findings.jsonl")]
    assert findings.count("CLAIM_UNCITED") == 4
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    entry = scores["metrics"]["context_support"]
    assert entry["value"] == pytest.approx((2 / 3 + 1) / 2, abs=1e-6) and entry["n"] == 2


def test_context_support_with_the_llm_judge(tmp_path: Path, fake_openai) -> None:  # noqa: F811
    ds = tmp_path / "rc"
    _import("ragchecker", "ragchecker_results.json", ds)
    runs = tmp_path / "runs"
    assert runner.invoke(app, ["run", str(ds), "--backend", "replay:answers/ragchecker.jsonl", "--out", str(runs),
                               "--run-id", "llm"]).exit_code == 0
    result = runner.invoke(app, ["score", str(runs / "llm"), "--judge", "llm", "--llm-base-url", fake_openai.base_url,
                                 "--llm-model", "tiny", "--format", "json"])
    assert result.exit_code == 0, result.output
    rows = {r["question_id"]: r for r in _lines(runs / "llm" / "per_question.jsonl")}
    # the stand-in says supported when the claim occurs in the evidence: the same 2 of 3, and 1
    assert rows["r1"]["context_support"] == pytest.approx(2 / 3, abs=1e-6) and rows["r2"]["context_support"] == 1.0
    # each claim went to the judge once, with all of its answer's passages together
    prompts = [json.dumps(r["json"], ensure_ascii=False) for r in fake_openai.requests]
    fine = [p for p in prompts if "штраф 5000" in p]
    assert len(fine) == 1 and "руководитель работника" in fine[0] and "по графику отпусков" in fine[0]


# --- Ragas -----------------------------------------------------------------------------


def _registry_files(ds: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((ds / "registry").rglob("*")) if p.is_file()}


def test_ragas_jsonl_and_csv_exports_import_alike_with_and_without_ragas(tmp_path: Path) -> None:
    with_ragas = import_peer("ragas", PEERS / "ragas_samples.jsonl", tmp_path / "a", use_ragas=True)
    assert with_ragas.notes == ["read with ragas's own schema (SingleTurnSample)"]
    import_peer("ragas", PEERS / "ragas_samples.jsonl", tmp_path / "b", use_ragas=False)
    import_peer("ragas", PEERS / "ragas_samples.csv", tmp_path / "c", use_ragas=False)
    for ds in ("a", "b", "c"):
        assert validate_dataset(tmp_path / ds).ok
    assert _registry_files(tmp_path / "a") == _registry_files(tmp_path / "b") == _registry_files(tmp_path / "c")
    questions = {q["question_id"]: q for q in _lines(tmp_path / "c" / "questions.jsonl")}
    assert set(questions) == {"ragas-1", "ragas-2"}
    assert questions["ragas-2"]["gold"]["answer"] == "Работодатель."
    # a context with an id is that source's document; one without is its own, named by its text's hash
    text = "Испытательный срок не может превышать трёх месяцев."
    expected = "ctx-" + hashlib.sha256(text.encode()).hexdigest()[:10]
    documents = {d["document_id"] for d in _lines(tmp_path / "a" / "registry" / "documents.jsonl")}
    assert "tk-123" in documents and expected in documents


def test_ragas_own_csv_export_imports(tmp_path: Path) -> None:
    ragas = pytest.importorskip("ragas")
    # ragas's to_csv takes its columns from the first sample, so every sample has the same fields here
    rows = [{k: v for k, v in r.items() if k != "retrieved_context_ids"} for r in _lines(PEERS / "ragas_samples.jsonl")]
    ragas.EvaluationDataset.from_list(rows).to_csv(tmp_path / "own.csv")  # lists as Python literals
    (tmp_path / "ref.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    import_peer("ragas", tmp_path / "own.csv", tmp_path / "own", use_ragas=True)
    import_peer("ragas", tmp_path / "ref.jsonl", tmp_path / "ref", use_ragas=False)
    assert _registry_files(tmp_path / "own") == _registry_files(tmp_path / "ref")
    ds = tmp_path / "own"
    run = _eval(ds, "answers/ragas.jsonl", tmp_path, "ragas")
    rows_out = {r["question_id"]: r for r in _lines(run / "per_question.jsonl")}
    assert rows_out["ragas-1"]["context_support"] == 1.0  # the response is its first context verbatim


@pytest.mark.parametrize("use_ragas", [False, True])
def test_ragas_v01_columns_import_like_v02(tmp_path: Path, use_ragas: bool) -> None:
    """A ragas v0.1 dataset (question, contexts, answer, ground_truth — the HuggingFace columns
    ragas.utils.REQUIRED_COLS_v1 names) reads as the same samples in v0.2 names."""
    if use_ragas:
        pytest.importorskip("ragas")
    v2 = _lines(PEERS / "ragas_samples.jsonl")
    rename = {"user_input": "question", "retrieved_contexts": "contexts", "response": "answer",
              "reference": "ground_truth"}
    v1 = [{rename.get(k, k): v for k, v in r.items() if k != "retrieved_context_ids"} for r in v2]
    plain = [{k: v for k, v in r.items() if k != "retrieved_context_ids"} for r in v2]
    (tmp_path / "v1.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in v1), "utf-8")
    (tmp_path / "v2.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in plain), "utf-8")
    result = import_peer("ragas", tmp_path / "v1.jsonl", tmp_path / "a", use_ragas=use_ragas)
    assert any("v0.1 columns" in n for n in result.notes)
    import_peer("ragas", tmp_path / "v2.jsonl", tmp_path / "b", use_ragas=use_ragas)
    assert _registry_files(tmp_path / "a") == _registry_files(tmp_path / "b")
    assert (tmp_path / "a" / "questions.jsonl").read_text() == (tmp_path / "b" / "questions.jsonl").read_text()
    questions = {q["question_id"]: q for q in _lines(tmp_path / "a" / "questions.jsonl")}
    assert questions["ragas-2"]["gold"]["answer"] == "Работодатель."


def test_a_multi_turn_ragas_sample_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "multi.jsonl"
    source.write_text(json.dumps({"user_input": [{"content": "hi", "type": "human"}]}) + "\n", encoding="utf-8")
    result = runner.invoke(app, ["data", "import", "ragas", str(source), "--out", str(tmp_path / "ds")])
    assert result.exit_code == 2 and "multi.jsonl:1" in result.output, result.output
    assert not (tmp_path / "ds").exists()


def test_answers_can_be_written_outside_the_dataset(tmp_path: Path) -> None:
    replay = tmp_path / "elsewhere" / "answers.jsonl"
    result = runner.invoke(
        app,
        ["data", "import", "ragchecker", str(PEERS / "ragchecker_results.json"), "--out", str(tmp_path / "ds"),
         "--answers", str(replay), "--format", "json"],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["answered"] == 2
    assert [a["question_id"] for a in _lines(replay)] == ["r1", "r2"]
    assert not (tmp_path / "ds" / "answers").exists()
    shutil.rmtree(tmp_path / "ds")


def test_alce_data_file_without_outputs_gives_questions_only(tmp_path: Path) -> None:
    # a benchmark data file (data/asqa_eval_gtr_top100.json) is the bare list, with no model output
    items = json.loads((PEERS / "alce_result.json").read_text(encoding="utf-8"))["data"]
    for item in items:
        del item["output"]
    source = tmp_path / "asqa_eval.json"
    source.write_text(json.dumps(items), encoding="utf-8")
    report = import_peer("alce", source, tmp_path / "ds")
    assert (report.questions, report.answered) == (2, 0)
    assert report.documents == 5  # no args.ndoc: all four docs of the first item count
    assert validate_dataset(tmp_path / "ds").ok and _lines(tmp_path / "ds" / "answers" / "alce.jsonl") == []


def test_ragchecker_example_file_names_its_list_input_data(tmp_path: Path) -> None:
    doc = json.loads((PEERS / "ragchecker_results.json").read_text(encoding="utf-8"))
    source = tmp_path / "checking_inputs.json"
    source.write_text(json.dumps({"input_data": doc["results"]}, ensure_ascii=False), encoding="utf-8")
    report = import_peer("ragchecker", source, tmp_path / "ds")
    assert (report.questions, report.answered, report.documents, report.chunks) == (2, 2, 3, 4)
