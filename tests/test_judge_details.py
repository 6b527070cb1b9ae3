"""Added details: a Russian claim that holds the fragment and adds a phrase of its own is partial
(evals/score/judges/details.py). Sentences written here; labels fixed by construction."""

from __future__ import annotations

import pytest

from evals.score.judges.base import JudgeInput
from evals.score.judges.offline import OfflineJudge

CERT = "Поликлиника выдаёт справку о прививках пациенту в течение пяти рабочих дней со дня обращения."
PERMIT = "Разрешение на работу с источниками излучения выдаётся территориальным подразделением ведомства."
DUTY = "Владелец бассейна обязан проводить лабораторный контроль качества воды."


@pytest.mark.parametrize(
    ("evidence", "claim", "question", "verdict"),
    [
        # a manner, a body, a place added to an otherwise held claim
        (CERT, "Поликлиника выдаёт справку о прививках пациенту на бумажном бланке в течение пяти рабочих дней.",
         None, "partial"),
        (PERMIT, "Разрешение на работу с источниками излучения выдаётся территориальным подразделением ведомства "
         "после санитарной экспертизы.", None, "partial"),
        (DUTY, "Владелец бассейна обязан проводить лабораторный контроль качества воды и воздуха в душевых кабинах.",
         None, "partial"),
        # a phrase that ends the claim is a detail even beside another unheld word («регулярно»,
        # which alone keeps the all-unheld-in-one-phrase reading from firing)
        (DUTY, "Лабораторный контроль качества воды регулярно ведёт сам владелец бассейна, обычно "
         "в форме ежемесячных проб.", None, "partial"),
        # the same paraphrase without the appended phrase is not partial for a detail
        (DUTY, "Лабораторный контроль качества воды регулярно ведёт сам владелец бассейна.", None, "supported"),
        # mid-claim, an unheld phrase beside scattered unheld words reads as paraphrase — except a
        # time the fragment does not state at all («ежемесячными»), a detail wherever it stands
        (DUTY, "Хозяин бассейна обязан регулярно проводить ежемесячными пробами лабораторный контроль качества воды.",
         None, "partial"),
        (DUTY, "Хозяин бассейна обязан регулярно проводить выборочными пробами лабораторный контроль качества воды.",
         None, "supported"),
        # a personal pronoun inside the added phrase joins it («ведущийся им реестр»)
        ("Электронные ресурсы, через которые оказываются дистанционные медицинские услуги, должны соответствовать "
         "требованиям уполномоченного органа.",
         "Электронные ресурсы дистанционных медуслуг должны отвечать требованиям уполномоченного органа и быть "
         "включены в ведущийся им реестр.", None, "partial"),
        # the same claims without the addition stay supported
        (CERT, "Поликлиника выдаёт пациенту справку о прививках в течение пяти рабочих дней.", None, "supported"),
        (DUTY, "Владелец бассейна обязан проводить лабораторный контроль качества воды.", None, "supported"),
        # one unheld word is not a phrase
        (DUTY, "Владелец бассейна обязан регулярно проводить лабораторный контроль качества воды.", None, "supported"),
        # the subject restated in other words where the claim begins is paraphrase, not a detail
        (DUTY, "Хозяин плавательного бассейна обязан проводить лабораторный контроль качества воды.", None,
         "supported"),
        # words the question asked about are not added by the claim
        (PERMIT, "Разрешение на работу с источниками излучения выдаётся территориальным подразделением ведомства "
         "после санитарной экспертизы.", "Нужна ли санитарная экспертиза для разрешения?", "supported"),
    ],
)
def test_added_detail(evidence: str, claim: str, question: str | None, verdict: str) -> None:
    result = OfflineJudge().judge_one(JudgeInput(claim, (evidence,), question))
    assert result.value == verdict, result.reason
    if verdict == "partial":
        assert result.reason.startswith("claim adds a detail the fragment does not state:")
