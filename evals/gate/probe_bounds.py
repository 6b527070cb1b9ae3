"""The `[probe]` table of a gates file (DESIGN 10) and its outcome on a probe run's probe.json.

    [probe]
    decorative_rate = { max = 0.05 }      # every kind
    phantom_marker = { max = 0 }          # one kind
    citation_faithfulness = { min = 0.9 } # the counterfactual kinds

`load_gates` reads the table into `ProbeGates` (config.py); `citeval probe` judges its cases
against them before it writes probe.json, and `run_gate` re-judges a probe.json against any gates
file (`ProbeOutcome`, part of the one GateResult) without asking the system again. probe.json is
read through its contract model: the gate never imports the probe stage.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.contract.ordered import RateEntry
from evals.contract.probe import COUNTERFACTUAL_KINDS, PROBE_KINDS, ProbeKind
from evals.errors import DataError
from evals.store.runfolder import RunFolder
from evals.text.escape import markdown_code, terminal_safe

__all__ = ["GATE_KEYS", "ProbeGates", "ProbeOutcome", "failed_probe_rules", "probe_gates_of", "probe_outcome"]

GATE_KEYS = ("decorative_rate", "citation_faithfulness")


@dataclass
class ProbeGates:
    """The `[probe]` table of a gates file: the highest decorative rate each kind may have
    (`decorative_rate` for every kind, `<kind>` for one) and the lowest citation_faithfulness."""

    source: str | None = None
    decorative_rate: float | None = None
    per_kind: dict[str, float] = field(default_factory=dict)
    citation_faithfulness: float | None = None

    def max_decorative(self, kind: str) -> float | None:
        return self.per_kind.get(kind, self.decorative_rate)

    @property
    def has_bounds(self) -> bool:
        return self.decorative_rate is not None or bool(self.per_kind) or self.citation_faithfulness is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "decorative_rate": {k: self.max_decorative(k) for k in PROBE_KINDS},
            "citation_faithfulness": self.citation_faithfulness,
        }


def _line_of(text: str, key: str) -> int | None:
    in_table = False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            in_table = stripped.replace(" ", "") == "[probe]"
            if stripped.replace(" ", "").startswith(f"[probe.{key}]"):
                return number
            continue
        if in_table and re.match(rf'^"?{re.escape(key)}"?\s*=', stripped):
            return number
    return None


def probe_gates_of(path: Path, text: str, table: Any) -> ProbeGates:
    """The `[probe]` table (`table`, parsed from `text` of the gates file at `path`) as bounds;
    an unknown key or a bound outside 0..1 is a DataError naming the file and the line."""
    if not isinstance(table, dict):
        raise DataError(path, _line_of(text, "probe"), "probe must be a table [probe]", "probe")
    gates = ProbeGates(source=str(path))
    for key, spec in table.items():
        where = f"probe.{key}"
        line = _line_of(text, key)
        bound = "min" if key == "citation_faithfulness" else "max"
        if key not in GATE_KEYS and key not in PROBE_KINDS:
            raise DataError(
                path,
                line,
                f"unknown key {key!r} (expected {', '.join(GATE_KEYS)} or a kind: {', '.join(PROBE_KINDS)})",
                where,
            )
        if not isinstance(spec, dict) or set(spec) != {bound}:
            raise DataError(path, line, f"{key} must be {{ {bound} = <number between 0 and 1> }}", where)
        value = spec[bound]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise DataError(path, line, f"{key}.{bound} must be a number between 0 and 1, not {value!r}", where)
        if key == "citation_faithfulness":
            gates.citation_faithfulness = float(value)
        elif key == "decorative_rate":
            gates.decorative_rate = float(value)
        else:
            gates.per_kind[key] = float(value)
    return gates


def failed_probe_rules(
    by_kind: Mapping[str, ProbeKind], faithfulness: RateEntry | None, gates: ProbeGates
) -> list[str]:
    """The `[probe]` bounds that probe.json's figures break: a kind's decorative rate above its
    bound, citation_faithfulness below its own (or without a value) when a counterfactual kind ran."""
    failed: list[str] = []
    for kind, entry in by_kind.items():
        threshold = gates.max_decorative(kind)
        value = entry.rate.value
        if threshold is not None and value is not None and value > threshold:
            failed.append(f"probe.{kind}: decorative rate {value:.3f} > allowed {threshold:g}")
    if gates.citation_faithfulness is not None and any(k in COUNTERFACTUAL_KINDS for k in by_kind):
        faithful = faithfulness or RateEntry()
        if faithful.value is None:
            failed.append(f"probe.citation_faithfulness: no value ({faithful.reason})")
        elif faithful.value < gates.citation_faithfulness:
            failed.append(
                f"probe.citation_faithfulness: {faithful.value:.3f} < required {gates.citation_faithfulness:g}"
            )
    return failed


@dataclass
class ProbeOutcome:
    """The `[probe]` bounds applied to one probe run's probe.json: which applied, which failed.

    A gates file with only a `[probe]` table is gated by these alone, and its result keeps the
    probe gate's own JSON, text, Markdown and JUnit forms (GateResult.probe_only)."""

    run_dir: Path
    gates: ProbeGates
    verdict: str | None
    checked: list[str] = field(default_factory=list)  # the bounds that applied to this run
    failed: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "run": str(self.run_dir),
            "gates": self.gates.source,
            "passed": not self.failed,
            "checked": self.checked,
            "failed": self.failed,
            "probe_verdict": self.verdict,
        }

    def to_text(self) -> str:
        lines = [f"probe gate ({self.gates.source}) on {self.run_dir}: {len(self.checked)} bound(s)"]
        lines += [f"  FAIL {rule}" for rule in self.failed]
        lines.append("FAIL" if self.failed else "PASS")
        return terminal_safe("\n".join(lines) + "\n")

    def to_markdown(self) -> str:
        head = "❌ probe gate failed" if self.failed else "✅ probe gate passed"
        rows = [f"- ❌ {markdown_code(rule)}" for rule in self.failed] or ["- every bound holds"]
        return f"### {head}\n\n" + "\n".join(rows) + "\n"

    def to_junit(self) -> str:
        suite = ET.Element("testsuite", name="citeval probe gate", tests=str(len(self.checked)),
                           failures=str(len(self.failed)))
        for name in self.checked:
            case = ET.SubElement(suite, "testcase", classname="probe", name=name)
            for rule in self.failed:
                if rule.startswith(name + ":"):
                    ET.SubElement(case, "failure", message=rule)
        return ET.tostring(suite, encoding="unicode") + "\n"


def probe_outcome(run_dir: Path | str, probe_gates: ProbeGates) -> ProbeOutcome | None:
    """The probe bounds applied to a run folder's probe.json; None when it has none (a run that
    `citeval probe` did not write)."""
    run_dir = Path(run_dir)
    document = RunFolder(run_dir).probe
    if document is None:
        return None
    kinds = document.kinds
    checked = [f"probe.{kind}" for kind in kinds if probe_gates.max_decorative(kind) is not None]
    if probe_gates.citation_faithfulness is not None and any(k in COUNTERFACTUAL_KINDS for k in kinds):
        checked.append("probe.citation_faithfulness")
    return ProbeOutcome(
        run_dir=run_dir, gates=probe_gates, verdict=document.verdict, checked=checked,
        failed=failed_probe_rules(kinds, document.citation_faithfulness, probe_gates),
    )
