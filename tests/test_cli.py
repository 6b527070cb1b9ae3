"""The command line's contract (DESIGN 7): `--version`, `schema NAME`, `--format json` on every
command that reports, the exit codes (4 for a bug, a closed stdout is no bug), the judge
choices, and the settings that change a result (--prices, --refusal-patterns) recorded in the
run manifest whichever way they came."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import jsonschema
import pytest
import typer
from factories import INGEST_MANIFEST, write_dataset, write_jsonl, write_replay
from test_anthropic_replay import DOCS, build, char_cite, message, text
from typer.testing import CliRunner

from citeval_cli.common import handles_errors
from cli import app
from evals.contract.schema import schema_names
from evals.run.runner import start_run
from evals.score.scoring import score_run

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "datasets" / "demo"
runner = CliRunner()


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- --version and the help ---------------------------------------------------------------------


def test_version_needs_no_command_and_nothing_at_all_still_shows_the_help() -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    shown = runner.invoke(app, ["--version"])
    assert (shown.exit_code, shown.stdout) == (0, f"citeval {version}\n")
    bare = runner.invoke(app, [])
    assert bare.exit_code == 2 and "Usage:" in bare.output and "schema" in bare.output


# --- citeval schema NAME ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scored_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scored")
    ds = write_dataset(root / "ds")
    run = start_run(ds, f"replay:{write_replay(root / 'replay.jsonl')}", out=root / "runs", run_id="r").run_dir
    score_run(run, judge="offline")
    return run


def _schema(name: str) -> dict:
    result = runner.invoke(app, ["schema", name])
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return schema


def _valid(schema: dict, instance: object) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(instance)


def test_schema_lists_its_names_and_refuses_an_unknown_one() -> None:
    listed = runner.invoke(app, ["schema"])
    assert listed.exit_code == 0
    names = listed.stdout.split()
    assert {"answer", "question", "document", "version", "chunk", "judgment", "finding", "manifest", "scores",
            "quotes", "gates"} <= set(names)
    unknown = runner.invoke(app, ["schema", "answers"])
    assert unknown.exit_code == 2 and "unknown schema 'answers'" in unknown.stderr
    assert all(name in unknown.stderr for name in names)


def test_every_schema_accepts_the_real_files_and_refuses_a_broken_record(scored_run: Path) -> None:
    files = {
        "answer": _lines(scored_run / "answers.jsonl"),
        "question": _lines(DEMO / "questions.jsonl")[:20],
        "document": _lines(DEMO / "registry" / "documents.jsonl"),
        "version": _lines(DEMO / "registry" / "versions.jsonl"),
        "chunk": _lines(DEMO / "registry" / "chunks.jsonl")[:50],
        "judgment": _lines(scored_run / "judgments.jsonl"),
        "finding": _lines(scored_run / "findings.jsonl"),
        "manifest": [json.loads((scored_run / "manifest.json").read_text(encoding="utf-8"))],
        "scores": [json.loads((scored_run / "scores.json").read_text(encoding="utf-8"))],
        "quotes": [line for path in sorted((DEMO / "quotes").glob("*.jsonl")) for line in _lines(path)][:20],
        "gates": [tomllib.loads((ROOT / "gates" / "default.toml").read_text(encoding="utf-8"))],
        "config": [tomllib.loads((ROOT / "examples" / "citeval.toml").read_text(encoding="utf-8"))],
        "agreement": [_json(["agree", str(scored_run)])],
        "adjudication": _lines(ROOT / "examples" / "adjudication.jsonl"),
        "quotes-eval": [_json(["quotes", "eval", str(DEMO), "--matcher", "block,rapidfuzz"])],
        "probe": [_json(["probe", str(DEMO), "--kinds", "revoked_edition,phantom_marker", "--limit", "2",
                         "--out", str(scored_run.parent / "probe-runs")])],
    }
    assert set(files) == set(schema_names())  # every contract is checked against a real file
    for name, instances in files.items():
        schema = _schema(name)
        assert instances, name
        for instance in instances:
            errors = list(jsonschema.Draft202012Validator(schema).iter_errors(instance))
            assert errors == [], (name, errors[:1])
    # what the models refuse, the schemas refuse
    answer = _schema("answer")
    assert not _valid(answer, {k: v for k, v in files["answer"][0].items() if k != "question_id"})
    assert not _valid(answer, {**files["answer"][0], "status": "maybe"})
    gates = _schema("gates")
    assert not _valid(gates, {"overall": {"citation_validity": {"min": "0.9"}}})  # strict: a string is no number
    assert not _valid(gates, {"overall": {"citation_validity": {"minimum": 0.9}}})  # an unknown option
    assert not _valid(gates, {"tier": {"urgent": {"citation_validity": {"min": 0.9}}}})  # not a risk tier
    assert _valid(gates, {"probe": {"decorative_rate": {"max": 0.2}}})
    config = _schema("config")
    assert not _valid(config, {"run": {"concurency": 4}})  # a typo is refused, never ignored
    assert not _valid(config, {"run": {"timeout": "60"}})  # strict: a string is no number


def test_the_gates_schema_knows_every_risk_tier_of_the_contract() -> None:
    from evals.contract.models import RISK_TIERS

    tiers = _schema("gates")["properties"]["tier"]["propertyNames"]["enum"]
    assert tuple(tiers) == RISK_TIERS


# --- --format json: one document on stdout, the text unchanged ---------------------------------


def _json(args: list[str], code: int = 0) -> dict:
    result = runner.invoke(app, [*args, "--format", "json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)  # the whole of stdout is one JSON document


def test_run_and_eval_report_as_json_and_as_their_text(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    plain = runner.invoke(app, ["run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
                                "--run-id", "text"])
    assert plain.exit_code == 0, plain.output
    # q1 answered, q2 and q3 abstained (the replay file of tests/factories.py)
    assert plain.stdout == f"{tmp_path / 'runs' / 'text'}: 3 question(s): 1 answered, 2 abstained, 0 error(s)\n"
    doc = _json(["run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
                 "--run-id", "j"])
    run_dir = tmp_path / "runs" / "j"
    assert (doc["run_dir"], doc["run_id"], doc["answered"], doc["errors"], doc["total"]) == (str(run_dir), "j", 3, 0, 3)
    assert doc["statuses"] == {"answered": 1, "abstained": 2, "error": 0}
    assert doc["manifest"] == json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    report = tmp_path / "r.html"
    # the shipped gates fail this run (it abstains once where it should not): the gate's exit code, 1
    evaluated = _json(["eval", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
                       "--run-id", "e", "--report-out", str(report)], code=1)
    scores = json.loads((tmp_path / "runs" / "e" / "scores.json").read_text(encoding="utf-8"))
    assert evaluated["run"]["answered"] == 3 and evaluated["report"] == str(report) and report.is_file()
    assert evaluated["scores"]["metrics"] == scores["metrics"]
    assert (evaluated["gate"]["passed"], evaluated["exit_code"]) == (False, 1)


def test_report_bundle_and_init_report_as_json(scored_run: Path, tmp_path: Path) -> None:
    html = tmp_path / "r.html"
    text_mode = runner.invoke(app, ["report", str(scored_run), "--out", str(html)])
    assert text_mode.exit_code == 0, text_mode.output
    passed = runner.invoke(app, ["gate", str(scored_run)]).exit_code == 0
    verdict = "every run passes the gate" if passed else "gate failed for r"
    assert text_mode.stdout == f"{html}: 1 run(s), 0 comparison(s); {verdict}\n"
    doc = _json(["report", str(scored_run), "--out", str(html)])
    assert (doc["path"], doc["runs"], doc["comparisons"], doc["gates"]) == (str(html), ["r"], [], {"r": passed})

    bundle = _json(["bundle", str(scored_run), "--out", str(tmp_path / "b.tar.gz")])
    with tarfile.open(tmp_path / "b.tar.gz") as tar:
        members = {m.name for m in tar.getmembers()}
    assert bundle["run_id"] == "r" and set(bundle["files"]) <= members and "scores.json" in bundle["files"]

    init = _json(["init", str(tmp_path / "new")])
    written = sorted(str(p.relative_to(tmp_path / "new")) for p in (tmp_path / "new").rglob("*") if p.is_file())
    assert init["folder"] == str(tmp_path / "new") and sorted(init["files"]) == written


def test_ingest_label_push_and_import_report_as_json(scored_run: Path, tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "doc").mkdir(parents=True)
    (src / "manifest.toml").write_text(INGEST_MANIFEST, encoding="utf-8")
    (src / "doc" / "v1.md").write_text("# Положение\n\n1. Первый пункт.\n\n2. Второй пункт.\n", encoding="utf-8")
    out = tmp_path / "ds" / "registry"
    ingested = _json(["data", "ingest", str(src), "--out", str(out)])
    assert (ingested["documents"], ingested["editions"]) == (1, 1)
    assert ingested["chunks"] == len(_lines(out / "chunks.jsonl")) > 0

    tasks_file = tmp_path / "tasks.json"
    pushed = _json(["label", "push", str(scored_run), "--to-file", str(tasks_file)])
    assert pushed == {"file": str(tasks_file), "tasks": len(json.loads(tasks_file.read_text(encoding="utf-8")))}

    ds = build(tmp_path / "reg")
    logs = tmp_path / "logs.jsonl"
    write_jsonl(logs, [{"question_id": "q1", "documents": DOCS, **message(text("Раз в 12 месяцев.", char_cite(1)))},
                       {"question_id": "q99", "documents": DOCS, **message(text("?"))}])
    replay = tmp_path / "replay.jsonl"
    as_text = runner.invoke(app, ["data", "import", "anthropic", str(logs), "--dataset", str(ds), "--out", str(replay)])
    assert as_text.exit_code == 0, as_text.output
    assert as_text.stdout == (f"{replay}: 1 answer(s) (1 matched by id, 0 by question text; 1 lossless, "
                              "0 matcher-attached); 1 line(s) not imported\n")
    assert as_text.stderr == f"{logs}:2: not imported: question_id 'q99' is not in the dataset\n"
    imported = _json(["data", "import", "anthropic", str(logs), "--dataset", str(ds), "--out", str(replay)])
    assert imported["written"] == len(_lines(replay)) == 1 and len(imported["unmatched"]) == 1


# --- exit codes ---------------------------------------------------------------------------------


def test_a_bug_is_exit_4_with_one_line_naming_its_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CITEVAL_LOG_DIR", str(tmp_path))
    buggy = typer.Typer()

    @buggy.command()
    @handles_errors
    def crash() -> None:
        {}["missing"]  # noqa: B018 - the bug

    @buggy.command()
    @handles_errors
    def other() -> None:
        pass

    result = runner.invoke(buggy, ["crash"])
    assert result.exit_code == 4
    [line] = result.stderr.splitlines()
    assert line.startswith("error: unexpected KeyError: 'missing' (a bug in citeval; traceback in ")
    [log] = tmp_path.glob("citeval-error-*.log")
    assert str(log) in line and "Traceback" in log.read_text(encoding="utf-8") and "Traceback" not in result.output


def _with_closed_stdout(*args: str) -> tuple[int, str]:
    """Run the CLI with nobody reading its stdout (as under `| head` once head has exited)."""
    proc = subprocess.Popen([sys.executable, str(ROOT / "cli.py"), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command has written anything: its first write meets a closed pipe
    err = proc.stderr.read().decode("utf-8")
    return proc.wait(timeout=120), err


def test_a_closed_stdout_is_no_bug_and_keeps_the_commands_own_exit_code(scored_run: Path, tmp_path: Path) -> None:
    assert _with_closed_stdout("schema", "scores") == (0, "")
    strict = tmp_path / "strict.toml"
    strict.write_text("[overall]\ncitation_validity = { min = 1.01 }\n", encoding="utf-8")  # never met
    code, err = _with_closed_stdout("gate", str(scored_run), "--gates", str(strict))
    assert (code, err) == (2, f"error: {strict}:2: overall.citation_validity: min 1.01 can never be met: "
                               "citation_validity lies in 0..1 (write 0.0101 for 1.01 %)\n")
    failing = tmp_path / "failing.toml"
    # the run abstains once where it should not: abstention precision 1/2
    failing.write_text("[overall]\nabstention_precision = { min = 0.9 }\n", encoding="utf-8")
    assert _with_closed_stdout("gate", str(scored_run), "--gates", str(failing)) == (1, "")


# --- choices ------------------------------------------------------------------------------------


def _unboxed(output: str) -> str:
    """The words of typer's boxed error message, on one line."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", output).split())


