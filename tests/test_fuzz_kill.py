"""Kill windows: a process killed (os._exit, like kill -9) at each write point leaves the old state
or the new one, never a mix — and `gate` never passes on a mix.

CITEVAL_TEST_CRASH_AT=<point>[@N] makes citeval die at that point (evals/store/atomic.py): every
atomic write passes "write:<file name>" just before its rename; the run folder, the answers
writer and the score set have named points of their own.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from factories import INGEST_MANIFEST, write_dataset, write_replay
from typer.testing import CliRunner

from cli import app
from evals.store.atomic import CRASH_ENV, CRASH_MODE_ENV, SimulatedCrash, reset_crash_points

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, str(ROOT / "cli.py")]
KILLED = 137

# the old scoring sees edition train-v1 revoked (a finding the gate refuses); the new one does not
GATES = '[overall]\n"findings.VERSION_REVOKED" = { max = 0 }\n'


def cli(*args: str, crash: str | None = None, cwd: Path) -> subprocess.CompletedProcess[str]:
    """citeval in a child process; with crash, it is killed (os._exit) at that point."""
    env = {**os.environ, "CI": "true"}
    env.pop(CRASH_ENV, None)
    env.pop(CRASH_MODE_ENV, None)
    if crash:
        env[CRASH_ENV] = crash
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str
    crashed: bool


def inproc(*args: str, crash: str | None = None, monkeypatch: pytest.MonkeyPatch) -> Done:
    """citeval in this process (fast); with crash, it stops dead at that point (SimulatedCrash)."""
    reset_crash_points()
    if crash:
        monkeypatch.setenv(CRASH_ENV, crash)
        monkeypatch.setenv(CRASH_MODE_ENV, "raise")
    else:
        monkeypatch.delenv(CRASH_ENV, raising=False)
    try:
        result = CliRunner().invoke(app, list(args))
    except SimulatedCrash:  # CliRunner passes on what is not an Exception
        return Done(KILLED, "", "", True)
    finally:
        monkeypatch.delenv(CRASH_ENV, raising=False)
        monkeypatch.delenv(CRASH_MODE_ENV, raising=False)
    return Done(result.exit_code, result.stdout, result.stderr, False)


def sha(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None



def _set_revoked(ds: Path, revoked: bool) -> None:
    path = ds / "registry" / "versions.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["version_id"] == "train-v1":
            if revoked:
                row["revoked_at"] = "2024-03-01"
            else:
                row.pop("revoked_at", None)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


SCORED = ("findings.jsonl", "per_question.jsonl", "scores.json")
SCORE_POINTS = [
    "score:marker-writing", "write:score.complete@1", "write:judgments.jsonl", "write:findings.jsonl",
    "write:per_question.jsonl", "write:scores.json", "score:before-complete", "write:score.complete@2",
    "score:marker-complete",
]


@pytest.fixture(scope="module")
def scored_old(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from evals.gate.core import run_gate
    from evals.run.runner import start_run
    from evals.score.scoring import score_run

    root = tmp_path_factory.mktemp("kill")
    ds = write_dataset(root / "ds")
    _set_revoked(ds, True)
    replay = write_replay(root / "replay.jsonl")
    run = start_run(ds, f"replay:{replay}", out=root / "runs", run_id="r").run_dir
    score_run(run, judge="offline")
    (root / "gates.toml").write_text(GATES, encoding="utf-8")
    assert run_gate(run, root / "gates.toml").exit_code == 1  # the old state fails its gate
    return root


def _copy(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    # the manifest names the dataset by absolute path: point it at the copy
    manifest = dst / "runs" / "r" / "manifest.json"
    doc = json.loads(manifest.read_text(encoding="utf-8"))
    doc["dataset"]["path"] = str(dst / "ds")
    manifest.write_text(json.dumps(doc, ensure_ascii=False, indent=2), encoding="utf-8")
    return dst


def _check_score_kill(w: Path, old: dict[str, str | None], gate: Done) -> None:
    run = w / "runs" / "r"
    now = {name: sha(run / name) for name in SCORED}
    if gate.returncode == 0:
        assert all(now[n] != old[n] for n in SCORED), "gate passed while some scored files are old"
    elif gate.returncode == 1:
        assert now == old, "gate judged a mix of old and new files"
    else:
        assert gate.returncode == 2, gate.stdout + gate.stderr
        assert "score the run again" in gate.stderr and "Traceback" not in gate.stderr


@pytest.mark.parametrize("point", SCORE_POINTS)
def test_a_killed_score_leaves_old_or_new_and_gate_never_passes_a_mix(
    point: str, scored_old: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    w = _copy(scored_old, tmp_path / "w")
    run = w / "runs" / "r"
    old = {name: sha(run / name) for name in SCORED}
    _set_revoked(w / "ds", False)  # the new scoring: no revoked edition, the gate would pass
    killed = inproc("score", str(run), "--judge", "offline", crash=point, monkeypatch=monkeypatch)
    assert killed.crashed, f"point {point} never reached: {killed.stderr[-500:]}"
    gates = str(w / "gates.toml")
    _check_score_kill(w, old, inproc("gate", str(run), "--gates", gates, monkeypatch=monkeypatch))
    # and scoring again always mends it
    assert inproc("score", str(run), "--judge", "offline", monkeypatch=monkeypatch).returncode == 0
    assert inproc("gate", str(run), "--gates", gates, monkeypatch=monkeypatch).returncode == 0


def test_a_score_killed_for_real_is_refused_by_gate(scored_old: Path, tmp_path: Path) -> None:
    point = "write:findings.jsonl"
    w = _copy(scored_old, tmp_path / "w")
    run = w / "runs" / "r"
    old = {name: sha(run / name) for name in SCORED}
    _set_revoked(w / "ds", False)
    killed = cli("score", str(run), "--judge", "offline", crash=point, cwd=w)
    assert killed.returncode == KILLED, killed.stderr[-500:]
    gated = cli("gate", str(run), "--gates", str(w / "gates.toml"), cwd=w)
    _check_score_kill(w, old, Done(gated.returncode, gated.stdout, gated.stderr, False))
    assert gated.returncode == 2  # the point falls inside the set's window


def test_report_and_agree_refuse_an_interrupted_score(scored_old: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    w = _copy(scored_old, tmp_path / "w")
    run = w / "runs" / "r"
    crashed = inproc("score", str(run), "--judge", "none", crash="write:per_question.jsonl", monkeypatch=monkeypatch)
    assert crashed.crashed
    for args in (["report", str(run), "--out", str(w / "r.html")], ["agree", str(run)]):
        refused = inproc(*args, monkeypatch=monkeypatch)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "score.complete" in refused.stderr and "Traceback" not in refused.stderr
    assert not (w / "r.html").exists()


def test_gate_refuses_answers_changed_after_scoring(scored_old: Path, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    w = _copy(scored_old, tmp_path / "w")
    run = w / "runs" / "r"
    with open(run / "answers.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"question_id": "q2", "status": "error", "error": {"type": "x", "message": "y"}}) + "\n")
    refused = inproc("gate", str(run), "--gates", str(w / "gates.toml"), monkeypatch=monkeypatch)
    assert refused.returncode == 2 and "answers changed after it was scored" in refused.stderr


# --- run: the folder, its manifest, the answers -------------------------------------------

RUN_POINTS = ["write:manifest.json@1", "run:folder-staged", "write:manifest.json@2", "run:answers@1",
              "write:manifest.json@3"]


@pytest.mark.parametrize("point", RUN_POINTS)
def test_a_killed_run_resumes_or_starts_again(point: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    args = ["run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"), "--run-id", "r",
            "--concurrency", "1"]
    killed = inproc(*args, crash=point, monkeypatch=monkeypatch)
    assert killed.crashed, f"point {point} never reached: {killed.stderr[-500:]}"
    _check_run_kill(tmp_path, args, lambda *a: inproc(*a, monkeypatch=monkeypatch))


def _check_run_kill(tmp_path: Path, args: list[str], again: Any) -> None:
    run = tmp_path / "runs" / "r"
    if run.exists():
        manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))  # never a folder without one
        assert manifest["run_id"] == "r"
        done = again("run", "--resume", str(run))
    else:
        done = again(*args)  # no half-made folder blocks the same id
    assert done.returncode == 0, done.stderr
    lines = (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    assert sorted(json.loads(line)["question_id"] for line in lines) == ["q1", "q2", "q3"]
    assert json.loads((run / "manifest.json").read_text(encoding="utf-8"))["options"]["status"] == "finished"
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["r"]  # no staging leftovers


def test_a_run_killed_for_real_resumes(tmp_path: Path) -> None:
    point = "run:answers"
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    args = ["run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
            "--run-id", "r", "--concurrency", "1"]
    assert cli(*args, crash=point, cwd=tmp_path).returncode == KILLED
    _check_run_kill(tmp_path, args, lambda *a: cli(*a, cwd=tmp_path))


# --- ingest: the registry is swapped whole ----------------------------------------------------



def test_a_killed_ingest_keeps_the_old_registry_and_leaves_no_staging(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    (src / "doc").mkdir(parents=True)
    (src / "doc" / "v1.md").write_text("# Положение\n\n1. Первый пункт.\n", encoding="utf-8")
    (src / "manifest.toml").write_text(INGEST_MANIFEST, encoding="utf-8")
    out = tmp_path / "ds" / "registry"
    assert inproc("data", "ingest", str(src), "--out", str(out), monkeypatch=monkeypatch).returncode == 0
    old = {p.name: sha(p) for p in out.rglob("*") if p.is_file()}
    (src / "doc" / "v1.md").write_text("# Положение\n\n1. Первый пункт.\n\n2. Второй пункт.\n", encoding="utf-8")
    assert cli("data", "ingest", str(src), "--out", str(out), crash="ingest:staged", cwd=tmp_path).returncode == KILLED
    assert {p.name: sha(p) for p in out.rglob("*") if p.is_file()} == old  # the old registry, whole
    assert inproc("data", "ingest", str(src), "--out", str(out), monkeypatch=monkeypatch).returncode == 0
    assert "Второй пункт" in (out / "chunks.jsonl").read_text(encoding="utf-8")
    assert sorted(p.name for p in out.parent.iterdir()) == ["registry"]  # the killed run's staging is gone
