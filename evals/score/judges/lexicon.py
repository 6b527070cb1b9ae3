"""Words for the offline judge: content-word stems, number words, negation and bound cues, and
the Russian regulation cues (modality, actors, causes, exceptions, conditions, universal
quantifiers).

Russian first, English second; any other script falls back to the casefolded word.
Everything here is built in (no downloads): snowball stemmers come compiled with PyStemmer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from evals.text import numerals
from evals.text.lemmas import lemma
from evals.text.normalize import NumberMention, extract_numbers, normalize, strip_markers
from evals.text.tokens import is_stopword, stem

# Short function-word lists (NLTK-like, trimmed). Negation and bound words are not here on
# purpose: they are cues, handled separately, and must not count as content either.
# Word-form numbers, so a claim's "6" can be found in evidence that says "шести" or "six".
_RU_NUMBER_WORDS = {
    "один": "1", "одна": "1", "одно": "1", "одного": "1", "одной": "1", "одному": "1", "одним": "1",
    "два": "2", "две": "2", "двух": "2", "двум": "2", "двумя": "2", "три": "3", "трех": "3", "трем": "3",
    "тремя": "3", "четыре": "4", "четырех": "4", "пять": "5", "пяти": "5", "шесть": "6", "шести": "6",
    "семь": "7", "семи": "7", "восемь": "8", "восьми": "8", "девять": "9", "девяти": "9", "десять": "10",
    "десяти": "10", "двенадцать": "12", "двенадцати": "12", "пятнадцать": "15", "пятнадцати": "15",
    "двадцать": "20", "двадцати": "20", "тридцать": "30", "тридцати": "30", "сто": "100", "ста": "100",
    "полгода": "6", "полугода": "6", "дважды": "2", "трижды": "3", "однократно": "1", "ежегодно": "1",
}
_EN_NUMBER_WORDS = {
    "one": "1", "once": "1", "two": "2", "twice": "2", "three": "3", "thrice": "3", "four": "4", "five": "5",
    "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "fifteen": "15", "twenty": "20", "thirty": "30", "forty": "40", "fifty": "50", "hundred": "100",
    "annually": "1", "dozen": "12",
}

# Bounds: the claim's "не реже 6 месяцев" differs from the evidence's "не более 6 месяцев".
# Each cue is a whole-word phrase on normalized text; checked before plain negation so that
# the "не" inside "не реже" is not read as a negation.
_REACHED_ENDINGS = ("", "ла", "ли", "ший", "шая", "шее", "шие", "шего", "шему", "шим", "ших", "шими")
_LOWER = ("не реже", "не менее", "не меньше", "не ранее", "не раньше", "не младше", "начиная с", "после", "старше",
          "как минимум", "минимум", "от", "свыше",
          "более", "больше", "at least", "no less than", "not less than", "no fewer than", "minimum", "more than",
          "over", "over", "from", "exceeding", "above", "no earlier than",
          # an age reached: "достигшие восемнадцати лет" are eighteen or older
          *(f"достиг{ending}" for ending in _REACHED_ENDINGS))
_UPPER = ("не более", "не больше", "не позднее", "не позже", "не свыше", "не старше", "не чаще", "до", "младше",
          "не превышая", "не превышающий", "не превышающего", "не превышающую", "не превышающих", "в пределах",
          "в течение", "в срок до", "в срок не позднее",
          "максимум", "не превышает", "не превышающ", "менее", "меньше", "at most", "no more than",
          "not more than", "up to", "maximum", "no later than", "less than", "fewer than", "under", "below",
          "within", "not exceeding",
          # an age not yet reached: "если пациент не достиг восемнадцати лет" is under eighteen
          *(f"не достиг{ending}" for ending in _REACHED_ENDINGS))
_NEGATION = ("не", "нет", "ни", "нельзя", "никогда", "без", "запрещается", "запрещено", "запрещен", "запрещена",
             "запрещены", "не допускается", "недопустимо", "отсутствует", "not", "no", "never", "without",
             "cannot", "nor", "none", "prohibited", "forbidden", "neither", "n't")
# Modality: an obligation in the claim is not supported by a mere permission in the evidence.
_MUST = ("должен", "должна", "должно", "должны", "обязан", "обязана", "обязаны", "обязательно", "необходимо",
         "требуется", "следует", "must", "shall", "required", "mandatory", "obliged", "have to", "has to")
_MAY = ("может", "могут", "вправе", "допускается", "разрешается", "разрешено", "можно", "may", "might", "can",
        "could", "allowed", "permitted", "optional", "possibly")
# Words of the three cue lists, as one set for the per-word membership tests (a tuple is scanned).
_CUE_SET = frozenset(_NEGATION + _MUST + _MAY)


def _phrase_re(phrases: tuple[str, ...]) -> re.Pattern[str]:
    ordered = sorted(set(phrases), key=len, reverse=True)  # longest first: "не более" before "не"
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(p) for p in ordered) + r")(?!\w)")


_LOWER_RE = _phrase_re(_LOWER)
_UPPER_RE = _phrase_re(_UPPER)
_BOUND_RE = _phrase_re(_LOWER + _UPPER)
_NEGATION_RE = re.compile(r"(?<!\w)(?:" + "|".join(re.escape(p) for p in sorted(_NEGATION, key=len, reverse=True)
                                                     if p != "n't") + r")(?!\w)|n't\b")
_SCOPED_NEGATION = frozenset(("не", "ни", "нет", "без", "никогда", "not", "no", "never", "without", "cannot", "nor"))
# Deontic words only: "может"/"may"/"can" are hedges as often as permissions, and their
# negation is caught by the scoped-negation check anyway.
_PROHIBIT = ("запрещается", "запрещено", "запрещен", "запрещена", "запрещены", "запрещаются", "не допускается",
             "не допускаются", "не разрешается", "не разрешено", "нельзя", "недопустимо", "не вправе",
             "prohibited", "forbidden", "not allowed", "not permitted", "must not", "shall not")
_PERMIT = ("разрешается", "разрешено", "разрешен", "разрешена", "допускается", "допускаются", "вправе", "можно",
           "allowed", "permitted")
_NOT_NEGATION_RE = _phrase_re(("не только", "не столько", "не раз", "не так давно", "not only", "no longer than",
                               "no matter", "not just"))
_PROHIBIT_RE = _phrase_re(_PROHIBIT)
_PERMIT_RE = _phrase_re(_PERMIT)
_MUST_RE = _phrase_re(_MUST)
_MAY_RE = _phrase_re(_MAY)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_TOKEN = re.compile(r"[^\W_]+")
_CYRILLIC = re.compile(r"[а-я]")
_LATIN = re.compile(r"[a-z]")

def words(norm_text: str) -> list[str]:
    """Letter-only words of normalized text (numbers are handled as numbers)."""
    return list(_words(norm_text))


@lru_cache(maxsize=65536)
def _words(norm_text: str) -> tuple[str, ...]:
    """words, cached: several rules read one claim's or fragment's words (half the reads repeat)."""
    return tuple(_WORD.findall(norm_text))


def content_stems(norm_text: str) -> list[str]:
    """Stems of the content words, in order (stopwords and cue words removed)."""
    return list(_content_stems(norm_text))


@lru_cache(maxsize=65536)
def _content_stems(norm_text: str) -> tuple[str, ...]:
    return tuple(stem(word) for word in words(norm_text)
                 if not (is_stopword(word) or word in _CUE_SET))


def number_word(word: str) -> str | None:
    """The digits a number word stands for ("шести" → "6", "первого" → "1", "twice" → "2"), else None."""
    entry = numerals.LEXICON.get(word)
    if entry is not None and entry.kind in ("cardinal", "ordinal", "multiplicative", "half") and _CYRILLIC.search(word):
        return numerals.canonical(entry.value)
    return _RU_NUMBER_WORDS.get(word) or _EN_NUMBER_WORDS.get(word)


def token_stream(norm_text: str) -> list[str]:
    """Every token in order, for n-gram matching: stems of words (stopwords kept, they carry the
    word order), number words as digits, digit runs as they are."""
    return list(_token_stream(norm_text))


@lru_cache(maxsize=65536)
def _token_stream(norm_text: str) -> tuple[str, ...]:
    return tuple(map(_stream_token, _TOKEN.findall(norm_text)))


@lru_cache(maxsize=65536)
def _stream_token(token: str) -> str:
    """One token of token_stream (cached: the same words recur in every text)."""
    return token if token.isdigit() else number_word(token) or stem(token)


def word_numbers(norm_text: str) -> set[str]:
    """Numbers written as words ("шести", "тридцати пяти", "twice"), as canonical values."""
    return set(_word_numbers(norm_text))


@lru_cache(maxsize=65536)
def _word_numbers(norm_text: str) -> frozenset[str]:
    found = {m.value for m in extract_numbers(norm_text) if m.written == "words"}
    for word in words(norm_text):
        if word in _RU_NUMBER_WORDS:
            found.add(_RU_NUMBER_WORDS[word])
        elif word in _EN_NUMBER_WORDS:
            found.add(_EN_NUMBER_WORDS[word])
    return frozenset(found)


@dataclass(frozen=True)
class NumberCue:
    """A number in normalized text with the bound phrase right before it (lower, upper or none)."""

    value: str
    bound: str  # lower | upper | none
    unit: str | None = None  # the time or measure unit the number counts, when it names one


# A bound written after the number: "16 лет и старше", "5 дней и более".
# the preposition right before a date: "по" ends a period, "с" starts one
_DATE_LEAD_RE = re.compile(r"(?<!\w)(по|с|со)\s+$")
_AFTER_LOWER_RE = re.compile(r"^\s*(?:[^\W\d_]+\s+){0,2}?(?:и|или)\s+(?:старше|более|больше|выше|свыше|дольше)(?!\w)|"
                             r"^\s*(?:[^\W\d_]+\s+){0,2}?(?:or|and)\s+(?:older|more|above|over)(?!\w)")
_AFTER_UPPER_RE = re.compile(r"^\s*(?:[^\W\d_]+\s+){0,2}?(?:и|или)\s+(?:младше|менее|меньше|ниже)(?!\w)|"
                             r"^\s*(?:[^\W\d_]+\s+){0,2}?(?:or|and)\s+(?:younger|less|fewer|below|under)(?!\w)")


@lru_cache(maxsize=65536)
def number_cues(norm_text: str) -> tuple[NumberCue, ...]:
    """Numbers with their bound: "не реже 1 раза в 6 месяцев" → 1 (lower), 6 (lower);
    "16 лет и старше" → 16 (lower)."""
    return tuple(NumberCue(mention.value, _bound(norm_text, mention), mention.unit)
                 for mention in _numbers_and_durations(norm_text))


def _numbers_and_durations(norm_text: str) -> list[NumberMention]:
    """The numbers of the text, and a unit word that stands for one of itself ("не позднее чем
    через год", "в течение суток") as the number one of that unit, so that its bound is read."""
    bare = [NumberMention(norm_text[start:end], start, end, "number", "1", unit=unit, written="words")
            for start, end, unit in numerals.bare_durations(norm_text)]
    return extract_numbers(norm_text) + bare


def number_bounds(norm_text: str, values: set[str], units: dict[str, str] | None = None) -> dict[str, set[str]]:
    """The bounds (as number_cues reads them) each of `values` has in norm_text; the other
    numbers' bounds are not read (a claim's few bounded values against a long fragment). A value
    given a unit is read only where it counts that unit: "5 рабочих дней", not the "5." that
    numbers the paragraph."""
    out: dict[str, set[str]] = {}
    units = units or {}
    for mention in _numbers_and_durations(norm_text):
        if mention.value in values and units.get(mention.value, mention.unit) == mention.unit:
            out.setdefault(mention.value, set()).add(_bound(norm_text, mention))
    return out


def _bound(norm_text: str, mention: NumberMention) -> str:
    """The bound of one number: the phrase before it within a few words, or one right after."""
    # the bound phrase governs the numbers that follow it within a few words
    window = norm_text[max(0, mention.start - 40) : mention.start]
    bound = "none"
    last = None
    for m in _BOUND_RE.finditer(window):
        last = m
    if last is not None and len(words(window[last.end() :])) <= 4:
        bound = "lower" if _LOWER_RE.fullmatch(last.group(0)) else "upper"
    if mention.kind == "date" and bound == "none":  # "действует по 31 декабря" / "применяется с 1 января"
        lead = _DATE_LEAD_RE.search(window)
        if lead is not None:
            bound = "upper" if lead.group(1) == "по" else "lower"
    after = norm_text[mention.end : mention.end + 40]
    if _AFTER_LOWER_RE.match(after):
        bound = "lower"
    elif _AFTER_UPPER_RE.match(after):
        bound = "upper"
    return bound


# An order against an event: "до начала деятельности" against "после начала деятельности".
# "По результатам (итогам) применения" is after the use, and so is what runs "с момента (со дня)
# истечения"; "до начала применения" is before it (and before its start: "после начала
# применения" against it is an opposite too).
_EVENT_ORDER_RE = re.compile(
    r"(?<!\w)(до|после|прежде|с\s+момента|со\s+дня|по\s+(?:результатам|итогам|окончании|завершении))\s+([^\W\d_]{3,})"
    r"(?:(?<=начала)(?:\s+(?:его|ее|её|их))?\s+([^\W\d_]{3,}))?")


# Events a paraphrase names by another word: a contract is signed as it is concluded.
_SAME_EVENTS = (("подписан", "заключен"), ("подпис", "заключ"))


def _same_event(a: str, b: str) -> bool:
    """Two stems name one event: equal, or one a verb's and the other its noun's ("вынес" of
    "вынесено", "вынесен" of "вынесения"; "поступ" / "поступлен"), or _SAME_EVENTS."""
    if a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a))):
        return True
    return any((a.startswith(x) and b.startswith(y)) or (a.startswith(y) and b.startswith(x)) for x, y in _SAME_EVENTS)


