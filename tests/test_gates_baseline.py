"""Baseline rules (issue 23): a run gated against a baseline run over the questions both share.

The runs are built by hand (manifest.json, per_question.jsonl, scores.json) so every expected
delta and p-value can be worked out on paper. Exact McNemar, two-sided: with b questions that
went 1 → 0 and c that went 0 → 1, p = min(1, 2 · Σ_{i ≤ min(b, c)} C(b + c, i) / 2^(b + c)).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli import app
from evals.errors import DataError
from evals.gate.core import load_gates, run_gate

N = 200


def row(qid: str, tier: str = "policy", validity: float = 1.0, findings: list[str] | None = None, **extra) -> dict:
    return {
        "question_id": qid, "risk_tier": tier, "tags": [], "status": "answered",
        "citation_validity": validity, "version_correctness": 1.0, "error_rate": 0.0,
        "abstained": False, "should_abstain": False, "markers": 1, "valid_markers": int(validity),
        "findings": findings or [], **extra,
    }


def ids(n: int = N) -> list[str]:
    return [f"q{i:03d}" for i in range(1, n + 1)]


def tier_of(qid: str) -> str:
    return "critical" if int(qid[1:]) > 150 else "policy"  # q151..q200: 50 critical questions


def baseline_rows(n: int = N) -> list[dict]:
    return [row(q, tier_of(q)) for q in ids(n)]


def dropped(broken: set[str], rows: list[dict] | None = None) -> list[dict]:
    """The same questions with the citation of each `broken` question made invalid."""
    out = []
    for r in rows or baseline_rows():
        if r["question_id"] in broken:
            r = row(r["question_id"], r["risk_tier"], 0.0, ["UNKNOWN_EVIDENCE_ID"])
        out.append(r)
    return out


def write_run(root: Path, run_id: str, rows: list[dict]) -> Path:
    run = root / run_id
    run.mkdir(parents=True)
    manifest = {
        "run_id": run_id, "started_at": "2026-11-30T10:00:00+00:00", "backend": "reference",
        "citeval_version": "0.1.0",
        "dataset": {"path": str(root / "no-dataset"), "questions_sha256": "0" * 64, "registry_sha256": "0" * 64},
    }
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    (run / "per_question.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    validity = sum(r["citation_validity"] for r in rows) / len(rows)
    scores = {"run_id": run_id, "n_questions": len(rows),
              "metrics": {"citation_validity": {"value": validity, "ci": [validity, validity], "n": len(rows)}}}
    (run / "scores.json").write_text(json.dumps(scores), encoding="utf-8")
    return run


def gates(tmp_path: Path, text: str, name: str = "gates.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


SIGNIFICANT = """
[baseline]
citation_validity = { max_drop = 0, significant = true }
"""
STRICT = """
[baseline]
citation_validity = { max_drop = 0 }
"findings.UNKNOWN_EVIDENCE_ID" = { max_increase = 0 }
"""


@pytest.fixture
def runs(tmp_path):
    base = write_run(tmp_path, "main", baseline_rows())
    one = write_run(tmp_path, "one", dropped({"q007"}))
    twenty = write_run(tmp_path, "twenty", dropped({f"q{i:03d}" for i in range(1, 21)}))
    return base, one, twenty


def the(result, rule_id):
    return next(o for o in result.baseline_outcomes if o.rule.rule_id == rule_id)


def test_one_citation_lost_in_200_passes_significant_and_fails_strict(tmp_path, runs):
    base, one, _ = runs
    result = run_gate(one, gates(tmp_path, SIGNIFICANT), baseline=base)
    o = the(result, "baseline.citation_validity")
    # 1 of 200 went 1 → 0, none 0 → 1: delta = −1/200; McNemar p = 2 · C(1,0)/2^1 = 1
    assert o.n == 200 and o.baseline == 1.0 and o.observed == pytest.approx(0.995)
    assert o.delta == pytest.approx(-0.005)
    assert o.p_value == pytest.approx(1.0)
    assert "McNemar" in o.method
    assert o.status == "pass" and "not significant" in o.message
    assert result.exit_code == 0

    strict = run_gate(one, gates(tmp_path, STRICT, "strict.toml"), baseline=base)
    o = the(strict, "baseline.citation_validity")
    assert o.status == "fail" and o.message.startswith("drop 0.005 > allowed 0")
    count = the(strict, "baseline.findings.UNKNOWN_EVIDENCE_ID")
    assert count.status == "fail" and count.baseline == 0 and count.observed == 1 and count.delta == 1
    assert strict.exit_code == 1


def test_twenty_citations_lost_fail_both(tmp_path, runs):
    base, _, twenty = runs
    result = run_gate(twenty, gates(tmp_path, SIGNIFICANT), baseline=base)
    o = the(result, "baseline.citation_validity")
    # 20 went 1 → 0, none back: p = 2 · C(20,0) / 2^20 = 2 / 1048576
    assert o.delta == pytest.approx(-0.1)
    assert o.p_value == pytest.approx(2 / 1048576)
    assert o.status == "fail" and "significant (p = 1.907e-06 < 0.05)" in o.message
    assert o.ci is not None and o.ci[1] < 0 < 0.2 + o.ci[0]  # the whole interval is a loss
    strict = run_gate(twenty, gates(tmp_path, STRICT, "strict.toml"), baseline=base)
    assert the(strict, "baseline.citation_validity").status == "fail"
    assert the(strict, "baseline.findings.UNKNOWN_EVIDENCE_ID").delta == 20
    assert result.exit_code == strict.exit_code == 1


def test_mcnemar_counts_fixes_too_and_alpha_comes_from_the_file(tmp_path):
    base = write_run(tmp_path, "main", dropped({"q001"}))  # q001 broken in the baseline, fixed in the run
    run = write_run(tmp_path, "run", dropped({f"q{i:03d}" for i in range(2, 9)}))  # q002..q008 broken
    # 7 went 1 → 0 and 1 went 0 → 1: p = 2 · (C(8,0) + C(8,1)) / 2^8 = 2 · 9 / 256 = 0.0703125
    at_05 = run_gate(run, gates(tmp_path, SIGNIFICANT), baseline=base)
    o = the(at_05, "baseline.citation_validity")
    assert o.p_value == pytest.approx(0.0703125) and o.delta == pytest.approx(-6 / 200)
    assert o.status == "pass"
    at_10 = run_gate(run, gates(tmp_path, "[baseline]\nalpha = 0.1\nsignificant = true\n"
                                          "citation_validity = { max_drop = 0.01 }\n", "a10.toml"), baseline=base)
    o = the(at_10, "baseline.citation_validity")
    assert o.rule.alpha == 0.1 and o.rule.significant and o.status == "fail"
    # a limit above the observed drop passes whatever the test says
    loose = run_gate(run, gates(tmp_path, "[baseline]\ncitation_validity = { max_drop = 0.05 }\n", "l.toml"),
                     baseline=base)
    assert the(loose, "baseline.citation_validity").status == "pass"


def test_a_fractional_metric_uses_the_paired_permutation_test(tmp_path):
    base = write_run(tmp_path, "main", [row(q, anchor_accuracy=1.0) for q in ids()])
    run = write_run(tmp_path, "run", [row(q, anchor_accuracy=0.5 if q in ("q001", "q002", "q003") else 1.0)
                                      for q in ids()])
    result = run_gate(run, gates(tmp_path, "[baseline]\nanchor_accuracy = { max_drop = 0 }\n"), baseline=base)
    o = the(result, "baseline.anchor_accuracy")
    # three differences of −0.5, the rest 0: of the 2^3 sign patterns only (−,−,−) and (+,+,+)
    # reach |sum| ≥ 1.5, so the exact sign-flip p = 2/8
    assert o.delta == pytest.approx(-1.5 / 200) and o.p_value == pytest.approx(0.25)
    assert "permutation" in o.method and o.status == "fail"


def test_partial_overlap_is_reported_and_too_few_shared_is_a_skip(tmp_path):
    base = write_run(tmp_path, "main", baseline_rows())
    rows = [r for r in dropped({"q007"}) if r["question_id"] not in {f"q{i}" for i in range(191, 201)}]
    rows += [row(f"new{i}") for i in range(1, 6)]
    run = write_run(tmp_path, "run", rows)
    result = run_gate(run, gates(tmp_path, STRICT), baseline=base, junit=tmp_path / "j.xml",
                      summary=tmp_path / "s.md")
    info = result.baseline
    assert info.shared == 190 and info.only_in_run == [f"new{i}" for i in range(1, 6)]
    assert info.only_in_baseline == [f"q{i}" for i in range(191, 201)]
    text = result.to_text()
    assert "baseline main" in text and "190 shared question(s); 5 only in this run: new1, new2" in text
    assert "10 only in the baseline: q191" in text
    assert the(result, "baseline.citation_validity").n == 190
    md = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert "**Against the baseline**" in md and "| Δ [95 % CI] | p |" in md
    assert "| ❌ | `baseline.citation_validity` | 190 | 1.000 | 0.995 | -0.005 [" in md
    root = ET.parse(tmp_path / "j.xml").getroot()
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert "190 shared" in props["baseline"]
    case = next(c for c in root.iter("testcase") if c.get("classname") == "citeval.gate.baseline"
                and c.get("name").startswith("citation_validity"))
    text = case.find("failure").text
    assert "delta: -0.005" in text and "p-value: 1" in text and "McNemar" in text

    few = write_run(tmp_path, "few", baseline_rows(12))
    skipped = run_gate(few, gates(tmp_path, STRICT), baseline=base)
    o = the(skipped, "baseline.citation_validity")
    assert o.status == "skip" and o.message == "too few shared questions to compare: 12 < min_shared 20"
    assert skipped.passed and len(skipped.skipped) == 2  # reported as skipped, not as passed
    lower = gates(tmp_path, "[baseline]\nmin_shared = 10\ncitation_validity = { max_drop = 0 }\n", "m.toml")
    assert the(run_gate(few, lower, baseline=base), "baseline.citation_validity").status == "pass"


def test_tier_rules_pair_only_that_tiers_questions(tmp_path, runs):
    base, _, _ = runs
    run = write_run(tmp_path, "crit", dropped({"q151", "q152"}))
    config = gates(tmp_path, """
