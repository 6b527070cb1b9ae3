"""What a gate decided: one outcome per rule, the verdict, JUnit XML and a Markdown summary."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from evals.gate.config import BaselineRule, Rule
from evals.gate.probe_bounds import ProbeOutcome
from evals.text.escape import markdown_code, markdown_text, terminal_safe

Status = Literal["pass", "fail", "skip"]
ICON = {"pass": "✅", "fail": "❌", "skip": "⚪"}
SHOWN_IDS = 10  # question ids listed per side when runs do not share all questions


@dataclass
class RuleOutcome:
    rule: Rule
    status: Status
    observed: float | None = None  # the point estimate (or the count)
    ci: tuple[float, float] | None = None
    n: int | None = None
    checked: float | None = None  # the number compared with the threshold
    message: str = ""
    no_question: bool = False  # skipped: the run has no question of the rule's tier

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


def _value(x: float | None, count: bool) -> str:
    if x is None:
        return "—"
    return f"{x:.0f}" if count else f"{x:.3f}"


@dataclass
class BaselineOutcome:
    """A baseline rule's verdict with what decided it: both values, the change, its interval, p."""

    rule: BaselineRule
    status: Status
    n: int | None = None  # shared questions with a value in both runs
    baseline: float | None = None  # the baseline's mean (or count) over those questions
    observed: float | None = None  # this run's, over the same questions
    delta: float | None = None  # observed − baseline
    ci: tuple[float, float] | None = None  # paired bootstrap 95 % interval of delta
    p_value: float | None = None
    method: str | None = None
    message: str = ""

    def delta_text(self) -> str:
        if self.delta is None:
            return "—"
        count = self.rule.is_count
        ci = f" [{self.ci[0]:+.{0 if count else 3}f}, {self.ci[1]:+.{0 if count else 3}f}]" if self.ci else ""
        return (f"{self.delta:+.0f}" if count else f"{self.delta:+.3f}") + ci

    def p_text(self) -> str:
        return "—" if self.p_value is None else f"{self.p_value:.4g}"

    def observed_text(self) -> str:
        count = self.rule.is_count
        return (f"{_value(self.baseline, count)} → {_value(self.observed, count)}, Δ {self.delta_text()}, "
                f"p = {self.p_text()}")

    def to_json(self) -> dict[str, Any]:
        r = self.rule
        return {
            "rule": r.rule_id,
            "scope": r.scope,
            "key": r.key,
            "direction": r.direction,
            "limit": r.limit,
            "significant": r.significant,
            "alpha": r.alpha,
            "allow_null": r.allow_null,
            "status": self.status,
            "n": self.n,
            "baseline": self.baseline,
            "observed": self.observed,
            "delta": self.delta,
            "ci": list(self.ci) if self.ci else None,
            "p_value": self.p_value,
            "method": self.method,
            "required": r.requirement(),
            "message": self.message,
        }


@dataclass
class BaselineInfo:
    """Which baseline the run was compared with, and the questions only one of them has."""

    run_id: str | None
    source: str
    shared: int = 0
    only_in_run: list[str] = field(default_factory=list)
    only_in_baseline: list[str] = field(default_factory=list)

    def overlap_text(self) -> str:
        def ids(items: list[str]) -> str:
            shown = ", ".join(items[:SHOWN_IDS])
            return f": {shown}" + (f", … ({len(items) - SHOWN_IDS} more)" if len(items) > SHOWN_IDS else "")

        text = f"baseline {self.run_id or '?'} ({self.source}): {self.shared} shared question(s)"
        if self.only_in_run:
            text += f"; {len(self.only_in_run)} only in this run{ids(self.only_in_run)}"
        if self.only_in_baseline:
            text += f"; {len(self.only_in_baseline)} only in the baseline{ids(self.only_in_baseline)}"
        return text

    def overlap_markdown(self) -> str:
        """overlap_text for a Markdown summary: every id and the source as inline code."""

        def ids(items: list[str]) -> str:
            shown = ", ".join(markdown_code(i) for i in items[:SHOWN_IDS])
            return f": {shown}" + (f", … ({len(items) - SHOWN_IDS} more)" if len(items) > SHOWN_IDS else "")

        text = (f"baseline {markdown_code(self.run_id or '?')} ({markdown_code(self.source)}): "
                f"{self.shared} shared question(s)")
        if self.only_in_run:
            text += f"; {len(self.only_in_run)} only in this run{ids(self.only_in_run)}"
        if self.only_in_baseline:
            text += f"; {len(self.only_in_baseline)} only in the baseline{ids(self.only_in_baseline)}"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "source": self.source,
            "shared_questions": self.shared,
            "only_in_run": self.only_in_run,
            "only_in_baseline": self.only_in_baseline,
        }


