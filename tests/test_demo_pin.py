"""The demo's scores.json is pinned: a change of layout or refactoring must not move one byte of it.

tests/golden/demo_scores.json is scores.json of `citeval eval datasets/demo --run-id demo` as
written before the packages were regrouped (issue 27), less the two fields that name the moment
and the machine (`scored_at`, `provenance`). A change that moves a figure on purpose updates the
golden file in the same commit, where a reviewer sees every value it moves.
"""

import json
from pathlib import Path

import pytest

from evals.evaluate import evaluate

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "demo_scores.json"


@pytest.mark.slow
def test_demo_scores_json_is_byte_identical_to_the_pinned_one(tmp_path):
    evaluate(ROOT / "datasets" / "demo", "reference", out=tmp_path / "runs", run_id="demo",
             report=tmp_path / "report.html")
    raw = (tmp_path / "runs" / "demo" / "scores.json").read_text(encoding="utf-8")
    written = json.loads(raw)
    # the file is this canonical form, so comparing canonical texts compares the bytes
    assert raw == json.dumps(written, indent=2, ensure_ascii=False) + "\n"
    assert set(written) >= {"scored_at", "provenance"}
    written.pop("scored_at")
    written.pop("provenance")
    assert json.dumps(written, indent=2, ensure_ascii=False) + "\n" == GOLDEN.read_text(encoding="utf-8")
