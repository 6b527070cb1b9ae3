"""Hostile and careless inputs through the real CLI: every bad file a clean exit 2 naming the file
(and the line where there is one), no traceback, nothing on disk changed; valid oddities (a BOM,
CR LF line ends, a last line without its newline) accepted and scored as the plain file is.

One small world (a dataset, a scored run, a gates file, pairs, quotes, an Anthropic log, a
Label Studio export, ingest sources) is built once; each case corrupts one file of a copy and
runs one command in-process.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from factories import INGEST_MANIFEST, TEXT_A1, write_dataset
from typer.testing import CliRunner

from cli import app
from evals.run.runner import start_run
from evals.score.scoring import score_run

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


# --- the world ---------------------------------------------------------------------------


PAIRS = [
    {"pair_id": "a", "claim": "Обучение раз в 12 месяцев.", "evidence": [TEXT_A1], "label": "supported"},
    {"pair_id": "b", "claim": "Порог 70 %.", "evidence": [TEXT_A1]},
]


REPLAY = [
    {"question_id": "q1", "status": "answered", "answer_text": "Раз в 12 месяцев. [E1]",
     "claims": [{"claim_id": "c1", "text": "Раз в 12 месяцев.", "evidence_ids": ["E1"]}],
     "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1"}],
     "links": [{"evidence_id": "E1", "url": "https://docs.example/d/train/v/1"}]},
    {"question_id": "q2", "status": "answered", "answer_text": "Порог 80 %. [E1]",
     "claims": [{"claim_id": "c1", "text": "Порог 80 %.", "evidence_ids": ["E1"]}],
     "evidence": [{"evidence_id": "E1", "chunk_id": "a2-2"}],
     "links": [{"evidence_id": "E1", "url": "https://docs.example/d/train/v/2"}]},
    {"question_id": "q3", "status": "abstained"},
]
HUMAN = [
    {"run_id": "r", "question_id": "q1", "source": "human:a@bank.test", "field": "should_abstain", "value": "no",
     "at": "2024-04-01T10:00:00Z"},
    {"run_id": "r", "question_id": "q1", "source": "human:b@bank.test", "field": "should_abstain", "value": "no",
     "at": "2024-04-01T11:00:00Z"},
]


def _ls_export(run: Path) -> list[dict[str, Any]]:
    from evals.label.tasks import TaskBuilder
    from evals.store.runfolder import RunFolder

    tasks = TaskBuilder(RunFolder(run)).tasks()
    out = []
    for i, task in enumerate(tasks, 1):
        out.append({
            "id": i, "data": task["data"], "meta": task.get("meta", {}),
            "annotations": [{
                "id": 100 + i, "completed_by": {"email": "a@bank.test"}, "was_cancelled": False,
                "updated_at": "2024-04-01T10:00:00Z", "task": i,
                "result": [{"from_name": "should_abstain", "to_name": "answer", "type": "choices",
                            "value": {"choices": ["no"]}}],
            }],
        })
    return out


def _anthropic_log() -> list[dict[str, Any]]:
    return [{
        "question_id": "q1", "documents": [{"document_id": "train", "version_id": "train-v1"}],
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "Раз в 12 месяцев."}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }]


def _jsonl(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("world")
    ds = write_dataset(root / "ds")
    (root / "replay.src.jsonl").write_text(_jsonl(REPLAY), encoding="utf-8")
    run = start_run(ds, f"replay:{root / 'replay.src.jsonl'}", out=root / "runs", run_id="r").run_dir
    (run / "judgments.jsonl").write_text(_jsonl(HUMAN), encoding="utf-8")
    score_run(run, judge="offline")
    shutil.copy(ROOT / "evals" / "gate" / "default.toml", root / "gates.toml")
    (root / "pairs.jsonl").write_text(_jsonl(PAIRS), encoding="utf-8")
    shutil.copy(ROOT / "datasets" / "demo" / "quotes" / "answers.jsonl", root / "quotes.jsonl")
    lines = (root / "quotes.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:3]
    (root / "quotes.jsonl").write_text("".join(lines), encoding="utf-8")
    (root / "logs").mkdir()
    (root / "logs" / "a.jsonl").write_text(_jsonl(_anthropic_log()), encoding="utf-8")
    (root / "export.json").write_text(json.dumps(_ls_export(run), ensure_ascii=False, indent=1), encoding="utf-8")
    src = root / "src"
    (src / "doc").mkdir(parents=True)
    (src / "doc" / "v1.md").write_text("# Положение\n\n1. Первый пункт.\n\n2. Второй пункт.\n", encoding="utf-8")
    (src / "manifest.toml").write_text(INGEST_MANIFEST, encoding="utf-8")
    csv_ds = root / "ds_csv"
    shutil.copytree(ds, csv_ds)
    (csv_ds / "questions.jsonl").unlink()
    (csv_ds / "questions.csv").write_text(
        "question_id,question,asked_at,risk_tier,tags\n"
        "q1,Как часто проходить обучение?,2024-05-01,policy,version_trap\n"
        "q2,Какой порог сдачи теста?,2025-06-01,critical,numeric;x\n",
        encoding="utf-8",
    )
    return root


def folder_hash(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(root.rglob("*"))
    }


# --- cases -------------------------------------------------------------------------------

Mutate = Callable[[Path], None]


@dataclass
class Case:
    id: str
    mutate: Mutate
    args: list[str]  # "{w}" stands for the world copy
    where: str | None  # the message must contain this (file[:line])
    env: dict[str, str] = field(default_factory=dict)
    code: int = 2


def _insert_line(rel: str, line: bytes, at: int = 1) -> Mutate:
    def mutate(w: Path) -> None:
        path = w / rel
        lines = path.read_bytes().splitlines(keepends=True)
        lines.insert(at, line.rstrip(b"\n") + b"\n")
        path.write_bytes(b"".join(lines))

    return mutate


def _edit_first(rel: str, edit: Callable[[dict[str, Any]], dict[str, Any] | str]) -> Mutate:
    """Replace line 2 by an edited copy of line 1 (so line 1 stays a good record)."""

    def mutate(w: Path) -> None:
        path = w / rel
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        edited = edit(json.loads(lines[0]))
        text = edited if isinstance(edited, str) else json.dumps(edited)  # ASCII: a lone surrogate escaped
        lines.insert(1, text + "\n")
        path.write_text("".join(lines), encoding="utf-8")

    return mutate


def _write(rel: str, data: bytes) -> Mutate:
    def mutate(w: Path) -> None:
        (w / rel).write_bytes(data)

    return mutate


def _set(obj: dict[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    target = obj
    *parents, last = dotted.split(".")
    for key in parents:
        target = target[key] if not isinstance(target, list) else target[int(key)]
    if isinstance(target, list):
        target[int(last)] = value
    else:
        target[last] = value
    return obj


def _drop(obj: dict[str, Any], key: str) -> dict[str, Any]:
    obj.pop(key)
    return obj


def _dup_key(obj: dict[str, Any]) -> str:
    text = json.dumps(obj)
    key = next(iter(obj))
    return "{" + json.dumps(key) + ": " + json.dumps(obj[key]) + ", " + text[1:]


# Line-level corruptions any JSONL reader must refuse, each put at line 2.
GENERIC_LINES: dict[str, bytes] = {
    "bad_utf8": b'{"x": "caf\xe9"}',
    "latin1_byte_in_key": b'{"\xff": 1}',
    "truncated": b'{"question_id": "q',
    "deep_nesting_recursion": b"[" * 100_000,
    "deep_nesting_over_limit": b'{"a":' * 300 + b"1" + b"}" * 300,
    "huge_integer": b'{"x": ' + b"9" * 5000 + b"}",
    "long_integer_over_limit": b'{"x": ' + b"9" * 1200 + b"}",
    "lone_surrogate": b'{"x": "\\ud800"}',
    "lone_low_surrogate_key": b'{"\\udc00": 1}',
    "nan": b'{"x": NaN}',
    "infinity": b'{"x": -Infinity}',
    "float_overflow": b'{"x": 1e999}',
    "array": b"[1, 2, 3]",
    "string": b'"just text"',
    "number": b"42",
    "null": b"null",
    "control_char": b'{"x": "a\x01b"}',
    "nul_bytes": b"\x00\x00\x00",
    "trailing_garbage": b'{"x": 1} {"y": 2}',
}

RUN_SAMPLE = ("bad_utf8", "deep_nesting_recursion", "huge_integer", "lone_surrogate", "nan", "truncated")

# Record-level corruptions per file: (name, edit of a good line 1)
RECORD_EDITS: dict[str, list[tuple[str, Callable[[dict[str, Any]], Any]]]] = {
    "ds/registry/documents.jsonl": [
        ("missing_id", lambda o: _drop(o, "document_id")),
        ("id_is_number", lambda o: _set(o, "document_id", 5)),
        ("acl_not_list", lambda o: _set(o, "acl", "all")),
        ("acl_from_epoch", lambda o: _set(o, "acl", [{"group": "hr", "from": 1700000000}])),
        ("duplicate_id", lambda o: o),
        ("duplicate_key", _dup_key),
        ("surrogate_in_title", lambda o: _set(o, "title", "\ud800")),
    ],
    "ds/registry/versions.jsonl": [
        ("missing_id", lambda o: _drop(o, "version_id")),
        ("revision_text", lambda o: _set(o, "revision", "one")),
        ("effective_from_epoch", lambda o: _set(o, "effective_from", 1700000000)),
        ("effective_from_garbage", lambda o: _set(o, "effective_from", "yesterday")),
        ("duplicate_id", lambda o: o),
        ("duplicate_key", _dup_key),
    ],
    "ds/registry/chunks.jsonl": [
        ("missing_text", lambda o: _drop(o, "text")),
        ("heading_not_list", lambda o: _set(o, "heading_path", "Обучение")),
        ("reversed_chars", lambda o: {**o, "chunk_id": "z", "char_start": 40, "char_end": 3}),
        ("reversed_pages", lambda o: {**o, "chunk_id": "z", "page_start": 3, "page_end": 1}),
        ("negative_start", lambda o: {**o, "chunk_id": "z", "char_start": -4}),
        ("duplicate_id", lambda o: o),
        ("duplicate_key", _dup_key),
    ],
    "ds/questions.jsonl": [
        ("missing_question", lambda o: _drop(o, "question")),
        ("blank_id", lambda o: _set(o, "question_id", "  ")),
        ("asked_at_epoch", lambda o: {**o, "question_id": "z", "asked_at": 1700000000}),
        ("asked_at_float", lambda o: {**o, "question_id": "z", "asked_at": 1.7e9}),
        ("asked_at_garbage", lambda o: {**o, "question_id": "z", "asked_at": "tomorrow"}),
        ("unknown_tier", lambda o: {**o, "question_id": "z", "risk_tier": "extreme"}),
        ("tags_not_list", lambda o: {**o, "question_id": "z", "tags": {"a": 1}}),
        ("gold_reversed", lambda o: {**o, "question_id": "z", "gold": {"evidence": [
            {"document_id": "train", "char_start": 9, "char_end": 2}]}}),
        ("duplicate_id", lambda o: o),
        ("duplicate_key", _dup_key),
    ],
    "runs/r/answers.jsonl": [
        ("bad_status", lambda o: _set(o, "status", "perhaps")),
        ("missing_status", lambda o: _drop(o, "status")),
        ("claims_not_list", lambda o: _set(o, "claims", "c1")),
        ("reversed_span", lambda o: {**o, "claims": [{"claim_id": "c", "text": "t", "span": [9, 2]}]}),
        ("reversed_evidence", lambda o: {**o, "evidence": [{"evidence_id": "E", "char_start": 9, "char_end": 1}]}),
        ("duplicate_key", _dup_key),
        ("surrogate_in_text", lambda o: _set(o, "answer_text", "\udfff")),
        ("duplicate_claim_id", lambda o: {**o, "claims": [{"claim_id": "c", "text": "a"}, {"claim_id": "c", "text": "b"}]}),
        ("duplicate_evidence_id", lambda o: {**o, "evidence": [{"evidence_id": "E", "chunk_id": "a1-1"},
                                                               {"evidence_id": "E", "chunk_id": "a1-2"}]}),
    ],
    "runs/r/judgments.jsonl": [
        ("bad_value", lambda o: _set(o, "value", "maybe")),
        ("bad_source", lambda o: _set(o, "source", "robot")),
        ("at_epoch", lambda o: _set(o, "at", 1700000000)),
        ("missing_field", lambda o: _drop(o, "field")),
        ("duplicate_key", _dup_key),
    ],
}

COMMANDS: dict[str, list[list[str]]] = {
    "ds/registry/documents.jsonl": [["data", "validate", "{w}/ds"], ["run", "{w}/ds", "--out", "{w}/runs2"]],
    "ds/registry/versions.jsonl": [["data", "validate", "{w}/ds"], ["run", "{w}/ds", "--out", "{w}/runs2"]],
    "ds/registry/chunks.jsonl": [["data", "validate", "{w}/ds"], ["run", "{w}/ds", "--out", "{w}/runs2"]],
    "ds/questions.jsonl": [["data", "validate", "{w}/ds"], ["run", "{w}/ds", "--out", "{w}/runs2"]],
    "runs/r/answers.jsonl": [["score", "{w}/runs/r", "--judge", "none"]],
    "runs/r/judgments.jsonl": [["score", "{w}/runs/r", "--judge", "none"], ["agree", "{w}/runs/r"]],
}


def _cases() -> list[Case]:
    cases: list[Case] = []
    for rel, commands in COMMANDS.items():
        name = rel.rsplit("/", 1)[1]
        for args in commands:
            tag = f"{name}-{args[0] if args[0] != 'data' else args[1]}"
            for kind, line in GENERIC_LINES.items():
                if args[0] in ("run", "agree") and kind not in RUN_SAMPLE:
                    continue  # the same reader as the file's first command: a sample is enough
                cases.append(Case(f"{tag}-{kind}", _insert_line(rel, line), args, f"{name}:2"))
            for kind, edit in RECORD_EDITS.get(rel, []):
                cases.append(Case(f"{tag}-{kind}", _edit_first(rel, edit), args, f"{name}:2"))
            cases.append(Case(f"{tag}-utf16", lambda w, rel=rel: (w / rel).write_bytes(
                (w / rel).read_text(encoding="utf-8").encode("utf-16")), args, f"{name}:1"))
            cases.append(Case(f"{tag}-line_over_cap", lambda w: None, args, "line longer than 40 bytes",
                              env={"CITEVAL_JSON_MAX_LINE_BYTES": "40"}))
    cases += _single_file_cases()
    return cases


def _single_file_cases() -> list[Case]:
    score = ["score", "{w}/runs/r", "--judge", "none"]
    gate = ["gate", "{w}/runs/r"]
    report = ["report", "{w}/runs/r", "--out", "{w}/out.html"]
    validate = ["data", "validate", "{w}/ds"]
    cases = []
    # manifest.json
    for cmd_name, args in (("score", score), ("report", report), ("compare", ["compare", "{w}/runs/r", "{w}/runs/r"])):
        for kind, data in {
            "not_json": b"{nope", "bad_utf8": b'{"run_id": "\xff"}', "array": b"[]", "empty": b"",
            "deep": b"[" * 100_000, "surrogate": b'{"run_id": "\\ud800"}', "dup_key": b'{"run_id": "a", "run_id": "b"}',
        }.items():
            cases.append(Case(f"manifest-{cmd_name}-{kind}", _write("runs/r/manifest.json", data), args,
                              "manifest.json"))
        cases.append(Case(f"manifest-{cmd_name}-started_epoch", _json_edit("runs/r/manifest.json",
                          lambda o: _set(o, "started_at", 1700000000)), args, "manifest.json"))
        cases.append(Case(f"manifest-{cmd_name}-missing_dataset", _json_edit("runs/r/manifest.json",
                          lambda o: _drop(o, "dataset")), args, "manifest.json"))
    # run ids steer folder and report names
    for cmd_name, args in (("report", ["report", "{w}/runs/r"]), ("score", score)):
        for kind, run_id in (("dotdot", "../../../escape"), ("slash", "a/b"), ("dot", "..")):
            cases.append(Case(f"manifest-{cmd_name}-run_id_{kind}", _json_edit("runs/r/manifest.json",
                              lambda o, run_id=run_id: _set(o, "run_id", run_id)), args, "manifest.json"))
    for kind, run_id in (("dotdot", "../escape"), ("slash", "a/b"), ("dotdot_only", "..")):
        cases.append(Case(f"run-run_id_{kind}", lambda w: None, ["run", "{w}/ds", "--out", "{w}/runs2", "--run-id",
                                                                  run_id], None))
    bundle = ["bundle", "{w}/runs/r", "--out", "{w}/run.tar.gz"]
    for rel in ("runs/r/answers.jsonl", "runs/r/findings.jsonl", "runs/r/judgments.jsonl"):
        name = rel.rsplit("/", 1)[1]
        cases.append(Case(f"bundle-{name}-bad_utf8", _insert_line(rel, GENERIC_LINES["bad_utf8"]), bundle,
                          f"{name}:"))
    cases.append(Case("bundle-score_interrupted", _write("runs/r/score.complete", b'{"state": "writing"}'), bundle,
                      "score.complete"))
    cases.append(Case("label-push-missing_folder", lambda w: None, ["label", "push", "{w}/runs/r", "--to-file",
                                                                     "{w}/no/such/tasks.json"], "does not exist"))
    # scores.json
    for cmd_name, args in (("gate", gate), ("report", report)):
        for kind, data in {"not_json": b"{", "bad_utf8": b"\xff\xfe", "array": b"[1]", "huge_int":
                           b'{"n_questions": ' + b"1" * 5000 + b"}", "nan": b'{"metrics": NaN}'}.items():
            cases.append(Case(f"scores-{cmd_name}-{kind}", _write("runs/r/scores.json", data), args, "scores.json"))
        cases.append(Case(f"scores-{cmd_name}-string_metric", _json_edit("runs/r/scores.json", _stringify_metric),
                          args, "scores.json"))
    # gates files
    gates = ["gate", "{w}/runs/r", "--gates", "{w}/gates.toml"]
    for kind, data in {
        "empty": b"", "only_comments": b"# nothing here\n", "no_rules": b'compare = "point"\n',
        "empty_tier": b"[overall]\n", "not_toml": b"[overall\n", "bad_utf8": b"[overall]\nx = \"\xff\"\n",
        "unknown_metric": b"[overall]\nno_such_metric = { min = 0.5 }\n",
        "rule_not_table": b"[overall]\ncitation_validity = 0.5\n", "min_text": b'[overall]\ncitation_validity = { min = "high" }\n',
        "duplicate_table": b"[overall]\nerror_rate = { max = 0.1 }\n[overall]\nerror_rate = { max = 0.2 }\n",
    }.items():
        cases.append(Case(f"gates-{kind}", _write("gates.toml", data), gates, "gates.toml"))
    # questions CSV
    csv_validate = ["data", "validate", "{w}/ds_csv"]
    csv_run = ["run", "{w}/ds_csv", "--out", "{w}/runs2"]
    header = b"question_id,question,asked_at,risk_tier,tags\n"
    for kind, (data, where) in {
        "ragged_row": (header + b"q1,a,2024-01-01,policy,x\nq2,b\n", "questions.csv:3"),
        "too_many_cells": (header + b"q1,a,2024-01-01,policy,x,extra\n", "questions.csv:2"),
        "bad_utf8": (header + b"q1,caf\xe9,2024-01-01,policy,x\n", "questions.csv:2"),
        "epoch_asked_at": (header + b"q1,a,1700000000,policy,x\n", "questions.csv:2"),
        "dup_id": (header + b"q1,a,2024-01-01,policy,x\nq1,b,2024-01-01,policy,x\n", "questions.csv:3"),
        "unknown_tier": (header + b"q1,a,2024-01-01,extreme,x\n", "questions.csv:2"),
        "bad_json_cell": (b"question_id,question,gold\nq1,a,\"{nope\"\n", "questions.csv:2"),
        "unclosed_quote": (header + b'q1,"a,2024-01-01,policy,x\n', "questions.csv"),
        "dup_column": (b"question_id,question,question\nq1,a,b\n", "questions.csv:1"),
        "header_only": (header, "questions.csv"),
        "empty": (b"", "questions.csv"),
    }.items():
        for cmd_name, args in (("validate", csv_validate), ("run", csv_run)):
            if cmd_name == "validate" and kind in NO_QUESTIONS:
                continue  # a dataset may be checked before it has questions; it cannot be run
            cases.append(Case(f"csv-{cmd_name}-{kind}", _write("ds_csv/questions.csv", data), args, where))
    # questions Parquet
    for kind, (make, where) in {
        "corrupt": (lambda p: p.write_bytes(b"PAR1 not really"), "questions.parquet"),
        "truncated": (lambda p: _parquet(p, [{"question_id": "q1", "question": "a"}], cut=20), "questions.parquet"),
        "epoch_asked_at": (lambda p: _parquet(p, [{"question_id": "q1", "question": "a", "asked_at": 1700000000}]),
                           "questions.parquet:1"),
        "dup_id": (lambda p: _parquet(p, [{"question_id": "q1", "question": "a"}, {"question_id": "q1",
                                                                                  "question": "b"}]),
                   "questions.parquet:2"),
        "tags_not_text": (lambda p: _parquet(p, [{"question_id": "q1", "question": "a", "tags": [1, 2]}]),
                          "questions.parquet:1"),
        "no_rows": (lambda p: _parquet(p, [], schema=True), "questions.parquet"),
    }.items():
        for cmd_name, args in (("validate", ["data", "validate", "{w}/ds_csv"]), ("run", csv_run)):
            if cmd_name == "validate" and kind in NO_QUESTIONS:
                continue
            cases.append(Case(f"parquet-{cmd_name}-{kind}", _as_parquet(make), args, where))
    # empty questions
    cases.append(Case("questions-run-empty", _write("ds/questions.jsonl", b""), ["run", "{w}/ds", "--out",
                      "{w}/runs2"], "questions.jsonl"))
    cases.append(Case("questions-run-blank_lines", _write("ds/questions.jsonl", b"\n\n  \n"),
                      ["run", "{w}/ds", "--out", "{w}/runs2"], "questions.jsonl"))
    # registry texts
    cases.append(Case("text-validate-bad_utf8", _write("ds/registry/texts/train-v1.txt", b"ok\n\xff\xfe"),
                      validate, "train-v1.txt:2"))
    cases.append(Case("text-validate-utf16", lambda w: (w / "ds/registry/texts/pay-v1.txt").write_bytes(
        (w / "ds/registry/texts/pay-v1.txt").read_text(encoding="utf-8").encode("utf-16")), validate, "pay-v1.txt:1"))
    # pairs
    pairs = ["judge", "{w}/pairs.jsonl"]
    for kind, line in list(GENERIC_LINES.items())[:12]:
        cases.append(Case(f"pairs-{kind}", _insert_line("pairs.jsonl", line), pairs, "pairs.jsonl:2"))
    for kind, edit in (("evidence_not_list", lambda o: _set(o, "evidence", 5)), ("missing_claim",
                       lambda o: _drop(o, "claim")), ("bad_label", lambda o: _set(o, "label", "maybe")),
                       ("dup_key", _dup_key)):
        cases.append(Case(f"pairs-{kind}", _edit_first("pairs.jsonl", edit), pairs, "pairs.jsonl:2"))
    # quotes
    quotes = ["quotes", "eval", "{w}/quotes.jsonl", "--matcher", "block"]
    for kind, line in list(GENERIC_LINES.items())[:12]:
        cases.append(Case(f"quotes-{kind}", _insert_line("quotes.jsonl", line), quotes, "quotes.jsonl:2"))
    for kind, edit in (("citations_not_list", lambda o: _set(o, "citations", "c1")),
                       ("missing_text", lambda o: _drop(o, "answer_text")), ("dup_key", _dup_key)):
        cases.append(Case(f"quotes-{kind}", _edit_first("quotes.jsonl", edit), quotes, "quotes.jsonl:2"))
    # Anthropic logs
    anth = ["data", "import", "anthropic", "{w}/logs", "--dataset", "{w}/ds", "--out", "{w}/replay.jsonl"]
    for kind, line in list(GENERIC_LINES.items())[:12]:
        cases.append(Case(f"anthropic-{kind}", _insert_line("logs/a.jsonl", line), anth, "a.jsonl:2"))
    for kind, edit in (
        ("content_not_list", lambda o: _set(o, "content", "hi")),
        ("content_item_not_object", lambda o: _set(o, "content", [5])),
        ("citations_not_list", lambda o: _set(o, "content", [{"type": "text", "text": "x", "citations": 5}])),
        ("citation_not_object", lambda o: _set(o, "content", [{"type": "text", "text": "x", "citations": [7]}])),
        ("citation_index_text", lambda o: _set(o, "content", [{"type": "text", "text": "x", "citations": [
            {"type": "char_location", "cited_text": "x", "document_index": "zero", "start_char_index": 0,
             "end_char_index": 1}]}])),
        ("citation_reversed", lambda o: _set(o, "content", [{"type": "text", "text": "x", "citations": [
            {"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 9,
             "end_char_index": 1}]}])),
        ("text_not_string", lambda o: _set(o, "content", [{"type": "text", "text": 5}])),
        ("usage_text", lambda o: _set(o, "usage", {"input_tokens": "many"})),
        ("documents_not_list", lambda o: _set(o, "documents", "reg")),
        ("document_not_object", lambda o: _set(o, "documents", [3])),
        ("events_not_list", lambda o: {**_drop(_drop(o, "content"), "type"), "events": 5}),
        ("event_not_object", lambda o: {**_drop(_drop(o, "content"), "type"), "events": [5]}),
        ("dup_key", _dup_key),
    ):
        cases.append(Case(f"anthropic-{kind}", _edit_first("logs/a.jsonl", _as_q2(edit)), anth, "a.jsonl:2"))
    # Label Studio exports
    pull = ["label", "pull", "{w}/runs/r", "--from-file", "{w}/export.json"]
    for kind, data in {
        "not_json": b"[{", "bad_utf8": b'[{"id": "\xff"}]', "object": b'{"id": 1}', "number": b"5",
        "deep": b"[" * 100_000, "surrogate": b'[{"id": 1, "data": {"question_id": "\\ud800"}}]',
        "dup_key": b'[{"id": 1, "id": 2}]', "huge_int": b'[{"id": ' + b"7" * 5000 + b"}]",
        "task_not_object": b"[5]", "annotations_not_list": b'[{"id": 1, "data": {}, "annotations": 5}]',
        "result_not_list": b'[{"id": 1, "data": {}, "annotations": [{"id": 2, "result": "x"}]}]',
        "data_not_object": b'[{"id": 1, "data": 7, "annotations": []}]',
        "result_item_not_object": b'[{"id": 1, "data": {}, "annotations": [{"id": 2, "result": [3]}]}]',
    }.items():
        cases.append(Case(f"lsexport-{kind}", _write("export.json", data), pull, "export.json"))
    # ingest manifests
    ingest = ["data", "ingest", "{w}/src", "--out", "{w}/reg2"]
    for kind, data in {
        "not_toml": b"[[document]\n", "bad_utf8": b"[[document]]\ntitle = \"\xff\"\n",
        "document_not_table": b"document = 5\n", "edition_not_table": b'[[document]]\ndocument_id = "d"\n'
        b'title = "t"\nacl = []\nedition = [1]\n', "missing_file": b'[[document]]\ndocument_id = "d"\ntitle = "t"\n'
        b'acl = []\n[[document.edition]]\nversion_id = "v"\nrevision = 1\neffective_from = "2024-01-01"\n',
        "file_outside": INGEST_MANIFEST.replace('"doc/v1.md"', '"/etc/passwd"').encode(),
        "file_dotdot": INGEST_MANIFEST.replace('"doc/v1.md"', '"../../../../etc/hostname"').encode(),
        "version_id_path": INGEST_MANIFEST.replace('"doc-v1"', '"../../../x"').encode(),
        "version_id_slash": INGEST_MANIFEST.replace('"doc-v1"', '"a/b"').encode(),
        "epoch_effective": INGEST_MANIFEST.replace('"2024-01-01"', "1700000000").encode(),
        "revision_text": INGEST_MANIFEST.replace("revision = 1", 'revision = "one"').encode(),
    }.items():
        cases.append(Case(f"ingest-{kind}", _write("src/manifest.toml", data), ingest, "manifest.toml"))
    cases.append(Case("ingest-source_bad_utf8", _write("src/doc/v1.md", b"# T\n\nok\n\xff\n"), ingest, "v1.md:4"))
    return cases


def _as_q2(edit: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
    """The edited copy answers q2, so it is not refused only for repeating q1."""
    return lambda obj: edit({**obj, "question_id": "q2"})


NO_QUESTIONS = ("header_only", "empty", "no_rows")


def _json_edit(rel: str, edit: Callable[[dict[str, Any]], Any]) -> Mutate:
    def mutate(w: Path) -> None:
        path = w / rel
        path.write_text(json.dumps(edit(json.loads(path.read_text(encoding="utf-8"))), ensure_ascii=False),
                        encoding="utf-8")

    return mutate


def _stringify_metric(doc: dict[str, Any]) -> dict[str, Any]:
    name = next(iter(doc["metrics"]))
    doc["metrics"][name]["value"] = "high"
    return doc


def _parquet(path: Path, rows: list[dict[str, Any]], cut: int | None = None, schema: bool = False) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = (pa.table({"question_id": pa.array([], pa.string()), "question": pa.array([], pa.string())})
             if schema else pa.Table.from_pylist(rows))
    pq.write_table(table, path)
    if cut is not None:
        path.write_bytes(path.read_bytes()[:-cut])


def _as_parquet(make: Callable[[Path], None]) -> Mutate:
    def mutate(w: Path) -> None:
        (w / "ds_csv" / "questions.csv").unlink()
        make(w / "ds_csv" / "questions.parquet")

    return mutate


CASES = _cases()


def test_the_table_is_big_enough() -> None:
    assert len(CASES) >= 200
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_a_clean_exit_2(case: Case, world: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = tmp_path / "w"
    shutil.copytree(world, w, symlinks=True)
    case.mutate(w)
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CITEVAL_LOG_DIR", str(tmp_path))
    monkeypatch.chdir(w)  # a default output path (reports/…) lands in the copy, and is seen there
    before = folder_hash(w)
    result = runner.invoke(app, [a.replace("{w}", str(w)) for a in case.args])
    output = result.output
    assert result.exit_code == case.code, f"exit {result.exit_code}: {output[-2000:]}"
    assert "Traceback" not in output and (result.exception is None or isinstance(result.exception, SystemExit)), (
        repr(result.exception))
    if case.where:
        assert case.where in output, output[-2000:]
    assert folder_hash(w) == before, "a bad input changed files on disk"


# --- valid oddities are accepted and read as the plain file ---------------------------------

BOM = b"\xef\xbb\xbf"


def _metrics(run: Path) -> dict[str, Any]:
    doc = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    return {"metrics": doc["metrics"], "findings": doc.get("findings"), "n": doc.get("n_questions")}


def _rescored(w: Path) -> dict[str, Any]:
    result = runner.invoke(app, ["score", str(w / "runs" / "r"), "--judge", "none"])
    assert result.exit_code == 0, result.output
    return _metrics(w / "runs" / "r")


def _jsonl_files(w: Path) -> list[Path]:
    return [*sorted((w / "ds").rglob("*.jsonl")), w / "runs" / "r" / "answers.jsonl", w / "runs" / "r" / "judgments.jsonl"]


@pytest.mark.parametrize("oddity", ["bom", "crlf", "bom_and_crlf"])
def test_bom_and_crlf_files_read_as_the_plain_ones(oddity: str, world: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    shutil.copytree(world, plain)
    expected = _rescored(plain)
    assert expected["n"] == 3
    w = tmp_path / "w"
    shutil.copytree(world, w)
    for path in _jsonl_files(w):
        data = path.read_bytes()
        if "crlf" in oddity:
            data = data.replace(b"\n", b"\r\n")
        if "bom" in oddity:
            data = BOM + data
        path.write_bytes(data)
    validated = runner.invoke(app, ["data", "validate", str(w / "ds")])
    assert validated.exit_code == 0, validated.output
    assert "5 chunks, 3 questions" in validated.output
    assert _rescored(w) == expected


def test_a_last_answer_without_its_newline_is_scored_and_kept(world: Path, tmp_path: Path) -> None:
    w = tmp_path / "w"
    shutil.copytree(world, w)
    answers = w / "runs" / "r" / "answers.jsonl"
    answers.write_bytes(answers.read_bytes().rstrip(b"\n"))
    before = answers.read_bytes()
    scored = _rescored(w)
    assert answers.read_bytes() == before  # score never rewrites the answers
    per_question = (w / "runs" / "r" / "per_question.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["question_id"] for line in per_question] == ["q1", "q2", "q3"]
    assert scored["n"] == 3


def test_a_torn_last_answer_is_left_out_not_a_crash(world: Path, tmp_path: Path) -> None:
    w = tmp_path / "w"
    shutil.copytree(world, w)
    answers = w / "runs" / "r" / "answers.jsonl"
    answers.write_bytes(answers.read_bytes() + b'{"question_id": "q9", "sta')
    result = runner.invoke(app, ["score", str(w / "runs" / "r"), "--judge", "none", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["n_questions"] == 3


def test_gates_and_csv_with_bom_and_crlf(world: Path, tmp_path: Path) -> None:
    w = tmp_path / "w"
    shutil.copytree(world, w)
    plain = runner.invoke(app, ["gate", str(w / "runs" / "r"), "--gates", str(w / "gates.toml"), "--format", "json"])
    gates = w / "gates.toml"
    gates.write_bytes(BOM + gates.read_bytes().replace(b"\n", b"\r\n"))
    odd = runner.invoke(app, ["gate", str(w / "runs" / "r"), "--gates", str(gates), "--format", "json"])
    assert odd.exit_code == plain.exit_code == 1  # the world fails the shipped gates, either way
    assert json.loads(odd.stdout)["rules"] == json.loads(plain.stdout)["rules"]
    questions = w / "ds_csv" / "questions.csv"
    questions.write_bytes(BOM + questions.read_bytes().replace(b"\n", b"\r\n"))
    validated = runner.invoke(app, ["data", "validate", str(w / "ds_csv")])
    assert validated.exit_code == 0, validated.output
    assert "2 questions (critical 1, policy 1)" in validated.output


def test_a_registry_text_that_really_holds_crlf_is_read_exactly(tmp_path: Path) -> None:
    from factories import dataset_rows, sha

    rows = dataset_rows()
    text = "Строка один.\r\nСтрока два."
    for version in rows["versions"]:
        if version["version_id"] == "pay-v1":
            version["content_sha256"] = sha(text)
    for chunk in rows["chunks"]:
        if chunk["chunk_id"] == "b1-1":
            chunk.update(text=text, char_start=0, char_end=len(text))
    ds = write_dataset(tmp_path / "ds", rows)
    (ds / "registry" / "texts" / "pay-v1.txt").write_bytes(text.encode("utf-8"))
    validated = runner.invoke(app, ["data", "validate", str(ds)])
    assert validated.exit_code == 0, validated.output


def test_an_unparseable_link_is_a_finding_not_a_crash(world: Path, tmp_path: Path) -> None:
    w = tmp_path / "w"
    shutil.copytree(world, w)
    answers = w / "runs" / "r" / "answers.jsonl"
    rows = [json.loads(line) for line in answers.read_text(encoding="utf-8").splitlines()]
    rows[0]["links"] = [{"evidence_id": "E1", "url": "http://[::1"}]  # urlsplit raises on it
    answers.write_text(_jsonl(rows), encoding="utf-8")
    result = runner.invoke(app, ["score", str(w / "runs" / "r"), "--judge", "none", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["findings"].get("LINK_UNSAFE_SCHEME") == 1  # not a link anyone may open


def test_a_lone_surrogate_in_an_answer_becomes_an_error_answer_and_the_run_finishes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ds = write_dataset(tmp_path / "ds")
    (tmp_path / "surrogate_bot.py").write_text(
        "def answer(payload):\n"
        "    if payload['question_id'] == 'q2':\n"
        "        return {'status': 'answered', 'answer_text': 'bad \\ud800 text'}\n"
        "    return {'status': 'abstained', 'abstain_reason': 'none'}\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    args = ["run", str(ds), "--backend", "python:surrogate_bot:answer", "--out", str(tmp_path / "runs"),
            "--run-id", "s", "--concurrency", "3"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "3 question(s): 0 answered, 2 abstained, 1 error(s)" in result.output  # q2 is the error
    run = tmp_path / "runs" / "s"
    answers = {a["question_id"]: a for a in map(json.loads, (run / "answers.jsonl").read_text().splitlines())}
    assert sorted(answers) == ["q1", "q2", "q3"]
    assert answers["q2"]["status"] == "error" and answers["q2"]["error"]["type"] == "unencodable_answer"
    assert json.loads((run / "manifest.json").read_text())["options"]["status"] == "finished"
    resumed = runner.invoke(app, ["run", "--resume", str(run)])
    assert resumed.exit_code == 0, resumed.output
    assert len((run / "answers.jsonl").read_text().splitlines()) == 3  # nothing left to ask
