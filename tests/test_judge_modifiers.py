"""Another kind of the same thing (modifiers.py): a claim adjective the fragment lacks, on a head
noun the fragment qualifies with an adjective of its own. Sentences written for the test; the
verdicts follow from the sentences' meaning."""

from __future__ import annotations

import pytest

from evals.score.judges import lexicon as lx
from evals.score.judges.base import JudgeInput
from evals.score.judges.modifiers import modifier_conflict
from evals.score.judges.offline import OfflineJudge

PERIODIC = "Периодические медицинские осмотры водителей проводятся за счёт средств работодателя."


@pytest.mark.parametrize(
    ("evidence", "claim", "supported"),
    [
        (PERIODIC, "Предварительный медосмотр водителей проводится за счёт средств работодателя.", False),
        (PERIODIC, "Периодические медосмотры водителей проводятся за счёт средств работодателя.", True),
        # a kind the fragment does not qualify at all is not another kind ("медицинские осмотры")
        ("Медицинские осмотры водителей проводятся за счёт средств работодателя.",
         "Медосмотры водителей проводятся за счёт средств работодателя.", True),
    ],
)
def test_another_kind_of_the_same_thing(evidence: str, claim: str, supported: bool) -> None:
    result = OfflineJudge().judge_one(JudgeInput(claim, (evidence,)))
    assert (result.value == "supported") == supported, result.reason


def test_participles_are_paraphrase_not_kinds() -> None:
    evidence = lx.prepare("Перечень утверждается в порядке, определённом уполномоченным органом.")
    claim = lx.prepare("Перечень утверждается в порядке, установленном уполномоченным органом.")
    assert modifier_conflict(claim, evidence, ("установленном",)) is None
    reason = modifier_conflict(lx.prepare("предварительный осмотр проводится"), lx.prepare(PERIODIC), ("предварительный",))
    assert reason == "claim speaks of предварительный осмотр, the fragment of периодические осмотры"


def test_an_adjective_that_does_not_agree_with_the_noun_is_no_kind() -> None:
    # "прошедший обследование": a participle's phrase, the noun its object, not its kind
    evidence = lx.prepare("Медицинское обследование донора проводится за тридцать дней до сдачи крови.")
    assert modifier_conflict(lx.prepare("донор, прошедший обследование"), evidence, ("прошедший",)) is None
