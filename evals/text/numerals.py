"""Numbers written in words, read as values: Russian cardinals and ordinals in every case and
gender («двенадцати», «тридцати пяти», «первого»), «полтора», fractions («двух третей»),
multiplicatives («дважды»), numeral compounds («пятилетний», «трёхмесячный»), and a few English
cardinals; plus the time units that follow a number and the exact equivalences between them
("12 месяцев" = "год", "2 недели" = "14 дней", as durations only).

The lexicon is built from the numerals' paradigms below (a closed class: every form is listed
by rule, nothing is guessed), so reading is a dictionary lookup per word and needs no model.
data.text.extract_numbers merges these mentions with the digit ones.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

# --- the lexicon ---------------------------------------------------------------------

# Word classes, in the order they may follow each other inside one compound cardinal:
# "две тысячи триста сорок пять" = mult after units, then hundred, ten, unit.
_UNIT, _TEEN, _TEN, _HUNDRED, _MULT = 1, 2, 3, 4, 5


@dataclass(frozen=True)
class _Entry:
    value: Fraction
    cls: int  # _UNIT … _MULT
    kind: str  # cardinal | ordinal | fraction_noun (треть, четверть) | half (полтора)


def _soft(nom: str, value: int, cls: int, stem: str | None = None) -> dict[str, _Entry]:
    """Cardinals declined like "пять": пять, пяти, пятью."""
    base = stem or nom[:-1]
    entry = _Entry(Fraction(value), cls, "cardinal")
    return {nom: entry, base + "и": entry, base + "ью": entry}


def _cardinals() -> dict[str, _Entry]:
    lex: dict[str, _Entry] = {}

    def add(value: int, cls: int, *forms: str) -> None:
        for form in forms:
            lex[form] = _Entry(Fraction(value), cls, "cardinal")

    add(1, _UNIT, "один", "одного", "одному", "одним", "одном", "одна", "одной", "одну", "одною", "одно")
    add(2, _UNIT, "два", "две", "двух", "двум", "двумя")
    add(3, _UNIT, "три", "трех", "трем", "тремя")
    add(4, _UNIT, "четыре", "четырех", "четырем", "четырьмя")
    for nom, value in (("пять", 5), ("шесть", 6), ("семь", 7), ("девять", 9)):
        lex.update(_soft(nom, value, _UNIT))
    add(8, _UNIT, "восемь", "восьми", "восемью", "восьмью")
    for nom, value in (("десять", 10), ("одиннадцать", 11), ("двенадцать", 12), ("тринадцать", 13),
                       ("четырнадцать", 14), ("пятнадцать", 15), ("шестнадцать", 16), ("семнадцать", 17),
                       ("восемнадцать", 18), ("девятнадцать", 19)):
        lex.update(_soft(nom, value, _TEEN))
    lex.update(_soft("двадцать", 20, _TEN))
    lex.update(_soft("тридцать", 30, _TEN))
    add(40, _TEN, "сорок", "сорока")
    add(50, _TEN, "пятьдесят", "пятидесяти", "пятьюдесятью")
    add(60, _TEN, "шестьдесят", "шестидесяти", "шестьюдесятью")
    add(70, _TEN, "семьдесят", "семидесяти", "семьюдесятью")
    add(80, _TEN, "восемьдесят", "восьмидесяти", "восемьюдесятью", "восьмьюдесятью")
    add(90, _TEN, "девяносто", "девяноста")
    add(100, _HUNDRED, "сто", "ста")
    add(200, _HUNDRED, "двести", "двухсот", "двумстам", "двумястами", "двухстах")
    add(300, _HUNDRED, "триста", "трехсот", "тремстам", "тремястами", "трехстах")
    add(400, _HUNDRED, "четыреста", "четырехсот", "четыремстам", "четырьмястами", "четырехстах")
    for nom, gen, ins, value in (("пятьсот", "пяти", "пятью", 500), ("шестьсот", "шести", "шестью", 600),
                                 ("семьсот", "семи", "семью", 700), ("восемьсот", "восьми", "восемью", 800),
                                 ("девятьсот", "девяти", "девятью", 900)):
        add(value, _HUNDRED, nom, gen + "сот", gen + "стам", ins + "стами", gen + "стах")
    lex["восьмьюстами"] = lex["восемьюстами"]
    add(1000, _MULT, "тысяча", "тысячи", "тысяче", "тысячу", "тысячей", "тысячею", "тысячью", "тысяч",
        "тысячам", "тысячами", "тысячах", "тыс")
    for stem, value in (("миллион", 10**6), ("миллиард", 10**9)):
        add(value, _MULT, stem, *(stem + e for e in ("а", "у", "ом", "е", "ы", "ов", "ам", "ами", "ах")))
    add(10**6, _MULT, "млн")
    add(10**9, _MULT, "млрд")
    for form in ("полтора", "полторы", "полутора"):
        lex[form] = _Entry(Fraction(3, 2), _UNIT, "half")
    for form in ("полтораста", "полутораста"):
        lex[form] = _Entry(Fraction(150), _HUNDRED, "cardinal")
    for form in ("треть", "трети", "третей", "третям", "третями", "третях"):
        lex[form] = _Entry(Fraction(3), _UNIT, "fraction_noun")
    for form in ("четверть", "четверти", "четвертью", "четвертей", "четвертям", "четвертями", "четвертях"):
        lex[form] = _Entry(Fraction(4), _UNIT, "fraction_noun")
    return lex


_HARD_ENDINGS = ("ый", "ого", "ому", "ым", "ом", "ая", "ой", "ую", "ое", "ые", "ых", "ыми", "ою")
_STRESSED_ENDINGS = ("ой",) + _HARD_ENDINGS[1:]  # второй, шестой, сороковой
# Ordinal stems and whether the masculine nominative ends in a stressed -ой.
_ORDINAL_STEMS: tuple[tuple[str, int, bool], ...] = (
    ("перв", 1, False), ("втор", 2, True), ("четверт", 4, False), ("пят", 5, False), ("шест", 6, True),
    ("седьм", 7, True), ("восьм", 8, True), ("девят", 9, False), ("десят", 10, False),
    ("одиннадцат", 11, False), ("двенадцат", 12, False), ("тринадцат", 13, False), ("четырнадцат", 14, False),
    ("пятнадцат", 15, False), ("шестнадцат", 16, False), ("семнадцат", 17, False), ("восемнадцат", 18, False),
    ("девятнадцат", 19, False), ("двадцат", 20, False), ("тридцат", 30, False), ("сороков", 40, True),
    ("пятидесят", 50, False), ("шестидесят", 60, False), ("семидесят", 70, False), ("восьмидесят", 80, False),
    ("девяност", 90, False), ("сот", 100, False), ("двухсот", 200, False), ("трехсот", 300, False),
    ("четырехсот", 400, False), ("пятисот", 500, False), ("шестисот", 600, False), ("семисот", 700, False),
    ("восьмисот", 800, False), ("девятисот", 900, False), ("тысячн", 1000, False),
)


def _ordinal_class(value: int) -> int:
    if value < 10:
        return _UNIT
    if value < 20:
        return _TEEN
    if value < 100:
        return _TEN
    return _HUNDRED if value < 1000 else _MULT


def _ordinals() -> dict[str, _Entry]:
    lex: dict[str, _Entry] = {}
    for stem, value, stressed in _ORDINAL_STEMS:
        entry = _Entry(Fraction(value), _ordinal_class(value), "ordinal")
        for ending in _STRESSED_ENDINGS if stressed else _HARD_ENDINGS:
            lex[stem + ending] = entry
    third = _Entry(Fraction(3), _UNIT, "ordinal")
    for form in ("третий", "третьего", "третьему", "третьим", "третьем", "третья", "третьей", "третью", "третье",
                 "третьи", "третьих", "третьими", "третьею"):
        lex[form] = third
    return lex


# Multiplicative adverbs: "дважды" is "2 раза".
_MULTIPLICATIVES = {"однократно": 1, "дважды": 2, "двукратно": 2, "трижды": 3, "трехкратно": 3, "четырежды": 4,
                    "четырехкратно": 4, "пятикратно": 5, "десятикратно": 10,
                    "twice": 2, "thrice": 3}  # no "once": "once the patient is discharged" is no number
# English cardinals (no "one": far more often a pronoun than a number).
_EN = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
       "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17,
       "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
       "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "thousand": 1000, "million": 10**6,
       "billion": 10**9, "dozen": 12}

LEXICON: dict[str, _Entry] = {**_ordinals(), **_cardinals()}
for _word, _value in _EN.items():
    LEXICON[_word] = _Entry(Fraction(_value), _MULT if _value >= 100 and _word != "dozen" else _ordinal_class(_value),
                            "cardinal")
for _word, _value in _MULTIPLICATIVES.items():
    LEXICON[_word] = _Entry(Fraction(_value), _MULT + 1, "multiplicative")  # never part of a compound

# --- units ---------------------------------------------------------------------------

# A time unit after a number, by the stem of the following word; value = the unit's name.
_UNIT_WORDS = (
    (re.compile(r"^(?:год|года|году|годом|годе|годы|годов|годам|годами|годах|лет|летам)$"), "year"),
    (re.compile(r"^месяц(?:а|у|ем|е|ы|ев|ам|ами|ах)?$"), "month"),
    (re.compile(r"^недел(?:я|и|е|ю|ей|ь|ями|ям|ях)$"), "week"),
    (re.compile(r"^(?:день|дня|дню|днем|дне|дни|дней|дням|днями|днях|сутки|суток|суткам|сутками|сутках)$"), "day"),
    (re.compile(r"^час(?:а|у|ом|е|ы|ов|ам|ами|ах)?$"), "hour"),
    (re.compile(r"^минут(?:а|ы|е|у|ой|ам|ами|ах)?$"), "minute"),
    (re.compile(r"^(?:years?|months?|weeks?|days?|hours?|minutes?)$"), "en"),
)
# Exact equivalences only: a year is 12 months, a week 7 days, an hour 60 minutes; a month is
# not a fixed number of days, nor a day of hours in law ("3 дня" is not "72 часа").
DURATION_BASE = {"year": ("month", 12), "month": ("month", 1), "week": ("day", 7), "day": ("day", 1),
                 "hour": ("minute", 60), "minute": ("minute", 1)}
_EN_UNIT = {"year": "year", "month": "month", "week": "week", "day": "day", "hour": "hour", "minute": "minute"}
# Adjectives between a number and its unit ("10 рабочих дней", "42 календарных дней"); a
# working day is its own unit.
_UNIT_QUALIFIERS = frozenset({"календарных", "календарные", "календарный", "календарного", "полных", "полные",
                              "рабочих", "рабочие", "рабочий", "рабочего", "последовательных", "calendar",
                              "working", "business", "consecutive", "full"})
_WORKING = frozenset({"рабочих", "рабочие", "рабочий", "рабочего", "working", "business"})

# Numeral compounds: "пятилетний", "трехмесячный", "двухнедельный", "5-летний", "двукратный".
_COMPOUND_STEMS: dict[str, int] = {
    "одно": 1, "дву": 2, "двух": 2, "трех": 3, "четырех": 4, "пяти": 5, "шести": 6, "семи": 7, "восьми": 8,
    "девяти": 9, "десяти": 10, "одиннадцати": 11, "двенадцати": 12, "тринадцати": 13, "четырнадцати": 14,
    "пятнадцати": 15, "шестнадцати": 16, "семнадцати": 17, "восемнадцати": 18, "девятнадцати": 19,
    "двадцати": 20, "тридцати": 30, "сорока": 40, "пятидесяти": 50, "шестидесяти": 60, "семидесяти": 70,
    "восьмидесяти": 80, "девяноста": 90, "сто": 100, "полу": 0,
}
_COMPOUND_UNITS = (("летн", "year"), ("годичн", "year"), ("годов", "year"), ("месячн", "month"),
                   ("недельн", "week"), ("дневн", "day"), ("суточн", "day"), ("часов", "hour"),
                   ("минутн", "minute"), ("кратн", None), ("разов", None), ("уровнев", None), ("этажн", None),
                   ("сменн", None), ("компонентн", None), ("ступенчат", None), ("звенн", None),
                   ("процентн", None))
_COMPOUND_RE = re.compile(
    r"^(?P<a>" + "|".join(sorted((s for s in _COMPOUND_STEMS if s != "полу"), key=len, reverse=True)) + r"|полу)"
    r"(?P<b>" + "|".join(sorted((s for s in _COMPOUND_STEMS if _COMPOUND_STEMS[s] < 10 and s != "полу"),
                                key=len, reverse=True)) + r")?"
    r"(?P<unit>" + "|".join(u for u, _ in _COMPOUND_UNITS) + r")(?:ий|ой|ый|ая|ое|ие|ые|его|ого|ему|ому|им|ым|"
    r"ем|ом|юю|ую|ей|их|ых|ими|ыми|яя|ее|о)$"
)
_COMPOUND_UNIT = dict(_COMPOUND_UNITS)
_COMPOUND_PREFIX = re.compile("|".join(sorted(_COMPOUND_STEMS, key=len, reverse=True)))
_DIGIT_COMPOUND_RE = re.compile(r"-(" + "|".join(u for u, _ in _COMPOUND_UNITS) + r")\w*")

# "пол" + a unit in the genitive: "полгода" = 6 months, "полчаса" = 30 minutes.
_HALF_UNITS = {"полгода": ("month", 6), "полугода": ("month", 6), "полугоду": ("month", 6),
               "полугодом": ("month", 6), "полчаса": ("minute", 30), "получаса": ("minute", 30),
               "полсуток": ("hour", 12), "полмесяца": ("day", 15),
               # "раз в полугодие" is "раз в полгода"
               **{f"полугоди{ending}": ("month", 6) for ending in ("е", "я", "ю", "ем", "и")},
               # not a half, but one word for a span of months as well: "не чаще раза в квартал" is
               # "не чаще раза в три месяца"
               **{f"квартал{ending}": ("month", 3) for ending in ("", "а", "у", "ом", "е")},
               # and its adverb and adjective: "ежеквартальный отчёт" is one "раз в квартал"
               **{f"ежекварталь{ending}": ("month", 3) for ending in (
                   "но", "ный", "ная", "ное", "ные", "ного", "ной", "ному", "ным", "ных", "ную", "ными", "ном")}}


@dataclass(frozen=True)
class WordNumber:
    """A number written (at least partly) in words. value is canonical like data.text's:
    "12", "1.5", or "2/3" for a fraction that has no finite decimal."""

    text: str
    start: int
    end: int
    value: str
    kind: str  # number | ordinal | fraction
    unit: str | None = None  # year | month | week | day | hour | minute | workday, when glued or following


def canonical(value: Fraction) -> str:
    """"12", "1.5", "0.25", "2/3": a finite decimal when there is one."""
    if value.denominator == 1:
        return str(value.numerator)
    den = value.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den == 1:
        text = f"{float(value):.10f}".rstrip("0").rstrip(".")
        return text
    return f"{value.numerator}/{value.denominator}"


_TOKEN_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


def _fold(word: str) -> str:
    return word.lower().replace("ё", "е")


@lru_cache(maxsize=65536)
def _compound(word: str) -> tuple[Fraction, str | None] | None:
    """"пятилетний" → (5, year); "полугодовой" → (1/2 year = 6 months as 0.5, year)."""
    match = _COMPOUND_RE.match(word)
    if not match:
        return None
    a = _COMPOUND_STEMS[match.group("a")]
    b = _COMPOUND_STEMS[match.group("b")] if match.group("b") else 0
    unit = _COMPOUND_UNIT[match.group("unit")]
    if match.group("a") == "полу":
        if b or unit is None:
            return None
        return Fraction(1, 2), unit
    if b and not (a >= 20 and a % 10 == 0):
        return None
    return Fraction(a + b), unit


_NEXT_WORD = re.compile(r"[ \u00a0]{0,2}([^\W\d_]+)")


def unit_at(text: str, pos: int) -> tuple[str | None, int]:
    """The time unit that follows position pos (" календарных дней" → ("day", its end)), else
    (None, pos). One qualifier may stand between ("10 рабочих дней" → "workday")."""
    cursor = pos
    qualifier = None
    for _ in range(2):
        match = _NEXT_WORD.match(text, cursor)
        if match is None:
            return None, pos
        word = _fold(match.group(1))
        if qualifier is None and word in _UNIT_QUALIFIERS:
            qualifier = word
            cursor = match.end()
            continue
        unit = _unit_word(word)
        if unit is not None:
            if unit == "day" and qualifier in _WORKING:
                unit = "workday"
            return unit, match.end()
        return None, pos
    return None, pos


@lru_cache(maxsize=65536)
def _unit_word(word: str) -> str | None:
    """The time unit a folded word names ("месяцев" → month, "years" → year), else None."""
    for pattern, unit in _UNIT_WORDS:
        if pattern.match(word):
            return _EN_UNIT[word.rstrip("s")] if unit == "en" else unit
    return None


_DIGITS_NEXT = re.compile(r"\s*\d")


def is_unit_word(word: str) -> bool:
    """A time unit in any case ("месяцев", "суток", "years"), or "полгода"."""
    return word in _HALF_UNITS or any(pattern.match(word) for pattern, _ in _UNIT_WORDS)


def _excluded(words: list[tuple[str, int, int]], i: int, entry: _Entry, length: int, text_after: str = "") -> bool:
    """Number words used as something else: "один из", "ни одного", "одни и те же", "третьи
    лица", "в первую очередь", "во-первых"."""
    word = words[i][0]
    nxt = words[i + length][0] if i + length < len(words) else ""
    prev = words[i - 1][0] if i > 0 else ""
    if entry.value == 1 and entry.kind == "cardinal" and length == 1:
        # "к одному конкретному случаю": "one particular", no count
        if (nxt in ("из", "и", "лишь", "только") or nxt.startswith("конкретн") or prev in ("ни", "ни-")
                or prev == "с" and nxt in ("стороны",)):
            return True
    if entry.kind == "ordinal" and length == 1:
        if word.startswith("трет") and nxt.startswith("лиц"):
            return True
        if word.startswith("перв") and nxt.startswith(("очеред", "необходим", "половин", "раз")):
            return True
        # "в первые полгода", "в первые 3 дня": "the first …", the number is the next one
        if word.startswith("перв") and (nxt in LEXICON or nxt in _HALF_UNITS or is_unit_word(nxt)
                                         or _DIGITS_NEXT.match(text_after)):
            return True
    return False


