"""The one metric table (evals.contract.metrics) and the one findings table (evals.contract.findings):
what scores.json and findings.jsonl hold, which way is better, and that every function the tables
name exists, computes the metric or emits the code."""

from __future__ import annotations

import inspect
import json
import re
import sys
from pathlib import Path

import pytest
from factories import write_dataset, write_replay

from evals.contract.findings import BY_CODE, FINDING_CODES, FINDING_DESCRIPTIONS, FINDINGS, SEVERITIES
from evals.contract.metrics import (
    BY_NAME,
    LOWER_IS_BETTER,
    METRIC_NAMES,
    METRICS,
    PER_ANSWER_METRICS,
    RUN_LEVEL_METRICS,
    metric,
)
from evals.contract.models import Answer, Finding
from evals.contract.qualname import resolve
from evals.errors import DataError
from evals.gate.config import load_gates
from evals.report.compare import Comparison
from evals.report.stats import PairedTest
from evals.run.runner import start_run
from evals.score.scoring import score_run

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "demo_scores.json"

# DESIGN 4, in its order
DESIGN_CODES = [
    "UNKNOWN_EVIDENCE_ID", "UNRESOLVED_CHUNK", "CHUNK_TEXT_MISMATCH", "ACCESS_DENIED", "VERSION_SUPERSEDED",
    "VERSION_REVOKED", "VERSION_DELETED", "VERSION_NOT_YET_EFFECTIVE", "LINK_NOT_FROM_REGISTRY",
    "LINK_VERSION_REDIRECT", "LINK_LEAKS_TEXT", "LINK_UNSAFE_SCHEME", "QUOTE_NOT_FOUND", "QUOTE_OUTSIDE_ANCHOR",
    "NUMBER_UNSUPPORTED", "CLAIM_UNCITED", "ANCHOR_MISMATCH", "SHOULD_HAVE_ABSTAINED", "UNNEEDED_ABSTENTION",
    "BACKEND_ERROR", "ANSWER_TRUNCATED", "KEY_FACT_MISSING", "GOLD_EVIDENCE_NOT_CITED",
]


# --- metrics -------------------------------------------------------------------------------


def test_the_table_lists_the_metrics_of_scores_json_in_their_order():
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))  # written before the table existed
    assert list(METRIC_NAMES) == list(golden["metrics"])
    assert len(set(METRIC_NAMES)) == len(METRICS) == 15


def test_only_error_rate_is_better_lower_and_only_abstention_is_a_run_level_ratio():
    assert LOWER_IS_BETTER == {"error_rate"}
    assert RUN_LEVEL_METRICS == ("abstention_precision", "abstention_recall", "abstention_f1")
    assert PER_ANSWER_METRICS == tuple(n for n in METRIC_NAMES if not n.startswith("abstention_"))
    assert metric("error_rate").lower_is_better and not metric("citation_validity").lower_is_better
    with pytest.raises(KeyError, match="unknown metric 'citation_validty'"):
        metric("citation_validty")


def test_every_entry_reads_as_one_line_of_a_markdown_table():
    for m in METRICS:
        for text in (m.unit, m.description):
            assert text.strip() and "\n" not in text and "|" not in text, (m.name, text)
        assert m.better in ("higher", "lower") and m.aggregation in ("mean", "ratio")


def test_every_metric_names_a_function_of_the_score_stage():
    for m in METRICS:
        fn = m.function()
        assert callable(fn), m.name
        assert fn.__module__ == "evals.score.metrics", m.computed_by
        assert f"{fn.__module__}.{fn.__qualname__}" == m.computed_by


def test_the_named_functions_compute_their_metric():
    error_rate = metric("error_rate").function()
    assert error_rate(Answer(question_id="q", status="error")).value == 1.0
    assert error_rate(Answer(question_id="q", status="answered")).value == 0.0
    # 2 of 3 abstentions were due (precision 2/3), 2 of 4 refusals gold asks for were given (recall 1/2)
    pairs = [(True, True), (True, True), (True, False), (False, True), (False, True), (False, False)]
    out = metric("abstention_f1").function()(pairs)
    assert [out[n]["value"] for n in RUN_LEVEL_METRICS] == [round(2 / 3, 6), 0.5, round(4 / 7, 6)]


