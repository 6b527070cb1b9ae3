"""The CI recipes in examples/ci run as written: their YAML is parsed and every shell step is run
in order, in a fresh folder, against the reference backend (no network).

What the hosted CI would do around the shell steps is done here by hand: the cached venv is a
`.venv/bin/citeval` that runs this checkout (stamped with the recipe's CITEVAL_PIP_SPEC, as the
install step stamps the venvs it builds), main's last run (the artifact the recipe downloads)
is a bundle placed at baseline/run.tar.gz, and the runner's own expressions (`${{ github.… }}`,
GitLab's `$CI_PIPELINE_ID` inside a variable) are expanded as the runner would. The recipes read
every placeholder from environment variables, so the test sets CITEVAL_BACKEND=reference and a
harmless backend start.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from cli import app

REPO = Path(__file__).resolve().parent.parent
RECIPES = REPO / "examples" / "ci"
pytestmark = pytest.mark.slow


DEMO = REPO / "datasets" / "demo"
EVAL_ARGS = "--limit 40 --judge none"  # the recipe's CITEVAL_EVAL_ARGS: a quick run


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    """A team's repository: a dataset (the demo's registry and questions, the gates file of
    `citeval init`), the cached venv, and main's last run as a bundle."""
    root = tmp_path_factory.mktemp("ci") / "repo"
    runner = CliRunner()
    assert runner.invoke(app, ["init", str(tmp_path_factory.mktemp("init") / "skeleton")]).exit_code == 0
    shutil.copytree(DEMO / "registry", root / "eval" / "registry")
    shutil.copy(DEMO / "questions.jsonl", root / "eval" / "questions.jsonl")
    skeleton = next(tmp_path_factory.getbasetemp().glob("init*/skeleton"))
    shutil.copy(skeleton / "gates.toml", root / "eval" / "gates.toml")
    venv = root / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "citeval").write_text(f'#!/bin/sh\nexec "{sys.executable}" "{REPO / "cli.py"}" "$@"\n', encoding="utf-8")
    (venv / "citeval").chmod(0o755)
    (venv.parent / ".citeval-spec").write_text(recipe_spec(), encoding="utf-8")
    main = tmp_path_factory.mktemp("main")
    result = runner.invoke(app, ["eval", str(root / "eval"), "--out", str(main), "--run-id", "main",
                                 "--gates", str(root / "eval" / "gates.toml"), "--report-out", str(main / "main.html"),
                                 *EVAL_ARGS.split()])
    assert result.exit_code == 0, result.output
    bundle = runner.invoke(app, ["bundle", str(main / "main"), "--out", str(root / "baseline" / "run.tar.gz")])
    assert bundle.exit_code == 0, bundle.output
    return root


def recipe_spec() -> str:
    doc = yaml.safe_load((RECIPES / "github-actions.yml").read_text(encoding="utf-8"))
    return doc["env"]["CITEVAL_PIP_SPEC"]


GITHUB_CONTEXT = {"github.run_id": "4242", "github.run_attempt": "1"}


def github_expressions(value: str, context: dict[str, str]) -> str:
    """`${{ github.run_id }}` and the like, as the runner expands them in `env`."""
    return re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda m: context[m.group(1)], value)


def workspace(template: Path, tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    shutil.copytree(template, ws, symlinks=True)
    return ws


def base_env(ws: Path, recipe_env: dict, **overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "CI_", "CITEVAL_"))}
    env.update({k: str(v) for k, v in recipe_env.items()})
    env.update({"CITEVAL_BACKEND": "reference", "CITEVAL_BACKEND_START": "sleep 60", "CI": "true",
                "CITEVAL_EVAL_ARGS": EVAL_ARGS, **overrides})
    return env


