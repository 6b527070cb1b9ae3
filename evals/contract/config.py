"""citeval.toml: the settings file every command reads (DESIGN 7), as pydantic models.

    dataset = "datasets/demo"          # DATASET of eval, run, probe, selftest, data validate
    gates = "gates.toml"               # --gates of eval, gate, report, probe
    [run]                              # run, and eval
    backend = "http:http://127.0.0.1:8000/answer"
    concurrency = 4
    [score]                            # score, and eval
    judge = "none"
    [eval]                             # eval only: any key of [run] and [score], gates, report_out

A setting given on the command line wins, then its environment variable (where it has one),
then this file, then the default. Sections are per command; `[eval]` takes what `[run]`,
`[score]`, `[gate]` (gates) and `[report]` (out, as report_out) say, then its own keys. Every
table is `extra="forbid"` and strict, so a typo or a quoted number is an error naming the file,
the line and the key (evals.store.config), never a setting silently ignored. A field whose JSON
Schema says `"format": "path"` is read relative to the file's folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

CONFIG_FILE_NAME = "citeval.toml"
PATH_FORMAT = "path"


def _path(description: str) -> Any:
    return Field(default=None, description=description + " (relative to this file's folder)",
                 json_schema_extra={"format": PATH_FORMAT})


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class _RunKeys(_Table):
    backend: str | None = Field(default=None, description="Backend SPEC (reference, replay:PATH, http:URL, "
                                "python:module:function, faults:KIND[,KIND]:SPEC), read as on the command line.")
    out: str | None = _path("Folder that holds run folders")
    label: str | None = Field(default=None, description="Variant label, to group runs in reports.")
    concurrency: int | None = Field(default=None, ge=1, description="Questions in flight at once.")
    limit: int | None = Field(default=None, ge=1, description="Only the first N questions.")
    timeout: float | None = Field(default=None, ge=0.1, description="Seconds per backend request.")
    retries: int | None = Field(default=None, ge=0, description="Retries of a failed request (http).")
    prices: str | None = _path("Price table (JSON) overriding the shipped one")
    refusal_patterns: str | None = _path("Refusal patterns (one regular expression a line)")


class _JudgeKeys(_Table):
    judge: Literal["offline", "llm", "none"] | None = Field(default=None, description="Support judge.")
    llm_model: str | None = Field(default=None, description="Model for judge = \"llm\" and ragas.")
    llm_base_url: str | None = Field(default=None, description="OpenAI-compatible base URL (…/v1), or Anthropic's.")
    llm_provider: Literal["openai", "anthropic"] | None = Field(default=None, description="The LLM's API.")
    llm_key_env: str | None = Field(default=None, description="Environment variable holding the API key.")
    ragas: bool | None = Field(default=None, description="Add Ragas's score of each answer (needs llm_model).")


class RunTable(_RunKeys):
    """[run]: how `citeval run` (and `eval`) asks the backend."""


class ScoreTable(_JudgeKeys):
    """[score]: how `citeval score` (and `eval`) judges; the llm_* keys also serve `citeval judge`."""

    workers: int | None = Field(default=None, ge=1, description="Processes scoring shards in parallel (score only).")
    parquet: bool | None = Field(default=None, description="Also write per_question.parquet (score only).")


class GateTable(_Table):
    """[gate]: `citeval gate` (gates also serves eval, report and probe)."""

    gates: str | None = _path("Gates file (TOML)")
    junit: str | None = _path("JUnit XML to write (gate only)")
    summary: str | None = _path("Markdown summary to write (gate only)")
    baseline: str | None = _path("Baseline run folder or bundle for the [baseline] rules (gate only)")


class ReportTable(_Table):
    """[report]: `citeval report` (out also serves eval, as report_out)."""

    out: str | None = _path("HTML file to write")
    gates: str | None = _path("Gates file (TOML)")
    since: str | None = Field(default=None, description="With --weekly: 7d, 36h, 2w or an ISO date.")
    baseline: str | None = Field(default=None, description="Run id or label the others are compared with.")


class ProbeTable(_Table):
    """[probe]: `citeval probe` (backend, out, label, concurrency, timeout, retries, prices and
    refusal_patterns default to [run]'s)."""

    backend: str | None = Field(default=None, description="Backend SPEC, read as on the command line.")
    kinds: str | None = Field(default=None, description="Comma-separated probe kinds (default: all).")
    limit: int | None = Field(default=None, ge=1, description="At most N questions of each kind.")
    out: str | None = _path("Folder that holds run folders")
    label: str | None = Field(default=None, description="Variant label, to group runs in reports.")
    concurrency: int | None = Field(default=None, ge=1, description="Questions in flight at once.")
    timeout: float | None = Field(default=None, ge=0.1, description="Seconds per backend request.")
    retries: int | None = Field(default=None, ge=0, description="Retries of a failed request (http).")
    gates: str | None = _path("Gates file whose [probe] table bounds the verdicts")
    prices: str | None = _path("Price table (JSON) overriding the shipped one")
    refusal_patterns: str | None = _path("Refusal patterns (one regular expression a line)")


class EvalTable(_JudgeKeys, _RunKeys):
    """[eval]: `citeval eval` only, over what [run], [score], [gate] and [report] say."""

    gates: str | None = _path("Gates file (TOML)")
    report_out: str | None = _path("HTML report to write")


class CitevalConfig(_Table):
    """citeval.toml."""

    dataset: str | None = _path("Dataset folder: DATASET of eval, run, probe, selftest and data validate")
    gates: str | None = _path("Gates file (TOML) of eval, gate, report and probe")
    run: RunTable = Field(default_factory=RunTable)
    score: ScoreTable = Field(default_factory=ScoreTable)
    gate: GateTable = Field(default_factory=GateTable)
    report: ReportTable = Field(default_factory=ReportTable)
    probe: ProbeTable = Field(default_factory=ProbeTable)
    eval: EvalTable = Field(default_factory=EvalTable)


@dataclass(frozen=True)
class SettingsFile:
    """The settings file a command read, as a run manifest and scores.json's provenance record it."""

    path: str  # absolute
    sha256: str


def path_keys(model: type[BaseModel]) -> frozenset[str]:
    """The fields of a table that hold a path (read relative to the file's folder)."""
    return frozenset(
        name for name, info in model.model_fields.items()
        if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("format") == PATH_FORMAT
    )
