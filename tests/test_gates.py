"""citeval gate: the gates file, rule evaluation, JUnit, the Markdown summary and exit codes."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from evals.errors import DataError
from evals.gate.core import default_gates_path, evaluate, gate_keys, load_gates, run_gate
from evals.score.metrics import ALL_METRICS

REPO = Path(__file__).resolve().parent.parent
DEMO = REPO / "datasets" / "demo"


def metric(value, ci=None, n=10, reason=None):
    out = {"value": value, "ci": ci, "n": n}
    if reason:
        out["reason"] = reason
    return out


def scores_doc() -> dict:
    """A hand-made scores.json: every metric present, one tier with a weak interval."""
    metrics = {name: metric(1.0, [1.0, 1.0]) for name in ALL_METRICS}
    metrics["citation_validity"] = metric(0.97, [0.93, 1.0], n=40)
    metrics["error_rate"] = metric(0.01, [0.0, 0.03], n=100)
    metrics["citation_correctness"] = metric(None, None, n=0, reason="no judged (claim, evidence) pair")
    critical = {name: metric(1.0, [1.0, 1.0], n=5) for name in ALL_METRICS}
    critical["number_support"] = metric(0.8, None, n=1)
    return {
        "run_id": "run-<1>",
        "n_questions": 100,
        "metrics": metrics,
        "by_tier": {"critical": {"n": 5, "metrics": critical}},
        "findings": {"NUMBER_UNSUPPORTED": 2, "CLAIM_UNCITED": 1},
        "findings_by_tier": {"critical": {"NUMBER_UNSUPPORTED": 1}},
    }


def write(tmp_path: Path, text: str, name: str = "gates.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def outcome(result, rule_id):
    return next(o for o in result.outcomes if o.rule.rule_id == rule_id)


def make_run(tmp_path: Path, doc: dict | None = None) -> Path:
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "scores.json").write_text(json.dumps(doc or scores_doc()), encoding="utf-8")
    return run


# --- the file ---------------------------------------------------------------------------


def test_default_gates_load_and_the_repo_copy_is_the_packaged_file():
    config = load_gates()
    assert config.path == default_gates_path()
    assert len(config.rules) > 20
    assert {r.scope for r in config.rules} == {"overall", "critical", "policy", "reference"}
    assert all(r.key in gate_keys() for r in config.rules)
    # one source of truth: gates/default.toml is the packaged file, not a copy that can drift
    assert (REPO / "gates" / "default.toml").resolve() == default_gates_path().resolve()
    critical = [r for r in config.rules if r.scope == "critical" and not r.is_count]
    assert critical and all(r.compare == "lower" for r in critical)


@pytest.mark.parametrize(
    ("text", "line", "key", "fragment"),
    [
        ('[overall]\ncitation_validty = { min = 0.9 }\n', 2, "overall.citation_validty", "unknown metric"),
        ('compare = "point"\n\n[tier.critical]\n"findings.NUMBER_WRONG" = { max = 0 }\n', 4,
         "tier.critical.findings.NUMBER_WRONG", "unknown finding code 'NUMBER_WRONG'"),
        ('[tier.faq]\nerror_rate = { max = 0.1 }\n', 1, "tier.faq", "unknown risk tier"),
        ('[overall]\nerror_rate = { maximum = 0.1 }\n', 2, "overall.error_rate", "unknown option 'maximum'"),
        ('[overall]\nerror_rate = { max = "low" }\n', 2, "overall.error_rate", "must be a number"),
        ('[overall]\nerror_rate = { allow_null = true }\n', 2, "overall.error_rate", "needs min or max"),
        ('[overall]\nerror_rate = { min = 0.5, max = 0.1 }\n', 2, "overall.error_rate", "above max"),
        ('[overall]\nerror_rate = { max = 0.1, compare = "upper" }\n', 2, "overall.error_rate", "compare must be"),
        ('[overall]\nerror_rate = { max = 0.1, allow_null = "yes" }\n', 2, "overall.error_rate", "true or false"),
        ('compare = "strict"\n', 1, "compare", "compare must be"),
        ('[overal]\nerror_rate = { max = 0.1 }\n', 1, "overal", "unknown key 'overal'"),
        # a percentage where a ratio belongs would fail every run, whatever it scores
        ('[overall]\n\ncitation_validity = { min = 95 }\n', 3, "overall.citation_validity", "write 0.95 for 95 %"),
        ('[tier.critical]\n"findings.NUMBER_UNSUPPORTED" = { max = -1 }\n', 2,
         "tier.critical.findings.NUMBER_UNSUPPORTED", "can never be met: a count is ≥ 0"),
    ],
)
def test_bad_gates_file_is_a_data_error_naming_file_line_and_key(tmp_path, text, line, key, fragment):
    path = write(tmp_path, text)
    with pytest.raises(DataError) as info:
        load_gates(path)
    err = info.value
    assert err.exit_code == 2
    assert err.path == str(path) and err.line == line and err.field == key
    assert fragment in str(err) and str(path) in str(err)


def test_invalid_toml_names_the_line(tmp_path):
    path = write(tmp_path, "[overall]\ncitation_validity = { min = }\n")
    with pytest.raises(DataError) as info:
        load_gates(path)
    assert info.value.line == 2 and "invalid TOML" in str(info.value)


# --- evaluation ---------------------------------------------------------------------------


def test_point_and_lower_compare_use_the_value_or_the_pessimistic_bound(tmp_path):
    config = load_gates(write(tmp_path, """
