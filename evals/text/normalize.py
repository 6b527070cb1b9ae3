"""Text handling shared by every stage: quote normalization, sentence splitting, numbers.

Russian first, any language: folds typographic quotes, dashes, NBSP and other spaces,
soft hyphens, ё/е and line-break hyphenation (DESIGN 6).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from evals.text import numerals

_QUOTES = dict.fromkeys(map(ord, "«»„“”‟″〝〞〟＂‹›"), '"')
_QUOTES.update(dict.fromkeys(map(ord, "‘’‚‛′"), "'"))
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"
_FOLD = {**_QUOTES, **dict.fromkeys(map(ord, _DASHES), "-"), ord("ё"): "е"}
_FOLD_CHAR = re.compile("[" + "".join(re.escape(chr(c)) for c in _FOLD) + "]")
_SOFT_HYPHEN = "\u00ad"


def _starter_runs(text: str) -> list[tuple[int, str]]:
    """Split text into (start index, run) where each run is a starter plus its combining marks,
    so NFKC can be applied run by run while remembering where each output char came from."""
    runs: list[tuple[int, str]] = []
    start = 0
    for i in range(1, len(text) + 1):
        if i == len(text) or unicodedata.combining(text[i]) == 0:
            runs.append((start, text[start:i]))
            start = i
    return runs


def normalize_with_map(text: str) -> tuple[str, list[int]]:
    """Normalized text and, for each of its characters, the index of the source character.

    Steps (DESIGN 6): NFKC, casefold, ё→е, typographic quotes → ", dashes → -, soft hyphens
    removed, a hyphen at a line break joined, every whitespace run → one space, stripped.
    """
    chars: list[str] = []
    origin: list[int] = []
    for start, run in _starter_runs(text) if text else []:
        for ch in unicodedata.normalize("NFKC", run).casefold():
            if ch == _SOFT_HYPHEN:
                continue
            chars.append(ch.translate(_FOLD))
            origin.append(start)
    # hyphen + optional spaces + newline + optional spaces between letters: drop all of it
    out: list[str] = []
    out_origin: list[int] = []
    i = 0
    n = len(chars)
    while i < n:
        ch = chars[i]
        if ch == "-" and out and out[-1].isalpha():
            j = i + 1
            while j < n and chars[j] in " \t":
                j += 1
            if j < n and chars[j] in "\n\r":
                while j < n and chars[j].isspace():
                    j += 1
                if j < n and chars[j].isalpha():
                    i = j
                    continue
        if ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
                out_origin.append(origin[i])
            i += 1
            continue
        out.append(ch)
        out_origin.append(origin[i])
        i += 1
    if out and out[-1] == " ":
        out.pop()
        out_origin.pop()
    return "".join(out), out_origin


_LINE_BREAK_HYPHEN = re.compile(r"(?<=[^\W\d_])-[ \t]*[\r\n]\s*(?=[^\W\d_])")


@lru_cache(maxsize=4096)
def normalize(text: str) -> str:
    """The quote normalization of DESIGN 6: the same result as normalize_with_map, built from
    whole-string operations because it runs on every chunk and quote (tests hold the two equal).
    Cached: one chunk's text is normalized for every claim that cites it (40,000 in one answer)."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace(_SOFT_HYPHEN, "")
    if _FOLD_CHAR.search(folded):  # translate looks up every character: only when one would change
        folded = folded.translate(_FOLD)
    if "-" in folded:  # the line-break hyphen needs one (most text has none: skip the scan)
        folded = _LINE_BREAK_HYPHEN.sub("", folded)
    return " ".join(folded.split())


def locate(needle: str, haystack: str) -> tuple[int, int] | None:
    """Span in the original haystack of the first occurrence of needle, compared normalized."""
    norm_needle = normalize(needle)
    if not norm_needle:
        return None
    norm_hay, origin = normalize_with_map(haystack)
    pos = norm_hay.find(norm_needle)
    if pos < 0:
        return None
    last = origin[pos + len(norm_needle) - 1]
    return origin[pos], last + 1


