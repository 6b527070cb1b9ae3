"""Fit and check the second look at the Russian rules' flags (evals/score/judges/second_look.py).

    python bench/judge_second_look.py [LOG] [--write] [--format json]

LOG (default bench/judge_ru_firstruns.jsonl) holds, for each pair of the fresh rounds (realK–N,
realO–R, realS–V, realW–Z, realAA–AD: 60-pair sets over the Health Code written by helpers who
saw no rules), its edit kind, the rule that decided its verdict and the overlap measures, as
the judge of the day computed them when the round was first run, before any rule was written
from it (the judge of commits 8f70348, f311236, 8978fce, 167fa05 and a59fad2; the rules' own
verdict, before any second look; bench/judge_firstruns_log.py rebuilds it): how the rules
behave on material they have not seen, which is what the model must learn. No claim or
fragment text is in it.

Prints, for each round, binary macro-F1 of the rules' verdicts and of the verdicts after a
second look fitted on the other rounds only (the threshold chosen on those rounds too), and the
pooled figures. --write fits on every round and writes evals/score/judges/second_look_table.py.
The model: L2 logistic regression (scikit-learn, C=1) on every pair, one-hot of the deciding
rule ("supported" among them) and the overlap measures; the threshold maximises binary macro-F1 over all the
fitting pairs (those the rules call supported stay supported).

--mix PAIRS (e.g. the dev split) adds each figure as if the rounds' edit kinds came in PAIRS's
mix (post-stratification: a pair of a kind weighs its share of PAIRS over its share of the
rows). The rounds were written with fewer supported claims than the dev split, and no
near-verbatim or invented-cause pair; a kind the rounds lack is scored by today's judge on
PAIRS's own pairs of that kind, in-sample when PAIRS is a set the rules were tuned on (said so).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's evals, not another install

from evals.score.judges import second_look as sl  # noqa: E402
from evals.score.judges.metrics import macro_f1  # noqa: E402

Weighted = tuple[list[bool], list[bool], list[float]]  # truth, verdict, weight

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "evals" / "score" / "judges" / "second_look_table.py"
THRESHOLDS = [round(0.20 + 0.025 * i, 3) for i in range(25)]  # 0.20 … 0.80


FIELDS = ("pair_id", "round", "label", "edit", "kind", *sl.OVERLAP)


class LogError(ValueError):
    """A log line that is not a first-run verdict (the message names the file and line)."""


def json_rows(path: Path, fields: Sequence[str], either: Sequence[str] = ()) -> list[dict[str, Any]]:
    """The JSON object on each non-blank line of path, each holding fields (and one of either,
    if given); else LogError names the file and line."""
    rows = []
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise LogError(f"{path}:{number}: not JSON ({exc.msg})") from None
                missing = [name for name in fields if not isinstance(row, dict) or name not in row]
                if either and not (isinstance(row, dict) and any(name in row for name in either)):
                    missing.append(either[0])
                if missing:
                    raise LogError(f"{path}:{number}: missing {', '.join(missing)}")
                rows.append(row)
    except OSError as exc:
        raise LogError(f"{path}: {exc.strerror}") from None
    return rows


def load(path: Path) -> list[dict[str, Any]]:
    rows = json_rows(path, FIELDS)
    if not rows:
        raise LogError(f"{path}: no first-run verdict")
    return rows


def measures(row: dict[str, Any]) -> list[float]:
    return [float(row[name]) for name in sl.OVERLAP]


def fit(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The model and threshold fitted on rows."""
    from sklearn.linear_model import LogisticRegression

    # every pair, those the rules call supported too: they teach the overlap measures' weights
    kinds = sorted({r["kind"] for r in rows})
    x = [sl.vector(r["kind"], measures(r), kinds) for r in rows]
    y = [r["label"] == "supported" for r in rows]
    model = LogisticRegression(C=1.0, max_iter=5000).fit(x, y)
    table = {"kinds": kinds, "weights": [round(float(w), 6) for w in model.coef_[0]],
             "bias": round(float(model.intercept_[0]), 6), "threshold": 0.5}
    truth = [r["label"] == "supported" for r in rows]
    best = max(THRESHOLDS, key=lambda t: (f1(truth, verdicts(rows, {**table, "threshold": t})), -t))
    table["threshold"] = best
    return table


def verdicts(rows: Sequence[dict[str, Any]], table: dict[str, Any]) -> list[bool]:
    """Supported: what the rules call supported, or a flag the second look overturns."""
    return [r["kind"] == sl.SUPPORTED or sl.overturning(r["kind"], measures(r), table) is not None for r in rows]