compare = "point"
[overall]
citation_validity = { min = 0.95 }
error_rate = { max = 0.02 }
[tier.critical]
compare = "lower"
citation_validity = { min = 0.95 }
error_rate = { max = 0.02, compare = "point" }
"""))
    result = evaluate(config, scores_doc())
    # point: 0.97 ≥ 0.95 and 0.01 ≤ 0.02
    assert outcome(result, "overall.citation_validity").status == "pass"
    assert outcome(result, "overall.error_rate").status == "pass"
    # critical: lower bound 1.0 ≥ 0.95; error_rate overridden back to point
    assert outcome(result, "tier.critical.citation_validity").status == "pass"
    assert outcome(result, "tier.critical.error_rate").rule.compare == "point"

    strict = load_gates(write(tmp_path, """
compare = "lower"
[overall]
citation_validity = { min = 0.95 }
error_rate = { max = 0.02 }
""", "strict.toml"))
    result = evaluate(strict, scores_doc())
    low = outcome(result, "overall.citation_validity")
    assert low.status == "fail" and low.checked == 0.93
    assert "lower bound 0.930 < required ≥ 0.95" in low.message
    high = outcome(result, "overall.error_rate")  # for a max, the upper bound 0.03 must pass
    assert high.status == "fail" and high.checked == 0.03
    assert "upper bound 0.030 > required ≤ 0.02" in high.message
    assert result.exit_code == 1 and not result.passed


def test_null_value_fails_unless_allow_null_and_lower_needs_an_interval(tmp_path):
    config = load_gates(write(tmp_path, """
[overall]
citation_correctness = { min = 0.8 }
[tier.critical]
number_support = { min = 0.5, compare = "lower" }
"""))
    result = evaluate(config, scores_doc())
    null = outcome(result, "overall.citation_correctness")
    assert null.status == "fail"
    assert null.message == "no value: no judged (claim, evidence) pair"
    no_ci = outcome(result, "tier.critical.number_support")
    assert no_ci.status == "fail" and no_ci.message.startswith("no value: no interval")

    allowed = load_gates(write(tmp_path, """
[overall]
citation_correctness = { min = 0.8, allow_null = true }
""", "allowed.toml"))
    result = evaluate(allowed, scores_doc())
    assert outcome(result, "overall.citation_correctness").status == "skip"
    assert result.passed and result.exit_code == 0


def test_finding_counts_overall_and_per_tier(tmp_path):
    config = load_gates(write(tmp_path, """
