"""The offline judge's verdicts on the dev pairs, to check a speed change changes none of them.

    python bench/judge_verdicts.py --write BEFORE.json     # on the old code
    python bench/judge_verdicts.py --compare BEFORE.json   # on the new code: exit 1 on any difference

Covers ../shared/data/ru-pairs/dev.jsonl, ../shared/data/expertqa/domain_val.jsonl,
bench/judge_ru_own.jsonl and 2,000 of bench/judge_speed.py's generated pairs; each verdict is
(value, score, reason).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's evals, not another install
sys.path.insert(0, str(ROOT / "bench"))

from judge_expertqa import load_pairs  # noqa: E402
from judge_speed import make_pairs  # noqa: E402

from evals.score.judges.base import JudgeInput  # noqa: E402
from evals.score.judges.offline import OfflineJudge  # noqa: E402

DATA = ROOT.parent / "shared" / "data"


def inputs() -> dict[str, list[JudgeInput]]:
    out: dict[str, list[JudgeInput]] = {}
    for name, path in (("ru-dev", DATA / "ru-pairs" / "dev.jsonl"), ("ru-own", ROOT / "bench" / "judge_ru_own.jsonl")):
        if path.exists():
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            out[name] = [JudgeInput(r["claim"], tuple(r["evidence"]), r.get("question")) for r in rows]
    expertqa = DATA / "expertqa" / "domain_val.jsonl"
    if expertqa.exists():
        out["expertqa"] = load_pairs(expertqa)[0]
    out["generated"] = make_pairs(2000, seed=1)
    return out


def verdicts() -> dict[str, list[list[object]]]:
    judge = OfflineJudge()
    return {name: [[r.value, r.score, r.reason] for r in judge.judge(items)] for name, items in inputs().items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path)
    group.add_argument("--compare", type=Path)
    args = parser.parse_args(argv)
    now = verdicts()
    if args.write:
        args.write.write_text(json.dumps(now, ensure_ascii=False), encoding="utf-8")
        print(f"wrote {sum(map(len, now.values()))} verdicts to {args.write}")
        return 0
    before = json.loads(args.compare.read_text(encoding="utf-8"))
    bad = 0
    for name, rows in before.items():
        new = now.get(name, [])
        diff = [i for i, (a, b) in enumerate(zip(rows, new, strict=False)) if a != b] + list(range(len(new), len(rows)))
        bad += len(diff)
        print(f"{name}: {len(rows)} verdicts, {len(diff)} differ" + (f" (first: #{diff[0]} {rows[diff[0]]} -> "
              f"{new[diff[0]] if diff[0] < len(new) else None})" if diff else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