def event_order_conflicts(claim: str, evidence: str) -> list[str]:
    """The claim puts something after an event the evidence puts it before, or the reverse (the
    event named by the same word: "после начала работы" against "до начала работы")."""
    from evals.text.lemmas import part_of_speech

    def orders(text: str) -> dict[str, tuple[str, set[str]]]:
        found: dict[str, tuple[str, set[str]]] = {}
        for m in _EVENT_ORDER_RE.finditer(text):
            order = "before" if m.group(1) in ("до", "прежде") else "after"
            named = [m.group(2)]
            if order == "before" and m.group(2) == "начала" and m.group(3):
                named.append(m.group(3))
            if m.group(2) == "того":  # "после того, как … вынесено решение": the clause's verb names the event
                clause = _CLAUSE_END_RE.split(text[m.end() : m.end() + 80], maxsplit=1)[0]
                named = [w for w in words(clause)[:8] if part_of_speech(w) in _PREDICATE_POS]
            for word in named:
                if number_word(word) is None:
                    found.setdefault(stem(word), (word, set()))[1].add(order)
        return found

    claimed = orders(claim)
    if not claimed:
        return []
    stated = orders(evidence)

    def opposite(event: str, order: set[str]) -> bool:
        # a verb's participle names the event its noun names: "вынесено" (вынес) / "вынесения" (вынесен)
        return any(_same_event(event, other) and orders_ == {"before", "after"} - order
                   for other, (_, orders_) in stated.items())

    return [f"claim says {'after' if order == {'after'} else 'before'} {word}, the evidence the opposite"
            for event, (word, order) in claimed.items() if len(order) == 1 and opposite(event, order)]


# How often: "один раз в месяц" against "один раз в квартал" (the count the same, the period not).
_PERIOD_OF = {"год": "year", "полгода": "half-year", "полугодие": "half-year", "квартал": "quarter", "месяц": "month",
              "неделю": "week", "день": "day", "сутки": "day", "смену": "shift"}
_FREQUENCY_RE = re.compile(r"(?<!\w)раза? в (" + "|".join(_PERIOD_OF) + r")(?!\w)")
# by stem: the adverb and the adjective alike ("ежеквартально", "ежеквартальный отчёт")
_FREQUENCY_ADVERB = {"ежегодн": "year", "ежекварталь": "quarter", "ежемесячн": "month", "еженедельн": "week",
                     "ежедневн": "day", "ежесуточн": "day"}


def _periods(norm_text: str) -> set[str]:
    found = {_PERIOD_OF[m.group(1)] for m in _FREQUENCY_RE.finditer(norm_text)}
    return found | {period for word, period in _FREQUENCY_ADVERB.items() if word in norm_text}


def frequency_conflicts(claim: str, evidence: str) -> list[str]:
    """The claim states how often ("раз в месяц", "ежегодно") and the evidence states only other periods."""
    said = _periods(claim)
    if not said:
        return []
    stated = _periods(evidence)
    if stated and not said & stated:
        return [f"claim says once a {sorted(said)[0]}, the evidence once a {sorted(stated)[0]}"]
    return []


def negation_count(norm_text: str) -> int:
    """Plain negations, not counting the "не" of bound phrases ("не реже", "не более")."""
    masked = _BOUND_RE.sub(" ", norm_text)
    return len(_NEGATION_RE.findall(masked))


def _without_false_negations(norm_text: str) -> str:
    """Text with the phrases whose "не"/"not" negates nothing masked: bounds ("не реже", "not
    more than") and "не только"/"not only"."""
    return _NOT_NEGATION_RE.sub(" ", _BOUND_RE.sub(" ", norm_text))


def _is_scoped_negation(word: str) -> bool:
    """A word that negates the words after it ("не", "not", "без", "never", "doesn't")."""
    return word in _SCOPED_NEGATION or word.endswith(("n't", "n’t"))


def polarity_sequence(norm_text: str) -> list[tuple[str, bool]]:
    """Content stems in order, each flagged True when a negation governs it. A negation ("не",
    "not", "без", "never") governs the next content word within three words; bound phrases
    ("не реже", "не более") and "не только"/"not only" are not negations."""
    out: list[tuple[str, bool]] = []
    pending = 0  # words left in the current negation's reach
    for word in words(_without_false_negations(norm_text)):
        if _is_scoped_negation(word):
            pending = 3
            continue
        if is_stopword(word) or word in _CUE_SET:
            pending = max(0, pending - 1)
            continue
        out.append((stem(word), pending > 0))
        pending = 0
    return out


# A negation said by a verb: "fails to disclose", "unable to attend", "lacks a licence".
_NEGATIVE_VERB_RE = re.compile(r"(?<!\w)(?:fail(?:s|ed|ing)? to|unable to|lack(?:s|ed|ing)?|absence of)(?!\w)")


def _has_negation(norm_text: str) -> bool:
    """Any negation in text: a scoped one ("not", "no", "without", "n't"; not the "not" of "not
    more than" or "not only") or one said by a verb."""
    masked = _without_false_negations(norm_text)
    return any(map(_is_scoped_negation, words(masked))) or bool(_NEGATIVE_VERB_RE.search(masked))


def polarity_flips(claim: str, evidence: str) -> list[str]:
    """Stems negated on one side and affirmed on the other in the same context: the flipped
    word must have the same neighbouring content word on both sides, so that a "не" elsewhere
    in a long sentence does not count."""
    sides = (polarity_sequence(claim), polarity_sequence(evidence))

    def contexts(seq: list[tuple[str, bool]], negated: bool) -> set[tuple[str, str, str]]:
        found = set()
        for i, (stem_, neg) in enumerate(seq):
            if neg != negated:
                continue
            if i > 0:
                found.add(("prev", seq[i - 1][0], stem_))
            if i + 1 < len(seq):
                found.add(("next", stem_, seq[i + 1][0]))
        return found

    flips = []
    texts = (claim, evidence)
    for name, (this, other), affirming in (("claim", sides, texts[1]), ("evidence", sides[::-1], texts[0])):
        if _has_negation(affirming):
            # the side read as affirming negates too, in its own words ("not visible with the gram
            # stain" against "cannot be gram stained", "doesn't add additional costs" against "no
            # additional costs"): a paraphrase of the negation, not its opposite (ExpertQA: all 7
            # English flips on labelled pairs were of this kind)
            continue
        clash = contexts(this, True) & contexts(other, False) - contexts(other, True)
        for where, a, b in sorted(clash):
            word = b if where == "prev" else a
            flips.append(f"{name} negates '{word}', the other does not")
    return flips


def deontic(norm_text: str) -> str | None:
    """"prohibit" ("запрещается", "не допускается", "must not"), "permit" ("разрешается",
    "вправе", "may") or None."""
    if _PROHIBIT_RE.search(norm_text):
        return "prohibit"
    return "permit" if _PERMIT_RE.search(norm_text) else None


def number_values(norm_text: str, codes: bool = True, spoken: bool = True) -> set[str]:
    """Canonical values of the numbers and dates (see data.text; spoken=False: digits only).
    codes=False leaves out digits glued to a preceding letter ("C3", "BiVO4", "Ka-27"): names,
    not quantities."""
    return set(_number_values(norm_text, codes, spoken))


@lru_cache(maxsize=65536)
def _number_values(norm_text: str, codes: bool, spoken: bool) -> frozenset[str]:
    return frozenset(
        m.value
        for m in extract_numbers(norm_text, words=spoken)
        if codes or m.start == 0 or not (norm_text[m.start - 1].isalpha() or norm_text[m.start - 1] == "-"
                                        and m.start > 1 and norm_text[m.start - 2].isalpha())
    )


def has_must(norm_text: str) -> bool:
    return _MUST_RE.search(norm_text) is not None


def has_may(norm_text: str) -> bool:
    return _MAY_RE.search(norm_text) is not None


def prepare(text: str) -> str:
    """Normalized text without citation markers."""
    return normalize(strip_markers(text))


# --- English number and date forms -----------------------------------------------------

# "6,650 km" is 6650 in English (grouped thousands), never 6.65; the Russian reading of the
# comma as a decimal mark stays for Cyrillic text.
_EN_THOUSANDS_RE = re.compile(r"(?<![\d.,])(\d{1,3})((?:,\d{3})+)(?![\d,]|\.\d)")
# Month abbreviations ("Jan 15, 1967", "Sept. 3") spelt out, so a claim's "January" meets the
# evidence's "Jan." as the same word (stem, bigram and coverage alike).
_EN_MONTHS = {"jan": "january", "feb": "february", "mar": "march", "apr": "april", "jun": "june", "jul": "july",
              "aug": "august", "sep": "september", "sept": "september", "oct": "october", "nov": "november",
              "dec": "december"}
_EN_MONTH_RE = re.compile(r"(?<![\w.])(" + "|".join(sorted(_EN_MONTHS, key=len, reverse=True)) + r")\.?(?=\s*\d)")


def english_forms(norm_text: str) -> str:
    """English numbers and dates in one spelling: grouped thousands without their commas
    ("6,650" → "6650"), month abbreviations before a day or year spelt out ("jan. 15" → "january 15")."""
    text = _EN_THOUSANDS_RE.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), norm_text)
    return _EN_MONTH_RE.sub(lambda m: _EN_MONTHS[m.group(1)], text)


# --- Russian regulation cues -----------------------------------------------------------

# "Не обязательно: подростка освидетельствуют либо …" answers "обязательно ли …?" as "нет" does;
# the answer's content follows
# (also "Не обязательно сразу:", "Не обязательно всегда:": the answer with one word of its own)
_ANSWER_PARTICLE = re.compile(r"^(?:да|нет|yes|no|(?:не обязательно|необязательно)(?: сразу| всегда)?|конечно|"
                              r"разумеется)\s*[,.!:—-]+\s*")


def strip_answer_particle(norm_text: str) -> str:
    """"Нет, детей не принимают" → "детей не принимают": the answer's "да"/"нет" (or "не обязательно")
    is not a negation."""
    return _ANSWER_PARTICLE.sub("", norm_text, count=1)


