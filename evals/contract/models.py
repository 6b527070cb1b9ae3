"""Typed records of the data contracts (DESIGN sections 2–5) and the run manifest.

Field names are the contract's; extra fields are kept (users may add fields freely).
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import date, datetime, timezone
from enum import Enum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer, field_validator, model_validator

from evals.contract.findings import FINDING_CODES

RISK_TIERS = ("reference", "policy", "critical")
TIERS_BY_RISK = ("critical", "policy", "reference")  # most at stake first: the order of every table


def parse_time(value: Any) -> Any:
    """ISO 8601 → aware datetime; a date alone means 00:00 UTC, a naive time means UTC."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        text = value.strip()
        if text.endswith("Z"):
            text = text[:-1] + "+00:00"
        try:
            dt = datetime.fromisoformat(text)
        except ValueError as exc:
            raise ValueError(f"not an ISO 8601 time: {value!r}") from exc
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        # pydantic would read a number as Unix seconds; DESIGN 2 asks for ISO 8601 text
        raise ValueError(f"not an ISO 8601 time: {value!r} (write it as text, e.g. \"2025-03-01T12:00:00Z\")")
    else:
        return value  # let pydantic report the wrong type
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=timezone.utc)


Timestamp = Annotated[
    datetime,
    BeforeValidator(parse_time),
    PlainSerializer(lambda dt: dt.isoformat(), return_type=str, when_used="json"),
]


