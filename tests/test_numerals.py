"""Numbers written in words, read as values (evals.text.numerals through data.text), and the
joint number support of a claim against the union of its cited fragments. Every expected
value below was worked out by hand from the Russian (or English) numeral."""

from __future__ import annotations

import pytest

from evals.text.normalize import extract_numbers, missing_numbers, number_support_joint, number_values
from evals.text.numerals import canonical, duration, read_number_words

# (text, expected [(value, kind, unit)]) — cardinals in every case and gender, ordinals,
# fractions, «полтора», compounds with units, mixed digit forms.
FORMS = [
    # cardinals, cases and genders
    ("один день", [("1", "number", "day")]),
    ("одна неделя", [("1", "number", "week")]),
    ("одно заявление", [("1", "number", None)]),
    ("одного года", [("1", "number", "year")]),
    ("одной медицинской сестрой", [("1", "number", None)]),
    ("одну смену", [("1", "number", None)]),
    ("два месяца", [("2", "number", "month")]),
    ("две недели", [("2", "number", "week")]),
    ("двух лет", [("2", "number", "year")]),
    ("двумя врачами", [("2", "number", None)]),
    ("трех суток", [("3", "number", "day")]),
    ("тремя днями", [("3", "number", "day")]),
    ("четырьмя часами", [("4", "number", "hour")]),
    ("пяти дней", [("5", "number", "day")]),
    ("пятью минутами", [("5", "number", "minute")]),
    ("восьми часов", [("8", "number", "hour")]),
    ("восемью", [("8", "number", None)]),
    ("двенадцати недель", [("12", "number", "week")]),
    ("двенадцатью", [("12", "number", None)]),
    ("восемнадцати лет", [("18", "number", "year")]),
    ("сорока двух календарных дней", [("42", "number", "day")]),
    ("десяти рабочих дней", [("10", "number", "workday")]),
    ("девяноста дней", [("90", "number", "day")]),
    ("ста пятидесяти", [("150", "number", None)]),
    ("двухсот", [("200", "number", None)]),
    ("пятистах", [("500", "number", None)]),
    ("тремястами", [("300", "number", None)]),
    ("две тысячи триста сорок пять", [("2345", "number", None)]),
    ("тысячи", [("1000", "number", None)]),
    ("трех миллионов", [("3000000", "number", None)]),
    # compounds of tens and units
    ("тридцати пяти лет", [("35", "number", "year")]),
    ("двадцать одного года", [("21", "number", "year")]),
    ("сто двенадцать", [("112", "number", None)]),
    # a run that is not one numeral: two numbers
    ("пять шесть", [("5", "number", None), ("6", "number", None)]),
    ("от восемнадцати до тридцати пяти лет", [("18", "number", None), ("35", "number", "year")]),
    # ordinals
    ("первого числа", [("1", "ordinal", None)]),
    ("вторая группа", [("2", "ordinal", None)]),
    ("третьей степени", [("3", "ordinal", None)]),
    ("двенадцатой недели", [("12", "ordinal", "week")]),
    ("сороковой день", [("40", "ordinal", "day")]),
    ("тридцать пятого", [("35", "ordinal", None)]),
    ("сотого", [("100", "ordinal", None)]),
    # halves and fractions
    ("полутора лет", [("1.5", "number", "year")]),
    ("полторы тысячи", [("1500", "number", None)]),
    ("два с половиной года", [("2.5", "number", "year")]),
    ("двух третей голосов", [("2/3", "fraction", None)]),
    ("одна треть", [("1/3", "fraction", None)]),
    ("три четверти", [("0.75", "fraction", None)]),
    ("три пятых", [("0.6", "fraction", None)]),
    ("четверть", [("0.25", "fraction", None)]),
    # units glued into the word
    ("полгода", [("6", "number", "month")]),
    ("полугода", [("6", "number", "month")]),
    ("пятилетний срок", [("5", "number", "year")]),
    ("трехмесячного", [("3", "number", "month")]),
    ("двухнедельный", [("2", "number", "week")]),
    ("двадцатипятилетний", [("25", "number", "year")]),
    ("четырехуровневая", [("4", "number", None)]),
    ("дважды", [("2", "number", None)]),
    # English
    ("twenty five years", [("25", "number", "year")]),
    ("two hundred fifty", [("250", "number", None)]),
]


@pytest.mark.parametrize(("text", "expected"), FORMS, ids=[t for t, _ in FORMS])
def test_number_words(text: str, expected: list[tuple[str, str, str | None]]) -> None:
    assert [(m.value, m.kind, m.unit) for m in extract_numbers(text)] == expected


