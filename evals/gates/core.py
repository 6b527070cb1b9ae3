"""Gates: thresholds per risk tier and overall, applied to scores.json (DESIGN 7).

A gates file is TOML:

    compare = "point"                     # or "lower": the interval must clear the threshold
    [overall]
    citation_validity = { min = 0.95 }
    [tier.critical]
    compare = "lower"                     # a section may override the file's compare
    "findings.NUMBER_UNSUPPORTED" = { max = 0 }

A rule is `{min?, max?, compare?, allow_null?}` on a metric of scores.json or on
`findings.<CODE>` (a count of findings). "lower" compares the pessimistic end of the 95 %
interval: its lower bound for a `min`, its upper bound for a `max`. A metric without a value
(or, under "lower", without an interval) fails with "no value: <reason>" unless the rule
says `allow_null = true`; such a rule is then skipped, never silently passed.
"""

from __future__ import annotations

import math
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from ..data.models import FINDING_CODES, RISK_TIERS
from ..errors import DataError
from ..metrics import ALL_METRICS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

COMPARE_MODES = ("point", "lower")
RULE_OPTIONS = ("min", "max", "compare", "allow_null")
FINDINGS_PREFIX = "findings."
DEFAULT_GATES = Path(__file__).with_name("default.toml")
SCORES_FILE = "scores.json"

Status = Literal["pass", "fail", "skip"]


def default_gates_path() -> Path:
    """The gates file shipped with citeval (gates/default.toml in the repository)."""
    return DEFAULT_GATES


def gate_keys() -> tuple[str, ...]:
    """Every key a rule may name: the metrics of DESIGN 6 and findings.<CODE> of DESIGN 4."""
    return (*ALL_METRICS, *(FINDINGS_PREFIX + code for code in FINDING_CODES))


# --- the file ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    scope: str  # "overall" or a risk tier
    key: str  # a metric name or findings.<CODE>
    min: float | None = None
    max: float | None = None
    compare: str = "point"
    allow_null: bool = False
    line: int | None = None

    @property
    def is_count(self) -> bool:
        return self.key.startswith(FINDINGS_PREFIX)

    @property
    def scope_label(self) -> str:
        return "overall" if self.scope == "overall" else f"tier.{self.scope}"

    @property
    def rule_id(self) -> str:
        return f"{self.scope_label}.{self.key}"

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


@dataclass
class GateConfig:
    path: Path
    rules: list[Rule]
    compare: str = "point"


def _num(x: float | int | None) -> str:
    if x is None:
        return "—"
    if float(x).is_integer() and abs(x) >= 1:
        return str(int(x))
    return f"{x:.3f}".rstrip("0").rstrip(".") if x != 0 else "0"


_HEADER = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$")


def _split_dotted(text: str) -> list[str]:
    return [p.strip().strip("\"'") for p in re.findall(r'"[^"]*"|\'[^\']*\'|[^.]+', text)]


