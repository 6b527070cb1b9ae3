"""The offline judge against Russian claim–fragment pairs with labels fixed by construction.

    python bench/judge_ru.py PATH [--corpus DIR] [--folds 5] [--repeats 3] [--lemmas] [--format json]

PATH is a pairs file in ../shared/data/ru-pairs' format ({pair_id, claim, evidence: [..],
label, kind, source: {document_id, start, end}}); bench/judge_ru_own.jsonl is one, 28 pairs
written for this project over eight made-up regulation fragments (a second check on the weak
kinds). Prints, in-sample (the shipped Russian
parameters) and in k-fold cross-validation grouped by source article (each fold predicted by
parameters refitted on the other folds only; a law's article never sits on both sides):

- binary macro-F1 (supported vs not) and three-way macro-F1 (supported / partial / unsupported),
  Cohen's κ (binary and three-way) against the labels;
- per kind: the share of pairs the judge calls not supported (for kinds labelled partial or
  unsupported: detection), or supported (for supported kinds);
- the share of supported pairs called unsupported;
- beside two baselines: always "supported", and the share of the claim's content words whose
  first five letters begin an evidence word, thresholded (threshold fitted the same way).

Articles are found in the law's text under --corpus (default: ../../corpus/kz-laws/rus from
PATH's folder, else ../shared/corpus/kz-laws/rus beside the checkout), "Статья N" headings;
without it, pairs of one document within 3,000 characters of each other are one group.
bench/judge_ru_real.jsonl (392 pairs over the real Health Code, other articles than the dev
pairs', written by four helpers who saw neither the rules nor any pairs) gives its fragments as
spans of the law's file, read from that folder: the project does not copy the corpus, and no
claim there repeats eight words of it in a row. --lemmas also measures Snowball stems, pymorphy3 lemmas
(when installed) and razdel against our tokenizer and sentence splitter on PATH. Nothing is
written.
"""

from __future__ import annotations

import argparse
import bisect
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's evals, not another install

from evals.score.judges.base import JudgeInput  # noqa: E402
from evals.score.judges.calibrate import group_folds  # noqa: E402
from evals.score.judges.metrics import cohen_kappa, macro_f1  # noqa: E402
from evals.score.judges.offline import RU_PARAMS, OfflineFeatures, decide, extract_features, fit_ru_params  # noqa: E402

NOT_SUPPORTED = ("partial", "unsupported")
_HEADING = re.compile(r"(?m)^#*\s*Статья\s+\d+")
_WORD = re.compile(r"[^\W\d_]+")


REPO = Path(__file__).resolve().parents[1]


def corpus_dir(path: Path, corpus: Path | None = None) -> Path | None:
    """The laws' folder: --corpus, else ../../corpus/kz-laws/rus from PATH's folder (the dev
    pairs' place), else ../shared/corpus/kz-laws/rus beside the checkout; None when absent."""
    candidates = [corpus] if corpus is not None else [
        path.resolve().parent / ".." / ".." / "corpus" / "kz-laws" / "rus",
        REPO / ".." / "shared" / "corpus" / "kz-laws" / "rus",
    ]
    return next((c for c in candidates if c.is_dir()), None)


def load(path: Path, corpus: Path | None = None) -> list[dict[str, Any]]:
    """The pairs of PATH. A pair may give its fragments as code-point spans of the law's file
    ("evidence_spans", bench/judge_ru_real.jsonl: the project does not copy the corpus); they are
    read from the corpus folder (corpus_dir), and a ValueError names it when it is absent."""
    rows = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                rows.append(json.loads(line))
    laws: dict[str, str] = {}
    for row in rows:
        if "evidence" in row:
            continue
        folder = corpus_dir(path, corpus)
        doc = str(row["source"]["document_id"])
        if folder is None or not (folder / f"{doc}.md").is_file():
            raise ValueError(f"{path}: its fragments are spans of the law {doc}.md; give --corpus (the folder of "
                             "../shared/corpus/kz-laws/rus)")
        if doc not in laws:
            laws[doc] = (folder / f"{doc}.md").read_text(encoding="utf-8")
        row["evidence"] = [laws[doc][start:end] for start, end in row["evidence_spans"]]
    return rows


