"""Data contracts, readers and writers, the provenance registry, validation and ingest."""

# Submodules load on first use (PEP 562): scoring a run needs the models and the registry, not
# the ingest stack; `from evals.data import Registry` works as before.
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:
    from .ingest import IngestResult, ingest
    from .jsonl import JsonlAppender, load_jsonl, read_jsonl, read_questions, write_json_atomic, write_jsonl_atomic
    from .models import (
        FINDING_CODES,
        FINDING_DESCRIPTIONS,
        JUDGMENT_VALUES,
        RISK_TIERS,
        RUN_SCHEMA_VERSION,
        AclEntry,
        Answer,
        Chunk,
        Claim,
        Document,
        Evidence,
        Finding,
        Gold,
        GoldEvidence,
        Judgment,
        Link,
        Question,
        RunManifest,
        Usage,
        User,
        Version,
        VersionStatus,
    )
    from .registry import Registry, default_chunk_id, sha256_text
    from .text import NumberMention, Sentence, extract_numbers, locate, normalize, normalize_with_map, split_sentences
    from .validate import DatasetNotValid, ValidationReport, require_valid, validate_dataset, validate_registry

_LAZY = {
    "IngestResult": "ingest",
    "ingest": "ingest",
    "JsonlAppender": "jsonl",
    "load_jsonl": "jsonl",
    "read_jsonl": "jsonl",
    "read_questions": "jsonl",
    "write_json_atomic": "jsonl",
    "write_jsonl_atomic": "jsonl",
    "FINDING_CODES": "models",
    "FINDING_DESCRIPTIONS": "models",
    "JUDGMENT_VALUES": "models",
    "RISK_TIERS": "models",
    "RUN_SCHEMA_VERSION": "models",
    "AclEntry": "models",
    "Answer": "models",
    "Chunk": "models",
    "Claim": "models",
    "Document": "models",
    "Evidence": "models",
    "Finding": "models",
    "Gold": "models",
    "GoldEvidence": "models",
    "Judgment": "models",
    "Link": "models",
    "Question": "models",
    "RunManifest": "models",
    "Usage": "models",
    "User": "models",
    "Version": "models",
    "VersionStatus": "models",
    "Registry": "registry",
    "default_chunk_id": "registry",
    "sha256_text": "registry",
    "NumberMention": "text",
    "Sentence": "text",
    "extract_numbers": "text",
    "locate": "text",
    "normalize": "text",
    "normalize_with_map": "text",
    "split_sentences": "text",
    "DatasetNotValid": "validate",
    "ValidationReport": "validate",
    "require_valid": "validate",
    "validate_dataset": "validate",
    "validate_registry": "validate",
}


__getattr__ = lazy_names(__name__, _LAZY)



__all__ = [
    "FINDING_CODES",
    "FINDING_DESCRIPTIONS",
    "JUDGMENT_VALUES",
    "RISK_TIERS",
    "RUN_SCHEMA_VERSION",
    "AclEntry",
    "Answer",
    "Chunk",
    "Claim",
    "DatasetNotValid",
    "Document",
    "Evidence",
    "Finding",
    "Gold",
    "GoldEvidence",
    "IngestResult",
    "Judgment",
    "JsonlAppender",
    "Link",
    "NumberMention",
    "Question",
    "Registry",
    "RunManifest",
    "Sentence",
    "Usage",
    "User",
    "ValidationReport",
    "Version",
    "VersionStatus",
    "default_chunk_id",
    "extract_numbers",
    "ingest",
    "load_jsonl",
    "locate",
    "normalize",
    "normalize_with_map",
    "read_jsonl",
    "read_questions",
    "require_valid",
    "sha256_text",
    "split_sentences",
    "validate_dataset",
    "validate_registry",
    "write_json_atomic",
    "write_jsonl_atomic",
]
