"""`citeval report`: one self-contained HTML file over one or more scored runs.

Everything is inline (CSS, plots as SVG data URIs) and a Content-Security-Policy forbids any
script and any request except data: images, so opening the file fetches nothing. Untrusted
text goes through jinja2 with autoescape on; URLs become links only through `safe_url`.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import jinja2

from evals._version import __version__
from evals.contract.findings import FINDING_DESCRIPTIONS
from evals.contract.metrics import (
    ABSTENTION_F1,
    ANCHOR_ACCURACY,
    CITATION_COMPLETENESS,
    CITATION_CORRECTNESS,
    CITATION_VALIDITY,
    ERROR_RATE,
    METRIC_NAMES,
    PER_ANSWER_METRICS,
    VERSION_CORRECTNESS,
)
from evals.contract.models import TIERS_BY_RISK
from evals.contract.scores import JudgeAgreement, MetricEntry
from evals.errors import CitevalError, DataError, UsageError
from evals.gate.core import GateConfig, GateResult, evaluate, load_gates
from evals.report import plots
from evals.report.anchors import LANG_TAG, Anchors, SectionNav, content_lang, section_nav
from evals.report.compare import Comparison, compare_runs
from evals.report.load import load_run, now_utc, require_unchanged
from evals.report.quotes import QuoteSection, find_quote_labs, is_quote_lab, quote_sections
from evals.report.stats import ALPHA, PASS_DEFINITION, question_passed
from evals.report.views import TIER_ORDER, QuestionView, drilldown, safe_url
from evals.store.atomic import safe_file_name, write_text_atomic
from evals.store.runfolder import MANIFEST, SCORES, RunFolder, score_set_problem

# the weekly variants table: short column names, so it fits the page
VARIANT_COLUMNS = (
    (CITATION_VALIDITY, "validity"),
    (CITATION_CORRECTNESS, "correctness"),
    (CITATION_COMPLETENESS, "completeness"),
    (ANCHOR_ACCURACY, "anchor"),
    (VERSION_CORRECTNESS, "version"),
    (ABSTENTION_F1, "abstention F1"),
)
HEADLINE = (
    CITATION_VALIDITY,
    CITATION_CORRECTNESS,
    CITATION_COMPLETENESS,
    ANCHOR_ACCURACY,
    VERSION_CORRECTNESS,
    ABSTENTION_F1,
    ERROR_RATE,
)
TREND_METRICS = ("pass_rate", CITATION_VALIDITY, CITATION_CORRECTNESS, ANCHOR_ACCURACY, VERSION_CORRECTNESS,
                 ABSTENTION_F1)
TIERS = TIERS_BY_RISK
MAX_QUESTIONS = 500


@dataclass
class RunSection:
    """Everything shown about one run in depth (the newest run, or each variant's newest)."""

    run: RunFolder
    gate: GateResult
    pass_rate: float | None
    tiers: list[str]
    forest: plots.Plot | None
    anchors: plots.Plot | None
    findings_plot: plots.Plot | None
    questions: list[QuestionView]
    hidden_questions: int
    nav: SectionNav
    judges: dict[str, JudgeAgreement] = field(default_factory=dict)
    probe: Any = None  # the "Probe" section of a `citeval probe` run: HTML escaped by evals.probe


@dataclass
class ComparisonView:
    comparison: Comparison
    plot: plots.Plot | None
    anchor: str
    kind: str  # "baseline": B against the baseline; "previous": B against its own label's previous run
    drill: dict[str, str]  # question_id -> anchor in a drill-down, where shown


@dataclass
class ReportResult:
    path: Path
    runs: list[RunFolder]
    gates: dict[str, GateResult]
    comparisons: list[Comparison] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    quote_sections: int = 0  # "Verbatim quotes" sections (folders with quote results)

    @property
    def failing(self) -> list[str]:
        """Run ids whose gate failed."""
        return [run_id for run_id, gate in self.gates.items() if not gate.passed]

    def to_text(self) -> str:
        """`citeval report`'s line: the file, what it holds, and the gate's verdict per run."""
        gate_line = f"gate failed for {', '.join(self.failing)}" if self.failing else "every run passes the gate"
        if self.quote_sections:
            gate_line += f"; {self.quote_sections} verbatim-quotes section(s)"
        return f"{self.path}: {len(self.runs)} run(s), {len(self.comparisons)} comparison(s); {gate_line}\n"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "runs": [run.run_id for run in self.runs],
            "comparisons": [
                {"run_a": c.run_a.run_id, "run_b": c.run_b.run_id, "shared": len(c.shared)} for c in self.comparisons
            ],
            "gates": {run_id: gate.passed for run_id, gate in self.gates.items()},
            "quote_sections": self.quote_sections,
            "notes": list(self.notes),
        }


