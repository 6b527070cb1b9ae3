"""`citeval gate RUN --gates FILE` with a gates file that holds only a `[probe]` table: the
probe's bounds applied to the run's probe.json (written by `citeval probe`), so a CI step can
re-judge a probe run against other bounds without asking the system again."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.errors import DataError, UsageError
from evals.probe.core import COUNTERFACTUAL_KINDS, ProbeGates, failed_probe_rules, load_probe_gates
from evals.probe.render import load_probe
from evals.store.atomic import write_text_atomic
from evals.store.runfolder import PROBE_JSON

__all__ = ["ProbeGateResult", "gate_probe_run", "is_probe_only_gates", "probe_outcome"]

# the file-level key a scores gates file may set beside its tables (evals.gate.spec.FileOptions)
_FILE_OPTIONS = {"compare"}


def is_probe_only_gates(path: Path | str | None) -> bool:
    """Whether the gates file holds a `[probe]` table and no scores rule ([overall], [tier.*],
    [baseline]). An unreadable or invalid file is not probe-only: the gates loader reports it."""
    if path is None:
        return False
    from evals.gate.config import parse_toml, read_toml

    try:
        doc = parse_toml(read_toml(Path(path)))
    except DataError:
        return False
    return "probe" in doc and not set(doc) - {"probe"} - _FILE_OPTIONS


@dataclass
class ProbeGateResult:
    run_dir: Path
    gates: ProbeGates
    verdict: str | None
    checked: list[str] = field(default_factory=list)  # the bounds that applied to this run
    failed: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0

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
        return "\n".join(lines) + "\n"

    def to_markdown(self) -> str:
        head = "❌ probe gate failed" if self.failed else "✅ probe gate passed"
        rows = [f"- ❌ `{rule}`" for rule in self.failed] or ["- every bound holds"]
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


def probe_outcome(run_dir: Path | str, probe_gates: ProbeGates) -> ProbeGateResult | None:
    """The probe bounds applied to a run folder's probe.json; None when it has none (a run that
    `citeval probe` did not write)."""
    run_dir = Path(run_dir)
    loaded = load_probe(run_dir)
    if loaded is None:
        return None
    document, _ = loaded
    by_kind = {k: v for k, v in document["kinds"].items() if isinstance(v, dict)}
    faithfulness = document.get("citation_faithfulness") or {}
    checked = [f"probe.{kind}" for kind in by_kind if probe_gates.max_decorative(kind) is not None]
    if probe_gates.citation_faithfulness is not None and any(
        k in COUNTERFACTUAL_KINDS for k in by_kind
    ):
        checked.append("probe.citation_faithfulness")
    return ProbeGateResult(
        run_dir=run_dir, gates=probe_gates, verdict=document.get("verdict"), checked=checked,
        failed=failed_probe_rules(by_kind, faithfulness if isinstance(faithfulness, dict) else {}, probe_gates),
    )


def gate_probe_run(
    run_dir: Path | str,
    gates: Path | str,
    *,
    baseline: Path | str | None = None,
    junit: Path | str | None = None,
    summary: Path | str | None = None,
) -> ProbeGateResult:
    """Apply a probe-only gates file to a probe run folder's probe.json."""
    if baseline is not None:
        raise UsageError("a gates file with only a [probe] table has no baseline rules: drop --baseline")
    run_dir = Path(run_dir)
    result = probe_outcome(run_dir, load_probe_gates(gates))
    if result is None:
        raise DataError(
            run_dir / PROBE_JSON, None,
            f"the gates file {gates} holds only a [probe] table, which judges a probe run, and this run has no "
            f"{PROBE_JSON}: run `citeval probe DATASET --backend SPEC --gates FILE`, or add rules under [overall], "
            "[tier.<risk tier>] or [baseline] to gate its scores",
        )
    for path, text in ((junit, result.to_junit), (summary, result.to_markdown)):
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            write_text_atomic(Path(path), text())
    return result