def test_a_scored_run_writes_every_per_answer_metric_per_question_and_all_in_scores(tmp_path):
    dataset = write_dataset(tmp_path / "ds")
    replay = write_replay(tmp_path / "answers.jsonl")
    run = start_run(dataset, f"replay:{replay}", out=tmp_path / "runs", run_id="r").run_dir
    score_run(run, judge="none")
    scores = json.loads((run / "scores.json").read_text(encoding="utf-8"))
    assert list(scores["metrics"]) == list(METRIC_NAMES)
    rows = [json.loads(line) for line in (run / "per_question.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3
    for row in rows:
        assert set(PER_ANSWER_METRICS) <= set(row), row["question_id"]
        assert not set(RUN_LEVEL_METRICS) & set(row)


def test_gates_accept_every_metric_of_the_table_and_name_them_in_order_for_a_typo(tmp_path):
    every = tmp_path / "every.toml"
    every.write_text("[overall]\n" + "".join(f"{n} = {{ min = 0 }}\n" for n in METRIC_NAMES), encoding="utf-8")
    assert [r.key for r in load_gates(every).rules] == list(METRIC_NAMES)
    typo = tmp_path / "typo.toml"
    typo.write_text("[overall]\nerror_rat = { max = 0 }\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_gates(typo)
    assert ("unknown metric 'error_rat' (known: citation_validity, citation_correctness, citation_completeness, "
            "anchor_accuracy, version_correctness, faithfulness, context_support, quote_exactness, number_support, "
            "key_fact_recall, gold_evidence_recall, error_rate, abstention_precision, abstention_recall, "
            "abstention_f1, or findings.<CODE>)") in str(caught.value)


def test_compare_reads_the_direction_from_the_table():
    rise = PairedTest(n=50, a=0.1, b=0.3, delta=0.2, ci=(0.1, 0.3), p_value=0.001, method="test")
    comparison = Comparison(run_a=None, run_b=None, shared=[], only_a=0, only_b=0, passes=None,  # type: ignore[arg-type]
                            metrics=dict.fromkeys(METRIC_NAMES, rise))
    # a significant rise is a regression only for the rate of errors
    assert {n: comparison.verdict(n) for n in METRIC_NAMES} == {
        n: "worse" if n == "error_rate" else "better" for n in METRIC_NAMES
    }


# --- findings ------------------------------------------------------------------------------


def test_the_findings_table_holds_the_codes_of_design_4_with_their_descriptions():
    assert list(FINDING_CODES) == DESIGN_CODES
    assert FINDING_DESCRIPTIONS["UNKNOWN_EVIDENCE_ID"] == "marker names no evidence the model was given"
    assert FINDING_DESCRIPTIONS["LINK_LEAKS_TEXT"] == "link carries the cited text"
    assert FINDING_DESCRIPTIONS["GOLD_EVIDENCE_NOT_CITED"] == "a gold evidence item no valid marker reaches"
    assert all(f.description.strip() and "|" not in f.description for f in FINDINGS)
    assert Finding(question_id="q", code="CLAIM_UNCITED").code == "CLAIM_UNCITED"
    with pytest.raises(ValueError, match="unknown finding code 'CLAIM_UNCITD'"):
        Finding(question_id="q", code="CLAIM_UNCITD")


def test_every_code_names_checks_that_emit_it():
    for finding in FINDINGS:
        assert finding.emitted_by, finding.code
        for name, check in zip(finding.emitted_by, finding.emitters(), strict=True):
            assert callable(check), name
            # the check's own source spells the code (as text or as a constant of that name)
            assert re.search(rf"\b{finding.code}\b", inspect.getsource(check)), (finding.code, name)


def test_severity_follows_the_default_gates():
    gates = tomllib.loads((ROOT / "evals" / "gate" / "default.toml").read_text(encoding="utf-8"))

    def forbidden(table: dict) -> set[str]:
        return {k.removeprefix("findings.") for k, v in table.items() if k.startswith("findings.") and v == {"max": 0}}

    everywhere = forbidden(gates["overall"])
    in_a_tier = set().union(*(forbidden(t) for t in gates["tier"].values()))
    assert everywhere == {"ACCESS_DENIED", "LINK_UNSAFE_SCHEME", "LINK_LEAKS_TEXT", "VERSION_DELETED",
                          "CHUNK_TEXT_MISMATCH"}
    assert {c for c in everywhere if BY_CODE[c].severity != "error"} == set()
    assert {c for c in in_a_tier if BY_CODE[c].severity == "info"} == set()
    assert {f.severity for f in FINDINGS} == set(SEVERITIES)
    assert [f.code for f in FINDINGS if f.severity == "info"] == ["KEY_FACT_MISSING", "GOLD_EVIDENCE_NOT_CITED"]


def test_resolve_names_what_exists_and_refuses_what_does_not():
    assert resolve("evals.score.checks.EvidenceChecker.check").__name__ == "check"
    assert BY_NAME["citation_validity"].function() is resolve("evals.score.metrics.citation_validity")
    with pytest.raises(AttributeError):
        resolve("evals.score.metrics.no_such_metric")
    with pytest.raises(ImportError):
        resolve("no_such_package.module.function")
