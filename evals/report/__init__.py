"""HTML reports and run comparison (`citeval report`, `citeval report --weekly`, `citeval compare`).

One self-contained HTML file per report: inline CSS, matplotlib plots as SVG data URIs, a
Content-Security-Policy that forbids scripts and outside requests, every untrusted text
escaped by jinja2 and only http(s) URLs rendered as links.
"""

from evals.report.compare import Comparison, Flip, PassComparison, compare_runs
from evals.report.load import load_run
from evals.report.render import (
    ReportResult,
    environment,
    find_runs,
    parse_since,
    render_report,
    render_weekly,
    week_name,
)
from evals.report.stats import (
    PASS_DEFINITION,
    PairedTest,
    mcnemar_exact,
    paired_mean_test,
    paired_ratio_test,
    question_passed,
)
from evals.report.views import safe_url

__all__ = [
    "PASS_DEFINITION",
    "Comparison",
    "Flip",
    "PairedTest",
    "PassComparison",
    "ReportResult",
    "compare_runs",
    "environment",
    "find_runs",
    "load_run",
    "mcnemar_exact",
    "paired_mean_test",
    "paired_ratio_test",
    "parse_since",
    "question_passed",
    "render_report",
    "render_weekly",
    "safe_url",
    "week_name",
]
