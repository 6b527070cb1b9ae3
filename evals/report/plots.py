"""Plots for the HTML report: matplotlib figures rendered to SVG and embedded as data URIs.

Only the object-oriented API (Figure + its own canvas) is used, so importing this module never
switches the process's matplotlib backend; each SVG is its own document inside an <img>, so
ids of two plots cannot collide and nothing is fetched from outside.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from matplotlib import rc_context
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from evals.contract.models import TIERS_BY_RISK
from evals.contract.scores import MetricEntry

TIER_COLORS = {"all": "#111827", "critical": "#c2410c", "policy": "#2563eb", "reference": "#0f766e"}
VERDICT_COLORS = {"better": "#15803d", "worse": "#b91c1c", "same": "#6b7280"}
SERIES = ["#2563eb", "#c2410c", "#0d9488", "#7c3aed", "#ca8a04", "#db2777", "#4b5563", "#0891b2"]
RC: dict[Any, Any] = {  # Any keys: matplotlib's stubs type rc names as Literal
    "svg.fonttype": "none",  # text stays text: smaller files, crisp in the browser
    "svg.hashsalt": "citeval",  # deterministic ids
    "text.parse_math": False,  # labels and run ids are untrusted: "$\\frac$" must stay text, not crash mathtext
    "font.size": 9,
    "font.family": ["DejaVu Sans", "sans-serif"],
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.edgecolor": "#9ca3af",
    "axes.labelcolor": "#374151",
    "xtick.color": "#4b5563",
    "ytick.color": "#374151",
    "grid.color": "#e5e7eb",
}


@dataclass
class Plot:
    title: str
    uri: str  # data:image/svg+xml;base64,…
    alt: str
    width: int  # CSS pixels, for layout before the image decodes
    height: int


def _render(fig: Figure, title: str, alt: str) -> Plot:
    buf = io.BytesIO()
    fig.savefig(buf, format="svg", metadata={"Date": None}, bbox_inches="tight")
    w, h = fig.get_size_inches() * 96
    uri = "data:image/svg+xml;base64," + base64.b64encode(buf.getvalue()).decode("ascii")
    return Plot(title=title, uri=uri, alt=alt, width=int(w), height=int(h))


def metric_intervals(
    groups: Mapping[str, Mapping[str, MetricEntry]],
    names: Sequence[str],
    thresholds: Mapping[str, float] | None = None,
) -> Plot | None:
    """Each metric's value and 95 % interval, overall and per tier (a forest plot); gate minimums as ticks."""
    def value(group: Mapping[str, MetricEntry], name: str) -> float | None:
        entry = group.get(name)
        return entry.value if entry is not None else None

    rows = [m for m in names if any(value(g, m) is not None for g in groups.values())]
    if not rows:
        return None
    with rc_context(RC):
        fig = Figure(figsize=(7.2, 0.42 * len(rows) + 0.9))
        ax = fig.add_subplot()
        keys = list(groups)
        step = 0.7 / max(len(keys), 1)
        for j, key in enumerate(keys):
            color = TIER_COLORS.get(key, SERIES[j % len(SERIES)])
            ys, xs, lo, hi = [], [], [], []
            for i, name in enumerate(rows):
                m = groups[key].get(name)
                if m is None or m.value is None:
                    continue
                y = len(rows) - 1 - i + (len(keys) - 1) / 2 * step - j * step
                v = float(m.value)
                ci = m.ci or (v, v)
                ys.append(y)
                xs.append(v)
                lo.append(max(0.0, v - float(ci[0])))
                hi.append(max(0.0, float(ci[1]) - v))
            ax.errorbar(xs, ys, xerr=[lo, hi], fmt="o", ms=4.5 if key == "all" else 3.5, color=color,
                        ecolor=color, elinewidth=1.4, capsize=2, label=key, zorder=3)
        for i, name in enumerate(rows):
            t = (thresholds or {}).get(name)
            if t is not None:
                y = len(rows) - 1 - i
                ax.plot([t, t], [y - 0.42, y + 0.42], color="#b91c1c", lw=1.2, ls=(0, (2, 1.5)), zorder=2)
        ax.set_yticks(range(len(rows)), list(reversed(rows)))
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.grid(axis="x")
        ax.set_xlabel("value with 95 % bootstrap interval (red dashes: overall gate minimum)")
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16 - 0.4 / len(rows)), ncol=len(keys), frameon=False)
        return _render(fig, "Metrics with 95 % intervals", "Forest plot of every metric overall and per risk tier")


def anchor_levels(levels: Mapping[str, int]) -> Plot | None:
    order = ["document", "section", "page", "char"]
    counts = [int(levels.get(k, 0)) for k in order]
    total = sum(counts)
    if not total:
        return None
    with rc_context(RC):
        fig = Figure(figsize=(6.0, 1.9))
        ax = fig.add_subplot()
        colors = ["#cbd5e1", "#93c5fd", "#3b82f6", "#1e3a8a"]
        bars = ax.barh(range(len(order)), counts, color=colors)
        for bar, c in zip(bars, counts, strict=True):
            ax.text(bar.get_width() + total * 0.01, bar.get_y() + bar.get_height() / 2,
                    f"{c} ({c / total:.0%})", va="center", fontsize=8, color="#374151")
        ax.set_yticks(range(len(order)), order)
        ax.invert_yaxis()
        ax.set_xlim(0, max(counts) * 1.25)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("valid markers to a gold document, by the finest level at which they meet it")
        return _render(fig, "Anchor levels", "Bar chart of anchor levels: " + ", ".join(
            f"{k} {c}" for k, c in zip(order, counts, strict=True)))


