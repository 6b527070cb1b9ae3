"""Key facts of gold (DESIGN 6 `key_fact_recall`, DESIGN 4 KEY_FACT_MISSING): does an answer
state each fact its question's gold lists?

A fact with numbers is stated when the answer holds every one of its values as the same kind of
quantity and in the same unit, wherever in the answer (a fact split over two sentences counts):
digits and Russian number words alike (citeval's own number reader, `evals.text.normalize`:
«двенадцати недель» = "12 недель"), a time unit compared as an exact duration ("1 год" = "12
месяцев", but "12 недель" is not "12 месяцев" and "3 рабочих дня" is not "3 дня"), another unit
by the word after the number, Snowball-stemmed ("60 000 тенге", "4 мл", "134 °C", "8
символов"), a percentage only by a percentage ("70 %" = "70 процентов", never a bare "70").
A four-digit number before «год»/«г.» is a calendar year («в 2025 году» = «2025 г.» = «2025»),
never a duration of years nor grams.

A fact without numbers is stated when its normalized text (DESIGN 6 quote normalization)
occurs in the answer, or when every one of its words, Snowball-stemmed, occurs in one sentence of
the answer in any order, so that case endings and word order do not decide («старшей медицинской
сестре» states «старшая медицинская сестра», «предоплата (аванс) не предусмотрена» states «аванс
не предусмотрен»). Synonyms and abbreviations do not match («ИТ» is not «информационных
технологий»), nor does a stem that changes its vowel («порядок» / «порядку»).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from evals.text import numerals
from evals.text.normalize import (
    NumberMention,
    extract_numbers,
    mention_duration,
    normalize,
    split_sentences,
    strip_markers,
)
from evals.text.tokens import stem, words

__all__ = ["FactQuantity", "fact_quantities", "fact_stated", "missing_facts", "stated_facts"]

# The token right after a number: a word, a symbol unit ("°c", "%", "кгс/см2"), up to a space or
# punctuation that ends a phrase.
_UNIT_TOKEN = re.compile(r"[ \u00a0]?([^\s,;:()\[\]«»\"'!?]+)")
# Words after a number that are no unit: "5 и 20 числа", "до 5 или 10", "3 в сутки".
_FUNCTION_WORDS = frozenset(
    "и или а но до от по в во на с со к ко не ни за из у о об при для чем через либо".split()
)
# Kinds that stand for the same quantity: a cardinal in digits, in words, a fraction.
_KIND_GROUP = {"number": "number", "ordinal": "number", "fraction": "number"}


@dataclass(frozen=True)
class FactQuantity:
    """One number of a fact or an answer, as compared: kind group, canonical value, its time
    unit as an exact duration (or the bare time unit), and the stemmed word after it."""

    kind: str
    value: str
    time_unit: str | None = None
    duration: tuple[str, Fraction] | None = None
    word_unit: str | None = None

    def matches(self, other: FactQuantity) -> bool:
        """`other` (from the answer) states this quantity (from the fact)."""
        if self.kind != other.kind:
            # a calendar year and the same bare number («2025 г.» / «2025») state each other
            plain = other if self.kind == "year" else self
            return {self.kind, other.kind} == {"year", "number"} and self.value == other.value and (
                plain.time_unit is None and plain.word_unit is None
            )
        if self.duration is not None:
            return other.duration == self.duration
        if self.value != other.value:
            return False
        if self.time_unit is not None:
            return other.time_unit == self.time_unit
        return self.word_unit is None or other.word_unit == self.word_unit


def _word_unit(norm_text: str, mention: NumberMention) -> str | None:
    """The stemmed unit word after a number ("тенге", "мл", "символ"), None for a function word
    ("5 и 20"), another number or nothing."""
    match = _UNIT_TOKEN.match(norm_text, mention.end)
    if match is None:
        return None
    token = match.group(1).rstrip(".").replace("°с", "°c")  # a Cyrillic "С" after the degree sign
    if not token or token[0].isdigit() or token[0] in "+-":
        return None
    if token.isalpha():
        return None if token in _FUNCTION_WORDS else stem(token)
    return token


# A number right after one of these is a reference label («пункт 3 статьи 5», «ст. 12 Трудового
# кодекса», «№ 7»), not a quantity: the word after it is no unit of it.
# Abbreviations only with their dot: «1 ч 30 мин» is an hour, «ч. 2» a part.
_LEGAL_LABEL_BEFORE = re.compile(
    r"(?:\b(?:стать[яиеюей]|пункт(?:а|у|ом|е|ы|ов)?|подпункт(?:а|у|ом|е|ы|ов)?|част(?:ь|и|ью)"
    r"|глав(?:а|ы|е|у|ой)|раздел(?:а|у|ом|е)?|приложени(?:е|я|ю|ем|и)|абзац(?:а|у|ем|е)?)"
    r"|\b(?:ст|п|пп|подп|ч|гл|разд|прил|абз)\.|№)\s*$"
)


def _reference_label(norm_text: str, mention: NumberMention) -> bool:
    return _LEGAL_LABEL_BEFORE.search(norm_text[max(0, mention.start - 16) : mention.start]) is not None


def _calendar_year(mention: NumberMention) -> bool:
    """A four-digit number a calendar year could be (1800–2100)."""
    return mention.value.isdigit() and len(mention.value) == 4 and 1800 <= int(mention.value) <= 2100


def _quantity(norm_text: str, mention: NumberMention) -> FactQuantity:
    kind = _KIND_GROUP.get(mention.kind, mention.kind)
    if kind == "number" and _calendar_year(mention):
        # «в 2025 году», «2025 г.», «в 2025-м году»: a year of the calendar, never 2,025 years
        # (and «г.» after it is the year, not grams)
        after = _word_unit(norm_text, mention) if mention.unit is None else "год"
        if mention.unit == "year" or after in ("г", "год"):
            return FactQuantity(kind="year", value=mention.value, word_unit="год")
    # a date or a clock time carries its own meaning («1 января 2025 года»); a reference label
    # («пункт 3 статьи 5») is followed by the next part of the reference, never a unit
    unitless = mention.unit is not None or kind in ("date", "time") or _reference_label(norm_text, mention)
    word_unit = None if unitless else _word_unit(norm_text, mention)
    if kind == "number" and word_unit is not None and (word_unit == "%" or word_unit.startswith("процент")):
        kind, word_unit = "percent", None  # "пять процентов" is "5 %"
    return FactQuantity(
        kind=kind,
        value=mention.value,
        time_unit=mention.unit,
        duration=mention_duration(mention),
        word_unit=word_unit,
    )


# Words that may stand between two numbers sharing the unit of the second: "от 3 до 10 дней",
# "не ранее чем через 3 и не позднее чем через 10 рабочих дней", "15–25 °C".
_SHARED_UNIT_GAP = re.compile(
    r"^(?:[\s,\-–—+]|и|или|до|по|от|не|ни|позднее|позже|ранее|раньше|чем|через|более|менее|больше|меньше|а|также)*$"
)


def _with_shared_units(norm: str, mentions: list[NumberMention], found: list[FactQuantity]) -> list[FactQuantity]:
    """A number without a unit takes the unit of the next one when only conjunctions stand
    between them ("3 и 10 рабочих дней" is 3 working days and 10)."""
    out = list(found)
    for i in range(len(out) - 2, -1, -1):
        here, after = out[i], out[i + 1]
        if here.time_unit or here.word_unit or here.kind != after.kind or not (after.time_unit or after.word_unit):
            continue
        if _SHARED_UNIT_GAP.match(norm[mentions[i].end : mentions[i + 1].start]):
            shared = NumberMention(**{**mentions[i].__dict__, "unit": after.time_unit})
            out[i] = FactQuantity(here.kind, here.value, after.time_unit, mention_duration(shared), after.word_unit)
    return out


@lru_cache(maxsize=8192)
def fact_quantities(text: str) -> tuple[FactQuantity, ...]:
    """Every number of a text (normalized first) as a quantity to compare."""
    norm = normalize(text)
    mentions = extract_numbers(norm)
    return tuple(_with_shared_units(norm, mentions, [_quantity(norm, m) for m in mentions]))


def answer_quantities(text: str) -> tuple[FactQuantity, ...]:
    """The quantities an answer states: its numbers, and the durations of one it names without
    a number ("в течение года", "раз в месяц"), as number_support reads them."""
    norm = normalize(text)
    bare = [
        FactQuantity(kind="number", value="1", time_unit=unit, duration=numerals.duration("1", unit))
        for _, _, unit in numerals.bare_durations(norm)
    ]
    return fact_quantities(text) + tuple(bare)


def _stems(text: str) -> list[str]:
    return [stem(w) for w in words(text)]


class _Answer:
    """The answer side of the comparison, each part read once however many facts ask."""

    def __init__(self, answer_text: str) -> None:
        self.text = strip_markers(answer_text)
        self._quantities: tuple[FactQuantity, ...] | None = None
        self._norm: str | None = None
        self._sentences: list[set[str]] | None = None

    @property
    def quantities(self) -> tuple[FactQuantity, ...]:
        if self._quantities is None:
            self._quantities = answer_quantities(self.text)
        return self._quantities

    @property
    def norm(self) -> str:
        if self._norm is None:
            self._norm = normalize(self.text)
        return self._norm

    @property
    def sentences(self) -> list[set[str]]:
        if self._sentences is None:
            self._sentences = [set(_stems(s.text)) for s in split_sentences(self.text)]
        return self._sentences

    def states(self, fact: str) -> bool:
        wanted = fact_quantities(fact)
        if wanted:
            return all(any(q.matches(h) for h in self.quantities) for q in wanted)
        needle = normalize(fact)
        if not needle or needle in self.norm:
            return True  # an empty fact asks nothing
        stems = set(_stems(fact))
        return bool(stems) and any(stems <= sentence for sentence in self.sentences)


def fact_stated(fact: str, answer_text: str) -> bool:
    """Whether the answer (markers are ignored) states the key fact; see the module doc."""
    return _Answer(answer_text).states(fact)


def stated_facts(facts: Sequence[str], answer_text: str) -> list[bool]:
    """Per key fact, in gold order: stated in the answer or not."""
    answer = _Answer(answer_text)
    return [answer.states(fact) for fact in facts]


def missing_facts(facts: Sequence[str], answer_text: str) -> list[str]:
    """The key facts the answer does not state, in gold order."""
    return [fact for fact, ok in zip(facts, stated_facts(facts, answer_text), strict=True) if not ok]
