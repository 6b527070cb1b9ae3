"""Calibration of the offline judge's score as P(supported), and what an LLM cascade buys.

    python bench/judge_calibration.py [--ru PATH [PATH …]] [--expertqa PATH] [--folds 5] [--repeats 3]
                                      [--write] [--format json]

--ru: Russian pairs in ../shared/data/ru-pairs' format (grouped by source article, as
bench/judge_ru.py does), several sets pooled; --expertqa: ExpertQA's lfqa jsonl (grouped by question). For each set:

- cross-fitted (grouped k-fold): in every fold the rule parameters AND the calibration are
  fitted on the other folds only, and the held-out fold's scores are pooled: ECE over 10 bins,
  the reliability table, binary macro-F1 of the verdicts;
- the cascade curve: macro-F1 when the least confident share of pairs (lowest P that the
  verdict is right) goes to a judge that answers correctly, for shares 0 … 0.5;
- the shipped table's ECE in-sample (the table is fitted on all of PATH: in-sample, flattering).

--write refits the calibration on all of each given set and writes
evals/score/judges/calibration_table.py. Tests pass without the data: nothing here runs in them.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's evals, not another install
sys.path.insert(0, str(Path(__file__).resolve().parent))

from evals.score.judges import calibration  # noqa: E402
from evals.score.judges.base import JudgeInput  # noqa: E402
from evals.score.judges.calibrate import fit_params, group_folds  # noqa: E402
from evals.score.judges.metrics import macro_f1  # noqa: E402
from evals.score.judges.offline import (  # noqa: E402
    DEFAULT_PARAMS,
    RU_PARAMS,
    OfflineFeatures,
    OfflineParams,
    calibration_vector,
    decide,
    extract_features,
    fit_ru_params,
)

SHARES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5)
TABLE = Path(__file__).resolve().parents[1] / "evals" / "score" / "judges" / "calibration_table.py"


def cascade_f1(values: Sequence[str], probs: Sequence[float], truth: Sequence[bool], share: float) -> float:
    """Binary macro-F1 when the least confident `share` of verdicts is replaced by the truth."""
    confidence = [p if v == "supported" else 1 - p for v, p in zip(values, probs, strict=True)]
    order = sorted(range(len(values)), key=lambda i: confidence[i])
    sent = set(order[: round(share * len(values))])
    pred = [truth[i] if i in sent else values[i] == "supported" for i in range(len(values))]
    return macro_f1(list(truth), pred, labels=(True, False)).value or 0.0


def _vectors(features: Sequence[OfflineFeatures | None], params: OfflineParams) -> tuple[list[str], list[list[float]]]:
    values, vectors = [], []
    for f in features:
        value = decide(f, params).value
        values.append(value)
        vectors.append(calibration_vector(f, value) if f is not None else [])
    return values, vectors


def cross_fitted(
    features: Sequence[OfflineFeatures | None],
    labels: Sequence[str],
    groups: Sequence[Hashable],
    fit_rules: Callable[[list[OfflineFeatures | None], list[str]], OfflineParams],
    k: int,
    seeds: Sequence[int],
) -> dict[str, Any]:
    truth = [lab == "supported" for lab in labels]
    eces, f1s, curves, tables = [], [], [], []
    for seed in seeds:
        probs: list[float] = [0.5] * len(truth)
        values: list[str] = [""] * len(truth)
        for fold in group_folds(groups, k, seed):
            held = set(fold)
            train = [i for i in range(len(truth)) if i not in held]
            params = fit_rules([features[i] for i in train], [labels[i] for i in train])
            train_values, train_vectors = _vectors([features[i] for i in train], params)
            usable = [j for j, v in enumerate(train_vectors) if v]
            weights = calibration.fit_weights([train_vectors[j] for j in usable], [truth[train[j]] for j in usable])
            fold_values, fold_vectors = _vectors([features[i] for i in fold], params)
            for i, value, vector in zip(fold, fold_values, fold_vectors, strict=True):
                values[i] = value
                probs[i] = calibration.probability(vector, weights) if vector else 0.5
        rel = calibration.reliability(probs, truth)
        eces.append(rel.ece or 0.0)
        tables.append(rel)
        f1s.append(macro_f1(truth, [v == "supported" for v in values], labels=(True, False)).value or 0.0)
        curves.append([cascade_f1(values, probs, truth, s) for s in SHARES])
    return {
        "ece": sum(eces) / len(eces),
        "binary_macro_f1": sum(f1s) / len(f1s),
        "cascade_oracle_macro_f1": {str(s): round(sum(c[i] for c in curves) / len(curves), 4)
                                    for i, s in enumerate(SHARES)},
        "reliability_seed0": tables[0],
    }


def in_sample(features: Sequence[OfflineFeatures | None], labels: Sequence[str], params: OfflineParams,
              weights: list[float]) -> dict[str, Any]:
    truth = [lab == "supported" for lab in labels]
    values, vectors = _vectors(features, params)
    probs = [calibration.probability(v, weights) if v else 0.5 for v in vectors]
    return {"ece": calibration.reliability(probs, truth).ece,
            "cascade_oracle_macro_f1": {str(s): round(cascade_f1(values, probs, truth, s), 4) for s in SHARES}}


def fit_all(features: Sequence[OfflineFeatures | None], labels: Sequence[str], params: OfflineParams) -> list[float]:
    truth = [lab == "supported" for lab in labels]
    values, vectors = _vectors(features, params)
    usable = [i for i, v in enumerate(vectors) if v]
    return calibration.fit_weights([vectors[i] for i in usable], [truth[i] for i in usable])


def load_sets(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    sets: dict[str, dict[str, Any]] = {}
    if args.ru:
        from judge_ru import article_groups, corpus_dir, load

        rows, groups = [], []
        for path in args.ru:  # several sets pool; each keeps its own groups (sources differ by document)
            these = load(path)
            rows += these
            groups += article_groups(these, corpus_dir(path))
        sets["ru"] = {
            "paths": args.ru, "labels": [r["label"] for r in rows],
            "features": [extract_features(JudgeInput(r["claim"], tuple(r["evidence"]), r.get("question")))
                         for r in rows],
            "groups": groups, "fit_rules": fit_ru_params, "params": RU_PARAMS,
        }
    if args.expertqa is not None:
        from judge_expertqa import load_pairs

        inputs, truth, groups = load_pairs(args.expertqa)

        def fit_en(feats: list[OfflineFeatures | None], labels: list[str]) -> OfflineParams:
            return fit_params(feats, [lab == "supported" for lab in labels])

        sets["en"] = {
            "paths": [args.expertqa], "labels": ["supported" if t else "unsupported" for t in truth],
            "features": [extract_features(i) for i in inputs], "groups": groups,
            "fit_rules": fit_en, "params": DEFAULT_PARAMS,
        }
    return sets


def write_table(fitted: dict[str, tuple[list[float], str]], checked: dict[str, dict[str, Any]]) -> None:
    """calibration_table.py with the languages refitted here; a language not given keeps its
    shipped entry as it is (refitting Russian must not wipe the English coefficients)."""
    entries: dict[str, dict[str, Any]] = {}
    for lang in ("ru", "en"):
        if lang not in fitted:
            entries[lang] = dict(calibration.CALIBRATION[lang])
            continue
        weights, source = fitted[lang]
        entry: dict[str, Any] = {"weights": [round(w, 6) for w in weights], "fitted_on": source}
        if lang in checked:  # the cross-fitted check, shown in reports' Method section
            entry["cross_fitted_ece"] = round(checked[lang]["ece"], 4)
            entry["cross_fitted_macro_f1"] = round(checked[lang]["binary_macro_f1"], 4)
            entry["reliability"] = [[b.low, b.high, b.n, b.mean_predicted, b.observed]
                                    for b in checked[lang]["reliability_seed0"].bins if b.n]
        entries[lang] = entry
    lines = ['"""Shipped calibration coefficients (generated: python bench/judge_calibration.py --write)."""', "",
             "CALIBRATION: dict[str, dict[str, object]] = {"]
    for lang, entry in entries.items():
        lines.append(f"    {json.dumps(lang)}: {{")
        lines.append(f"        \"features\": {json.dumps(','.join(calibration.FEATURES))},")
        lines.append(f"        \"weights\": {json.dumps(entry['weights'])},")
        parts = [json.dumps(part, ensure_ascii=False) for part in str(entry["fitted_on"]).split(" + ")]  # a set a line
        joined = "\n            ".join(f"{part[:-1]} + \"" if i < len(parts) - 1 else part
                                       for i, part in enumerate(parts))
        lines.append(f"        \"fitted_on\": ({joined}),")
        if "reliability" in entry:
            lines.append(f"        \"cross_fitted_ece\": {entry['cross_fitted_ece']},")
            lines.append(f"        \"cross_fitted_macro_f1\": {entry['cross_fitted_macro_f1']},")
            lines.append("        \"reliability\": [")
            for low, high, n, predicted, observed in entry["reliability"]:
                lines.append(f"            [{float(low):.1f}, {float(high):.1f}, {n}, {predicted}, {observed}],")
            lines.append("        ],")
        lines.append("    },")
    lines.append("}")
    TABLE.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--ru", type=Path, nargs="+", default=None, help="one or more Russian pair sets, pooled")
    parser.add_argument("--expertqa", type=Path, default=None)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="refit on all of each set, write calibration_table.py")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    sets = load_sets(args)
    if not sets:
        print("give --ru PATH and/or --expertqa PATH", file=sys.stderr)
        return 2
    out: dict[str, Any] = {}
    fitted: dict[str, tuple[list[float], str]] = {}
    checked: dict[str, dict[str, Any]] = {}
    for lang, data in sets.items():
        cv = cross_fitted(data["features"], data["labels"], data["groups"], data["fit_rules"], args.folds,
                          tuple(range(args.repeats)))
        checked[lang] = cv
        weights = fit_all(data["features"], data["labels"], data["params"])
        names = " + ".join(f"{p.parent.name}/{p.name}" for p in data["paths"])
        fitted[lang] = (weights, f"{names}, {len(data['labels'])} pairs")
        shipped = in_sample(data["features"], data["labels"], data["params"], calibration.shipped_weights(lang))
        out[lang] = {"pairs": len(data["labels"]), "cross_fitted": cv, "shipped_in_sample": shipped,
                     "weights_fit_on_all": dict(zip(calibration.FEATURES, weights, strict=True))}
    if args.write:
        write_table(fitted, checked)
    out["seconds"] = round(time.perf_counter() - started, 2)
    if args.format == "json":
        print(json.dumps(out, indent=2, default=lambda o: o.to_json()))
        return 0
    for lang in sets:
        r = out[lang]
        cv = r["cross_fitted"]
        print(f"[{lang}] {r['pairs']} pairs; {args.folds}-fold grouped CV x{args.repeats}, rules and calibration "
              f"refitted per fold")
        print(f"  binary macro-F1 {cv['binary_macro_f1']:.3f}; ECE (cross-fitted) {cv['ece']:.3f}; "
              f"shipped table in-sample ECE {_f(r['shipped_in_sample']['ece'])}")
        print("  cascade to a correct judge, share sent → macro-F1 (cross-fitted): "
              + ", ".join(f"{s}: {v:.3f}" for s, v in cv["cascade_oracle_macro_f1"].items()))
        print("  " + cv["reliability_seed0"].to_text().replace("\n", "\n  ").rstrip())
    if args.write:
        print(f"wrote {TABLE}")
    print(f"({out['seconds']} s)")
    return 0


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    sys.exit(main())