# Abbreviations a Russian healthcare answer writes for the regulation's full words.
_ABBREVIATIONS = (
    (re.compile(r"(?<!\w)медработник"), "медицинский работник"),
    (re.compile(r"(?<!\w)медсестр"), "медицинская сестр"),
    (re.compile(r"(?<!\w)медпомощ"), "медицинская помощ"),
    (re.compile(r"(?<!\w)медорганизаци"), "медицинская организаци"),
    (re.compile(r"(?<!\w)медучреждени"), "медицинское учреждени"),
    (re.compile(r"(?<!\w)медосмотр"), "медицинский осмотр"),
    (re.compile(r"(?<!\w)медучет"), "медицинский учет"),
    (re.compile(r"(?<!\w)медкарт"), "медицинская карт"),
    (re.compile(r"(?<!\w)медвмешательств"), "медицинское вмешательств"),
    (re.compile(r"(?<!\w)медзаключени"), "медицинское заключени"),
    (re.compile(r"(?<!\w)медосвидетельствовани"), "медицинское освидетельствовани"),
    (re.compile(r"(?<!\w)медобследовани"), "медицинское обследовани"),
    (re.compile(r"(?<!\w)медкомисси"), "медицинская комисси"),
    (re.compile(r"(?<!\w)профзаболевани"), "профессиональное заболевани"),
    (re.compile(r"(?<!\w)профпатолог"), "профессиональной патолог"),
    (re.compile(r"(?<!\w)сверхурочк"), "сверхурочные работ"),
    (re.compile(r"(?<!\w)нацкалендар"), "национальный календар"),
    (re.compile(r"(?<!\w)медпоказани"), "медицинские показани"),
    (re.compile(r"(?<!\w)медкнижк"), "медицинская книжк"),
    (re.compile(r"(?<!\w)медуслуг"), "медицинские услуг"),
    (re.compile(r"(?<!\w)медданн"), "медицинские данн"),
    (re.compile(r"(?<!\w)медиздели"), "медицинские издели"),
    (re.compile(r"(?<!\w)медсправк"), "медицинская справк"),
    (re.compile(r"(?<!\w)медперсонал"), "медицинский персонал"),
    (re.compile(r"(?<!\w)медобслуживани"), "медицинское обслуживани"),
    (re.compile(r"(?<!\w)медреабилитаци"), "медицинская реабилитаци"),
    (re.compile(r"(?<!\w)медэкспертиз"), "медицинская экспертиз"),
    (re.compile(r"(?<!\w)медстраховани"), "медицинское страховани"),
    (re.compile(r"(?<!\w)дезсредств"), "дезинфицирующие средств"),
    (re.compile(r"(?<!\w)регудостоверени"), "регистрационное удостоверени"),
    (re.compile(r"(?<!\w)фармрын"), "фармацевтический рын"),
    (re.compile(r"(?<!\w)госсанврач"), "государственный санитарный врач"),
    (re.compile(r"(?<!\w)госуслуг"), "государственные услуг"),
    (re.compile(r"(?<!\w)госзаказ"), "государственный заказ"),
    (re.compile(r"(?<!\w)госслужащ"), "государственные служащ"),
    (re.compile(r"(?<!\w)зарплат"), "заработная плат"),
    (re.compile(r"(?<!\w)госмонопол"), "государственная монопол"),
    (re.compile(r"(?<!\w)соцстандарт"), "социальные стандарт"),
    (re.compile(r"(?<!\w)соцзащит"), "социальная защит"),
    (re.compile(r"(?<!\w)соцобеспечени"), "социальное обеспечени"),
    (re.compile(r"(?<!\w)юрлиц"), "юридическое лиц"),  # "юрлицо", "юрлиц"
    (re.compile(r"(?<!\w)физлиц"), "физическое лиц"),
    # "частнопрактикующие врачи": those "занимающиеся частной медицинской практикой"
    (re.compile(r"(?<!\w)частнопрактикующ"), "частной медицинской практикой занимающ"),
    # before "госорган", which begins it
    (re.compile(r"(?<!\w)госорганизаци"), "государственные организаци"),
    (re.compile(r"(?<!\w)госорган"), "государственный орган"),
    (re.compile(r"(?<!\w)госконтрол"), "государственный контрол"),
    (re.compile(r"(?<!\w)госбюджет"), "государственный бюджет"),
    (re.compile(r"(?<!\w)госфарминспектор"), "государственный фармацевтический инспектор"),
    (re.compile(r"(?<!\w)госпрограмм"), "государственная программ"),
    (re.compile(r"(?<!\w)госрегистраци"), "государственная регистраци"),
    (re.compile(r"(?<!\w)госреестр"), "государственный реестр"),
    (re.compile(r"(?<!\w)госучет"), "государственный учет"),
    (re.compile(r"(?<!\w)госавиаци"), "государственная авиаци"),
    (re.compile(r"(?<!\w)спецгосорган"), "специальные государственные орган"),
    (re.compile(r"(?<!\w)ип(?!\w)"), "индивидуальный предприниматель"),
    (re.compile(r"(?<!\w)патанатом"), "патологоанатом"),
    (re.compile(r"(?<!\w)мвд(?!\w)"), "министерство внутренних дел"),
    (re.compile(r"(?<!\w)минздрав"), "министерство здравоохранения"),
    (re.compile(r"(?<!\w)минюст"), "министерство юстиции"),
    (re.compile(r"(?<!\w)минфин"), "министерство финансов"),
    (re.compile(r"(?<!\w)мид(?!\w)"), "министерство иностранных дел"),
    (re.compile(r"(?<!\w)санэпид"), "санитарно-эпидемиологическ "),  # "санэпидслужба"
    (re.compile(r"(?<!\w)вкк(?!\w)"), "врачебно-консультационная комиссия"),
    (re.compile(r"(?<!\w)пмсп(?!\w)"), "первичной медико-санитарной помощи"),
    (re.compile(r"(?<!\w)рк(?!\w)"), "республики казахстан"),
    (re.compile(r"(?<!\w)рф(?!\w)"), "российской федерации"),
    (re.compile(r"(?<!\w)гобмп(?!\w)"), "гарантированного объема бесплатной медицинской помощи"),
    (re.compile(r"(?<!\w)осмс(?!\w)"), "обязательного социального медицинского страхования"),
    (re.compile(r"(?<!\w)соцмедстраховани"), "социального медицинского страховани"),
    (re.compile(r"(?<!\w)дмс(?!\w)"), "добровольного медицинского страхования"),
    (re.compile(r"(?<!\w)сми(?!\w)"), "средства массовой информации"),
    (re.compile(r"(?<!\w)зппп(?!\w)"), "заболевания, передающиеся половым путем"),
    (re.compile(r"(?<!\w)нпа(?!\w)"), "нормативные правовые акты"),
    (re.compile(r"(?<!\w)нпм(?!\w)"), "национального превентивного механизма"),
    (re.compile(r"(?<!\w)мнн(?!\w)"), "международное непатентованное наименование"),
    (re.compile(r"(?<!\w)пав(?!\w)"), "психоактивные вещества"),
    (re.compile(r"(?<!\w)эко(?!\w)"), "экстракорпоральное оплодотворение"),
    (re.compile(r"(?<!\w)врт(?!\w)"), "вспомогательные репродуктивные технологии"),
    (re.compile(r"(?<!\w)воз(?!\w)"), "всемирная организация здравоохранения"),
    (re.compile(r"(?<!\w)еаэс(?!\w)"), "евразийского экономического союза"),
    (re.compile(r"(?<!\w)чс(?!\w)"), "чрезвычайной ситуации"),
    (re.compile(r"(?<!\w)фармработник"), "фармацевтический работник"),
    (re.compile(r"(?<!\w)техпроцесс"), "технологический процесс"),
    (re.compile(r"(?<!\w)юрадрес"), "юридический адрес"),
)


# each pattern's literal word start: a text without it is left as it is, with no regex run
_ABBREVIATION_HEADS = tuple(pattern.pattern.removeprefix(r"(?<!\w)").removesuffix(r"(?!\w)")
                            for pattern, _ in _ABBREVIATIONS)


# the heads grouped under a literal they share ("мед" for most): one test for the group, as
# most texts hold none of its heads. The order of the expansions does not matter (no full form
# is read by a pattern, the assert, so one expansion never makes another's: "эко" is in
# "экономического", but not as a word), but for "госорганизаци", listed before "госорган", which
# begins it.
assert not any(pattern.search(full) for _, full in _ABBREVIATIONS for pattern, _ in _ABBREVIATIONS)
def _abbreviation_gate(head: str) -> str:
    return head[:3] if head.startswith("мед") else head


_ABBREVIATION_ENTRIES = tuple((pattern, full, head) for (pattern, full), head
                              in zip(_ABBREVIATIONS, _ABBREVIATION_HEADS, strict=True))
_ABBREVIATION_GROUPS = tuple(
    (gate, tuple(entry for entry in _ABBREVIATION_ENTRIES if _abbreviation_gate(entry[2]) == gate))
    for gate in dict.fromkeys(map(_abbreviation_gate, _ABBREVIATION_HEADS)))


def expand_abbreviations(norm_text: str) -> str:
    for gate, members in _ABBREVIATION_GROUPS:
        if gate in norm_text:
            for pattern, full, head in members:
                if head in norm_text:
                    norm_text = pattern.sub(full, norm_text)
    return norm_text


def is_russian(norm_text: str) -> bool:
    """More Cyrillic letters than Latin ones."""
    latin = len(_LATIN.findall(norm_text))
    if not latin:  # the usual Russian text: one Cyrillic letter is enough, the rest need not be counted
        return _CYRILLIC.search(norm_text) is not None
    return len(_CYRILLIC.findall(norm_text)) > latin


def match_keys(word: str) -> tuple[str, ...]:
    """The keys under which a claim word is looked for in the evidence: its Snowball stem.
    (pymorphy3 lemmas, and lemma prefixes, measured no better on the Russian dev pairs:
    bench/judge_ru.py --lemmas.)"""
    return (stem(word),)


def content_words(norm_text: str) -> list[str]:
    """Content words in order (stopwords, bound phrases, cue words and number words removed)."""
    return list(_content_words(norm_text))


@lru_cache(maxsize=65536)
def _content_words(norm_text: str) -> tuple[str, ...]:
    masked = _BOUND_RE.sub(" ", norm_text)
    return tuple(w for w in words(masked) if not (is_stopword(w) or w in _CUE_SET
                                                  or w in numerals.LEXICON or w in _CUE_WORDS
                                                  or numerals.is_unit_word(w)))


@lru_cache(maxsize=65536)
def key_set(norm_text: str) -> frozenset[str]:
    """Every match key of every word of text."""
    return frozenset(k for w in words(norm_text) for k in match_keys(w))


# Modality: who must, may or must not. Prohibitions are read first and masked, so the
# "допускается" inside "не допускается" is not read as a permission.
_PROHIBIT_RU = re.compile(
    r"(?<!\w)(?:запрещ\w*|не допуска\w*|не разреша\w*|не разрешен\w*|нельзя|недопустим\w*|не вправе|не может|"
    r"не могут|не должн\w*|не должен|не имеет права|не имеют права|не подлежит|не подлежат|"
    # "неуплата не является основанием для отказа": refusing on that ground is not allowed
    r"не (?:является|являются|может служить|могут служить) основани\w*)(?!\w)"
)
# "обязательное условие" names a condition of something permitted, not a duty
_REQUIRED_CONDITION_RU = re.compile(r"(?<!\w)обязательн\w* (?:услови\w*|требовани\w*)")
_OBLIGE_RU = re.compile(
    r"(?<!\w)(?:обязан\w*|обязательн\w*|должен|должна|должно|должны|необходимо|следует|подлежит|подлежат|"
    r"требуется|обязуется|обязуются|в обязательном порядке)(?!\w)"
)
_PERMIT_RU = re.compile(
    r"(?<!\w)(?:вправе|может|могут|можно|имеет право|имеют право|иметь право|право на|правом на|"
    # "разрешено", "разрешённые", not the permit itself ("без разрешения органа", "выдаёт разрешение")
    r"допуска\w*|разреша\w*|разрешен(?:о|а|ы)?(?!\w)|разрешенн\w*|по желанию|по своему усмотрению|на усмотрение|"
    r"по усмотрению|"
    r"добровольно|на добровольной основе|в добровольном порядке|"
    r"по (?:(?:его|ее|её|их|своему|своей|собственному|собственной) ){1,2}желанию|"
    r"не обязан\w*|не обязательн\w*|необязательн\w*|"  # "не обязательна" leaves it free
    # nothing stands in the way: "не препятствует участию", "ничто не мешает", "не лишены права",
    # "применяются без ограничений"
    r"не препятству\w*|не является препятствием|не мешает|не лишен\w* права|"
    r"без ограничени\w*)(?!\w)"
)


# Double negation: a negated prohibition permits, a prohibition of not doing (or of refusing) obliges.
_NEGATED_PROHIBIT_RU = re.compile(
    r"(?<!\w)(?:не|ни) (?:запрещ\w*|воспрещ\w*|возбраня\w*)(?!\w)|"
    # "запрета на вывоз … закон не устанавливает", "нет запрета на …": no prohibition, a permission
    r"(?<!\w)(?:нет|не существует|отсутствует) (?:[^\W\d_]+ )?запрет\w*|"
    r"(?<!\w)запрет\w*(?:\s+[^\W\d_]+){0,12}?\s+не (?:устанавлива|содерж|предусматрива|вводит|существует)\w*")
_DOUBLE_OBLIGE_RU = re.compile(
    r"(?<!\w)(?:не (?:может|могут|вправе|должен|должна|должны|имеет права|имеют права) (?:не|отказ\w*)|"
    r"не допуска\w* отказ\w*|запрещ\w* отказ\w*)(?!\w)"
)


_BOUND_MODAL_RU = re.compile(r"(?<!\w)не (?:долж\w*|может|могут) превыша\w*")
# "не должен быть ниже уровня …" is "должен быть не ниже уровня …": a requirement, not a prohibition
_NOT_BELOW_RU = re.compile(r"(?<!\w)не (?:долж\w*|может|могут) (?:быть )?(?:ниже|меньше|хуже|выше|больше)(?!\w)")


_PERMIT_ONLY_RU = re.compile(r"(?<!\w)(?:можно|может|могут)(?:\s+[^\W\d_]+){0,4}?\s+(?:только|лишь)(?!\w)")


_CHOICE_RE = re.compile(r"(?<!\w)(?:по сво\w+ усмотрению|по (?:сво|собственн)\w+ желанию|не обязыва\w*|"
                        r"не обязан\w*|право, а не обязанност\w*|право, но не обязанност\w*)")
_QUOTED_RE = re.compile(r'"[^"]{1,200}"')


@lru_cache(maxsize=65536)
def modalities(norm_text: str) -> frozenset[str]:
    """"oblige" (обязан, должен, подлежит), "permit" (вправе, может, допускается, по своему
    усмотрению, не обязан) and "prohibit" (запрещается, не допускается, нельзя, не вправе) in text."""
    found = set()
    if '"' in norm_text:  # a quoted title states no rule: Закон «О разрешениях и уведомлениях»
        norm_text = _QUOTED_RE.sub(" ", norm_text)
    if "превыша" in norm_text:  # "не должно превышать десяти минут" bounds a number, it forbids nothing
        norm_text = _BOUND_MODAL_RU.sub(" ", norm_text)
    if "обязательн" in norm_text:
        norm_text = _REQUIRED_CONDITION_RU.sub(" ", norm_text)
    if _NOT_BELOW_RU.search(norm_text):
        found.add("oblige")
        norm_text = _NOT_BELOW_RU.sub(" ", norm_text)
    if _DOUBLE_OBLIGE_RU.search(norm_text):  # "не может не", "не вправе отказать": an obligation
        found.add("oblige")
        norm_text = _DOUBLE_OBLIGE_RU.sub(" ", norm_text)
    if _NEGATED_PROHIBIT_RU.search(norm_text):  # "не запрещается": a permission
        found.add("permit")
        norm_text = _NEGATED_PROHIBIT_RU.sub(" ", norm_text)
    if _PROHIBIT_RU.search(norm_text):
        found.add("prohibit")
    rest = _PROHIBIT_RU.sub(" ", norm_text)
    if "только" in rest or "лишь" in rest:
        # "оставить дольше можно только по решению суда" restricts the act to a case, it permits
        # nothing: the fragment's "производится по решению суда" says the same
        rest = _PERMIT_ONLY_RU.sub(" ", rest)
    permit_found = _PERMIT_RU.search(rest)
    if permit_found:
        found.add("permit")
    if _OBLIGE_RU.search(_PERMIT_RU.sub(" ", rest)):
        found.add("oblige")
    return frozenset(found)


_MODAL_NAMES = {"oblige": "an obligation", "permit": "a permission", "prohibit": "a prohibition"}


# An "если"-clause states the case, not the rule: "если человек не может выразить волю, помощь
# окажут" permits, whatever "не может" says about the person.
_IF_CLAUSE_RE = re.compile(r"(?<!\w)(?:если|когда)(?!\w)[^,.;:]*,")


_ADVICE_RE = re.compile(r"(?<!\w)(?:рекоменд\w*|желательн\w*|необязательн\w*|не обязательн\w*|"
                        r"не вменяется в обязанность)")