def sh(script: str, ws: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-e", "-c", script], cwd=ws, env=env, capture_output=True, text=True, timeout=180)


def run_github(ws: Path, context: dict[str, str] | None = None, **overrides: str) -> tuple[dict[str, int], dict[str, str]]:
    """Every `run:` step in order, in a fresh bash -e each, as the runner does; after a failure only
    `if: always()` steps run. $GITHUB_PATH lines join PATH for the later steps."""
    doc = yaml.safe_load((RECIPES / "github-actions.yml").read_text(encoding="utf-8"))
    (job,) = doc["jobs"].values()
    recipe_env = {k: github_expressions(str(v), context or GITHUB_CONTEXT)
                  for k, v in {**doc.get("env", {}), **job.get("env", {})}.items()}
    env = base_env(ws, recipe_env, **overrides)
    env["GITHUB_PATH"], env["GITHUB_STEP_SUMMARY"] = str(ws / ".github_path"), str(ws / ".step_summary.md")
    codes, logs, failed = {}, {}, False
    for step in job["steps"]:
        if "run" not in step or (failed and "always()" not in str(step.get("if", ""))):
            continue
        extra = Path(env["GITHUB_PATH"]).read_text().split() if Path(env["GITHUB_PATH"]).exists() else []
        step_env = {**env, **{k: str(v) for k, v in step.get("env", {}).items()},
                    "PATH": os.pathsep.join([*reversed(extra), env["PATH"]])}
        done = sh(step["run"], ws, step_env)
        codes[step["name"]], logs[step["name"]] = done.returncode, done.stdout + done.stderr
        failed = failed or done.returncode != 0
    return codes, logs


def backend_stopped(ws: Path, within_s: float = 10.0) -> bool:
    """The recipe's stop step signalled the backend: it is gone (or a zombie) within a few
    seconds — a process still shutting down the instant the step returns is not a failure."""
    pid = int((ws / "backend.pid").read_text())
    deadline = time.monotonic() + within_s
    while True:
        try:
            os.kill(pid, 0)
            status = Path(f"/proc/{pid}/status").read_text().lower()
        except (ProcessLookupError, FileNotFoundError):
            return True
        if "zombie" in status:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)


def baseline_cases(junit: Path) -> list[ET.Element]:
    root = ET.parse(junit).getroot()
    return [c for c in root.iter("testcase") if c.get("classname", "").startswith("citeval.gate.baseline")]


def test_github_actions_recipe_runs_and_gates_against_the_baseline(template, tmp_path):
    ws = workspace(template, tmp_path)
    codes, logs = run_github(ws)
    assert all(code == 0 for code in codes.values()), logs
    assert list(codes) == [
        "Install citeval (skipped when the cached venv has this one)", "Start the system under test",
        "Evaluate (run, score, absolute gate, HTML report)", "Gate against the baseline (JUnit, step summary)",
        "Bundle this run (on main it becomes the next baseline)", "Stop the system under test",
    ]
    assert (ws / "reports" / "ci-4242-1.html").is_file() and (ws / "run.tar.gz").is_file()
    cases = baseline_cases(ws / "junit.xml")
    assert cases and not any(c.find("failure") is not None for c in cases)
    # the first 40 demo questions hold fewer critical ones than min_shared: that rule says so
    skipped = [c.find("skipped").get("message") for c in cases if c.find("skipped") is not None]
    assert all(m.startswith("too few shared critical questions") for m in skipped)
    assert len(skipped) < len(cases)
    summary = (ws / ".step_summary.md").read_text(encoding="utf-8")
    assert "citeval gate passed" in summary and "40 shared question(s)" in summary
    assert backend_stopped(ws)


def test_github_actions_recipe_fails_the_job_on_a_regression(template, tmp_path):
    ws = workspace(template, tmp_path)
    codes, logs = run_github(ws, CITEVAL_BACKEND="faults:unknown_marker:reference")
    assert codes["Evaluate (run, score, absolute gate, HTML report)"] == 0  # 1 = gate failed: decided next
    assert codes["Gate against the baseline (JUnit, step summary)"] == 1, logs
    assert codes["Stop the system under test"] == 0 and "Bundle this run (on main it becomes the next baseline)" in codes
    failed = [c for c in baseline_cases(ws / "junit.xml") if c.find("failure") is not None]
    by_name = {c.get("name").split(" ")[0]: c.find("failure").text for c in failed}
    assert "citation_validity" in by_name and "significant (p = " in by_name["citation_validity"]
    assert "FAIL baseline.citation_validity" in logs["Gate against the baseline (JUnit, step summary)"]


