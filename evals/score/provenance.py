"""What produced a score: citeval's version and git revision, the judge stack's package
versions, the judge's parameters and prompt version, the gates file's hash (scores.json
`provenance`, in the manner of inspect_ai's eval logs)."""

from __future__ import annotations

import platform
import subprocess
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

from evals._version import __version__
from evals.contract.scores import JudgeParams, Provenance
from evals.stats.bootstrap import RESAMPLES
from evals.store.reading import file_sha256

JUDGE_STACK = ("ragas", "instructor")
_SOURCE_ROOT = Path(__file__).resolve().parents[2]


def package_version(name: str) -> str | None:
    """An installed distribution's version, without importing it (None when not installed)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


@lru_cache(maxsize=1)
def git_revision() -> str | None:
    """The commit of the citeval checkout this code runs from; None for an installed wheel or
    when git is not available. Read-only, no network."""
    if not (_SOURCE_ROOT / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(_SOURCE_ROOT), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=5, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    revision = done.stdout.strip()
    return revision if done.returncode == 0 and revision else None


def judge_params(judge: Any) -> JudgeParams | None:
    """The judge's name and, for an LLM judge, its provider, model, endpoint, temperature and
    prompt version (read by attribute: any SupportJudge may carry them)."""
    if judge is None:
        return None
    config = getattr(judge, "config", None)
    prompt = getattr(judge, "prompt", None)
    return JudgeParams(
        name=getattr(judge, "name", None),
        provider=getattr(config, "provider", None),
        model=getattr(config, "model", None),
        base_url=getattr(config, "base_url", None),
        temperature=getattr(config, "temperature", None),
        prompt_version=getattr(prompt, "version", None),
    )


def provenance(
    *, judge: Any = None, seed: int | None = None, gates_file: Path | str | None = None, config: Any = None
) -> Provenance:
    record = Provenance(
        citeval_version=__version__,
        git_revision=git_revision(),
        python=platform.python_version(),
        packages={name: package_version(name) for name in JUDGE_STACK},
        judge=judge_params(judge),
        seed=seed,
        resamples=RESAMPLES,
    )
    if gates_file is not None:
        record.gates_file = str(gates_file)
        record.gates_sha256 = file_sha256(gates_file)
    if config is not None:  # an evals.contract.config.SettingsFile
        record.config_file, record.config_sha256 = config.path, config.sha256
    return record