# "обязательные медицинские осмотры": the long adjective before a noun, the name of a kind of
# thing (a compulsory examination); "является обязательным для", "обязательно" state a duty
_NAMED_KIND_RU = re.compile(
    r"(?<!\w)обязательн(?:ый|ая|ое|ые|ого|ой|ому|ым|ых|ыми|ую|ом) ([^\W\d_]{3,})(?: ([^\W\d_]{3,}))?")


def _kind_words(match: re.Match[str]) -> set[str]:
    """The name's next word and the one after it ("обязательные [профилактические] прививки"):
    one side may put an adjective between."""
    return {w[:5] for w in match.groups() if w}


def _shared_kind_names(claim: str, evidence: str) -> tuple[str, str]:
    """claim and evidence without the "обязательный X" names both of them use: a name the answer
    repeats ("не прошёл обязательный медосмотр") states no duty of its actor. A name only the
    fragment uses still binds ("донор проходит обязательное обследование" against "по желанию")."""
    if "обязательн" not in claim or "обязательн" not in evidence:
        return claim, evidence
    named = {w for m in _NAMED_KIND_RU.finditer(claim) for w in _kind_words(m)} & {
        w for m in _NAMED_KIND_RU.finditer(evidence) for w in _kind_words(m)}
    if not named:
        return claim, evidence

    def strip(text: str) -> str:
        return _NAMED_KIND_RU.sub(lambda m: " " + m.group(0).split(" ", 1)[1] if _kind_words(m) & named
                                  else m.group(0), text)

    return strip(claim), strip(evidence)


def modality_conflict(claim: str, evidence: str, whole: str | None = None, cited: str | None = None) -> str | None:
    """The claim states a modality the evidence does not, while the evidence states another
    ("может" against "обязаны", "обязательно должны" against "могут"); read outside "если"-clauses.
    whole: the fragments' sentences near the claim's topic, when evidence is the part the claim
    is about: a modality they state elsewhere ("2. Отказ … не допускается") is held too (a modality
    of an unrelated sentence is not: "курение запрещается" beside "разрешается стоянка"). cited: every cited
    fragment, where a recommendation is looked for ("5) рекомендуемый штат" is a list item that
    shares few words with the claim)."""
    if whole is not None:
        whole = _shared_kind_names(claim, whole)[1]
    claim, evidence = _shared_kind_names(claim, evidence)
    said, held = modalities(_IF_CLAUSE_RE.sub(" ", claim)), modalities(_IF_CLAUSE_RE.sub(" ", evidence))
    anywhere = modalities(_IF_CLAUSE_RE.sub(" ", whole)) if whole is not None and said - held else held
    for mode in ("oblige", "permit", "prohibit"):
        if mode in said and mode not in held and mode not in anywhere and held - said:
            other = sorted(held - said)[0]
            return f"claim states {_MODAL_NAMES[mode]}, the fragment {_MODAL_NAMES[other]}"
    # a recommendation where the fragment states a rule (a law's plain "осуществляется с
    # соблюдением" binds as "обязан" does) or an obligation
    if _ADVICE_RE.search(claim) and not _ADVICE_RE.search(cited or whole or evidence) and "permit" not in anywhere:
        return "claim states a recommendation, the fragment a rule"
    # a choice the claim spells out ("могут по своему усмотрению", "закон не обязывает") where the
    # fragment states the act as plain law ("создаются отделения"): in the 1,390 Russian pairs, 22 of
    # the 23 claims with such a choice their fragment does not state are unsupported
    if _CHOICE_RE.search(claim) and "permit" not in anywhere and not _CHOICE_RE.search(whole or evidence):
        return "claim leaves it to choice, the fragment states a rule"
    return None


# Actors: who does it. Longer names first; each match is masked before shorter ones are read.
_LOCAL_MANAGEMENT = "местный орган управления"  # its sphere follows the name: "управления здравоохранением"
_ACTORS = (
    ("главный государственный санитарный врач", r"главн\w* государственн\w* санитарн\w* врач\w*"),
    ("медицинская сестра", r"медицинск\w* сест[её]?р\w*|акушер\w*"),
    ("медицинский работник", r"медицинск\w* работник\w*|медицинск\w* персонал\w*"),
    ("фармацевтический работник", r"фармацевтическ\w* работник\w*"),
    ("работодатель", r"работодател\w*"),
    ("работник", r"работник\w*|сотрудник\w*"),
    ("врач", r"врач|врача|врачу|врачом|враче|врачи|врачей|врачам|врачами|врачах|фельдшер\w*"),
    ("организация здравоохранения", r"организаци\w* здравоохранени\w*|медицинск\w* организаци\w*"),
    ("организация образования", r"организаци\w* образовани\w*"),
    # "местные органы государственного управления здравоохранением": the health administrations of
    # the regions (24 times in the Health Code of 2009), named with what they manage (the sphere)
    (_LOCAL_MANAGEMENT, r"местн\w* орган\w* (?:государственного )?управлени\w*"),
    ("таможенный орган", r"таможенн\w* орган\w*"),
    ("территориальный орган", r"территориальн\w* (?:орган|подразделени)\w*"),
    ("профессиональная ассоциация", r"ассоциаци\w*"),  # "профессиональные медицинские ассоциации"
    ("уполномоченный орган", r"уполномоченн\w* орган\w*"),
    ("местный исполнительный орган", r"местн\w* исполнительн\w* орган\w*|аким(?:ат\w*)"),
    # the region's elected council (маслихат), not its executive; the akim heads the executive
    ("местный представительный орган", r"местн\w* представительн\w* орган\w*|маслихат\w*"),
    ("аким", r"аким[ауеы]?|акимом|акимов|акимам|акимами|акимах"),
    ("государственный орган", r"государственн\w* орган\w*"),
    ("правительство", r"правительств\w*"),
    ("министерство", r"министерств\w*"),
    # before "суд", whose "судебн…" would read them: the bailiffs are no court
    ("судебный исполнитель", r"суд(?:ебн\w* исполнител\w*)"),  # its head "суд", as no head may begin another
    ("суд", r"суд|суда|суду|судом|суде|суды|судов|судам|судами|судебн\w*"),
    ("прокурор", r"прокурор\w*|прокуратур\w*"),
    ("полиция", r"полици\w*|органы внутренних дел|органов внутренних дел|органами внутренних дел|"
                r"органам внутренних дел"),
    ("законный представитель", r"законн\w* представител\w*|опекун\w*|попечител\w*"),
    ("родитель", r"родител\w*"),
    ("консилиум", r"консилиум\w*"),
    ("комиссия", r"комисси\w*"),
    ("пациент", r"пациент\w*"),
    ("донор", r"донор\w*"),
    ("фонд социального медицинского страхования", r"фонд\w*"),
    ("руководитель", r"руководител\w*"),
    # the President's two offices, before an organisation's "администрация"
    ("управление делами президента", r"управлени\w* делами президента"),
    ("администрация президента", r"администраци\w* президента"),
    ("администрация", r"администраци\w*"),  # of an organisation: its management
    ("уполномоченный по правам человека", r"уполномоченн\w* по правам человека"),
    ("координационный совет", r"координационн\w* совет\w*"),
)
_ACTOR_RES = tuple((name, re.compile(r"(?<!\w)(?:" + pattern + r")(?!\w)")) for name, pattern in _ACTORS)


def _literal_heads(pattern: str) -> tuple[str, ...]:
    r"""The literal text each alternative of an actor pattern begins with ("медицинск" for
    r"медицинск\w* сест[её]?р\w*"): a text holding none of them cannot match (a substring test
    is far cheaper than the regex; the actor patterns have no groups, so "|" splits them)."""
    heads = tuple(dict.fromkeys(re.split(r"[\\\[(*?+.{]", alternative, maxsplit=1)[0]
                                for alternative in pattern.split("|")))
    # a head that holds a shorter one ("врача" holds "врач") adds nothing to the test
    return tuple(h for h in heads if not any(o != h and o in h for o in heads))


_ACTOR_HEADS = tuple(_literal_heads(pattern) for _, pattern in _ACTORS)
assert all(all(heads) for heads in _ACTOR_HEADS)  # an alternative with no literal head would need the regex


# Every head, found wherever it occurs in one scan (a lookahead finds overlapping ones, "суд" in
# "государственн"; no head begins another, so the one head starting at a place is the only one).
_HEADS = sorted({h for heads in _ACTOR_HEADS for h in heads}, key=len, reverse=True)
assert not any(a != b and b.startswith(a) for a in _HEADS for b in _HEADS)
_HEAD_ACTORS = {h: tuple(i for i, heads in enumerate(_ACTOR_HEADS) if h in heads) for h in _HEADS}
_HEAD_RE = re.compile("(?=(" + "|".join(re.escape(h) for h in _HEADS) + "))")


def _actor_patterns(norm_text: str) -> list[tuple[str, re.Pattern[str]]]:
    """The actor patterns that may match norm_text (those with a literal head in it), in order."""
    found = set(_HEAD_RE.findall(norm_text))
    if not found:
        return []
    return [_ACTOR_RES[i] for i in sorted({i for head in found for i in _HEAD_ACTORS[head]})]


# "медицинские и фармацевтические работники" names both.
_COORDINATED = re.compile(r"(?<!\w)([^\W\d_]+(?:ие|ые|ий|ый|ого|ых|им|ым|ими|ыми))\s+(?:и|или|и \(или\))\s+"
                          r"([^\W\d_]+(?:ие|ые|ий|ый|ого|ых|им|ым|ими|ыми))\s+(работник\w*|организаци\w*|орган\w*)")
# What _COORDINATED needs to match at all: "и"/"или" between spaces, and a head noun (cheap tests first).
_COORDINATOR = re.compile(r"\sи(?:ли)?\s")
# A generic actor is named by a specific one: "работник" by "медицинский работник".
_GENERIC = {"работник": ("медицинский работник", "фармацевтический работник", "медицинская сестра"),
            "медицинский работник": ("медицинская сестра", "врач"),
            "врач": ("главный государственный санитарный врач",),
            "государственный орган": ("уполномоченный орган", "местный исполнительный орган", _LOCAL_MANAGEMENT,
                                      "таможенный орган"),
            # the regions' health administrations are the local executive's own bodies
            "местный исполнительный орган": (_LOCAL_MANAGEMENT, "аким"),
            "законный представитель": ("родитель",)}


_AUTHORIZED = "уполномоченный орган"
_HEALTH_FIELD = stem("здравоохранения")


def _covers(held: str, said: str) -> bool:
    """held names said, or a more specific actor of its kind ("медицинский работник" names
    "работник"; "государственный орган в сфере …" names "государственный орган"). The Code's bare
    "уполномоченный орган" is the one in health care: one in another field is another body."""
    if said == _AUTHORIZED and held.startswith(_AUTHORIZED + " в сфере ") and not held.endswith(_HEALTH_FIELD):
        return False
    return (held == said or held.startswith(said + " в сфере") or held.split(" в сфере")[0] in _GENERIC.get(said, ())
            or _same_sphere(held, said))


def _same_sphere(held: str, said: str) -> bool:
    """One body named with its sphere in words of one root: "в сфере обращения лекарств" is the
    fragment's "в сфере обращения лекарственных средств" (stems "лекарств", "лекарствен")."""
    if " в сфере " not in held or " в сфере " not in said:
        return False
    (held_body, held_sphere), (said_body, said_sphere) = held.split(" в сфере ", 1), said.split(" в сфере ", 1)
    pairs = list(zip(held_sphere.split(), said_sphere.split(), strict=False))
    return held_body == said_body and bool(pairs) and all(
        min(len(a), len(b)) >= 5 and (a.startswith(b) or b.startswith(a)) for a, b in pairs)


_SPHERE = re.compile(r"\s+в (?:сфере|области)\s+([^\W\d_]+)(?:[\s-]+([^\W\d_]+))?")
_MANAGED = re.compile(r"\s+([^\W\d_]+)")  # "управления здравоохранением": the next word is the sphere
# A ministry is named by its field: "Министерство юстиции" is not "Министерство внутренних дел"
_MINISTRY_FIELD = re.compile(
    r"\s+(внутренних дел|иностранных дел|юстиции|здравоохранения|финансов|обороны|образования|просвещения|"
    r"науки|труда|энергетики|культуры|сельского хозяйства|национальной экономики|по чрезвычайным ситуациям|"
    r"цифрового развития|информации|экологии|транспорта|торговли|индустрии)(?!\w)")


@lru_cache(maxsize=65536)
def actors(norm_text: str) -> frozenset[str]:
    """The actors a regulation sentence names (врач, медицинская сестра, работодатель, суд …);
    a body named by its sphere keeps it ("государственный орган в сфере санитарн эпидемиологическ")."""
    found = set()
    if ("орган" in norm_text or "работник" in norm_text) and _COORDINATOR.search(norm_text):
        norm_text = _COORDINATED.sub(r"\1 \3 и \2 \3", norm_text)
    for name, pattern in _actor_patterns(norm_text):
        matches = list(pattern.finditer(norm_text))
        for match in matches:
            sphere = (_SPHERE.match(norm_text, match.end()) if name.endswith("орган")
                      else _MANAGED.match(norm_text, match.end()) if name == _LOCAL_MANAGEMENT
                      else _MINISTRY_FIELD.match(norm_text, match.end()) if name == "министерство" else None)
            words_ = [w for group in (sphere.groups() if sphere else ()) if group for w in group.split()]
            found.add(name + (" в сфере " + " ".join(stem(w) for w in words_) if words_ else ""))
        if matches:
            norm_text = pattern.sub(" ", norm_text)
    return frozenset(found)


