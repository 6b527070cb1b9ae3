"""One writer per run folder (issue 33): real processes racing for one run folder.

Every command that writes a run folder holds its lock (evals/store/lock.py); a second writer
refuses with exit 2 naming the holder, or waits with --wait. Readers read one scoring's files:
the score marker hashes the answers scored, a bundle carries it, report refuses "writing".
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from factories import scored_run, write_dataset, write_replay
from servers.answers import start_answer_service
from servers.http import Response
from servers.llm import start_fake_llm

from evals.label.tasks import TaskBuilder
from evals.store.lock import LOCK_FILE
from evals.store.runfolder import RunFolder

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, str(ROOT / "cli.py")]


def env() -> dict[str, str]:
    return {**os.environ, "CI": "true", "PYTHONPATH": str(ROOT), "OPENAI_API_KEY": "sk-test"}


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, env=env(), capture_output=True, text=True, timeout=timeout)


def start(*args: str, cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([*CLI, *args], cwd=cwd, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def wait_for_holder(run: Path, command: str, proc: subprocess.Popen[str], timeout: float = 60) -> dict:
    """The lock file's record once `command` holds the lock (the process is still at work)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        lock = run / LOCK_FILE
        if lock.is_file() and lock.read_text(encoding="utf-8").strip():
            doc = json.loads(lock.read_text(encoding="utf-8"))
            if doc["command"] == command:
                return doc
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    raise AssertionError(f"{command} never took the lock of {run}")


@pytest.fixture()
def scored(tmp_path: Path) -> Path:
    return scored_run(tmp_path, cli)


def _export(run: Path) -> Path:
    """A Label Studio export in which rater 7 labels q1's claim against its evidence."""
    tasks = {t["data"]["question_id"]: t for t in TaskBuilder(RunFolder(run)).tasks()}
    result = [{"from_name": "support_0_0", "to_name": "card_0_0", "type": "choices",
               "value": {"choices": ["unsupported"]}}]
    export = [{"id": 11, "data": tasks["q1"]["data"], "meta": tasks["q1"]["meta"], "annotations": [
        {"id": 101, "completed_by": 7, "was_cancelled": False, "updated_at": "2024-04-01T10:00:00Z", "task": 11,
         "result": result}]}]
    path = run.parent.parent / "export.json"
    path.write_text(json.dumps(export, ensure_ascii=False), encoding="utf-8")
    return path


def human_rows(run: Path) -> int:
    rows = [json.loads(line) for line in (run / "judgments.jsonl").read_text(encoding="utf-8").splitlines()]
    return sum(r["source"].startswith("human:") for r in rows)


def test_label_pull_during_score_refuses_or_waits_and_no_label_is_lost(scored: Path) -> None:
    run, cwd = scored, scored.parent.parent
    export = _export(run)
    llm = start_fake_llm("openai", slow_seconds=4.0)
    try:
        llm.fail_next("slow", 1)  # the first judge call takes 4 s: the score holds the folder meanwhile
        scoring = start("score", str(run), "--judge", "llm", "--llm-base-url", llm.base_url, "--llm-model", "m",
                        "--workers", "1", cwd=cwd)
        holder = wait_for_holder(run, "citeval score", scoring)
        refused = cli("label", "pull", str(run), "--from-file", str(export), "--rater", "7=a@bank.test", cwd=cwd)
        assert refused.returncode == 2, refused.stderr
        assert f"pid {holder['pid']}" in refused.stderr and "`citeval score`" in refused.stderr
        assert "--wait" in refused.stderr and "Traceback" not in refused.stderr
        waited = cli("label", "pull", str(run), "--from-file", str(export), "--rater", "7=a@bank.test",
                     "--wait", "60", cwd=cwd)
        assert scoring.wait(60) == 0, scoring.communicate()
    finally:
        llm.stop()
    assert waited.returncode == 0, waited.stderr
    assert "1 new" in waited.stdout
    assert human_rows(run) == 1  # appended after the score replaced judgments.jsonl, not under it
    assert cli("score", str(run), cwd=cwd).returncode == 0
    assert human_rows(run) == 1  # and a later score keeps it