AnyOutcome = RuleOutcome | BaselineOutcome


@dataclass
class GateResult:
    gates_path: Path
    run_id: str | None
    outcomes: list[RuleOutcome] = field(default_factory=list)
    evaluated_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    baseline: BaselineInfo | None = None
    baseline_outcomes: list[BaselineOutcome] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # the gates file's [probe] bounds on the run's probe.json, when it has both (DESIGN 10)
    probe: ProbeOutcome | None = None
    # the file has only a [probe] table: the result is the probe gate's, in its own forms
    probe_only: bool = False

    @property
    def probe_failed(self) -> list[str]:
        return self.probe.failed if self.probe is not None else []

    @property
    def all_outcomes(self) -> list[AnyOutcome]:
        return [*self.outcomes, *self.baseline_outcomes]

    @property
    def failed(self) -> list[AnyOutcome]:
        return [o for o in self.all_outcomes if o.status == "fail"]

    @property
    def skipped(self) -> list[AnyOutcome]:
        return [o for o in self.all_outcomes if o.status == "skip"]

    @property
    def no_value(self) -> bool:
        """Every rule targets a tier the run has no question of: the gate checked nothing, which
        is no pass (a rule skipped for another reason — allow_null, a baseline too small — is
        reported as skipped, as before)."""
        return (bool(self.outcomes) and all(o.no_question for o in self.outcomes) and self.probe is None
                and all(o.status == "skip" for o in self.baseline_outcomes))

    @property
    def passed(self) -> bool:
        return not self.failed and not self.probe_failed and not self.no_value

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1  # DESIGN 7: 1 = a gate failed

    def outcome(self, scope: str, key: str) -> RuleOutcome | None:
        return next((o for o in self.outcomes if o.rule.scope == scope and o.rule.key == key), None)

    def summary_line(self) -> str:
        if self.no_value:
            return (f"gate has no value: all {len(self.all_outcomes)} rule(s) skipped, nothing was checked "
                    f"({self.gates_path})")
        verdict = "passed" if self.passed else "FAILED"
        skipped = f", {len(self.skipped)} skipped" if self.skipped else ""
        total = len(self.all_outcomes) + (len(self.probe.checked) if self.probe is not None else 0)
        failed = len(self.failed) + len(self.probe_failed)
        return f"gate {verdict}: {failed} of {total} rule(s) failed{skipped} ({self.gates_path})"

    def to_json(self) -> dict[str, Any]:
        if self.probe_only and self.probe is not None:
            return self.probe.to_json()
        return {
            "run_id": self.run_id,
            "gates": str(self.gates_path),
            "passed": self.passed,
            "no_value": self.no_value,
            "exit_code": self.exit_code,
            "rules": len(self.all_outcomes),
            "failed": len(self.failed),
            "skipped": len(self.skipped),
            "outcomes": [o.to_json() for o in self.outcomes],
            "baseline": self.baseline.to_json() if self.baseline else None,
            "baseline_outcomes": [o.to_json() for o in self.baseline_outcomes],
            "notes": self.notes,
            "probe": self.probe.to_json() if self.probe is not None else None,
        }

    def to_text(self) -> str:
        """The baseline overlap, each failed or skipped baseline rule, each failed rule, one summary line."""
        if self.probe_only and self.probe is not None:
            return self.probe.to_text()
        lines = [f"note: {n}" for n in self.notes]
        if self.baseline is not None:
            lines.append(self.baseline.overlap_text())
        skipped = [o for o in self.baseline_outcomes if o.status == "skip"]
        if skipped and len({o.message for o in skipped}) == 1 and len(skipped) > 1:
            lines.append(f"SKIP {len(skipped)} baseline rule(s): {skipped[0].message}")
        else:
            lines += [f"SKIP {o.rule.rule_id}: {o.message}" for o in skipped]
        lines += [f"FAIL {o.rule.rule_id}: {o.message}" for o in self.failed]
        lines += [f"FAIL {rule}" for rule in self.probe_failed]
        # ids, labels and paths come from files: no control character reaches the terminal
        return terminal_safe("\n".join([*lines, self.summary_line()]) + "\n")

    def to_junit(self) -> str:
        return to_junit(self)

    def to_markdown(self) -> str:
        return to_markdown(self)