# The bodies an answer may name as a detail ("по представлению Министерства здравоохранения",
# "выписывают по решению комиссии"), as against persons. Of the 1,390 Russian pairs, 57 claims
# name one that neither their fragment nor their question names: 2 of them supported (the
# fragment's body named in apposition, "уполномоченный орган — Минздрав", or in a list's lead-in).
_BODIES = frozenset({"министерство", "правительство", "суд", "прокурор", "полиция", "комиссия", "консилиум",
                     "уполномоченный орган", "местный исполнительный орган", "таможенный орган",
                     "фонд социального медицинского страхования", "профессиональная ассоциация"})


def added_body(claim: str, evidence_texts: Sequence[str]) -> str | None:
    """A body the claim names (as the doer or not) that no evidence text names in any form."""
    bodies = sorted(a for a in actors(claim) if a.split(" в сфере")[0] in _BODIES)
    if not bodies:  # most claims name no body: the evidence is not read
        return None
    held = frozenset().union(*(actors(text) for text in evidence_texts))
    for said in bodies:
        if not any(_covers(h, said) or _covers(said, h) for h in held):
            return f"claim names {said}, which the fragment does not"
    return None


_ANY_PERSON_RE = re.compile(r"(?<!\w)(?:лиц[оауе]?|лицом|лицам|лицами|лицах|граждан\w*)(?!\w)")


def actor_conflict(claim: str, evidence: str) -> str | None:
    """The claim names an actor the evidence does not, and the evidence names someone else."""
    said, held = actors(claim), actors(evidence)
    new = sorted(a for a in said if not any(_covers(h, a) for h in held))
    if new and len(new) < len(said):
        # the claim names the fragment's actor too: one it names only as acted on or owned
        # ("тайну пациента — обязанность медицинского работника") is no other doer
        acted_on = actor_roles(claim)[1]
        new = [a for a in new if a not in acted_on]
    if "пациент" in new and _ANY_PERSON_RE.search(evidence):
        # "лицу, отказавшемуся от лечения", "с физическими лицами": the patient is the fragment's person
        new = [a for a in new if a != "пациент"]
    other = sorted(h for h in held if not any(_covers(h, a) or _covers(a, h) for a in said))
    if new and other:
        return f"claim names {new[0]}, the fragment {', '.join(other)}"
    for phrase, who in deciders(claim).items():
        theirs = deciders(evidence).get(phrase)
        if (theirs is not None and who and theirs and not (who & theirs)
                and not any(_covers(h, a) or _covers(a, h) for h in theirs for a in who)):
            return f"claim: {phrase} {sorted(who)[0]}, the fragment: {phrase} {sorted(theirs)[0]}"
    return None


# Who does it: an actor in the nominative is the subject, one in the instrumental (no preposition
# before it) the agent of a passive ("осмотр проводится врачом"); any other case is someone the
# act is done to or for. A claim that makes the fragment's object the doer has swapped the roles.
_AGENT_CASES = frozenset({"nomn", "ablt"})
_PREPOSITIONS = frozenset({"с", "со", "под", "над", "перед", "между", "за", "к", "ко", "у", "от", "для", "о", "об",
                           "при", "по", "на", "в", "во", "из", "без", "до", "через", "и", "или"})


@lru_cache(maxsize=65536)
def actor_roles(norm_text: str) -> tuple[frozenset[str], frozenset[str]]:
    """(actors named as the doer, actors named as the one acted on, with no preposition) in a sentence."""
    from evals.text.lemmas import cases

    doers: set[str] = set()
    others: set[str] = set()
    for name, pattern in _actor_patterns(norm_text):
        for match in pattern.finditer(norm_text):
            head = match.group(0).split()[0]
            before = norm_text[: match.start()].split()
            if before and before[-1] in _PREPOSITIONS:
                continue  # "у врача", "от врача": a converse ("пациент получает от врача"), no role read
            found = cases(head)
            (doers if found & _AGENT_CASES and not found <= {"accs", "gent", "datv", "loct"} else others).add(name)
        norm_text = pattern.sub(" ", norm_text)
    return frozenset(doers), frozenset(others - doers)


def roles_swapped(claim: str, evidence: str) -> str | None:
    """The claim's doer is someone the fragment names only as the one acted on, while the
    fragment's doer is the claim's object ("пациент направляет врача" against "врач направляет
    пациента"; "пациент получает направление от врача" is a converse, not a swap)."""
    if len(actors(claim)) < 2 or len(actors(evidence)) < 2:  # a swap needs two actors on each side
        return None
    said_doers, said_others = actor_roles(claim)
    held_doers, held_others = actor_roles(evidence)
    for who in sorted(said_doers):
        if (who in held_others and who not in held_doers and held_doers and not held_doers & said_doers
                and held_doers & said_others):  # a true swap: the fragment's doer is the claim's object
            return f"claim makes {who} the one who acts; in the fragment it is {sorted(held_doers)[0]}"
    return None


# Who decides, concludes, applies: "по решению суда" is not "по решению законного представителя".
_DECIDER_RE = re.compile(r"(?<!\w)(по решению|решением|по заключению|по заявлению|по направлению|по указанию|"
                         r"по распоряжению|по согласованию с|по требованию)\s+((?:[^\W\d_]+\s*){1,4})")


# Who takes the decision: "решение … принимает(ся) врачом", "решает комиссия" (the decider in the
# six words after the verb).
_DECIDES_RE = re.compile(r"(?<!\w)(?:решени\w*(?:\W+[^\W\d_]+){0,14}?\W+принима\w*|реша\w*)"
                         r"\s+((?:[^\W\d_]+[\s,]*){1,6})")


# Who approves: "утверждает комиссия", "утверждаются приказом руководителя" (the approver in the
# six words after the verb, up to whoever is only consulted or proposes: "по согласованию с …").
_APPROVES_RE = re.compile(r"(?<!\w)утвержда(?:ет|ют|ется|ются)\s+(?:приказом\s+)?((?:[^\W\d_]+[\s]*){1,6})")
_CONSULTED_RE = re.compile(r"(?<!\w)(?:по согласованию|по представлению|по предложению|с согласия)(?!\w)")


def deciders(norm_text: str) -> dict[str, set[str]]:
    """For each "по решению"-like phrase, the actors named in the four words after it; for a
    decision taken ("решение … принимает", "решает"), under "decides", the actors named after the
    verb; for an approval ("утверждает", "утверждается приказом"), under "approves", the same."""
    out: dict[str, set[str]] = {}
    for match in _DECIDER_RE.finditer(norm_text):
        out.setdefault(match.group(1), set()).update(a.split(" в сфере")[0] for a in actors(match.group(2)))
    if "реш" in norm_text:
        for match in _DECIDES_RE.finditer(norm_text):
            out.setdefault("decides", set()).update(a.split(" в сфере")[0] for a in actors(match.group(1)))
    if "утвержда" in norm_text:
        for match in _APPROVES_RE.finditer(norm_text):
            approver = _CONSULTED_RE.split(match.group(1))[0]
            out.setdefault("approves", set()).update(a.split(" в сфере")[0] for a in actors(approver))
    return out


# Delegation: a regulation that leaves the content to a regulator ("перечень … утверждается
# уполномоченным органом", "в порядке, определяемом Правительством") states no content; a claim
# that gives the content (the list, the period, the place) is on the topic, not backed.
_DELEGATE_RE = re.compile(r"(?<!\w)(?:утвержда\w*|устанавлива\w*|определя\w*|разрабатыва\w*|регулиру\w*)(?!\w)")
_REGULATORS = frozenset({"уполномоченный орган", "правительство", "министерство", "местный исполнительный орган",
                         "государственный орган"})
# a claim that itself says the matter is set elsewhere keeps the delegation
_CLAIM_DELEGATES_RE = re.compile(r"(?<!\w)(?:утвер\w*|устан[оа]вл\w*|определ\w*|разраб\w*|регулир\w*|порядк\w*|"
                                 r"порядок|правил\w*)(?!\w)")


def delegated(claim: str, evidence: str, missing: int) -> str | None:
    """The evidence leaves the matter to a regulator and the claim states content of its own
    (at least two content words the evidence lacks) without saying so."""
    if missing < 2 or _CLAIM_DELEGATES_RE.search(claim):
        return None
    for found in _DELEGATE_RE.finditer(evidence):
        if about_another_part(claim, evidence, found.start()):
            continue
        after = " ".join(evidence[found.end() : found.end() + 80].split()[:4])
        bodies = {a.split(" в сфере")[0] for a in actors(after)} & _REGULATORS
        if bodies:
            return (f"the fragment leaves it to the {sorted(bodies)[0]} ('{found.group(0)} …'); the claim states "
                    "content it does not hold")
    return None


# Causal connectives: "потому что", "поскольку", "так как", "в связи с", "из-за".
_CAUSAL_RE = re.compile(
    r"(?<!\w)(?:потому что|потому, что|поскольку|так как|в связи с|из-за|вследствие|по причине|ввиду того|"
    r"ввиду|в силу того|благодаря|поэтому|следовательно|because|since|due to|as a result|therefore|"
    r"owing to)(?!\w)"
)


def causes(norm_text: str) -> list[str]:
    return [m.group(0) for m in _CAUSAL_RE.finditer(norm_text)]


# Exceptions and restrictions a claim must keep: "за исключением", "кроме"; "только", "лишь".
_EXCEPTION_RE = re.compile(
    r"(?<!\w)(?:за исключением|исключением|кроме(?! того)|не распространя\w*|если иное не|исключая)(?!\w)"
)
_RESTRICTION_RE = re.compile(r"(?<!\w)(?:только|лишь|исключительно|не иначе как)(?!\w)")
_CONDITION_KEPT_RE = re.compile(
    r"(?<!\w)(?:за исключением|исключ\w*|кроме|если|при условии|только|лишь|исключительно|но не|не считая|помимо|"
    r"в случае|в случаях|при|когда)(?!\w)"
)


# A claim keeps an exception in its own words: "кроме", "но не", "а вот", "однако", "только".
_EXCEPTION_KEPT_RE = re.compile(
    r"(?<!\w)(?:исключ\w*|кроме|но|однако|а вот|только|лишь|если не|не считая|остальн\w*|прочи[хм]|иных случаях|"
    r"если(?:\W+[^\W\d_]+){1,4}?\W+не)(?!\w)"  # "если уполномоченный орган не установил иной срок"
)


# Where one rule of a fragment ends and the next begins: "; ", ". ", ", а также ", ", а ".
PART_SHARE = 0.5
_SEGMENT_END_RE = re.compile(r";\s*|\.\s+|,?\s+а также\s+|,\s+а\s+|:\s+(?=\d{1,2}\)\s)")


def about_another_part(claim: str, evidence: str, position: int) -> bool:
    """The claim is about another part of the fragment than the one at position: some other
    part (split at "; ", ". ", ", а также ", ", а ", and ": " before a list's "1) ") holds more of the
    claim's content stems, and
    the part at position less than PART_SHARE of them.
    An exception, condition or delegation binds only the part it stands in ("обязана обеспечить
    совместное пребывание, за исключением …, а также предоставить информацию": a claim about the
    information drops no exception)."""
    held, here, claim_stems = _part_holdings(claim, evidence, position)
    if len(held) < 2:
        return False
    # a claim over several parts ("обладают всеми правами …, и ограничивать их нельзя") is about
    # each part that holds half its content
    return max(held) > held[here] and held[here] < PART_SHARE * len(claim_stems)


def holds_half_of(claim: str, evidence: str, position: int) -> bool:
    """The part of the fragment at position holds at least PART_SHARE of the claim's content stems."""
    held, here, claim_stems = _part_holdings(claim, evidence, position)
    return held[here] >= PART_SHARE * len(claim_stems)


def _part_holdings(claim: str, evidence: str, position: int) -> tuple[list[int], int, set[str]]:
    """How many of the claim's content stems each part of the fragment holds, which part holds
    position, and the stems."""
    bounds = [0, *(m.end() for m in _SEGMENT_END_RE.finditer(evidence)), len(evidence)]
    claim_stems = set(content_stems(claim))
    held = [len(claim_stems & set(content_stems(evidence[a:b]))) for a, b in zip(bounds, bounds[1:], strict=False)]
    here = next(i for i in range(len(held)) if position < bounds[i + 1] or i == len(held) - 1)
    return held, here, claim_stems


# "даже если …", "даже при …": the claim extends its rule over a case (often the very exception
# the fragment makes: "не допускается, даже если препарат для детей" against "кроме … для детей").
# In the 1,390 Russian pairs 11 claims say "даже" where their fragment says neither "даже" nor
# "независимо от": all 11 unsupported.
_EVEN_RE = re.compile(r"(?<!\w)даже(?!\w)")
_EVEN_LICENSED_RE = re.compile(r"(?<!\w)(?:даже|независимо|вне зависимости|в том числе|включая)(?!\w)")


def dropped_exception(claim: str, evidence: str) -> str | None:
    """The evidence states an exception ("за исключением …", "кроме …") the claim does not keep,
    in its own words or by holding half the exception's content words ("для операции нужно
    согласие законного представителя" keeps "за исключением случаев хирургического вмешательства
    …, для которых требуется согласие законного представителя"); or the claim extends its rule
    "даже" to a case the fragment does not name."""
    even = _EVEN_RE.search(claim)
    if even is not None and not _EVEN_LICENSED_RE.search(evidence):
        case = claim[even.start() : even.start() + 40].strip()
        return f"claim extends the rule to '{case}', which the fragment does not"
    if _EXCEPTION_RE.search(claim) or _EXCEPTION_KEPT_RE.search(claim):
        return None
    claim_keys = key_set(claim)
    for found in _EXCEPTION_RE.finditer(evidence):
        if about_another_part(claim, evidence, found.start()):
            continue
        span = re.split(r"[.;]", evidence[found.end() : found.end() + 160])[0]
        # words the rule itself also uses ("контроля" in "… контроля …, за исключением камерального
        # контроля") tell nothing of whether the claim keeps the exception: its other words do
        rule_keys = key_set(evidence[: found.start()] + " " + evidence[found.end() + len(span) :])
        named = [w for w in content_words(span) if w not in ("случаев", "случаях", "случая")
                 and not any(k in rule_keys for k in match_keys(w))]
        # the exception's own words, up to its comma ("за исключением ВИЧ-инфекции, подвергаются …"):
        # a claim that holds none of them has dropped it, whatever of the sentence's rest it holds
        own = [w for w in content_words(re.split(r"[,]", span)[0]) if w in named]
        dropped_own = bool(own) and not any(any(k in claim_keys for k in match_keys(w)) for w in own)
        if (named and not dropped_own
                and sum(any(k in claim_keys for k in match_keys(w)) for w in named) * 2 >= len(named)):
            continue
        return f"claim drops the exception '{evidence[found.start() : found.start() + 40].strip()}'"
    return None