def _line_of(text: str, section: list[str], key: str | None) -> int | None:
    """Line of `key` inside `[section]` (or of the section header when key is None); tomllib keeps no positions."""
    current: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        header = _HEADER.match(line)
        if header:
            current = _split_dotted(header.group(1))
            if key is None and current == section:
                return lineno
            continue
        if key is not None and current == section:
            m = re.match(r"""^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_.-]+))\s*=""", line)
            if m and key in (m.group(1), m.group(2), m.group(3)):
                return lineno
    return None


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def load_gates(path: Path | str | None = None) -> GateConfig:
    """Read and check a gates file (default: the shipped one). Any unknown name is a DataError."""
    path = Path(path) if path is not None else default_gates_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(path, None, "gates file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(path, None, f"cannot read the gates file: {exc}") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise DataError(path, int(m.group(1)) if m else None, f"invalid TOML: {exc}") from None

    def fail(section: list[str], key: str | None, message: str, field_name: str | None = None) -> DataError:
        return DataError(path, _line_of(text, section, key), message, field=field_name)

    top_compare = doc.get("compare", "point")
    if top_compare not in COMPARE_MODES:
        raise fail([], "compare", f"compare must be one of {', '.join(COMPARE_MODES)}, not {top_compare!r}", "compare")
    sections: list[tuple[str, list[str], Mapping[str, Any]]] = []
    for name, value in doc.items():
        if name == "compare":
            continue
        if name == "overall":
            if not isinstance(value, dict):
                raise fail([], name, "overall must be a table of rules", name)
            sections.append(("overall", ["overall"], value))
        elif name == "tier":
            if not isinstance(value, dict):
                raise fail([], name, "tier must hold tables [tier.<risk tier>]", name)
            for tier, tier_rules in value.items():
                if tier not in RISK_TIERS:
                    raise fail(
                        ["tier", tier], None, f"unknown risk tier {tier!r} (expected one of {', '.join(RISK_TIERS)})",
                        f"tier.{tier}",
                    )
                if not isinstance(tier_rules, dict):
                    raise fail(["tier"], tier, f"tier.{tier} must be a table of rules", f"tier.{tier}")
                sections.append((tier, ["tier", tier], tier_rules))
        else:
            raise fail(
                [name] if isinstance(value, dict) else [], None if isinstance(value, dict) else name,
                f"unknown key {name!r} (expected compare, [overall] or [tier.<risk tier>])", name,
            )

    known = set(gate_keys())
    rules: list[Rule] = []
    for scope, section, table in sections:
        label = ".".join(section)
        compare = table.get("compare", top_compare)
        if compare not in COMPARE_MODES:
            raise fail(section, "compare", f"compare must be one of {', '.join(COMPARE_MODES)}", f"{label}.compare")
        for key, spec in table.items():
            if key == "compare":
                continue
            where = f"{label}.{key}"
            if key not in known:
                if key.startswith(FINDINGS_PREFIX):
                    message = f"unknown finding code {key[len(FINDINGS_PREFIX):]!r} (see DESIGN 4)"
                else:
                    message = f"unknown metric {key!r} (known: {', '.join(ALL_METRICS)}, or findings.<CODE>)"
                raise fail(section, key, message, where)
            if not isinstance(spec, dict):
                raise fail(section, key, "a rule must be a table such as { min = 0.95 }", where)
            unknown = [k for k in spec if k not in RULE_OPTIONS]
            if unknown:
                raise fail(section, key, f"unknown option {unknown[0]!r} (expected {', '.join(RULE_OPTIONS)})", where)
            lo, hi = spec.get("min"), spec.get("max")
            for bound_name, bound in (("min", lo), ("max", hi)):
                if bound is not None and not _is_number(bound):
                    raise fail(section, key, f"{bound_name} must be a number, not {bound!r}", where)
            if lo is None and hi is None:
                raise fail(section, key, "a rule needs min or max", where)
            if lo is not None and hi is not None and lo > hi:
                raise fail(section, key, f"min {lo} is above max {hi}", where)
            rule_compare = spec.get("compare", compare)
            if rule_compare not in COMPARE_MODES:
                raise fail(section, key, f"compare must be one of {', '.join(COMPARE_MODES)}", where)
            allow_null = spec.get("allow_null", False)
            if not isinstance(allow_null, bool):
                raise fail(section, key, "allow_null must be true or false", where)
            rules.append(
                Rule(
                    scope=scope,
                    key=key,
                    min=None if lo is None else float(lo),
                    max=None if hi is None else float(hi),
                    compare=rule_compare,
                    allow_null=allow_null,
                    line=_line_of(text, section, key),
                )
            )
    return GateConfig(path=path, rules=rules, compare=top_compare)


# --- evaluation --------------------------------------------------------------------------


@dataclass
class RuleOutcome:
    rule: Rule
    status: Status
    observed: float | None = None  # the point estimate (or the count)
    ci: tuple[float, float] | None = None
    n: int | None = None
    checked: float | None = None  # the number compared with the threshold
    message: str = ""

    def observed_text(self) -> str:
        if self.observed is None:
            return "—"
        if self.rule.is_count:
            return str(int(self.observed))
        ci = f" [{self.ci[0]:.3f}, {self.ci[1]:.3f}]" if self.ci else ""
        return f"{self.observed:.3f}{ci}"

    def to_json(self) -> dict[str, Any]:
        r = self.rule
        return {
            "rule": r.rule_id,
            "scope": r.scope,
            "key": r.key,
            "min": r.min,
            "max": r.max,
            "compare": r.compare,
            "allow_null": r.allow_null,
            "status": self.status,
            "observed": self.observed,
            "ci": list(self.ci) if self.ci else None,
            "n": self.n,
            "checked": self.checked,
            "required": r.requirement(),
            "message": self.message,
        }


@dataclass
class GateResult:
    gates_path: Path
    run_id: str | None
    outcomes: list[RuleOutcome] = field(default_factory=list)
    evaluated_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @property
    def failed(self) -> list[RuleOutcome]:
        return [o for o in self.outcomes if o.status == "fail"]

    @property
    def skipped(self) -> list[RuleOutcome]:
        return [o for o in self.outcomes if o.status == "skip"]

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1  # DESIGN 7: 1 = a gate failed

    def outcome(self, scope: str, key: str) -> RuleOutcome | None:
        return next((o for o in self.outcomes if o.rule.scope == scope and o.rule.key == key), None)

    def summary_line(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        skipped = f", {len(self.skipped)} skipped" if self.skipped else ""
        return (
            f"gate {verdict}: {len(self.failed)} of {len(self.outcomes)} rule(s) failed{skipped} ({self.gates_path})"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "gates": str(self.gates_path),
            "passed": self.passed,
            "exit_code": self.exit_code,
            "rules": len(self.outcomes),
            "failed": len(self.failed),
            "skipped": len(self.skipped),
            "outcomes": [o.to_json() for o in self.outcomes],
        }

    def to_text(self) -> str:
        """Each failed rule with observed vs required, then one summary line."""
        lines = [f"FAIL {o.rule.rule_id}: {o.message}" for o in self.failed]
        return "\n".join([*lines, self.summary_line()]) + "\n"

    def to_junit(self) -> str:
        """JUnit XML: one testcase per rule (failure / skipped / passed)."""
        stamp = self.evaluated_at.replace(microsecond=0).isoformat()
        suites = ET.Element(
            "testsuites",
            name="citeval gate",
            tests=str(len(self.outcomes)),
            failures=str(len(self.failed)),
            errors="0",
            skipped=str(len(self.skipped)),
        )
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=_xml_text(f"citeval gate {self.run_id or ''}".strip()),
            tests=str(len(self.outcomes)),
            failures=str(len(self.failed)),
            errors="0",
            skipped=str(len(self.skipped)),
            timestamp=stamp,
            time="0",
        )
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="gates", value=_xml_text(str(self.gates_path)))
        ET.SubElement(props, "property", name="run_id", value=_xml_text(self.run_id or ""))
        for o in self.outcomes:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"citeval.gate.{o.rule.scope_label}",
                name=_xml_text(f"{o.rule.key} {o.rule.requirement()}"),
                time="0",
            )
            if o.status == "fail":
                failure = ET.SubElement(case, "failure", message=_xml_text(o.message), type="GateFailed")
                failure.text = _xml_text(
                    f"rule {o.rule.rule_id} ({self.gates_path}"
                    + (f":{o.rule.line}" if o.rule.line else "")
                    + f")\nobserved: {o.observed_text()}"
                    + (f" (n={o.n})" if o.n is not None else "")
                    + f"\nrequired: {o.rule.requirement()}\n{o.message}"
                )
            elif o.status == "skip":
                ET.SubElement(case, "skipped", message=_xml_text(o.message))
            else:
                out = ET.SubElement(case, "system-out")
                out.text = _xml_text(o.message)
        ET.indent(suites)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"

    def to_markdown(self) -> str:
        """A summary fit for a CI job summary: the verdict, the failed rules, then every rule folded."""
        icon = {"pass": "✅", "fail": "❌", "skip": "⚪"}
        run = f" — run `{_md(self.run_id)}`" if self.run_id else ""
        head = "passed" if self.passed else f"failed ({len(self.failed)} of {len(self.outcomes)} rules)"
        lines = [f"### {icon['pass' if self.passed else 'fail']} citeval gate {head}{run}", ""]
        lines.append(f"Gates file: `{_md(str(self.gates_path))}`; {len(self.skipped)} rule(s) skipped.")
        lines.append("")

        def table(outcomes: Iterable[RuleOutcome]) -> list[str]:
            out = ["| | rule | observed | required | note |", "|---|---|---|---|---|"]
            for o in outcomes:
                n = f" (n={o.n})" if o.n is not None and not o.rule.is_count else ""
                out.append(
                    f"| {icon[o.status]} | `{o.rule.rule_id}` | {o.observed_text()}{n} | {_md(o.rule.requirement())} "
                    f"| {_md(o.message)} |"
                )
            return out

        if self.failed:
            lines += ["**Failed rules**", "", *table(self.failed), ""]
        lines += ["<details><summary>All rules</summary>", "", *table(self.outcomes), "", "</details>", ""]
        return "\n".join(lines)


