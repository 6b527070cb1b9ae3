"""The demo's second system (datasets/demo/answers/second_system.jsonl): the file is what its
script writes, and on the demo it is told apart from the reference backend by the metrics that
read gold (non-overlapping intervals), with each recorded fault showing as its finding."""

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

from evals.run.runner import start_run
from evals.score.scoring import score_run

DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo"
SECOND = DEMO / "answers" / "second_system.jsonl"


def test_the_recorded_file_is_what_its_script_writes():
    spec = importlib.util.spec_from_file_location("make_second_system", SECOND.with_name("make_second_system.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    recorded = [json.loads(line) for line in SECOND.read_text(encoding="utf-8").splitlines()]
    assert module.build(DEMO) == recorded


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    found = {}
    for name, backend in (("reference", "reference"), ("second", f"replay:{SECOND}")):
        run = start_run(DEMO, backend, out=out, run_id=name).run_dir
        found[name] = (run, score_run(run, judge="none").scores)
    return found


@pytest.mark.parametrize("metric", ["key_fact_recall", "gold_evidence_recall"])
def test_new_metrics_tell_the_two_systems_apart(runs, metric):
    reference, second = runs["reference"][1].metrics[metric], runs["second"][1].metrics[metric]
    assert reference.ci[1] < second.ci[0], (reference.cell(), second.cell())


def test_each_recorded_fault_shows_as_its_finding(runs):
    run, scores = runs["second"]
    variants = {}
    for line in SECOND.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        variants.setdefault(row["raw"]["variant"], row["question_id"])
    findings = [json.loads(line) for line in (run / "findings.jsonl").read_text(encoding="utf-8").splitlines()]
    codes = {}
    for f in findings:
        codes.setdefault(f["question_id"], Counter())[f["code"]] += 1
    rows = {json.loads(x)["question_id"]: json.loads(x) for x in (run / "per_question.jsonl").read_text().splitlines()}
    off_topic = variants["wrong_document"]  # q-p1-003: a complaints-procedure passage for a test-threshold question
    assert (rows[off_topic]["key_fact_recall"], rows[off_topic]["gold_evidence_recall"]) == (0.0, 0.0)
    assert rows[off_topic]["citation_validity"] == 1.0  # the citation itself is fine
    assert {"KEY_FACT_MISSING", "GOLD_EVIDENCE_NOT_CITED"} <= set(codes[off_topic])
    wrong_page = [f for f in findings if f["question_id"] == variants["wrong_page"] and f["code"] == "ANCHOR_MISMATCH"]
    assert wrong_page and " p. " in wrong_page[0]["detail"] and "gold anchor:" in wrong_page[0]["detail"]
    assert "ANCHOR_MISMATCH" in codes[variants["page_typo"]]
    assert "VERSION_SUPERSEDED" in codes[variants["superseded"]]
    assert "VERSION_SUPERSEDED" not in codes.get(variants["superseded_stale"], Counter())  # it says so
    assert "CLAIM_UNCITED" in codes[variants["lead_in"]]
    assert "QUOTE_NOT_FOUND" in codes[variants["misquote"]]
    assert "KEY_FACT_MISSING" in codes[variants["vague"]]
    assert "SHOULD_HAVE_ABSTAINED" in codes[variants["answered_instead_of_refusing"]]
    assert codes[variants["timeout"]] == Counter({"BACKEND_ERROR": 1})
    # q-p2-062 says «не позднее десяти рабочих дней»: the fact "10 рабочих дней" is read as stated
    spoken = [f["detail"] for f in findings if f["question_id"] == variants["words"] and f["code"] == "KEY_FACT_MISSING"]
    assert variants["words"] == "q-p2-062" and not any("10 рабочих дней" in d for d in spoken)
