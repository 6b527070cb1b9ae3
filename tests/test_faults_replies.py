"""Hostile replies (issue 33): what a backend or the LLM judge sends is held to the limits citeval
reads its own files within, so one odd reply never makes a run unscorable or scoring crash.

- a backend reply holding a 2,000-digit integer or nesting 205 deep becomes an error answer
  (the run stays scorable), whether it came over http or from a python callable;
- the judge's content as a list, a number or an object, `prompt_tokens: Infinity`, and bad
  judge_cache.jsonl lines are judge failures or misses, never tracebacks;
- judge usage counts every request the server saw, retries and context support included.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from factories import write_dataset, write_replay
from servers.answers import start_answer_service, valid_answer
from servers.http import Request, Response, start_http_server
from servers.llm import start_fake_llm

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, str(ROOT / "cli.py")]
LONG_NUMBER = "9" * 2000
DEEP = "[" * 205 + "]" * 205


def cli(*args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CI": "true", "PYTHONPATH": f"{ROOT}{os.pathsep}{cwd}", "CITEVAL_LOG_DIR": str(cwd)}
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def no_traceback(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr and "a bug in citeval" not in done.stderr, done.stderr


def answers(run: Path) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    return {row["question_id"]: row for row in rows}


@pytest.mark.parametrize("raw", [LONG_NUMBER, DEEP], ids=["2000-digit-integer", "nested-205-deep"])
def test_an_http_reply_beyond_the_limits_is_an_error_answer_and_the_run_scores(raw: str, tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    body = json.dumps(valid_answer("q1"))[:-1] + f', "raw": {raw}}}'
    service = start_answer_service({"q1": [Response(200, body, headers={"content-type": "application/json"})] * 5})
    try:
        made = cli("run", str(ds), "--backend", f"http:{service.url}", "--out", str(tmp_path / "runs"),
                   "--run-id", "r", "--retries", "0", cwd=tmp_path)
    finally:
        service.stop()
    no_traceback(made)
    assert made.returncode == 0, made.stderr
    q1 = answers(tmp_path / "runs" / "r")["q1"]
    assert q1["status"] == "error" and q1["error"]["type"] == "malformed_json", q1
    assert "citeval can store" in q1["error"]["message"]
    scored = cli("score", str(tmp_path / "runs" / "r"), cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr


@pytest.mark.parametrize("raw", [LONG_NUMBER, DEEP], ids=["2000-digit-integer", "nested-205-deep"])
def test_a_python_backend_answer_beyond_the_limits_is_recorded_as_an_error(raw: str, tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    (tmp_path / "hostile.py").write_text(
        "import json\n"
        "def answer(payload):\n"
        f"    return {{'question_id': payload['question_id'], 'status': 'abstained', 'raw': json.loads({raw!r})}}\n",
        encoding="utf-8",
    )
    made = cli("run", str(ds), "--backend", "python:hostile:answer", "--out", str(tmp_path / "runs"), "--run-id", "r",
               cwd=tmp_path)
    no_traceback(made)
    assert made.returncode == 3, made.stderr  # every answer is an error: the backend failed on all of them
    rows = answers(tmp_path / "runs" / "r")
    assert {row["error"]["type"] for row in rows.values()} == {"unreadable_answer"}
    scored = cli("score", str(tmp_path / "runs" / "r"), cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    resumed = cli("run", "--resume", str(tmp_path / "runs" / "r"), cwd=tmp_path)
    assert resumed.returncode in (0, 3) and "Traceback" not in resumed.stderr


@pytest.fixture()
def scored_run(tmp_path: Path) -> Path:
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    made = cli("run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"), "--run-id", "r",
               cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    return tmp_path / "runs" / "r"


def _odd_llm(reply: dict[str, Any]) -> Any:
    """An OpenAI-compatible endpoint that always sends `reply` merged into a chat completion."""
    seen: list[Request] = []

    def handle(request: Request) -> Response:
        seen.append(request)
        message = {"role": "assistant", "content": '{"label": "supported", "score": 0.9, "reason": "ok"}'}
        body = {"id": "x", "object": "chat.completion", "model": "m",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5}}
        for key, value in reply.items():
            if key == "content":
                message["content"] = value
            else:
                body[key] = value
        text = json.dumps(body).replace('"__INF__"', "Infinity")
        return Response(200, text, headers={"content-type": "application/json"})

    server = start_http_server(handle)
    return server, seen


ODD_REPLIES = [
    {"content": ["a", "list"]}, {"content": 42}, {"content": {"label": "supported"}},
    {"usage": {"prompt_tokens": "__INF__", "completion_tokens": 1}}, {"usage": {"prompt_tokens": -5}},
]


@pytest.mark.parametrize("reply", ODD_REPLIES,
                         ids=["content-list", "content-number", "content-object", "prompt-tokens-infinity",
                              "negative-tokens"])
def test_odd_judge_replies_are_judge_failures(reply: dict[str, Any], scored_run: Path) -> None:
    from evals.outside import judge_failure
    from evals.score.judges.llm import LlmConfig
    from evals.score.scoring import score_run

    server, seen = _odd_llm(reply)
    try:  # in this process, with short backoffs: the same code as the command, in a second
        llm = LlmConfig(model="m", base_url=server.base_url + "/v1", backoff_s=0.01, max_retries=1)
        scores = score_run(scored_run, judge="llm", llm=llm, workers=1).scores
    finally:
        server.stop()
    failure = judge_failure("llm", scores)
    assert failure is not None and failure.exit_code == 3 and "reply" in str(failure)
    assert scores.judge_usage is not None and scores.judge_usage.requests == len(seen) >= 2  # retries counted


def test_an_odd_judge_reply_is_exit_3_on_the_command_line(scored_run: Path, tmp_path: Path) -> None:
    server, seen = _odd_llm(ODD_REPLIES[0])
    try:
        done = cli("score", str(scored_run), "--judge", "llm", "--llm-base-url", server.base_url + "/v1",
                   "--llm-model", "m", "--workers", "1", cwd=tmp_path)
    finally:
        server.stop()
    no_traceback(done)
    assert done.returncode == 3, done.stderr  # the judge failed on every unit: a service failure
    assert "LLM judge failed on all" in done.stderr and "reply" in done.stderr
    scores = json.loads((scored_run / "scores.json").read_text(encoding="utf-8"))
    assert scores["judge_usage"]["requests"] == len(seen)  # every attempt counted, retries included


def test_bad_judge_cache_lines_are_misses_not_crashes(scored_run: Path, tmp_path: Path) -> None:
    llm = start_fake_llm("openai")
    try:
        args = ["score", str(scored_run), "--judge", "llm", "--llm-base-url", llm.base_url, "--llm-model", "m",
                "--workers", "1"]
        assert cli(*args, cwd=tmp_path).returncode == 0
        cache = scored_run / "judge_cache.jsonl"
        lines = cache.read_text(encoding="utf-8").splitlines()
        keys = [json.loads(line)["key"] for line in lines]
        bad = [
            json.dumps({"key": keys[0], "value": "maybe", "score": 2, "reason": None}),  # not a verdict
            f'{{"key": "{keys[-1]}", "deep": {"[" * 5000 + "]" * 5000}}}',  # a RecursionError for json.loads
            f'{{"key": "{keys[0]}", "value": "supported", "score": {LONG_NUMBER}, "reason": "x"}}',
        ]
        cache.write_text("".join(line + "\n" for line in bad), encoding="utf-8")
        before = len(llm.requests)
        again = cli(*args, cwd=tmp_path)
    finally:
        llm.stop()
    no_traceback(again)
    assert again.returncode == 0, again.stderr
    assert len(llm.requests) - before == len(keys)  # each bad line a miss: judged again


def test_judge_usage_counts_every_request_the_server_saw(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    rows = [json.loads(line) for line in replay.read_text(encoding="utf-8").splitlines()]
    rows[0]["evidence"].append({"evidence_id": "E2", "chunk_id": "a1-2"})  # retrieved, not cited: context support
    replay.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    made = cli("run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"), "--run-id", "r",
               cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    scored_run = tmp_path / "runs" / "r"
    llm = start_fake_llm("openai")
    llm.fail_next("500", 2)  # two retried attempts
    try:
        done = cli("score", str(scored_run), "--judge", "llm", "--llm-base-url", llm.base_url, "--llm-model", "m",
                   "--workers", "1", cwd=tmp_path)
    finally:
        llm.stop()
    assert done.returncode == 0, done.stderr
    usage = json.loads((scored_run / "scores.json").read_text(encoding="utf-8"))["judge_usage"]
    assert len(llm.requests) >= 4  # the support unit, its context-support unit, two failed attempts
    assert usage["requests"] == len(llm.requests) and usage["input_tokens"] == 100 * (len(llm.requests) - 2)
