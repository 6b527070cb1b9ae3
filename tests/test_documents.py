"""The hand-built documents as typed models (issue 27): agreement.json, probe.json and quotes.json
are built by their stage as contract models, written through the store and read back through
the model — their JSON keeps the keys, the order and the unknown fields it was given."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evals.agreement.io import agree
from evals.contract.agreement import AgreementDocument
from evals.contract.ordered import OrderedRecord, RateEntry
from evals.contract.probe import ProbeDocument
from evals.contract.quotes import QuotesDocument
from evals.errors import DataError, UsageError
from evals.quotes.evaluate import evaluate_path
from evals.report.quotes import load_quote_section
from evals.store.atomic import CRASH_ENV, CRASH_MODE_ENV, SimulatedCrash, make_folder_with
from evals.store.jsonl import read_document
from evals.store.runfolder import RunFolder

ROOT = Path(__file__).resolve().parent.parent


def test_a_record_writes_back_the_keys_it_was_given_in_that_order() -> None:
    given = {"value": 0.5, "n": 4, "ci": [0.25, 0.75], "team_note": "kept"}
    entry = RateEntry.model_validate(given)
    assert list(entry.to_json()) == ["value", "n", "ci", "team_note"]  # not the declared value, ci, n
    assert entry.to_json() == given and entry.reason is None  # a field left at its default is not written
    entry.reason = "set later"
    assert list(entry.to_json()) == ["value", "n", "ci", "team_note", "reason"]

    class Outer(OrderedRecord):
        rate: RateEntry
        label: str = "x"

    built = Outer(label="y", rate=RateEntry(value=1.0, n=2))
    assert json.dumps(built.to_json()) == '{"label": "y", "rate": {"value": 1.0, "n": 2}}'


def _support(q: str, c: str, source: str, value: str) -> dict[str, Any]:
    return {"run_id": "r", "question_id": q, "claim_id": c, "evidence_id": "E1", "source": source,
            "field": "support", "value": value, "at": "2025-03-01T10:00:00Z"}


def test_agreement_json_is_read_back_through_its_model(tmp_path: Path) -> None:
    run = tmp_path / "r"
    run.mkdir()
    # anna and boris on four pairs, agreeing on three: percent agreement 3/4
    labels = [("q1", "c1", "supported", "supported"), ("q1", "c2", "unsupported", "unsupported"),
              ("q2", "c1", "supported", "partial"), ("q2", "c2", "supported", "supported")]
    rows = [row for q, c, a, b in labels for row in (_support(q, c, "human:anna", a), _support(q, c, "human:boris", b))]
    (run / "judgments.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    # what a judge-evaluation stage wrote earlier, with a key of its own: kept through agree's rewrite
    earlier = {"auto:x": {"n": 3, "n_questions": 2, "accuracy": {"value": 1.0, "reason": None, "ci": None},
                          "team_note": "calibrated in May"}}
    (run / "agreement.json").write_text(json.dumps({"fields": {}, "judge_agreement": earlier}), encoding="utf-8")
    agree(run, n_resamples=50)

    document = RunFolder(run).agreement
    assert isinstance(document, AgreementDocument)
    support = document.fields["support"]
    assert support.n_units == 4 and support.raters == ["human:anna", "human:boris"]
    assert support.percent_agreement.value == pytest.approx(0.75)
    assert support.krippendorff_alpha.level == "nominal" and support.confusion is not None
    assert [d.question_id for d in support.disagreements] == ["q2"]
    assert json.loads((run / "agreement.json").read_text(encoding="utf-8"))["judge_agreement"] == earlier
    # the model writes the file's own bytes back
    text = (run / "agreement.json").read_text(encoding="utf-8")
    assert json.dumps(document.to_json(), ensure_ascii=False, indent=2) + "\n" == text

    (run / "agreement.json").write_text('{"fields": [1, 2]}', encoding="utf-8")
    with pytest.raises(DataError, match="not an agreement.json"):
        RunFolder(run).agreement  # noqa: B018


def test_probe_json_is_read_through_its_model_unknown_keys_kept(tmp_path: Path) -> None:
    doc = {"kinds": {"phantom_marker": {"n": 2, "distinguished": 1, "decorative": 1, "unsupported": 0,
                                        "rate": {"value": 0.5, "n": 2, "ci": [0.0, 1.0]}, "owner": "qa"}},
           "verdict": "decorative", "reviewed_by": "anna"}
    (tmp_path / "probe.json").write_text(json.dumps(doc), encoding="utf-8")
    probe = RunFolder(tmp_path).probe
    assert isinstance(probe, ProbeDocument)
    assert probe.kinds["phantom_marker"].rate.value == 0.5 and probe.failed == []
    assert probe.to_json() == doc and list(probe.to_json()) == ["kinds", "verdict", "reviewed_by"]
    (tmp_path / "probe.json").write_text('{"kinds": {"phantom_marker": {"n": "two"}}}', encoding="utf-8")
    with pytest.raises(DataError, match="kinds.phantom_marker.n"):
        RunFolder(tmp_path).probe  # noqa: B018
    assert RunFolder(tmp_path / "elsewhere").probe is None


def test_quotes_json_is_built_as_its_model_and_read_back(tmp_path: Path) -> None:
    evaluation = evaluate_path(ROOT / "datasets" / "demo", "block,sequencematcher")
    document = evaluation.document()
    assert isinstance(document, QuotesDocument) and list(document.matchers) == ["block", "sequencematcher"]
    evaluation.write(tmp_path, document)
    back = read_document(tmp_path / "quotes.json", QuotesDocument)
    assert back.to_json() == document.to_json() == evaluation.summary()
    block = back.matchers["block"]
    # the accuracy is the share of gold citations placed right: its n is the citations with a gold span
    assert block.placement_accuracy.n == back.citations_with_gold - sum(
        1 for f in sorted((ROOT / "datasets/demo/quotes").glob("*.jsonl"))
        for line in f.read_text(encoding="utf-8").splitlines()
        for g in json.loads(line).get("gold") or [] if g["span"] is None)
    assert load_quote_section(tmp_path) is not None
    broken = back.to_json()
    broken["matchers"]["block"]["threshold"] = "high"
    (tmp_path / "quotes.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(DataError, match="threshold"):
        load_quote_section(tmp_path)


def test_a_folder_moved_into_a_new_folder_moves_back_when_it_cannot_be_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "staged"
    source.mkdir()
    (source / "questions.jsonl").write_text("{}\n", encoding="utf-8")
    made = make_folder_with(tmp_path / "run", {"manifest.json": b"{}\n"}, move_in={"probe_dataset": source})
    assert (made / "probe_dataset" / "questions.jsonl").is_file() and not source.exists()

    again = tmp_path / "staged2"
    again.mkdir()
    (again / "questions.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(UsageError, match="exists already"):
        make_folder_with(tmp_path / "run", {"manifest.json": b"{}\n"}, move_in={"probe_dataset": again})
    assert (again / "questions.jsonl").is_file()  # never moved
    # a failure after the move, before the rename that makes the folder: it moves back
    monkeypatch.setenv(CRASH_ENV, "test:staged")
    monkeypatch.setenv(CRASH_MODE_ENV, "raise")
    with pytest.raises(SimulatedCrash):
        make_folder_with(tmp_path / "run2", {"manifest.json": b"{}\n"}, point="test:staged",
                         move_in={"probe_dataset": again})
    assert (again / "questions.jsonl").is_file() and not (tmp_path / "run2").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run", "staged2"]  # no staging folder left