def test_there_are_at_least_forty_hand_worked_forms() -> None:
    assert len(FORMS) >= 40


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [("12-ти лет", "12", "year"), ("5-летний", "5", "year"), ("3-х месяцев", "3", "month"),
     ("1-го числа", "1", None), ("12 месяцев", "12", "month"), ("5 тыс. тенге", "5000", None),
     ("1,5 млн", "1500000", None), ("в 2020 году", "2020", None), ("2020 лет", "2020", "year")],
)
def test_digits_with_case_endings_units_and_multipliers(text: str, value: str, unit: str | None) -> None:
    [mention] = extract_numbers(text)
    assert (mention.value, mention.unit, mention.written) == (value, unit, "digits")


@pytest.mark.parametrize(
    ("text", "values"),
    [("один из родителей", []), ("одна из форм", []), ("ни одного случая", []), ("в первую очередь", []),
     ("права третьих лиц", []), ("во-первых", []), ("одни и те же", []), ("в первые полгода", ["6"]),
     ("в первые 3 дня", ["3"])],
)
def test_words_that_are_not_numbers_here(text: str, values: list[str]) -> None:
    assert [m.value for m in extract_numbers(text)] == values


def test_words_off_reads_digits_only() -> None:
    assert number_values("двенадцати недель и 5 дней") == {"12", "5"}
    assert [m.value for m in extract_numbers("двенадцати недель и 5 дней", words=False)] == ["5"]


def test_spans_point_at_the_words() -> None:
    text = "Срок — до тридцати пяти лет."
    [mention] = extract_numbers(text)
    assert text[mention.start : mention.end] == "тридцати пяти"


def test_canonical_values_and_durations() -> None:
    from fractions import Fraction

    assert [canonical(Fraction(n, d)) for n, d in ((12, 1), (3, 2), (1, 4), (2, 3))] == ["12", "1.5", "0.25", "2/3"]
    assert duration("1", "year") == duration("12", "month") == ("month", Fraction(12))
    assert duration("2", "week") == duration("14", "day") == ("day", Fraction(14))
    assert duration("1", "day") != duration("24", "hour")  # a day in law is not 24 hours
    assert duration("3", "workday") is None
    assert read_number_words("") == []


# --- number support on the union of the cited fragments --------------------------------------


def test_words_against_digits_both_ways() -> None:
    assert number_support_joint("Аборт по желанию женщины — до двенадцати недель.", ["при сроке до 12 недель"])
    assert number_support_joint("При сроке до 12 недель.", ["при сроке беременности до двенадцати недель"])
    assert missing_numbers("до двенадцати недель", ["до 14 недель"]) == ["12"]


def test_exact_duration_equivalences_only() -> None:
    assert number_support_joint("Срок хранения — 12 месяцев.", ["Срок хранения составляет один год."])
    assert number_support_joint("Срок хранения — 12 месяцев.", ["хранится в течение года"])
    assert number_support_joint("Отпуск длится 2 недели.", ["Отпуск — 14 календарных дней."])
    assert number_support_joint("Полгода.", ["6 месяцев"]) and number_support_joint("6 месяцев", ["полгода"])
    assert missing_numbers("в течение 3 дней", ["в течение 72 часов"]) == ["3"]  # not exact
    assert missing_numbers("в течение года", ["в течение 6 месяцев"]) == ["года"]  # a bare duration differs
    assert number_support_joint("раз в год", ["ежегодно"])  # no duration stated there: nothing to compare


def test_units_are_strict_only_when_asked() -> None:
    assert missing_numbers("12 недель", ["12 месяцев"]) == []
    assert missing_numbers("12 недель", ["12 месяцев"], strict_units=True) == ["12"]
    assert missing_numbers("на двенадцатой неделе", ["12 недель"], strict_units=True) == []


def test_a_claim_backed_by_two_fragments_together() -> None:
    claim = "Донорами могут быть граждане от 18 до 35 лет, прошедшие обследование за 30 дней."
    first = "Донором может быть гражданин в возрасте от восемнадцати до тридцати пяти лет."
    second = "Медицинское обследование проводится не позднее чем за тридцать дней."
    assert not number_support_joint(claim, [first]) and not number_support_joint(claim, [second])
    assert number_support_joint(claim, [first, second])
    assert missing_numbers(claim, [first]) == ["30"]


def test_a_time_on_the_hour_is_held_by_the_evidences_hour() -> None:
    # "с 23 до 10 часов" states 23:00 and 10:00; an hour the evidence does not count is not held,
    # nor is a bare number in evidence that counts no hours, nor a time off the hour
    evidence = ["с 22 до 9 часов утра в будние, с 23 до 10 часов утра в выходные дни"]
    assert missing_numbers("с 23:00 до 10:00 в выходные", evidence, strict_units=True) == []
    assert missing_numbers("с 21:00 до 10:00 в выходные", evidence, strict_units=True) == ["21:00"]
    assert missing_numbers("с 23:30", evidence, strict_units=True) == ["23:30"]
    assert missing_numbers("в 10:00", ["выделено 10 рабочих мест"], strict_units=True) == ["10:00"]