def test_judge_is_a_choice_and_backend_help_lists_the_spec_forms() -> None:
    wrong = runner.invoke(app, ["score", "runs/x", "--judge", "oracle"])
    assert wrong.exit_code == 2 and "'oracle' is not one of 'offline', 'llm', 'cascade', 'none'" in _unboxed(
        wrong.output)
    pairs_wrong = runner.invoke(app, ["judge", "pairs.jsonl", "--judge", "none"])
    assert pairs_wrong.exit_code == 2 and "'none' is not one of 'offline', 'llm', 'cascade'." in _unboxed(
        pairs_wrong.output)
    help_text = _unboxed(runner.invoke(app, ["run", "--help"]).output)
    for form in ("reference", "replay:PATH", "http:URL", "python:module:function", "faults:KIND[,KIND]:SPEC"):
        assert form in help_text, form


# --- settings that change a result --------------------------------------------------------------


PRICES = {"claude-sonnet-4-5": {"input": 1, "output": 2, "cache_write": 3, "cache_read": 4}}
DECLINE = "Вопрос вне моей компетенции."


@pytest.fixture
def replay_world(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    """A dataset, an Anthropic replay (q1 cited; q2 an uncited text no shipped pattern reads as a
    refusal), a price table and a refusal patterns file."""
    ds = build(tmp_path / "ds")
    replay = tmp_path / "replay.jsonl"
    write_jsonl(replay, [{"question_id": "q1", "documents": DOCS, **message(text("Раз в 12 месяцев.", char_cite(1)))},
                         {"question_id": "q2", "documents": DOCS, **message(text(DECLINE))}])
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES), encoding="utf-8")
    patterns = tmp_path / "refusals.txt"
    patterns.write_text("# the team's own wording\nвне моей компетенции\n", encoding="utf-8")
    return ds, replay, prices, patterns