@lru_cache(maxsize=65536)
def _may_be_number(word: str) -> bool:
    """A folded word that may start a number in words (the test before the full reading)."""
    return word in LEXICON or word in _HALF_UNITS or _COMPOUND_PREFIX.match(word) is not None


def read_number_words(text: str) -> list[WordNumber]:
    """Every number written in words in text, with its span in text (which may be raw or
    normalized: spans are over the string given)."""
    low = _fold(text)
    if len(low) == len(text):  # the usual case: one lower-casing for the whole text
        # most texts hold no number word: look with a bare findall before building spans
        if not any(_may_be_number(w) for w in set(_TOKEN_RE.findall(low))):
            return []
        words = [(m.group(0), *m.span()) for m in _TOKEN_RE.finditer(low)]
    else:  # a character whose lower case is longer ("İ"): fold word by word, spans stay right
        words = [(_fold(m.group(0)), *m.span()) for m in _TOKEN_RE.finditer(text)]
        if not any(_may_be_number(w) for w, _, _ in words):
            return []
    out: list[WordNumber] = []
    unit: str | None
    i = 0
    while i < len(words):
        word, start, end = words[i]
        if not _may_be_number(word):  # neither a number word, nor "полгода", nor a compound's stem
            i += 1
            continue
        if word in _HALF_UNITS:
            unit, amount = _HALF_UNITS[word]
            out.append(WordNumber(text[start:end], start, end, str(amount), "number", unit))
            i += 1
            continue
        compound = None if word in LEXICON else _compound(word)
        if compound is not None:
            value, unit = compound
            if unit is not None and value == Fraction(1, 2):  # "полугодовой" = 6 months
                base, per = DURATION_BASE[unit]
                value, unit = value * per, base
            out.append(WordNumber(text[start:end], start, end, canonical(value), "number", unit))
            i += 1
            continue
        entry = LEXICON.get(word)
        if entry is None:
            i += 1
            continue
        if entry.kind == "fraction_noun":  # a bare "треть" / "четверть" is one third / quarter
            out.append(WordNumber(text[start:end], start, end, canonical(1 / entry.value), "fraction"))
            i += 1
            continue
        value, kind, length = _compose(words, i, text)
        last_end = words[i + length - 1][2]
        if _excluded(words, i, entry, length, text[last_end : last_end + 4]):
            i += 1
            continue
        unit, _ = unit_at(text, last_end)
        out.append(WordNumber(text[start:last_end], start, last_end, canonical(value), kind, unit))
        i += length
    return out