def dropped_restriction(claim: str, evidence: str) -> str | None:
    """The evidence restricts ("только при …") and the claim states no restriction or condition."""
    if _CONDITION_KEPT_RE.search(claim):
        return None
    for found in _RESTRICTION_RE.finditer(evidence):
        if not about_another_part(claim, evidence, found.start()):
            return f"claim drops the restriction '{evidence[found.start() : found.start() + 30].strip()}'"
    return None


# Strong quantifiers, named first in a reason.
_ANY_OF_CLASS = r"люб(?:ой|ого|ому|ым|ом|ая|ую|ое|ые|ых|ыми)"  # "любой" in every form
_UNIVERSAL_RE = re.compile(
    rf"(?<!\w)(?:{_ANY_OF_CLASS}|всегда|никаких|никакие|никакого|никакой|ни в каких|"
    r"ни при каких|без исключения|в любом случае|во всех случаях|всяк\w*)(?!\w)"
)
# "все", "каждый" over a class generalise too ("все вузы", "каждый медработник"): of the 1,090
# Russian pairs, 50 claims hold one their fragment lacks, 40 of them partial or unsupported; of the
# 10 supported, 6 use an idiom that quantifies no class ("всё равно", "всё, что нужно", "наравне со
# всеми", "каждый день"), masked first.
_CLASS_UNIVERSAL_RE = re.compile(r"(?<!\w)(?:все|всех|всем|всеми|кажд(?:ый|ого|ому|ым|ая|ую|ой|ом|ое|ые|ых|ыми))(?!\w)")
# ("все остальные граждане", "что и все": a comparison with the others, not a quantifier)
_UNIVERSAL_IDIOM_RE = re.compile(r"(?<!\w)(?:вс[её] (?:равно|же|остальное|время)|вс[её],? что|наравне со всеми|"
                                 r"(?:все|всех|всем|всеми) остальн\w*|"
                                 r"каждый (?:день|раз|год|месяц|из|со? сво\w*))(?!\w)")
# What licenses a quantifier over a class ("любой больной"): one over a class in the fragment
# ("независимо от формы собственности" is "любой формы собственности").
# "весь"/"всего" quantify one whole ("в течение всего времени", "на весь период"), which licenses
# "всегда" but not "любой" (measured on the dev pairs: two generalisations it let through).
_UNIVERSAL_STRONG_EVIDENCE_RE = re.compile(
    r"(?<!\w)(?:люб\w*|всегда|никак\w*|ни в каких|ни при каких|без исключения|всяк\w*|каких-либо|какой-либо|"
    r"какого-либо|каким-либо|независимо от)(?!\w)"
)
_EVIDENCE_CLASS_UNIVERSAL_RE = re.compile(f"{_UNIVERSAL_STRONG_EVIDENCE_RE.pattern}|{_CLASS_UNIVERSAL_RE.pattern}")
_ANY_OF_CLASS_RE = re.compile(_ANY_OF_CLASS)
_EVIDENCE_WHOLE_RE = re.compile(r"(?<!\w)(?:весь|всего|всей|всё время|все время)(?!\w)")


_NEXT_WORD_RE = re.compile(r"\s+([^\W\d_]{3,})")


def _quantifies_another(claim: str, found: re.Match[str], evidence: str) -> bool:
    """A claim's "все"/"каждый" before a noun ("все вузы") that the fragment's own "все"/"каждый"
    do not quantify ("во всех сферах"): the fragment's quantifier licenses no other class."""
    any_of_class = _ANY_OF_CLASS_RE.fullmatch(found.group(0)) is not None
    if _CLASS_UNIVERSAL_RE.fullmatch(found.group(0)) is None and not any_of_class:
        return False
    after = _NEXT_WORD_RE.match(claim, found.end())
    if after is None or after.group(1) in ("кто", "что", "которые", "которых"):  # "все, кто …": whoever
        return False
    if not any_of_class and _UNIVERSAL_STRONG_EVIDENCE_RE.search(evidence):
        return False
    # "любая организация" is licensed by a quantifier over organisations, not by "независимо от
    # форм собственности" (which the claim may also say)
    quantifiers = _EVIDENCE_CLASS_UNIVERSAL_RE if any_of_class else _CLASS_UNIVERSAL_RE
    reach = 2 if any_of_class else 3  # "любой" + its noun (and a word of it): "любой формы собственности"
    quantified = {stem(w) for w in content_words(claim[found.end() : found.end() + 60])[:reach]}
    return not any(quantified & {stem(w) for w in content_words(evidence[m.end() : m.end() + 60])[:3]}
                   for m in quantifiers.finditer(evidence))


def added_universal(claim: str, evidence: str) -> str | None:
    """The claim generalises with a quantifier ("любой", "всегда", "никаких") the evidence lacks."""
    plain = _UNIVERSAL_IDIOM_RE.sub(" ", claim)
    for found in [*_UNIVERSAL_RE.finditer(plain), *_CLASS_UNIVERSAL_RE.finditer(plain)]:  # the strong named first
        if _EVIDENCE_CLASS_UNIVERSAL_RE.search(evidence) and not _quantifies_another(plain, found, evidence):
            return None
        if found.group(0) == "всегда" and _EVIDENCE_WHOLE_RE.search(evidence):
            continue
        return f"claim generalises: '{found.group(0)}' is not in the fragment"
    return None


_CUE_WORDS = frozenset({"только", "лишь", "исключительно", "кроме", "любой", "всегда", "вправе", "обязан", "обязаны"})


_RU_NEGATORS = frozenset({"не", "ни", "нет", "без", "никогда", "нельзя", "невозможно", "отсутствие", "отсутствии",
                          "отсутствием", "отсутствия", "отсутствует", "отсутствуют", "вне"})
# Pronouns "без" may govern ("без них", "без этого"): the negation is theirs, no content word's.
_PRONOUNS_AFTER_WITHOUT = frozenset({"него", "нее", "неё", "них", "этого", "этой", "этих", "того", "той", "тех",
                                     "такового", "таковой", "таковых", "которого", "которой", "которых", "чего"})
# Words a negation reaches through: "без наличия направления" negates "направления".
_TRANSPARENT = frozenset({"наличия", "наличие", "наличии", "наличием", "соответствующего", "соответствующих"})
_POLARITY_TOKEN = re.compile(r"[^\W\d_]+|[,.;:!?()\-—]")
NEAR = 2  # content words either side of a negation that it may govern in a paraphrase


_CLAUSE_ENDS = frozenset(".;:!?")


def _near_clause_final_negation(out: list[list[Any]], negation_at: list[int], clause_start: int) -> None:
    """A negation of the clause's last word ("… основанием для проверок не служат.") negates the
    predicate the words before it make up: each of them is near a negation (the fragment may put
    its "не" before any of them: "не являются основанием для проверок")."""
    if not (out and len(out) - 1 >= clause_start and negation_at):
        return
    # the negated last word, or a negation whose verb is no content word ("… основанием для
    # проверок не являются.": nothing after the "не" is read, the predicate is the words before)
    if (negation_at[-1] == len(out) - 1 and out[-1][1]) or negation_at[-1] == len(out):
        for j in range(clause_start, len(out)):
            out[j][2] = True


@lru_cache(maxsize=65536)
def _polarity_key(word: str) -> str:
    """A content word's key in the polarity sequence: the stem of its lemma, so that forms whose
    stems part ("признаются" / "признаваться": призна, признава) meet as one word."""
    return stem(lemma(word))


# "какой-либо", "кто-нибудь": no content of their own, and their hyphen is no clause break ("без
# какого-либо согласия родственников" negates the consent)
_INDEFINITE_RE = re.compile(r"(?<!\w)[^\W\d_]+-(?:либо|нибудь)(?!\w)")


def _polarity_text(norm_text: str) -> str:
    masked = _without_false_negations(norm_text)
    return _INDEFINITE_RE.sub(" ", masked) if "-" in masked else masked


@lru_cache(maxsize=65536)
def polarity_sequence_ru(norm_text: str) -> tuple[tuple[str, bool, bool], ...]:
    """(stem, negated, near) per content word. negated: the first content word after a
    negation ("не", "без", "отсутствие", "нельзя") within three words, or the word before a
    predicate "нет" ("потенциала нет,"); near: within NEAR content words of any negation (a
    paraphrase may move the "не" that far: "нет противопоказаний" / "не имеющие противопоказаний")."""
    tokens = _POLARITY_TOKEN.findall(_polarity_text(norm_text))
    out: list[list[Any]] = []
    negation_at: list[int] = []  # index in out where a negation stood
    clause_start = 0  # index in out where the clause began
    pending = 0
    for i, token in enumerate(tokens):
        if not token[0].isalpha():
            if token in _CLAUSE_ENDS:
                _near_clause_final_negation(out, negation_at, clause_start)
                clause_start = len(out)
            pending = 0
            continue
        if token == "ни" and negation_at and negation_at[-1] >= clause_start:
            # negative concord: "нельзя ставить ни на ночную смену, ни на …" repeats the clause's
            # negation for each item, it negates nothing of its own (the fragment's one "не
            # допускается … к ночным работам, тяжелым работам" says the same)
            pending = 0
            continue
        if token == "без" and i + 1 < len(tokens) and tokens[i + 1] in _PRONOUNS_AFTER_WITHOUT:
            # "с посещением либо без него": the pronoun's noun, before it, is negated, not the word
            # after it ("без них потребитель может …" does not negate "потребитель")
            if out:
                out[-1][1] = True
            negation_at.append(len(out) - 1)
            continue
        if token in _RU_NEGATORS:
            following = tokens[i + 1] if i + 1 < len(tokens) else "."
            if token == "нет" and not following[0].isalpha():
                if out:
                    out[-1][1] = True  # "потенциала нет."
                negation_at.append(len(out) - 1)
                continue
            negation_at.append(len(out))
            pending = 3
            continue
        if is_stopword(token) or token in _CUE_SET or token in _TRANSPARENT:
            pending = max(0, pending - 1)
            continue
        out.append([_polarity_key(token), pending > 0, False, token])
        pending = 0
    _near_clause_final_negation(out, negation_at, clause_start)
    for at in negation_at:
        for j in range(max(0, at - NEAR), min(len(out), at + NEAR + 1)):
            out[j][2] = True
    return tuple((s, n, near) for s, n, near, _ in out)


def negated_words_ru(norm_text: str) -> list[str]:
    """The words polarity_sequence_ru flags as negated, as written."""
    seq = polarity_sequence_ru(norm_text)
    content = [w for w in _POLARITY_TOKEN.findall(_polarity_text(norm_text))
               if w[0].isalpha() and w not in _RU_NEGATORS and not (is_stopword(w) or w in _CUE_SET
                                                                     or w in _TRANSPARENT)]
    return [w for w, (_, negated, _) in zip(content, seq, strict=False) if negated]


# An exception negates what it names: "за исключением случаев смены места жительства" is "если он
# не сменил место жительства", so a claim that negates a word the fragment excepts has not flipped it.
_EXCEPTION_SPAN_RE = re.compile(r"(?<!\w)(?:за исключением|кроме(?! того)|исключая)(?!\w)([^.;:]{0,100})")


@lru_cache(maxsize=65536)
def excepted_stems(norm_text: str) -> frozenset[str]:
    """The stems of the content words an exception of the text names (up to the clause's end)."""
    return frozenset(map(stem, _excepted_words(norm_text)))


def _excepted_keys(norm_text: str) -> frozenset[str]:
    """excepted_stems as polarity_sequence_ru keys its words (the stems of their lemmas)."""
    return frozenset(map(_polarity_key, _excepted_words(norm_text)))


@lru_cache(maxsize=65536)
def _excepted_words(norm_text: str) -> tuple[str, ...]:
    if "исключ" not in norm_text and "кроме" not in norm_text:
        return ()
    return tuple(w for m in _EXCEPTION_SPAN_RE.finditer(norm_text) for w in content_words(m.group(1)))


def polarity_flips_ru(claim: str, evidence: str) -> list[str]:
    """Stems negated on one side and affirmed, with no negation near, on the other, in the
    same context (the same neighbouring content word)."""
    sides = (polarity_sequence_ru(claim), polarity_sequence_ru(evidence))
    if not any(negated for side in sides for _, negated, _ in side):
        return []  # nothing negated on either side: no clash to find

    def contexts(seq: tuple[tuple[str, bool, bool], ...], want: str) -> set[tuple[str, str, str]]:
        found = set()
        for i, (stem_, negated, near) in enumerate(seq):
            if (want == "negated" and not negated) or (want == "clear" and (negated or near)):
                continue
            if i > 0:
                found.add(("prev", seq[i - 1][0], stem_))
            if i + 1 < len(seq):
                found.add(("next", stem_, seq[i + 1][0]))
        return found

    flips = []
    excepted = _excepted_keys(evidence)
    for name, (this, other) in (("claim", sides), ("evidence", sides[::-1])):
        # a context the other side also negates is no flip ("с предварительным …, без предварительного …")
        clash = contexts(this, "negated") & contexts(other, "clear") - contexts(other, "negated")
        for where, a, b in sorted(clash):
            word = b if where == "prev" else a
            if name == "claim" and word in excepted:
                continue  # "но не на хирургическое вмешательство" says "за исключением хирургических вмешательств"
            flip = f"{name} negates '{word}', the other does not"
            if flip not in flips:
                flips.append(flip)
    return flips


