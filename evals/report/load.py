"""Opening scored run folders for reports: the scores and per-question rows at once (so a broken
run is reported before anything is drawn), answers, findings, questions and the registry only
when a section needs them. A weekly report over many runs of one dataset loads it once."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from evals.store.runfolder import DatasetCache, RunFolder, generation, require_same_generation

_DATASETS = DatasetCache()


def load_run(run_dir: Path | str) -> RunFolder:
    """A scored run folder (manifest.json, scores.json, per_question.jsonl; agreement.json if any)."""
    run = RunFolder(run_dir, cache=_DATASETS).require_dir()
    run.seen_generation = generation(run.path)
    run.manifest, run.scores, run.per_question, run.agreement  # noqa: B018 - read now: fail before drawing
    require_same_generation(run.path, run.seen_generation)  # one scoring's files, not two (a `score` ran meanwhile)
    return run


def require_unchanged(runs: list[RunFolder]) -> None:
    """Before a report is written: no run was scored again while its sections were drawn."""
    for run in runs:
        require_same_generation(run.path, run.seen_generation)


def clear_caches() -> None:
    """Forget loaded registries and questions (tests that rewrite a dataset in place)."""
    _DATASETS.clear()


def now_utc() -> datetime:
    return datetime.now(timezone.utc)
