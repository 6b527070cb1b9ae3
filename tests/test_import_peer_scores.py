"""RAGChecker's example files and a real ragas `evaluate()` result: imported with the peers'
own scores kept beside citeval's.

tests/peers/ragchecker/ holds amazon-science/RAGChecker's examples/checking_inputs.json and
checking_outputs.json unchanged (Apache-2.0, its LICENSE and NOTICE beside them; commit
6091f08c00e676e87a970f2aeb4a23a484746348). The ragas file is written by ragas itself in the
test, with two metrics that need no model (NonLLMStringSimilarity, ExactMatch).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from factories import eval_replay
from typer.testing import CliRunner

from cli import app

RAGCHECKER = Path(__file__).parent / "peers" / "ragchecker"
runner = CliRunner()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _import(kind: str, source: Path, out: Path) -> dict:
    result = runner.invoke(app, ["data", "import", kind, str(source), "--out", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _eval(dataset: Path, replay: Path | str, tmp: Path) -> Path:
    return eval_replay(lambda *args: runner.invoke(app, list(args)), dataset, replay, tmp)


@pytest.mark.parametrize("name", ["checking_inputs.json", "checking_outputs.json"])
def test_ragchecker_doc_ids_count_within_their_query(name: str, tmp_path: Path) -> None:
    source = json.loads((RAGCHECKER / name).read_text(encoding="utf-8"))
    passages = [(r["query_id"], c["doc_id"], c["text"]) for r in source["results"] for c in r["retrieved_context"]]
    assert len(passages) == 7 and len({doc_id for _, doc_id, _ in passages}) == 4  # "000" … "003", reused
    report = _import("ragchecker", RAGCHECKER / name, tmp_path / "ds")
    assert (report["documents"], report["chunks"]) == (7, 7)
    answers = {a["question_id"]: a for a in _lines(tmp_path / "ds" / "answers" / "ragchecker.jsonl")}
    # evidence n of query q is the n-th passage of q, in a document of its own
    for query_id, doc_id, text in passages:
        found = [e for e in answers[query_id]["evidence"] if e["text"] == text]
        assert len(found) == 1 and found[0]["document_id"] == f"{query_id}-{doc_id}"


def test_ragcheckers_own_metrics_are_kept_and_set_beside_citevals(tmp_path: Path) -> None:
    source = json.loads((RAGCHECKER / "checking_outputs.json").read_text(encoding="utf-8"))
    _import("ragchecker", RAGCHECKER / "checking_outputs.json", tmp_path / "ds")
    manifest = json.loads((tmp_path / "ds" / "import.json").read_text(encoding="utf-8"))
    assert manifest["peer_scores"]["questions"] == {r["query_id"]: r["metrics"] for r in source["results"]}
    assert manifest["peer_scores"]["overall"] == source["metrics"]

    run = _eval(tmp_path / "ds", "answers/ragchecker.jsonl", tmp_path)
    result = runner.invoke(app, ["data", "peers", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    table = json.loads(result.stdout)
    means = {(m["source"], m["metric"]): m["mean"] for m in table["metrics"]}
    # RAGChecker's overall figures are its per-result means in percent, rounded to one decimal
    for group in source["metrics"].values():
        for name, percent in group.items():
            assert round(100 * means[("RAGChecker", name)], 1) == percent, name
    rows = {r["question_id"]: r for r in _lines(run / "per_question.jsonl")}
    for query_id, row in rows.items():
        assert table["per_question"][query_id]["citeval:context_support"] == row["context_support"]
        assert table["per_question"][query_id]["RAGChecker:faithfulness"] == source["results"][int(query_id)][
            "metrics"]["faithfulness"]
    text = runner.invoke(app, ["data", "peers", str(run)]).output
    assert "RAGChecker" in text and "context_support" in text and "overall: precision 76.4" in text


def test_ragas_metric_columns_of_an_evaluate_result_are_kept(tmp_path: Path) -> None:
    pytest.importorskip("ragas")
    os.environ["RAGAS_DO_NOT_TRACK"] = "true"
    import warnings

    from ragas import EvaluationDataset, evaluate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from ragas.metrics import ExactMatch, NonLLMStringSimilarity
    rows = [{k: v for k, v in r.items() if k != "retrieved_context_ids"}
            for r in _lines(Path(__file__).parent / "peers" / "ragas_samples.jsonl")]
    result = evaluate(EvaluationDataset.from_list(rows), metrics=[NonLLMStringSimilarity(), ExactMatch()],
                      show_progress=False)
    frame = result.to_pandas()
    frame.to_csv(tmp_path / "result.csv", index=False)
    report = _import("ragas", tmp_path / "result.csv", tmp_path / "ds")
    assert any("non_llm_string_similarity" in note for note in report["notes"])
    manifest = json.loads((tmp_path / "ds" / "import.json").read_text(encoding="utf-8"))
    expected = {f"ragas-{n}": {"non_llm_string_similarity": row["non_llm_string_similarity"],
                               "exact_match": row["exact_match"]}
                for n, row in enumerate(frame.to_dict("records"), start=1)}
    assert manifest["peer_scores"]["questions"] == expected
    run = _eval(tmp_path / "ds", "answers/ragas.jsonl", tmp_path)
    table = json.loads(runner.invoke(app, ["data", "peers", str(run), "--format", "json"]).stdout)
    assert table["per_question"]["ragas-1"]["Ragas:exact_match"] == expected["ragas-1"]["exact_match"]
    assert table["per_question"]["ragas-1"]["citeval:context_support"] == 1.0  # the response is its context verbatim


def test_peers_refuses_a_dataset_not_imported(tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    _import("ragchecker", RAGCHECKER / "checking_inputs.json", ds)
    (ds / "import.json").unlink()
    run = _eval(ds, "answers/ragchecker.jsonl", tmp_path)
    result = runner.invoke(app, ["data", "peers", str(run)])
    assert result.exit_code == 2 and "import.json" in result.output and "Traceback" not in result.output