def pass_rate(run: RunFolder) -> float | None:
    rows = list(run.per_question.values())
    return sum(map(question_passed, rows)) / len(rows) if rows else None


# --- jinja ------------------------------------------------------------------------------


def _missing(value: Any) -> bool:
    return value is None or isinstance(value, jinja2.Undefined)


def _fmt(value: Any, digits: int = 3) -> str:
    if _missing(value):
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    return f"{float(value):.{digits}f}"


def _pct(value: Any, digits: int = 1) -> str:
    return "—" if _missing(value) else f"{float(value) * 100:.{digits}f} %"


def _ci(ci: Any, digits: int = 2) -> str:
    if _missing(ci) or not ci:
        return ""
    return f"[{float(ci[0]):.{digits}f}, {float(ci[1]):.{digits}f}]"


def _signed(value: Any, digits: int = 3) -> str:
    return "—" if _missing(value) else f"{float(value):+.{digits}f}"


def _pval(value: Any) -> str:
    if _missing(value):
        return "—"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _pstat(value: Any) -> str:
    """'p = 0.125' or 'p < 0.001'."""
    text = _pval(value)
    return "p " + text if text.startswith("<") else "p = " + text


def _when(value: Any) -> str:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
    if not isinstance(value, datetime):
        return "—"
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


_ENV: jinja2.Environment | None = None


def environment() -> jinja2.Environment:
    """The report's jinja2 environment: autoescape on for every template, undefined names fail."""
    global _ENV
    if _ENV is None:
        env = jinja2.Environment(
            loader=jinja2.PackageLoader("evals.report", "templates"),
            # templates end in .j2, so select_autoescape's extension test would switch escaping off
            autoescape=True,
            # a name the template does not get is a bug in the report, not a blank cell
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters.update(
            fmt=_fmt, pct=_pct, ci=_ci, signed=_signed, pval=_pval, pstat=_pstat, when=_when, safe_url=safe_url
        )
        env.globals.update(finding_help=FINDING_DESCRIPTIONS, alpha=ALPHA, pass_definition=PASS_DEFINITION, tiers=TIERS)
        _ENV = env
    return _ENV


# --- building ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def stylesheet() -> tuple[str, str]:
    """The report's CSS and its CSP source ('sha256-…'): only this exact stylesheet may apply."""
    env = environment()
    assert env.loader is not None
    css, _, _ = env.loader.get_source(env, "report.css")
    digest = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    return css, f"sha256-{digest}"


def _thresholds(gates: GateConfig) -> dict[str, float]:
    return {r.key: r.min for r in gates.rules if r.scope == "overall" and r.min is not None and not r.is_count}


def _section(run: RunFolder, gates: GateConfig, now: datetime, max_questions: int, anchors: Anchors,
             suffix: str | None = None) -> RunSection:
    scores = run.scores
    tiers = [t for t in TIERS if t in scores.by_tier]
    groups: dict[str, dict[str, MetricEntry]] = {"all": scores.metrics}
    for t in tiers:
        groups[t] = scores.by_tier[t].metrics
    questions, hidden = drilldown(run, now, max_questions)
    return RunSection(
        run=run,
        gate=evaluate(gates, scores),
        pass_rate=pass_rate(run),
        tiers=tiers,
        forest=plots.metric_intervals(groups, METRIC_NAMES, _thresholds(gates)),
        anchors=plots.anchor_levels(scores.anchor_level),
        findings_plot=plots.findings_by_code(scores.findings_by_tier),
        questions=questions,
        hidden_questions=hidden,
        nav=section_nav(anchors, run.run_id, questions, run.per_question, TIER_ORDER, suffix),
        judges=_judge_agreement(run),
        probe=_probe_section(run),
    )


def _probe_section(run: RunFolder) -> Any:
    """probe.json's verdicts and cases, when the run is a probe (every untrusted string escaped there)."""
    from markupsafe import Markup

    from evals.probe.render import probe_report_html

    html = probe_report_html(run.path)
    return Markup(html) if html is not None else None


def _judge_agreement(run: RunFolder) -> dict[str, JudgeAgreement]:
    """Judge vs human: agreement.json's section when `agree` wrote one, else scores.json's."""
    written = run.agreement.judge_agreement if run.agreement is not None else None
    if written:
        return {name: JudgeAgreement.model_validate(entry.to_json()) for name, entry in written.items()}
    return run.scores.judge_agreement or {}


def _trend(runs: Sequence[RunFolder]) -> plots.Plot | None:
    if len(runs) < 2:
        return None
    labels = list(dict.fromkeys(r.label for r in runs))
    values: dict[str, dict[str, list[tuple[int, float | None, Any]]]] = {m: {} for m in TREND_METRICS}
    for i, run in enumerate(runs):
        for m in TREND_METRICS:
            if m == "pass_rate":
                point: tuple[int, float | None, Any] = (i, pass_rate(run), None)
            else:
                entry = run.scores.metrics.get(m)
                point = (i, entry.value, entry.ci) if entry is not None else (i, None, None)
            values[m].setdefault(run.label, []).append(point)
    return plots.trends(values, TREND_METRICS, [r.run_id for r in runs], labels)  # full ids: no "…"


def _comparison_view(c: Comparison, sections: Sequence[RunSection], anchors: Anchors, mode: str) -> ComparisonView:
    rows = [(name, t.delta, t.ci, c.verdict(name)) for name, t in c.metrics.items()]
    drill: dict[str, str] = {}
    for s in sections:
        if s.run is c.run_b:
            drill = {q.question_id: q.anchor for q in s.questions}
    title = f"{c.run_b.run_id} − {c.run_a.run_id}"
    kind = "previous" if mode == "weekly" and c.run_a.label == c.run_b.label else "baseline"
    anchor = anchors.claim("cmp-", c.run_b.run_id, c.run_a.run_id)
    return ComparisonView(c, plots.deltas(rows, title), anchor, kind, drill)


def _page_lang(sections: Sequence[RunSection], quotes: Sequence[QuoteSection], lang: str | None) -> str:
    """The page's lang: as asked, else from the questions and answers shown (or the quote lab's answers)."""
    if lang is not None:
        if not LANG_TAG.match(lang):
            raise UsageError(f"lang {lang!r}: give a language tag such as ru or en")
        return lang
    texts = [t for s in sections for q in s.questions for t in (q.question, q.answer_text)]
    texts += [seg.text for qs in quotes for miss in qs.misses for seg in miss.segments]
    return content_lang(texts)


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)


