"""Report speed: 10 scored runs × 200 questions → one HTML report (target ≤ 10 s).

    python bench/report.py [RUNS] [QUESTIONS]

The runs are real: the demo registry, its questions repeated up to QUESTIONS, answered once by
the reference backend, then each run injects known faults (evals.run.faults) into a different
share of the answers and is scored like any run. The baseline in the same process is the time
to merely parse every run's JSON files (manifest, scores, per_question, findings, answers).
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

from evals.data.registry import Registry
from evals.report.load import clear_caches
from evals.report.render import render_report, render_weekly
from evals.run.faults import FAULT_KINDS, apply_fault
from evals.run.runner import start_run
from evals.score.scoring import score_run
from evals.store.jsonl import load_questions, write_json_atomic, write_jsonl_atomic
from evals.store.runfolder import load_manifest, read_answers

DEMO = Path(__file__).resolve().parent.parent / "datasets" / "demo"


def build_dataset(root: Path, n_questions: int) -> Path:
    """The demo registry with its questions repeated (new ids) up to n_questions."""
    ds = root / "dataset"
    ds.mkdir()
    (ds / "registry").symlink_to(DEMO / "registry")
    base = [json.loads(line) for line in (DEMO / "questions.jsonl").read_text(encoding="utf-8").splitlines()]
    rows = []
    for i in range(n_questions):
        q = dict(base[i % len(base)])
        if i >= len(base):
            q["question_id"] = f"{q['question_id']}-r{i // len(base)}"
        rows.append(q)
    (ds / "questions.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return ds


def build_runs(root: Path, n_runs: int, n_questions: int) -> list[Path]:
    ds = build_dataset(root, n_questions)
    base = start_run(ds, "reference", out=root / "base", run_id="reference").run_dir
    manifest = load_manifest(base)
    answers = read_answers(base / "answers.jsonl")
    questions = {q.question_id: q for q in load_questions(ds)}
    registry = Registry.load(ds)
    runs = []
    for k in range(n_runs):
        rng = random.Random(k)
        share = 0.05 + 0.03 * k  # each run breaks a different share of its answers
        changed = []
        for qid, answer in answers.items():
            q = questions[qid]
            if rng.random() < share:
                faulted = apply_fault(rng.choice(FAULT_KINDS), answer, q, registry, q.asked_at or manifest.started_at)
                changed.append(faulted or answer)
            else:
                changed.append(answer)
        run_id = f"run-{k:02d}"
        run = root / "runs" / run_id
        run.mkdir(parents=True)
        m = manifest.model_copy(deep=True)
        m.run_id, m.label = run_id, ("fuzzy-60", "fuzzy-80")[k % 2]
        m.started_at = manifest.started_at - timedelta(hours=6 * (n_runs - k))
        write_json_atomic(run / "manifest.json", m)
        write_jsonl_atomic(run / "answers.jsonl", changed)
        score_run(run, judge="none")
        runs.append(run)
    return runs


def load_json_only(runs: list[Path]) -> int:
    total = 0
    for run in runs:
        for name in ("manifest.json", "scores.json"):
            total += len(json.loads((run / name).read_text(encoding="utf-8")))
        for name in ("per_question.jsonl", "findings.jsonl", "answers.jsonl"):
            with open(run / name, encoding="utf-8") as handle:
                total += sum(len(json.loads(line)) for line in handle if line.strip())
    return total


def main() -> None:
    n_runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    n_questions = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        runs = build_runs(root, n_runs, n_questions)
        print(f"setup: {n_runs} runs × {n_questions} questions answered and scored in {time.perf_counter() - t0:.1f} s")

        t0 = time.perf_counter()
        load_json_only(runs)
        baseline = time.perf_counter() - t0

        clear_caches()
        t0 = time.perf_counter()
        report = render_report(runs, root / "report.html")
        elapsed = time.perf_counter() - t0
        size = report.path.stat().st_size

        clear_caches()
        t0 = time.perf_counter()
        newest = max(r.started_at for r in report.runs)
        weekly = render_weekly(root / "runs", root / "weekly.html", since="30d", now=newest)
        weekly_elapsed = time.perf_counter() - t0

        print(f"baseline (parse every run's JSON): {baseline:.2f} s")
        print(
            f"report over {len(report.runs)} runs, {len(report.comparisons)} paired comparisons, "
            f"drill-down of {n_questions} questions: {elapsed:.2f} s ({elapsed / baseline:.1f}× baseline), "
            f"{size / 1e6:.1f} MB"
        )
        print(
            f"weekly report, {len(weekly.comparisons) + 1} variants drilled down: {weekly_elapsed:.2f} s "
            f"({weekly.path.stat().st_size / 1e6:.1f} MB)"
        )
        print(f"target ≤ 10 s: {'met' if max(elapsed, weekly_elapsed) <= 10 else 'MISSED'}")


if __name__ == "__main__":
    main()