def findings_by_code(by_tier: Mapping[str, Mapping[str, int]]) -> Plot | None:
    tiers = [t for t in TIERS_BY_RISK if t in by_tier] + [
        t for t in by_tier if t not in TIERS_BY_RISK
    ]
    totals: dict[str, int] = {}
    for t in tiers:
        for code, n in by_tier[t].items():
            totals[code] = totals.get(code, 0) + int(n)
    if not totals:
        return None
    codes = sorted(totals, key=lambda c: (-totals[c], c))
    with rc_context(RC):
        fig = Figure(figsize=(7.2, 0.3 * len(codes) + 0.9))
        ax = fig.add_subplot()
        left = [0] * len(codes)
        for j, t in enumerate(tiers):
            values = [int(by_tier[t].get(c, 0)) for c in codes]
            ax.barh(range(len(codes)), values, left=left, color=TIER_COLORS.get(t, SERIES[j % len(SERIES)]), label=t,
                    height=0.65)
            left = [a + b for a, b in zip(left, values, strict=True)]
        for i, c in enumerate(codes):
            ax.text(left[i] + max(left) * 0.01, i, str(totals[c]), va="center", fontsize=8, color="#374151")
        ax.set_yticks(range(len(codes)), codes)
        ax.invert_yaxis()
        ax.set_xlim(0, max(left) * 1.12)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("findings")
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
        return _render(fig, "Findings by code and tier", "Stacked bars of findings per code, by risk tier")


def trends(
    values: Mapping[str, Mapping[str, Sequence[tuple[int, float | None, Sequence[float] | None]]]],
    metric_names: Sequence[str],
    tick_labels: Sequence[str],
    labels: Sequence[str],
) -> Plot | None:
    """Small multiples: one panel per metric, one line per variant label, runs in time order.

    values[metric][label] = [(run index, value, ci), …]; tick_labels name the run indexes, shown whole
    (upright, each panel's height grown by the longest label).
    """
    panels = [m for m in metric_names if any(v is not None for pts in values.get(m, {}).values() for _, v, _ in pts)]
    if not panels or len(tick_labels) < 2:
        return None
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    label_height = 0.075 * max(len(t) for t in tick_labels)  # inches of a 7 pt label set upright
    with rc_context(RC):
        fig = Figure(figsize=(9.6, (2.35 + label_height) * rows + 0.5))
        axes = fig.subplots(rows, cols, squeeze=False)
        for k, name in enumerate(panels):
            ax = axes[k // cols][k % cols]
            # every run in time order, whatever its label: the week's path
            every = sorted((i, v) for pts in values[name].values() for i, v, _ in pts if v is not None)
            ax.plot([i for i, _ in every], [v for _, v in every], color="#d1d5db", lw=1, zorder=1)
            for j, label in enumerate(labels):
                pts = [(i, v, ci) for i, v, ci in values[name].get(label, []) if v is not None]
                if not pts:
                    continue
                color = SERIES[j % len(SERIES)]
                xs = [i for i, _, _ in pts]
                ys = [v for _, v, _ in pts]
                lo = [v - ci[0] if ci else 0.0 for _, v, ci in pts]
                hi = [ci[1] - v if ci else 0.0 for _, v, ci in pts]
                # matplotlib drops legend labels that start with "_"
                shown = "\u200b" + label if label.startswith("_") else label
                ax.errorbar(xs, ys, yerr=[lo, hi], fmt="-o", color=color, ecolor=color, elinewidth=1, capsize=2,
                            ms=4, lw=1.6, label=shown, zorder=3)
            ax.set_title(name, fontsize=9, loc="left", color="#111827")
            ax.set_ylim(-0.03, 1.03)
            ax.set_xticks(range(len(tick_labels)), tick_labels, rotation=90, ha="right", va="center", fontsize=7,
                          rotation_mode="anchor")
            ax.grid(axis="y")
        for k in range(len(panels), rows * cols):
            axes[k // cols][k % cols].set_visible(False)
        handles, names = axes[0][0].get_legend_handles_labels()
        if len(labels) > 1:
            fig.legend(handles, names, loc="upper center", ncol=min(len(labels), 6), frameon=False,
                       bbox_to_anchor=(0.5, 1.02))
        fig.tight_layout(rect=(0, 0, 1, 0.96 if len(labels) > 1 else 1))
        return _render(fig, "Trends over runs (time order)", "Line charts of headline metrics across runs")


def deltas(rows: Sequence[tuple[str, float | None, tuple[float, float] | None, str]], title: str) -> Plot | None:
    """Differences B − A with paired 95 % intervals; color by verdict (better / worse / same)."""
    kept = [r for r in rows if r[1] is not None]
    if not kept:
        return None
    with rc_context(RC):
        fig = Figure(figsize=(7.2, 0.32 * len(kept) + 0.8))
        ax = fig.add_subplot()
        span = 0.05
        for i, (_, delta, ci, verdict) in enumerate(kept):
            d = float(delta or 0.0)
            y = len(kept) - 1 - i
            color = VERDICT_COLORS.get(verdict, "#6b7280")
            lo, hi = ci if ci else (d, d)
            ax.errorbar([d], [y], xerr=[[d - lo], [hi - d]], fmt="o", color=color, ecolor=color, capsize=2, ms=4)
            span = max(span, abs(lo), abs(hi), abs(d))
        ax.axvline(0, color="#9ca3af", lw=1)
        ax.set_yticks(range(len(kept)), [r[0] for r in reversed(kept)])
        ax.set_xlim(-span * 1.15, span * 1.15)
        ax.set_ylim(-0.6, len(kept) - 0.4)
        ax.grid(axis="x")
        ax.set_xlabel("B − A with paired 95 % interval (green better, red worse, grey not significant)")
        return _render(fig, title, "Forest plot of metric differences between two runs")
