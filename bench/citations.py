"""Answer validation speed in citations: one answer citing N times, replayed, scored, reported.

    python bench/citations.py [N]          (default 40,000; the baseline is N / 10)

Each stage — `run` (replay of a recorded answers file), `score` (--judge none) and `report` —
is timed in this process (CPU time) at N/10 citations and at N, and the ratio printed: work linear in
citations gives about 10×, a quadratic step about 100×. The answer is the shape an audit found
slow (about 1.9 MB at 40,000: short sentences, each with its own marker, and an evidence item
per marker). Target at 40,000: each stage ≤ 2 s beyond the process's start.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from factories import write_dataset  # noqa: E402

from evals.report.load import clear_caches  # noqa: E402
from evals.report.render import render_report  # noqa: E402
from evals.run.runner import start_run  # noqa: E402
from evals.score.scoring import score_run  # noqa: E402


def cited_answer(n: int) -> dict[str, Any]:
    """One answer with n markers in its text and n evidence items (claims derived from the text)."""
    return {
        "question_id": "q1", "status": "answered", "stale_notice": False, "links": [], "claims": [],
        "answer_text": " ".join(f"Да [E{i}]." for i in range(n)),
        "evidence": [{"evidence_id": f"E{i}", "chunk_id": "a1-1"} for i in range(n)],
    }


def build(root: Path, n: int) -> Path:
    dataset = write_dataset(root / "dataset")
    rows = [cited_answer(n)] + [
        {"question_id": q, "status": "abstained", "answer_text": "Нет ответа.", "claims": [], "evidence": [],
         "links": [], "stale_notice": False}
        for q in ("q2", "q3")
    ]
    (root / "answers.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return dataset


def timed(step: Callable[[], Any]) -> float:
    """CPU seconds of this process (score with one worker): the machine's other load stays out."""
    t0 = time.process_time()
    step()
    return time.process_time() - t0


def stages(root: Path, n: int) -> dict[str, float]:
    dataset = build(root, n)
    run = root / "runs" / "big"
    clear_caches()
    return {
        "run": timed(lambda: start_run(dataset, f"replay:{root / 'answers.jsonl'}", out=root / "runs", run_id="big")),
        "score": timed(lambda: score_run(run, judge="none", workers=1)),
        "report": timed(lambda: render_report([run], root / "report.html")),
    }


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 40_000
    base_n = max(1, n // 10)
    with tempfile.TemporaryDirectory() as tmp:
        stages(Path(tmp) / "warm", 10)  # imports and first-use caches, outside both measurements
        base = stages(Path(tmp) / "base", base_n)
        big = stages(Path(tmp) / "big", n)
        size = (Path(tmp) / "big" / "answers.jsonl").stat().st_size
    print(f"one answer of {n:,} citations ({size / 1e6:.1f} MB); baseline {base_n:,} citations")
    worst = 0.0
    for stage in ("run", "score", "report"):
        ratio = big[stage] / base[stage]
        worst = max(worst, big[stage])
        print(f"{stage:>6}: {big[stage]:6.2f} s at {n:,}, {base[stage]:5.2f} s at {base_n:,} "
              f"({ratio:.1f}× for 10× the citations)")
    print(f"target each stage ≤ 2 s at 40,000: {'met' if worst <= 2 else 'MISSED'}")


if __name__ == "__main__":
    main()
