"""citeval: check that a RAG system's citations can be verified, not just that they exist.

The public API is re-exported here; the packages under evals/ hold the implementation, one per
stage of the pipeline (run, score, label, agreement, gate, report, probe, quotes, ingest,
importers) on two base layers: `evals.contract` (the typed on-disk models and the metric and
findings tables) and `evals.store` (the one reader and writer). docs/architecture.md draws it.
"""

# Nothing here touches the environment: the offline settings of the judge stack (ragas, the
# Hugging Face hub) are set where ragas is imported (evals.score.judges.faithfulness).
#
# Every name loads its module on first use (PEP 562): `import evals.score.scoring` in a worker
# process then costs what scoring needs, not the backends (anthropic, bm25s), statistics or reports.
from __future__ import annotations

from typing import TYPE_CHECKING

from evals._lazy import lazy_names
from evals._version import __version__

if TYPE_CHECKING:
    from evals.agreement import AgreementReport, agree, compute_agreement
    from evals.contract.findings import FINDING_CODES, FINDING_DESCRIPTIONS
    from evals.contract.models import (
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
    from evals.contract.scores import MetricEntry, QuestionScore, Scores
    from evals.data.registry import Registry, default_chunk_id, sha256_text
    from evals.data.validate import (
        DatasetNotValid,
        ValidationReport,
        require_valid,
        validate_dataset,
        validate_registry,
    )
    from evals.errors import BackendError, CitevalError, DataError, DatasetInvalid, UsageError
    from evals.evaluate import EvalResult, evaluate
    from evals.gate import GateConfig, GateResult, load_gates, run_gate
    from evals.ingest.init import init_dataset
    from evals.ingest.sources import IngestResult, ingest
    from evals.label import pull, push
    from evals.probe import run_probe
    from evals.report import compare_runs, render_report, render_weekly
    from evals.run.runner import RunInterrupted, RunOptions, RunProgress, RunResult, resume_run, start_run
    from evals.score.judges import LlmConfig, OfflineJudge, judge_agreement, make_judge
    from evals.score.scoring import ScoreResult, score_run
    from evals.score.selftest import SelftestReport, run_selftest
    from evals.store.bundle import open_run, write_bundle
    from evals.store.jsonl import (
        JsonlAppender,
        load_jsonl,
        read_jsonl,
        read_questions,
        write_json_atomic,
        write_jsonl_atomic,
    )
    from evals.store.runfolder import RunFolder, load_manifest
    from evals.text.normalize import (
        NumberMention,
        Sentence,
        extract_numbers,
        locate,
        normalize,
        normalize_with_map,
        split_sentences,
    )

# name → the module (relative to evals) that defines it; stages with heavy imports (numpy
# statistics, matplotlib, the Label Studio SDK) load only when one of their names is used.
_SOURCES: dict[str, list[str]] = {
    "errors": ["BackendError", "CitevalError", "DataError", "DatasetInvalid", "UsageError"],
    "evaluate": ["EvalResult", "evaluate"],
    "contract.findings": ["FINDING_CODES", "FINDING_DESCRIPTIONS"],
    "contract.models": [
        "JUDGMENT_VALUES", "RISK_TIERS", "RUN_SCHEMA_VERSION",
        "AclEntry", "Answer", "Chunk", "Claim", "Document", "Evidence", "Finding", "Gold", "GoldEvidence",
        "Judgment", "Link", "Question", "RunManifest", "Usage", "User", "Version", "VersionStatus",
    ],
    "contract.scores": ["MetricEntry", "QuestionScore", "Scores"],
    "data.registry": ["Registry", "default_chunk_id", "sha256_text"],
    "data.validate": [
        "DatasetNotValid", "ValidationReport", "require_valid", "validate_dataset", "validate_registry",
    ],
    "store.jsonl": [
        "JsonlAppender", "load_jsonl", "read_jsonl", "read_questions", "write_json_atomic",
        "write_jsonl_atomic",
    ],
    "store.runfolder": ["RunFolder", "load_manifest"],
    "store.bundle": ["write_bundle", "open_run"],
    "text.normalize": [
        "NumberMention", "Sentence", "extract_numbers", "locate", "normalize", "normalize_with_map",
        "split_sentences",
    ],
    "ingest.sources": ["IngestResult", "ingest"],
    "ingest.init": ["init_dataset"],
    "run.runner": ["RunInterrupted", "RunOptions", "RunProgress", "RunResult", "resume_run", "start_run"],
    "score.scoring": ["ScoreResult", "score_run"],
    "score.selftest": ["run_selftest", "SelftestReport"],
    "score.judges": ["make_judge", "LlmConfig", "OfflineJudge", "judge_agreement"],
    "agreement": ["AgreementReport", "compute_agreement", "agree"],
    "gate": ["load_gates", "run_gate", "GateConfig", "GateResult"],
    "report": ["render_report", "render_weekly", "compare_runs"],
    "probe": ["run_probe"],
    "label": ["push", "pull"],
}
_LAZY = {name: module for module, names in _SOURCES.items() for name in names}

__getattr__ = lazy_names(__name__, _LAZY)

__all__ = ["__version__", *_LAZY]