def _pick_baseline(runs: Sequence[RunFolder], baseline: str | None) -> RunFolder:
    if baseline is None:
        return runs[0]
    for r in runs:
        if baseline in (r.run_id, r.label, str(r.path)):
            return r
    raise UsageError(f"--baseline {baseline!r} names none of the runs (give a run id or a label)")


def _render(
    runs: list[RunFolder],
    focus: list[RunFolder],
    comparisons: list[Comparison],
    out: Path,
    gates: GateConfig,
    now: datetime,
    title: str,
    mode: str,
    max_questions: int,
    notes: list[str],
    variants: list[dict[str, Any]] | None = None,
    quote_sections: list[QuoteSection] | None = None,
    lang: str | None = None,
) -> ReportResult:
    anchors = Anchors()  # every id of the page, so none is given twice
    # the first run's questions are q-<question id>; a second drill-down's get its label
    sections = [_section(r, gates, now, max_questions, anchors, None if i == 0 else r.label)
                for i, r in enumerate(focus)]
    gate_results = {r.run_id: evaluate(gates, r.scores) for r in runs}
    for r in runs:
        notes.extend(f"{r.run_id}: {n}" for n in r.notes if f"{r.run_id}: {n}" not in notes)
    css, css_hash = stylesheet()
    html = environment().get_template("report.html.j2").render(
        css=css,
        css_hash=css_hash,
        title=title,
        lang=_page_lang(sections, quote_sections or [], lang),
        mode=mode,
        generated_at=now,
        version=__version__,
        gates_path=str(gates.path),
        runs=runs,
        run_rows=[
            {"run": r, "gate": gate_results[r.run_id], "pass_rate": pass_rate(r), "focus": r in focus}
            for r in runs
        ],
        sections=sections,
        navs={s.run.run_id: s.nav for s in sections},
        comparisons=[_comparison_view(c, sections, anchors, mode) for c in comparisons],
        trend=_trend(runs),
        variants=variants or [],
        headline=HEADLINE,
        variant_columns=VARIANT_COLUMNS,
        metric_names=METRIC_NAMES,
        per_answer=PER_ANSWER_METRICS,
        notes=notes,
        quote_sections=quote_sections or [],
        judge_method=_judge_method(runs),
    )
    require_unchanged(runs)  # the findings drawn lazily are the scores' generation too
    _write_atomic(out, html)
    return ReportResult(path=out, runs=runs, gates=gate_results, comparisons=comparisons, notes=notes,
                        quote_sections=len(quote_sections or []))