def _adjacent(text: str, end: int, start: int) -> bool:
    """Two words of one numeral: only spaces (or a hyphen) between them."""
    gap = text[end:start]
    return len(gap) <= 3 and gap.strip(" \u00a0-") == ""


def _compose(words: list[tuple[str, int, int]], i: int, text: str) -> tuple[Fraction, str, int]:
    """The value of the numeral starting at words[i]: (value, kind, number of words)."""
    first = LEXICON[words[i][0]]
    if first.kind == "multiplicative":
        return first.value, "number", 1
    total = Fraction(0)  # finished thousands / millions
    group = Fraction(0)  # the group being read (< 1000)
    last_cls = 99
    kind = "number"
    n = 0
    j = i
    while j < len(words):
        entry = LEXICON.get(words[j][0])
        if entry is None or (j > i and not _adjacent(text, words[j - 1][2], words[j][1])):
            break
        if entry.kind == "multiplicative":
            break
        if entry.kind == "fraction_noun" or (entry.kind == "ordinal" and n and group and entry.cls <= _TEEN
                                                 and words[j][0].endswith(("ых", "ая", "ой", "ую", "ым", "ыми"))
                                                 and last_cls <= _TEEN and group < 10):
            # "две трети", "двух третей", "три пятых": numerator then denominator
            return (total + group) / entry.value, "fraction", n + 1
        if entry.cls == _MULT:
            if entry.kind == "ordinal":
                total += (group or 1) * entry.value
                group = Fraction(0)
                kind = "ordinal"
                n += 1
                j += 1
                break
            total += (group or 1) * entry.value
            group = Fraction(0)
            last_cls = _MULT
        else:
            if entry.cls >= last_cls and last_cls != _MULT:
                break
            if last_cls == _TEN and entry.cls != _UNIT:
                break
            if entry.kind == "half" and n:
                break
            group += entry.value
            last_cls = entry.cls
            if entry.kind == "ordinal":
                kind = "ordinal"
                n += 1
                j += 1
                break
        n += 1
        j += 1
    # "два с половиной года" = 2.5
    if j + 1 < len(words) and words[j][0] == "с" and words[j + 1][0] in ("половиной",) and kind == "number":
        if _adjacent(text, words[j - 1][2], words[j][1]) and _adjacent(text, words[j][2], words[j + 1][1]):
            return total + group + Fraction(1, 2), "number", n + 2
    return total + group, kind, max(n, 1)


