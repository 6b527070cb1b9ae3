"""Scoring speed: N answers × 5 claims against the demo registry (default N = 10,000).

    python bench/score.py [N]

Prints the time of `score_run` (checks + metrics + intervals, no judge), the time to merely
parse the same answers.jsonl into Answer records, their ratio (target <= 3x) and peak RSS
(target <= 500 MB).
"""

from __future__ import annotations

import json
import random
import resource
import shutil
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from evals.data import Answer, Registry, VersionStatus
from evals.data.jsonl import iter_json_lines
from evals.runner import dataset_ref
from evals.scoring import score_run

DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo"


def build(root: Path, n: int) -> Path:
    ds = root / "ds"
    shutil.copytree(DEMO / "registry", ds / "registry")
    registry = Registry.load(ds)
    at = datetime(2025, 6, 1, tzinfo=timezone.utc)
    active = [
        c
        for c in registry.chunks.values()
        if registry.status(c.version_id, at) is VersionStatus.active and not registry.documents[c.document_id].acl
    ]
    rng = random.Random(7)
    with (
        open(ds / "questions.jsonl", "w", encoding="utf-8") as q,
        open(root / "answers.jsonl", "w", encoding="utf-8") as a,
    ):
        for i in range(n):
            qid = f"q{i:05d}"
            q.write(
                json.dumps(
                    {
                        "question_id": qid,
                        "question": "Вопрос?",
                        "asked_at": "2025-06-01",
                        "risk_tier": rng.choice(["critical", "policy", "reference"]),
                        "tags": [rng.choice(["numeric", "single_fact"])],
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            chunks = rng.sample(active, 5)
            claims, evidence, links, parts = [], [], [], []
            for k, chunk in enumerate(chunks, start=1):
                sentence = chunk.text.split(". ")[0][:200]
                claims.append(
                    {"claim_id": f"c{k}", "text": sentence, "evidence_ids": [f"E{k}"], "quote": sentence[:60]}
                )
                evidence.append(
                    {
                        "evidence_id": f"E{k}",
                        "chunk_id": chunk.chunk_id,
                        "document_id": chunk.document_id,
                        "version_id": chunk.version_id,
                        "page": chunk.page_start,
                        "text": chunk.text,
                    }
                )
                url = registry.versions[chunk.version_id].viewer_url
                links.append({"evidence_id": f"E{k}", "url": f"{url}#page={chunk.page_start}"})
                parts.append(f"{sentence} [E{k}]")
            a.write(
                json.dumps(
                    {
                        "question_id": qid,
                        "status": "answered",
                        "answer_text": " ".join(parts),
                        "claims": claims,
                        "evidence": evidence,
                        "links": links,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    run = root / "run"
    run.mkdir()
    shutil.move(str(root / "answers.jsonl"), run / "answers.jsonl")
    manifest = {
        "schema_version": 1,
        "run_id": "bench",
        "started_at": "2025-06-01T00:00:00+00:00",
        "dataset": dataset_ref(ds).model_dump(),
        "backend": "replay",
        "citeval_version": "bench",
    }
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        run = build(Path(tmp), n)
        t0 = time.perf_counter()
        parsed = [Answer.model_validate(obj) for _, obj in iter_json_lines(run / "answers.jsonl")]
        parse = time.perf_counter() - t0
        del parsed
        t0 = time.perf_counter()
        result = score_run(run, judge="none")
        took = time.perf_counter() - t0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        t0 = time.perf_counter()
        score_run(run, judge="offline")
        judged = time.perf_counter() - t0
    findings = sum(result.scores["findings"].values())
    print(f"answers {n} × 5 claims; findings {findings}")
    print(f"score_run {took:.2f} s   parse only {parse:.2f} s   ratio {took / parse:.2f}x (target <= 3x)")
    print(f"with the offline judge on all {n * 5} (claim, evidence) pairs: {judged:.2f} s")
    print(f"peak RSS of parse + score {peak:.0f} MB (target <= 500 MB)")


if __name__ == "__main__":
    main()