# --- JUnit -------------------------------------------------------------------------------------

_XML_BAD = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_text(text: str) -> str:
    """XML 1.0 cannot carry control characters even escaped; drop them."""
    return _XML_BAD.sub("", text)


def _detail(result: GateResult, o: AnyOutcome) -> str:
    where = f"{result.gates_path}" + (f":{o.rule.line}" if o.rule.line else "")
    if isinstance(o, BaselineOutcome):
        base = result.baseline.run_id if result.baseline else None
        return (
            f"rule {o.rule.rule_id} ({where})\nbaseline {base}: {_value(o.baseline, o.rule.is_count)}; "
            f"this run: {_value(o.observed, o.rule.is_count)} (n={o.n})\n"
            f"delta: {o.delta_text()} (95 % paired bootstrap interval)\np-value: {o.p_text()} ({o.method or '—'})\n"
            f"required: {o.rule.requirement()}\n{o.message}"
        )
    return (
        f"rule {o.rule.rule_id} ({where})\nobserved: {o.observed_text()}"
        + (f" (n={o.n})" if o.n is not None else "")
        + f"\nrequired: {o.rule.requirement()}\n{o.message}"
    )


def _junit_case(suite: ET.Element, result: GateResult, o: AnyOutcome) -> None:
    case = ET.SubElement(
        suite, "testcase", classname=f"citeval.gate.{o.rule.scope_label}",
        name=_xml_text(f"{o.rule.key} {o.rule.requirement()}"), time="0",
    )
    if o.status == "fail":
        failure = ET.SubElement(case, "failure", message=_xml_text(o.message), type="GateFailed")
        failure.text = _xml_text(_detail(result, o))
    elif o.status == "skip":
        ET.SubElement(case, "skipped", message=_xml_text(o.message))
    else:
        out = ET.SubElement(case, "system-out")
        out.text = _xml_text(_detail(result, o) if isinstance(o, BaselineOutcome) else o.message)


def _probe_cases(suite: ET.Element, probe: ProbeOutcome) -> None:
    for name in probe.checked:
        case = ET.SubElement(suite, "testcase", classname="citeval.gate.probe", name=_xml_text(name), time="0")
        for rule in probe.failed:
            if rule.startswith(name + ":"):
                ET.SubElement(case, "failure", message=_xml_text(rule), type="GateFailed").text = _xml_text(rule)