def _judge_method(runs: list[RunFolder]) -> dict[str, Any] | None:
    """The Method section's support-judge entry: the offline score's calibration as shipped (its
    cross-fitted check), and for each cascade run how many judged units the LLM decided."""
    judges = {r.scores.judge for r in runs if r.scores.judge}
    if not judges & {"offline", "cascade"}:
        return None
    from evals.score.judges.calibration_table import CALIBRATION

    tables = [{"lang": lang, "fitted_on": entry.get("fitted_on"), "ece": entry.get("cross_fitted_ece"),
               "bins": entry.get("reliability") or []} for lang, entry in CALIBRATION.items()]
    cascades = []
    for r in runs:
        usage = r.scores.judge_usage
        extra = usage.model_extra or {} if usage is not None else {}
        if r.scores.judge == "cascade" and extra.get("units"):
            cascades.append({"run_id": r.run_id, "model": r.scores.provenance.judge.model
                             if r.scores.provenance and r.scores.provenance.judge else None,
                             "sent": extra.get("sent_to_llm"), "units": extra.get("units"),
                             "share": extra.get("share_sent")})
    return {"tables": tables, "cascades": cascades}


def _gates(gates: Path | str | GateConfig | None) -> GateConfig:
    return gates if isinstance(gates, GateConfig) else load_gates(gates)


def render_report(
    run_dirs: Sequence[Path | str],
    out: Path | str | None = None,
    *,
    gates: Path | str | GateConfig | None = None,
    baseline: str | None = None,
    now: datetime | None = None,
    max_questions: int = MAX_QUESTIONS,
    lang: str | None = None,
) -> ReportResult:
    """A report over runs: the newest in depth; with two or more, each against the baseline
    (default: the oldest) with paired significance, the flipped questions and trend plots.
    `lang` is the page's language (default: Cyrillic questions and answers make it ru, else en)."""
    if not run_dirs:
        raise UsageError("give at least one RUN_DIR")
    config = _gates(gates)
    # a folder with quote results and no manifest is a quote lab (`citeval quotes eval --out`), not a run
    labs = [d for d in run_dirs if is_quote_lab(d)]
    if len(labs) == len(run_dirs):
        lab_path = Path(out) if out is not None else Path("reports") / "quotes.html"
        title = "citeval report — verbatim quotes"
        return _render([], [], [], lab_path, config, now or now_utc(), title, "single", max_questions, [],
                       quote_sections=quote_sections(labs), lang=lang)
    runs = sorted((load_run(d) for d in run_dirs if d not in labs), key=lambda r: (r.started_at, r.run_id))
    ids = Counter(r.run_id for r in runs)
    if any(n > 1 for n in ids.values()):
        raise UsageError(f"the same run was given twice: {', '.join(i for i, n in ids.items() if n > 1)}")
    base = _pick_baseline(runs, baseline)
    newest = runs[-1]
    comparisons = [compare_runs(base, r) for r in runs if r is not base]
    path = Path(out) if out is not None else Path("reports") / f"{safe_file_name(newest.run_id)}.html"
    title = f"citeval report — {newest.run_id}" if len(runs) == 1 else f"citeval report — {len(runs)} runs"
    mode = "single" if len(runs) == 1 else "compare"
    quotes = quote_sections([newest.path, *labs])
    return _render(runs, [newest], comparisons, path, config, now or now_utc(), title, mode, max_questions, [],
                   quote_sections=quotes, lang=lang)


# --- weekly --------------------------------------------------------------------------------


_SINCE = re.compile(r"^\s*(\d+)\s*([hdw])\s*$")