# Conditions a regulation attaches ("при наличии согласия", "в случае угрозы", "если …", "по решению
# комиссии", "с письменного согласия"): a claim that keeps none of the words after the marker has
# dropped the condition. Not a bare "после": "проявления после иммунизации" names a thing, not a
# condition (measured: it cost a supported summary on the dev pairs).
_CONDITION_RE = re.compile(
    r"(?<!\w)(?:при наличии|при условии|в случае|в случаях|если|только при|только в|только с|только по|"
    r"только после|лишь при|лишь в|с согласия|с [^\W\d_]+ согласия|по согласованию с|при отсутствии|по решению)(?!\w)"
)


_CLAIM_CONDITION_RE = re.compile(
    r"(?<!\w)(?:если|когда|пока|в случае|в случаях|при условии|при наличии|только|лишь|исключительно|с согласия|"
    r"без согласия|в этом случае|в таком случае)(?!\w)"
)


# A circumstance "при …" ("при выявлении признаков заболевания", "при отрицательном результате
# пробы") limits a rule as a condition does, but "при" also just names a setting ("при обработке
# изделий"), so it is read only in the sentence that holds the claim best: a verbatim quote of one
# sentence drops nothing that a neighbouring sentence's "при" says (the demo's answers quote
# several chunks at once). Not "как при …, так и …", which includes, and not "при соблюдении
# следующих условий:", which leads in to conditions stated after it.
_CIRCUMSTANCE_RE = re.compile(
    r"(?<!\w)(?<!как )при(?! наличии| условии| отсутствии| (?:соблюдении|выполнении)[^.;:]{0,40}(?:услови|требовани))"
    r"(?!\w)")
_CLAIM_CIRCUMSTANCE_RE = re.compile(r"(?<!\w)при\s+[^\W\d_]")
CIRCUMSTANCE_REACH = 4  # content words after "при" that name the circumstance


def dropped_circumstance(claim: str, closest: str) -> str | None:
    """A circumstance "при …" of the sentence holding the claim best none of whose next four
    content words (those not named before it), nor its numbers, the claim holds. A claim with a
    circumstance or condition of its own ("при ВРТ", "если она оставит ребёнка себе") may restate
    the fragment's in other words: not read."""
    if _CLAIM_CIRCUMSTANCE_RE.search(claim) or _CLAIM_CONDITION_RE.search(claim):
        return None
    held = _holder(claim)
    claim_numbers = {m.value for m in extract_numbers(claim)}
    for found in _CIRCUMSTANCE_RE.finditer(closest):
        if about_another_part(claim, closest, found.start()):
            continue
        span = closest[found.end() : found.end() + 80]
        named_before = _holder(closest[: found.start()])
        following = [w for w in content_words(span)[:CIRCUMSTANCE_REACH + 1] if not named_before(w)]
        following = following[:CIRCUMSTANCE_REACH]
        if not following or any(held(w) for w in following):
            continue
        if claim_numbers & {m.value for m in extract_numbers(span)}:
            continue
        return f"claim drops the condition 'при {' '.join(following)}'"
    return None


_OBJECTION_RE = re.compile(r"(?<!\w)(?:возражени|обжал|оспор|жалоб)\w*")


def dropped_condition(claim: str, evidence: str) -> str | None:
    """A condition of the evidence none of whose next two content words, nor its numbers, the
    claim holds (five words when the claim states a condition of its own, "если"/"когда": it may
    keep the fragment's in other words)."""
    # a claim with a condition of its own ("если", "когда") may have put the fragment's in other
    # words: there the condition counts as dropped only when none of its first five words is held
    reach = 5 if _CLAIM_CONDITION_RE.search(claim) else 2
    claim_keys = key_set(claim)
    claim_prefixes = {w[:6] for w in content_words(claim) if len(w) >= 6} if reach > 2 else set()
    claim_numbers = {m.value for m in extract_numbers(claim)}
    for found in _CONDITION_RE.finditer(evidence):
        if about_another_part(claim, evidence, found.start()):
            continue
        span = evidence[found.end() : found.end() + 80]
        # the condition's own words: its next content words that the rest of the evidence does
        # not name ("если пациент представил документ": "пациент" is named before, "представил" is not)
        before = key_set(evidence[: found.start()])
        following = [w for w in content_words(span)[:reach + 1] if not any(k in before for k in match_keys(w))][:reach]
        # Not the marker's own word when every word after it was named before ("по согласованию с
        # врачом-эпидемиологом" after "обеспечивает врач-эпидемиолог"): tried, it called a verbatim
        # quote of the sentence before partial on the demo, for one blind pair gained.
        if not following or any(k in claim_keys for w in following for k in match_keys(w)):
            continue
        if reach > 2 and any(w[:6] in claim_prefixes for w in following if len(w) >= 6):
            continue  # the claim's own condition in a kindred word ("ограничений" for "ограничительных")
        if claim_numbers & {m.value for m in extract_numbers(span)}:
            continue  # "при не менее 80 %" keeps "если работник дал не менее 80 %"
        if following[0].startswith("несоглас") and _OBJECTION_RE.search(claim):
            continue  # an objection is made in disagreement: "вправе подать возражение" keeps "в случае несогласия"
        return f"claim drops the condition '{found.group(0)} {' '.join(following)}'"
    for found in _INDICATION_RE.finditer(evidence):
        if "показан" not in claim and not about_another_part(claim, evidence, found.start()):
            return f"claim drops the condition '{found.group(0).strip(' ,')}'"
    # the fragment ends where its conditions begin ("… допускается при условии:"): whatever they
    # are, a claim that states none has dropped them
    listed = _CONDITIONS_FOLLOW_RE.search(evidence)
    if listed is not None and not _CLAIM_CONDITION_RE.search(claim):
        return f"claim drops the conditions the fragment lists after '{listed.group(0).strip()}'"
    return None


_CONDITIONS_FOLLOW_RE = re.compile(r"(?<!\w)(?:при условии|следующих условий|следующих случаях|"
                                   r"одного из следующих условий)\s*:\s*$")


# A condition that is its own words: "по (медицинским) показаниям" — only when a doctor finds it
# needed; not after "а также", "или" ("профилактические, а также по показаниям …" adds a second case).
_INDICATION_RE = re.compile(r"(?<!а также )(?<!или )(?<!\w)по (?:медицинским |клиническим |эпидемиологическим |"
                            r"жизненным )?показаниям(?!\w)")


# Requirements joined by "и" ("после повышения квалификации, стажировки и оценки …", "имеющие
# сертификат … и лицензию", "прошедшие осмотр и признанные годными"): each is needed, so a claim
# that keeps one and leaves out the last widens the rule. Only after a marker of what is required:
# "при бактериальных, вирусных и грибковых инфекциях" lists cases, any of which is enough.
_REQUIREMENT_RE = re.compile(
    r"(?<!\w)(?:после|на основании|при наличии|при условии|с согласия|прошедш\w*|имеющ\w*)(?!\w)")
_CLAUSE_END_RE = re.compile("[" + re.escape("".join(sorted(_CLAUSE_ENDS))) + "]")  # the polarity reading's clause ends


def dropped_requirement(claim: str, evidence: str) -> str | None:
    """A list of requirements joined by "и" whose first the claim keeps and whose last (its
    first two content words, not named before the list) it holds none of."""
    from evals.text.lemmas import part_of_speech

    if " и " not in evidence:
        return None
    held = _holder(claim)
    for found in _REQUIREMENT_RE.finditer(evidence):
        end = _CLAUSE_END_RE.search(evidence, found.end())
        span = evidence[found.end() : end.start() if end else len(evidence)][:160]
        # the list ends where the rule's predicate starts ("после иммунизации подлежат регистрации … и учёту")
        verb = next((m for m in _WORD.finditer(span) if part_of_speech(m.group(0)) in _VERB_POS), None)
        span = span[: verb.start()] if verb else span
        joint = span.find(" и ")
        if joint < 0 or about_another_part(claim, evidence, found.start()):
            continue
        first, last = content_words(span[:joint]), content_words(span[joint + 3 :])[:2]
        named_before = _holder(evidence[: found.start()])
        last = [w for w in last if not named_before(w)]
        if first and last and held(first[0]) and not any(held(w) for w in last):
            return f"claim drops the requirement '… и {' '.join(last)}'"
    return None


_PREDICATE_POS = frozenset({"VERB", "INFN", "PRTS", "ADJS", "PRED"})
_VERB_POS = frozenset({"VERB", "INFN", "PRTS"})  # not ADJS: "врачебно-консультационной" starts with one
# what an ordinal picks a class of: "второй группы", "первой и второй групп", "третьей категории"
_CLASS_NOUN_RE = re.compile(r"(?:\s+(?:и|или)\s+[^\W\d_]+)?\s+(?:групп|категори|степен|класс)")


# An age or term bound said without its number: "которому ещё не исполнился год" is "до одного
# года", "младше года" is "до года".
_AGE_IN_WORDS_RE = re.compile(r"(?<!\w)(?:не исполнил\w*|не достиг\w*|младше|моложе|не старше|до)\s+(?:\w+\s+){0,2}?"
                              r"(?:год|года|году|лет|месяц|месяца|месяцев|недел[иья])(?!\w)")


def dropped_bound(claim: str, evidence: str) -> str | None:
    """The fragment bounds a number ("на срок не более десяти дней", "при сроке до двенадцати
    недель", "стаж не менее пяти лет") in the part the claim is about, and the claim states no
    number at all: without the bound a permission or a requirement reads wider. Not "не реже":
    a duty stated without its least frequency still holds. One is
    left out: "не чаще раза в год" says "одного" without the word. A claim with no verb states no
    rule to bound ("Температура в холодильнике, °C." quotes a table's heading)."""
    from evals.text.lemmas import part_of_speech

    if extract_numbers(claim) or numerals.bare_durations(claim) or _AGE_IN_WORDS_RE.search(claim):
        return None
    if not any(part_of_speech(w) in _PREDICATE_POS or w == "вправе" for w in words(claim)):
        return None
    for mention in extract_numbers(evidence):
        # a bound, or an ordinal that picks a class ("первой и второй групп инвалидности")
        picks_class = mention.kind == "ordinal" and _CLASS_NOUN_RE.match(evidence, mention.end) is not None
        # a bare one is a count ("не чаще одного раза"), one of a unit an age or term ("до одного года")
        once = mention.value == "1" and mention.unit is None
        if (once and not picks_class) or (_bound(evidence, mention) == "none" and not picks_class):
            continue
        if "не реже" in evidence[max(0, mention.start - 30) : mention.start]:
            continue  # a duty's least frequency: without it the duty still holds, nothing is widened
        # the claim must be about that part: half of it held there (a half-invented claim is
        # partial for what it invents, not for the bound)
        if holds_half_of(claim, evidence, mention.start):
            return f"claim drops the bound '{evidence[max(0, mention.start - 12) : mention.end].strip()}'"
    return None


# A qualifier that restricts a class: "лица, постоянно проживающие …", "лекарственных средств,
# отпускаемых по рецепту врача". Participles that refer or name instead of restricting are not
# read: "предусмотренных пунктом 1", "утверждаемым уполномоченным органом", "сведения, составляющие
# врачебную тайну" (a term, measured: it cost a supported paraphrase), "организации, оказывающей
# медицинскую помощь в области психического здоровья" (the Code's name for a kind of organisation),
# "система …, включающая в себя: 1) …" (a definition's list of parts, not a restriction).
_QUALIFIER_RE = re.compile(r",\s*([^,.;:()]{3,120})")
_NOT_RESTRICTING = re.compile(r"(?:предусмотр|установл|определя|утвержда|указан|определен|утвержден|включен|провод|"
                              r"составля|оказывающ|включающ)")


def _holder(claim: str) -> Callable[[str], bool]:
    """Whether the claim holds a word: by stem, or by a kindred six-letter start (Snowball
    stems "диплом" as "дипл" but "дипломом" as "диплом")."""
    keys = key_set(claim)
    prefixes = {w[:6] for w in content_words(claim) if len(w) >= 6}

    def held(word: str) -> bool:
        return any(k in keys for k in match_keys(word)) or (len(word) >= 6 and word[:6] in prefixes)

    return held


def dropped_qualifier(claim: str, evidence: str) -> str | None:
    """The fragment restricts a noun the claim names by a participle phrase after a comma, and the
    claim holds none of that phrase's content words (by stem, or a kindred six-letter start)."""
    from evals.text.lemmas import part_of_speech

    if ", " not in evidence:
        return None
    held = _holder(claim)
    for found in _QUALIFIER_RE.finditer(evidence):
        phrase = words(found.group(1))
        lead = 1 if len(phrase) > 1 and part_of_speech(phrase[0]) == "ADVB" else 0  # "постоянно проживающие"
        if not phrase or part_of_speech(phrase[lead]) != "PRTF" or _NOT_RESTRICTING.match(phrase[lead]):
            continue
        named = content_words(evidence[max(0, found.start() - 60) : found.start()])
        if not named or not held(named[-1]):  # the claim does not speak of what the phrase restricts
            continue
        if any(held(w) for w in content_words(found.group(1))) or about_another_part(claim, evidence, found.start(1)):
            continue
        return f"claim drops the qualifier '{named[-1]}, {' '.join(phrase[:5])}'"
    return None