def collapse_whitespace(text: str) -> str:
    """Default chunk id normalization: whitespace runs → one space, stripped."""
    return " ".join(text.split())


# --- sentences -----------------------------------------------------------------------

# Lowercased tokens that end with a period without ending a sentence.
ABBREVIATIONS = frozenset(
    """т е д п пп ст стр г гг в вв см им им. напр рис табл прим ул др пр тыс млн млрд руб коп тг
    мин сек ч час кв эт корп каб отд зам нач зав мед гл проф доц акад ред изд вып илл арт рег
    e g i etc vs no fig dr mr mrs ms st prof approx art sec ch vol pp p""".split()
)
# Citation markers: "[E1]", "[1]", "[E1, E2]", "[S3; S4]".
MARKER_IDS = r"[A-Za-zА-Яа-я]{0,3}\d+(?:\s*[,;]\s*[A-Za-zА-Яа-я]{0,3}\d+)*"
MARKER_PATTERN = r"\[\s*(?:" + MARKER_IDS + r")\s*\]"
_MARKER_RUN = re.compile(r"\s*" + MARKER_PATTERN)


def strip_markers(text: str) -> str:
    """Text without its citation markers ("Срок 5 дней [E1]." → "Срок 5 дней.")."""
    if "[" in text:  # every marker has one (most text has none: skip the scan)
        text = _MARKER_RUN.sub("", text)
    return " ".join(text.split())


_BOUNDARY = re.compile(
    r"(?P<end>[.!?…]+[\"'»”)\]]*(?:\s*" + MARKER_PATTERN + r")*)(?P<gap>\s+)"
    r"(?!" + MARKER_PATTERN + r")(?=[\"«„(\[]?[A-ZА-ЯЁ0-9—–-])"  # a marker never starts a sentence
)
# Markers that lead their sentence ("[1] Sentence one. [2] Sentence two.", as ALCE's
# post_hoc_cite.py writes them): the marker after a sentence's end starts the next one.
_BOUNDARY_LEADING = re.compile(
    r"(?P<end>[.!?…]+[\"'»”)\]]*)(?P<gap>\s+)"
    r"(?=(?:" + MARKER_PATTERN + r"\s*)*[\"«„(\[]?[A-ZА-ЯЁ0-9—–-])"
)
_OPENING_MARKER = re.compile(r"\s*" + MARKER_PATTERN)


def markers_lead(text: str) -> bool:
    """Whether the text's markers stand before their sentences: it opens with a marker, as
    ALCE's post_hoc_cite.py writes ("[3] One. [1] Two."). A text that opens with words keeps a
    marker after a sentence's end with that sentence ("One. [3] Two [1]." is the common bot
    style), which a mixed text could also mean, so only the opening decides."""
    return bool(_OPENING_MARKER.match(text))
_LIST_LINE = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*•–—]\s|\d+(?:\.\d+)*[.)]\s))")
_NUMBERING_ONLY = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?|[a-zа-я]\))\s*$", re.IGNORECASE)
_TOKEN_STOPS = frozenset(".(«\"")  # what ends the word before a period, with whitespace


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int
    end: int


def _ends_with_abbreviation(prefix: str) -> bool:
    # The word before the period (after any run of periods): the characters back to a space,
    # "(", "«", '"' or another period, read from the end at most 64 of them (no abbreviation is
    # near that long), not a regex searched over the whole sentence. A newline at the very end
    # is passed over, as the regex "([^\s.(«\"]+)\.*$" this replaces passes it ("$").
    floor = max(0, len(prefix.rstrip(".")) - 64)
    text = prefix[:-1] if prefix.endswith("\n") else prefix
    end = len(text.rstrip("."))
    start = end
    while start > floor and not (text[start - 1] in _TOKEN_STOPS or text[start - 1].isspace()):
        start -= 1
    token = text[start:end]
    if not token:
        return False
    if token.lower() in ABBREVIATIONS:
        return True
    # an initial such as "А." in "А. С. Иванов"
    return len(token) == 1 and token.isalpha() and token.isupper()


