"""Scoring speed and memory: N answers × 5 claims against the demo registry (default N = 10,000).

    python bench/score.py [N ...] [--workers 1,auto] [--judge offline] [--keep DIR]

For each N it builds a run (questions, answers.jsonl, manifest), then, each in a fresh process
so that peak memory is its own:

- parse: a plain parse of the same answers.jsonl into a list of Answer records (json.loads +
  Answer.model_validate per line), the baseline of the earlier figures (up to --list-up-to
  answers: the list of 365,000 would take about 11 GB), and the same parse dropping each record
  at once ("stream"); every ratio is printed against both;
- `score_run(judge="none")` with each worker count of --workers (`auto`: the cores available),
  printing wall time, CPU time (the process and its workers), the ratio to parse time, and peak
  memory: the sampled peak of the process tree's summed RSS (its workers included, pages they
  share counted in each) and PSS (shared pages split), with ru_maxrss of the scorer and of its
  largest worker;
- with --judge offline, the same with the offline judge on every (claim, evidence) pair.

Targets (issue 22): scoring 10,000 answers ≤ 2.5× parse time; tree RSS at 365,000 ≤ 600 MB and
≤ 1.5× the RSS at 10,000; 2 workers on 2 cores ≤ 0.65 of one worker's time. The machine's other
load shows in wall time, not in CPU time: both are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "datasets" / "demo"
sys.path.insert(0, str(ROOT))


def build(root: Path, n: int) -> Path:
    """A dataset of n questions and a run folder with one answer of 5 claims to each."""
    from evals.contract.models import VersionStatus
    from evals.data.registry import Registry
    from evals.run.runner import dataset_ref

    ds = root / "ds"
    shutil.copytree(DEMO / "registry", ds / "registry")
    registry = Registry.load(ds)
    at = datetime(2025, 6, 1, tzinfo=timezone.utc)
    active = [
        c
        for c in registry.chunks.values()
        if registry.status(c.version_id, at) is VersionStatus.active and not registry.documents[c.document_id].acl
    ]
    rng = random.Random(7)
    run = root / "run"
    run.mkdir()
    with (
        open(ds / "questions.jsonl", "w", encoding="utf-8") as q,
        open(run / "answers.jsonl", "w", encoding="utf-8") as a,
    ):
        for i in range(n):
            qid = f"q{i:06d}"
            q.write(
                json.dumps(
                    {
                        "question_id": qid,
                        "question": "Вопрос?",
                        "asked_at": "2025-06-01",
                        "risk_tier": rng.choice(["critical", "policy", "reference"]),
                        "tags": [rng.choice(["numeric", "single_fact"])],
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            chunks = rng.sample(active, 5)
            claims, evidence, links, parts = [], [], [], []
            for k, chunk in enumerate(chunks, start=1):
                sentence = chunk.text.split(". ")[0][:200]
                claims.append(
                    {"claim_id": f"c{k}", "text": sentence, "evidence_ids": [f"E{k}"], "quote": sentence[:60]}
                )
                evidence.append(
                    {
                        "evidence_id": f"E{k}",
                        "chunk_id": chunk.chunk_id,
                        "document_id": chunk.document_id,
                        "version_id": chunk.version_id,
                        "page": chunk.page_start,
                        "text": chunk.text,
                    }
                )
                url = registry.versions[chunk.version_id].viewer_url
                links.append({"evidence_id": f"E{k}", "url": f"{url}#page={chunk.page_start}"})
                parts.append(f"{sentence} [E{k}]")
            a.write(
                json.dumps(
                    {
                        "question_id": qid,
                        "status": "answered",
                        "answer_text": " ".join(parts),
                        "claims": claims,
                        "evidence": evidence,
                        "links": links,
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
    manifest = {
        "schema_version": 1,
        "run_id": "bench",
        "started_at": "2025-06-01T00:00:00+00:00",
        "dataset": dataset_ref(ds).model_dump(),
        "backend": "replay",
        "citeval_version": "bench",
    }
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


# --- one measurement in a fresh process --------------------------------------------------


def _child(job: str, run: str, workers: int, judge: str) -> None:
    """Runs in the measured process: prints one JSON line of figures."""
    import resource

    from evals.contract.models import Answer
    from evals.score.scoring import score_run
    from evals.store.jsonl import iter_json_lines

    t0, c0 = time.perf_counter(), time.process_time()  # after the imports, as a long-lived process sees it
    if job == "parse":
        # the baseline of the earlier figures: every record parsed into a list
        parsed = [Answer.model_validate(obj) for _, obj in iter_json_lines(Path(run) / "answers.jsonl")]
        extra: dict[str, object] = {"answers": len(parsed)}
    elif job == "stream":
        # the same parse, each record dropped at once (no list: what 365,000 answers need)
        count = sum(1 for _, obj in iter_json_lines(Path(run) / "answers.jsonl") if Answer.model_validate(obj))
        extra = {"answers": count}
    else:
        result = score_run(run, judge=judge, workers=workers)
        extra = {"findings": sum(result.scores.findings.values()), "n": result.scores.n_questions}
    wall = time.perf_counter() - t0
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    cpu = time.process_time() - c0 + children.ru_utime + children.ru_stime
    print(json.dumps({"wall": wall, "cpu": cpu, "maxrss_self_mb": me.ru_maxrss / 1024,
                      "maxrss_child_mb": children.ru_maxrss / 1024, **extra}))


def _tree(pid: int) -> list[int]:
    """pid and its descendants (from /proc)."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
                kids.setdefault(int(fields[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def _memory_kb(pid: int) -> tuple[int, int]:
    """(RSS, PSS) of one process in kB, (0, 0) once it is gone."""
    rss = pss = 0
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Rss:"):
                    rss = int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def measure(job: str, run: Path, workers: int = 1, judge: str = "none") -> dict[str, float]:
    """Run one job in a fresh interpreter, sampling its process tree's memory every 50 ms."""
    cmd = [sys.executable, __file__, "--child", job, str(run), str(workers), judge]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    peak = {"rss": 0, "pss": 0}
    done = threading.Event()

    def sample() -> None:
        sampled_tree: list[int] = [proc.pid]
        ticks = 0
        while not done.is_set():
            if ticks % 10 == 0:  # the tree changes rarely: re-read it twice a second
                sampled_tree = _tree(proc.pid)
            ticks += 1
            rss = pss = 0
            for pid in sampled_tree:
                r, p = _memory_kb(pid)
                rss, pss = rss + r, pss + p
            peak["rss"], peak["pss"] = max(peak["rss"], rss), max(peak["pss"], pss)
            done.wait(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate()
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"{job} failed (exit {proc.returncode})")
    figures = json.loads(out.strip().splitlines()[-1])
    figures["tree_rss_mb"], figures["tree_pss_mb"] = peak["rss"] / 1024, peak["pss"] / 1024
    return figures


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="*", type=int, default=[10_000])
    parser.add_argument("--workers", default="1,auto", help="comma-separated worker counts (auto: the cores)")
    parser.add_argument("--judge", default="none", choices=["none", "offline"], help="also time this judge")
    parser.add_argument("--keep", type=Path, help="build runs here and keep them (reused when present)")
    parser.add_argument("--list-up-to", type=int, default=100_000, help="parse into a list up to this N")
    args = parser.parse_args()
    counts = [_cores() if w == "auto" else int(w) for w in args.workers.split(",")]
    print(f"{_cores()} core(s) available; load average {os.getloadavg()[0]:.1f}")
    first_rss: dict[tuple[str, int], tuple[int, float, float]] = {}  # (judge, workers) → the first N's memory
    for n in args.n:
        root = (args.keep / f"n{n}") if args.keep else Path(tempfile.mkdtemp(prefix="bench-score-"))
        try:
            if not (root / "run" / "manifest.json").exists():
                shutil.rmtree(root, ignore_errors=True)
                root.mkdir(parents=True)
                t0 = time.perf_counter()
                build(root, n)
                print(f"N = {n:,}: built in {time.perf_counter() - t0:.1f} s "
                      f"({(root / 'run' / 'answers.jsonl').stat().st_size / 2**20:.0f} MB of answers)")
            stream = measure("stream", root / "run")
            print(f"  parse (stream)      {stream['wall']:7.2f} s wall  {stream['cpu']:7.2f} s CPU")
            parse = measure("parse", root / "run") if n <= args.list_up_to else None
            if parse is not None:
                print(f"  parse (list)        {parse['wall']:7.2f} s wall  {parse['cpu']:7.2f} s CPU")
            judges = ["none"] if args.judge == "none" else ["none", args.judge]
            for judge in judges:
                one: dict[str, float] | None = None
                for workers in counts:
                    f = measure("score", root / "run", workers, judge)
                    if workers == 1:
                        one = f
                    speedup = f", {f['wall'] / one['wall']:.2f} of 1 worker" if one and workers > 1 else ""
                    listed = f"{f['wall'] / parse['wall']:.2f}x parse (list), " if parse else ""
                    base_n, base_rss, base_pss = first_rss.setdefault(
                        (judge, workers), (n, f["tree_rss_mb"], f["tree_pss_mb"])
                    )
                    growth = (
                        f"; {f['tree_rss_mb'] / base_rss:.2f}x the RSS at {base_n:,} "
                        f"({f['tree_pss_mb'] / base_pss:.2f}x its PSS)" if base_n != n else ""
                    )
                    print(
                        f"  score judge={judge:<7} workers={workers}: {f['wall']:7.2f} s wall "
                        f"({listed}{f['wall'] / stream['wall']:.2f}x parse (stream){speedup}); "
                        f"{f['cpu']:7.2f} s CPU; peak tree RSS {f['tree_rss_mb']:.0f} MB "
                        f"(PSS {f['tree_pss_mb']:.0f} MB; ru_maxrss scorer {f['maxrss_self_mb']:.0f} MB, "
                        f"largest worker {f['maxrss_child_mb']:.0f} MB){growth}"
                    )
        finally:
            if not args.keep:
                shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