def _replayed(run_dir: Path) -> tuple[float, str, dict]:
    answers = {a["question_id"]: a for a in _lines(run_dir / "answers.jsonl")}
    options = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["options"]
    return answers["q1"]["usage"]["cost_usd"], answers["q2"]["status"], options


def test_prices_and_refusal_patterns_are_options_recorded_in_the_manifest(
    replay_world: tuple[Path, Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ds, replay, prices, patterns = replay_world
    monkeypatch.delenv("CITEVAL_PRICES", raising=False)
    monkeypatch.delenv("CITEVAL_REFUSAL_PATTERNS", raising=False)
    runs = tmp_path / "runs"
    base = ["run", str(ds), "--backend", f"replay:{replay}", "--out", str(runs), "--run-id"]
    assert runner.invoke(app, [*base, "shipped"]).exit_code == 0
    cost, status, options = _replayed(runs / "shipped")
    # the shipped table: claude-sonnet-4-5 at $3 in, $15 out per million; 1200 in, 80 out
    assert (cost, status) == ((1200 * 3 + 80 * 15) / 1e6, "answered")
    assert set(options) == {"concurrency", "timeout", "retries", "python", "questions", "status"}  # as before

    flagged = runner.invoke(app, [*base, "flags", "--prices", str(prices), "--refusal-patterns", str(patterns)])
    assert flagged.exit_code == 0, flagged.output
    cost, status, options = _replayed(runs / "flags")
    assert (cost, status) == ((1200 * 1 + 80 * 2) / 1e6, "abstained")
    assert (options["prices"], options["refusal_patterns"]) == (str(prices.resolve()), str(patterns.resolve()))

    monkeypatch.setenv("CITEVAL_PRICES", str(prices))
    monkeypatch.setenv("CITEVAL_REFUSAL_PATTERNS", str(patterns))
    assert runner.invoke(app, [*base, "env"]).exit_code == 0
    assert _replayed(runs / "env") == _replayed(runs / "flags")
    # the library reads the same environment, and records it the same way
    library = start_run(ds, f"replay:{replay}", out=runs, run_id="library").run_dir
    assert _replayed(library) == _replayed(runs / "flags")


def test_a_resume_keeps_the_runs_own_settings(
    replay_world: tuple[Path, Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ds, replay, prices, patterns = replay_world
    monkeypatch.delenv("CITEVAL_REFUSAL_PATTERNS", raising=False)
    monkeypatch.setenv("CITEVAL_PRICES", str(prices))
    runs = tmp_path / "runs"
    made = runner.invoke(app, ["run", str(ds), "--backend", f"replay:{replay}", "--out", str(runs), "--run-id", "r"])
    assert made.exit_code == 0, made.output
    run_dir = runs / "r"
    answers = run_dir / "answers.jsonl"
    kept = [line for line in answers.read_text(encoding="utf-8").splitlines(keepends=True) if '"q1"' not in line]
    answers.write_text("".join(kept), encoding="utf-8")  # q1 is asked again on resume

    other = tmp_path / "other.json"
    other.write_text(json.dumps({"claude-sonnet-4-5": {"input": 100, "output": 100}}), encoding="utf-8")
    refused = runner.invoke(app, ["run", "--resume", str(run_dir), "--prices", str(other)])
    assert refused.exit_code == 2 and f"made with prices {prices.resolve()}, not {other.resolve()}" in refused.stderr
    assert runner.invoke(app, ["run", "--resume", str(run_dir), "--refusal-patterns", str(patterns)]).exit_code == 2

    monkeypatch.delenv("CITEVAL_PRICES")  # not given again: the run's own table
    resumed = runner.invoke(app, ["run", "--resume", str(run_dir)])
    assert resumed.exit_code == 0, resumed.output
    assert _replayed(run_dir)[0] == (1200 * 1 + 80 * 2) / 1e6