_XML_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """XML 1.0 cannot carry control characters even escaped; drop them."""
    return _XML_BAD.sub("", text)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("<", "&lt;").replace(">", "&gt;")


def _metric_entry(scores: Mapping[str, Any], scope: str, key: str) -> tuple[dict[str, Any] | None, str | None]:
    if scope == "overall":
        return dict(scores.get("metrics", {}).get(key) or {}), None
    tier = scores.get("by_tier", {}).get(scope)
    if tier is None:
        return None, f"no {scope} question in this run"
    return dict(tier.get("metrics", {}).get(key) or {}), None


def _check(rule: Rule, value: float) -> str | None:
    """Why `value` breaks the rule, or None."""
    if rule.min is not None and value < rule.min:
        return f"< required ≥ {_num(rule.min)}"
    if rule.max is not None and value > rule.max:
        return f"> required ≤ {_num(rule.max)}"
    return None


def _no_value(outcome: RuleOutcome, rule: Rule, message: str) -> RuleOutcome:
    """A rule with nothing to compare fails, or is skipped when it says allow_null."""
    outcome.status = "skip" if rule.allow_null else "fail"
    outcome.message = message + (" (allowed by allow_null)" if rule.allow_null else "")
    return outcome


def _evaluate_rule(rule: Rule, scores: Mapping[str, Any]) -> RuleOutcome:
    if rule.is_count:
        code = rule.key[len(FINDINGS_PREFIX):]
        if rule.scope == "overall":
            counts = scores.get("findings") or {}
        else:
            if rule.scope not in (scores.get("by_tier") or {}):
                return RuleOutcome(rule, "skip", message=f"no {rule.scope} question in this run")
            counts = (scores.get("findings_by_tier") or {}).get(rule.scope) or {}
        count = float(counts.get(code, 0))
        broken = _check(rule, count)
        message = f"{int(count)} finding(s) {code}" + (f" {broken}" if broken else "")
        return RuleOutcome(rule, "fail" if broken else "pass", observed=count, checked=count, message=message)

    entry, absent = _metric_entry(scores, rule.scope, rule.key)
    if entry is None:
        return RuleOutcome(rule, "skip", message=absent or "")
    value = entry.get("value")
    ci = entry.get("ci")
    ci_t = (float(ci[0]), float(ci[1])) if isinstance(ci, (list, tuple)) and len(ci) == 2 else None
    n = entry.get("n")
    base = RuleOutcome(rule, "pass", observed=None if value is None else float(value), ci=ci_t, n=n)
    if value is None:
        return _no_value(base, rule, f"no value: {entry.get('reason') or 'the metric has no value'}")
    checks: list[tuple[str, float]] = []
    if rule.compare == "lower":
        if ci_t is None:
            reason = entry.get("ci_reason") or "no interval"
            return _no_value(base, rule, f"no value: no interval for compare = \"lower\" ({reason})")
        if rule.min is not None:
            checks.append(("lower bound", ci_t[0]))
        if rule.max is not None:
            checks.append(("upper bound", ci_t[1]))
    else:
        checks.append(("value", float(value)))
    for what, number in checks:
        broken = _check(rule, number)
        base.checked = number
        if broken:
            base.status = "fail"
            context = f" (n={n})" if what == "value" else f" (point {float(value):.3f}, n={n})"
            base.message = f"{what} {number:.3f} {broken}{context}"
            return base
    base.message = "ok: " + ", ".join(f"{what} {number:.3f}" for what, number in checks)
    return base


