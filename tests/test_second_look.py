"""The second look at the Russian rules' flags (evals/score/judges/second_look.py): the model's
arithmetic by hand, the deciding rule in the verdict's order, the shipped table as the fit of
the committed first-run log, and the judge's use of it."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from evals.score.judges import second_look as sl
from evals.score.judges.offline import RU_HARD_RULES, RU_PARAMS, RU_PARTIAL_RULES, OfflineFeatures, decide_russian

ROOT = Path(__file__).resolve().parents[1]


def test_probability_is_the_logistic_of_the_weighted_sum() -> None:
    table = {"kinds": ["a", "b"], "weights": [1.0, -2.0, 0.5, 0, 0, 0, 0], "bias": -0.25}
    # kind "a", coverage 0.8: z = -0.25 + 1.0 + 0.5 * 0.8 = 1.15
    assert sl.probability("a", [0.8, 0, 0, 0, 0], table) == pytest.approx(1 / (1 + math.exp(-1.15)))
    # kind "b": z = -0.25 - 2.0 + 0.4 = -1.85; an unknown kind: z = -0.25 + 0.4 = 0.15
    assert sl.probability("b", [0.8, 0, 0, 0, 0], table) == pytest.approx(1 / (1 + math.exp(1.85)))
    assert sl.probability("zzz", [0.8, 0, 0, 0, 0], table) == pytest.approx(1 / (1 + math.exp(-0.15)))


def test_the_deciding_rule_is_read_in_the_verdicts_order() -> None:
    def kind(**fields: object) -> str:
        base = {"coverage": 0.9, **fields}
        return sl.rule_kind(SimpleNamespace(**base), RU_HARD_RULES, RU_PARTIAL_RULES, 0.35)

    assert kind() == "supported"
    assert kind(detail_added="d") == "detail_added"
    assert kind(detail_added="d", universal_added="u") == "universal_added"  # a partial rule before the detail
    assert kind(universal_added="u", coverage=0.2) == "low_coverage"  # coverage before the partial rules
    assert kind(missing_numbers=("5",), coverage=0.2, actor_conflict="a") == "missing_numbers"  # hard rules first


def test_the_shipped_table_is_the_fit_of_the_committed_log() -> None:
    pytest.importorskip("sklearn")
    sys.path.insert(0, str(ROOT / "bench"))
    from judge_second_look import fit, load

    fitted = fit(load(ROOT / "bench" / "judge_ru_firstruns.jsonl"))
    shipped = sl.shipped()
    assert fitted["kinds"] == shipped["kinds"] and fitted["threshold"] == shipped["threshold"]
    assert fitted["weights"] == pytest.approx(shipped["weights"], abs=1e-4)
    assert fitted["bias"] == pytest.approx(shipped["bias"], abs=1e-4)


def test_the_log_holds_no_text_of_the_sets() -> None:
    keys = {"pair_id", "round", "label", "edit", "kind", *sl.OVERLAP}
    with open(ROOT / "bench" / "judge_ru_firstruns.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    assert len(rows) == 2640 and all(set(r) == keys for r in rows)


def test_figures_weighted_to_another_mix_of_edit_kinds() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from judge_second_look import f1, weighted

    rows = [{"edit": "a", "label": "supported"}, {"edit": "a", "label": "unsupported"},
            {"edit": "b", "label": "unsupported"}, {"edit": "d", "label": "supported"}]
    # the mix: half a, a quarter b, a quarter c (which the rows lack: judged elsewhere, one pair
    # supported and called not); d is not in the mix and weighs nothing
    truth, pred, weights = weighted(rows, [True, True, False, True], {"a": 0.5, "b": 0.25, "c": 0.25},
                                    {"c": ([True], [False])})
    assert weights == [0.25, 0.25, 0.25, 0.0, 0.25] and truth[-1] is True and pred[-1] is False
    # supported: 2·tp = 0.5 (a1) over predicted 0.5 (a1, a2) + actual 0.5 (a1, c) -> 0.5;
    # not supported: 2·tp = 0.5 (b) over predicted 0.5 (b, c) + actual 0.5 (a2, b) -> 0.5
    assert f1(truth, pred, weights) == pytest.approx(0.5)
    # unweighted, the five rows: supported 2·2 / (3 + 3), not supported 2·1 / (2 + 2)
    assert f1(truth, pred) == pytest.approx((4 / 6 + 2 / 4) / 2)


def _features(**fields: object) -> OfflineFeatures:
    base: dict[str, object] = {"tokens": 12, "matched": 10, "content": 8, "coverage": 0.9, "missing_numbers": (),
                               "bound_conflicts": (), "negation_flips": (), "modality_gap": False, "aligned": None,
                               "lang": "ru", "missing_words": ("слово",)}
    return OfflineFeatures(**{**base, **fields})  # type: ignore[arg-type]


def test_a_changed_number_is_never_overturned() -> None:
    # the log's number flags were right 112 times of 118: whatever the overlap, the flag stands
    for coverage in (0.4, 0.7, 1.0):
        for matched in (0, 6, 12):
            result = decide_russian(_features(missing_numbers=("5",), coverage=coverage, matched=matched), RU_PARAMS)
            assert result.value == "unsupported"


def test_the_judge_overturns_exactly_the_flags_the_model_trusts() -> None:
    """Over flags of several rules and overlaps: supported (the rules' reason kept) exactly where
    the model's P(supported) reaches the shipped threshold, else the rules' own verdict."""
    table = sl.shipped()
    detail = "claim adds a detail the fragment does not state: x y"
    seen = set()
    for fields in ({"detail_added": detail}, {"negation_flips": ("claim negates 'x'",)}, {"actor_conflict": "claim names x"}):
        for coverage, matched, tokens, missing in ((1.0, 12, 12, ()), (0.7, 4, 12, ("a", "b")),
                                                   (0.6, 6, 20, ("a", "b", "c")), (0.5, 3, 30, ("a", "b", "c", "d"))):
            features = _features(**fields, coverage=coverage, matched=matched, tokens=tokens, missing_words=missing)
            kind = sl.rule_kind(features, RU_HARD_RULES, RU_PARTIAL_RULES, RU_PARAMS.partial_coverage)
            trusted = sl.probability(kind, sl.overlap(features), table) >= table["threshold"]
            result = decide_russian(features, RU_PARAMS)
            assert (result.value == "supported") is trusted
            assert result.reason.startswith("second look: ") is trusted
            seen.add(trusted)
    assert seen == {True, False}  # the grid holds both outcomes


@pytest.mark.parametrize(
    ("argv", "lines", "expected"),
    [
        (["LOG"], ['{"pair_id": "a", "round": 1}', ""], ":1: missing label, edit, kind, coverage"),
        (["LOG"], ["", "{not json"], ":2: not JSON"),
        (["--mix", "LOG"], ['{"claim": "x", "evidence": ["y"], "label": "supported", "kind": "k"}', '{"claim": "x"}'],
         ":2: missing label, kind, evidence"),
    ],
)
def test_a_bad_log_or_mix_file_names_its_line_and_exits_2(tmp_path: Path, argv: list[str], lines: list[str],
                                                           expected: str) -> None:
    import subprocess

    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = [str(bad) if a == "LOG" else a for a in argv]
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "judge_second_look.py"), *args],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"{bad}{expected}")
