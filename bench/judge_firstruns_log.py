"""Rebuild bench/judge_ru_firstruns.jsonl: how the Russian rules behaved on each fresh round when
it was first run, by the judge of the commit that first ran it.

    python bench/judge_firstruns_log.py [--out PATH] [--corpus DIR]

Each round's sets are read from this checkout's bench/; each round's commit is checked out in a
temporary git worktree (the repository's history must hold it) and judges them there; the rule
that decided each verdict (second_look.rule_kind, this checkout's, loaded by path so the old
checkout's own package is the one judging), the pair's edit kind and the overlap measures are
written, no text.
A few seconds; the worktrees are removed afterwards.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# (round, the commit that first ran it, its sets)
ROUNDS = (
    (1, "8f70348", ("realK", "realL", "realM", "realN")),
    (2, "f311236", ("realO", "realP", "realQ", "realR")),
    (3, "8978fce", ("realS", "realT", "realU", "realV")),
    (4, "167fa05", ("realW", "realX", "realY", "realZ")),
    (5, "a59fad2", ("realAA", "realAB", "realAC", "realAD")),
    (6, "7bb7318", ("realAE", "realAF", "realAG", "realAH")),
    (7, "6156601", ("realAI", "realAJ", "realAK", "realAL")),
    (8, "5c18bc6", ("realAM", "realAN", "realAO", "realAP")),
    (9, "3571273", ("realAQ", "realAR", "realAS", "realAT")),
    (10, "d219f0d", ("realAU", "realAV", "realAW", "realAX")),
    (11, "003eccd", ("realAY", "realAZ", "realBA", "realBB")),
)

# Run inside the old checkout: its evals judge, this checkout's second_look.py reads the result.
_JUDGE_THERE = """
import importlib.util, json, sys
from pathlib import Path
old, look, corpus, round_ = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
sys.path.insert(0, old); sys.path.insert(0, old + "/bench")
spec = importlib.util.spec_from_file_location("second_look_here", look)
sl = importlib.util.module_from_spec(spec); spec.loader.exec_module(sl)
from judge_ru import load
from evals.score.judges.base import JudgeInput
from evals.score.judges import offline
for path in sys.argv[5:]:
    for row in load(Path(path), Path(corpus)):
        f = offline.extract_features(JudgeInput(row["claim"], tuple(row["evidence"]), row.get("question")))
        kind = sl.rule_kind(f, offline.RU_HARD_RULES, offline.RU_PARTIAL_RULES, offline.RU_PARAMS.partial_coverage)
        # the rules' own verdict (a commit with the second look has rules_verdict for it)
        verdict = getattr(offline, "rules_verdict", offline.decide)(f, offline.RU_PARAMS)
        assert (kind == "supported") == (verdict.value == "supported"), row["pair_id"]
        print(json.dumps({"pair_id": row["pair_id"], "round": round_, "label": row["label"], "edit": row["kind"],
                          "kind": kind,
                          **{k: round(v, 6) for k, v in zip(sl.OVERLAP, sl.overlap(f))}}, ensure_ascii=False))
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "judge_ru_firstruns.jsonl")
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus" / "kz-laws" / "rus")
    args = parser.parse_args(argv)
    if not args.corpus.is_dir():
        print(f"{args.corpus}: the laws' folder is not there (give --corpus)", file=sys.stderr)
        return 2
    lines: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for round_, commit, sets in ROUNDS:
            tree = Path(tmp) / commit
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(tree), commit], check=True)
            try:
                done = subprocess.run(
                    [sys.executable, "-c", _JUDGE_THERE, str(tree), str(ROOT / "evals" / "score" / "judges" /
                     "second_look.py"), str(args.corpus), str(round_),
                     *(str(ROOT / "bench" / f"judge_ru_{name}.jsonl") for name in sets)],
                    capture_output=True, text=True, check=False)
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
            if done.returncode:
                print(f"round {round_} ({commit}): {done.stderr.strip().splitlines()[-1]}", file=sys.stderr)
                return 3
            lines += done.stdout.splitlines()
    tmp_out = args.out.with_suffix(".tmp")
    tmp_out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    tmp_out.replace(args.out)  # nothing half-written
    print(f"wrote {len(lines)} first-run verdicts to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