def evaluate(gates: GateConfig, scores: Mapping[str, Any]) -> GateResult:
    """Apply every rule to a scores.json document."""
    return GateResult(
        gates_path=gates.path,
        run_id=scores.get("run_id"),
        outcomes=[_evaluate_rule(rule, scores) for rule in gates.rules],
    )


# --- a run folder -------------------------------------------------------------------------


def load_scores(run_dir: Path | str) -> dict[str, Any]:
    import json

    path = Path(run_dir) / SCORES_FILE
    if not path.exists():
        raise DataError(path, None, "file not found (score the run first: citeval score RUN)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DataError(path, exc.lineno, f"invalid JSON: {exc.msg}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("metrics"), dict):
        raise DataError(path, None, "not a scores.json document (no metrics)")
    return doc


def _write_text_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def run_gate(
    run_dir: Path | str,
    gates: Path | str | GateConfig | None = None,
    *,
    junit: Path | str | None = None,
    summary: Path | str | None = None,
) -> GateResult:
    """Gate a scored run folder; write JUnit XML and a Markdown summary where asked."""
    config = gates if isinstance(gates, GateConfig) else load_gates(gates)
    result = evaluate(config, load_scores(run_dir))
    if junit is not None:
        _write_text_atomic(Path(junit), result.to_junit())
    if summary is not None:
        _write_text_atomic(Path(summary), result.to_markdown())
    return result