class Record(BaseModel):
    """Base of every contract record: unknown fields are kept, assignment is validated."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)


def _range_problem(record: Any, start: str, end: str) -> None:
    """A (start, end) pair of fields must not run backwards or start below 0."""
    first, last = getattr(record, start), getattr(record, end)
    if first is not None and first < 0:
        raise ValueError(f"{start} must not be negative (got {first})")
    if first is not None and last is not None and last < first:
        raise ValueError(f"{end} ({last}) is before {start} ({first})")


# --- registry (DESIGN 2) -------------------------------------------------------------


class AclEntry(Record):
    group: str
    from_: Timestamp | None = Field(default=None, alias="from")
    to: Timestamp | None = None

    def covers(self, t: datetime) -> bool:
        return (self.from_ is None or self.from_ <= t) and (self.to is None or t < self.to)


class Document(Record):
    document_id: str
    title: str
    owner: str | None = None
    source_uri: str | None = None
    acl: list[AclEntry]


class VersionStatus(str, Enum):
    active = "active"
    superseded = "superseded"
    revoked = "revoked"
    deleted = "deleted"
    not_yet_effective = "not_yet_effective"


class Version(Record):
    version_id: str
    document_id: str
    revision: int
    content_sha256: str
    effective_from: Timestamp
    effective_to: Timestamp | None = None
    revoked_at: Timestamp | None = None
    deleted_at: Timestamp | None = None
    supersedes: str | None = None
    viewer_url: str | None = None
    # false: the source had no page information, so chunks carry no pages and page anchors cannot be checked
    pages_known: bool | None = None

    def status_at(self, t: datetime) -> VersionStatus:
        """DESIGN 2: deleted, then revoked, then not yet effective, then superseded, else active."""
        if self.deleted_at is not None and self.deleted_at <= t:
            return VersionStatus.deleted
        if self.revoked_at is not None and self.revoked_at <= t:
            return VersionStatus.revoked
        if t < self.effective_from:
            return VersionStatus.not_yet_effective
        if self.effective_to is not None and self.effective_to <= t:
            return VersionStatus.superseded
        return VersionStatus.active

    def active_until(self) -> datetime | None:
        """End of the window in which this edition is active (the earliest of its end dates)."""
        ends = [d for d in (self.effective_to, self.revoked_at, self.deleted_at) if d is not None]
        return min(ends) if ends else None


class BBox(Record):
    page: int
    x0: float
    y0: float
    x1: float
    y1: float


class Chunk(Record):
    chunk_id: str
    version_id: str
    document_id: str
    text: str
    heading_path: list[str]
    page_start: int | None = None
    page_end: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    bbox: list[BBox] | None = None

    @model_validator(mode="after")
    def _ranges(self) -> Chunk:
        _range_problem(self, "page_start", "page_end")
        _range_problem(self, "char_start", "char_end")
        return self


# --- questions (DESIGN 2) ------------------------------------------------------------


class User(Record):
    user_id: str
    groups: list[str] = Field(default_factory=list)


class GoldEvidence(Record):
    document_id: str
    version_id: str | None = None
    page: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    quote: str | None = None

    @model_validator(mode="after")
    def _ranges(self) -> GoldEvidence:
        _range_problem(self, "char_start", "char_end")
        return self


class Gold(Record):
    should_abstain: bool | None = None
    evidence: list[GoldEvidence] = Field(default_factory=list)
    answer: str | None = None
    key_facts: list[str] = Field(default_factory=list)


class Question(Record):
    question_id: str
    question: str
    asked_at: Timestamp | None = None
    user: User | None = None
    risk_tier: str = "policy"
    tags: list[str] = Field(default_factory=list)
    gold: Gold | None = None

    @field_validator("question_id", "question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("risk_tier", mode="before")
    @classmethod
    def _known_tier(cls, value: Any) -> Any:
        if value is None:
            return "policy"
        if value not in RISK_TIERS:
            raise ValueError(f"unknown risk tier {value!r} (expected one of {', '.join(RISK_TIERS)})")
        return value


# --- answers (DESIGN 3) --------------------------------------------------------------

AnswerStatus = Literal["answered", "abstained", "error"]


class Claim(Record):
    claim_id: str
    text: str
    evidence_ids: list[str] = Field(default_factory=list)
    quote: str | None = None
    span: tuple[int, int] | None = None

    @field_validator("span")
    @classmethod
    def _forward(cls, value: tuple[int, int] | None) -> tuple[int, int] | None:
        if value is not None and (value[0] < 0 or value[1] < value[0]):
            raise ValueError(f"span must be [start, end] with 0 <= start <= end (got {list(value)})")
        return value


class Evidence(Record):
    evidence_id: str
    chunk_id: str | None = None
    document_id: str | None = None
    version_id: str | None = None
    page: int | None = None
    char_start: int | None = None
    char_end: int | None = None
    text: str | None = None

    @model_validator(mode="after")
    def _ranges(self) -> Evidence:
        _range_problem(self, "char_start", "char_end")
        return self


class Link(Record):
    evidence_id: str
    url: str


class ErrorInfo(Record):
    type: str
    message: str


class Usage(Record):
    """What one answer cost; no count or cost below zero (a negative cost would be summed into a run's)."""

    latency_ms: float | None = Field(default=None, ge=0)
    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    # Anthropic prompt caching: billed apart from input_tokens (cache writes and reads)
    cache_creation_input_tokens: int | None = Field(default=None, ge=0)
    cache_read_input_tokens: int | None = Field(default=None, ge=0)


class Answer(Record):
    question_id: str
    status: AnswerStatus
    answer_text: str = ""
    claims: list[Claim] = Field(default_factory=list)
    evidence: list[Evidence] = Field(default_factory=list)
    links: list[Link] = Field(default_factory=list)
    stale_notice: bool = False
    abstain_reason: str | None = None
    error: ErrorInfo | None = None
    usage: Usage | None = None
    model: str | None = None
    raw: Any = None

    @model_validator(mode="after")
    def _unique_ids(self) -> Answer:
        # a claim or evidence id names one thing: a repeated one would make citations ambiguous
        for what, ids in (("claims", [c.claim_id for c in self.claims]),
                          ("evidence", [e.evidence_id for e in self.evidence])):
            counts = Counter(ids)  # linear: an answer may cite 40,000 times
            repeated = sorted(i for i, k in counts.items() if k > 1)
            if repeated:
                raise ValueError(f"{what}: id {repeated[0]!r} appears more than once in one answer")
        return self


# --- findings (DESIGN 4) -------------------------------------------------------------


class Finding(Record):
    """One findings.jsonl line; its code is one of the findings table (evals.contract.findings)."""

    question_id: str
    claim_id: str | None = None
    evidence_id: str | None = None
    code: str
    detail: str = ""

    @field_validator("code")
    @classmethod
    def _known_code(cls, value: str) -> str:
        if value not in FINDING_CODES:
            raise ValueError(f"unknown finding code {value!r}")
        return value


# --- judgments (DESIGN 5) ------------------------------------------------------------

JUDGMENT_VALUES: dict[str, tuple[str, ...]] = {
    "support": ("supported", "partial", "unsupported", "cannot_judge"),
    "anchor": ("yes", "no", "na"),
    "significant": ("yes", "no"),
    "should_abstain": ("yes", "no"),
    "version_ok": ("yes", "no"),
}
JudgmentField = Literal["support", "anchor", "significant", "should_abstain", "version_ok"]


class Judgment(Record):
    run_id: str
    question_id: str
    claim_id: str | None = None
    evidence_id: str | None = None
    source: str
    field: JudgmentField
    value: str
    comment: str | None = None
    at: Timestamp

    @field_validator("source")
    @classmethod
    def _known_source(cls, value: str) -> str:
        if value == "adjudicated" or (value.startswith(("auto:", "human:")) and len(value.split(":", 1)[1]) > 0):
            return value
        raise ValueError(f"source must be auto:<judge>, human:<rater> or adjudicated, not {value!r}")

    @field_validator("value")
    @classmethod
    def _known_value(cls, value: str, info: Any) -> str:
        field = info.data.get("field")
        allowed = JUDGMENT_VALUES.get(field or "")
        if allowed is not None and value not in allowed:
            raise ValueError(f"{value!r} is not a value of field {field!r} (expected one of {', '.join(allowed)})")
        return value


# --- run artifacts -------------------------------------------------------------------

RUN_SCHEMA_VERSION = 1
RUN_ID_PATTERN = re.compile(r"[A-Za-z0-9_.-]{1,200}")


class DatasetRef(Record):
    path: str
    questions_sha256: str
    registry_sha256: str


RunStatus = Literal["running", "interrupted", "finished"]


class RunSettings(Record):
    """manifest.json `options`: how the run was made and where it stands. Other stages may add
    their own keys (e.g. `probe`); they are kept."""

    concurrency: int = 8
    limit: int | None = None
    timeout: float = 60.0
    retries: int = 2
    python: str | None = None
    questions: int | None = None  # questions asked (after --limit)
    status: RunStatus | None = None
    # settings files that change a replayed answer (--prices, --refusal-patterns or their environment
    # variables), as absolute paths; absent: the shipped price table and refusal patterns
    prices: str | None = None
    refusal_patterns: str | None = None
    # the settings file (citeval.toml or --config FILE) the command read, absolute, and its sha256
    config_file: str | None = None
    config_sha256: str | None = None

    # Mapping-style reading and `{**options, key: value}`, for callers written against the former dict.
    def keys(self) -> list[str]:
        return list(self.model_dump(mode="json"))

    def __getitem__(self, key: str) -> Any:
        return self.model_dump(mode="json")[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.model_dump(mode="json").get(key, default)


class RunManifest(Record):
    """runs/<run_id>/manifest.json: what was run, on what, with which options."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, validate_assignment=True)

    schema_version: int = RUN_SCHEMA_VERSION
    run_id: str
    label: str | None = None
    started_at: Timestamp
    finished_at: Timestamp | None = None
    dataset: DatasetRef
    backend: str
    citeval_version: str
    options: RunSettings = Field(default_factory=RunSettings)

    @property
    def status(self) -> RunStatus | None:
        return self.options.status

    @field_validator("run_id")
    @classmethod
    def _safe_run_id(cls, value: str) -> str:
        # run ids name folders and report files: a manifest must not steer a write elsewhere
        if not RUN_ID_PATTERN.fullmatch(value) or value in (".", ".."):
            raise ValueError(f"run id {value!r} may hold only letters, digits, '.', '_' and '-'")
        return value

    @field_validator("schema_version")
    @classmethod
    def _supported(cls, value: int) -> int:
        if value > RUN_SCHEMA_VERSION:
            raise ValueError(f"run schema_version {value} is newer than this citeval ({RUN_SCHEMA_VERSION}); upgrade")
        return value

