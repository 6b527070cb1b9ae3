"""Reading a gates file: TOML → checked rules (absolute and against a baseline run).

    compare = "point"                     # or "lower": the interval must clear the threshold
    [overall]
    citation_validity = { min = 0.95 }
    [tier.critical]
    compare = "lower"                     # a section may override the file's compare
    "findings.NUMBER_UNSUPPORTED" = { max = 0 }

    [baseline]                            # rules against a baseline run (citeval gate --baseline)
    alpha = 0.05                          # level of the paired tests (default 0.05)
    min_shared = 20                       # fewer shared questions: the rule is skipped
    significant = true                    # fail only on a significant change (default false)
    citation_validity = { max_drop = 0.02 }
    [baseline.tier.critical]
    "findings.NUMBER_UNSUPPORTED" = { max_increase = 0, significant = false }

Every table is validated by a pydantic model (spec.py); any unknown name, wrong type or
impossible bound is a DataError naming the file, the line and the key, so a typo can never
switch a rule off. A file without a single rule is refused too.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from evals.contract.findings import FINDING_CODES
from evals.contract.metrics import LOWER_IS_BETTER, METRIC_NAMES
from evals.contract.models import RISK_TIERS
from evals.errors import DataError
from evals.gate import spec
from evals.gate.probe_bounds import ProbeGates, probe_gates_of
from evals.store.reading import decode_text, read_file_bytes, toml_line
from evals.store.runfolder import PROBE_JSON

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

FINDINGS_PREFIX = "findings."
PASS_RATE = "pass_rate"  # baseline only: share of questions that pass (report.stats.PASS_DEFINITION)
DEFAULT_GATES = Path(__file__).with_name("default.toml")


def default_gates_path() -> Path:
    """The gates file shipped with citeval (gates/default.toml in the repository)."""
    return DEFAULT_GATES


def gate_keys() -> tuple[str, ...]:
    """Every key a rule may name: the metrics of the metric table and findings.<CODE> of the findings table."""
    return (*METRIC_NAMES, *(FINDINGS_PREFIX + code for code in FINDING_CODES))


def baseline_keys() -> tuple[str, ...]:
    """Every key a baseline rule may name: the gate keys and pass_rate."""
    return (*gate_keys(), PASS_RATE)


def lower_is_better(key: str) -> bool:
    """Whether a rise of `key` is a regression: a metric the table says is better lower (error_rate),
    or a finding count."""
    return key in LOWER_IS_BETTER or key.startswith(FINDINGS_PREFIX)


def _num(x: float | int | None) -> str:
    if x is None:
        return "—"
    if float(x).is_integer() and abs(x) >= 1:
        return str(int(x))
    return f"{x:.3f}".rstrip("0").rstrip(".") if x != 0 else "0"


class _RuleName:
    """What a score rule and a baseline rule share: a key on a scope, named `<scope label>.<key>`."""

    scope: str
    key: str

    @property
    def is_count(self) -> bool:
        return self.key.startswith(FINDINGS_PREFIX)

    @property
    def scope_label(self) -> str:
        raise NotImplementedError

    @property
    def rule_id(self) -> str:
        return f"{self.scope_label}.{self.key}"


@dataclass(frozen=True)
class Rule(_RuleName):
    scope: str  # "overall" or a risk tier
    key: str  # a metric name or findings.<CODE>
    min: float | None = None
    max: float | None = None
    compare: str = "point"
    allow_null: bool = False
    line: int | None = None

    @property
    def scope_label(self) -> str:
        return "overall" if self.scope == "overall" else f"tier.{self.scope}"

    def requirement(self) -> str:
        """'≥ 0.95 (lower bound)', '≤ 0' …: what must hold, in words a CI log can show."""
        parts = []
        if self.min is not None:
            parts.append(f"≥ {_num(self.min)}")
        if self.max is not None:
            parts.append(f"≤ {_num(self.max)}")
        text = " and ".join(parts)
        if self.compare == "lower" and not self.is_count:
            which = ["lower bound"] if self.min is not None else []
            which += ["upper bound"] if self.max is not None else []
            text += f" ({' / '.join(which)} of the 95 % interval)"
        return text


@dataclass(frozen=True)
class BaselineRule(_RuleName):
    """A rule on the change from a baseline run to this run, over the questions both answered."""

    scope: str  # "overall" or a risk tier
    key: str  # a metric, findings.<CODE> or pass_rate
    limit: float  # the largest change for the worse that passes
    significant: bool = False  # fail only when the paired test rejects "no change" at alpha
    alpha: float = spec.DEFAULT_ALPHA
    allow_null: bool = False
    line: int | None = None

    @property
    def direction(self) -> str:
        """'increase' for error_rate and finding counts, 'drop' for the rest."""
        return "increase" if lower_is_better(self.key) else "drop"

    @property
    def scope_label(self) -> str:
        return "baseline" if self.scope == "overall" else f"baseline.tier.{self.scope}"

    def requirement(self) -> str:
        """'drop ≤ 0.02 unless not significant (p ≥ 0.05)' …"""
        text = f"{self.direction} ≤ {_num(self.limit)}"
        return text + (f", or not significant (p ≥ {_num(self.alpha)})" if self.significant else "")


@dataclass(frozen=True)
class BaselineSettings:
    alpha: float = spec.DEFAULT_ALPHA
    min_shared: int = spec.DEFAULT_MIN_SHARED


@dataclass
class GateConfig:
    path: Path
    rules: list[Rule]
    compare: str = "point"
    baseline_rules: list[BaselineRule] = field(default_factory=list)
    baseline: BaselineSettings = field(default_factory=BaselineSettings)
    sha256: str | None = None  # of the file's bytes, for provenance (scores.json provenance.gates_sha256)
    has_probe: bool = False  # the file has a [probe] table: bounds on a probe run's probe.json (DESIGN 10)
    probe: ProbeGates = field(default_factory=ProbeGates)  # that table's bounds (none without it)

    @property
    def probe_only(self) -> bool:
        """A file with a [probe] table and no rule on scores: it judges a probe run's probe.json alone."""
        return self.has_probe and not self.rules and not self.baseline_rules