@lru_cache(maxsize=65536)
def duration(value: str, unit: str | None) -> tuple[str, Fraction] | None:
    """An exact duration in base units ("month", 12) for value "1" unit "year"; None for
    non-durations, fractions written as "a/b" included."""
    if unit is None or unit not in DURATION_BASE:
        return None
    try:
        amount = Fraction(value)
    except (ValueError, ZeroDivisionError):
        return None
    base, per = DURATION_BASE[unit]
    return base, amount * per


# A bare unit that is a duration of one ("в течение года", "раз в месяц", "через неделю").
_BARE_DURATION_RE = re.compile(
    r"(?<!\w)(?:в течение|раз в|на срок|сроком на|через|за|в|на|до|каждый|каждые|каждую|"
    r"within|per|a|an|every|each|one)\s+"
    r"(?:(?:календарного|календарный|календарную|полного|полный|calendar|full)\s+)?"
    r"(?P<unit>года|год|месяца|месяц|недели|неделю|суток|сутки|дня|день|часа|час|year|month|week|day|hour)(?!\w)"
)
_BARE_UNIT = {"года": "year", "год": "year", "месяца": "month", "месяц": "month", "недели": "week", "неделю": "week",
              "суток": "day", "сутки": "day", "дня": "day", "день": "day", "часа": "hour", "час": "hour",
              "year": "year", "month": "month", "week": "week", "day": "day", "hour": "hour"}
