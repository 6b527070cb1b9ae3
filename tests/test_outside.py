"""The outside-call policy (evals/outside.py) against local servers: Retry-After, 503, redirects,
size caps, the circuit breaker, hung python callables, exit 3 for a dead backend or judge, and
the key resolver. Waits are measured by the server's recorded arrival times."""

from __future__ import annotations

import asyncio
import gzip
import json
import math
import os
import re
import socket
import subprocess
import sys
import threading
import time
import zlib
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from pathlib import Path

import pytest
from factories import write_dataset, write_jsonl
from servers.answers import start_answer_service, valid_answer
from servers.http import Response
from servers.llm import start_fake_llm

from evals.contract.models import Question
from evals.errors import UsageError
from evals.outside import retry_after_seconds
from evals.run.backends.http import HttpBackend
from evals.run.runner import RunOptions, start_run
from evals.score.judges.base import JudgeInput
from evals.score.judges.faithfulness import FaithfulnessSample, ragas_faithfulness
from evals.score.judges.llm import LlmConfig, LlmJudge

ROOT = Path(__file__).resolve().parents[1]
AT = datetime(2024, 5, 1, tzinfo=timezone.utc)
EVIDENCE = "Обучение проводится не реже одного раза в 12 месяцев."


def ask(backend: HttpBackend, *qids: str, at_once: int = 8):
    """Answers to the questions, at most at_once in flight (as the runner asks)."""
    async def go():
        slots = asyncio.Semaphore(at_once)

        async def one(qid: str):
            async with slots:
                return await backend.answer(Question(question_id=qid, question="Как часто?"), AT)

        try:
            return await asyncio.gather(*(one(q) for q in qids))
        finally:
            await backend.aclose()

    return asyncio.run(go())


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


@pytest.fixture
def service():
    started = []

    def start(script=None, default=None):
        started.append(start_answer_service(script, default))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def dead_url() -> str:
    """An address where nothing listens: connections are refused at once."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# --- Retry-After ------------------------------------------------------------------------


def test_retry_after_parses_seconds_and_http_dates() -> None:
    now = datetime(2015, 10, 21, 7, 27, 30, tzinfo=timezone.utc)
    assert retry_after_seconds("120", now) == 120.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now) == 30.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:00:00 GMT", now) == 0.0  # in the past: at once
    assert retry_after_seconds("soon", now) is None and retry_after_seconds(None, now) is None


def test_429_waits_the_retry_after_seconds(service) -> None:
    svc = service({"q1": [Response(429, {"error": "slow down"}, headers={"retry-after": "1"})]})
    [answer] = ask(HttpBackend(svc.url, backoff=0.01, retries=2), "q1")
    assert answer.status == "answered"
    [gap] = gaps(svc.arrivals["q1"])
    assert gap >= 1.0  # the backoff alone would have waited 0.01–0.02 s


def test_429_waits_until_the_retry_after_date(service) -> None:
    # an HTTP date has whole seconds: the next whole second plus 2 is 2 to 3 s away
    when = datetime.fromtimestamp(math.ceil(time.time()) + 2, tz=timezone.utc)
    svc = service({"q1": [Response(429, headers={"retry-after": format_datetime(when, usegmt=True)})]})
    [answer] = ask(HttpBackend(svc.url, backoff=0.01, retries=1), "q1")
    assert answer.status == "answered"
    assert gaps(svc.arrivals["q1"])[0] >= 1.9


def test_a_long_retry_after_is_capped(service) -> None:
    svc = service({"q1": [Response(429, headers={"retry-after": "3600"})]})
    [answer] = ask(HttpBackend(svc.url, backoff=0.01, retries=1, retry_after_max=0.3), "q1")
    assert answer.status == "answered"
    assert 0.3 <= gaps(svc.arrivals["q1"])[0] < 5


def test_503_is_retried_then_recorded(service) -> None:
    busy = Response(503, "busy", headers={"retry-after": "0.2"})
    svc = service({"q1": [busy], "q2": [busy, busy, busy]})
    first, second = ask(HttpBackend(svc.url, backoff=0.01, retries=2), "q1", "q2")
    assert first.status == "answered" and gaps(svc.arrivals["q1"])[0] >= 0.2
    assert second.status == "error" and second.error.type == "http_5xx" and second.error.message == "HTTP 503: busy"
    assert len(svc.arrivals["q2"]) == 3 and second.raw == {"attempts": 3}


def test_a_redirect_is_reported_as_one_not_as_malformed_json(service) -> None:
    svc = service({"q1": [Response(302, "", headers={"location": "https://elsewhere.example/answer"})],
                   "q2": [Response(422, {"detail": "bad question"})]})
    moved, refused = ask(HttpBackend(svc.url, backoff=0.01), "q1", "q2")
    assert (moved.error.type, moved.error.message) == ("redirect", "HTTP 302: redirect to https://elsewhere.example/answer")
    assert refused.error.type == "http_4xx" and refused.error.message == 'HTTP 422: {"detail": "bad question"}'
    assert len(svc.arrivals["q1"]) == len(svc.arrivals["q2"]) == 1  # neither is retried


# --- size caps --------------------------------------------------------------------------


def gzip_bomb(inflated: int) -> bytes:
    """A gzip stream of `inflated` zero bytes (about 1,000 : 1)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [packer.compress(block) for _ in range(inflated >> 20)]
    return b"".join(parts) + packer.flush()


