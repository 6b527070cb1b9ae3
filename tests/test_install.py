"""A non-editable install carries everything a command needs: `pip install .` into a fresh venv,
then `citeval label push RUN --to-file` from another directory finds the Label Studio config
inside the installed package (not in the source tree)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from evals.run.runner import RunOptions, start_run

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "datasets" / "demo"

pytestmark = pytest.mark.slow


def _source_copy(dest: Path) -> Path:
    """The files a build reads, copied, so that the build writes nothing into the work tree."""
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "cli.py"):
        shutil.copy2(REPO / name, dest / name)
    for package in ("evals", "citeval_cli"):
        shutil.copytree(REPO / package, dest / package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return dest


def test_wheel_install_pushes_labels_from_another_directory(tmp_path: Path) -> None:
    # system site packages give the venv the dependencies offline; --no-deps installs only citeval
    env_dir = tmp_path / "venv"
    venv.create(env_dir, system_site_packages=True, with_pip=False)
    python = env_dir / "bin" / "python"
    source = _source_copy(tmp_path / "src")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.rmtree(source)  # nothing may still point into the copy the wheel was built from

    run = start_run(DEMO, "reference", out=tmp_path / "runs", run_id="r", options=RunOptions(limit=3)).run_dir
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import evals.label.config as c; print(c.config_path('ru'))"],
        cwd=elsewhere, capture_output=True, text=True, timeout=120, check=False,
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(env_dir), where.stdout  # the installed copy, not the repo
    pushed = subprocess.run(
        [str(env_dir / "bin" / "citeval"), "label", "push", str(run), "--to-file", "t.json"],
        cwd=elsewhere, capture_output=True, text=True, timeout=120, check=False,
    )
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    tasks = json.loads((elsewhere / "t.json").read_text(encoding="utf-8"))
    demo_questions = [json.loads(line) for line in (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    answered = [json.loads(line) for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    expected = [q["question"] for q in demo_questions[:3]
                if any(a["question_id"] == q["question_id"] and a["status"] != "error" for a in answered)]
    assert [t["data"]["question"] for t in tasks] == expected