def article_groups(rows: Sequence[dict[str, Any]], corpus: Path | None) -> list[str]:
    """The source article of each pair: (document, index of the last "Статья" heading before it)."""
    starts: dict[str, list[int]] = {}
    groups = []
    for row in rows:
        doc = str(row["source"]["document_id"])
        offset = int(row["source"]["start"])
        if corpus is not None and doc not in starts and (corpus / f"{doc}.md").is_file():
            text = (corpus / f"{doc}.md").read_text(encoding="utf-8")
            starts[doc] = [m.start() for m in _HEADING.finditer(text)]
        if doc in starts:
            groups.append(f"{doc}:{bisect.bisect_right(starts[doc], offset)}")
        else:
            groups.append(f"{doc}~{offset // 3000}")
    return groups


def prefix_overlap(claim: str, evidence: Sequence[str]) -> float:
    """Share of the claim's content words whose first five letters begin an evidence word."""
    from evals.text.normalize import normalize
    from evals.text.tokens import is_stopword

    claim_words = [w for w in _WORD.findall(normalize(claim)) if not is_stopword(w)]
    evidence_words = set(_WORD.findall(normalize(" ".join(evidence))))
    held = sum(any(e.startswith(w[:5]) for e in evidence_words) for w in claim_words)
    return held / len(claim_words) if claim_words else 0.0


def best_threshold(scores: Sequence[float], truth: Sequence[bool]) -> float:
    best = (-1.0, 0.0)
    for t in sorted(set(scores)):
        f1 = macro_f1(truth, [s >= t for s in scores], labels=(True, False)).value or 0.0
        if f1 > best[0]:
            best = (f1, t)
    return best[1]


def report(labels: Sequence[str], kinds: Sequence[str], pred: Sequence[str]) -> dict[str, Any]:
    truth_bin = [lab == "supported" for lab in labels]
    pred_bin = [p == "supported" for p in pred]
    three = [p if p in ("supported", "partial", "unsupported") else "unsupported" for p in pred]
    by_kind: dict[str, list[bool]] = defaultdict(list)
    for lab, kind, p in zip(labels, kinds, three, strict=True):
        by_kind[kind].append((p == "supported") == (lab == "supported"))
    supported = [p for lab, p in zip(labels, three, strict=True) if lab == "supported"]
    return {
        "binary_macro_f1": macro_f1(truth_bin, pred_bin, labels=(True, False)).value,
        "three_way_macro_f1": macro_f1(list(labels), three, labels=("supported", "partial", "unsupported")).value,
        "kappa_binary": cohen_kappa(truth_bin, pred_bin).value,
        "kappa_three_way": cohen_kappa(list(labels), three).value,
        "supported_called_unsupported": (
            sum(p == "unsupported" for p in supported) / len(supported) if supported else None
        ),
        "by_kind": {k: [sum(v), len(v)] for k, v in sorted(by_kind.items())},
    }