def to_junit(result: GateResult) -> str:
    """JUnit XML: one testcase per rule (failure / skipped / passed), probe bounds included."""
    if result.probe_only and result.probe is not None:
        return result.probe.to_junit()
    stamp = result.evaluated_at.replace(microsecond=0).isoformat()
    probe_tests = len(result.probe.checked) if result.probe is not None else 0
    counts = {"tests": str(len(result.all_outcomes) + probe_tests),
              "failures": str(len(result.failed) + len(result.probe_failed)), "errors": "0",
              "skipped": str(len(result.skipped))}
    suites = ET.Element("testsuites", {"name": "citeval gate", **counts})
    suite = ET.SubElement(
        suites, "testsuite",
        {"name": _xml_text(f"citeval gate {result.run_id or ''}".strip()), **counts, "timestamp": stamp, "time": "0"},
    )
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", name="gates", value=_xml_text(str(result.gates_path)))
    ET.SubElement(props, "property", name="run_id", value=_xml_text(result.run_id or ""))
    if result.baseline is not None:
        ET.SubElement(props, "property", name="baseline", value=_xml_text(result.baseline.overlap_text()))
    for o in result.all_outcomes:
        _junit_case(suite, result, o)
    if result.probe is not None:
        _probe_cases(suite, result.probe)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


# --- Markdown ----------------------------------------------------------------------------------


def _md(text: str) -> str:
    """Our prose around untrusted pieces: nothing in it live (evals.text.escape)."""
    return markdown_text(text)


def _rule_table(outcomes: Iterable[RuleOutcome]) -> list[str]:
    out = ["| | rule | observed | required | note |", "|---|---|---|---|---|"]
    for o in outcomes:
        n = f" (n={o.n})" if o.n is not None and not o.rule.is_count else ""
        out.append(
            f"| {ICON[o.status]} | {markdown_code(o.rule.rule_id, in_table=True)} | {o.observed_text()}{n} "
            f"| {_md(o.rule.requirement())} "
            f"| {_md(o.message)} |"
        )
    return out


def _baseline_table(outcomes: Iterable[BaselineOutcome]) -> list[str]:
    out = ["| | rule | n | baseline | this run | Δ [95 % CI] | p | required | note |",
           "|---|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        count = o.rule.is_count
        out.append(
            f"| {ICON[o.status]} | {markdown_code(o.rule.rule_id, in_table=True)} | {o.n if o.n is not None else '—'} "
            f"| {_value(o.baseline, count)} | {_value(o.observed, count)} | {o.delta_text()} | {o.p_text()} "
            f"| {_md(o.rule.requirement())} | {_md(o.message)} |"
        )
    return out


def to_markdown(result: GateResult) -> str:
    """A summary fit for a CI job summary: the verdict, the failed rules, then every rule folded."""
    if result.probe_only and result.probe is not None:
        return result.probe.to_markdown()
    run = f" — run {markdown_code(result.run_id)}" if result.run_id else ""
    total = len(result.all_outcomes) + (len(result.probe.checked) if result.probe is not None else 0)
    failed_count = len(result.failed) + len(result.probe_failed)
    head = "passed" if result.passed else f"failed ({failed_count} of {total} rules)"
    lines = [f"### {ICON['pass' if result.passed else 'fail']} citeval gate {head}{run}", ""]
    lines += [f"Gates file: {markdown_code(str(result.gates_path))}; {len(result.skipped)} rule(s) skipped.", ""]
    lines += [line for n in result.notes for line in (f"Note: {_md(n)}", "")]
    failed = [o for o in result.outcomes if o.status == "fail"]
    if failed:
        lines += ["**Failed rules**", "", *_rule_table(failed), ""]
    if result.baseline is not None or result.baseline_outcomes:
        overlap = result.baseline.overlap_markdown() if result.baseline else "no baseline run given"
        lines += [f"**Against the baseline** — {overlap}", ""]
        if result.baseline_outcomes:
            lines += [*_baseline_table(result.baseline_outcomes), ""]
    if result.probe is not None:
        lines += [result.probe.to_markdown()]
    if result.outcomes:
        lines += ["<details><summary>All rules</summary>", "", *_rule_table(result.outcomes), "", "</details>", ""]
    return "\n".join(lines)
