"""A non-editable install carries everything a command needs: `pip install .` into a fresh venv,
then `citeval label push RUN --to-file` from another directory finds the Label Studio config
inside the installed package (not in the source tree). It holds whether the suite runs from a
venv or not, with PYTHONPATH set or not, with or without the `wheel` package."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import venv
from importlib import metadata
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


def _child_env() -> dict[str, str]:
    """The environment for the installed copy: no PYTHONPATH (it would put a source tree — this one
    when the suite runs with PYTHONPATH=$PWD — ahead of what was installed)."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}


def _dependency_paths() -> list[str]:
    """Where this interpreter finds the dependencies: its site-packages folders, whether it is a
    venv or not (a venv's "system site packages" are its base interpreter's, which may lack them),
    never a source tree of citeval."""
    paths = [*site.getsitepackages(), site.getusersitepackages(), *sys.path]
    kept: list[str] = []
    for entry in paths:
        if not entry or entry in kept or not Path(entry).is_dir() or Path(entry).name not in SITE_DIRS:
            continue
        kept.append(entry)
    return kept


SITE_DIRS = ("site-packages", "dist-packages")


def _offline_build_works() -> bool:
    """Whether this environment can build the wheel without an index: setuptools ≥ 68 (the build
    system's requirement), and the `wheel` package where setuptools < 70.1 lacks bdist_wheel."""
    try:
        setuptools = tuple(int(p) for p in metadata.version("setuptools").split(".")[:2])
    except (metadata.PackageNotFoundError, ValueError):
        return False
    if setuptools < (68, 0):
        return False
    try:
        metadata.version("wheel")
    except metadata.PackageNotFoundError:
        return setuptools >= (70, 1)
    return True


def _make_venv(env_dir: Path) -> Path:
    """A venv that sees this interpreter's dependencies as plain paths (a .pth of folders: their
    own .pth files, such as an editable install of citeval, are not run), so installing citeval
    with --no-deps needs no index, and the installed copy comes first."""
    venv.create(env_dir, system_site_packages=False, with_pip=False)
    python = env_dir / "bin" / "python"
    own = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                         capture_output=True, text=True, timeout=60, check=True, env=_child_env())
    Path(own.stdout.strip(), "_citeval_test_dependencies.pth").write_text(
        "".join(f"{p}\n" for p in _dependency_paths()), encoding="utf-8")
    return python


def test_wheel_install_pushes_labels_from_another_directory(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    python = _make_venv(env_dir)
    source = _source_copy(tmp_path / "src")
    offline = ["--no-build-isolation", "--no-index"] if _offline_build_works() else []  # else: setuptools from the index
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", *offline, "-q", str(source)],
        capture_output=True, text=True, timeout=600, check=False, env=_child_env(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    shutil.rmtree(source)  # nothing may still point into the copy the wheel was built from

    run = start_run(DEMO, "reference", out=tmp_path / "runs", run_id="r", options=RunOptions(limit=3)).run_dir
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import evals.label.config as c; print(c.config_path('ru'))"],
        cwd=elsewhere, capture_output=True, text=True, timeout=120, check=False, env=_child_env(),
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(env_dir), where.stdout  # the installed copy, not the repo
    pushed = subprocess.run(
        [str(env_dir / "bin" / "citeval"), "label", "push", str(run), "--to-file", "t.json"],
        cwd=elsewhere, capture_output=True, text=True, timeout=120, check=False, env=_child_env(),
    )
    assert pushed.returncode == 0, pushed.stdout + pushed.stderr
    tasks = json.loads((elsewhere / "t.json").read_text(encoding="utf-8"))
    demo_questions = [json.loads(line) for line in (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    answered = [json.loads(line) for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    expected = [q["question"] for q in demo_questions[:3]
                if any(a["question_id"] == q["question_id"] and a["status"] != "error" for a in answered)]
    assert [t["data"]["question"] for t in tasks] == expected
