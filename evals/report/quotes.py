"""The report's "Verbatim quotes" section: the quote lab's results (`citeval quotes eval --out`)
found in a run folder or in a lab folder of their own.

Read from quotes.json (matchers with intervals, latency, the paired McNemar comparisons,
sweep and tuning when evaluated with --sweep / --tune) and placements.jsonl with the quotes
files quotes.json names (for the worst misses: the answer with the chosen and the gold
place highlighted). Every text is the user's: the template escapes it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure

from evals.contract.quotes import QuotesDocument
from evals.errors import CitevalError, DataError
from evals.report.plots import RC, SERIES, Plot, _render
from evals.store.jsonl import iter_json_lines, read_document
from evals.store.runfolder import MANIFEST

QUOTES_JSON = "quotes.json"
PLACEMENTS = "placements.jsonl"
METRIC_COLUMNS = ("placement_accuracy", "wrong_place_rate", "coverage", "false_injection_rate", "mean_iou")
MAX_WRONG = 0.05  # the lab's tuning limit (evals.quotes.evaluate.MAX_WRONG_PLACE_RATE)
MAX_MISSES = 12
CONTEXT = 200  # characters of answer shown around a miss on each side


def has_quote_results(folder: Path | str) -> bool:
    return (Path(folder) / QUOTES_JSON).is_file()


def is_quote_lab(folder: Path | str) -> bool:
    """A folder that holds quote results and is not a run folder."""
    return has_quote_results(folder) and not (Path(folder) / MANIFEST).exists()


@dataclass
class Segment:
    text: str
    css: str  # "" | "q-chosen" | "q-gold" | "q-both"


@dataclass
class Miss:
    answer_id: str
    citation_id: str
    what: str  # wrong place | missed | false injection
    score: float | None
    iou: float | None
    kind: str | None
    cited_text: str
    segments: list[Segment]


@dataclass
class QuoteSection:
    anchor: str
    title: str
    folder: str
    answers: int
    citations: int
    citations_with_gold: int
    matchers: list[dict[str, Any]]
    comparisons: list[dict[str, Any]]
    tuning: list[dict[str, Any]]
    sweep_plot: Plot | None
    recommended: str | None
    misses: list[Miss]
    miss_matcher: str | None
    notes: list[str] = field(default_factory=list)


def segments(text: str, chosen: tuple[int, int] | None, gold: tuple[int, int] | None) -> list[Segment]:
    """The text cut at the chosen and gold spans' ends, each piece marked by which span holds it;
    far from both spans the text is shortened to CONTEXT characters with an ellipsis."""
    spans = [s for s in (chosen, gold) if s is not None]
    lo = max(0, min((s[0] for s in spans), default=0) - CONTEXT)
    hi = min(len(text), max((s[1] for s in spans), default=len(text)) + CONTEXT)
    cuts = sorted({lo, hi, *(p for s in spans for p in s if lo <= p <= hi)})
    out = [Segment("…", "")] if lo > 0 else []
    for start, end in zip(cuts, cuts[1:], strict=False):
        if end <= start:
            continue
        in_chosen = chosen is not None and chosen[0] <= start and end <= chosen[1]
        in_gold = gold is not None and gold[0] <= start and end <= gold[1]
        css = "q-both" if in_chosen and in_gold else "q-chosen" if in_chosen else "q-gold" if in_gold else ""
        out.append(Segment(text[start:end], css))
    if hi < len(text):
        out.append(Segment("…", ""))
    return out


def _value(metric: Any) -> float | None:
    return metric.get("value") if isinstance(metric, Mapping) else None


def recommended_matcher(matchers: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The highest placement_accuracy among matchers whose wrong_place_rate ≤ 5 % (the lab's
    tuning limit); when none keeps it, None."""
    best: tuple[float, str] | None = None
    for name, m in matchers.items():
        accuracy, wrong = _value(m.get("placement_accuracy")), _value(m.get("wrong_place_rate"))
        if accuracy is None or wrong is None or wrong > MAX_WRONG:
            continue
        if best is None or accuracy > best[0]:
            best = (accuracy, name)
    return best[1] if best else None


