"""The generated pages of docs/reference/ are what scripts/reference_docs.py writes from the code:
metrics.md and findings.md from the contract's tables, cli.md from the typer app `cli:app`."""

import importlib.util
from pathlib import Path

import pytest

from evals.contract import findings, metrics

ROOT = Path(__file__).resolve().parents[1]
REGENERATE = "regenerate with: python3 scripts/reference_docs.py (and commit the result)"


def _generator():
    spec = importlib.util.spec_from_file_location("reference_docs", ROOT / "scripts" / "reference_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cli_markdown() -> str:
    return _generator().cli_markdown()


@pytest.mark.parametrize(("name", "render"), [("metrics.md", metrics.markdown_table),
                                              ("findings.md", findings.markdown_table),
                                              ("cli.md", _cli_markdown)])
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


def test_the_cli_page_has_every_command_and_option_of_the_app():
    import typer

    from cli import app

    text = _cli_markdown()
    generator = _generator()
    for path, command in generator._walk(["citeval"], typer.main.get_command(app)):
        assert f"## `{' '.join(path)}`" in text, f"{' '.join(path)} has no section"
        for param in command.params:
            if not getattr(param, "hidden", False) and param.param_type_name == "option":
                assert f"`{param.opts[0]}`" in text
    assert "## `citeval data ingest`" in text and "(#citeval-data-ingest)" in text
    assert "| `--out` (required) | path |  | Registry folder to write, e.g. DATASET/registry. |" in text
    assert "| `--concurrency` | integer ≥ 1 | `8` | Questions in flight at once. |" in text


def test_the_generator_check_mode_passes_on_the_committed_pages():
    assert _generator().main(["--check"]) == 0