def test_gitlab_recipe_runs_and_gates_against_the_baseline(template, tmp_path):
    doc = yaml.safe_load((RECIPES / "gitlab-ci.yml").read_text(encoding="utf-8"))
    job = doc["citeval"]
    assert job["artifacts"]["reports"]["junit"] == "junit.xml" and ".venv" in job["cache"]["paths"]
    ws = workspace(template, tmp_path)
    env = gitlab_env(ws, doc["variables"], pipeline_id="777")
    done = sh("\n".join(job["script"]), ws, env)
    assert done.returncode == 0, done.stdout + done.stderr
    after = sh("\n".join(job["after_script"]), ws, env)
    assert after.returncode == 0
    for name in job["artifacts"]["paths"]:
        assert (ws / name).exists(), name
    assert baseline_cases(ws / "junit.xml")
    assert "40 shared question(s)" in done.stdout  # the summary is printed to the job log
    assert backend_stopped(ws)


def gitlab_env(ws: Path, variables: dict, pipeline_id: str) -> dict[str, str]:
    """The job's environment: GitLab expands predefined variables inside `variables` values."""
    expanded = {k: str(v).replace("$CI_PIPELINE_ID", pipeline_id) for k, v in variables.items()}
    return {**base_env(ws, expanded), "CI_PIPELINE_ID": pipeline_id}


def test_gitlab_recipe_gives_each_pipeline_its_own_run(template, tmp_path):
    doc = yaml.safe_load((RECIPES / "gitlab-ci.yml").read_text(encoding="utf-8"))
    script = "\n".join(doc["citeval"]["script"])
    ws = workspace(template, tmp_path)
    for pipeline in ("801", "802"):  # a second pipeline in the same workspace
        done = sh(script, ws, gitlab_env(ws, doc["variables"], pipeline_id=pipeline))
        assert done.returncode == 0, done.stdout + done.stderr
        assert (ws / "runs" / f"ci-{pipeline}" / "scores.json").is_file()
    sh("\n".join(doc["citeval"]["after_script"]), ws, gitlab_env(ws, doc["variables"], pipeline_id="802"))


def test_github_recipe_reruns_in_the_same_workspace(template, tmp_path):
    ws = workspace(template, tmp_path)
    first, _ = run_github(ws)
    second, logs = run_github(ws, {"github.run_id": "4242", "github.run_attempt": "2"})
    assert all(code == 0 for code in [*first.values(), *second.values()]), logs
    assert (ws / "reports" / "ci-4242-1.html").is_file() and (ws / "reports" / "ci-4242-2.html").is_file()


@pytest.mark.parametrize("recipe", ["github", "gitlab"])
def test_recipes_refuse_to_install_citeval_by_a_bare_name(template, tmp_path, recipe):
    """A bare name would install whatever an index serves under it (dependency confusion)."""
    ws = workspace(template, tmp_path)
    if recipe == "github":
        codes, logs = run_github(ws, CITEVAL_PIP_SPEC="citeval")
        step = "Install citeval (skipped when the cached venv has this one)"
        assert codes[step] == 2 and "bare package name" in logs[step]
        assert "Evaluate (run, score, absolute gate, HTML report)" not in codes
    else:
        doc = yaml.safe_load((RECIPES / "gitlab-ci.yml").read_text(encoding="utf-8"))
        env = {**gitlab_env(ws, doc["variables"], pipeline_id="900"), "CITEVAL_PIP_SPEC": "citeval"}
        done = sh("\n".join(doc["citeval"]["script"]), ws, env)
        assert done.returncode == 2 and "bare package name" in done.stderr
        assert not (ws / "runs").exists()
    assert (ws / ".venv" / "bin" / "citeval").is_file()  # the cached venv was left as it was
