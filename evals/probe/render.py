"""The "Probe" section: verdicts per kind, worst cases first, the altered value beside what the
system said. `probe_section_html` is a self-contained HTML fragment for the run report (every
answer and detail escaped); `probe_markdown` is the same for a terminal or a CI summary."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

from evals.contract.ordered import RateEntry
from evals.contract.probe import PROBE_KINDS, ProbeDocument, ProbeKind
from evals.errors import DataError
from evals.probe.core import ProbeResult
from evals.store.jsonl import iter_json_lines
from evals.store.runfolder import PROBE_CASES, PROBE_JSON, RunFolder

# Worst first: what a reader must see before what went right.
OUTCOME_ORDER = (
    "decorative",
    "post_rationalised",
    "unsupported",
    "error",
    "inconclusive",
    "abstained",
    "distinguished",
    "faithful",
)
MAX_CASES = 60


def load_probe(run_dir: Path | str) -> tuple[ProbeDocument, list[dict[str, Any]]] | None:
    """probe.json (through its model) and probe_cases.jsonl of a run folder, or None when the run
    is not a probe."""
    run_dir = Path(run_dir)
    document = RunFolder(run_dir).probe
    if document is None:
        return None
    cases_path = run_dir / PROBE_CASES
    cases = [obj for _, obj in iter_json_lines(cases_path)] if cases_path.is_file() else []
    return document, cases


def _document(document: ProbeDocument | Mapping[str, Any]) -> ProbeDocument:
    """probe.json's model; a dict in its shape (a caller's own, or `ProbeResult.document`) is read into it."""
    return document if isinstance(document, ProbeDocument) else ProbeDocument.model_validate(document)


def worst_first(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rank = {o: i for i, o in enumerate(OUTCOME_ORDER)}
    kinds = {k: i for i, k in enumerate(PROBE_KINDS)}
    return sorted(cases, key=lambda c: (rank.get(c.get("outcome", ""), 99), kinds.get(c.get("kind", ""), 99)))


def _rate(entry: ProbeKind) -> str:
    value, ci = entry.rate.value, entry.rate.ci
    if value is None:
        return "—"
    return f"{value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f"{value:.2f}"


def _faithfulness(document: ProbeDocument) -> str:
    entry = document.citation_faithfulness or RateEntry()
    if entry.value is None:
        return f"— ({entry.reason if entry.reason is not None else 'not measured'})"
    interval = f" [{entry.ci[0]:.2f}, {entry.ci[1]:.2f}]" if entry.ci else ""
    return f"{entry.value:.2f}{interval} (n = {entry.n})"


def _rows(document: ProbeDocument) -> list[list[str]]:
    rows = []
    for kind, entry in document.kinds.items():
        threshold = entry.max_decorative_rate
        rows.append(
            [
                kind,
                str(entry.n),
                str(entry.distinguished),
                str(entry.decorative),
                str(entry.unsupported),
                str(entry.errors),
                _rate(entry),
                "—" if threshold is None else f"≤ {threshold:g}",
            ]
        )
    return rows


HEADER = ["kind", "n", "distinguished", "decorative", "unsupported", "errors", "decorative rate [95 % CI]", "gate"]


def probe_markdown(
    document: ProbeDocument | Mapping[str, Any], cases: list[dict[str, Any]] | None = None, max_cases: int = 10
) -> str:
    document = _document(document)
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(row) + " |" for row in _rows(document)]
    lines.append("")
    lines.append(f"citation_faithfulness: {_faithfulness(document)}")
    for failure in document.failed:
        lines.append(f"FAIL {failure}")
    bad = [c for c in worst_first(cases or []) if c.get("outcome") in OUTCOME_ORDER[:4]][:max_cases]
    if bad:
        lines.append("")
        lines.append("worst cases:")
        for case in bad:
            expected = f" — expected {case['expected']}" if case.get("expected") else ""
            lines.append(f"- {case['kind']} {case['question_id']}: {case['outcome']}: {case['detail']}{expected}")
    lines.append(f"probe verdict: {document.verdict}")
    return "\n".join(lines)


def probe_section_html(
    document: ProbeDocument | Mapping[str, Any], cases: list[dict[str, Any]], max_cases: int = MAX_CASES
) -> str:
    """<section> "Probe": the verdict table per kind, then the cases worst first."""
    document = _document(document)
    anchor = "probe-" + escape(str(document.run_id)) if document.run_id else "probe"
    out = [f'<section class="probe" id="{anchor}">', "<h2>Probe</h2>"]
    out.append(
        f"<p>Verdict: <strong>{escape(str(document.verdict))}</strong> · citation_faithfulness "
        f"{escape(_faithfulness(document))}</p>"
    )
    out.append(
        "<table><caption>Probe verdicts by kind</caption><thead><tr>"
        + "".join(f'<th scope="col">{escape(h)}</th>' for h in HEADER)
        + "</tr></thead><tbody>"
    )
    for row in _rows(document):
        out.append("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>")
    out.append("</tbody></table>")
    failed = document.failed
    if failed:
        out.append('<ul class="probe-failed">' + "".join(f"<li>{escape(f)}</li>" for f in failed) + "</ul>")
    shown = worst_first(cases)[:max_cases]
    if shown:
        out.append(
            '<table class="probe-cases"><caption>Probe cases, worst first</caption><thead><tr>'
            + "".join(f'<th scope="col">{h}</th>' for h in ("kind", "question", "outcome", "expected / altered",
                                                             "what the system said", "why"))
            + "</tr></thead><tbody>"
        )
        for case in shown:
            cells = [
                case.get("kind", ""),
                case.get("question_id", ""),
                case.get("outcome", ""),
                case.get("expected", "") or "",
                case.get("said", "") or "",
                case.get("detail", ""),
            ]
            out.append(
                f'<tr class="outcome-{escape(str(case.get("outcome", "")))}">'
                + "".join(f"<td>{escape(str(cell))}</td>" for cell in cells)
                + "</tr>"
            )
        out.append("</tbody></table>")
        if len(cases) > len(shown):
            out.append(f"<p>{len(cases) - len(shown)} more case(s) in {escape(PROBE_CASES)}.</p>")
    out.append("</section>")
    return "\n".join(out)


def probe_report_html(run_dir: Path | str) -> str | None:
    """The run report's "Probe" section for a run folder: None when the run is not a probe, a
    short escaped note when probe.json cannot be read (the report still renders)."""
    try:
        loaded = load_probe(run_dir)
    except (OSError, ValueError, DataError) as exc:
        note = escape(f"{PROBE_JSON} unreadable: {exc}")
        return f'<section class="probe" id="probe"><h2>Probe</h2><p>{note}</p></section>'
    if loaded is None:
        return None
    return probe_section_html(*loaded)


def probe_text(result: ProbeResult) -> str:
    """What `citeval probe` prints: the run folder and its question count, then the table."""
    table = probe_markdown(result.document, [c.to_json() for c in result.cases])
    return f"{result.run_dir}: {len(result.cases)} probe question(s)\n{table}\n"
