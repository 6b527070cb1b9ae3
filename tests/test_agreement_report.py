"""From judgments to agreement.json: units, raters, later-label-wins, adjudication, the CLI."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from evals.agreement.io import adjudicate, agree, read_judgments
from evals.agreement.report import compute_agreement
from evals.agreement.table import agreement_table
from evals.contract.models import Judgment
from evals.errors import DataError

T0 = "2025-03-01T10:00:00Z"
T1 = "2025-03-02T10:00:00Z"


def row(qid: str, source: str, field: str, value: str, claim: str | None = None, evidence: str | None = None,
        at: str = T0, run_id: str = "run-1") -> dict[str, Any]:
    out: dict[str, Any] = {"run_id": run_id, "question_id": qid, "source": source, "field": field, "value": value,
                           "at": at}
    if claim is not None:
        out["claim_id"] = claim
    if evidence is not None:
        out["evidence_id"] = evidence
    return out


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def two_rater_rows() -> list[dict[str, Any]]:
    """should_abstain on ten answers by anna and boris, plus noise the statistics must ignore.

    Worked by hand (rows anna, columns boris): yes/yes 2, yes/no 1, no/yes 1, no/no 6.
    p_o = 0.8; each rater says yes 3 times in 10, so p_e = 0.3² + 0.7² = 0.58 and
    κ = (0.8 − 0.58) / 0.42 = 0.5238. Krippendorff: 20 pairable values, 6 yes and 14 no,
    4 disagreeing ordered pairs: α = 1 − 19 · 4 / (2 · 6 · 14) = 0.5476. AC1 (Gwet 2014):
    prevalence counts every labelled unit, q11 included, so π_yes = (1 + 1 + ½ + ½) / 11
    = 3/11, p_e = 2 · 3/11 · 8/11 = 48/121, AC1 = (0.8 − 48/121) / (73/121) = 48.8/73 = 0.6685.
    """
    pairs = [("yes", "yes")] * 2 + [("no", "no")] * 6 + [("yes", "no"), ("no", "yes")]
    rows = []
    for i, (a, b) in enumerate(pairs, 1):
        rows.append(row(f"q{i}", "human:anna", "should_abstain", a))
        rows.append(row(f"q{i}", "human:boris", "should_abstain", b))
        rows.append(row(f"q{i}", "auto:offline", "should_abstain", "yes"))  # judges are not raters
    # boris first said "no" on q1, then corrected himself: the later row wins.
    rows.insert(0, row("q1", "human:boris", "should_abstain", "no", at="2025-02-01T00:00:00Z"))
    # anna labelled q11 alone: a unit, but not pairable.
    rows.append(row("q11", "human:anna", "should_abstain", "no"))
    return rows


def judgments(rows: list[dict[str, Any]]) -> list[Judgment]:
    return [Judgment.model_validate(r) for r in rows]


# --- tables --------------------------------------------------------------------------


def test_units_are_keyed_per_field_and_later_labels_win():
    rows = [
        row("q1", "human:anna", "support", "supported", "c1", "E1"),
        row("q1", "human:anna", "support", "partial", "c1", "E2"),
        row("q1", "human:boris", "support", "partial", "c1", "E1", at=T1),
        row("q1", "human:boris", "support", "supported", "c1", "E1", at=T0),  # older, though later in the file
        row("q1", "human:anna", "significant", "yes", "c1", "E1"),  # evidence_id is not part of this unit
        row("q1", "human:anna", "significant", "no", "c1"),  # same `at`: the later row wins
        row("q1", "adjudicated", "support", "partial", "c1", "E1"),
        row("q1", "auto:nli", "support", "unsupported", "c1", "E1"),
    ]
    support = agreement_table(judgments(rows), "support")
    assert support.raters == ["human:anna", "human:boris"]
    assert [tuple(u) for u in support.units] == [("q1", "c1", "E1"), ("q1", "c1", "E2")]
    assert support.rows == [["supported", "partial"], ["partial", None]]
    assert support.adjudicated == {support.units[0]: "partial"}
    significant = agreement_table(judgments(rows), "significant")
    assert [tuple(u) for u in significant.units] == [("q1", "c1", None)]
    assert significant.rows == [["no"]]


def test_two_raters_by_hand():
    report = compute_agreement(judgments(two_rater_rows()), n_resamples=300)
    fa = report.fields["should_abstain"]
    assert (fa.n_units, fa.n_pairable, fa.raters) == (11, 10, ["human:anna", "human:boris"])
    assert fa.percent_agreement.value == pytest.approx(0.8)
    assert round(fa.cohen_kappa.value, 4) == 0.5238
    assert round(fa.krippendorff_alpha.value, 4) == 0.5476
    assert round(fa.gwet_ac1.value, 4) == 0.6685
    assert fa.fleiss_kappa is None
    assert fa.confusion == [[2, 1], [1, 6]]  # categories (yes, no); rows anna, columns boris
    assert fa.rater_counts == {"human:anna": {"yes": 3, "no": 8}, "human:boris": {"yes": 3, "no": 7}}
    assert [(d.unit.question_id, d.labels) for d in fa.disagreements] == [
        ("q9", {"human:anna": "yes", "human:boris": "no"}),
        ("q10", {"human:anna": "no", "human:boris": "yes"}),
    ]
    lo, hi = fa.cohen_kappa.ci
    assert lo < fa.cohen_kappa.value < hi


def test_agreement_json_shape_has_every_field_and_no_nan():
    rows = two_rater_rows() + [
        row("q1", "human:anna", "support", "supported", "c1", "E1"),
        row("q1", "human:boris", "support", "cannot_judge", "c1", "E1"),
        row("q2", "human:anna", "support", "partial", "c1", "E1"),
        row("q2", "human:boris", "support", "partial", "c1", "E1"),
    ]
    doc = compute_agreement(judgments(rows), n_resamples=200).to_json()
    text = json.dumps(doc, allow_nan=False)  # raises on NaN or infinity
    assert "NaN" not in text
    assert set(doc) >= {"fields", "judge_agreement"} and doc["judge_agreement"] == {}
    assert list(doc["fields"]) == ["support", "anchor", "significant", "should_abstain", "version_ok"]
    for field in doc["fields"].values():
        assert {"n_units", "raters", "percent_agreement", "cohen_kappa", "krippendorff_alpha", "gwet_ac1"} <= set(field)
        for name in ("percent_agreement", "cohen_kappa", "krippendorff_alpha", "gwet_ac1"):
            stat = field[name]
            assert "value" in stat and "ci" in stat
            if stat["value"] is None:
                assert stat["reason"] and stat["ci"] is None
    anchor = doc["fields"]["anchor"]
    assert anchor["n_units"] == 0 and anchor["cohen_kappa"]["reason"] == "no human labels for this field"
    support = doc["fields"]["support"]
    assert support["krippendorff_alpha"]["level"] == "nominal"
    # cannot_judge is missing on the ordinal scale: only q2 (partial, partial) is pairable
    # there, one category, so ordinal alpha is undefined.
    ordinal = support["krippendorff_alpha_ordinal"]
    assert ordinal["missing"] == ["cannot_judge"] and ordinal["n"] == 1
    assert ordinal["value"] is None and "expected disagreement is 0" in ordinal["reason"]


def test_three_raters_get_fleiss_and_no_cohen():
    rows = []
    labels = [("yes", "yes", "yes"), ("no", "no", "yes"), ("no", "no", "no"), ("yes", "no", None)]
    for i, triple in enumerate(labels, 1):
        for rater, value in zip(("anna", "boris", "vera"), triple, strict=True):
            if value is not None:
                rows.append(row(f"q{i}", f"human:{rater}", "version_ok", value))
    fa = compute_agreement(judgments(rows), n_resamples=100).fields["version_ok"]
    assert fa.raters == ["human:anna", "human:boris", "human:vera"]
    assert fa.cohen_kappa.value is None and "exactly two raters" in fa.cohen_kappa.reason
    assert fa.fleiss_kappa is not None and fa.confusion is None
    # Pair agreement per unit: 1, 1/3, 1, 0 → percent agreement 7/12.
    assert fa.percent_agreement.value == pytest.approx(7 / 12)


# --- reading -------------------------------------------------------------------------


def test_human_label_without_its_unit_ids_is_a_data_error(tmp_path):
    path = write_jsonl(tmp_path / "judgments.jsonl", [
        row("q1", "human:anna", "should_abstain", "yes"),
        row("q1", "human:anna", "support", "supported", "c1"),  # no evidence_id
    ])
    with pytest.raises(DataError) as info:
        read_judgments(path)
    assert info.value.line == 2 and info.value.field == "evidence_id"


# --- adjudication --------------------------------------------------------------------


def make_run(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / "run-7"
    write_jsonl(run / "judgments.jsonl", two_rater_rows())
    (run / "manifest.json").write_text(json.dumps({"run_id": "run-7"}), encoding="utf-8")
    return run


def test_adjudication_appends_once(tmp_path):
    run = make_run(tmp_path)
    resolved = write_jsonl(tmp_path / "resolved.jsonl", [
        {"question_id": "q9", "field": "should_abstain", "value": "yes", "comment": "the policy forbids it"},
        {"question_id": "q10", "field": "should_abstain", "value": "no"},
    ])
    before = (run / "judgments.jsonl").read_text(encoding="utf-8")
    at = datetime(2025, 4, 1, tzinfo=timezone.utc)
    first = adjudicate(run, resolved, at=at)
    assert (first.added, first.unchanged) == (2, 0)
    text = (run / "judgments.jsonl").read_text(encoding="utf-8")
    assert text.startswith(before)
    added = [json.loads(line) for line in text.splitlines()[-2:]]
    assert added[0] == {"run_id": "run-7", "question_id": "q9", "source": "adjudicated", "field": "should_abstain",
                        "value": "yes", "comment": "the policy forbids it", "at": "2025-04-01T00:00:00+00:00"}
    second = adjudicate(run, resolved)
    assert (second.added, second.unchanged) == (0, 2)
    assert (run / "judgments.jsonl").read_text(encoding="utf-8") == text
    # adjudicated labels are not a rater: the statistics are unchanged, the disagreements carry them
    fa = compute_agreement(read_judgments(run / "judgments.jsonl"), n_resamples=50).fields["should_abstain"]
    assert fa.raters == ["human:anna", "human:boris"]
    assert [d.adjudicated for d in fa.disagreements] == ["yes", "no"]


def test_adjudication_file_is_checked_before_anything_is_written(tmp_path):
    run = make_run(tmp_path)
    before = (run / "judgments.jsonl").read_text(encoding="utf-8")
    bad = [
        ([{"question_id": "q9", "field": "should_abstain", "value": "yes"},
          {"question_id": "q1", "field": "support", "value": "supported", "claim_id": "c1"}], 2, "evidence_id"),
        ([{"question_id": "q9", "field": "should_abstain", "value": "maybe"}], 1, "maybe"),
        ([{"question_id": "q9", "field": "should_abstain", "value": "yes"},
          {"question_id": "q9", "field": "should_abstain", "value": "no"}], 2, "already resolved"),
        ([{"question_id": "q9", "field": "version_ok", "value": "yes", "claim_id": "c1"}], 1, "drop claim_id"),
    ]
    for lines, lineno, message in bad:
        resolved = write_jsonl(tmp_path / "resolved.jsonl", lines)
        with pytest.raises(DataError, match=message) as info:
            adjudicate(run, resolved)
        assert info.value.line == lineno
    assert (run / "judgments.jsonl").read_text(encoding="utf-8") == before


def test_disagreements_carry_question_and_claim_text(tmp_path):
    run = tmp_path / "runs" / "run-9"
    dataset = tmp_path / "dataset"
    write_jsonl(dataset / "questions.jsonl", [{"question_id": "q1", "question": "Как часто проходить обучение?"}])
    (run).mkdir(parents=True)
    (run / "manifest.json").write_text(json.dumps({"run_id": "run-9", "dataset": {"path": str(dataset)}}))
    write_jsonl(run / "answers.jsonl", [{"question_id": "q1", "status": "answered", "answer_text": "…",
                                         "claims": [{"claim_id": "c1", "text": "Раз в 12 месяцев.",
                                                     "evidence_ids": ["E1"]}]}])
    write_jsonl(run / "judgments.jsonl", [
        row("q1", "human:anna", "support", "supported", "c1", "E1"),
        row("q1", "human:boris", "support", "partial", "c1", "E1"),
    ])
    result = agree(run, n_resamples=20)
    [entry] = json.loads((run / "agreement.json").read_text(encoding="utf-8"))["fields"]["support"]["disagreements"]
    assert entry == {"question_id": "q1", "claim_id": "c1", "evidence_id": "E1",
                     "question": "Как часто проходить обучение?", "claim": "Раз в 12 месяцев.",
                     "labels": {"human:anna": "supported", "human:boris": "partial"}}
    assert "Раз в 12 месяцев." in result.to_text()


def test_judge_agreement_written_by_another_stage_is_kept(tmp_path):
    run = make_run(tmp_path)
    (run / "agreement.json").write_text(json.dumps({"fields": {}, "judge_agreement": {"auto:nli": {"n": 3}}}))
    result = agree(run, n_resamples=50)
    assert result.written == [run / "agreement.json"]
    assert json.loads((run / "agreement.json").read_text())["judge_agreement"] == {"auto:nli": {"n": 3}}


# --- CLI -----------------------------------------------------------------------------


@pytest.fixture()
def runner() -> CliRunner:
    return CliRunner()


def invoke(runner: CliRunner, *args: str):
    from cli import app

    return runner.invoke(app, ["agree", *args])


def test_cli_agree_on_a_judgments_file_prints_and_writes_nothing(tmp_path, runner):
    path = write_jsonl(tmp_path / "labels" / "judgments.jsonl", two_rater_rows())
    result = invoke(runner, str(path), "--resamples", "300")
    assert result.exit_code == 0, result.output
    out = result.output
    assert "should_abstain" in out and "0.800" in out and "0.524" in out and "0.548" in out and "0.668" in out
    assert "2 disagreement(s) to adjudicate" in out and "q10" in out
    assert sorted(p.name for p in path.parent.iterdir()) == ["judgments.jsonl"]

    result = invoke(runner, str(path), "--format", "json", "--resamples", "300")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    stats = doc["fields"]["should_abstain"]
    assert stats["n_units"] == 11 and stats["raters"] == ["human:anna", "human:boris"]
    assert stats["percent_agreement"]["value"] == pytest.approx(0.8)
    assert stats["cohen_kappa"]["value"] == pytest.approx(0.22 / 0.42, abs=1e-6)
    assert stats["krippendorff_alpha"]["value"] == pytest.approx(1 - 19 * 4 / 168, abs=1e-6)
    assert stats["gwet_ac1"]["value"] == pytest.approx(48.8 / 73, abs=1e-6)
    assert doc["written"] == []

    out_file = tmp_path / "agreement-copy.json"
    result = invoke(runner, str(path), "--out", str(out_file), "--resamples", "100")
    assert result.exit_code == 0, result.output
    assert json.loads(out_file.read_text())["fields"]["should_abstain"]["n_pairable"] == 10


def test_cli_agree_on_a_run_writes_agreement_json_and_adjudicates(tmp_path, runner):
    run = make_run(tmp_path)
    resolved = write_jsonl(tmp_path / "resolved.jsonl", [{"question_id": "q9", "field": "should_abstain",
                                                          "value": "yes"}])
    result = invoke(runner, str(run), "--adjudicate", str(resolved), "--resamples", "200")
    assert result.exit_code == 0, result.output
    assert "1 label(s) added" in result.output
    doc = json.loads((run / "agreement.json").read_text(encoding="utf-8"))
    assert doc["fields"]["should_abstain"]["disagreements"][0]["adjudicated"] == "yes"
    assert doc["fields"]["should_abstain"]["cohen_kappa"]["ci"] is not None
    assert not list(run.glob("*.tmp"))
    again = invoke(runner, str(run), "--adjudicate", str(resolved), "--resamples", "200")
    assert "0 label(s) added" in again.output


def test_cli_bad_input_exits_2_with_file_and_line(tmp_path, runner):
    path = tmp_path / "judgments.jsonl"
    path.write_text(json.dumps(row("q1", "human:anna", "should_abstain", "yes")) + "\n{not json\n", encoding="utf-8")
    result = invoke(runner, str(path))
    assert result.exit_code == 2
    assert f"{path}:2" in result.output and "Traceback" not in result.output
    missing = invoke(runner, str(tmp_path / "nope"))
    assert missing.exit_code == 2 and "not found" in missing.output
    no_resamples = invoke(runner, str(path), "--resamples", "0")
    assert no_resamples.exit_code == 2 and "Traceback" not in no_resamples.output