def sweep_plot(sweep: Mapping[str, Sequence[Mapping[str, Any]]], thresholds: Mapping[str, float]) -> Plot | None:
    """Accuracy and wrong-place rate against coverage, one line per matcher over its thresholds;
    the big dot is the matcher's threshold in this evaluation."""
    names = [n for n, rows in sweep.items() if any(r.get("coverage") is not None for r in rows)]
    if not names:
        return None
    with rc_context(RC):
        fig = Figure(figsize=(9.6, 3.6))
        left, right = fig.subplots(1, 2)
        for k, name in enumerate(names):
            rows = [r for r in sweep[name] if r.get("coverage") is not None]
            color = SERIES[k % len(SERIES)]
            style = "--" if name.endswith("+order") else "-"
            xs = [r["coverage"] for r in rows]
            for ax, key in ((left, "placement_accuracy"), (right, "wrong_place_rate")):
                ys = [r.get(key) for r in rows]
                pts = [(x, y) for x, y in zip(xs, ys, strict=True) if y is not None]
                label = "\u200b" + name if name.startswith("_") else name
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, lw=1.3, ms=2.5, marker="o",
                        label=label)
                at = thresholds.get(name)
                if at is not None and rows:
                    nearest = min(rows, key=lambda r: abs(float(r["threshold"]) - at))
                    if nearest.get(key) is not None:
                        ax.plot([nearest["coverage"]], [nearest[key]], "o", color=color, ms=6.5, zorder=4)
        left.set_title("placement accuracy", fontsize=9, loc="left")
        right.set_title("wrong-place rate", fontsize=9, loc="left")
        right.axhline(MAX_WRONG, color="#b91c1c", lw=1, ls=(0, (2, 1.5)))
        for ax in (left, right):
            ax.set_xlim(-0.02, 1.02)
            ax.set_ylim(-0.02, 1.02)
            ax.set_xlabel("coverage (citations with gold that got a place)")
            ax.grid(True)
        handles, labels = left.get_legend_handles_labels()
        fig.legend(handles, labels, loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False, fontsize=8)
        fig.tight_layout()
        return _render(
            fig,
            "Threshold sweep: accuracy and wrong-place rate against coverage",
            "Line charts over thresholds, per matcher: placement accuracy and wrong-place rate against coverage",
        )


def _answers(doc: Mapping[str, Any], folder: Path, notes: list[str]) -> dict[str, dict[str, Any]]:
    """answer_id → answer line of the quotes files quotes.json names (as given, or next to the folder)."""
    out: dict[str, dict[str, Any]] = {}
    for name in doc.get("files") or []:
        path = next((p for p in (Path(name), folder / name, folder / Path(name).name) if p.is_file()), None)
        if path is None:
            notes.append(f"quotes file {name} not found: its answers are not shown")
            continue
        for _, obj in iter_json_lines(path, lambda e: None):
            if isinstance(obj.get("answer_id"), str):
                out[obj["answer_id"]] = obj
    return out


def _span(value: Any) -> tuple[int, int] | None:
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value[0], value[1])
    return None


def worst_misses(
    placements: Sequence[Mapping[str, Any]], answers: Mapping[str, Mapping[str, Any]], matcher: str
) -> list[Miss]:
    """The matcher's misses, most harmful first: wrong places and false injections (most confident
    first), then gold places it left empty (highest score first)."""
    found: list[tuple[int, float, Miss]] = []
    for row in placements:
        if row.get("matcher") != matcher:
            continue
        answer = answers.get(str(row.get("answer_id")))
        if answer is None:
            continue
        cid = str(row.get("citation_id"))
        gold_entry = next((g for g in answer.get("gold") or [] if g.get("citation_id") == cid), None)
        if gold_entry is None:
            continue
        gold, chosen = _span(gold_entry.get("span")), _span(row.get("span"))
        overlap = row.get("iou")
        if gold is None and chosen is not None:
            what, rank = "false injection", 0
        elif gold is not None and chosen is not None and (overlap or 0.0) < 0.5:
            what, rank = "wrong place", 0
        elif gold is not None and chosen is None:
            what, rank = "missed", 1
        else:
            continue
        citation: Mapping[str, Any] = next(
            (c for c in answer.get("citations") or [] if c.get("citation_id") == cid), {}
        )
        text = str(answer.get("answer_text") or "")
        score = row.get("score")
        miss = Miss(
            str(row.get("answer_id")),
            cid,
            what,
            score,
            overlap,
            gold_entry.get("kind"),
            str(citation.get("cited_text") or ""),
            segments(text, chosen, gold),
        )
        found.append((rank, -(score if isinstance(score, (int, float)) else 0.0), miss))
    found.sort(key=lambda f: (f[0], f[1], f[2].answer_id, f[2].citation_id))
    return [m for _, _, m in found[:MAX_MISSES]]


