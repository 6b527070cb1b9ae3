"""The offline judge's speed: N (claim, evidence) pairs judged, against a bare pass over the
same text in the same run.

    python bench/judge_speed.py [N] [--workers W] [--format json]

The pairs are generated here (Russian regulation-style sentences with varied numbers, actors,
negation and conditions, a fifth in English), every text distinct so no cache flatters the
figure. Baseline: normalizing and splitting every claim and evidence into words (what any
judge must do at least). Target (issue 29): 50,000 pairs ≤ 15 s on the 2-core machine.
The judge runs twice: in this one process (workers=1), whose CPU time against the baseline's
is the ratio (the steadier figure on a shared machine, and the one to compare across
machines), then as a user's batch runs it (worker processes, one per core; --workers to set),
whose wall time is the figure against the target (on pairs of another seed, so that nothing the
first run cached flatters it); its first 5,000 verdicts are checked against one process's. To compare
two versions, run each checkout's copy of this file in turn, interleaved (A B A B), and compare
their single-process CPU seconds; bench/judge_verdicts.py checks that a speed change leaves
every verdict as it was.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's evals, not another install

from evals.score.judges.base import JudgeInput  # noqa: E402
from evals.score.judges.offline import PARALLEL_MIN_ITEMS, OfflineJudge, available_cores  # noqa: E402
from evals.text.normalize import normalize  # noqa: E402

ACTORS = ("медицинская организация", "работодатель", "врач", "уполномоченный орган", "пациент")
ACTS = ("проводит осмотр", "выдаёт заключение", "направляет на обследование", "хранит документы",
        "уведомляет работника")
WHEN = ("не реже одного раза в {n} месяцев", "в течение {n} рабочих дней", "не позднее {n} дней",
        "при наличии письменного согласия", "за исключением случаев угрозы жизни")
EN = ("The clinic keeps records for {n} years.", "Staff must complete training at least once every {n} months.",
      "Reports are filed within {n} days, except in emergencies.")


def make_pairs(n: int, seed: int = 0) -> list[JudgeInput]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        k = rng.randint(1, 60)
        if i % 5 == 4:
            evidence = rng.choice(EN).format(n=k) + f" Item {i}."
            claim = evidence.replace(str(k), str(k if rng.random() < 0.7 else k + 1)).replace(f" Item {i}.", "")
        else:
            actor, act, when = rng.choice(ACTORS), rng.choice(ACTS), rng.choice(WHEN).format(n=k)
            evidence = f"{actor.capitalize()} {act} {when}. Пункт {i} настоящей статьи применяется к договору {k}."
            claim_actor = actor if rng.random() < 0.8 else rng.choice(ACTORS)
            neg = "не " if rng.random() < 0.1 else ""
            claim = f"{claim_actor.capitalize()} {neg}{act} {when.replace(str(k), str(k + (rng.random() < 0.2)))}."
        out.append(JudgeInput(claim, (evidence,)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("n", type=int, nargs="?", default=50_000)
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes for the batch run (default: one per core)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    pairs = make_pairs(args.n)
    word = re.compile(r"\w+")
    started, cpu = time.perf_counter(), time.process_time()
    for item in pairs:
        word.findall(normalize(item.claim))
        word.findall(normalize(item.evidence[0]))
    baseline, baseline_cpu = time.perf_counter() - started, time.process_time() - cpu
    judge = OfflineJudge(workers=1)
    started, cpu = time.perf_counter(), time.process_time()
    results = judge.judge(pairs)
    seconds, judge_cpu = time.perf_counter() - started, time.process_time() - cpu
    # the batch run gets pairs of its own (another seed): the texts the first run cached would flatter it
    fresh = make_pairs(args.n, seed=1)
    batch = OfflineJudge(workers=args.workers)
    workers = args.workers if args.workers is not None else available_cores()
    started = time.perf_counter()  # wall time only: the workers are the fork server's children, not ours
    batch_results = batch.judge(fresh)
    batch_seconds = time.perf_counter() - started
    if batch_results[:5000] != judge.judge(fresh[:5000]):
        raise SystemExit("the worker processes gave other verdicts than one process: a bug")
    # the ratio is of CPU time: on the shared machine wall time also counts the other sessions
    out = {"pairs": args.n, "judge_seconds": round(seconds, 2), "baseline_seconds": round(baseline, 3),
           "judge_cpu_seconds": round(judge_cpu, 2), "baseline_cpu_seconds": round(baseline_cpu, 3),
           "ratio_to_baseline": round(judge_cpu / baseline_cpu, 1) if baseline_cpu else None,
           "pairs_per_second": round(args.n / seconds), "supported_share": round(
               sum(r.value == "supported" for r in results) / len(results), 3),
           "workers": workers, "batch_seconds": round(batch_seconds, 2)}
    if args.format == "json":
        print(json.dumps(out, indent=2))
    else:
        print(f"{args.n:,} pairs judged offline in one process in {seconds:.2f} s ({judge_cpu:.2f} s CPU; "
              f"{out['pairs_per_second']:,}/s) = {out['ratio_to_baseline']}× the CPU time of a bare "
              f"normalize-and-split pass ({baseline_cpu:.3f} s)")
        print(f"as a batch ({workers} worker{'s' if workers != 1 else ''} for {PARALLEL_MIN_ITEMS:,}+ pairs): "
              f"{batch_seconds:.2f} s, the same verdicts; "
              f"target ≤ 15 s for 50,000")
    return 0


if __name__ == "__main__":
    sys.exit(main())