def test_a_gzip_bomb_is_stopped_at_the_decompressed_cap(service) -> None:
    bomb = gzip_bomb(64 << 20)  # 64 MB inflated from about 64 kB
    assert len(bomb) < 200_000
    svc = service({"q1": [Response(200, bomb, headers={"content-encoding": "gzip",
                                                       "content-type": "application/json"})]})
    [answer] = ask(HttpBackend(svc.url, backoff=0.01), "q1")
    assert answer.error.type == "reply_too_large"
    assert answer.error.message == "reply is over 10,485,760 bytes decompressed; abandoned"
    assert len(svc.arrivals["q1"]) == 1  # too large is final


def test_a_gzip_reply_under_the_cap_is_read(service) -> None:
    body = gzip.compress(json.dumps(valid_answer("q1")).encode())
    svc = service({"q1": [Response(200, body, headers={"content-encoding": "gzip",
                                                       "content-type": "application/json"})]})
    [answer] = ask(HttpBackend(svc.url), "q1")
    assert answer.status == "answered" and answer.answer_text == "Ответ на q1 [E1]."


@pytest.mark.parametrize("chunked", [False, True])
def test_a_plain_reply_over_the_cap_is_abandoned(service, chunked: bool) -> None:
    big = json.dumps({**valid_answer("q1"), "raw": "x" * 300_000}).encode()
    svc = service({"q1": [Response(200, big, headers={"content-type": "application/json"}, chunked=chunked)]})
    [answer] = ask(HttpBackend(svc.url, max_reply_bytes=100_000), "q1")
    assert answer.error.type == "reply_too_large"
    # a declared Content-Length is refused before the body; a chunked body when it passes the cap
    assert answer.error.message.startswith("reply is over 100,000 bytes")
    assert ("(Content-Length)" in answer.error.message) is not chunked


def test_a_reply_that_drips_is_cut_at_the_time_cap(service) -> None:
    # 1 kB in 100-byte chunks 0.25 s apart: each read comes well within httpx's 1 s timeout,
    # the whole reply would take 2.25 s
    body = json.dumps({**valid_answer("q1"), "raw": "x" * 800}).encode()
    drip = Response(200, body, headers={"content-type": "application/json"}, chunked=True, chunk_size=100, drip=0.25)
    svc = service({"q1": [drip]})
    [answer] = ask(HttpBackend(svc.url, timeout=1.0, retries=0), "q1")
    assert (answer.error.type, answer.error.message) == ("timeout", "timed out after 1 s")


# --- the circuit breaker ------------------------------------------------------------------


def test_the_breaker_stops_calling_a_failing_service(service) -> None:
    svc = service(default=Response(500, "down"))
    qids = [f"q{i:02d}" for i in range(40)]
    answers = ask(HttpBackend(svc.url, backoff=0.01, retries=2, concurrency=4, breaker_threshold=5), *qids, at_once=4)
    assert all(a.status == "error" for a in answers)
    # without the breaker: 40 × 3 = 120 requests. With it the circuit opens at the 5th failed question;
    # at most 4 more were in flight then, each with at most 3 attempts
    assert svc.hits <= (5 + 4) * 3
    stopped = [a for a in answers if a.error.type == "circuit_open"]
    assert len(stopped) >= 40 - 9
    # the count in the message is the one when the circuit opened: the 5th failure, or one of the
    # (at most 4) questions that were in flight and failed in the same moment
    opened_at = re.fullmatch(r"the http backend stopped after (\d+) consecutive failures; last: HTTP 500: down",
                             stopped[0].error.message)
    assert opened_at is not None and 5 <= int(opened_at.group(1)) <= 5 + 4


