"""citeval.toml (DESIGN 7, issue 31): every command reads it from the current folder (or --config
FILE); a flag beats the environment, which beats the file, which beats the default; a typo or a
wrong type is exit 2 naming the file, the line and the key; the manifest and scores.json's
provenance record which file was read (its path and sha256)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from factories import write_dataset, write_replay
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A team's folder: a dataset, a replay file answering its three questions, and no settings yet."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CITEVAL_CONFIG", raising=False)
    monkeypatch.delenv("CITEVAL_PRICES", raising=False)
    write_dataset(tmp_path / "ds")
    write_replay(tmp_path / "replay.jsonl")
    _write(tmp_path / "gates.toml", "[overall]\ncitation_validity = { min = 0.5 }\n")
    return tmp_path


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _manifest(run: Path) -> dict:
    return json.loads((run / "manifest.json").read_text(encoding="utf-8"))


SETTINGS = """\
dataset = "ds"
gates = "gates.toml"
[run]
backend = "replay:replay.jsonl"
out = "my-runs"
limit = 2
[eval]
judge = "none"
report_out = "reports/latest.html"
"""


def test_citeval_toml_drives_eval_with_no_flags(project: Path) -> None:
    config = _write(project / "citeval.toml", SETTINGS)
    result = runner.invoke(app, ["eval", "--run-id", "r", "--format", "json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    run = project / "my-runs" / "r"  # [run] out, relative to the file's folder
    assert Path(doc["run"]["run_dir"]).resolve() == run.resolve()
    assert doc["run"]["total"] == 2  # [run] limit: q1 and q2 of three
    assert doc["scores"]["judge"] is None  # [eval] judge = "none"
    assert (project / "reports" / "latest.html").is_file()
    assert Path(doc["gate"]["gates"]).name == "gates.toml"
    options = _manifest(run)["options"]
    assert options["limit"] == 2
    assert options["config_file"] == str(config.resolve())
    assert options["config_sha256"] == hashlib.sha256(config.read_bytes()).hexdigest()
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert scores["provenance"]["config_sha256"] == options["config_sha256"]


def test_a_flag_beats_the_environment_which_beats_the_file(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(project / "citeval.toml", SETTINGS + '[score]\njudge = "offline"\n')
    for name in ("file", "env", "flag"):
        _write(project / f"prices-{name}.json", "{}")
    _write(project / "citeval.toml", SETTINGS.replace("limit = 2", 'limit = 2\nprices = "prices-file.json"'))
    flagged = runner.invoke(app, ["run", "--run-id", "flag", "--limit", "1", "--prices", "prices-flag.json"])
    assert flagged.exit_code == 0, flagged.output
    options = _manifest(project / "my-runs" / "flag")["options"]
    assert (options["limit"], Path(options["prices"]).name) == (1, "prices-flag.json")
    monkeypatch.setenv("CITEVAL_PRICES", "prices-env.json")
    env = runner.invoke(app, ["run", "--run-id", "env"])
    assert env.exit_code == 0, env.output
    options = _manifest(project / "my-runs" / "env")["options"]
    assert (options["limit"], Path(options["prices"]).name) == (2, "prices-env.json")
    monkeypatch.delenv("CITEVAL_PRICES")
    filed = runner.invoke(app, ["run", "--run-id", "file"])
    assert filed.exit_code == 0, filed.output
    assert Path(_manifest(project / "my-runs" / "file")["options"]["prices"]).name == "prices-file.json"
    # [eval] judge = "none" holds for eval only; score reads [score]
    scored = runner.invoke(app, ["score", "my-runs/file", "--format", "json"])
    assert scored.exit_code == 0, scored.output
    assert json.loads(scored.stdout)["judge"] == "offline"


def test_without_a_file_the_defaults_hold_and_nothing_is_recorded(project: Path) -> None:
    result = runner.invoke(app, ["run", "ds", "--backend", "replay:replay.jsonl", "--run-id", "plain"])
    assert result.exit_code == 0, result.output
    options = _manifest(project / "runs" / "plain")["options"]
    assert options["concurrency"] == 8 and "config_file" not in options


@pytest.mark.parametrize(("text", "line", "words"), [
    ("[run]\nlimit = 2\nconcurency = 4\n", 3, ["run.concurency", "unknown key in [run]", "did you mean concurrency?"]),
    ("[run]\ntimeout = \"60\"\n", 2, ["run.timeout", "must be a number", '"60"']),
    ("[score]\njudge = \"offlne\"\n", 2, ["score.judge", "must be one of offline, llm or none"]),
    ("dataset = \"ds\"\n\n[scroe]\njudge = \"none\"\n", 3, ["scroe", "unknown key at the top level",
                                                            "did you mean score?"]),
    ("[run]\nconcurrency = 0\n", 2, ["run.concurrency", "greater than or equal to 1"]),
    ("run = 3\n", 1, ["run", "must be a table"]),
])
def test_a_typo_or_a_wrong_type_is_exit_2_naming_file_line_and_key(
    project: Path, text: str, line: int, words: list[str]
) -> None:
    _write(project / "citeval.toml", text)
    for args in (["run", "ds"], ["gate", "nowhere"], ["schema"]):  # every command reads the file
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert f"error: citeval.toml:{line}: " in result.stderr, result.stderr
        for word in words:
            assert word in result.stderr, (word, result.stderr)
    assert not (project / "runs").exists()


def test_every_problem_of_the_file_is_one_line(project: Path) -> None:
    _write(project / "citeval.toml", "[run]\nconcurency = 4\nretries = -1\n[eval]\nworkers = 2\n")
    result = runner.invoke(app, ["eval"])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert [line.split(": ")[2] for line in lines] == ["run.concurency", "run.retries", "eval.workers"]
    assert all(line.startswith("error: citeval.toml:") for line in lines)


def test_config_names_another_file_and_its_paths_are_read_from_its_folder(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "ci").mkdir()
    _write(project / "ci" / "settings.toml", 'dataset = "../ds"\n[run]\nbackend = "replay:replay.jsonl"\nout = "runs"\n')
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    result = runner.invoke(app, ["--config", "../ci/settings.toml", "run", "--backend",
                                 f"replay:{project / 'replay.jsonl'}", "--run-id", "x"])
    assert result.exit_code == 0, result.output
    assert (project / "ci" / "runs" / "x" / "answers.jsonl").is_file()
    missing = runner.invoke(app, ["--config", "nope.toml", "schema"])
    assert missing.exit_code == 2 and "nope.toml: settings file not found" in missing.stderr
    monkeypatch.setenv("CITEVAL_CONFIG", "../ci/settings.toml")
    by_env = runner.invoke(app, ["run", "--backend", f"replay:{project / 'replay.jsonl'}", "--run-id", "y"])
    assert by_env.exit_code == 0, by_env.output
    assert (project / "ci" / "runs" / "y").is_dir()


def test_resume_keeps_the_runs_own_backend_over_the_files(project: Path) -> None:
    first = runner.invoke(app, ["run", "ds", "--backend", "replay:replay.jsonl", "--run-id", "r"])
    assert first.exit_code == 0, first.output
    _write(project / "citeval.toml", '[run]\nbackend = "http:http://127.0.0.1:9/never"\n')
    again = runner.invoke(app, ["run", "--resume", "runs/r"])
    assert again.exit_code == 0, again.output
    assert _manifest(project / "runs" / "r")["backend"] == "replay:replay.jsonl"


def test_the_settings_schema_is_generated_from_the_model() -> None:
    result = runner.invoke(app, ["schema", "config"])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    assert schema["additionalProperties"] is False
    assert {"dataset", "gates", "run", "score", "gate", "report", "probe", "eval"} == set(schema["properties"])
