"""Figures of key facts: what a text states, what a reference number is, a plausible other value."""

from __future__ import annotations

from evals.probe.facts import alternatives, fact_of, stated_figures, states
from evals.text.normalize import extract_numbers


def first(text: str):  # noqa: ANN201 - a NumberMention
    return extract_numbers(text)[0]


def test_a_fact_is_its_figure_with_the_first_letters_of_its_unit() -> None:
    fact = fact_of("12 месяцев")
    assert fact is not None and (fact.value, fact.kind, fact.unit) == ("12", "number", "ме")
    assert states(fact, "не реже одного раза в 12 месяцев [E1]")
    assert states(fact, "раз в 12 мес.")
    assert not states(fact, "в течение 12 часов")
    assert not states(fact, "раз в 18 месяцев")
    percent = fact_of("70 %")
    assert percent is not None and percent.kind == "percent" and percent.unit is None
    assert states(percent, "не менее 70% правильных ответов")
    # a clause or order number is not the fact's figure
    clause = fact_of("прививочный кабинет поликлиники № 1")
    assert clause is None


def test_stated_figures_skip_numbering_and_references() -> None:
    text = "3.1. Обучение проходит раз в 12 месяцев (п. 4.2 Положения, приказ № 18-п) [E1] 6.3. Срок — 5 дней."
    assert [m.text for m in stated_figures(text)] == ["12", "5"]


def test_other_values_keep_the_format() -> None:
    # ×1.5 rounded half up in the original's precision, then ×2, ÷2, +1, +2, +3 steps
    assert alternatives(first("4 500 тенге"))[:3] == ["6 750", "9 000", "2 250"]
    assert alternatives(first("0,3 %"))[0] == "0,5 %"  # 0,45 → 0,5 at one decimal
    assert alternatives(first("70 %"))[:2] == ["35 %", "71 %"]  # 105 and 140 exceed 100 %
    assert alternatives(first("9 месяцев"))[0] == "14"  # 13,5 → 14
    assert alternatives(first("05.01.2023")) == ["12.01.2023"]
    assert alternatives(first("25 декабря 2025")) == ["18 декабря 2025"]
    assert alternatives(first("16:00")) == ["18:00"]