def f1(truth: Sequence[bool], pred: Sequence[bool], weights: Sequence[float] | None = None) -> float:
    return macro_f1(truth, pred, labels=(True, False), weights=weights).value or 0.0


PAIR_FIELDS = ("claim", "label", "kind")


def check_pairs(path: Path) -> None:
    """Each line of a --mix file is a pair the judge can read; else LogError names the line."""
    json_rows(path, PAIR_FIELDS, either=("evidence", "evidence_spans"))


def mix_of(path: Path, corpus: Path | None) -> tuple[dict[str, float], dict[str, tuple[list[bool], list[bool]]]]:
    """PAIRS's share of each edit kind, and for every kind: its pairs' truth and today's verdicts."""
    from collections import Counter

    from judge_ru import load

    from evals.score.judges.base import JudgeInput
    from evals.score.judges.offline import OfflineJudge

    check_pairs(path)
    rows = load(path, corpus)
    counts = Counter(str(r["kind"]) for r in rows)
    results = OfflineJudge(workers=1).judge([JudgeInput(r["claim"], tuple(r["evidence"]), r.get("question"))
                                            for r in rows])
    judged: dict[str, tuple[list[bool], list[bool]]] = {}
    for row, result in zip(rows, results, strict=True):
        truth, pred = judged.setdefault(str(row["kind"]), ([], []))
        truth.append(row["label"] == "supported")
        pred.append(result.value == "supported")
    return {k: n / len(rows) for k, n in counts.items()}, judged


def weighted(rows: Sequence[dict[str, Any]], pred: Sequence[bool], mix: dict[str, float],
             lacking: dict[str, tuple[list[bool], list[bool]]]) -> Weighted:
    """rows' verdicts, and the lacking kinds' pairs, each weighted to its kind's share of mix."""
    from collections import Counter

    counts = Counter(str(r["edit"]) for r in rows)
    truth = [r["label"] == "supported" for r in rows]
    weights = [mix.get(str(r["edit"]), 0.0) / counts[str(r["edit"])] for r in rows]
    out_pred = list(pred)
    for kind, (kind_truth, kind_pred) in lacking.items():
        truth += kind_truth
        out_pred += kind_pred
        weights += [mix[kind] / len(kind_truth)] * len(kind_truth)
    return truth, out_pred, weights


def check(rows: Sequence[dict[str, Any]], mix: dict[str, float] | None = None,
          judged: dict[str, tuple[list[bool], list[bool]]] | None = None) -> dict[str, Any]:
    """Each round predicted by a model fitted on the other rounds; then all rounds pooled. With
    mix (and judged, mix_of's verdicts), each figure weighted to mix's edit kinds too."""
    out: dict[str, Any] = {"rounds": []}
    lacking = {k: v for k, v in (judged or {}).items() if k not in {str(r["edit"]) for r in rows}}

    def in_mix(test: Sequence[dict[str, Any]], rules: Sequence[bool], looked: Sequence[bool]) -> dict[str, float]:
        if mix is None:
            return {}
        return {"rules_in_mix": round(f1(*weighted(test, rules, mix, lacking)), 4),
                "second_look_in_mix": round(f1(*weighted(test, looked, mix, lacking)), 4)}

    pooled_rows: list[dict[str, Any]] = []
    pooled_truth: list[bool] = []
    pooled_rules: list[bool] = []
    pooled_looked: list[bool] = []
    for held in sorted({r["round"] for r in rows}):
        table = fit([r for r in rows if r["round"] != held])
        test = [r for r in rows if r["round"] == held]
        truth = [r["label"] == "supported" for r in test]
        rules = [r["kind"] == sl.SUPPORTED for r in test]
        looked = verdicts(test, table)
        out["rounds"].append({"round": held, "pairs": len(test), "rules": round(f1(truth, rules), 4),
                              "second_look": round(f1(truth, looked), 4), "threshold": table["threshold"],
                              "overturned": sum(a and not b for a, b in zip(looked, rules, strict=True)),
                              "overturned_right": sum(a and not b and t for a, b, t in zip(looked, rules, truth,
                                                                                            strict=True)),
                              **in_mix(test, rules, looked)})
        pooled_rows += test
        pooled_truth += truth
        pooled_rules += rules
        pooled_looked += looked
    out["pooled"] = {"pairs": len(pooled_truth), "rules": round(f1(pooled_truth, pooled_rules), 4),
                     "second_look": round(f1(pooled_truth, pooled_looked), 4),
                     **in_mix(pooled_rows, pooled_rules, pooled_looked)}
    if mix is not None:
        out["mix"] = {"shares": {k: round(v, 4) for k, v in sorted(mix.items())},
                      "lacking": {k: f"{sum(t == p for t, p in zip(*v, strict=True))}/{len(v[0])}"
                                  for k, v in sorted(lacking.items())},
                      "not_in_mix": sorted({str(r["edit"]) for r in rows} - set(mix))}
    return out


