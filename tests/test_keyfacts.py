"""Key-fact matching (DESIGN 6 key_fact_recall), hand-worked: numbers in words and digits, a fact
split over two sentences, a fact stated in another unit, case endings of a fact in words."""

import pytest

from evals.score.keyfacts import fact_stated, missing_facts


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        ("12 недель", "Срок — двенадцати недель [E1]."),  # DESIGN's own example, words for digits
        ("двенадцать месяцев", "не реже одного раза в 12 месяцев"),  # digits for words
        ("не позднее 2 часов", "Сообщить нужно не позднее двух часов."),
        ("70 %", "не менее 70 процентов правильных ответов"),  # a percentage in words
        ("60 000 тенге", "до 60 тыс. тенге на работника"),  # "тыс." multiplies
        ("134 °C", "при температуре 134 ℃"),  # the one-character degree sign folds to °C
        ("от +2 до +8 °C", "Храните при температуре от 2 до 8 °С."),  # Cyrillic С after the degree sign
        # another unit, the same duration: 1 year is 12 months, half a year 6
        ("12 месяцев", "Обучение проходят раз в 1 год."),
        ("12 месяцев", "Обучение проходят в течение года."),
        ("6 месяцев", "не реже чем раз в полгода"),
        # one unit shared by two numbers: 3 is 3 working days here
        ("не ранее 3 рабочих дней", "не ранее чем через 3 и не позднее чем через 10 рабочих дней"),
        # case endings: stemmed words in a row
        ("старшая медицинская сестра", "Журнал передают старшей медицинской сестре отделения."),
        ("врач-эпидемиолог", "Обучение организует Врач-эпидемиолог Больницы."),
        # word order free, within one sentence
        ("аванс не предусмотрен", "Оплата по факту поставки; предоплата (аванс) договором не предусмотрена."),
        ("два раза в месяц", "Проверка — не реже двух раз в месяц [E1]."),
    ],
)
def test_fact_is_stated(fact, answer):
    assert fact_stated(fact, answer)


@pytest.mark.parametrize(
    ("fact", "answer"),
    [
        ("12 месяцев", "не реже одного раза в 12 недель"),  # the same value in another unit
        ("3 рабочих дня", "в течение 3 дней"),  # working days are not calendar days
        ("3 дня", "3 и 10 рабочих дней"),
        ("60 000 тенге", "до 60 000 рублей"),
        ("70 %", "ответить на 70 вопросов"),  # a bare number is not a percentage
        ("12 месяцев", "Обучение проводится регулярно."),
        ("класс Г", "отходы класса Б"),
        ("запрещено", "разрешено"),
        # the words of a fact in words must meet in one sentence: here "не" belongs to another
        ("премия не начисляется", "Премия начисляется ежеквартально. Взыскание не снято."),
        ("начальнику отдела ИТ", "сообщить начальнику отдела информационных технологий"),  # no abbreviations
    ],
)
def test_fact_is_not_stated(fact, answer):
    assert not fact_stated(fact, answer)


def test_a_fact_split_over_two_sentences_is_stated():
    """Two values of one fact, each in its own sentence: both are in the answer."""
    answer = "Первый замер температуры проводят в 08:00. Второй — в 20:00 [E1]."
    assert fact_stated("08:00 и 20:00", answer)
    assert not fact_stated("08:00, 14:00 и 20:00", answer)  # the 14:00 measurement is missing


def test_missing_facts_keeps_gold_order():
    facts = ["не ранее 3 рабочих дней", "не позднее 10 рабочих дней", "70 %"]
    answer = "Пересдача — не позднее десяти рабочих дней [E1]."
    assert missing_facts(facts, answer) == ["не ранее 3 рабочих дней", "70 %"]


@pytest.mark.parametrize(
    ("fact", "answer", "stated"),
    [
        # a number after a legal-structure word labels a place, so the next word is no unit of it
        ("пункт 3 статьи 5", "согласно п. 3 ст. 5 Правил", True),
        ("статья 12 Кодекса", "по ст. 12 Трудового кодекса", True),
        ("ч. 2 ст. 7", "в силу части 2 статьи 7", True),
        ("пункт 3 статьи 5", "согласно п. 4 ст. 5", False),  # another clause
        # an abbreviation counts only with its dot: here "ч" is an hour and "мин" stays 30's unit
        ("1 ч 30 мин", "через 1 ч 30 мин", True),
        ("1 ч 30 мин", "через 1 ч 30 сек", False),
        # a date is compared as a date, whatever word follows it («года»)
        ("с 1 января 2025 года", "действует с 01.01.2025", True),
        ("с 1 января 2025 года", "действует с 01.02.2025", False),
        # a count of clauses is still a count: "3 пункта" is not "3 раза"
        ("3 пункта", "3 раза", False),
        # a calendar year in any of its forms, never a duration of 2,025 years nor 2,025 grams
        ("в 2025 году", "с 2025 г. правила действуют", True),
        ("в 2025-м году", "правила действуют с 2025 года", True),
        ("2025", "в 2025 году", True),
        ("в 2025 году", "в 2024 году", False),
        ("2025 г.", "2025 тенге", False),
        ("5 г соли", "5 г соли", True),
        ("5 г соли", "5 кг соли", False),
    ],
)
def test_reference_labels_and_dates(fact, answer, stated):
    assert fact_stated(fact, answer) is stated
