"""Wrong shapes and wrong specs (issue 33, the first audit's open rows): each a clean exit 2 naming
the file and line (or the spec), before anything runs — never accepted silently, never a traceback.

- an Anthropic line whose `usage` is a list, a string or a number (a response, a stream's
  message_start or message_delta, a flat log line's usage_out);
- an ingest manifest giving one version_id (or document_id) twice: the manifest's lines, not
  the registry files it would have become;
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from factories import INGEST_MANIFEST
from typer.testing import CliRunner

from cli import app

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "datasets" / "demo"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def _sample() -> dict[str, Any]:
    line = (DEMO / "answers" / "anthropic-sample.jsonl").read_text(encoding="utf-8").splitlines()[0]
    return json.loads(line)


def _message_start(usage: Any) -> dict[str, Any]:
    return {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant",
                                                 "model": "claude", "content": [], "usage": usage}}


def _lines() -> dict[str, dict[str, Any]]:
    sample = _sample()
    head = {"question_id": sample["question_id"], "documents": sample["documents"]}
    good_start = _message_start({"input_tokens": 3, "output_tokens": 1})
    return {
        "response-usage-list": {**sample, "usage": [10, 20]},
        "response-usage-string": {**sample, "usage": "10 in, 20 out"},
        "response-usage-number": {**sample, "usage": 30},
        "stream-start-usage-list": {**head, "events": [_message_start([10, 20])]},
        "stream-delta-usage-list": {**head, "events": [good_start, {"type": "message_delta",
                                                                    "delta": {"stop_reason": "end_turn"},
                                                                    "usage": [20]}]},
    }


@pytest.mark.parametrize("case", list(_lines()))
def test_an_anthropic_line_with_usage_of_the_wrong_shape_is_exit_2_naming_file_and_line(case, tmp_path):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(json.dumps(_lines()[case], ensure_ascii=False) + "\n", encoding="utf-8")
    result = invoke("run", str(DEMO), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
                    "--run-id", "r", "--limit", "1")
    assert result.exit_code == 2, result.output
    assert f"{replay}:1:" in result.output and "usage" in result.output
    assert "a bug in citeval" not in result.output and not (tmp_path / "runs" / "r").exists()


@pytest.mark.parametrize("holder", ["usage", "usage_out"])
def test_a_flat_log_line_with_usage_of_the_wrong_shape_is_exit_2_naming_file_and_line(holder, tmp_path):
    sample = _sample()
    text = "".join(b.get("text", "") for b in sample["content"] if isinstance(b, dict))
    flat = {"question_id": sample["question_id"], "documents": sample["documents"], "text": text,
            "citations": [], holder: [{"input_tokens": 1}]}
    logs = tmp_path / "bot.jsonl"
    logs.write_text(json.dumps({"question_id": "none"}) + "\n" + json.dumps(flat, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    result = invoke("data", "import", "anthropic", str(logs), "--dataset", str(DEMO), "--out",
                    str(tmp_path / "answers.jsonl"))
    assert result.exit_code == 2, result.output
    assert f"{logs}:2:" in result.output and f"{holder} must be an object" in result.output
    assert not (tmp_path / "answers.jsonl").exists()


# INGEST_MANIFEST's document with a second edition, and a second document ({second}, {document}
# chosen by each case to repeat a version_id or a document_id)
TWO_EDITIONS = INGEST_MANIFEST + """
[[document.edition]]
revision = 2
version_id = "{second}"
file = "doc/v2.md"
effective_from = "2025-01-01"

[[document]]
document_id = "{document}"
title = "Второе"

[[document.edition]]
version_id = "other-v1"
revision = 1
file = "doc/v1.md"
effective_from = "2024-01-01"
"""


@pytest.mark.parametrize(("second", "document", "line", "first", "field"), [
    ("doc-v1", "other", 15, 8, "version_id"),
    ("doc-v2", "doc", 20, 3, "document_id"),
])
def test_an_id_given_twice_in_an_ingest_manifest_names_the_manifest_lines(second, document, line, first, field,
                                                                         tmp_path):
    sources = tmp_path / "SOURCES"
    (sources / "doc").mkdir(parents=True)
    (sources / "doc" / "v1.md").write_text("# Положение\n\nТекст один.\n", encoding="utf-8")
    (sources / "doc" / "v2.md").write_text("# Положение\n\nТекст два.\n", encoding="utf-8")
    manifest = sources / "manifest.toml"
    manifest.write_text(TWO_EDITIONS.format(second=second, document=document), encoding="utf-8")
    result = invoke("data", "ingest", str(sources), "--out", str(tmp_path / "ds"))
    assert result.exit_code == 2, result.output
    assert f"{manifest}:{line}:" in result.output and f"first at {manifest}:{first}" in result.output
    assert field in result.output
    assert "versions.jsonl" not in result.output and "chunks.jsonl" not in result.output  # not the would-be files
    assert not (tmp_path / "ds").exists()


def test_a_streamed_block_input_nested_too_deep_is_kept_as_streamed_text(tmp_path):
    """A block type newer than the SDK keeps its streamed input; input that nests 100,000 deep
    cannot be parsed (RecursionError) and stays the text it streamed as: the run goes on."""
    sample = _sample()
    deep = "[" * 100_000 + "]" * 100_000
    events = [
        _message_start({"input_tokens": 3, "output_tokens": 1}),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "brand_new_block", "id": "b"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": deep}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
    ]
    replay = tmp_path / "replay.jsonl"
    line = {"question_id": sample["question_id"], "documents": sample["documents"], "events": events}
    replay.write_text(json.dumps(line) + "\n", encoding="utf-8")
    result = invoke("run", str(DEMO), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"),
                    "--run-id", "r", "--limit", "1")
    assert result.exit_code == 0, result.output
    assert invoke("score", str(tmp_path / "runs" / "r")).exit_code == 0
