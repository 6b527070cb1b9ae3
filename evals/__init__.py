"""citeval: check that a RAG system's citations can be verified, not just that they exist.

The public API is re-exported here; modules under evals/ hold the implementation.
"""

import os as _os

# ragas and friends phone home unless told not to; citeval is offline by default.
_os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
_os.environ.setdefault("DO_NOT_TRACK", "1")
_os.environ.setdefault("HF_HUB_OFFLINE", "1")
_os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

from ._version import __version__  # noqa: E402
from .data import *  # noqa: E402,F403
from .data import __all__ as _data_all  # noqa: E402
from .errors import BackendError, CitevalError, DataError, DatasetInvalid, UsageError  # noqa: E402
from .runner import RunInterrupted, RunOptions, RunProgress, RunResult, load_manifest, resume_run, start_run  # noqa: E402
from .scoring import ScoreResult, score_run  # noqa: E402

# Stages with heavy imports (numpy statistics, matplotlib, the Label Studio SDK) load on first use.
_LAZY = {
    "AgreementReport": "agreement",
    "compute_agreement": "agreement",
    "agree": "agreement",
    "load_gates": "gates",
    "run_gate": "gates",
    "GateConfig": "gates",
    "GateResult": "gates",
    "render_report": "report",
    "render_weekly": "report",
    "compare_runs": "report",
    "make_judge": "judges",
    "LlmConfig": "judges",
    "OfflineJudge": "judges",
    "judge_agreement": "judges",
    "run_selftest": "selftest",
    "SelftestReport": "selftest",
    "push": "labels",
    "pull": "labels",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'evals' has no attribute {name!r}")


__all__ = [
    *_data_all,
    *_LAZY,
    "BackendError",
    "CitevalError",
    "DataError",
    "DatasetInvalid",
    "RunInterrupted",
    "RunOptions",
    "RunProgress",
    "RunResult",
    "ScoreResult",
    "UsageError",
    "score_run",
    "__version__",
    "load_manifest",
    "resume_run",
    "start_run",
]
