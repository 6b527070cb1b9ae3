"""Data contracts, readers and writers, the provenance registry, validation and ingest."""

from .ingest import IngestResult, ingest
from .jsonl import JsonlAppender, load_jsonl, read_jsonl, read_questions, write_json_atomic, write_jsonl_atomic
from .models import (
    FINDING_CODES,
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
    MetricValue,
    Question,
    RunManifest,
    Usage,
    User,
    Version,
    VersionStatus,
)
from .registry import Registry, default_chunk_id, sha256_text
from .text import NumberMention, Sentence, extract_numbers, locate, normalize, normalize_with_map, split_sentences
from .validate import ValidationReport, validate_dataset

__all__ = [
    "FINDING_CODES", "JUDGMENT_VALUES", "RISK_TIERS", "RUN_SCHEMA_VERSION",
    "AclEntry", "Answer", "Chunk", "Claim", "Document", "Evidence", "Finding", "Gold", "GoldEvidence",
    "IngestResult", "Judgment", "JsonlAppender", "Link", "MetricValue", "NumberMention", "Question",
    "Registry", "RunManifest", "Sentence", "Usage", "User", "ValidationReport", "Version", "VersionStatus",
    "default_chunk_id", "extract_numbers", "ingest", "load_jsonl", "locate", "normalize", "normalize_with_map",
    "read_jsonl", "read_questions", "sha256_text", "split_sentences", "validate_dataset", "write_json_atomic",
    "write_jsonl_atomic",
]