def test_two_resumes_at_once_ask_each_question_once(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    service = start_answer_service({q: [Response(200, {"question_id": q, "status": "abstained"}, delay=1.5)]
                                    for q in ("q2", "q3")})
    try:
        spec = f"http:{service.url}"
        made = cli("run", str(ds), "--backend", spec, "--out", str(tmp_path / "runs"), "--run-id", "r", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        run = tmp_path / "runs" / "r"
        lines = (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()
        keep = [line for line in lines if json.loads(line)["question_id"] == "q1"]
        (run / "answers.jsonl").write_text(keep[0] + "\n", encoding="utf-8")  # as a kill leaves it
        service.arrivals.clear()
        # long enough for the second citeval to start (imports take seconds on a loaded machine)
        service.script = {q: [Response(200, {"question_id": q, "status": "abstained"}, delay=6.0)]
                          for q in ("q2", "q3")}
        first = start("run", "--resume", str(run), cwd=tmp_path)
        wait_for_holder(run, "citeval run --resume", first)
        second = cli("run", "--resume", str(run), cwd=tmp_path)
        assert first.wait(60) == 0, first.communicate()
    finally:
        service.stop()
    assert second.returncode == 2, second.stderr
    assert "`citeval run --resume`" in second.stderr and "Traceback" not in second.stderr
    answers = [json.loads(line) for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(a["question_id"] for a in answers) == ["q1", "q2", "q3"]  # no answer twice
    assert {q: len(t) for q, t in service.arrivals.items()} == {"q2": 1, "q3": 1}  # asked once each


def test_a_writer_waits_for_the_holder_with_wait(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    service = start_answer_service(default=None)
    service.script = {"q3": [Response(200, {"question_id": "q3", "status": "abstained"}, delay=2.0)]}
    try:
        running = start("run", str(ds), "--backend", f"http:{service.url}", "--out", str(tmp_path / "runs"),
                        "--run-id", "r", cwd=tmp_path)
        run = tmp_path / "runs" / "r"
        wait_for_holder(run, "citeval run", running)
        scored = cli("score", str(run), "--wait", "60", cwd=tmp_path)
        assert running.wait(60) == 0
    finally:
        service.stop()
    assert scored.returncode == 0, scored.stderr  # it waited for the run to finish, then scored all of it
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert scores["n_unanswered"] == 0


def test_a_stale_lock_of_a_dead_pid_is_taken_over_with_a_note(scored: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    pid = int(dead.stdout)
    (scored / LOCK_FILE).write_text(json.dumps({"pid": pid, "command": "citeval score", "since": "2026-01-01T00:00:00Z"})
                                    + "\n", encoding="utf-8")
    again = cli("score", str(scored), cwd=scored.parent.parent)
    assert again.returncode == 0, again.stderr
    assert f"note: {scored}: took over the lock of pid {pid} (`citeval score`" in again.stderr
    assert (scored / LOCK_FILE).read_text(encoding="utf-8") == ""  # released clean


@pytest.mark.parametrize("record", [
    "[" * 2000,
    json.dumps({"pid": 10 ** 30, "command": "citeval score"}),
    json.dumps({"pid": -1, "command": "citeval score"}),
    json.dumps({"pid": 0}),
    json.dumps({"pid": True}),
], ids=["nested-2000-deep", "huge-pid", "pid-minus-1", "pid-0", "pid-true"])
def test_a_hand_made_lock_file_names_no_holder_and_is_taken(record: str, scored: Path) -> None:
    """A lock file no citeval wrote (nested past json's recursion, a pid that would overflow
    os.kill, or signal a process group or every process): no holder, the lock is free and taken."""
    (scored / LOCK_FILE).write_text(record, encoding="utf-8")
    again = cli("score", str(scored), cwd=scored.parent.parent)
    assert again.returncode == 0, again.stderr
    assert "Traceback" not in again.stderr and "took over" not in again.stderr


def test_a_lock_holder_s_command_is_shown_with_its_controls_escaped(scored: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    record = {"pid": int(dead.stdout), "command": "citeval \x1b]0;owned\x07\x1b[2J", "since": "x\ry"}
    (scored / LOCK_FILE).write_text(json.dumps(record) + "\n", encoding="utf-8")
    again = cli("score", str(scored), cwd=scored.parent.parent)
    assert again.returncode == 0, again.stderr
    assert "\x1b" not in again.stderr and "citeval \\x1b]0;owned\\x07\\x1b[2J" in again.stderr


def test_score_refuses_a_run_whose_process_died_while_it_ran(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    killed = subprocess.run([*CLI, "run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
                             "--run-id", "r"], cwd=tmp_path, env={**env(), "CITEVAL_TEST_CRASH_AT": "run:answers"},
                            capture_output=True, text=True, timeout=120)
    assert killed.returncode == 137
    run = tmp_path / "runs" / "r"
    assert json.loads((run / "manifest.json").read_text(encoding="utf-8"))["options"]["status"] == "running"
    refused = cli("score", str(run), cwd=tmp_path)
    assert refused.returncode == 2 and f"citeval run --resume {run}" in refused.stderr, refused.stderr
    assert cli("run", "--resume", str(run), cwd=tmp_path).returncode == 0
    assert cli("score", str(run), cwd=tmp_path).returncode == 0


def test_the_marker_hashes_the_answers_scored_and_a_bundle_carries_only_them(scored: Path, tmp_path: Path) -> None:
    marker = json.loads((scored / "score.complete").read_text(encoding="utf-8"))
    answers = (scored / "answers.jsonl").read_bytes()
    assert marker["answers_bytes"] == len(answers)
    # a later resume adds an answer: the scoring no longer covers the answers, and gate says so
    extra = json.dumps({"question_id": "q9", "status": "abstained"}) + "\n"
    (scored / "answers.jsonl").write_bytes(answers + extra.encode())
    gated = cli("gate", str(scored), cwd=tmp_path)
    assert gated.returncode == 2 and "answers changed after it was scored" in gated.stderr
    # a bundle packs what was scored, with the marker: a baseline that gate accepts
    out = tmp_path / "b.tar.gz"
    assert cli("bundle", str(scored), "--out", str(out), cwd=tmp_path).returncode == 0
    with tarfile.open(out) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]
    assert files["answers.jsonl"] == answers and "score.complete" in files
    (scored / "answers.jsonl").write_bytes(answers)
    based = cli("gate", str(scored), "--baseline", str(out), cwd=tmp_path)
    assert based.returncode in (0, 1), based.stderr


def _repack(bundle: Path, out: Path, marker: dict) -> Path:
    import hashlib

    with tarfile.open(bundle) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}  # type: ignore[union-attr]
    files["score.complete"] = json.dumps(marker).encode()
    index = json.loads(files["citeval-bundle.json"])
    index["files"]["score.complete"] = {"sha256": hashlib.sha256(files["score.complete"]).hexdigest()}
    files["citeval-bundle.json"] = json.dumps(index).encode()
    with tarfile.open(out, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def test_gate_baseline_refuses_a_bundle_of_a_scoring_in_progress(scored: Path, tmp_path: Path) -> None:
    out = tmp_path / "b.tar.gz"
    assert cli("bundle", str(scored), "--out", str(out), cwd=tmp_path).returncode == 0
    torn = _repack(out, tmp_path / "torn.tar.gz", {"state": "writing", "generation": "x"})
    refused = cli("gate", str(scored), "--baseline", str(torn), cwd=tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "score.complete" in refused.stderr and "Traceback" not in refused.stderr


def test_report_and_bundle_refuse_a_folder_being_scored(scored: Path, tmp_path: Path) -> None:
    (scored / "score.complete").write_text(json.dumps({"state": "writing", "generation": "x"}), encoding="utf-8")
    for args in (["report", str(scored), "--out", str(tmp_path / "r.html")],
                 ["bundle", str(scored), "--out", str(tmp_path / "b.tar.gz")]):
        refused = cli(*args, cwd=tmp_path)
        assert refused.returncode == 2, refused.stderr
        assert "being scored now" in refused.stderr
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "b.tar.gz").exists()


def test_sigterm_ends_a_run_as_interrupted_and_it_resumes(tmp_path: Path) -> None:
    import signal

    ds = write_dataset(tmp_path / "ds")
    service = start_answer_service({"q2": [Response(200, {"question_id": "q2", "status": "abstained"}, delay=30)]})
    try:
        running = start("run", str(ds), "--backend", f"http:{service.url}", "--out", str(tmp_path / "runs"),
                        "--run-id", "r", "--concurrency", "1", cwd=tmp_path)
        run = tmp_path / "runs" / "r"
        wait_for_holder(run, "citeval run", running)
        end = time.monotonic() + 30
        while not service.arrivals.get("q2") and time.monotonic() < end:
            time.sleep(0.02)
        running.send_signal(signal.SIGTERM)
        out, err = running.communicate(timeout=30)
        assert running.returncode == 130, err
        assert json.loads((run / "manifest.json").read_text(encoding="utf-8"))["options"]["status"] == "interrupted"
        assert f"--resume {run}" in err
        service.script = {}
        assert cli("run", "--resume", str(run), cwd=tmp_path).returncode == 0
    finally:
        service.stop()
    assert cli("score", str(run), cwd=tmp_path).returncode == 0


SCORER = """
import sys
from evals.score.judges.llm import LlmConfig
from evals.score.scoring import score_run
score_run(sys.argv[1], judge="llm", llm=LlmConfig(model="m", base_url=sys.argv[2]), workers=2, shard_size=1)
"""


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc (Linux)")
def test_workers_die_with_a_killed_score_and_free_the_lock(scored: Path) -> None:
    import signal

    llm = start_fake_llm("openai", slow_seconds=60.0)
    llm.fail_next("slow", 10)
    try:
        scorer = subprocess.Popen([sys.executable, "-c", SCORER, str(scored), llm.base_url], env=env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 60
        while len(llm.requests) < 1 and time.monotonic() < end:
            time.sleep(0.05)
        workers = _children(scorer.pid)
        assert workers, "no worker processes started"
        scorer.send_signal(signal.SIGKILL)
        scorer.wait(10)
        end = time.monotonic() + 10
        while any(Path(f"/proc/{w}").exists() and "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]
                  for w in workers) and time.monotonic() < end:
            time.sleep(0.05)
        alive = [w for w in workers if Path(f"/proc/{w}").exists()
                 and Path(f"/proc/{w}/stat").read_text().split()[2] != "Z"]
        assert alive == []  # no orphan scoring on, holding the run folder's lock
    finally:
        llm.stop()
    again = cli("score", str(scored), cwd=scored.parent.parent)
    assert again.returncode == 0, again.stderr