@dataclass(frozen=True)
class _Source:
    path: Path
    text: str
    sha256: str = ""

    def line(self, section: list[str], key: str | None) -> int | None:
        return toml_line(self.text, section, key)

    def error(self, section: list[str], key: str | None, message: str, field_name: str | None = None) -> DataError:
        return DataError(self.path, self.line(section, key), message, field=field_name)

    def validate(self, model: type[Any], value: Any, section: list[str], key: str | None, where: str) -> Any:
        """`model` over `value`; the first error becomes a DataError at `key` of `[section]`."""
        try:
            return model.model_validate(value)
        except ValidationError as exc:
            error = spec.first_error(exc)
            if key is None and error["loc"]:
                key = str(error["loc"][0])  # an option of the section: point at its own line
                where = f"{where}.{key}" if where else key
            raise self.error(section, key, spec.error_message(error, model), where) from None


def read_toml(path: Path) -> _Source:
    """A gates file's bytes, decoded strictly (a BOM dropped, CR LF folded), with their sha256."""
    data = read_file_bytes(path, missing="gates file not found")
    text = decode_text(data, path).replace("\r\n", "\n")  # strict UTF-8 naming the line; a BOM is dropped
    return _Source(path, text, hashlib.sha256(data).hexdigest())


def parse_toml(source: _Source) -> dict[str, Any]:
    """The TOML document; invalid TOML is a DataError at its line."""
    try:
        return tomllib.loads(source.text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise DataError(source.path, int(m.group(1)) if m else None, f"invalid TOML: {exc}") from None


# --- sections ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Section:
    scope: str  # "overall" or a risk tier
    path: list[str]  # the TOML table path, e.g. ["baseline", "tier", "critical"]
    table: Mapping[str, Any]

    @property
    def label(self) -> str:
        return ".".join(self.path)


def _split(table: Mapping[str, Any], options: type[BaseModel]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A section's own options and its rules (every other key)."""
    names = spec.option_names(options)
    return {k: v for k, v in table.items() if k in names}, {k: v for k, v in table.items() if k not in names}


def _tier_sections(source: _Source, value: Any, prefix: list[str]) -> list[_Section]:
    """[<prefix>.tier.<risk tier>] tables."""
    if not isinstance(value, dict):
        label = ".".join([*prefix, "tier"])
        raise source.error(prefix, "tier", f"{label} must hold tables [{label}.<risk tier>]", label)
    sections = []
    for tier, rules in value.items():
        path = [*prefix, "tier", tier]
        label = ".".join(path)
        if tier not in RISK_TIERS:
            raise source.error(path, None, f"unknown risk tier {tier!r} (expected one of {', '.join(RISK_TIERS)})",
                               label)
        if not isinstance(rules, dict):
            raise source.error([*prefix, "tier"], tier, f"{label} must be a table of rules", label)
        sections.append(_Section(tier, path, rules))
    return sections


def _top_sections(source: _Source, doc: Mapping[str, Any]) -> tuple[list[_Section], Mapping[str, Any] | None]:
    """The absolute sections ([overall], [tier.*]) and the [baseline] table, if any."""
    sections: list[_Section] = []
    baseline = None
    for name, value in doc.items():
        if name in spec.option_names(spec.FileOptions):
            continue
        if name == "overall":
            if not isinstance(value, dict):
                raise source.error([], name, "overall must be a table of rules", name)
            sections.append(_Section("overall", ["overall"], value))
        elif name == "tier":
            sections += _tier_sections(source, value, [])
        elif name == "baseline":
            if not isinstance(value, dict):
                raise source.error([], name, "baseline must be a table of rules", name)
            baseline = value
        elif name == "probe":
            continue  # the bounds on probe.json, read by probe_gates_of
        else:
            table = isinstance(value, dict)
            raise source.error(
                [name] if table else [], None if table else name,
                f"unknown key {name!r} (expected compare, [overall], [tier.<risk tier>] or [baseline])", name,
            )
    return sections, baseline


def _known_key(source: _Source, section: _Section, key: str, known: tuple[str, ...]) -> None:
    if key in known:
        return
    if key == "compare" and PASS_RATE in known:
        message = "compare does not apply to baseline rules (they judge the paired change; see significant)"
    elif key.startswith(FINDINGS_PREFIX):
        message = f"unknown finding code {key[len(FINDINGS_PREFIX):]!r} (see DESIGN 4)"
    else:
        extra = ", pass_rate" if PASS_RATE in known else ""
        message = f"unknown metric {key!r} (known: {', '.join(METRIC_NAMES)}{extra}, or findings.<CODE>)"
    raise source.error(section.path, key, message, f"{section.label}.{key}")


# --- rules -----------------------------------------------------------------------------------


def _absolute_rules(source: _Source, section: _Section, file_compare: str) -> list[Rule]:
    options, rules = _split(section.table, spec.SectionOptions)
    own = source.validate(spec.SectionOptions, options, section.path, None, section.label)
    compare = own.compare or file_compare
    out = []
    for key, value in rules.items():
        _known_key(source, section, key, gate_keys())
        where = f"{section.label}.{key}"
        if not isinstance(value, dict):
            raise source.error(section.path, key, "a rule must be a table such as { min = 0.95 }", where)
        rule = source.validate(spec.RuleSpec, value, section.path, key, where)
        _satisfiable(source, section, key, rule, where)
        out.append(Rule(
            scope=section.scope, key=key, min=rule.min, max=rule.max, compare=rule.compare or compare,
            allow_null=rule.allow_null, line=source.line(section.path, key),
        ))
    return out


def _satisfiable(source: _Source, section: _Section, key: str, rule: spec.RuleSpec, where: str) -> None:
    """A bound no value can meet fails every run whatever it scores: a typo such as min = 95 for 0.95."""
    if key.startswith(FINDINGS_PREFIX):
        if rule.max is not None and rule.max < 0:
            raise source.error(section.path, key, f"max {_num(rule.max)} can never be met: a count is ≥ 0", where)
        for name, bound in (("min", rule.min), ("max", rule.max)):
            if bound is not None and bound != int(bound):
                raise source.error(section.path, key, f"{name} {_num(bound)} is no count: a findings rule counts "
                                   f"findings, so its bound is a whole number (write {int(bound)} or "
                                   f"{int(bound) + 1})", where)
        return
    if rule.min is not None and rule.min > 1:
        raise source.error(section.path, key, f"min {_num(rule.min)} can never be met: {key} lies in 0..1 "
                           f"(write {rule.min / 100:g} for {_num(rule.min)} %)", where)
    if rule.max is not None and rule.max < 0:
        raise source.error(section.path, key, f"max {_num(rule.max)} can never be met: {key} lies in 0..1", where)


def _baseline_rule(
    source: _Source, section: _Section, key: str, value: Any, significant: bool, alpha: float
) -> BaselineRule:
    _known_key(source, section, key, baseline_keys())
    where = f"{section.label}.{key}"
    if not isinstance(value, dict):
        raise source.error(section.path, key, "a baseline rule must be a table such as { max_drop = 0.02 }", where)
    rule = source.validate(spec.BaselineRuleSpec, value, section.path, key, where)
    worse = "increase" if lower_is_better(key) else "drop"
    if (rule.max_drop if worse == "drop" else rule.max_increase) is None:
        given = "max_increase" if worse == "drop" else "max_drop"
        raise source.error(
            section.path, key,
            f"{given} cannot catch a regression of {key} (a {worse} is worse): use max_{worse}", where,
        )
    limit = rule.max_drop if worse == "drop" else rule.max_increase
    return BaselineRule(
        scope=section.scope, key=key, limit=float(limit), alpha=alpha, allow_null=rule.allow_null,
        significant=significant if rule.significant is None else rule.significant,
        line=source.line(section.path, key),
    )


def _baseline_rules(source: _Source, table: Mapping[str, Any]) -> tuple[BaselineSettings, list[BaselineRule]]:
    top = _Section("overall", ["baseline"], {k: v for k, v in table.items() if k != "tier"})
    options, rules = _split(top.table, spec.BaselineOptions)
    settings = source.validate(spec.BaselineOptions, options, top.path, None, top.label)
    out = [_baseline_rule(source, top, k, v, settings.significant, settings.alpha) for k, v in rules.items()]
    tiers = _tier_sections(source, table["tier"], ["baseline"]) if "tier" in table else []
    for section in tiers:
        tier_options, tier_rules = _split(section.table, spec.BaselineTierOptions)
        own = source.validate(spec.BaselineTierOptions, tier_options, section.path, None, section.label)
        significant = settings.significant if own.significant is None else own.significant
        out += [_baseline_rule(source, section, k, v, significant, settings.alpha) for k, v in tier_rules.items()]
    return BaselineSettings(alpha=settings.alpha, min_shared=settings.min_shared), out


def load_gates(path: Path | str | None = None, *, allow_probe_only: bool = False) -> GateConfig:
    """Read and check a gates file (default: the shipped one), its [probe] table included; any
    unknown name is a DataError. A file without a rule on scores is refused unless
    `allow_probe_only` and it has a [probe] table (`run_gate` judges such a file on probe.json)."""
    source = read_toml(Path(path) if path is not None else default_gates_path())
    doc = parse_toml(source)
    top = source.validate(spec.FileOptions, {k: v for k, v in doc.items() if k == "compare"}, [], None, "")
    sections, baseline_table = _top_sections(source, doc)
    rules = [rule for section in sections for rule in _absolute_rules(source, section, top.compare)]
    settings, baseline_rules = _baseline_rules(source, baseline_table) if baseline_table is not None else (
        BaselineSettings(), [])
    has_probe = "probe" in doc
    probe = probe_gates_of(source.path, source.text, doc["probe"]) if has_probe else ProbeGates(str(source.path))
    if not rules and not baseline_rules and has_probe and not allow_probe_only:
        raise DataError(source.path, None, "the gates file holds only a [probe] table: it judges a probe run's "
                                           f"{PROBE_JSON} (`citeval gate` on a `citeval probe` run folder), not "
                                           "scores; add rules under [overall], [tier.<risk tier>] or [baseline]")
    if not rules and not baseline_rules and not has_probe:
        raise DataError(source.path, None, "the gates file has no rule: nothing would be checked "
                                           "(add rules under [overall], [tier.<risk tier>] or [baseline])")
    return GateConfig(path=source.path, rules=rules, compare=top.compare, baseline_rules=baseline_rules,
                      baseline=settings, sha256=source.sha256, has_probe=has_probe, probe=probe)


def load_probe_gates(path: Path | str | None = None) -> ProbeGates:
    """The [probe] bounds of a gates file (default: the shipped one), read by `load_gates` like the
    rest of the file; none when the file has no [probe] table."""
    return load_gates(path, allow_probe_only=True).probe


def is_probe_only_gates(path: Path | str | None) -> bool:
    """Whether the gates file holds a `[probe]` table and no rule on scores. An unreadable or
    invalid file is not probe-only: `run_gate` reports what is wrong with it."""
    if path is None:
        return False
    try:
        return load_gates(path, allow_probe_only=True).probe_only
    except DataError:
        return False
