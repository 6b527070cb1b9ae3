"""`citeval run`: backends, resumable runs, faults recorded (never abstentions), no secrets on disk."""

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from answer_server import AnswerServer
from factories import write_dataset, write_jsonl
from typer.testing import CliRunner

from cli import app
from evals.errors import UsageError
from evals.run.backends import redact_spec
from evals.run.backends.anthropic import anthropic_to_answer
from evals.run.runner import RunOptions, resume_run, start_run

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "datasets" / "demo"


def lines(run_dir):
    return [json.loads(x) for x in (run_dir / "answers.jsonl").read_text(encoding="utf-8").splitlines()]


def many_questions(root, n):
    write_jsonl(root / "questions.jsonl", [{"question_id": f"q{i:02d}", "question": f"Вопрос {i}?"} for i in range(n)])


def test_reference_run_writes_one_line_per_question(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    result = start_run(ds, "reference", out=tmp_path / "runs", run_id="r1")
    answers = lines(result.run_dir)
    assert sorted(a["question_id"] for a in answers) == ["q1", "q2", "q3"]
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["schema_version"] == 1 and manifest["run_id"] == "r1" and manifest["backend"] == "reference"
    assert manifest["options"]["status"] == "finished" and manifest["finished_at"]
    with pytest.raises(UsageError, match="exists"):
        start_run(ds, "reference", out=tmp_path / "runs", run_id="r1")


def test_http_faults_are_retried_or_recorded(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    many_questions(ds, 40)
    # 8 of 40 questions (20 %) meet faults; with retries=2 a question gets at most 3 attempts
    script = {
        "q00": ["500"], "q05": ["500", "500", "500"], "q10": ["timeout"], "q15": ["malformed", "malformed", "malformed"],
        "q20": ["drop"], "q25": ["404"], "q30": ["drop", "drop", "drop"], "q35": ["timeout", "timeout", "timeout"],
    }
    expected_errors = {"q05": "http_5xx", "q15": "malformed_json", "q25": "http_4xx", "q30": "connection_error",
                       "q35": "timeout"}
    with AnswerServer(script, hang=1.0) as server:
        result = start_run(ds, f"http:{server.url}", out=tmp_path / "runs", run_id="h",
                           options=RunOptions(concurrency=8, timeout=0.5, retries=2))
    answers = {a["question_id"]: a for a in lines(result.run_dir)}
    assert len(answers) == 40 and len(lines(result.run_dir)) == 40
    errors = {qid: a["error"]["type"] for qid, a in answers.items() if a["status"] == "error"}
    assert errors == expected_errors
    assert not any(a["status"] == "abstained" for a in answers.values())
    assert server.hits["q25"] == 1  # a 4xx is not retried
    assert {server.hits[q] for q in ("q05", "q15", "q30", "q35")} == {3}
    assert server.hits["q00"] == server.hits["q10"] == server.hits["q20"] == 2
    assert result.errors == 5


def test_secrets_never_reach_the_run_folder(tmp_path, monkeypatch):
    ds = write_dataset(tmp_path / "ds")
    monkeypatch.setenv("CITEVAL_HTTP_AUTHORIZATION", "Bearer sk-fake-7f3a9c2e")
    with AnswerServer(echo_auth=True) as server:
        url = server.url + "?api_key=sk-query-5511&lang=ru"
        result = start_run(ds, f"http:{url}", out=tmp_path / "runs", run_id="s")
    assert server.hits["q1"] == 1  # the server did receive the header and echoed it
    for path in result.run_dir.rglob("*"):
        content = path.read_text(encoding="utf-8")
        assert "sk-fake-7f3a9c2e" not in content and "sk-query-5511" not in content, path
    manifest = json.loads((result.run_dir / "manifest.json").read_text())
    assert manifest["backend"].endswith("/answer?api_key=%2A%2A%2A&lang=ru")
    assert "***" in lines(result.run_dir)[0]["answer_text"]


def test_redact_spec():
    assert redact_spec("http:https://bob:pw@api.example/x?token=abc&k=1") == "http:https://***@api.example/x?token=%2A%2A%2A&k=1"
    assert redact_spec("reference") == "reference"


def test_replay_mixed_lines_and_missing_question(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    replay = tmp_path / "answers.jsonl"
    write_jsonl(replay, [
        {"question_id": "q1", "status": "answered", "answer_text": "Раз в 12 месяцев [E1].",
         "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1"}]},
        {"question_id": "q2", "format": "anthropic", "model": "claude-x",
         "documents": [{"document_id": "train", "version_id": "train-v2"}],
         "usage": {"input_tokens": 120, "output_tokens": 30},
         "content": [
             {"type": "text", "text": "Порог сдачи — "},
             {"type": "text", "text": "80 %.", "citations": [
                 {"type": "char_location", "document_index": 0, "cited_text": "Порог сдачи теста 80 %.",
                  "start_char_index": 54, "end_char_index": 77}]},
         ]},
    ])
    result = start_run(ds, f"replay:{replay}", out=tmp_path / "runs", run_id="rp")
    answers = {a["question_id"]: a for a in lines(result.run_dir)}
    assert answers["q3"]["status"] == "error" and answers["q3"]["error"]["type"] == "missing_in_replay"
    q2 = answers["q2"]
    assert q2["answer_text"] == "Порог сдачи — 80 %."
    # hand-worked: the uncited lead-in joins the cited block up to the sentence's end: one claim
    assert [(c["claim_id"], c["text"], c["evidence_ids"]) for c in q2["claims"]] == [
        ("c1", "Порог сдачи — 80 %.", ["E1"])]
    assert q2["claims"][0]["quote"] == "Порог сдачи теста 80 %." and q2["claims"][0]["span"] == [0, 19]
    assert q2["evidence"] == [{"evidence_id": "E1", "citation_type": "char_location", "document_id": "train",
                               "version_id": "train-v2", "char_start": 54, "char_end": 77,
                               "text": "Порог сдачи теста 80 %."}]
    assert q2["usage"]["input_tokens"] == 120


def test_anthropic_page_and_block_locations(tmp_path):
    from datetime import datetime, timezone

    from evals.data.registry import Registry

    registry = Registry.load(write_dataset(tmp_path / "ds"))
    answer = anthropic_to_answer({
        "question_id": "q", "documents": [{"document_id": "train", "version_id": "train-v2",
                                           "chunk_ids": ["a2-1", "a2-2"]}],
        "content": [{"type": "text", "text": "Порог — 80 %.", "citations": [
            {"type": "page_location", "document_index": 0, "cited_text": "Порог сдачи теста 80 %.",
             "start_page_number": 2, "end_page_number": 3},
            {"type": "content_block_location", "document_index": 0, "cited_text": "Порог сдачи теста 80 %.",
             "start_block_index": 1, "end_block_index": 2}]}]}, registry, datetime(2025, 6, 1, tzinfo=timezone.utc))
    # page 2 (end 3 is exclusive) holds chunk a2-2; block 1 of chunk_ids is a2-2 too
    assert [(e.evidence_id, e.page, e.chunk_id) for e in answer.evidence] == [("E1", 2, "a2-2"), ("E2", None, "a2-2")]
    assert answer.claims[0].evidence_ids == ["E1", "E2"]


def test_bad_replay_line_names_file_and_line(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    replay = tmp_path / "answers.jsonl"
    replay.write_text('{"question_id": "q1", "status": "answered"}\n{"question_id": "q2", "status": "maybe"}\n')
    result = CliRunner().invoke(app, ["run", str(ds), "--backend", f"replay:{replay}", "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert f"{replay}:2: status: Input should be 'answered', 'abstained' or 'error'" in result.output
    assert not (tmp_path / "r").exists()  # nothing half-written


def sync_backend(payload):
    return {"status": "answered", "answer_text": payload["question"].upper()}


async def async_backend(payload):
    if payload["question_id"] == "q2":
        raise RuntimeError("model overloaded")
    return {"status": "abstained", "answer_text": "", "abstain_reason": payload["asked_at"]}


def test_python_backends(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    sys.modules.setdefault("test_run", sys.modules[__name__])
    r1 = start_run(ds, "python:test_run:sync_backend", out=tmp_path / "runs", run_id="py1")
    assert {a["question_id"]: a["answer_text"] for a in lines(r1.run_dir)}["q1"] == "КАК ЧАСТО ПРОХОДИТЬ ОБУЧЕНИЕ?"
    r2 = start_run(ds, "python:test_run:async_backend", out=tmp_path / "runs", run_id="py2")
    answers = {a["question_id"]: a for a in lines(r2.run_dir)}
    assert answers["q2"]["status"] == "error" and answers["q2"]["error"] == {"type": "RuntimeError", "message": "model overloaded"}
    assert answers["q1"]["abstain_reason"] == "2024-05-01T00:00:00+00:00"  # asked_at reaches the backend


def test_resume_repairs_a_half_written_line(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    first = start_run(ds, "reference", out=tmp_path / "runs", run_id="r")
    path = first.run_dir / "answers.jsonl"
    full = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(full[0] + full[1][:25], encoding="utf-8")  # a kill in the middle of line 2
    resume_run(first.run_dir)
    assert sorted(path.read_text(encoding="utf-8").splitlines(keepends=True)) == sorted(full)


@pytest.mark.slow
@pytest.mark.skipif(not (DEMO / "questions.jsonl").exists(), reason="demo dataset not built")
def test_sigkill_three_times_then_identical_to_uninterrupted(tmp_path):
    env = {**os.environ, "CI": "true"}
    cmd = [sys.executable, str(ROOT / "cli.py"), "run", str(DEMO), "--backend", "reference", "--concurrency", "1",
           "--out", str(tmp_path)]
    subprocess.run([*cmd, "--run-id", "clean"], check=True, env=env, capture_output=True)
    reference = sorted((tmp_path / "clean" / "answers.jsonl").read_text(encoding="utf-8").splitlines())
    total = len(reference)
    rng = random.Random(20261130)
    killed_at = []
    run_dir = tmp_path / "killed"
    for attempt in range(3):
        target = rng.randint(1 + attempt * total // 4, (attempt + 1) * total // 4)
        args = [*cmd, "--run-id", "killed"] if attempt == 0 else [*cmd[:3], "--resume", str(run_dir)]
        proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        answers = run_dir / "answers.jsonl"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            if answers.exists() and answers.read_bytes().count(b"\n") >= target:
                break
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed_at.append(answers.read_bytes().count(b"\n"))
    assert killed_at[-1] < total, f"the run finished before the last kill: {killed_at}"
    subprocess.run([*cmd[:3], "--resume", str(run_dir)], check=True, env=env, capture_output=True)
    final = sorted((run_dir / "answers.jsonl").read_text(encoding="utf-8").splitlines())
    assert final == reference


def test_bundled_anthropic_sample_replays_clean(tmp_path):
    """datasets/demo/answers/anthropic-sample.jsonl: six Claude-format answers with char_location
    citations into the editions' full texts; every citation must check out."""
    from evals.score.scoring import score_run

    run = start_run(DEMO, f"replay:{DEMO / 'answers' / 'anthropic-sample.jsonl'}", out=tmp_path, run_id="a").run_dir
    scores = score_run(run, judge="none").scores
    answered = [json.loads(x) for x in (run / "answers.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sum(a["status"] == "answered" for a in answered) == 6
    assert scores["metrics"]["citation_validity"] == {"value": 1.0, "ci": [1.0, 1.0], "n": 6}
    assert scores["metrics"]["quote_exactness"]["value"] == 1.0
    # the other demo questions have no recorded answer: errors, never abstentions; the findings that
    # grade the sample's content against gold (basis "gold": key facts, gold evidence, anchors) are
    # not about its citations
    n_questions = len((DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines())
    findings = [json.loads(x) for x in (run / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    assert Counter(f["code"] for f in findings if f.get("basis") != "gold") == {"BACKEND_ERROR": n_questions - 6}


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_resume_finishes(tmp_path):
    ds = write_dataset(tmp_path / "ds")
    many_questions(ds, 60)
    (tmp_path / "slowmod.py").write_text(
        "import time\n"
        "def answer(payload):\n"
        "    time.sleep(0.05)\n"
        "    return {'status': 'abstained', 'abstain_reason': payload['question_id']}\n",
        encoding="utf-8",
    )
    env = {**os.environ, "CI": "true"}
    cmd = [sys.executable, str(ROOT / "cli.py"), "run", str(ds), "--backend", "python:slowmod:answer",
           "--concurrency", "1", "--out", str(tmp_path / "runs"), "--run-id", "c"]
    # a suite started from a background job (`bash scripts/test.sh &`) hands its children SIGINT
    # ignored; the child must get the default handler back, or Ctrl-C could never reach it
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    answers = tmp_path / "runs" / "c" / "answers.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (answers.exists() and answers.read_bytes().count(b"\n") >= 10):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "resume with --resume" in err and "Traceback" not in err
    kept = answers.read_text(encoding="utf-8").splitlines()
    assert 10 <= len(kept) < 60 and all(json.loads(line)["status"] == "abstained" for line in kept)
    manifest = json.loads((tmp_path / "runs" / "c" / "manifest.json").read_text())
    assert manifest["options"]["status"] == "interrupted"
    done = subprocess.run([*cmd[:3], "--resume", str(tmp_path / "runs" / "c")], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    ids = [json.loads(line)["question_id"] for line in answers.read_text(encoding="utf-8").splitlines()]
    assert sorted(ids) == [f"q{i:02d}" for i in range(60)]


@pytest.mark.parametrize("spec,url", [
    ("http:https://bot.example/answer", "https://bot.example/answer"),
    ("https://bot.example/answer", "https://bot.example/answer"),
    ("http://127.0.0.1:9/answer", "http://127.0.0.1:9/answer"),
])
def test_http_spec_forms(spec, url):
    from evals.run.backends import make_backend

    assert make_backend(spec).url == url
