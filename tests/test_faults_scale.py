"""Answer validation is linear in citations (issue 33): one answer citing n times is replayed,
scored and reported at two sizes, and each stage's CPU time must grow about as the citations do.

A ratio of two sizes measured in the same process, never an absolute time: 10× the citations may
cost up to 20× (linear work measures 2–9×). The quadratic steps this guards against: the
report's evidence index rebuilt per citation, the answer's repeated-id check by list.count (put
back, it measures 29×), a deep copy per replayed answer."""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from factories import write_dataset

from evals.report.load import clear_caches
from evals.report.render import render_report
from evals.report.views import MAX_CLAIMS_SHOWN
from evals.run.runner import start_run
from evals.score.scoring import score_run
from evals.store.runfolder import RunFolder

SMALL, LARGE = 1_000, 10_000
LINEAR_SLACK = 2.0


def _answers(n: int) -> list[dict[str, Any]]:
    cited = {
        "question_id": "q1", "status": "answered", "stale_notice": False, "links": [], "claims": [],
        "answer_text": " ".join(f"Да [E{i}]." for i in range(n)),
        "evidence": [{"evidence_id": f"E{i}", "chunk_id": "a1-1"} for i in range(n)],
    }
    refused = [{"question_id": q, "status": "abstained", "answer_text": "Нет ответа.", "claims": [],
                "evidence": [], "links": [], "stale_notice": False} for q in ("q2", "q3")]
    return [cited, *refused]


def _cpu(step: Callable[[], Any]) -> float:
    """CPU seconds of the step, the collector's walk of the test process's own heap left out:
    gc.freeze moves what exists to the permanent generation, so a full collection the large
    size triggers scans what the step made, not pytest's millions of objects (that walk, not our
    work, made 10× the citations cost 20× in a loaded suite)."""
    gc.collect()
    gc.freeze()
    try:
        t0 = time.process_time()
        step()
        return time.process_time() - t0
    finally:
        gc.unfreeze()


def _stages(root: Path, n: int) -> dict[str, float]:
    dataset = write_dataset(root / "dataset")
    replay = root / "answers.jsonl"
    replay.write_text("".join(json.dumps(a, ensure_ascii=False) + "\n" for a in _answers(n)), "utf-8")
    run = root / "runs" / "big"
    clear_caches()
    times = {
        "run": _cpu(lambda: start_run(dataset, f"replay:{replay}", out=root / "runs", run_id="big")),
        "score": _cpu(lambda: score_run(run, judge="none", workers=1)),
        "report": _cpu(lambda: render_report([run], root / "report.html")),
    }
    assert len(RunFolder(run).answers["q1"].evidence) == n  # the whole answer went through
    return times


def test_run_score_and_report_grow_linearly_with_citations(tmp_path: Path) -> None:
    _stages(tmp_path / "warm", 10)  # imports and first-use caches belong to neither size
    small = _stages(tmp_path / "small", SMALL)
    large = _stages(tmp_path / "large", LARGE)
    bound = LARGE / SMALL * LINEAR_SLACK
    for stage in ("run", "score", "report"):
        ratio = large[stage] / max(small[stage], 1e-3)
        assert ratio < bound, f"{stage}: {ratio:.1f}× the time for {LARGE // SMALL}× the citations"


def test_the_report_shows_a_bounded_number_of_claims_and_says_how_many_more(tmp_path: Path) -> None:
    _stages(tmp_path, MAX_CLAIMS_SHOWN + 50)
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "50 more claims not shown" in html
    assert html.count('<div class="claim">') == MAX_CLAIMS_SHOWN