def split_sentences(text: str, *, leading_markers: bool = False) -> list[Sentence]:
    """Sentences with their spans. Knows Russian abbreviations ("т. е.", "ст. 5", "п. 3.1",
    "№ 1019"), keeps a citation marker after closing punctuation with its sentence (with
    `leading_markers`, with the sentence it precedes), and breaks at blank lines and list items."""
    sentences: list[Sentence] = []
    boundary = _BOUNDARY_LEADING if leading_markers else _BOUNDARY
    breaks = list(_LIST_LINE.finditer(text)) if "\n" in text else []  # every break holds a newline
    block_starts = [0] + [m.end() for m in breaks]
    block_ends = [m.start() for m in breaks] + [len(text)]
    for b_start, b_end in zip(block_starts, block_ends, strict=True):
        start = b_start
        for match in boundary.finditer(text, b_start, b_end):
            end = match.end("end")
            candidate = text[start:end]
            before_period = text[start : match.start("end")]
            if _NUMBERING_ONLY.match(candidate.rstrip(".")) or _NUMBERING_ONLY.match(candidate):
                continue
            if text[match.start("end")] == "." and _ends_with_abbreviation(before_period):
                continue
            if candidate.count("«") > candidate.count("»") or candidate.count("„") > candidate.count("“"):
                continue  # a period inside a quotation: «Отходы. Класс А»
            _append(sentences, text, start, end)
            start = match.end("gap")
        _append(sentences, text, start, b_end)
    return sentences


