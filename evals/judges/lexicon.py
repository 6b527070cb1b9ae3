"""Words for the offline judge: content-word stems, number words, negation and bound cues.

Russian first, English second; any other script falls back to the casefolded word.
Everything here is built in (no downloads): snowball stemmers come compiled with PyStemmer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..data.text import extract_numbers, normalize, strip_markers
from ..data.tokens import is_stopword, stem

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
_LOWER = ("не реже", "не менее", "не меньше", "не ранее", "не младше", "как минимум", "минимум", "от", "свыше",
          "более", "больше", "at least", "no less than", "not less than", "no fewer than", "minimum", "more than",
          "over", "over", "from", "exceeding", "above", "no earlier than")
_UPPER = ("не более", "не больше", "не позднее", "не позже", "не свыше", "не старше", "не чаще", "до",
          "максимум", "не превышает", "не превышающ", "менее", "меньше", "at most", "no more than",
          "not more than", "up to", "maximum", "no later than", "less than", "fewer than", "under", "below",
          "within", "not exceeding")
_NEGATION = ("не", "нет", "ни", "нельзя", "никогда", "без", "запрещается", "запрещено", "запрещен", "запрещена",
             "запрещены", "не допускается", "недопустимо", "отсутствует", "not", "no", "never", "without",
             "cannot", "nor", "none", "prohibited", "forbidden", "neither", "n't")
# Modality: an obligation in the claim is not supported by a mere permission in the evidence.
_MUST = ("должен", "должна", "должно", "должны", "обязан", "обязана", "обязаны", "обязательно", "необходимо",
         "требуется", "следует", "must", "shall", "required", "mandatory", "obliged", "have to", "has to")
_MAY = ("может", "могут", "вправе", "допускается", "разрешается", "разрешено", "можно", "may", "might", "can",
        "could", "allowed", "permitted", "optional", "possibly")


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
    return _WORD.findall(norm_text)


def content_stems(norm_text: str) -> list[str]:
    """Stems of the content words, in order (stopwords and cue words removed)."""
    out = []
    for word in words(norm_text):
        if is_stopword(word) or word in _NEGATION or word in _MUST or word in _MAY:
            continue
        out.append(stem(word))
    return out


def number_word(word: str) -> str | None:
    """The digits a number word stands for ("шести" → "6", "twice" → "2"), else None."""
    return _RU_NUMBER_WORDS.get(word) or _EN_NUMBER_WORDS.get(word)


def token_stream(norm_text: str) -> list[str]:
    """Every token in order, for n-gram matching: stems of words (stopwords kept, they carry the
    word order), number words as digits, digit runs as they are."""
    out = []
    for token in _TOKEN.findall(norm_text):
        if token.isdigit():
            out.append(token)
        else:
            out.append(number_word(token) or stem(token))
    return out


def word_numbers(norm_text: str) -> set[str]:
    """Numbers written as words ("шести", "twice"), as canonical digit strings."""
    found = set()
    for word in words(norm_text):
        if word in _RU_NUMBER_WORDS:
            found.add(_RU_NUMBER_WORDS[word])
        elif word in _EN_NUMBER_WORDS:
            found.add(_EN_NUMBER_WORDS[word])
    return found


@dataclass(frozen=True)
class NumberCue:
    """A number in normalized text with the bound phrase right before it (lower, upper or none)."""

    value: str
    bound: str  # lower | upper | none


def number_cues(norm_text: str) -> list[NumberCue]:
    """Numbers with their bound: "не реже 1 раза в 6 месяцев" → 1 (lower), 6 (lower)."""
    cues = []
    for mention in extract_numbers(norm_text):
        # the bound phrase governs the numbers that follow it within a few words
        window = norm_text[max(0, mention.start - 40) : mention.start]
        bound = "none"
        last = None
        for m in _BOUND_RE.finditer(window):
            last = m
        if last is not None and len(words(window[last.end() :])) <= 4:
            bound = "lower" if _LOWER_RE.fullmatch(last.group(0)) else "upper"
        cues.append(NumberCue(mention.value, bound))
    return cues


def negation_count(norm_text: str) -> int:
    """Plain negations, not counting the "не" of bound phrases ("не реже", "не более")."""
    masked = _BOUND_RE.sub(" ", norm_text)
    return len(_NEGATION_RE.findall(masked))


def polarity_sequence(norm_text: str) -> list[tuple[str, bool]]:
    """Content stems in order, each flagged True when a negation governs it. A negation ("не",
    "not", "без", "never") governs the next content word within three words; bound phrases
    ("не реже", "не более") and "не только"/"not only" are not negations."""
    masked = _NOT_NEGATION_RE.sub(" ", _BOUND_RE.sub(" ", norm_text))
    out: list[tuple[str, bool]] = []
    pending = 0  # words left in the current negation's reach
    for word in words(masked):
        if word in _SCOPED_NEGATION or word.endswith(("n't", "n’t")):
            pending = 3
            continue
        if is_stopword(word) or word in _MUST or word in _MAY or word in _NEGATION:
            pending = max(0, pending - 1)
            continue
        out.append((stem(word), pending > 0))
        pending = 0
    return out


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
    for name, (this, other) in (("claim", sides), ("evidence", sides[::-1])):
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


def number_values(norm_text: str, codes: bool = True) -> set[str]:
    """Canonical values of the numbers and dates written in digits (see data.text). codes=False
    leaves out digits glued to a preceding letter ("C3", "BiVO4", "Ka-27"): names, not quantities."""
    return {
        m.value
        for m in extract_numbers(norm_text)
        if codes or m.start == 0 or not (norm_text[m.start - 1].isalpha() or norm_text[m.start - 1] == "-"
                                        and m.start > 1 and norm_text[m.start - 2].isalpha())
    }


def has_must(norm_text: str) -> bool:
    return _MUST_RE.search(norm_text) is not None


def has_may(norm_text: str) -> bool:
    return _MAY_RE.search(norm_text) is not None


def prepare(text: str) -> str:
    """Normalized text without citation markers."""
    return normalize(strip_markers(text))
