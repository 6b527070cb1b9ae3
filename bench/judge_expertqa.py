"""The offline judge against ExpertQA's expert attribution labels.

    python bench/judge_expertqa.py PATH [--fit] [--folds 5] [--repeats 3] [--format json]

PATH is ExpertQA's lfqa jsonl (e.g. ../shared/data/expertqa/domain_val.jsonl). Each claim
with at least one passage is judged against its passages joined; Complete = supported,
Incomplete and Partial = not; N/A and unlabeled claims are skipped. Prints macro-F1,
balanced accuracy and Cohen's κ of

- the offline judge with its shipped parameters (in-sample when PATH is the data they were
  fitted on),
- the same judge refitted in grouped k-fold cross-validation (folds split by question, so a
  question's claims never sit on both sides): the honest figure for unseen data,
- the always-supported baseline.

--fit also prints the parameters a fit on all of PATH chooses (that is how DEFAULT_PARAMS
was set). Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's evals, not another install

from evals.score.judges.base import JudgeInput  # noqa: E402
from evals.score.judges.calibrate import binary_report, cross_validate, fit_params, predict  # noqa: E402
from evals.score.judges.offline import DEFAULT_PARAMS, STRICT_PARAMS, OfflineParams, extract_features  # noqa: E402

LABELS = {"Complete": True, "Incomplete": False, "Partial": False}


def load_pairs(path: Path) -> tuple[list[JudgeInput], list[bool], list[int]]:
    """(inputs, human labels, question index) for every labelled claim that has passage text."""
    inputs, truth, groups = [], [], []
    with open(path, encoding="utf-8") as handle:
        for qi, line in enumerate(handle):
            if not line.strip():
                continue
            row = json.loads(line)
            for answer in row["answers"].values():
                for claim in answer["claims"]:
                    # evidence entries are "[n] URL\n\n<passage>"; URL-only entries carry no text
                    passages = [e.split("\n\n", 1)[1] for e in claim.get("evidence") or [] if "\n\n" in e]
                    label = claim.get("support")
                    if not passages or label not in LABELS:
                        continue
                    inputs.append(JudgeInput(claim["claim_string"], ["\n".join(passages)], row.get("question")))
                    truth.append(LABELS[label])
                    groups.append(qi)
    return inputs, truth, groups


def _params(p: OfflineParams) -> dict[str, float]:
    return {"min_coverage": p.min_coverage, "beta": p.beta, "threshold": p.threshold}


def fmt(report: dict[str, float | None]) -> str:
    return "  ".join(f"{k}={'n/a' if v is None else f'{v:.3f}'}" for k, v in report.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--fit", action="store_true", help="also print the parameters a fit on all of PATH picks")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3, help="cross-validation repeats (different fold splits)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    inputs, truth, groups = load_pairs(args.path)
    if not inputs:
        print(f"{args.path}: no labelled claim with passage text", file=sys.stderr)
        return 2
    features = [extract_features(item) for item in inputs]
    shipped = binary_report(truth, predict(features, DEFAULT_PARAMS))
    strict = binary_report(truth, predict(features, STRICT_PARAMS))
    baseline = binary_report(truth, [True] * len(truth))
    cv = cross_validate(features, truth, groups, k=args.folds, seeds=tuple(range(args.repeats)))
    fitted = fit_params(features, truth) if args.fit else None
    out = {
        "pairs": len(truth),
        "supported_share": sum(truth) / len(truth),
        "offline_shipped": shipped,
        "offline_cross_validated": cv.report,
        "offline_strict": strict,
        "always_supported": baseline,
        "shipped_params": _params(DEFAULT_PARAMS),
        "cv_params": sorted({(p.min_coverage, p.beta, p.threshold) for p in cv.params}),
        "seconds": round(time.perf_counter() - started, 2),
    }
    if fitted is not None:
        out["fitted_params"] = _params(fitted)
        out["offline_fitted"] = binary_report(truth, predict(features, fitted))
    if args.format == "json":
        print(json.dumps(out, indent=2))
        return 0
    print(f"{args.path}: {len(truth)} claim/passage pairs, {sum(truth)} supported ({sum(truth) / len(truth):.1%})")
    print(f"offline, shipped params (in-sample)  {fmt(shipped)}")
    print(f"offline, {args.folds}-fold CV x{args.repeats} (grouped)  {fmt(cv.report)}")
    print(f"offline, STRICT_PARAMS (in-sample)   {fmt(strict)}")
    print(f"always-supported baseline            {fmt(baseline)}")
    print(f"shipped {_params(DEFAULT_PARAMS)}; CV folds chose {len(out['cv_params'])} distinct settings")
    if fitted is not None:
        print(f"fit on all: {_params(fitted)}  {fmt(out['offline_fitted'])}")
    print(f"({out['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