[overall]
"findings.NUMBER_UNSUPPORTED" = { max = 1 }
"findings.ACCESS_DENIED" = { max = 0 }
[tier.critical]
"findings.NUMBER_UNSUPPORTED" = { max = 0 }
[tier.reference]
"findings.NUMBER_UNSUPPORTED" = { max = 0 }
citation_validity = { min = 0.9 }
"""))
    result = evaluate(config, scores_doc())
    assert outcome(result, "overall.findings.NUMBER_UNSUPPORTED").status == "fail"  # 2 > 1
    assert outcome(result, "overall.findings.NUMBER_UNSUPPORTED").observed == 2
    assert outcome(result, "overall.findings.ACCESS_DENIED").status == "pass"  # absent code counts 0
    assert outcome(result, "tier.critical.findings.NUMBER_UNSUPPORTED").status == "fail"  # 1 > 0
    # a tier with no question in the run: its rules are skipped, not failed
    assert outcome(result, "tier.reference.findings.NUMBER_UNSUPPORTED").status == "skip"
    assert outcome(result, "tier.reference.citation_validity").message == "no reference question in this run"
    assert len(result.failed) == 2


def test_junit_has_one_testcase_per_rule_and_markdown_lists_failures(tmp_path):
    config = load_gates(write(tmp_path, """
