"""Hugging Face datasets: a question bank read from a dataset folder (save_to_disk, Parquet, JSON
Lines) wherever questions are read, and a run's per-question rows exported as a dataset. The
folders are written here with `datasets` itself (Dataset.from_list, save_to_disk, to_parquet,
to_json), so what is read back is what that library writes; expected rows are the factory's own."""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from factories import dataset_rows, write_dataset, write_replay
from typer.testing import CliRunner

import datasets
from cli import app
from evals.data.validate import validate_dataset
from evals.store.jsonl import load_questions


def hf_question_dataset(tmp_path, layout: str):
    """The factory dataset with its questions moved into questions/ as a Hugging Face dataset."""
    root = write_dataset(tmp_path / f"ds-{layout}")
    (root / "questions.jsonl").unlink()
    rows = dataset_rows()["questions"]
    bank = datasets.Dataset.from_list(rows)  # nested `user` and `gold` as Arrow structs
    folder = root / "questions"
    if layout == "save_to_disk":
        bank.save_to_disk(str(folder))
    elif layout == "dict":
        datasets.DatasetDict({"test": bank}).save_to_disk(str(folder))
    elif layout == "parquet":
        folder.mkdir()
        bank.select(range(2)).to_parquet(str(folder / "part-0.parquet"))
        bank.select(range(2, 3)).to_parquet(str(folder / "part-1.parquet"))
    else:
        folder.mkdir()
        bank.to_json(str(folder / "questions.jsonl"), force_ascii=False)
    return root


@pytest.mark.parametrize("layout", ["save_to_disk", "dict", "parquet", "jsonl"])
def test_questions_from_a_hf_dataset_are_the_jsonl_questions(tmp_path, layout):
    expected = load_questions(write_dataset(tmp_path / "plain"))
    root = hf_question_dataset(tmp_path, layout)
    assert load_questions(root) == expected
    report = validate_dataset(root)
    assert report.ok, report.problems
    assert not list(tmp_path.glob("**/cache-*.arrow"))  # the builders' cache went to a temporary folder


def test_a_run_reads_its_questions_from_the_hf_folder(tmp_path):
    root = hf_question_dataset(tmp_path, "save_to_disk")
    replay = write_replay(tmp_path / "replay.jsonl")
    result = CliRunner().invoke(app, ["run", str(root), "--backend", f"replay:{replay}", "--out",
                                      str(tmp_path / "runs"), "--run-id", "r"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "runs" / "r" / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["dataset"]["questions_sha256"]) == 64
    answered = [json.loads(x)["question_id"] for x in (tmp_path / "runs" / "r" / "answers.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert answered == ["q1", "q2", "q3"]


def test_several_splits_are_refused_with_the_split_names(tmp_path):
    root = hf_question_dataset(tmp_path, "save_to_disk")
    shutil.rmtree(root / "questions")
    bank = datasets.Dataset.from_list(dataset_rows()["questions"])
    datasets.DatasetDict({"train": bank, "test": bank}).save_to_disk(str(root / "questions"))
    result = CliRunner().invoke(app, ["data", "validate", str(root)])
    assert result.exit_code == 2
    assert "2 splits (train, test)" in result.output


def test_export_hf_writes_the_per_question_rows(tmp_path):
    root = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    runner = CliRunner()
    assert runner.invoke(app, ["run", str(root), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
                               "--run-id", "r"]).exit_code == 0
    assert runner.invoke(app, ["score", str(tmp_path / "runs" / "r")]).exit_code == 0
    out = tmp_path / "results-hf"
    result = runner.invoke(app, ["data", "export-hf", str(tmp_path / "runs" / "r"), "--out", str(out),
                                 "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rows"] == 3
    exported = datasets.load_from_disk(str(out))
    rows = [json.loads(x) for x in (tmp_path / "runs" / "r" / "per_question.jsonl").read_text(
        encoding="utf-8").splitlines()]
    assert exported["question_id"] == [r["question_id"] for r in rows]
    assert exported["citation_validity"] == [r["citation_validity"] for r in rows]
    assert exported["findings"] == [r["findings"] for r in rows]
    assert set(exported["run_id"]) == {"r"}
    assert exported["question"] == [q["question"] for q in dataset_rows()["questions"]]
    assert exported["answer_text"][0] == "Раз в 12 месяцев. [E1]"
    assert [json.loads(x) for x in exported["reasons"]] == [r["reasons"] for r in rows]


def test_without_the_datasets_package_exit_2_names_the_extra(tmp_path, monkeypatch):
    root = hf_question_dataset(tmp_path, "save_to_disk")
    monkeypatch.setitem(sys.modules, "datasets", None)  # as if not installed: import raises ImportError
    result = CliRunner().invoke(app, ["data", "validate", str(root)])
    assert result.exit_code == 2
    assert "pip install 'citeval[hf]'" in result.output