# a literal every unit word of _BARE_UNIT holds: a text with none of them has no bare duration
_BARE_UNIT_STEMS = ("год", "месяц", "недел", "сутк", "суток", "дня", "день", "час", "year", "month", "week", "day",
                    "hour")
assert all(any(stem in word for stem in _BARE_UNIT_STEMS) for word in _BARE_UNIT)


def bare_durations(norm_text: str) -> list[tuple[int, int, str]]:
    """(start, end, unit) of unit words that stand for a duration of one without a number
    ("в течение года" = 1 year = 12 months), on normalized (lower-cased) text. A unit right
    after a number word or digits is not bare ("двух лет")."""
    if not any(stem in norm_text for stem in _BARE_UNIT_STEMS):  # most texts: no unit word, no regex scan
        return []
    out = []
    for match in _BARE_DURATION_RE.finditer(norm_text):
        out.append((match.start("unit"), match.end("unit"), _BARE_UNIT[match.group("unit")]))
    return out


def digit_suffix(text: str, end: int) -> tuple[str | None, int]:
    """The unit of a numeral compound written with digits: "5-летний" → ("year", end of word)."""
    match = _DIGIT_COMPOUND_RE.match(text, end)
    if match is None:
        return None, end
    return _COMPOUND_UNIT[match.group(1)], match.end()