def test_a_success_closes_the_count_again(service) -> None:
    # every other question fails all its attempts: never 2 failures in a row in order of completion
    # is not guaranteed under concurrency, so ask one at a time
    svc = service({f"q{i}": [Response(500, "x")] * 2 for i in range(0, 10, 2)})
    backend = HttpBackend(svc.url, backoff=0.01, retries=1, concurrency=1, breaker_threshold=2)

    async def one_by_one():
        try:
            return [await backend.answer(Question(question_id=f"q{i}", question="?"), AT) for i in range(10)]
        finally:
            await backend.aclose()

    answers = asyncio.run(one_by_one())
    assert [a.status for a in answers] == ["error", "answered"] * 5
    assert not backend.service.breaker.opened


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """citeval in a child process; the timeout is the acceptance bound itself (issue 17)."""
    return subprocess.run([sys.executable, str(ROOT / "cli.py"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env={**os.environ, **(env or {})})


def test_run_against_a_dead_backend_exits_3_within_30_s(tmp_path: Path) -> None:
    ds = write_dataset(tmp_path / "ds")
    write_jsonl(ds / "questions.jsonl", [{"question_id": f"q{i:03d}", "question": f"Вопрос {i}?"} for i in range(142)])
    done = run_cli("run", str(ds), "--backend", f"http:{dead_url()}/answer", "--out", str(tmp_path / "runs"),
                   "--run-id", "dead")
    assert done.returncode == 3, done.stderr
    error = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "Traceback" not in done.stderr
    assert error[0].startswith("error: backend failed on all 142 questions: connection_error: ConnectError")
    answers = (tmp_path / "runs" / "dead" / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(answers) == 142  # every question still has its error answer


def test_run_with_some_answers_is_not_a_service_failure(tmp_path: Path, service) -> None:
    ds = write_dataset(tmp_path / "ds")
    svc = service({"q1": [Response(404, "no")]})
    done = run_cli("run", str(ds), "--backend", f"http:{svc.url}", "--out", str(tmp_path / "runs"), "--run-id", "r")
    assert done.returncode == 0, done.stderr
    assert "3 question(s): 2 answered, 0 abstained, 1 error(s)" in done.stdout


# --- the LLM judge ----------------------------------------------------------------------


def judge_config(base_url: str, **options) -> LlmConfig:
    return LlmConfig(model="gpt-4o-mini", base_url=base_url, **{"backoff_s": 0.01, "timeout_s": 5.0, **options})


def test_the_judge_waits_retry_after_on_429() -> None:
    fake = start_fake_llm("openai", retry_after="1")
    try:
        fake.fail_next("429", 1)
        [result] = LlmJudge(judge_config(fake.base_url)).judge([JudgeInput("Обучение проводится", [EVIDENCE])])
        assert result.value == "supported"
        first, second = (r["at"] for r in fake.requests)
        assert second - first >= 1.0
    finally:
        fake.stop()


def test_a_dead_judge_endpoint_trips_the_breaker() -> None:
    judge = LlmJudge(judge_config(dead_url() + "/v1", max_retries=3, breaker_threshold=4, max_concurrency=2))
    results = judge.judge([JudgeInput(f"Утверждение {i}", [EVIDENCE]) for i in range(30)])
    assert all(r.value == "cannot_judge" for r in results)
    # refused connections count per attempt: the 4th opens the circuit, 2 units were in flight
    assert judge.usage.requests <= 4 + 2
    assert judge.usage.failures == 30
    assert results[-1].reason.startswith("llm judge not called: the LLM judge stopped after 4 consecutive failures")
    assert judge.usage.last_failure.startswith("connection failed: ConnectError")


def test_score_with_a_dead_llm_endpoint_exits_3_within_30_s(tmp_path: Path, service) -> None:
    ds = write_dataset(tmp_path / "ds")
    svc = service()  # every answer cites chunk a1-1 validly: one judge unit per question
    made = start_run(ds, f"http:{svc.url}", out=tmp_path / "runs", run_id="ref")
    assert made.errors == 0
    done = run_cli("score", str(made.run_dir), "--judge", "llm", "--llm-base-url", dead_url() + "/v1",
                   "--llm-model", "gpt-4o-mini")
    assert done.returncode == 3, done.stdout + done.stderr
    [error] = [line for line in done.stderr.splitlines() if line.strip()]
    assert error.startswith("error: LLM judge failed on all ") and "connection failed: ConnectError" in error
    assert "Traceback" not in done.stderr


def test_a_missing_key_names_the_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from cli import app

    for name in ("ANTHROPIC_API_KEY", "CITEVAL_TEST_MISSING_KEY"):
        monkeypatch.delenv(name, raising=False)
    run_dir = start_run(write_dataset(tmp_path / "ds"), "reference", out=tmp_path / "runs", run_id="ref").run_dir
    runner = CliRunner()
    named = runner.invoke(app, ["score", str(run_dir), "--judge", "llm", "--llm-base-url", "http://127.0.0.1:9/v1",
                                "--llm-model", "m", "--llm-key-env", "CITEVAL_TEST_MISSING_KEY"])
    assert named.exit_code == 2
    assert "environment variable CITEVAL_TEST_MISSING_KEY (the LLM API key) is not set" in named.stderr
    # the provider's own endpoint always needs its key
    default = runner.invoke(app, ["score", str(run_dir), "--judge", "llm", "--llm-provider", "anthropic",
                                  "--llm-model", "claude-haiku-4-5"])
    assert default.exit_code == 2 and "environment variable ANTHROPIC_API_KEY" in default.stderr


def test_ragas_against_a_dead_endpoint_stops_after_a_few_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing listens: the first samples fail to connect (up to the threshold, and those already
    in flight), every later one is skipped at once with the reason, and no value is made up."""
    from evals.score.judges.faithfulness import RAGAS_BREAKER_THRESHOLD

    monkeypatch.setenv("CITEVAL_TEST_RAGAS_KEY", "sk-test")
    samples = [FaithfulnessSample("Как часто?", f"Раз в год, пункт {i}.", [EVIDENCE]) for i in range(40)]
    started = time.monotonic()
    results = asyncio.run(ragas_faithfulness(samples, model="m", base_url=dead_url() + "/v1", max_retries=0,
                                             api_key_env="CITEVAL_TEST_RAGAS_KEY", max_concurrency=2))
    assert time.monotonic() - started < 20
    assert all(r.value is None for r in results)
    tried = [r for r in results if r.reason == "ragas faithfulness failed: could not connect to the LLM endpoint"]
    skipped = [r for r in results if (r.reason or "").startswith("ragas faithfulness skipped: the endpoint failed")]
    assert RAGAS_BREAKER_THRESHOLD <= len(tried) <= RAGAS_BREAKER_THRESHOLD + 1  # +1: in flight when it opened
    assert len(tried) + len(skipped) == 40
    assert "could not connect" in (skipped[-1].reason or "")


def test_ragas_resolves_its_key_the_same_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CITEVAL_TEST_MISSING_KEY", raising=False)
    sample = FaithfulnessSample("Как часто?", "Раз в год.", [EVIDENCE])
    with pytest.raises(UsageError, match="CITEVAL_TEST_MISSING_KEY"):
        asyncio.run(ragas_faithfulness([sample], model="m", base_url="http://127.0.0.1:9/v1",
                                       api_key_env="CITEVAL_TEST_MISSING_KEY"))


# --- hung python callables ------------------------------------------------------------------

RELEASE = threading.Event()
HUNG = {f"q{i:02d}" for i in range(0, 30, 5)}  # 6 of 30 questions


def hanging_backend(payload):
    if payload["question_id"] in HUNG:
        RELEASE.wait(60)  # hung until the test lets it go
        return {"status": "abstained"}
    return {"status": "answered", "answer_text": f"Ответ {payload['question_id']}."}


async def hanging_async_backend(payload):
    if payload["question_id"] in HUNG:
        await asyncio.sleep(60)
    return {"status": "answered", "answer_text": "Ответ."}


@pytest.mark.parametrize("target", ["hanging_backend", "hanging_async_backend"])
def test_six_hung_calls_do_not_starve_the_healthy_ones(tmp_path: Path, target: str) -> None:
    ds = write_dataset(tmp_path / "ds")
    write_jsonl(ds / "questions.jsonl", [{"question_id": f"q{i:02d}", "question": f"Вопрос {i}?"} for i in range(30)])
    sys.modules.setdefault("test_outside", sys.modules[__name__])
    RELEASE.clear()
    try:
        result = start_run(ds, f"python:test_outside:{target}", out=tmp_path / "runs", run_id="hung",
                           options=RunOptions(concurrency=8, timeout=0.5, retries=0))
    finally:
        RELEASE.set()
    answers = {json.loads(x)["question_id"]: json.loads(x)
               for x in (result.run_dir / "answers.jsonl").read_text(encoding="utf-8").splitlines()}
    assert len(answers) == 30
    timed_out = {q for q, a in answers.items() if a["status"] == "error"}
    assert timed_out == HUNG
    assert {answers[q]["error"]["type"] for q in HUNG} == {"timeout"}
    assert all(answers[q]["status"] == "answered" for q in answers.keys() - HUNG)


def test_a_sync_call_time_starts_when_it_runs_not_when_queued(tmp_path: Path) -> None:
    # 8 calls of 0.3 s through 2 slots: the last starts after ~1 s of queueing, yet none times out
    from evals.run.backends.python_callable import ThreadCalls

    async def go():
        calls = ThreadCalls(concurrency=2, timeout=0.6, max_hung=2)
        return await asyncio.gather(*(calls.run(lambda x: time.sleep(0.3) or x, i) for i in range(8)))

    assert asyncio.run(go()) == list(range(8))


def test_deadline_window_ignores_the_clock() -> None:
    # a date 1 h ahead of a given now is 3600 s, whatever the machine's clock says
    now = datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert retry_after_seconds(format_datetime(now + timedelta(hours=1), usegmt=True), now) == 3600.0


def test_which_scores_mean_a_service_judged_nothing() -> None:
    from evals.outside import judge_failure

    def scores(units: int, failed: int, faithfulness: float | None = None, failures: list[str] | None = None):
        return {"metrics": {"faithfulness": {"value": faithfulness, "ci": None, "n": 0}},
                "judge_summary": {"units": units, "failed": failed},
                "judge_usage": {"failures": failed, "last_failure": "HTTP 401: bad key"},
                "faithfulness_failures": failures or []}

    error = judge_failure("llm", scores(4, 4))
    assert error is not None and error.exit_code == 3
    assert str(error) == "LLM judge failed on all 4 (claim, evidence) units: HTTP 401: bad key"
    assert judge_failure("llm", scores(4, 3)) is None  # one unit judged
    assert judge_failure("llm", scores(0, 0)) is None  # nothing to judge is no failure
    assert judge_failure("offline", scores(4, 4)) is None
    dead = ["ragas faithfulness failed: could not connect to the LLM endpoint", "empty answer"]
    assert str(judge_failure("offline", scores(0, 0, None, dead), ragas=True)) == (
        "Ragas faithfulness scored no answer: ragas faithfulness failed: could not connect to the LLM endpoint")
    assert judge_failure("offline", scores(0, 0, 0.5, dead), ragas=True) is None  # some answers were scored
    assert judge_failure("offline", scores(0, 0, None, ["no retrieved contexts"]), ragas=True) is None


def test_hung_sync_calls_do_not_keep_citeval_alive(tmp_path: Path) -> None:
    (tmp_path / "stuck_backend.py").write_text("import time\n\ndef answer(payload):\n    time.sleep(3600)\n",
                                               encoding="utf-8")
    ds = write_dataset(tmp_path / "ds")
    done = run_cli("run", str(ds), "--backend", "python:stuck_backend:answer", "--timeout", "0.5",
                   "--out", str(tmp_path / "runs"), "--run-id", "stuck", env={"PYTHONPATH": str(tmp_path)})
    # every question timed out: a service failure, and the process ends although 3 threads still sleep
    assert done.returncode == 3, done.stderr
    assert "backend failed on all 3 questions: timeout: no answer within 0.5 s; the call was abandoned" in done.stderr