def parse_since(text: str, now: datetime) -> datetime:
    """'7d', '36h', '2w' before now, or an ISO 8601 date/time."""
    m = _SINCE.match(text)
    if m:
        n, unit = int(m.group(1)), m.group(2)
        return now - {"h": timedelta(hours=n), "d": timedelta(days=n), "w": timedelta(weeks=n)}[unit]
    try:
        t = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(f"--since {text!r}: give a span such as 7d, 36h, 2w or an ISO date") from None
    return t if t.tzinfo else t.replace(tzinfo=timezone.utc)


def week_name(t: datetime) -> str:
    iso = t.isocalendar()
    return f"{iso[0]}-W{iso[1]:02d}"


def find_runs(root: Path | str, since: datetime, until: datetime) -> tuple[list[RunFolder], list[str]]:
    """Scored runs under ROOT started in [since, until]; folders that cannot be read are noted, not fatal."""
    root = Path(root)
    if not root.is_dir():
        raise DataError(root, None, "runs folder not found")
    runs, notes = [], []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        if not (folder / MANIFEST).exists():
            continue
        if not (folder / SCORES).exists():
            notes.append(f"{folder.name}: not scored, left out")
            continue
        problem = score_set_problem(folder)
        if problem:  # a score killed halfway (evals.store.atomic)
            notes.append(f"{folder.name}: left out ({problem})")
            continue
        try:
            run = load_run(folder)
        except CitevalError as exc:
            notes.append(f"{folder.name}: left out ({exc})")
            continue
        if since <= run.started_at <= until:
            runs.append(run)
    return sorted(runs, key=lambda r: (r.started_at, r.run_id)), notes


def render_weekly(
    root: Path | str,
    out: Path | str | None = None,
    *,
    since: str = "7d",
    gates: Path | str | GateConfig | None = None,
    baseline: str | None = None,
    now: datetime | None = None,
    max_questions: int = MAX_QUESTIONS,
    lang: str | None = None,
) -> ReportResult:
    """The week's runs under ROOT grouped by variant label: each label's newest run in depth,
    each against the baseline label's newest (default: the label of the oldest run) and against
    its own label's previous run in the window, when there is one."""
    now = now or now_utc()
    start = parse_since(since, now)
    runs, notes = find_runs(root, start, now)
    labs = find_quote_labs(root, start, now)
    if not runs and labs:
        lab_path = Path(out) if out is not None else Path("reports") / f"{week_name(now)}.html"
        notes.insert(0, f"quote results written from {start:%Y-%m-%d %H:%M} to {now:%Y-%m-%d %H:%M} UTC under {root}")
        return _render([], [], [], lab_path, _gates(gates), now, f"citeval weekly report — {week_name(now)}", "weekly",
                       max_questions, notes, [], quote_sections=quote_sections(labs, notes), lang=lang)
    if not runs:
        window = f"{start:%Y-%m-%d %H:%M} and {now:%Y-%m-%d %H:%M} UTC"
        raise DataError(root, None, f"no scored run started between {window}")
    config = _gates(gates)
    latest: dict[str, RunFolder] = {}
    for r in runs:  # time order: the last one per label wins
        latest[r.label] = r
    # the baseline is a variant: the newest run of the oldest run's label, or of the label named
    base = latest[_pick_baseline(runs, baseline).label]
    focus = sorted(latest.values(), key=lambda r: (r.label != base.label, r.label))
    comparisons: list[Comparison] = []
    variants = []
    for newest in focus:
        group = [r for r in runs if r.label == newest.label]
        # against the baseline variant, and against its own previous run: did this variant get better?
        vs_base = None if newest is base else compare_runs(base, newest)
        previous = compare_runs(group[-2], newest) if len(group) > 1 else None
        comparisons += [c for c in (vs_base, previous) if c is not None]
        variants.append({"label": newest.label, "runs": group, "newest": newest, "baseline": newest is base})
    path = Path(out) if out is not None else Path("reports") / f"{week_name(now)}.html"
    title = f"citeval weekly report — {week_name(now)}"
    notes.insert(0, f"runs started from {start:%Y-%m-%d %H:%M} to {now:%Y-%m-%d %H:%M} UTC under {root}")
    quotes = quote_sections([*(r.path for r in focus), *labs], notes)
    return _render(runs, focus, comparisons, path, config, now, title, "weekly", max_questions, notes, variants,
                   quote_sections=quotes, lang=lang)
