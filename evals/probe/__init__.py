"""Probing the system under test (DESIGN 10): the management test of "verifiable, not decorative"
citations and the counterfactual faithfulness probe, asked of the live system."""

from evals.contract.probe import COUNTERFACTUAL_KINDS, MANAGEMENT_KINDS, PROBE_KINDS
from evals.gate.config import load_probe_gates
from evals.gate.probe_bounds import ProbeGates
from evals.probe.core import (
    ProbeResult,
    citation_faithfulness,
    judge_probe,
    parse_kinds,
    probe_document,
    resume_probe,
    run_probe,
)
from evals.probe.generate import generate
from evals.probe.outcomes import CaseOutcome, classify
from evals.probe.render import load_probe, probe_markdown, probe_report_html, probe_section_html
from evals.store.runfolder import PROBE_CASES, PROBE_DATASET, PROBE_JSON

__all__ = [
    "COUNTERFACTUAL_KINDS",
    "MANAGEMENT_KINDS",
    "PROBE_CASES",
    "PROBE_DATASET",
    "PROBE_JSON",
    "PROBE_KINDS",
    "CaseOutcome",
    "ProbeGates",
    "ProbeResult",
    "citation_faithfulness",
    "classify",
    "generate",
    "judge_probe",
    "load_probe",
    "load_probe_gates",
    "parse_kinds",
    "probe_document",
    "probe_markdown",
    "probe_report_html",
    "probe_section_html",
    "resume_probe",
    "run_probe",
]