# "не может использоваться без исследования" says what "только после исследования" says: a
# negation with "без" on one side, a restriction ("только", "лишь", "исключительно") on the other.
_NOT_WITHOUT_RE = re.compile(r"(?<!\w)(?:не|нельзя|запрещ\w*|не допуска\w*)(?!\w)(?:\W+\w+){0,4}?\W+без(?!\w)")
_ONLY_RE = re.compile(r"(?<!\w)(?:только|лишь|исключительно)(?!\w)")


# "не прошедшие осмотр к работе не допускаются" says "допускаются только прошедшие осмотр": a
# negated participle (who has not done X) under a prohibition, against a restriction or a condition.
_NOT_DONE_BARRED_RE = re.compile(
    r"(?<!\w)не [^\W\d_]+(?:шие|ший|ших|шим|шими|ющие|ющих|ющим|ящие|ящих|ящим|нные|нных|нным)(?!\w)"
    r"(?:\W+\w+){0,12}?\W+(?:не допуска\w*|не могут|не может|не вправе|запрещ\w*)(?!\w)"
)
_ONLY_IF_RE = re.compile(r"(?<!\w)(?:только|лишь|исключительно|при условии)(?!\w)")


# "нельзя допускать, пока он не прошёл осмотр" says "допускаются после прохождения осмотра".
_NOT_UNTIL_RE = re.compile(r"(?<!\w)(?:не|нельзя|запрещ\w*)(?!\w)(?:\W+\w+){0,8}?\W+пока (?:[^\W\d_]+ )?не(?!\w)")
_AFTER_RE = re.compile(r"(?<!\w)после(?!\w)")


# "без согласия … не передаются" (or "нельзя … без"): the claim bars the act without something,
# where the fragment does it "без" that and negates nothing ("предоставляются … без получения
# разрешения"). In the 1,390 Russian pairs: 8 such claims, all unsupported. "Без X" may open a
# claim whose "нельзя" closes it twenty words later ("Без разрешения органа … ввезти … нельзя").
_BARRED_WITHOUT_RE = re.compile(r"(?<!\w)(?:не|нельзя|запрещ\w*)(?!\w)(?:\W+\w+){0,6}?\W+без(?!\w)|"
                                r"(?<!\w)без(?!\w)(?:\W+\w+){1,20}?\W+(?:не|нельзя|запрещ\w*)(?!\w)")
_ANY_NEGATION_RE = re.compile(r"(?<!\w)(?:не|нельзя|запрещ\w*|ни|только|лишь)(?!\w)")
_WITHOUT_RE = re.compile(r"(?<!\w)без(?!\w)")


def barred_without(claim: str, evidence: str) -> str | None:
    """The claim bars the act without something; the fragment does it without, negating nothing."""
    if "без" not in claim or "без" not in evidence or _ANY_NEGATION_RE.search(evidence):
        return None
    if _BARRED_WITHOUT_RE.search(claim) is None or _WITHOUT_RE.search(evidence) is None:
        return None
    return "claim bars it 'без' something, the fragment does it without"


# "только с письменного разрешения" (or "лишь после", "не иначе как с") against a fragment that
# does it "без получения письменного разрешения": what the claim requires, the fragment waives.
_ONLY_WITH_RE = re.compile(r"(?<!\w)(?:только|лишь|исключительно|не иначе как)\s+(?:с|со|при|после|по)\s+"
                           r"((?:[^\W\d_]+\s+){0,2}[^\W\d_]+)")
_WITHOUT_WORDS_RE = re.compile(r"(?<!\w)без\s+((?:[^\W\d_]+\s+){0,3}[^\W\d_]+)")


def only_with_waived(claim: str, evidence: str) -> str | None:
    """The claim allows it only with something the fragment does without (and the fragment does
    not bar doing it without: "не может использоваться без исследования" is "только после")."""
    # the short claim first: most state no "только с", and then the fragment need not be scanned
    required = [m.group(1) for m in _ONLY_WITH_RE.finditer(claim)]
    if not required or "без" not in evidence or _BARRED_WITHOUT_RE.search(evidence):
        return None
    waived = key_set(" ".join(m.group(1) for m in _WITHOUT_WORDS_RE.finditer(evidence)))
    for phrase in required:
        hit = [w for w in content_words(phrase) if any(k in waived for k in match_keys(w))]
        if hit:
            return f"claim requires '{' '.join(hit)}', the fragment does without it"
    return None


# "не только при выполнении обязанностей" (or "не одними лишь критериями") against "исключительно в
# рамках выполнения обязанностей": one side widens what the other restricts to one case.
_NOT_ONLY_RE = re.compile(r"(?<!\w)не (?:только|лишь|одн\w+ (?:лишь|только)|исключительно)(?!\w)")
_ONLY_WORD_RE = re.compile(r"(?<!не )" + _ONLY_RE.pattern)  # _ONLY_RE's words, not after "не"


def not_only_against_only(claim: str, evidence: str) -> str | None:
    """One side says "не только" where the other says "только" (or "лишь", "исключительно"), with
    no "не только" of its own."""
    for name, this, other in (("claim", claim, evidence), ("fragment", evidence, claim)):
        found = _NOT_ONLY_RE.search(this) if "не " in this else None
        if found and _ONLY_WORD_RE.search(other) and not _NOT_ONLY_RE.search(other):
            return f"the {name} says '{found.group(0)}', the other side restricts it"
    return None


def only_with(claim: str, evidence: str) -> bool:
    """One side says "не … без X", the other "только … X" (and states no "без" of its own); or
    one side bars who has not done X ("не прошедшие … не допускаются"), the other admits only
    with X ("допускают только при условии, что прошёл"); or one side says "нельзя … пока не X",
    the other "после X"."""
    # each regex's literal is looked for first: most pairs hold none of "без", "не ", "пока"
    for a, b in ((evidence, claim), (claim, evidence)):
        if ("без" in a and _ONLY_RE.search(b) is not None and " без " not in f" {b} "
                and _NOT_WITHOUT_RE.search(a) is not None):
            return True
        if "не " in a and _ONLY_IF_RE.search(b) is not None and _NOT_DONE_BARRED_RE.search(a) is not None:
            return True
        if "пока" in a and "после" in b and _AFTER_RE.search(b) is not None and _NOT_UNTIL_RE.search(a) is not None:
            return True
    return False


def negation_unheld(claim: str, evidence: str) -> str | None:
    """The claim negates a word the evidence it is about affirms, and that evidence states no
    negation or prohibition at all ("зарплата не сохраняется" against "сохраняется зарплата"); or
    the claim denies its predicate at its clause's end in a word of its own ("не согласуется"
    against "гармонизируется") where that evidence also restricts, frees from and permits nothing."""
    negated = negated_words_ru(claim)
    if not negated:  # most claims negate nothing: the evidence need not be read
        return None
    if any(neg for _, neg, _ in polarity_sequence_ru(evidence)) or _PROHIBIT_RU.search(evidence):
        return None
    if _RU_NEGATION_ANYWHERE.search(evidence):
        return None
    held = key_set(evidence)
    excepted = excepted_stems(evidence)  # an exception negates what it names
    affirmed = [w for w in negated if any(k in held for k in match_keys(w)) and stem(w) not in excepted]
    if affirmed:
        return f"claim negates '{affirmed[0]}', the fragment affirms it and negates nothing"
    # "… с требованиями фармакопей не согласуется.": the claim denies its predicate in words the
    # fragment does not use ("гармонизируется"), where the fragment negates nothing at all
    denied = _CLAUSE_FINAL_NEGATION_RE.search(claim)
    if (denied
            and not _ONLY_RE.search(evidence) and not _FREE_OF_RE.search(evidence)  # it restricts or frees
            and not excepted  # an exception the negation restates: "на ВИЧ это не распространяется"
            and not _NOT_UNTIL_CLAIM_RE.search(claim)  # "пока не освоит …, не допустят": a condition
            # a fragment that permits: the claim's "не обязан", "не запрещено", "не требуется" may say
            # the same (and a claim that denies the permission meets it in modality_conflict)
            and "permit" not in modalities(evidence)):
        return f"claim denies its predicate ('{denied.group(0)}'), the fragment negates nothing"
    if negated and "permit" in modalities(evidence) and not modalities(claim):
        return f"claim denies ('не {negated[0]}') what the fragment permits"
    return None


# A claim's sentence or clause that ends in a negated word ("… не согласуется.", "… не причисляет —").
# Not before a colon: "Не потеряете: место сохраняется" answers the question, as "Нет," does.
_CLAUSE_FINAL_NEGATION_RE = re.compile(r"(?<!\w)не [^\W\d_]+(?=\s*(?:[.;!?]|\s—|$))")
# Words that free from something, a negation in one word: "бесплатно", "независимо от".
_FREE_OF_RE = re.compile(r"(?<!\w)(?:бесплатн|безвозмездн|бессрочн|беспрепятствен|независим|вне зависимости|"
                         r"освобожд|отказ)\w*")
_NOT_UNTIL_CLAIM_RE = re.compile(r"(?<!\w)(?:пока|до тех пор,? пока) не(?!\w)")


def negation_dropped(claim: str, evidence: str) -> str | None:
    """negation_unheld the other way round: the evidence negates a word ("не засчитывается", "не
    являются основанием") that the claim states with no negation near it ("засчитывается в срок",
    "служат основанием"). Word order is free, unlike polarity_flips_ru, which needs the same
    neighbour on both sides. Not read when the claim prohibits, says "только"/"лишь" (a double
    negation restated: "не допускаются лица без X" is "допускаются только с X") or "минуя" (a
    negation in one word: "минуя направление" is "без направления")."""
    if _PROHIBIT_RU.search(claim) or _ONLY_RE.search(claim) or "минуя" in claim:
        return None
    negated = negated_words_ru(evidence)
    if not negated:
        return None
    seq = polarity_sequence_ru(claim)
    clear = {k for k, neg, near in seq if not neg and not near}
    touched = {k for k, neg, near in seq if neg or near}
    hit = [w for w in negated if _polarity_key(w) in clear and _polarity_key(w) not in touched]
    if hit:
        return f"the fragment negates '{hit[0]}', the claim affirms it"
    return None


# Words that bound a thing from opposite sides, with no number to compare ("минимальный объём"
# against "максимальный", "в пределах гарантированного объёма" against "сверх него", "не должен
# быть ниже" against "не должен превышать"): the number-bound check has nothing to read there.
_OPPOSITE_BOUNDS = (
    (re.compile(r"(?<!\w)(?:максимальн|предельн)"), re.compile(r"(?<!\w)минимальн")),  # "предельно допустимые"
    (re.compile(r"(?<!\w)вышестоящ"), re.compile(r"(?<!\w)нижестоящ")),
    (re.compile(r"(?<!\w)сверх(?!\w)"), re.compile(r"(?<!\w)в пределах(?!\w)")),
    (re.compile(r"(?<!\w)(?:не (?:должен |должна |должно |должны |может |могут )?(?:превыша|быть выше))"),
     re.compile(r"(?<!\w)не (?:должен |должна |должно |должны |может |могут )?(?:быть )?ниже(?!\w)")),
    (re.compile(r"(?<!\w)(?<!не )превыша"), re.compile(r"(?<!\w)не превыша")),
)


def opposite_bounds(claim: str, evidence: str) -> list[str]:
    """The claim bounds a thing from the side opposite to the fragment's, in words
    (_OPPOSITE_BOUNDS), and neither side also says the other's word (at most one conflict, as
    the first is the verdict's reason)."""
    for one, other in _OPPOSITE_BOUNDS:
        for this, that in ((one, other), (other, one)):
            said = this.search(claim)
            if said and that.search(evidence) and not that.search(claim) and not this.search(evidence):
                return [f"claim says '{said.group(0)}', the fragment the opposite bound"]
    return []


def prefix_antonyms(claim: str, evidence: str) -> str | None:
    """A word and its negative-prefixed antonym on the two sides: "бесплатно" against "на
    платной основе", "несовершеннолетние" against "совершеннолетние"."""
    for name, this, other in (("claim", claim, evidence), ("evidence", evidence, claim)):
        prefixed = _prefixed(this)
        if not prefixed:  # most sides: no prefixed word, so neither side's stems are needed
            continue
        own_stems = _side_stems(this)[0]
        other_stems, other_plain, other_negated = _side_stems(other)
        for word in prefixed:
            base = stem(word[3:] if word.startswith(("бес", "без")) else word[2:])
            if stem(word) in other_stems or base not in other_plain or base in own_stems or base in other_negated:
                continue
            return f"{name} says '{word}', the other side its opposite"
    return None


@lru_cache(maxsize=65536)
def _prefixed(norm_text: str) -> tuple[str, ...]:
    """Words with a negative prefix ("бес-", "без-", "не-") and at least five letters after it."""
    return tuple(sorted({w for w in words(norm_text) if (m := _NEGATIVE_PREFIX.match(w)) and len(m.group(2)) >= 5}))


@lru_cache(maxsize=65536)
def _side_stems(norm_text: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(every stem, stems with no negation just before, stems with one): "без уважительной
    причины" puts причин in the last."""
    seq = words(norm_text)
    plain: set[str] = set()
    negated: set[str] = set()
    for i, w in enumerate(seq):
        (plain if _RU_NEGATORS.isdisjoint(seq[max(0, i - 2) : i]) else negated).add(stem(w))
    return frozenset(stem(w) for w in seq), frozenset(plain), frozenset(negated)


_NEGATIVE_PREFIX = re.compile(r"^(бес|без|не)([^\W\d_]+)$")


_RU_NEGATION_ANYWHERE = re.compile(r"(?<!\w)(?:не|нет|ни|без|нельзя|невозможн\w*|отсутств\w*|запрещ\w*)(?!\w)")
