"""The gates file's shapes as pydantic models (`extra="forbid"`, strict types).

Each model checks one table of the file: a rule's options, a section's options, the
[baseline] settings. The walker in `config.py` knows where each table sits in the file and
turns the first validation error into a DataError naming the file, the line and the key;
`error_message` words that error the way a gates-file author reads it. Strict mode keeps
`"0.9"` from passing as a number and `"yes"` as a boolean: a typo never switches a rule off.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails, PydanticCustomError

CompareMode = Literal["point", "lower"]
COMPARE_MODES: tuple[str, ...] = ("point", "lower")
DEFAULT_ALPHA = 0.05
# Below 20 shared questions a paired comparison is skipped (with its reason), never passed:
# an exact McNemar test needs at least 6 discordant questions to reach p < 0.05 at all, and a
# bootstrap interval over fewer than 20 questions is too coarse to tell noise from a change.
DEFAULT_MIN_SHARED = 20


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class RuleSpec(_Strict):
    """An absolute rule: `{ min?, max?, compare?, allow_null? }`."""

    min: float | None = None
    max: float | None = None
    compare: CompareMode | None = None
    allow_null: bool = False

    @model_validator(mode="after")
    def _bounds(self) -> RuleSpec:
        if self.min is None and self.max is None:
            raise PydanticCustomError("rule_bounds", "a rule needs min or max")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise PydanticCustomError("rule_bounds", "min {lo} is above max {hi}", {"lo": self.min, "hi": self.max})
        return self


class BaselineRuleSpec(_Strict):
    """A rule against a baseline run: `{ max_drop | max_increase, significant?, allow_null? }`."""

    max_drop: float | None = Field(default=None, ge=0)
    max_increase: float | None = Field(default=None, ge=0)
    significant: bool | None = None
    allow_null: bool = False

    @model_validator(mode="after")
    def _one_limit(self) -> BaselineRuleSpec:
        if self.max_drop is None and self.max_increase is None:
            raise PydanticCustomError("rule_bounds", "a baseline rule needs max_drop or max_increase")
        if self.max_drop is not None and self.max_increase is not None:
            raise PydanticCustomError("rule_bounds", "give max_drop or max_increase, not both")
        return self


class FileOptions(_Strict):
    """Top-level options of the file."""

    compare: CompareMode = "point"


class SectionOptions(_Strict):
    """Options of [overall] and [tier.<tier>] beside their rules."""

    compare: CompareMode | None = None


class BaselineOptions(_Strict):
    """Options of [baseline] beside its rules: they hold for every baseline rule of the file."""

    alpha: float = Field(default=DEFAULT_ALPHA, gt=0, lt=1)
    significant: bool = False
    min_shared: int = Field(default=DEFAULT_MIN_SHARED, ge=1)


class BaselineTierOptions(_Strict):
    """Options of [baseline.tier.<tier>] beside its rules."""

    significant: bool | None = None


# --- the whole file, for `citeval schema gates` --------------------------------------------
# The walker in config.py validates table by table with the models above; these compose the
# same models into the file's shape, so its JSON Schema is generated, never written by hand.
# A table's rules are its keys beyond its options: typed extras, additionalProperties in the schema.

RiskTier = Literal["reference", "policy", "critical"]  # evals.contract.models.RISK_TIERS


class SectionSpec(SectionOptions):
    """[overall] or [tier.<risk tier>]: `compare` and rules `<metric or findings.CODE> = { min?, max? }`."""

    model_config = ConfigDict(extra="allow", title="Section")
    __pydantic_extra__: dict[str, RuleSpec] = Field(init=False)  # type: ignore[assignment]


class BaselineTierSpec(BaselineTierOptions):
    """[baseline.tier.<risk tier>]: `significant` and baseline rules."""

    model_config = ConfigDict(extra="allow", title="BaselineTier")
    __pydantic_extra__: dict[str, BaselineRuleSpec] = Field(init=False)  # type: ignore[assignment]


class BaselineSpec(BaselineOptions):
    """[baseline]: alpha, significant, min_shared, rules against a baseline run, and per-tier tables."""

    model_config = ConfigDict(extra="allow", title="Baseline")
    tier: dict[RiskTier, BaselineTierSpec] = Field(default_factory=dict)
    __pydantic_extra__: dict[str, BaselineRuleSpec] = Field(init=False)  # type: ignore[assignment]


class ProbeBoundSpec(_Strict):
    """A [probe] bound: `{ max }` for decorative_rate and a kind, `{ min }` for citation_faithfulness."""

    model_config = ConfigDict(title="ProbeBound")
    min: float | None = Field(default=None, ge=0, le=1)
    max: float | None = Field(default=None, ge=0, le=1)


class GatesFile(FileOptions):
    """A gates file (TOML; `citeval gate --gates FILE`, DESIGN 7)."""

    model_config = ConfigDict(title="GatesFile")
    overall: SectionSpec | None = None
    tier: dict[RiskTier, SectionSpec] = Field(default_factory=dict)
    baseline: BaselineSpec | None = None
    probe: dict[str, ProbeBoundSpec] | None = None  # checked by evals.probe (DESIGN 10)


def option_names(model: type[BaseModel]) -> tuple[str, ...]:
    return tuple(model.model_fields)


def rule_options() -> tuple[str, ...]:
    return option_names(RuleSpec)


# pydantic lists every error; the author is shown one, the most basic first
_PRIORITY = {"extra_forbidden": 0, "rule_bounds": 3}


def first_error(exc: ValidationError) -> ErrorDetails:
    return min(exc.errors(), key=lambda e: _PRIORITY.get(e["type"], 1))


def error_message(error: ErrorDetails, model: type[BaseModel]) -> str:
    """A validation error in the words of the gates file."""
    kind = error["type"]
    name = str(error["loc"][-1]) if error["loc"] else ""
    value: Any = error.get("input")
    ctx = error.get("ctx") or {}
    if kind == "extra_forbidden":
        return f"unknown option {name!r} (expected {', '.join(option_names(model))})"
    if kind == "literal_error":
        return f"{name} must be one of {', '.join(COMPARE_MODES)}, not {value!r}"
    if kind == "bool_type":
        return f"{name} must be true or false, not {value!r}"
    if kind in ("float_type", "int_type", "float_parsing", "int_parsing", "int_from_float"):
        what = "a whole number" if kind.startswith("int") else "a number"
        return f"{name} must be {what}, not {value!r}"
    if kind == "finite_number":
        return f"{name} must be a finite number, not {value!r}"
    if kind in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        sign = {"greater_than": ">", "greater_than_equal": "≥", "less_than": "<", "less_than_equal": "≤"}[kind]
        limit = next(iter(ctx.values()), "")
        return f"{name} must be {sign} {limit}, not {value!r}"
    return str(error["msg"])