[overall]
citation_validity = { min = 0.99 }
citation_correctness = { min = 0.8, allow_null = true }
error_rate = { max = 0.02 }
"""))
    run = make_run(tmp_path)
    result = run_gate(run, config, junit=tmp_path / "out" / "junit.xml", summary=tmp_path / "out" / "summary.md")
    root = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    assert root.tag == "testsuites" and root.get("tests") == "3" and root.get("failures") == "1"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 3
    assert [c.get("classname") for c in cases] == ["citeval.gate.overall"] * 3
    failed = [c for c in cases if c.find("failure") is not None]
    assert len(failed) == 1 and failed[0].get("name") == "citation_validity ≥ 0.99"
    assert "value 0.970 < required ≥ 0.99" in failed[0].find("failure").get("message")
    assert len([c for c in cases if c.find("skipped") is not None]) == 1
    assert root.find("./testsuite").get("name") == "citeval gate run-<1>"  # escaped by the XML writer
    md = (tmp_path / "out" / "summary.md").read_text(encoding="utf-8")
    assert md.startswith("### ❌ citeval gate failed (1 of 3 rules)")
    assert "| ❌ | `overall.citation_validity` | 0.970 [0.930, 1.000] (n=40) | ≥ 0.99 |" in md
    assert "run `run-<1>`" in md  # inside a code span "<" is text, never HTML (an entity would show as "&lt;")
    assert result.exit_code == 1


# --- the CLI ----------------------------------------------------------------------------------


def test_cli_gate_exit_codes_pass_fail_and_bad_input(tmp_path):
    run = make_run(tmp_path)
    passing = write(tmp_path, "[overall]\ncitation_validity = { min = 0.9 }\n", "pass.toml")
    failing = write(tmp_path, "[overall]\ncitation_validity = { min = 0.99 }\n", "fail.toml")
    bad = write(tmp_path, "[overall]\ncitation_valid = { min = 0.99 }\n", "bad.toml")
    runner = CliRunner()

    ok = runner.invoke(app, ["gate", str(run), "--gates", str(passing)])
    assert ok.exit_code == 0, ok.output
    assert "gate passed: 0 of 1 rule(s) failed" in ok.output

    junit = tmp_path / "j.xml"
    summary = tmp_path / "s.md"
    fail = runner.invoke(app, ["gate", str(run), "--gates", str(failing), "--junit", str(junit), "--summary", str(summary)])
    assert fail.exit_code == 1, fail.output
    assert "FAIL overall.citation_validity: value 0.970 < required ≥ 0.99 (n=40)" in fail.output
    assert junit.exists() and summary.exists()

    as_json = runner.invoke(app, ["gate", str(run), "--gates", str(failing), "--format", "json"])
    assert as_json.exit_code == 1
    doc = json.loads(as_json.stdout)
    assert doc["failed"] == 1 and doc["outcomes"][0]["observed"] == 0.97

    wrong = runner.invoke(app, ["gate", str(run), "--gates", str(bad)])
    assert wrong.exit_code == 2
    assert f"{bad}:2: overall.citation_valid: unknown metric" in wrong.output

    unscored = runner.invoke(app, ["gate", str(tmp_path), "--gates", str(passing)])
    assert unscored.exit_code == 2 and "scores.json" in unscored.output


def test_eval_ends_with_gate_and_report_and_returns_the_gate_code(tmp_path):
    runner = CliRunner()
    passing = write(tmp_path, "[overall]\ncitation_validity = { min = 0.5 }\nerror_rate = { max = 0.0 }\n", "p.toml")
    # the reference backend anchors some demo citations to another page than gold (ANCHOR_MISMATCH)
    failing = write(tmp_path, '[overall]\nanchor_accuracy = { min = 1.0 }\n', "f.toml")
    for gates, code, run_id in ((passing, 0, "ok"), (failing, 1, "bad")):
        report = tmp_path / f"{run_id}.html"
        result = runner.invoke(app, [
            "eval", str(DEMO), "--limit", "25", "--judge", "none", "--out", str(tmp_path / "runs"),
            "--run-id", run_id, "--gates", str(gates), "--report-out", str(report),
        ])
        assert result.exit_code == code, result.output
        assert result.output.rstrip().splitlines()[-1] == f"report: {report}"
        assert report.exists() and "<!DOCTYPE html>" in report.read_text(encoding="utf-8")
        junit = ET.parse(tmp_path / "runs" / run_id / "junit.xml").getroot()
        assert junit.get("failures") == str(code)


def test_eval_with_a_bad_gates_file_stops_before_the_run(tmp_path):
    bad = write(tmp_path, "[overall]\nnope = { min = 1 }\n")
    result = CliRunner().invoke(app, ["eval", str(DEMO), "--out", str(tmp_path / "runs"), "--gates", str(bad)])
    assert result.exit_code == 2
    assert "unknown metric 'nope'" in result.output
    assert not (tmp_path / "runs").exists()


# --- the file's model (issue 12): strict types, no rule-less file, short functions ------------


@pytest.mark.parametrize(
    ("text", "line", "key", "fragment"),
    [
        ('[overall]\nerror_rate = { max = "0.1" }\n', 2, "overall.error_rate", "must be a number, not '0.1'"),
        ("[overall]\nerror_rate = { max = nan }\n", 2, "overall.error_rate", "must be a finite number"),
        ("[overall]\nerror_rate = { max = true }\n", 2, "overall.error_rate", "must be a number"),
        ('[overall]\ncompare = "upper"\nerror_rate = { max = 0.1 }\n', 2, "overall.compare", "compare must be"),
        ("[overall]\nerror_rate = 0.1\n", 2, "overall.error_rate", "a rule must be a table"),
    ],
)
def test_strict_types_never_coerce_a_typo_into_a_rule(tmp_path, text, line, key, fragment):
    path = write(tmp_path, text)
    with pytest.raises(DataError) as info:
        load_gates(path)
    err = info.value
    assert (err.line, err.field) == (line, key), str(err)
    assert fragment in str(err)


@pytest.mark.parametrize("text", ["", "# only comments\n", 'compare = "lower"\n', "[overall]\n[tier.critical]\n"])
def test_a_gates_file_without_any_rule_is_refused(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(DataError) as info:
        load_gates(path)
    assert info.value.exit_code == 2 and "has no rule" in str(info.value) and str(path) in str(info.value)
    result = CliRunner().invoke(app, ["gate", str(make_run(tmp_path)), "--gates", str(path)])
    assert result.exit_code == 2 and "has no rule" in result.output


def test_no_function_in_the_gates_package_is_over_80_lines():
    import ast

    long = []
    for path in sorted((REPO / "evals" / "gate").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > 80:
                    long.append(f"{path.name}:{node.lineno} {node.name} ({length} lines)")
    assert not long