[baseline]
significant = true
citation_validity = { max_drop = 0.02 }
[baseline.tier.critical]
significant = false
citation_validity = { max_drop = 0.02 }
[baseline.tier.policy]
citation_validity = { max_drop = 0 }
""")
    result = run_gate(run, config, baseline=base)
    overall = the(result, "baseline.citation_validity")
    critical = the(result, "baseline.tier.critical.citation_validity")
    policy = the(result, "baseline.tier.policy.citation_validity")
    assert overall.n == 200 and overall.delta == pytest.approx(-0.01) and overall.status == "pass"
    assert critical.n == 50 and critical.delta == pytest.approx(-0.04) and not critical.rule.significant
    assert critical.status == "fail"
    assert policy.n == 150 and policy.delta == 0 and policy.status == "pass"


def test_baseline_rules_without_a_baseline_are_skipped_with_the_reason(tmp_path, runs):
    _, one, _ = runs
    result = run_gate(one, gates(tmp_path, SIGNIFICANT))
    o = the(result, "baseline.citation_validity")
    assert o.status == "skip" and "--baseline" in o.message


@pytest.mark.parametrize(
    ("text", "line", "key", "fragment"),
    [
        ("[baseline]\ncitation_validity = { max_drop = 0.02, signficant = true }\n", 2,
         "baseline.citation_validity", "unknown option 'signficant'"),
        ("[baseline]\nerror_rate = { max_drop = 0.01 }\n", 2, "baseline.error_rate", "use max_increase"),
        ('[baseline]\n"findings.QUOTE_NOT_FOUND" = { max_drop = 0 }\n', 2,
         "baseline.findings.QUOTE_NOT_FOUND", "use max_increase"),
        ("[baseline]\ncitation_validity = { max_increase = 0.01 }\n", 2, "baseline.citation_validity",
         "use max_drop"),
        ("[baseline]\ncitation_validity = { max_drop = -0.1 }\n", 2, "baseline.citation_validity", "≥ 0"),
        ("[baseline]\ncitation_validity = { significant = true }\n", 2, "baseline.citation_validity",
         "needs max_drop or max_increase"),
        ("[baseline]\nalpha = 1.5\ncitation_validity = { max_drop = 0 }\n", 2, "baseline.alpha", "alpha must be <"),
        ('[baseline]\nsignificant = "yes"\ncitation_validity = { max_drop = 0 }\n', 2, "baseline.significant",
         "true or false"),
        ("[baseline.tier.faq]\ncitation_validity = { max_drop = 0 }\n", 1, "baseline.tier.faq", "unknown risk tier"),
        ("[baseline.tier.critical]\nalpha = 0.1\n", 2, "baseline.tier.critical.alpha", "unknown metric 'alpha'"),
        ("[baseline]\ncitation_validty = { max_drop = 0 }\n", 2, "baseline.citation_validty", "unknown metric"),
    ],
)
def test_bad_baseline_section_names_file_line_and_key(tmp_path, text, line, key, fragment):
    path = gates(tmp_path, text)
    with pytest.raises(DataError) as info:
        load_gates(path)
    err = info.value
    assert (err.path, err.line, err.field) == (str(path), line, key), str(err)
    assert fragment in str(err)


def test_pass_rate_rule_uses_the_question_pass_definition(tmp_path, runs):
    base, _, twenty = runs
    result = run_gate(twenty, gates(tmp_path, "[baseline]\npass_rate = { max_drop = 0.05, significant = true }\n"),
                      baseline=base)
    o = the(result, "baseline.pass_rate")
    # the 20 broken questions carry a finding, so they no longer pass: 1.0 → 0.9
    assert o.baseline == 1.0 and o.observed == pytest.approx(0.9) and o.status == "fail"


def test_cli_gate_with_baseline_folder(tmp_path, runs):
    base, one, twenty = runs
    config = gates(tmp_path, SIGNIFICANT)
    runner = CliRunner()
    ok = runner.invoke(app, ["gate", str(one), "--gates", str(config), "--baseline", str(base)])
    assert ok.exit_code == 0, ok.output
    assert "200 shared question(s)" in ok.output and "gate passed: 0 of 1 rule(s) failed" in ok.output
    bad = runner.invoke(app, ["gate", str(twenty), "--gates", str(config), "--baseline", str(base),
                              "--format", "json"])
    assert bad.exit_code == 1
    doc = json.loads(bad.stdout)
    assert doc["baseline"]["shared_questions"] == 200
    assert doc["baseline_outcomes"][0]["p_value"] == pytest.approx(2 / 1048576)
    missing = runner.invoke(app, ["gate", str(one), "--gates", str(config), "--baseline", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "baseline not found" in missing.output


def test_a_baseline_without_baseline_rules_is_noted_and_long_id_lists_are_cut(tmp_path):
    base = write_run(tmp_path, "main", baseline_rows())
    run = write_run(tmp_path, "run", baseline_rows(150))  # q151..q200 only in the baseline
    result = run_gate(run, gates(tmp_path, "[overall]\ncitation_validity = { min = 0.9 }\n"), baseline=base)
    assert result.baseline_outcomes == [] and result.passed
    assert any("has no [baseline] rule" in n for n in result.notes)
    text = result.to_text()
    assert "50 only in the baseline: q151, q152" in text and "q160, … (40 more)" in text
