"""Small hand-made datasets for tests, written through the public contract (plain JSON lines)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

TEXT_A1 = "Обучение проводится не реже одного раза в 12 месяцев.\n\nПорог сдачи теста 70 %."
TEXT_A2 = "Обучение проводится не реже одного раза в 6 месяцев.\n\nПорог сдачи теста 80 %."
TEXT_B1 = "Ночная надбавка составляет 50 % оклада."


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def dataset_rows() -> dict[str, list[dict[str, Any]]]:
    """Two documents (one restricted to hr), three editions, five chunks, three questions."""
    documents = [
        {"document_id": "train", "title": "Положение об обучении", "acl": []},
        {"document_id": "pay", "title": "Положение об оплате труда", "acl": [{"group": "hr"}]},
    ]
    versions = [
        {"version_id": "train-v1", "document_id": "train", "revision": 1, "content_sha256": sha(TEXT_A1),
         "effective_from": "2023-01-01", "effective_to": "2025-02-01",
         "viewer_url": "https://docs.example/d/train/v/1"},
        {"version_id": "train-v2", "document_id": "train", "revision": 2, "content_sha256": sha(TEXT_A2),
         "effective_from": "2025-02-01", "supersedes": "train-v1",
         "viewer_url": "https://docs.example/d/train/v/2"},
        {"version_id": "pay-v1", "document_id": "pay", "revision": 1, "content_sha256": sha(TEXT_B1),
         "effective_from": "2023-01-01", "viewer_url": "https://docs.example/d/pay/v/1"},
    ]
    chunks = [
        {"chunk_id": "a1-1", "version_id": "train-v1", "document_id": "train", "text": TEXT_A1[:53],
         "heading_path": ["Обучение"], "page_start": 1, "page_end": 1, "char_start": 0, "char_end": 53},
        {"chunk_id": "a1-2", "version_id": "train-v1", "document_id": "train", "text": TEXT_A1[55:],
         "heading_path": ["Обучение"], "page_start": 2, "page_end": 2, "char_start": 55, "char_end": len(TEXT_A1)},
        {"chunk_id": "a2-1", "version_id": "train-v2", "document_id": "train", "text": TEXT_A2[:52],
         "heading_path": ["Обучение"], "page_start": 1, "page_end": 1, "char_start": 0, "char_end": 52},
        {"chunk_id": "a2-2", "version_id": "train-v2", "document_id": "train", "text": TEXT_A2[54:],
         "heading_path": ["Обучение"], "page_start": 2, "page_end": 2, "char_start": 54, "char_end": len(TEXT_A2)},
        {"chunk_id": "b1-1", "version_id": "pay-v1", "document_id": "pay", "text": TEXT_B1,
         "heading_path": [], "page_start": 1, "page_end": 1, "char_start": 0, "char_end": len(TEXT_B1)},
    ]
    questions = [
        {"question_id": "q1", "question": "Как часто проходить обучение?", "asked_at": "2024-05-01",
         "user": {"user_id": "nurse-1", "groups": ["clinical"]}, "risk_tier": "policy", "tags": ["version_trap"],
         "gold": {"should_abstain": False, "evidence": [{"document_id": "train", "version_id": "train-v1",
                  "page": 1, "quote": "не реже одного раза в 12 месяцев"}]}},
        {"question_id": "q2", "question": "Какой порог сдачи теста?", "asked_at": "2025-06-01",
         "risk_tier": "critical", "tags": ["numeric"],
         "gold": {"should_abstain": False, "evidence": [{"document_id": "train", "version_id": "train-v2",
                  "page": 2, "quote": "Порог сдачи теста 80 %"}]}},
        {"question_id": "q3", "question": "Сколько платят за ночь?", "asked_at": "2025-06-01",
         "user": {"user_id": "nurse-1", "groups": ["clinical"]}, "risk_tier": "critical", "tags": [],
         "gold": {"should_abstain": True, "evidence": []}},
    ]
    return {"documents": documents, "versions": versions, "chunks": chunks, "questions": questions}


def write_dataset(root: Path, rows: dict[str, list[dict[str, Any]]] | None = None, texts: bool = True) -> Path:
    rows = rows or dataset_rows()
    for name in ("documents", "versions", "chunks"):
        write_jsonl(root / "registry" / f"{name}.jsonl", rows[name])
    write_jsonl(root / "questions.jsonl", rows["questions"])
    if texts:
        (root / "registry" / "texts").mkdir(parents=True, exist_ok=True)
        for vid, text in (("train-v1", TEXT_A1), ("train-v2", TEXT_A2), ("pay-v1", TEXT_B1)):
            (root / "registry" / "texts" / f"{vid}.txt").write_text(text, encoding="utf-8")
    return root


# An ingest manifest of one document with one Markdown edition (SOURCES/doc/v1.md), shared by
# the malformed-input table and the ingest kill-window tests.
INGEST_MANIFEST = """
[[document]]
document_id = "doc"
title = "Положение"
acl = []

[[document.edition]]
version_id = "doc-v1"
revision = 1
file = "doc/v1.md"
effective_from = "2024-01-01"
"""


def write_replay(path: Path) -> Path:
    """A replay file (answers.jsonl shape) answering the factory dataset's three questions: q1
    cites chunk a1-1 (edition train-v1) with a registry link, q2 and q3 abstain."""
    write_jsonl(path, [
        {"question_id": "q1", "status": "answered", "answer_text": "Раз в 12 месяцев. [E1]",
         "claims": [{"claim_id": "c1", "text": "Раз в 12 месяцев.", "evidence_ids": ["E1"]}],
         "evidence": [{"evidence_id": "E1", "chunk_id": "a1-1"}],
         "links": [{"evidence_id": "E1", "url": "https://docs.example/d/train/v/1"}]},
        {"question_id": "q2", "status": "abstained"},
        {"question_id": "q3", "status": "abstained"},
    ])
    return path


def scored_run(tmp_path: Path, cli: Any) -> Path:
    """runs/r: write_dataset's dataset replayed from write_replay's answers and scored, each step
    through `cli(*args, cwd=…)` (a test's own way of starting citeval)."""
    dataset = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "replay.jsonl")
    made = cli("run", str(dataset), "--backend", f"replay:{replay}", "--out", str(tmp_path / "runs"), "--run-id", "r",
               cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    run = tmp_path / "runs" / "r"
    scored = cli("score", str(run), cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    return run


def init_eval_run(root: Path, invoke: Any) -> Path:
    """runs/main: `citeval init` then `citeval eval` with the example dataset's replay answers,
    through `invoke(*args)` (a CliRunner call); shared by the bundle tests."""
    assert invoke("init", str(root / "ds")).exit_code == 0
    result = invoke("eval", str(root / "ds"), "--backend", f"replay:{root / 'ds' / 'answers' / 'example.jsonl'}",
                    "--out", str(root / "runs"), "--run-id", "main", "--report-out", str(root / "r.html"))
    assert result.exit_code == 0, result.output
    return root / "runs" / "main"


def eval_replay(invoke: Any, dataset: Path, replay: Path | str, tmp: Path) -> Path:
    """runs/r: `citeval eval DATASET --backend replay:REPLAY` through `invoke(*args)`; a gate may
    fail (exit 1), the run must be made. Shared by the peer-file import tests."""
    result = invoke("eval", str(dataset), "--backend", f"replay:{replay}", "--out", str(tmp / "runs"),
                    "--run-id", "r", "--report-out", str(tmp / "r.html"))
    assert result.exit_code in (0, 1), result.output
    return tmp / "runs" / "r"