def mean_reports(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in reports[0]:
        if key == "by_kind":
            kinds = reports[0]["by_kind"]
            out[key] = {k: [round(sum(r[key][k][0] for r in reports) / len(reports), 2), kinds[k][1]] for k in kinds}
        else:
            vals = [r[key] for r in reports if r[key] is not None]
            out[key] = sum(vals) / len(vals) if vals else None
    return out


def cross_validated(
    rows: Sequence[dict[str, Any]],
    groups: Sequence[str],
    predict_fold: Callable[[list[int], list[int]], list[str]],
    k: int,
    seeds: Sequence[int],
) -> dict[str, Any]:
    labels = [r["label"] for r in rows]
    kinds = [r["kind"] for r in rows]
    reports = []
    for seed in seeds:
        pred = [""] * len(rows)
        for fold in group_folds(groups, k, seed):
            held = set(fold)
            train = [i for i in range(len(rows)) if i not in held]
            for i, p in zip(fold, predict_fold(train, fold), strict=True):
                pred[i] = p
        reports.append(report(labels, kinds, pred))
    return mean_reports(reports)


def lemma_measurement(
    rows: Sequence[dict[str, Any]], groups: Sequence[str], k: int, seeds: Sequence[int]
) -> dict[str, Any]:
    """What the judge's word matching should key on: Snowball stems, pymorphy3 lemmas, or
    both (the lemma's first four letters: a word family), over all content words or only
    nouns, adjectives and participles. Each variant is the whole judge re-run (binary
    macro-F1 in-sample with its own fit, and in grouped CV); plus the speed of each analyser
    and razdel's sentences against ours."""
    from functools import cache

    from evals.score.judges import lexicon as lx
    from evals.text.normalize import normalize, split_sentences

    out: dict[str, Any] = {}
    try:
        import pymorphy3
    except ImportError:
        return {"pymorphy3": "not installed (pip install pymorphy3 pymorphy3-dicts-ru dawg2)"}
    morph = pymorphy3.MorphAnalyzer()

    @cache
    def lemma(word: str) -> str:
        return str(morph.parse(word)[0].normal_form).replace("ё", "е") if re.search("[а-я]", word) else word

    @cache
    def detail(word: str) -> bool:  # nouns, adjectives, participles: a regulation's details
        return not re.search("[а-я]", word) or morph.parse(word)[0].tag.POS in {"NOUN", "ADJF", "ADJS", "PRTF"}

    shipped_keys, shipped_content = lx.match_keys, lx.content_words
    labels = [r["label"] for r in rows]
    truth = [lab == "supported" for lab in labels]

    def only_details(norm_text: str) -> list[str]:
        return [w for w in shipped_content(norm_text) if detail(w)]

    variants: dict[str, tuple[Callable[[str], tuple[str, ...]], Callable[[str], list[str]]]] = {
        "stems, all content words (shipped)": (shipped_keys, shipped_content),
        "lemmas, all content words": (lambda w: (lemma(w),), shipped_content),
        "stem or lemma[:4], all content words": (lambda w: (lx.stem(w), "~" + lemma(w)[:4]), shipped_content),
        "stems, nouns/adjectives/participles": (shipped_keys, only_details),
        "lemmas, nouns/adjectives/participles": (lambda w: (lemma(w),), only_details),
        "stem or lemma[:4], nouns/adjectives/participles": (lambda w: (lx.stem(w), "~" + lemma(w)[:4]),
                                                            only_details),
    }
    try:
        for name, (keys, content) in variants.items():
            lx.match_keys, lx.content_words = keys, content  # type: ignore[assignment]
            feats = [extract_features(JudgeInput(r["claim"], tuple(r["evidence"]))) for r in rows]
            fitted = fit_ru_params(feats, labels)
            in_sample = macro_f1(truth, [decide(f, fitted).value == "supported" for f in feats], labels=(True, False))

            def fold(train: list[int], held: list[int], feats: list[OfflineFeatures | None] = feats) -> list[str]:
                params = fit_ru_params([feats[i] for i in train], [labels[i] for i in train])
                return [decide(feats[i], params).value for i in held]

            cv = cross_validated(rows, groups, fold, k, seeds)
            out[name] = {"in_sample": in_sample.value, "cv": cv["binary_macro_f1"]}
    finally:
        lx.match_keys, lx.content_words = shipped_keys, shipped_content  # type: ignore[assignment]
    words = [w for r in rows for w in _WORD.findall(normalize(r["claim"] + " " + " ".join(r["evidence"])))]
    started = time.perf_counter()
    for w in words:
        lx.stem.__wrapped__(w)
    out["snowball_us_per_word"] = (time.perf_counter() - started) / len(words) * 1e6
    started = time.perf_counter()
    for w in words:
        morph.parse(w)
    out["pymorphy3_us_per_word"] = (time.perf_counter() - started) / len(words) * 1e6
    try:
        import razdel
    except ImportError:
        out["razdel"] = "not installed"
        return out
    texts = [e for r in rows for e in r["evidence"]] + [r["claim"] for r in rows]
    started = time.perf_counter()
    ours = [[s.text for s in split_sentences(t)] for t in texts]
    ours_s = time.perf_counter() - started
    started = time.perf_counter()
    theirs = [[s.text for s in razdel.sentenize(t)] for t in texts]
    theirs_s = time.perf_counter() - started
    out["sentences_ours_vs_razdel"] = [sum(map(len, ours)), sum(map(len, theirs))]
    out["texts_split_identically"] = sum(a == b for a, b in zip(ours, theirs, strict=True)) / len(texts)
    out["razdel_time_over_ours"] = theirs_s / ours_s if ours_s else None
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--corpus", type=Path, default=None)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--lemmas", action="store_true", help="also measure stems vs lemmas, razdel vs ours")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    if not args.path.is_file():
        print(f"{args.path}: no such file", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        rows = load(args.path, args.corpus)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 2
    groups = article_groups(rows, corpus_dir(args.path, args.corpus))
    labels = [r["label"] for r in rows]
    kinds = [r["kind"] for r in rows]
    truth = [lab == "supported" for lab in labels]
    features: list[OfflineFeatures | None] = [
        extract_features(JudgeInput(r["claim"], tuple(r["evidence"]), r.get("question"))) for r in rows
    ]
    shipped = [decide(f, RU_PARAMS).value for f in features]
    seeds = tuple(range(args.repeats))

    def judge_fold(train: list[int], fold: list[int]) -> list[str]:
        params = fit_ru_params([features[i] for i in train], [labels[i] for i in train])
        return [decide(features[i], params).value for i in fold]

    overlap = [prefix_overlap(r["claim"], r["evidence"]) for r in rows]

    def overlap_fold(train: list[int], fold: list[int]) -> list[str]:
        t = best_threshold([overlap[i] for i in train], [truth[i] for i in train])
        return ["supported" if overlap[i] >= t else "unsupported" for i in fold]

    t_all = best_threshold(overlap, truth)
    out: dict[str, Any] = {
        "pairs": len(rows),
        "groups": len(set(groups)),
        "offline_shipped": report(labels, kinds, shipped),
        "offline_cross_validated": cross_validated(rows, groups, judge_fold, args.folds, seeds),
        "always_supported": report(labels, kinds, ["supported"] * len(rows)),
        "prefix_overlap_in_sample": report(
            labels, kinds, ["supported" if o >= t_all else "unsupported" for o in overlap]
        ),
        "prefix_overlap_cross_validated": cross_validated(rows, groups, overlap_fold, args.folds, seeds),
        "shipped_params": RU_PARAMS.__dict__,
        "reasons": dict(Counter(_reason_kind(decide(f, RU_PARAMS).reason) for f in features).most_common()),
    }
    if args.lemmas:
        out["lemmas"] = lemma_measurement(rows, groups, args.folds, seeds)
    out["seconds"] = round(time.perf_counter() - started, 2)
    if args.format == "json":
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print(f"{args.path}: {len(rows)} pairs in {out['groups']} source articles, {sum(truth)} supported")
    head = f"{'judge':34} {'bin-F1':>7} {'3-F1':>6} {'κ bin':>6} {'κ 3':>6} {'sup→uns':>7}"
    print(head)
    for name, key in (("offline, shipped (in-sample)", "offline_shipped"),
                      (f"offline, {args.folds}-fold CV x{args.repeats} by article", "offline_cross_validated"),
                      ("always supported", "always_supported"),
                      ("prefix overlap (in-sample)", "prefix_overlap_in_sample"),
                      ("prefix overlap (CV by article)", "prefix_overlap_cross_validated")):
        r = out[key]
        print(f"{name:34} {_f(r['binary_macro_f1']):>7} {_f(r['three_way_macro_f1']):>6} {_f(r['kappa_binary']):>6} "
              f"{_f(r['kappa_three_way']):>6} {_f(r['supported_called_unsupported']):>7}")
    print("\nper kind (correct binary call: supported kinds called supported, others not), in-sample | CV")
    for kind, (hit, n) in out["offline_shipped"]["by_kind"].items():
        cv_hit = out["offline_cross_validated"]["by_kind"][kind][0]
        print(f"  {kind:28} {hit:>3}/{n:<3} | {cv_hit:>5}/{n}")
    rules = ("number_changed", "bound_reversed", "negation_flipped", "modality_changed")
    hit = sum(out["offline_shipped"]["by_kind"][k][0] for k in rules if k in out["offline_shipped"]["by_kind"])
    n = sum(out["offline_shipped"]["by_kind"][k][1] for k in rules if k in out["offline_shipped"]["by_kind"])
    if n:
        print(f"number/bound/negation/modality changes caught: {hit}/{n} ({hit / n:.0%})")
    print(f"shipped {out['shipped_params']}")
    print(f"reasons: {out['reasons']}")
    if args.lemmas:
        print("\nword matching (whole judge re-run)            in-sample  CV")
        for name, value in out["lemmas"].items():
            if isinstance(value, dict):
                print(f"  {name:58} {_f(value['in_sample'])}  {_f(value['cv'])}")
            else:
                print(f"  {name}: {value if not isinstance(value, float) else round(value, 2)}")
    print(f"({out['seconds']} s)")
    return 0


def _reason_kind(reason: str) -> str:
    return reason.split(":")[0].split(" (")[0][:40]


def _f(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


if __name__ == "__main__":
    sys.exit(main())
