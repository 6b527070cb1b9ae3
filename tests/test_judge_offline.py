"""The offline support judge on hand-worked Russian (and English) claims, its calibration, and
the ExpertQA bench script on a tiny file in ExpertQA's format."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from evals.score.judges import lexicon as lx
from evals.score.judges import make_judge
from evals.score.judges.base import JudgeInput, JudgeUnit, support_judgments
from evals.score.judges.calibrate import binary_report, cross_validate, fit_params, group_folds, predict
from evals.score.judges.metrics import balanced_accuracy, cohen_kappa, macro_f1, precision_recall
from evals.score.judges.offline import (
    DEFAULT_PARAMS,
    RU_PARAMS,
    STRICT_PARAMS,
    OfflineJudge,
    decide,
    extract_features,
    fit_ru_params,
    is_supported,
)

ROOT = Path(__file__).resolve().parents[1]

# Hand-written regulation-style passage (not taken from any real document).
EVIDENCE = (
    "4.2. Медицинские сёстры проходят обучение по охране труда не реже одного раза в 12 месяцев. "
    "Курение на территории организации запрещается. "
    "Заявление рассматривается в течение 10 рабочих дней со дня его регистрации. "
    "Работник вправе отказаться от выполнения работ при возникновении опасности для его жизни."
)
judge = OfflineJudge()


def verdict(claim: str, evidence: str = EVIDENCE):
    return judge.judge_one(JudgeInput(claim, [evidence]))


def test_number_mismatch_is_unsupported() -> None:
    # the brief's case: "не реже одного раза в 6 месяцев" against evidence that says 12
    result = verdict("Обучение проводится не реже одного раза в 6 месяцев.")
    assert result.value == "unsupported"
    assert result.reason == "number not in evidence: 6"
    # the score is P(supported) from the shipped calibration: a hard rule keeps it low
    assert result.score is not None and 0 < result.score < 0.1


def test_paraphrase_with_the_same_numbers_is_supported() -> None:
    # content words of the claim (stop words, "не реже", the number and its unit dropped;
    # "медсёстры" read as "медицинская сестры"): медицинская сестры обучаются охране труда раза →
    # the evidence holds every stem but "обучаются" (обуча; the evidence has "обучение", обучен) → 5/6
    claim = "Медсёстры обучаются охране труда не реже раза в 12 месяцев."
    result = verdict(claim)
    features = extract_features(JudgeInput(claim, [EVIDENCE]))
    assert features is not None and features.lang == "ru"
    assert features.missing_words == ("обучаются",) and features.coverage == pytest.approx(5 / 6)
    assert result.value == "supported" and "83% of claim content words held" in result.reason


def test_english_overlap_score() -> None:
    # English keeps the ExpertQA-fitted overlap: tokens staff complet fire safeti train at least
    # 1 everi 12 month (11); every bigram but (staff, complet) is in the evidence → 10 matched
    evidence = "Staff must complete fire safety training at least once every 12 months."
    claim = "Staff complete fire safety training at least once every 12 months."
    features = extract_features(JudgeInput(claim, [evidence]))
    assert features is not None and features.lang == "en"
    assert (features.tokens, features.matched) == (11, 10)
    assert features.overlap(DEFAULT_PARAMS.beta) == pytest.approx(10 / 11 + 0.22 * math.log(11))
    assert verdict(claim, evidence).reason.startswith("10/11 claim tokens")


def test_number_written_as_words_matches_digits() -> None:
    result = verdict("Не реже одного раза в двенадцать месяцев медицинские сестры проходят обучение по охране труда.")
    assert result.value == "supported"


def test_negation_flip_is_unsupported() -> None:
    result = verdict("Медицинские сёстры не проходят обучение по охране труда.")
    assert result.value == "unsupported"
    assert result.reason == "negation differs: claim negates 'проход', the other does not"


def test_prohibition_against_permission_is_unsupported() -> None:
    result = verdict("Курение на территории организации разрешается.")
    assert (result.value, result.reason) == ("unsupported", "claim states a permission, the fragment a prohibition")


def test_reversed_bound_is_unsupported() -> None:
    result = verdict("Медицинские сестры проходят обучение по охране труда не более одного раза в 12 месяцев.")
    assert result.value == "unsupported"
    assert result.reason == "claim says at most 1, evidence at least"  # "одного" is read as 1


def test_negated_permission_is_caught_by_scope() -> None:
    result = verdict("Работник не вправе отказаться от выполнения работ при возникновении опасности.")
    assert result.value == "unsupported"
    assert "отказа" in result.reason


def test_obligation_backed_by_permission_is_unsupported() -> None:
    result = verdict("Работник обязан отказаться от выполнения работ при возникновении опасности для его жизни.")
    assert (result.value, result.reason) == ("unsupported", "claim states an obligation, the fragment a permission")


def test_english_obligation_backed_by_permission_is_partial() -> None:
    evidence = "Employees may refuse work when it endangers their life."
    result = verdict("Employees must refuse work when it endangers their life.", evidence)
    assert (result.value, result.reason) == ("partial", "claim states an obligation, the evidence a permission")


def test_unrelated_claim_is_unsupported_and_exact_copy_supported() -> None:
    assert verdict("Врачи получают премию ежеквартально.").value == "unsupported"
    copy = verdict("Заявление рассматривается в течение 10 рабочих дней со дня его регистрации.")
    # calibrated: on the dev pairs a fully covered "supported" verdict is right about 3 times in 5
    # (dropped conditions look the same), so the copy's P(supported) is above 0.5, not near 1
    assert copy.value == "supported" and copy.score is not None and copy.score > 0.5


def test_half_invented_claim_is_partial_below_the_coverage_floor() -> None:
    claim = "Медицинские сёстры проходят обучение и сдают экзамен по пожарной безопасности на курсах."
    features = extract_features(JudgeInput(claim, [EVIDENCE]))
    assert features is not None
    # content stems: медицинск сестр проход обучен сда экзам пожарн безопасн курс → 4 of 9 in evidence
    assert features.coverage == pytest.approx(4 / 9)
    assert features.missing_words == ("сдают", "экзамен", "пожарной", "безопасности", "курсах")
    floor = replace(RU_PARAMS, min_coverage=0.5)
    result = decide(features, floor)
    assert (result.value, result.reason) == (
        "partial", "claim adds what the fragment does not hold: сдают, экзамен, пожарной, безопасности")
    assert decide(features, replace(RU_PARAMS, partial_coverage=0.5, min_coverage=0.5)).value == "unsupported"


def test_english_cues() -> None:
    evidence = "Staff must complete fire safety training at least once every 12 months."
    assert verdict("Staff complete fire safety training at least once every 12 months.", evidence).value == "supported"
    assert verdict("Staff complete fire safety training at most once every 12 months.", evidence).value == "unsupported"
    assert verdict("Staff do not complete fire safety training every 12 months.", evidence).value == "unsupported"
    assert verdict("Staff complete fire safety training at least once every 6 months.", evidence).value == "unsupported"


def test_english_negation_paraphrased_on_the_affirming_side_is_no_flip() -> None:
    # "cannot be gram stained" / "not visible with the gram stain": both sides negate, in other
    # words; "fail to disclose" says "not disclose" with a verb. A plain affirmation still flips.
    assert lx.polarity_flips("mycobacteria cannot be gram stained.", "mycobacteria are not visible with the gram stain.") == []
    assert lx.polarity_flips("manufacturers may not disclose the ingredients.",
                             "manufacturers fail to disclose the ingredients.") == []
    # (a flip is listed once per neighbour it shares: before it and after it)
    assert set(lx.polarity_flips("manufacturers may not disclose the ingredients.",
                                 "manufacturers disclose the ingredients.")) == {"claim negates 'disclos', the other does not"}
    assert set(lx.polarity_flips("the clinic keeps records.", "the clinic does not keep records of visits.")) == {
        "evidence negates 'keep', the other does not"}
    # "not more than" is a bound, not a negation: the side that says it still affirms
    assert set(lx.polarity_flips("staff do not complete training.", "staff complete training not more than twice.")) == {
        "claim negates 'complet', the other does not"}


def test_cannot_judge_without_evidence_or_words() -> None:
    assert verdict("Обучение проводится ежегодно.", "").value == "cannot_judge"
    blank = judge.judge_one(JudgeInput("[1]", ["Текст."]))
    assert blank.value == "cannot_judge" and blank.score is None


def test_markers_are_not_numbers() -> None:
    assert verdict("Заявление рассматривается в течение 10 рабочих дней [1], [E2, E3].").value == "supported"


def test_deterministic_and_batch_equals_single() -> None:
    items = [JudgeInput(c, [EVIDENCE]) for c in ("Курение запрещается.", "Обучение раз в 6 месяцев.")]
    assert judge.judge(items) == [judge.judge_one(i) for i in items] == OfflineJudge().judge(items)
    assert make_judge("offline").judge(items) == judge.judge(items)


def test_is_supported_agrees_with_decide() -> None:
    claims = ["Медсёстры обучаются охране труда не реже раза в 12 месяцев.", "Курение разрешается.",
              "Врачи получают премию.", "Медицинские сёстры проходят обучение и сдают экзамен ежегодно."]
    for claim in claims:
        features = extract_features(JudgeInput(claim, [EVIDENCE]))
        for params in (DEFAULT_PARAMS, STRICT_PARAMS):
            assert is_supported(features, params) == (decide(features, params).value == "supported")


def test_lexicon_pieces() -> None:
    norm = lx.prepare("Не реже 1 раза в 6 месяцев; не более 5 дней [3].")
    assert [(c.value, c.bound) for c in lx.number_cues(norm)] == [("1", "lower"), ("6", "lower"), ("5", "upper")]
    assert lx.negation_count(norm) == 0  # bound phrases are not negations
    assert lx.token_stream(lx.prepare("шести месяцев")) == ["6", "месяц"]
    assert lx.number_values(lx.prepare("катализатор C3 и 12 мг"), codes=False) == {"12"}
    assert lx.deontic(lx.prepare("Курение не допускается")) == "prohibit"


def test_support_judgments_rows() -> None:
    unit = JudgeUnit("q1", "c1", "E1", JudgeInput("Курение на территории организации запрещается.", [EVIDENCE]))
    result = judge.judge_one(unit.input)
    at = datetime(2025, 1, 1, tzinfo=timezone.utc)
    [row] = support_judgments("run-1", judge.name, [unit], [result], at=at)
    data = json.loads(row.model_dump_json())
    assert data["source"] == "auto:offline" and data["field"] == "support" and data["value"] == "supported"
    assert data["comment"] == result.reason and data["score"] == result.score
    assert (data["question_id"], data["claim_id"], data["evidence_id"]) == ("q1", "c1", "E1")


def test_metrics_match_scikit_learn() -> None:
    sklearn = pytest.importorskip("sklearn.metrics")
    truth = ["supported", "partial", "unsupported", "supported", "supported", "unsupported"]
    pred = ["supported", "unsupported", "unsupported", "partial", "supported", "supported"]
    assert cohen_kappa(truth, pred).value == pytest.approx(sklearn.cohen_kappa_score(truth, pred))
    assert macro_f1(truth, pred).value == pytest.approx(sklearn.f1_score(truth, pred, average="macro"))
    assert balanced_accuracy(truth, pred).value == pytest.approx(sklearn.balanced_accuracy_score(truth, pred))
    precision, recall = precision_recall(truth, pred, "unsupported")
    assert precision.value == pytest.approx(0.5) and recall.value == pytest.approx(0.5)
    same = cohen_kappa(["supported"] * 3, ["supported"] * 3)
    assert same.value is None and "undefined" in (same.reason or "")
    # weights: scikit-learn's sample_weight, and an integer weight is the unit repeated
    weights = [2.0, 1.0, 0.5, 3.0, 1.0, 0.25]
    assert macro_f1(truth, pred, weights=weights).value == pytest.approx(
        sklearn.f1_score(truth, pred, average="macro", sample_weight=weights))
    counts = [2, 1, 1, 3, 1, 2]
    repeated = [(t, p) for t, p, k in zip(truth, pred, counts, strict=True) for _ in range(k)]
    assert macro_f1(truth, pred, weights=counts).value == pytest.approx(
        macro_f1([t for t, _ in repeated], [p for _, p in repeated]).value)


def _toy_features():
    claims = [
        ("Медсёстры обучаются охране труда не реже раза в 12 месяцев.", True),
        ("Заявление рассматривается в течение 10 рабочих дней.", True),
        ("Курение на территории организации запрещается.", True),
        ("Врачи получают премию ежеквартально.", False),
        ("Обучение проводится раз в 6 месяцев.", False),
        ("Пациенты оплачивают парковку при выезде.", False),
    ]
    features = [extract_features(JudgeInput(c, [EVIDENCE])) for c, _ in claims]
    return features, [t for _, t in claims]


def test_fit_and_cross_validate_on_toy_data() -> None:
    features, truth = _toy_features()
    params = fit_params(features, truth)
    assert binary_report(truth, predict(features, params))["macro_f1"] == 1.0
    groups = [0, 0, 1, 1, 2, 2]
    folds = group_folds(groups, 3, seed=0)
    assert sorted(i for f in folds for i in f) == list(range(6))
    assert all(len({groups[i] for i in f}) <= 1 for f in folds)
    cv = cross_validate(features, truth, groups, k=3, seeds=(0,))
    assert set(cv.report) == {"macro_f1", "balanced_accuracy", "cohen_kappa"} and len(cv.params) == 3


def test_bench_script_on_expertqa_format(tmp_path: Path) -> None:
    claims = []
    for i, (claim, label) in enumerate([
        ("Nurses complete safety training at least once every 12 months [1].", "Complete"),
        ("Smoking is prohibited on the premises [1].", "Complete"),
        ("Doctors receive a quarterly bonus [1].", "Incomplete"),
        ("Parking is free for all visitors [1].", "Partial"),
        ("Something nobody labelled [1].", "N/A"),
    ]):
        claims.append({"claim_string": claim, "support": label, "evidence": [
            f"[1] https://example.org/{i}\n\nNurses complete safety training at least once every 12 months. "
            "Smoking is prohibited on the premises."]})
    claims.append({"claim_string": "URL only evidence [1].", "support": "Complete", "evidence": ["[1] https://x.org"]})
    row = {"question": "What are the rules?", "answers": {"rr_gs_gpt4": {"claims": claims}}}
    path = tmp_path / "val.jsonl"
    path.write_text(json.dumps(row) + "\n" + json.dumps({**row, "question": "Second?"}) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "judge_expertqa.py"), str(path), "--format", "json",
                           "--folds", "2", "--repeats", "1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["pairs"] == 8  # 4 labelled claims with passage text × 2 questions; N/A and URL-only skipped
    assert out["offline_shipped"]["macro_f1"] == 1.0
    assert out["always_supported"] == {"macro_f1": pytest.approx(1 / 3), "balanced_accuracy": 0.5, "cohen_kappa": 0.0}


# --- Russian regulation rules: one obvious case each, with the reason that must fire --------

RU_RULES = [
    # (claim, evidence fragments, verdict, reason prefix)
    ("Аборт по желанию женщины проводится при сроке до двенадцати недель.",
     ["Искусственное прерывание беременности по желанию женщины проводится при сроке до 12 недель."],
     "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Донором может быть гражданин от восемнадцати до тридцати пяти лет.",
     ["Донором может быть гражданин в возрасте от 18 до 40 лет."], "unsupported", "number not in evidence: 35"),
    ("Больничный выдаётся на 12 недель.", ["Больничный лист выдается на 12 месяцев."],
     "unsupported", "number not in evidence: 12"),
    ("Журнал хранится в течение 12 месяцев.", ["Журнал хранится в течение года."], "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Аттестация проводится не чаще одного раза в пять лет.", ["Аттестация проводится не реже одного раза в пять лет."],
     "unsupported", "claim says at most 1, evidence at least"),
    ("Вакцинация проводится после 18 лет.", ["Вакцинация проводится до 18 лет."],
     "unsupported", "claim says at least 18, evidence at most"),
    ("Встать на учёт нужно не раньше двенадцатой недели беременности.",
     ["Беременная обязана встать на учет до двенадцати недель беременности."],
     "unsupported", "claim says at least 12, evidence at most"),
    ("Прививку проводят детям до 16 лет.", ["Прививка проводится детям 16 лет и старше."],
     "unsupported", "claim says at most 16, evidence at least"),
    ("Прививка не проводится детям.", ["Прививка проводится детям с согласия родителей."],
     "unsupported", "negation differs: claim negates 'провод'"),
    ("Да, прививка проводится детям с согласия родителей.", ["Прививка проводится детям с согласия родителей."],
     "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Медицинская помощь в поликлинике оказывается бесплатно.",
     ["Медицинская помощь в поликлинике оказывается бесплатно, за исключением косметологических услуг."],
     "partial", "claim drops the exception 'за исключением"),
    ("Медицинская помощь в поликлинике оказывается бесплатно, кроме косметологических услуг.",
     ["Медицинская помощь в поликлинике оказывается бесплатно, за исключением косметологических услуг."],
     "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Работодатель вправе обеспечить работников средствами защиты.",
     ["Работодатель обязан обеспечить работников средствами индивидуальной защиты."],
     "unsupported", "claim states a permission, the fragment an obligation"),
    ("Работодатель должен обеспечить работников средствами защиты.",
     ["Работодатель обязан обеспечить работников средствами индивидуальной защиты."], "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Врач проводит инструктаж пациентов перед процедурой.",
     ["Медицинская сестра проводит инструктаж пациентов перед процедурой."],
     "unsupported", "claim names врач, the fragment медицинская сестра"),
    ("Медсестра проводит инструктаж пациентов перед процедурой.",
     ["Медицинская сестра проводит инструктаж пациентов перед процедурой."], "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Пациента переводят в другое отделение, потому что там больше коек.",
     ["Пациента переводят в другое отделение по решению лечащего врача."],
     "unsupported", "claim gives a cause ('потому что')"),
    ("Любые пациенты получают лекарства бесплатно.",
     ["Пациенты, состоящие на диспансерном учете, получают лекарства бесплатно."],
     "partial", "claim generalises: 'любые'"),
    # "все", "каждый" over a class the fragment narrows; their idioms quantify nothing
    ("Все медицинские вузы обладают академической автономией.",
     ["Медицинские вузы, созданные в форме некоммерческого акционерного общества, обладают академической автономией."],
     "partial", "claim generalises: 'все'"),
    # the fragment's "во всех сферах" quantifies the spheres, not the universities
    ("Все медицинские вузы обладают автономией во всех сферах деятельности.",
     ["Медицинские вузы, созданные в форме некоммерческого акционерного общества, обладают автономией во всех "
      "сферах деятельности."],
     "partial", "claim generalises: 'все'"),
    ("Медицинские вузы обладают автономией во всех сферах деятельности.",
     ["Медицинские вузы обладают автономией во всех сферах деятельности."],
     "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Каждый медработник обязан пройти обучение по гигиене рук.",
     ["Медицинские работники хирургических отделений обязаны пройти обучение по гигиене рук."],
     "partial", "claim generalises: 'каждый'"),
    # the fragment's own "каждом" (any case of the word) licenses the claim's
    ("Текст алгоритма размещается в каждом процедурном кабинете.",
     ["Текст алгоритма размещается в каждом процедурном кабинете."],
     "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Пациент должен сообщить врачу всё, что нужно для лечения.",
     ["Пациент обязан сообщить лечащему врачу сведения, необходимые для лечения."],
     "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Выписка из медицинской карты выдаётся пациенту.",
     ["Выписка из медицинской карты выдается пациенту при наличии письменного заявления."],
     "partial", "claim drops the condition 'при наличии письменного заявления'"),
    ("Зачёт ставится при не менее 70 % верных ответов.",
     ["Зачет ставится, если студент дал не менее 70 % верных ответов."],  # the condition kept by its number
     "supported", "no number, bound, negation, modality, actor or cause disagrees"),
    ("Посещения пациентов разрешаются в часы приёма.", ["Посещения пациентов разрешаются только в часы приема."],
     "partial", "claim drops the restriction 'только"),
    ("Главный врач утверждает график отпусков сотрудников.", ["Курение на территории больницы запрещается."],
     "unsupported", "the fragment does not state the claim: 0%"),
    ("Услуга оказывается бесплатно.", ["Услуга оказывается на платной основе."],
     "unsupported", "negation differs: claim says 'бесплатно'"),
]


@pytest.mark.parametrize(("claim", "evidence", "value", "reason"), RU_RULES, ids=[c[:40] for c, *_ in RU_RULES])
def test_russian_rule(claim: str, evidence: list[str], value: str, reason: str) -> None:
    result = judge.judge_one(JudgeInput(claim, evidence))
    assert (result.value, result.reason[: len(reason)]) == (value, reason)


def test_two_fragments_support_a_claim_together() -> None:
    claim = "Донором может быть гражданин от 18 до 35 лет, прошедший обследование за 30 дней до сдачи крови."
    first = "Донором может быть гражданин в возрасте от восемнадцати до тридцати пяти лет."
    second = "Медицинское обследование донора проводится не позднее чем за тридцать дней до сдачи крови."
    assert judge.judge_one(JudgeInput(claim, [first, second])).value == "supported"
    alone = judge.judge_one(JudgeInput(claim, [first]))
    assert (alone.value, alone.reason) == ("unsupported", "number not in evidence: 30")


def test_russian_params_fit_the_middle_of_the_plateau() -> None:
    # claims whose verdict hangs on coverage alone: 1.0 and 0.8 supported, 0.4 partial, 0.0 unsupported
    evidence = ["Медицинские сестры проходят обучение по охране труда."]
    claims = ["Медицинские сестры проходят обучение по охране труда.",
              "Медицинские сестры проходят обучение по охране здоровья.",
              "Медицинские сестры сдают экзамен пожарной безопасности.",
              "Главный инженер утверждает график отпусков."]
    measured = [extract_features(JudgeInput(c, evidence)) for c in claims]
    # coverage alone: the added-detail rule (details.py) would make the third partial at any floor
    features = [replace(f, detail_added=None) if f is not None else None for f in measured]
    assert [round(f.coverage, 2) for f in features if f is not None] == [1.0, 0.83, 0.33, 0.0]
    params = fit_ru_params(features, ["supported", "supported", "partial", "unsupported"])
    # binary and three-way F1 are perfect for min_coverage in (0.33, 0.83] and partial in (0, 0.33]:
    # grid points 0.35 … 0.80 (10) → the 5th, 0.55; then 0.05 … 0.30 (6) → the 3rd, 0.15
    assert (params.min_coverage, params.partial_coverage) == (0.55, 0.15)
    assert [decide(f, params).value for f in features] == ["supported", "supported", "partial", "unsupported"]


def test_ru_bench_script_on_a_tiny_file(tmp_path: Path) -> None:
    rows = [
        ("Обучение проводится не реже раза в 12 месяцев.", "supported", "paraphrase_supported", 0),
        ("Обучение проводится не реже раза в 6 месяцев.", "unsupported", "number_changed", 0),
        ("Обучение проводится не чаще раза в 12 месяцев.", "unsupported", "bound_reversed", 5000),
        ("Обучение проводится раз в 12 месяцев, потому что так удобно.", "unsupported", "invented_causality", 5000),
    ]
    lines = [json.dumps({"pair_id": f"p{i}", "claim": c, "evidence": ["Обучение проводится не реже одного раза в 12 месяцев."],
                         "label": lab, "kind": kind, "source": {"document_id": "x", "start": start, "end": start + 9}},
                        ensure_ascii=False) for i, (c, lab, kind, start) in enumerate(rows)]
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "judge_ru.py"), str(path), "--format", "json",
                           "--folds", "2", "--repeats", "1", "--corpus", str(tmp_path / "none")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["pairs"], out["groups"]) == (4, 2)  # no corpus: offsets 3,000 apart are two groups
    assert out["offline_shipped"]["binary_macro_f1"] == 1.0
    assert out["offline_shipped"]["by_kind"] == {"bound_reversed": [1, 1], "invented_causality": [1, 1],
                                                 "number_changed": [1, 1], "paraphrase_supported": [1, 1]}
    # always "supported": F1 of "supported" = 2·1/(4+1) = 0.4, of "not" = 0 → 0.2
    assert out["always_supported"]["binary_macro_f1"] == pytest.approx(0.2)


def test_a_verbatim_copy_with_both_polarities_is_supported() -> None:
    text = ("Режим 134 °C применяется в стерилизаторах с предварительным вакуумированием; в стерилизаторах "
            "без предварительного вакуумирования применяется режим 132 °C.")
    result = judge.judge_one(JudgeInput(text, [text]))
    assert result.value == "supported", result.reason


def test_a_claim_of_only_a_number_is_judged_by_the_number() -> None:
    evidence = ["Срок хранения журнала — 12 месяцев."]
    assert judge.judge_one(JudgeInput("12 месяцев.", evidence)).value == "supported"
    assert judge.judge_one(JudgeInput("6 месяцев.", evidence)).reason == "number not in evidence: 6"
