"""docs/reference/metrics.md and findings.md are the contract's tables as generated text."""

from pathlib import Path

import pytest

from evals.contract import findings, metrics

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = "regenerate with: python3 scripts/reference_docs.py (and commit the result)"


@pytest.mark.parametrize(("name", "render"), [("metrics.md", metrics.markdown_table),
                                              ("findings.md", findings.markdown_table)])
def test_committed_reference_doc_is_the_generated_table(name, render):
    path = ROOT / "docs" / "reference" / name
    assert path.exists(), f"docs/reference/{name} is missing; {REGENERATE}"
    assert path.read_text(encoding="utf-8") == render(), f"docs/reference/{name} differs from its table; {REGENERATE}"


def test_each_table_row_is_in_the_doc():
    text = metrics.markdown_table()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == list(metrics.METRIC_NAMES)
    assert "| `error_rate` | lower | mean |" in text
    assert "| `abstention_f1` | higher | ratio |" in text
    codes = [line.split("`")[1] for line in findings.markdown_table().splitlines() if line.startswith("| `")]
    assert codes == list(findings.FINDING_CODES)
    assert "| `BACKEND_ERROR` | error | the backend failed |" in findings.markdown_table()