def _append(out: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append(Sentence(text[start:end], start, end))


# --- numbers -------------------------------------------------------------------------

_MONTH_STEMS = (
    "январ",
    "феврал",
    "март",
    "апрел",
    "ма",
    "июн",
    "июл",
    "август",
    "сентябр",
    "октябр",
    "ноябр",
    "декабр",
)
_MONTH_RE = (
    r"(январ[яь]|феврал[яь]|марта?|апрел[яь]|ма[яй]|июн[яь]|июл[яь]|"
    r"августа?|сентябр[яь]|октябр[яь]|ноябр[яь]|декабр[яь])"
)
_SPACE = "[ \u00a0\u202f\u2009]"
# (?=\d) first: every alternative starts at a digit, and the engine then skips the other
# positions at once instead of trying each alternative's lookbehind there (5x faster a scan).
_NUMBER_RE = re.compile(
    r"(?=\d)(?:(?P<iso>(?<!\d)\d{4}-\d{2}-\d{2}(?!\d))"
    r"|(?P<dmy>(?<![\d.])\d{1,2}\.\d{1,2}\.\d{4}(?!\d))"
    rf"|(?P<textdate>(?<!\d)\d{{1,2}}{_SPACE}+{_MONTH_RE}{_SPACE}+\d{{4}})"
    rf"|(?P<daymonth>(?<!\d)\d{{1,2}}{_SPACE}+{_MONTH_RE}(?!\w))"  # "до 1 марта": a day of every year
    r"|(?P<time>(?<!\d)\d{1,2}:\d{2}(?!\d))"
    r"|(?P<frac>(?<![\d/.,])\d{1,2}/\d{1,2}(?![\d/.,]))"  # "3/4 объёма", read as "три четверти" is
    rf"|(?P<num>\d{{1,3}}(?:{_SPACE}\d{{3}})+(?:[.,]\d+)?(?!\d)|\d+(?:[.,]\d+)?)"
    rf"(?P<pct>{_SPACE}?(?:%|процент\w*|percent\b))?)",
    re.IGNORECASE,
)
_RANGE_DASH = re.compile(rf"^{_SPACE}*[-\u2010-\u2015\u2212…]{{1,3}}{_SPACE}*$|^{_SPACE}*\.\.\.?{_SPACE}*$")


@dataclass(frozen=True)
class NumberMention:
    """A number in text. value is canonical: '1000.5', '15', '2025-07-01', '16:00', '2/3'."""

    text: str
    start: int
    end: int
    kind: str  # number | percent | date | time | ordinal | fraction (ordinals only in words; "3/4" a fraction)
    value: str
    range_with: int | None = None  # index of the other end when part of a range "5–7"
    unit: str | None = None  # time unit that follows: year | month | week | day | workday | hour | minute
    written: str = "digits"  # digits | words ("двенадцати", "пятилетний", "полгода")


def _canonical_decimal(raw: str) -> str | None:
    if raw.isdigit():  # the common case, without Decimal: "012" → "12"
        return raw.lstrip("0") or "0"
    digits = re.sub(_SPACE, "", raw).replace(",", ".")
    try:
        value = Decimal(digits)
    except InvalidOperation:
        return None
    return format(value.normalize(), "f")


def _month_number(word: str) -> int:
    word = word.lower()
    for number, stem in enumerate(_MONTH_STEMS, start=1):
        if word.startswith(stem) and (stem != "ма" or word in ("мая", "май")):
            return number
    return 0


def _iso(y: int, m: int, d: int) -> str | None:
    try:
        return date(y, m, d).isoformat()
    except ValueError:
        return None


# "5 тыс.", "1,2 млн": the multiplier is part of the value.
_MULTIPLIER_RE = re.compile(
    rf"{_SPACE}?(?P<word>тыс\.?|тысяч[а-я]*|млн\.?|миллион[а-я]*|млрд\.?|миллиард[а-я]*|thousand|million|billion)"
    r"(?![^\W\d_])",
    re.IGNORECASE,
)
_MULTIPLIERS = (("тыс", 1000), ("млн", 10**6), ("миллион", 10**6), ("млрд", 10**9), ("миллиард", 10**9),
                ("thousand", 1000), ("million", 10**6), ("billion", 10**9))
# A case ending glued to digits: "12-ти", "3-х", "1-го", "5-й", "2-м".
_CASE_SUFFIX_RE = re.compile(r"-(?:[а-я]{1,3})(?![^\W\d_])", re.IGNORECASE)
_CALENDAR_YEAR_RE = re.compile(rf"{_SPACE}+(?:год|года|году|годом|годе)(?![^\W\d_])", re.IGNORECASE)


def _scaled(value: str, text: str, end: int) -> tuple[str, int]:
    match = _MULTIPLIER_RE.match(text, end)
    if match is None:
        return value, end
    word = match.group("word").lower()
    factor = next(f for stem, f in _MULTIPLIERS if word.startswith(stem))
    scaled = Decimal(value) * factor
    return format(scaled.normalize(), "f") if scaled != scaled.to_integral() else str(int(scaled)), match.end()


def _digit_unit(text: str, value: str, end: int) -> str | None:
    """The time unit after a number in digits: "12 месяцев", "12-ти лет", "5-летний"."""
    unit, _ = numerals.digit_suffix(text, end)
    if unit is not None:
        return unit
    suffix = _CASE_SUFFIX_RE.match(text, end)
    if suffix is not None:
        end = suffix.end()
    elif len(value) == 4 and 1800 <= int(value) <= 2100 and _CALENDAR_YEAR_RE.match(text, end):
        return None  # "2020 года" is a calendar year, not a duration
    return numerals.unit_at(text, end)[0]


def extract_numbers(text: str, words: bool = True) -> list[NumberMention]:
    """Numbers, percentages, dates (dd.mm.yyyy, ISO, "1 июля 2025"), times and ranges ("5–7"),
    and (words=True) numbers written in words ("двенадцати", "тридцати пяти", "полтора",
    "двух третей", "пятилетний"; see data.numerals), each with the time unit that follows it.

    Signs are not part of the value ("+8 °C" and "8" agree); thousands may be grouped
    by a space or NBSP; a comma or a point marks decimals; "5 тыс." is 5000.
    """
    return list(_extract_numbers(text, words))


def _as_two_numbers(text: str, start: int, raw: str) -> list[NumberMention]:
    """ "12/5" read as the two numbers it was read as before digit fractions were."""
    top, bottom = raw.split("/")
    first, second = _canonical_decimal(top) or top, _canonical_decimal(bottom) or bottom
    end = start + len(raw)
    return [NumberMention(top, start, start + len(top), "number", first),
            NumberMention(bottom, start + len(top) + 1, end, "number", second, unit=_digit_unit(text, second, end))]


@lru_cache(maxsize=65536)
def _extract_numbers(text: str, words: bool) -> tuple[NumberMention, ...]:
    """extract_numbers, cached: the judge reads one claim's or fragment's numbers for several
    rules (mentions are frozen, the caller gets its own list)."""
    found: list[NumberMention] = []
    for m in _NUMBER_RE.finditer(text):
        raw = m.group(0)
        value: str | None
        unit = None
        end = m.end()
        # the alternative that matched is the last group to close ("pct" closes after "num")
        alternative = m.lastgroup
        if alternative == "num":  # the usual number: first, and without the other groups' reads
            value, kind = _canonical_decimal(raw), "number"
            if value is not None:
                value, end = _scaled(value, text, end)
                unit = _digit_unit(text, value, end) if "." not in value else numerals.unit_at(text, end)[0]
        elif alternative == "pct":
            value, kind = _canonical_decimal(m.group("num")), "percent"
        elif alternative == "iso":
            y, mo, d = (int(p) for p in raw.split("-"))
            value, kind = _iso(y, mo, d), "date"
        elif alternative == "dmy":
            d, mo, y = (int(p) for p in raw.split("."))
            value, kind = _iso(y, mo, d), "date"
        elif alternative == "textdate":
            parts = re.split(_SPACE + "+", raw)
            value, kind = _iso(int(parts[2]), _month_number(parts[1]), int(parts[0])), "date"
        elif alternative == "daymonth":
            day, month = int(raw.split()[0]), _month_number(re.split(_SPACE + "+", raw)[1])
            value, kind = (f"--{month:02d}-{day:02d}" if _iso(2000, month, day) else None), "date"  # ISO 8601 --MM-DD
        elif alternative == "time":
            h, mi = raw.split(":")
            value, kind = (f"{int(h):02d}:{mi}" if int(h) < 24 and int(mi) < 60 else None), "time"
        else:  # "frac"
            top, bottom = (int(p) for p in raw.split("/"))
            if not 0 < top < bottom:  # "12/5", "3/3": not a proper fraction, two numbers as before
                found.extend(_as_two_numbers(text, m.start(), raw))
                continue
            value, kind = numerals.canonical(Fraction(top, bottom)), "fraction"
        if value is None:
            continue
        start = m.start()
        found.append(NumberMention(text[start:end], start, end, kind, value, unit=unit))
    if words:
        found = _with_words(found, text)
    # link ranges: two mentions of the same kind separated only by a dash or an ellipsis
    linked: list[NumberMention] = []
    for i, mention in enumerate(found):
        other = None
        if i > 0 and found[i - 1].kind == mention.kind and _RANGE_DASH.match(text[found[i - 1].end : mention.start]):
            other = i - 1
        elif (
            i + 1 < len(found)
            and found[i + 1].kind == mention.kind
            and _RANGE_DASH.match(text[mention.end : found[i + 1].start])
        ):
            other = i + 1
        linked.append(mention if other is None else NumberMention(**{**mention.__dict__, "range_with": other}))
    return tuple(linked)


def _with_words(found: list[NumberMention], text: str) -> list[NumberMention]:
    """found plus the numbers in words that do not overlap a digit mention, in text order."""
    spoken = numerals.read_number_words(text)
    if not spoken:
        return found
    taken = [(m.start, m.end) for m in found]
    merged = list(found)
    for w in spoken:
        if any(s < w.end and w.start < e for s, e in taken):
            continue
        merged.append(NumberMention(w.text, w.start, w.end, w.kind, w.value, unit=w.unit, written="words"))
    merged.sort(key=lambda m: m.start)
    return merged


def number_values(text: str) -> set[str]:
    """Canonical values of every number in text, digits and words alike (for support checks)."""
    return {m.value for m in extract_numbers(text)}


# --- numbers supported by evidence -----------------------------------------------------


def mention_duration(mention: NumberMention) -> tuple[str, Fraction] | None:
    """The exact duration of a cardinal with a time unit, in base units ("1 год" → month, 12)."""
    if mention.kind not in ("number", "fraction"):
        return None
    return numerals.duration(mention.value, mention.unit)


def _durations(norm_text: str, mentions: list[NumberMention]) -> set[tuple[str, Fraction]]:
    found = {d for m in mentions if (d := mention_duration(m)) is not None}
    found.update(d for _, _, unit in numerals.bare_durations(norm_text) if (d := numerals.duration("1", unit)))
    return found


# The age of majority is 18 (in Russia, Kazakhstan and the other states whose law is written in
# Russian): "несовершеннолетним" states the age a claim's "младше 18 лет" names.
_MAJORITY = re.compile(r"(?<!\w)(?:не)?совершеннолет")
_MAJORITY_AGE = ("18", "year")
_MAJORITY_DURATION = numerals.duration(*_MAJORITY_AGE)


# The number of a paragraph or list item ("5. Аудиторское заключение …", ": 3) досрочно …") and a
# reference to one ("в пунктах 2 и 3 настоящей статьи") count nothing: under strict units they
# hold no number of the claim ("три группы", "три года").
# A list's last item number is how many items it has: "1) …; 2) …; 3) …" holds "три признака".
ENUMERATION = "enumeration"
LIST_LENGTH = "list length"
_ITEM_END_RE = re.compile(r"[.)]\s")
# the numbers a reference names, as one run: "пунктах 2 и 3", "п. 5 ст. 166"
_REFERENCE_RUN_RE = re.compile(
    r"(?:(?<!\w)(?:пункт|подпункт|стать|глав|част|раздел)\w*|(?<!\w)(?:п|пп|ст|гл|ч)\.)\s*((?:\d[\d.]*\s*(?:,|и|или)?\s*)+)")


_REFERENCE_WORDS = ("пункт", "стать", "глав", "част", "раздел", "п.", "ст.", "гл.", "ч.")


def _item_numbers(norm: str, mentions: Sequence[NumberMention]) -> set[int]:
    """The starts of the mentions that number an item or paragraph, or that a reference names."""
    referring = mentions and any(word in norm for word in _REFERENCE_WORDS)  # a cheap test first
    runs = [(m.start(1), m.end(1)) for m in _REFERENCE_RUN_RE.finditer(norm)] if referring else []
    out = set()
    for mention in mentions:
        if _ITEM_END_RE.match(norm, mention.end) is not None:
            head = norm[max(0, mention.start - 8) : mention.start].rstrip()  # a window: texts are long
            if (head[-1] in ":;") if head else mention.start <= 8:
                out.add(mention.start)
                continue
        if mention.kind == "number" and any(a <= mention.start < b for a, b in runs):
            out.add(mention.start)
    return out


@lru_cache(maxsize=65536)
def _held(text: str) -> tuple[tuple[tuple[str, str | None], ...], frozenset[tuple[str, Fraction]]]:
    """(value, unit) of every number of one evidence text, and its exact durations (cached:
    the same chunk backs many claims)."""
    norm = normalize(text)
    mentions = extract_numbers(norm)
    numbering = _item_numbers(norm, mentions)
    values = tuple((m.value, ENUMERATION if m.start in numbering else m.unit) for m in mentions)
    items = [int(m.value) for m in mentions if m.value.isdigit() and norm.startswith(")", m.end)
             and m.start in numbering]
    if items:
        values += ((str(max(items)), LIST_LENGTH),)
    durations = _durations(norm, mentions)
    # only where the fragment states no age of its own ("несовершеннолетних, не достигших шестнадцати лет")
    if "первичн" in norm:  # "первичный патронаж" is "первый патронаж"
        values += (("1", None),)
    if "совершеннолет" in norm and _MAJORITY.search(norm) and not any(unit == "year" for _, unit in values):
        values += (_MAJORITY_AGE,)
        if _MAJORITY_DURATION is not None:
            durations.add(_MAJORITY_DURATION)
    return values, frozenset(durations)


def _held_as_hour(mention: NumberMention, units_of: dict[str, set[str | None]]) -> bool:
    """A time on the hour ("23:00") held as the evidence's hour ("с 23 до 10 часов"): its hour
    is a number of the evidence (bare, or with "часов"), and the evidence counts hours somewhere."""
    if mention.kind != "time" or not mention.value.endswith(":00"):
        return False
    units = units_of.get(str(int(mention.value[:2])))
    return units is not None and bool(units & {None, "hour"}) and any("hour" in u for u in units_of.values())


_OWN_ARTICLE_RE = re.compile(r"(?<!\w)(?:настоящ|данн|эт)\w* стать")
_ARTICLE_BEFORE_RE = re.compile(r"(?:(?<!\w)ст\.|(?<!\w)стать\w*)\s*$")


def missing_numbers(claim_text: str, evidence_texts: Sequence[str], strict_units: bool = False) -> list[str]:
    """Values of the claim's numbers that no evidence text holds, the evidence read as one union
    (a claim backed by two citations together is backed). A number is held when some fragment
    has the same value, or the same exact duration ("12 месяцев" against "в течение года").
    strict_units: a value held only with another time unit ("12 недель" against "12 месяцев")
    is missing too. A bare duration of the claim ("в течение года") must be held only when the
    evidence states a duration of the same kind (months, days, minutes)."""
    claim_norm = normalize(claim_text)
    claim = extract_numbers(claim_norm)
    claim_bare = numerals.bare_durations(claim_norm)
    if not claim and not claim_bare:  # nothing of the claim's to find: the evidence is not read
        return []
    units_of: dict[str, set[str | None]] = {}
    evidence_durations: set[tuple[str, Fraction]] = set()
    for text in evidence_texts:
        values, durations = _held(text)
        for value, unit in values:
            units_of.setdefault(value, set()).add(unit)
        evidence_durations |= durations
    missing: list[str] = []
    claim_numbering = _item_numbers(claim_norm, claim) if strict_units else set()
    # a fragment that names its own article only as "настоящей статьи" cannot hold the number an
    # answer gives it ("в п. 4 ст. 60 Кодекса" for "в пункте 4 настоящей статьи"): not a claim's fact
    own_article = bool(claim_numbering) and any(_OWN_ARTICLE_RE.search(normalize(text)) for text in evidence_texts)
    for m in claim:
        if own_article and m.start in claim_numbering and _ARTICLE_BEFORE_RE.search(claim_norm, max(0, m.start - 9),
                                                                                    m.start):
            continue
        held_duration = (d := mention_duration(m)) is not None and d in evidence_durations
        units = units_of.get(m.value)
        if strict_units and units is not None:
            if m.start in claim_numbering:
                continue  # the claim quotes the item's own number ("3.5. В кабинетах …")
            units = (units - {ENUMERATION} - ({LIST_LENGTH} if m.unit is not None else set())) or None
        held_value = units is not None and (
            not strict_units or m.unit is None or None in units or m.unit in units or m.kind == "ordinal"
        )
        if not (held_value or held_duration or _held_as_hour(m, units_of)) and m.value not in missing:
            missing.append(m.value)
    dimensions = {base for base, _ in evidence_durations}
    for start, end, unit in claim_bare:
        d = numerals.duration("1", unit)
        if d is not None and d[0] in dimensions and d not in evidence_durations:
            missing.append(claim_norm[start:end])
    return missing


def number_support_joint(claim_text: str, evidence_texts: Sequence[str]) -> bool:
    """Every number of the claim is held by the union of its cited evidence texts (see
    missing_numbers): the number_support test for a claim with one or several citations."""
    return not missing_numbers(claim_text, evidence_texts)
