"""A wrong answer says what is wrong (issue 31): one line per problem naming the file, the line
and the field, with a hint for the common mistakes — in a replay file, from an http or python
backend, and in the UNRESOLVED_CHUNK finding of evidence that names no registry chunk."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from factories import write_dataset, write_jsonl
from typer.testing import CliRunner

from cli import app

runner = CliRunner()


@pytest.fixture()
def ds(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "ds")


def _run(ds: Path, backend: str, tmp_path: Path, *extra: str) -> Any:
    return runner.invoke(app, ["run", str(ds), "--backend", backend, "--out", str(tmp_path / "runs"),
                               "--run-id", "r", *extra])


def _errors(result: Any) -> list[str]:
    return [line for line in result.stderr.splitlines() if line.startswith("error: ")]


@pytest.mark.parametrize(("line", "expected"), [
    ({"question_id": "q1", "answer_text": "Раз в год."},
     ["status: required field is missing (one of answered, abstained, error)"]),
    ({"status": "answered", "answer_text": "Раз в год."},
     ["question_id: required field is missing (the question_id of the question it answers, as in questions.jsonl)"]),
    ({"question_id": "q1", "status": "ok"},
     ["status: Input should be 'answered', 'abstained' or 'error' (got \"ok\")"]),
    ({"question_id": "q1", "status": "answered", "evidence": [{"id": "E1", "chunk_id": "a1-1"}]},
     ['evidence.0.evidence_id: required field is missing (the line has "id": name it evidence_id)']),
    ({"question_id": "q1", "status": "answered", "claims": [{"text": "Раз в год.", "evidence_ids": "E1"}]},
     ['claims.0.claim_id: required field is missing (an id of the claim within the answer, e.g. "c1")',
      'claims.0.evidence_ids: Input should be a valid list (got "E1"): evidence_ids is a list of evidence ids, '
      'e.g. ["E1"]']),
    ({"question_id": "q1", "status": "answered", "evidence": {"evidence_id": "E1"}},
     ['evidence: Input should be a valid list (got {"evidence_id": "E1"}): evidence is a list of '
      '{evidence_id, chunk_id} objects (or version_id with char_start and char_end)']),
])
def test_a_wrong_replay_line_gives_one_line_per_problem_with_a_hint(
    ds: Path, tmp_path: Path, line: dict[str, Any], expected: list[str]
) -> None:
    replay = tmp_path / "replay.jsonl"
    write_jsonl(replay, [{"question_id": "q2", "status": "abstained"}, line])
    result = _run(ds, f"replay:{replay}", tmp_path)
    assert result.exit_code == 2
    assert _errors(result) == [f"error: {replay}:2: {problem}" for problem in expected]
    assert "validation error" not in result.output and "errors.pydantic.dev" not in result.output
    assert not (tmp_path / "runs").exists()  # nothing half-written


class _WrongShape(BaseHTTPRequestHandler):
    """Answers every question in a shape that is no Answer: a status citeval does not know, an
    evidence list keyed by "id", a claim without its id."""

    reply = {"status": "ok", "answer_text": "Раз в год [E1].", "evidence": [{"id": "E1", "chunk_id": "a1-1"}],
             "claims": [{"text": "Раз в год.", "evidence_ids": ["E1"]}]}

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps(self.reply).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def wrong_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _WrongShape)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/answer"
    server.shutdown()
    server.server_close()


PROBLEMS = ("status: Input should be 'answered', 'abstained' or 'error' (got \"ok\"); "
            "claims.0.claim_id: required field is missing (an id of the claim within the answer, e.g. \"c1\"); "
            "evidence.0.evidence_id: required field is missing (the line has \"id\": name it evidence_id)")


def _error_messages(tmp_path: Path) -> set[str]:
    lines = (tmp_path / "runs" / "r" / "answers.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["error"]["message"] for line in lines}


def test_an_http_reply_that_is_no_answer_names_each_field_on_one_line(
    ds: Path, tmp_path: Path, wrong_server: str
) -> None:
    result = _run(ds, f"http:{wrong_server}", tmp_path, "--retries", "0")
    assert result.exit_code == 3
    assert "runs/r: 3 question(s): 0 answered, 0 abstained, 3 error(s)" in result.stdout
    assert _errors(result) == [f"error: backend failed on all 3 questions: invalid_response: reply is not an "
                               f"Answer: {PROBLEMS}"]
    assert _error_messages(tmp_path) == {f"reply is not an Answer: {PROBLEMS}"}


def test_a_python_callable_that_returns_no_answer_names_each_field(
    ds: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "wrong_bot.py").write_text(
        f"def answer(payload):\n    return {_WrongShape.reply!r}\n\n\ndef nothing(payload):\n    return None\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "wrong_bot", raising=False)
    result = _run(ds, "python:wrong_bot:answer", tmp_path)
    assert result.exit_code == 3
    assert _error_messages(tmp_path) == {f"callable returned no valid Answer: {PROBLEMS}"}
    assert len(_errors(result)) == 1 and "errors.pydantic.dev" not in result.output
    result = runner.invoke(app, ["run", str(ds), "--backend", "python:wrong_bot:nothing", "--out",
                                 str(tmp_path / "runs"), "--run-id", "none"])
    assert result.exit_code == 3
    assert "invalid_response: callable returned nothing, not an Answer" in result.stderr


def test_unresolved_chunk_says_what_to_send(ds: Path, tmp_path: Path) -> None:
    def answer(qid: str, evidence: dict[str, Any]) -> dict[str, Any]:
        return {"question_id": qid, "status": "answered", "answer_text": "Раз в 12 месяцев [E1].",
                "claims": [{"claim_id": "c1", "text": "Раз в 12 месяцев.", "evidence_ids": ["E1"]}],
                "evidence": [{"evidence_id": "E1", **evidence}]}

    replay = tmp_path / "replay.jsonl"
    write_jsonl(replay, [
        answer("q1", {"document_id": "train", "text": "Обучение проводится не реже одного раза в 12 месяцев."}),
        answer("q2", {"chunk_id": "a9-9"}),
        answer("q3", {"version_id": "train-v1", "char_start": 40, "char_end": 60}),  # across chunks a1-1 and a1-2
    ])
    assert _run(ds, f"replay:{replay}", tmp_path).exit_code == 0
    scored = runner.invoke(app, ["score", str(tmp_path / "runs" / "r"), "--judge", "none"])
    assert scored.exit_code == 0, scored.output
    findings = [json.loads(line) for line in
                (tmp_path / "runs" / "r" / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    details = {f["question_id"]: f["detail"] for f in findings if f["code"] == "UNRESOLVED_CHUNK"}
    assert details == {
        "q1": "evidence E1 names no registry chunk: send chunk_id (from registry/chunks.jsonl), or version_id "
              "with char_start and char_end",
        "q2": "evidence E1: chunk_id 'a9-9' is not in registry/chunks.jsonl",
        "q3": "evidence E1: no chunk of edition train-v1 spans characters 40–60 (chunk char spans index "
              "registry/texts/train-v1.txt)",
    }
