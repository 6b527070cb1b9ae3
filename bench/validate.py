"""Validation speed: a synthetic registry of N chunks (default 100,000); prints time and peak memory.

    python bench/validate.py [N]

The baseline in the same run is the time to merely parse the same JSONL files with json.loads.
"""

from __future__ import annotations

import hashlib
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

from evals.data.validate import validate_dataset


def build(root: Path, n_chunks: int) -> None:
    reg = root / "registry"
    (reg / "texts").mkdir(parents=True)
    per_version = 100
    n_versions = n_chunks // per_version
    paragraph = "Пункт {i}. Медицинская сестра проходит обучение не реже одного раза в 12 месяцев."
    with (
        open(reg / "documents.jsonl", "w") as docs,
        open(reg / "versions.jsonl", "w") as vers,
        open(reg / "chunks.jsonl", "w") as chunks,
    ):
        for v in range(n_versions):
            doc_id, ver_id = f"doc-{v // 2}", f"doc-{v // 2}-v{v % 2 + 1}"
            if v % 2 == 0:
                docs.write(json.dumps({"document_id": doc_id, "title": f"Документ {v}", "acl": []}) + "\n")
            parts, offset, rows = [], 0, []
            for i in range(per_version):
                text = paragraph.format(i=i)
                rows.append(
                    {
                        "chunk_id": f"{ver_id}-{i}",
                        "version_id": ver_id,
                        "document_id": doc_id,
                        "text": text,
                        "heading_path": ["Раздел"],
                        "page_start": i // 10 + 1,
                        "page_end": i // 10 + 1,
                        "char_start": offset,
                        "char_end": offset + len(text),
                    }
                )
                parts.append(text)
                offset += len(text) + 2
            full = "\n\n".join(parts)
            (reg / "texts" / f"{ver_id}.txt").write_text(full, encoding="utf-8")
            window = (
                {"effective_from": "2023-01-01", "effective_to": "2025-01-01"}
                if v % 2 == 0
                else {"effective_from": "2025-01-01", "supersedes": f"doc-{v // 2}-v1"}
            )
            vers.write(
                json.dumps(
                    {
                        "version_id": ver_id,
                        "document_id": doc_id,
                        "revision": v % 2 + 1,
                        "content_sha256": hashlib.sha256(full.encode()).hexdigest(),
                        **window,
                    }
                )
                + "\n"
            )
            for row in rows:
                chunks.write(json.dumps(row, ensure_ascii=False) + "\n")
    with open(root / "questions.jsonl", "w") as q:
        for i in range(200):
            q.write(json.dumps({"question_id": f"q{i}", "question": "Как часто?", "risk_tier": "policy"}) + "\n")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build(root, n)
        t0 = time.perf_counter()
        for name in ("documents", "versions", "chunks"):
            with open(root / "registry" / f"{name}.jsonl", encoding="utf-8") as f:
                for line in f:
                    json.loads(line)
        parse = time.perf_counter() - t0
        t0 = time.perf_counter()
        report = validate_dataset(root)
        took = time.perf_counter() - t0
        assert report.ok, report.problems[:3]
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"chunks: {n}")
    print(f"validate: {took:.2f} s   json.loads only: {parse:.2f} s   ratio: {took / parse:.1f}x")
    print(f"peak RSS: {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