def load_quote_section(folder: Path | str, title: str | None = None) -> QuoteSection | None:
    """The section for a folder with quotes.json, or None when it has none."""
    folder = Path(folder)
    if not has_quote_results(folder):
        return None
    doc = read_document(folder / QUOTES_JSON, QuotesDocument).to_json()  # checked by its model
    matchers = doc.get("matchers")
    if not isinstance(matchers, dict) or not matchers:
        raise DataError(folder / QUOTES_JSON, None, "no matchers: not the quotes.json of `citeval quotes eval --out`")
    notes: list[str] = []
    rows = []
    recommended = recommended_matcher(matchers)
    for name, m in matchers.items():
        rows.append(
            {
                "name": name,
                "threshold": m.get("threshold"),
                "threshold_source": m.get("threshold_source"),
                "metrics": {k: m.get(k) for k in METRIC_COLUMNS},
                "latency": m.get("latency_us") or {},
                "recommended": name == recommended,
            }
        )
    thresholds = {n: float(m["threshold"]) for n, m in matchers.items() if isinstance(m.get("threshold"), (int, float))}
    sweep = doc.get("sweep")
    plot = sweep_plot(sweep, thresholds) if isinstance(sweep, dict) else None
    if plot is None:
        notes.append("no threshold sweep in quotes.json (run `citeval quotes eval --sweep --out …` for the plot)")
    tuning = [
        {"name": name, **t} for name, t in (doc.get("tuning") or {}).items() if isinstance(t, dict)
    ]
    misses: list[Miss] = []
    miss_matcher = recommended or max(
        matchers, key=lambda n: _value(matchers[n].get("placement_accuracy")) or 0.0
    )
    placements_path = folder / PLACEMENTS
    if placements_path.is_file():
        answers = _answers(doc, folder, notes)
        placements = [obj for _, obj in iter_json_lines(placements_path, lambda e: None)]
        misses = worst_misses(placements, answers, miss_matcher)
    else:
        notes.append(f"no {PLACEMENTS} next to quotes.json: misses are not shown")
    return QuoteSection(
        anchor="quotes-" + _slug(str(folder.name)),
        title=title or folder.name,
        folder=str(folder),
        answers=int(doc.get("answers") or 0),
        citations=int(doc.get("citations") or 0),
        citations_with_gold=int(doc.get("citations_with_gold") or 0),
        matchers=rows,
        comparisons=[c for c in doc.get("comparisons") or [] if isinstance(c, dict)],
        tuning=tuning,
        sweep_plot=plot,
        recommended=recommended,
        misses=misses,
        miss_matcher=miss_matcher,
        notes=notes,
    )


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in text)[:60] or "lab"


def quote_sections(folders: Sequence[Path | str], notes: list[str] | None = None) -> list[QuoteSection]:
    """Sections of the folders that hold quote results; with notes given, a broken quotes.json is
    noted and left out (the weekly report), else it raises."""
    out: list[QuoteSection] = []
    seen: set[str] = set()
    for folder in folders:
        try:
            section = load_quote_section(folder)
        except (CitevalError, json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            if notes is None:
                raise
            notes.append(f"{Path(folder).name}: quote results left out ({exc})")
            continue
        if section is None:
            continue
        while section.anchor in seen:
            section.anchor += "-"
        seen.add(section.anchor)
        out.append(section)
    return out


def find_quote_labs(root: Path | str, since: datetime, until: datetime) -> list[Path]:
    """Quote lab folders directly under root whose quotes.json was written in [since, until]
    (a lab has no start time of its own: the file's modification time stands for it)."""
    out = []
    for folder in sorted(p for p in Path(root).iterdir() if p.is_dir()):
        if not is_quote_lab(folder):
            continue
        written = datetime.fromtimestamp((folder / QUOTES_JSON).stat().st_mtime, tz=timezone.utc)
        if since <= written <= until:
            out.append(folder)
    return out