def write_table(table: dict[str, Any], checked: dict[str, Any], log: Path) -> None:
    import textwrap

    def listing(values: Sequence[Any]) -> str:
        body = textwrap.fill(", ".join(json.dumps(v) for v in values), width=108, initial_indent=" " * 8,
                             subsequent_indent=" " * 8)
        return "[\n" + body + ",\n    ]"

    rounds = [f"round {r['round']} {r['rules']:.3f} -> {r['second_look']:.3f}" for r in checked["rounds"]]
    pairs, count = checked["pooled"]["pairs"], len(checked["rounds"])
    lines = ['"""The second look\'s shipped model (generated: python bench/judge_second_look.py --write)."""', "",
             "SECOND_LOOK: dict[str, object] = {",
             f"    \"kinds\": {listing(table['kinds'])},",
             f"    \"weights\": {listing(table['weights'])},",
             f"    \"bias\": {table['bias']},",
             f"    \"threshold\": {table['threshold']},",
             f"    \"fitted_on\": \"{log.name}, {pairs} pairs in {count} rounds\",",
             "    \"leave_one_round_out\": (",
             *(f"        \"{text}{'; ' if k < len(rounds) - 1 else ''}\"" for k, text in enumerate(rounds)),
             "    ),",
             "}", ""]
    TABLE.write_text("\n".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("log", type=Path, nargs="?", default=ROOT / "bench" / "judge_ru_firstruns.jsonl")
    parser.add_argument("--write", action="store_true", help="fit on every round, write second_look_table.py")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--mix", type=Path, help="pairs whose edit kinds the figures are weighted to (the dev split)")
    parser.add_argument("--corpus", type=Path, help="the laws' folder, for --mix pairs given as spans")
    args = parser.parse_args(argv)
    try:
        rows = load(args.log)
    except LogError as exc:
        print(exc, file=sys.stderr)
        return 2
    mix = judged = None
    if args.mix is not None:
        try:
            mix, judged = mix_of(args.mix, args.corpus)
        except ValueError as exc:  # LogError, or fragments given as spans of a law the corpus folder lacks
            print(exc, file=sys.stderr)
            return 2
    checked = check(rows, mix, judged)
    if args.write:
        write_table(fit(rows), checked, args.log)
    if args.format == "json":
        print(json.dumps(checked, indent=2))
        return 0
    print(f"{args.log}: {len(rows)} first-run verdicts; each round by a model fitted on the other rounds")
    weighted_head = "  in mix: rules  second look" if mix is not None else ""
    print("round  pairs  rules  second look  threshold  overturned (right)" + weighted_head)
    for r in checked["rounds"]:
        weighted_cols = f"  {r['rules_in_mix']:>13.3f}  {r['second_look_in_mix']:>11.3f}" if mix is not None else ""
        overturned = f"{r['overturned']} ({r['overturned_right']})"
        print(f"{r['round']:>5}  {r['pairs']:>5}  {r['rules']:.3f}  {r['second_look']:>11.3f}  {r['threshold']:>9.3f}"
              f"  {overturned:>18}" + weighted_cols)
    pooled = checked["pooled"]
    weighted_cols = (f"  {'':>9}  {'':>18}  {pooled['rules_in_mix']:>13.3f}  {pooled['second_look_in_mix']:>11.3f}"
                     if mix is not None else "")
    print(f"pooled {pooled['pairs']:>5}  {pooled['rules']:.3f}  {pooled['second_look']:>11.3f}" + weighted_cols)
    if mix is not None:
        lacking = ", ".join(f"{k} {v}" for k, v in checked["mix"]["lacking"].items()) or "none"
        print(f"in mix: weighted to the edit kinds of {args.mix}")
        print(f"kinds the rounds lack, judged today on {args.mix.name}'s own pairs (in-sample if the rules were "
              f"tuned on it): {lacking}")
        if checked["mix"]["not_in_mix"]:
            print(f"kinds not in {args.mix.name} (weight 0): {', '.join(checked['mix']['not_in_mix'])}")
    if args.write:
        print(f"wrote {TABLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
