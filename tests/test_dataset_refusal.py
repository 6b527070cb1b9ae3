"""`run`, `eval`, `score` and `run --resume` refuse a dataset that `data validate` rejects (issue 18):
exit 2, the problem listed with its file and line, nothing written."""

import json
from pathlib import Path

from factories import dataset_rows, write_dataset, write_jsonl
from typer.testing import CliRunner

from cli import app
from evals.run.runner import start_run

runner = CliRunner()


def _break_registry(ds: Path) -> str:
    """Make chunk b1-1 (line 5 of chunks.jsonl) disagree with texts/pay-v1.txt: the registry still loads,
    only validation sees it. Returns the problem line `data validate` prints for it."""
    rows = dataset_rows()
    chunk = rows["chunks"][4]
    assert chunk["chunk_id"] == "b1-1"
    chunk["text"] = chunk["text"].replace("50 %", "60 %")
    write_jsonl(ds / "registry" / "chunks.jsonl", rows["chunks"])
    return f"chunks.jsonl:5: text: text does not match texts/pay-v1.txt[0:{len(chunk['text'])}]"


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _assert_refused(result, problem: str) -> None:
    assert result.exit_code == 2, result.output
    assert "dataset does not validate" in result.output and "1 problem(s)" in result.output
    assert problem in result.output
    assert "Traceback" not in result.output


def test_the_broken_registry_is_one_problem_for_data_validate(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    problem = _break_registry(ds)
    result = runner.invoke(app, ["data", "validate", str(ds)])
    assert result.exit_code == 2 and problem in result.output


def test_run_refuses_before_any_run_folder(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    problem = _break_registry(ds)
    out = tmp_path / "runs"
    result = runner.invoke(app, ["run", str(ds), "--out", str(out), "--run-id", "r"])
    _assert_refused(result, problem)
    assert not out.exists()


def test_eval_refuses_before_run_score_or_report(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    problem = _break_registry(ds)
    out, report = tmp_path / "runs", tmp_path / "reports" / "r.html"
    result = runner.invoke(app, ["eval", str(ds), "--out", str(out), "--run-id", "r", "--report-out", str(report)])
    _assert_refused(result, problem)
    assert not out.exists() and not report.parent.exists()


def test_score_refuses_a_dataset_broken_after_the_run_and_writes_nothing(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    run = start_run(ds, "reference", out=tmp_path / "runs", run_id="r").run_dir
    before = _files(run)
    assert set(before) == {"manifest.json", "answers.jsonl", ".citeval.lock"}  # the lock file: empty when free
    problem = _break_registry(ds)
    for judge in ("none", "offline"):
        result = runner.invoke(app, ["score", str(run), "--judge", judge])
        _assert_refused(result, problem)
        assert _files(run) == before


def test_resume_refuses_a_dataset_broken_after_the_run_started(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    run = start_run(ds, "reference", out=tmp_path / "runs", run_id="r").run_dir
    # forget the last answer, so a resume would have a question to ask
    lines = (run / "answers.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (run / "answers.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
    before = _files(run)
    problem = _break_registry(ds)
    result = runner.invoke(app, ["run", "--resume", str(run)])
    _assert_refused(result, problem)
    assert _files(run) == before
    assert json.loads((run / "manifest.json").read_text())["options"]["status"] == "finished"


def test_a_valid_dataset_still_runs_and_scores(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    out = tmp_path / "runs"
    assert runner.invoke(app, ["run", str(ds), "--out", str(out), "--run-id", "r"]).exit_code == 0
    result = runner.invoke(app, ["score", str(out / "r"), "--judge", "none"])
    assert result.exit_code == 0, result.output
    assert (out / "r" / "scores.json").exists()
