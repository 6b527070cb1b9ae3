"""Ingest a sources folder into a dataset the way the ingest tests all need it."""

from __future__ import annotations

from pathlib import Path

from evals.data.registry import Registry
from evals.data.validate import validate_dataset
from evals.ingest.sources import ingest


def ingest_valid_dataset(src: Path, dataset: Path) -> Registry:
    """Ingest `src` into DATASET/registry, add a one-question questions.jsonl, require that the dataset
    validates, and load its registry."""
    ingest(src, dataset / "registry")
    (dataset / "questions.jsonl").write_text('{"question_id": "q", "question": "?"}\n', encoding="utf-8")
    assert validate_dataset(dataset).ok
    return Registry.load(dataset)
