"""Outages and odd numbers (issue 33): an outage mid-run is exit 3 with the way back, errors are
re-askable, numeric options are finite and bounded, a long Retry-After is rate_limited, count
rules are whole numbers, a gate over an empty tier has no value, costs are never negative."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from factories import write_dataset, write_jsonl, write_replay
from servers.answers import start_answer_service, valid_answer
from servers.http import Response

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, str(ROOT / "cli.py")]


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": "true", "PYTHONPATH": str(ROOT), "CITEVAL_LOG_DIR": str(cwd)}
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in done.stderr and "a bug" not in done.stderr, done.stderr
    return lines[0]


def answers(run: Path) -> dict[str, dict]:
    rows = [json.loads(line) for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    return {row["question_id"]: row for row in rows}  # a later line wins, as every reader reads it


def test_an_outage_mid_run_is_exit_3_and_resume_retry_errors_asks_the_failed_again(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    qids = [f"q{i:02d}" for i in range(20)]
    write_jsonl(ds / "questions.jsonl", [{"question_id": q, "question": f"Вопрос {q}?"} for q in qids])
    # the backend answers three questions, then dies (500 on every call)
    service = start_answer_service({q: [Response(200, valid_answer(q))] for q in qids[:3]}, default=Response(500))
    try:
        args = ["--backend", f"http:{service.url}", "--out", str(tmp_path / "runs"), "--run-id", "r",
                "--concurrency", "1", "--retries", "0"]
        done = cli("run", str(ds), *args, cwd=tmp_path)
        assert done.returncode == 3, done.stderr
        line = one_error_line(done)
        run = tmp_path / "runs" / "r"
        assert "3 of 20 questions answered" in line and "circuit breaker" in line
        assert f"citeval run --resume {run} --retry-errors" in line
        rows = answers(run)
        assert sum(r["status"] == "error" for r in rows.values()) == 17
        assert service.hits < 20  # the breaker stopped calling: the rest were never asked
        service.default = None  # the backend is back
        plain = cli("run", "--resume", str(run), cwd=tmp_path)
        assert plain.returncode == 3 and service.hits < 20 + 1  # a plain resume asks nothing again
        again = cli("run", "--resume", str(run), "--retry-errors", cwd=tmp_path)
    finally:
        service.stop()
    assert again.returncode == 0, again.stderr
    assert all(r["status"] == "answered" for r in answers(run).values()) and len(answers(run)) == 20
    assert cli("score", str(run), cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("option", [
    ["--timeout", "nan"], ["--timeout", "inf"], ["--retries", "100000"], ["--concurrency", "100000"],
    ["--wait", "nan"], ["--wait", "inf"],
])
def test_numeric_options_are_finite_and_bounded(option: list[str], tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    started = time.monotonic()
    done = cli("run", str(ds), "--backend", f"replay:{write_replay(tmp_path / 'replay.jsonl')}", "--out",
               str(tmp_path / "runs"), *option, cwd=tmp_path, timeout=60)
    assert done.returncode == 2, done.stderr
    assert option[0] in one_error_line(done)
    assert time.monotonic() - started < 30 and not (tmp_path / "runs").exists()


def test_a_huge_retry_after_ends_as_rate_limited_not_timeout(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    busy = Response(429, {"error": "slow down"}, headers={"retry-after": "100000"})
    service = start_answer_service({"q1": [busy] * 5})
    try:
        started = time.monotonic()
        done = cli("run", str(ds), "--backend", f"http:{service.url}", "--out", str(tmp_path / "runs"),
                   "--run-id", "r", "--timeout", "1", "--retries", "1", cwd=tmp_path)
        took = time.monotonic() - started
    finally:
        service.stop()
    assert done.returncode == 0, done.stderr
    q1 = answers(tmp_path / "runs" / "r")["q1"]
    assert q1["error"]["type"] == "rate_limited", q1
    assert took < 30 and len(service.arrivals["q1"]) == 2  # asked, waited at most a timeout, asked again


@pytest.fixture()
def scored(tmp_path: Path) -> Path:
    ds = write_dataset(tmp_path / "ds")
    made = cli("run", str(ds), "--backend", f"replay:{write_replay(tmp_path / 'replay.jsonl')}", "--out",
               str(tmp_path / "runs"), "--run-id", "r", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    run = tmp_path / "runs" / "r"
    assert cli("score", str(run), cwd=tmp_path).returncode == 0
    return run


def test_a_count_rule_bound_must_be_a_whole_number(scored: Path, tmp_path: Path) -> None:
    gates = tmp_path / "g.toml"
    gates.write_text('[overall]\n"findings.VERSION_REVOKED" = { max = 0.5 }\n', encoding="utf-8")
    done = cli("gate", str(scored), "--gates", str(gates), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    line = one_error_line(done)
    assert f"{gates}:2" in line and "whole number" in line


def test_rules_that_all_target_an_empty_tier_have_no_value(scored: Path, tmp_path: Path) -> None:
    gates = tmp_path / "g.toml"
    gates.write_text('[tier.reference]\ncitation_validity = { min = 0.9 }\n"findings.VERSION_REVOKED" = { max = 0 }\n',
                     encoding="utf-8")
    done = cli("gate", str(scored), "--gates", str(gates), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gate has no value: all 2 rule(s) skipped" in done.stdout and "gate passed" not in done.stdout
    as_json = json.loads(cli("gate", str(scored), "--gates", str(gates), "--format", "json", cwd=tmp_path).stdout)
    assert as_json["passed"] is False and as_json["no_value"] is True


def test_a_negative_cost_is_refused(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    rows = [json.loads(line) for line in replay.read_text(encoding="utf-8").splitlines()]
    rows[1]["usage"] = {"cost_usd": -5.0}
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    done = cli("run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"), "--run-id", "r",
               cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    line = one_error_line(done)
    assert "replay.jsonl:2" in line and "cost_usd" in line


@pytest.mark.parametrize("spec", ["http:notaurl", "http://127.0.0.1:99999/x", "http:http://user:pw@[::1/x",
                                  "http:ftp://host/x"])
def test_a_broken_http_spec_is_bad_input_not_a_service_failure(spec: str, tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    done = cli("run", str(ds), "--backend", spec, "--out", str(tmp_path / "runs"), cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    line = one_error_line(done)
    assert "is not an http(s) URL" in line and "pw" not in line
    assert not (tmp_path / "runs").exists()
