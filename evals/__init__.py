"""citeval: check that a RAG system's citations can be verified, not just that they exist.

The public API is re-exported here; modules under evals/ hold the implementation.
"""

# Nothing here touches the environment: the offline settings of the judge stack (ragas, the
# Hugging Face hub) are set where ragas is imported (evals.judges.faithfulness).
#
# Every name loads its module on first use (PEP 562): `import evals.scoring` in a worker process
# then costs what scoring needs, not the backends (anthropic, bm25s), statistics or reports.
from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_names
from ._version import __version__
from .data import __all__ as _data_all

if TYPE_CHECKING:
    from .data import *  # noqa: F403
    from .errors import BackendError, CitevalError, DataError, DatasetInvalid, UsageError
    from .evaluate import EvalResult, evaluate
    from .runfolder import RunFolder, load_manifest
    from .runner import RunInterrupted, RunOptions, RunProgress, RunResult, resume_run, start_run
    from .scores import MetricEntry, QuestionScore, Scores
    from .scoring import ScoreResult, score_run

# Stages with heavy imports (numpy statistics, matplotlib, the Label Studio SDK) load on first use.
_LAZY = {
    **dict.fromkeys(_data_all, "data"),
    **dict.fromkeys(["BackendError", "CitevalError", "DataError", "DatasetInvalid", "UsageError"], "errors"),
    "EvalResult": "evaluate",
    "evaluate": "evaluate",
    "RunFolder": "runfolder",
    "load_manifest": "runfolder",
    **dict.fromkeys(["RunInterrupted", "RunOptions", "RunProgress", "RunResult", "resume_run", "start_run"], "runner"),
    "MetricEntry": "scores",
    "QuestionScore": "scores",
    "Scores": "scores",
    "ScoreResult": "scoring",
    "score_run": "scoring",
    "AgreementReport": "agreement",
    "compute_agreement": "agreement",
    "agree": "agreement",
    "load_gates": "gates",
    "run_gate": "gates",
    "GateConfig": "gates",
    "GateResult": "gates",
    "write_bundle": "bundle",
    "open_run": "bundle",
    "init_dataset": "init",
    "render_report": "report",
    "render_weekly": "report",
    "compare_runs": "report",
    "make_judge": "judges",
    "LlmConfig": "judges",
    "OfflineJudge": "judges",
    "judge_agreement": "judges",
    "run_selftest": "selftest",
    "run_probe": "probe",
    "SelftestReport": "selftest",
    "push": "labels",
    "pull": "labels",
}


__getattr__ = lazy_names(__name__, _LAZY)



__all__ = [
    *_data_all,
    *_LAZY,
    "BackendError",
    "CitevalError",
    "DataError",
    "DatasetInvalid",
    "EvalResult",
    "MetricEntry",
    "QuestionScore",
    "RunFolder",
    "RunInterrupted",
    "RunOptions",
    "RunProgress",
    "RunResult",
    "ScoreResult",
    "Scores",
    "UsageError",
    "score_run",
    "__version__",
    "evaluate",
    "load_manifest",
    "resume_run",
    "start_run",
]
