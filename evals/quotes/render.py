"""Rich tables of a quotes evaluation, for the terminal (the CLI prints them)."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

from evals.quotes.evaluate import METRICS


def _cell(metric: dict[str, Any] | None) -> str:
    if not metric or metric.get("value") is None:
        return "—"
    text = f"{metric['value']:.3f}"
    if metric.get("ci"):
        text += f" [{metric['ci'][0]:.2f}–{metric['ci'][1]:.2f}]"
    return text


def _value(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def summary_tables(doc: dict[str, Any]) -> list[Table]:
    """The matcher table, the paired comparisons, and (when present) sweeps and tuning."""
    tables = [_matcher_table(doc)]
    if doc.get("comparisons"):
        tables.append(_comparison_table(doc["comparisons"]))
    kinds = sorted({kind for per_kind in doc.get("by_kind", {}).values() for kind in per_kind})
    if kinds:
        tables.append(_kind_table(doc["by_kind"], kinds))
    for name, rows in (doc.get("sweep") or {}).items():
        tables.append(_sweep_table(name, rows))
    if doc.get("tuning"):
        tables.append(_tuning_table(doc["tuning"]))
    return tables


def _matcher_table(doc: dict[str, Any]) -> Table:
    main = Table(title=f"Quote placement: {doc['answers']} answers, {doc['citations_with_gold']} citations with gold")
    for header in ("matcher", "threshold", *METRICS, "p50 µs", "p95 µs"):
        main.add_column(header, justify="left" if header == "matcher" else "right")
    for name, m in doc["matchers"].items():
        main.add_row(
            escape(name),
            f"{m['threshold']:g}",
            *(_cell(m[k]) for k in METRICS),
            str(m["latency_us"]["p50"]),
            str(m["latency_us"]["p95"]),
        )
    return main


def _comparison_table(comparisons: list[dict[str, Any]]) -> Table:
    comp = Table(title="Paired comparison over the same citations (exact McNemar)")
    for header in ("baseline", "matcher", "correct (base → matcher)", "only base", "only matcher", "p", ""):
        comp.add_column(header)
    for c in comparisons:
        comp.add_row(
            escape(c["a"]),
            escape(c["b"]),
            f"{c['a_correct']} → {c['b_correct']} of {c['n']}",
            str(c["a_only"]),
            str(c["b_only"]),
            "< 0.0001" if c["p_value"] < 1e-4 else f"{c['p_value']:.4f}",
            "significant" if c["significant"] else "",
        )
    return comp


def _kind_table(by_matcher: dict[str, dict[str, Any]], kinds: list[str]) -> Table:
    by_kind = Table(
        title="By hard-case kind: right outcomes (placed right, or rightly left out) / citations, "
        "placement_accuracy, wrong_place_rate"
    )
    by_kind.add_column("kind")
    for name in by_matcher:
        by_kind.add_column(escape(name), justify="right")
    for kind in kinds:
        cells = []
        for per_kind in by_matcher.values():
            k = per_kind.get(kind)
            cells.append(
                f"{k['correct']}/{k['n']} · {_value(k.get('placement_accuracy'))} · {_value(k.get('wrong_place_rate'))}"
                if k
                else "—"
            )
        by_kind.add_row(escape(kind), *cells)  # kinds come from the user's file
    return by_kind


def _sweep_table(name: str, rows: list[dict[str, Any]]) -> Table:
    sweep = Table(title=f"Threshold sweep: {escape(name)}")
    for header in ("threshold", "placement_accuracy", "wrong_place_rate", "coverage", "false_injection_rate"):
        sweep.add_column(header, justify="right")
    for row in rows:
        sweep.add_row(
            f"{row['threshold']:g}",
            *(
                _value(row[k])
                for k in ("placement_accuracy", "wrong_place_rate", "coverage", "false_injection_rate")
            ),
        )
    return sweep


def _tuning_table(tuning_doc: dict[str, Any]) -> Table:
    tuning = Table(title="Tuned on the tuning part, counted on the held-out part (and 5-fold cross-validation)")
    for header in (
        "matcher",
        "tuned threshold",
        "accuracy (tuned)",
        "wrong (tuned)",
        "accuracy (held-out)",
        "wrong (held-out)",
        "accuracy (cv)",
        "wrong (cv)",
    ):
        tuning.add_column(header, justify="left" if header == "matcher" else "right")
    for name, t in tuning_doc.items():
        tuned, held = t["tuned"] or {}, t["heldout"] or {}
        tuning.add_row(
            escape(name),
            f"{t['threshold']:g}",
            _cell(tuned.get("placement_accuracy")),
            _cell(tuned.get("wrong_place_rate")),
            _cell(held.get("placement_accuracy")),
            _cell(held.get("wrong_place_rate")),
            _value(t["cv"]["placement_accuracy"]),
            _value(t["cv"]["wrong_place_rate"]),
        )
        if t.get("cascade"):
            c = t["cascade"]
            tuning.add_row(
                f"  {escape(name)} cascade: block_min {c['block_min']:g}, fallback_min {c['fallback_min']:g}",
                "",
                _value(c.get("placement_accuracy")),
                _value(c.get("wrong_place_rate")),
            )
    return tuning
