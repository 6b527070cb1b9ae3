"""Numeric facts: what a key fact states, whether a text states it, and a plausible other value.

A fact is a value (canonical, as `extract_numbers` gives it) of a kind, with the first
letters of the unit word that follows it ("12 месяцев" → 12, number, "ме"), so that
"не реже одного раза в 12 месяцев" states it and "12 часов" does not.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from evals.text.normalize import MARKER_PATTERN, NumberMention, strip_markers
from evals.text.normalize import extract_numbers as _extract_numbers

_UNIT_WORD = re.compile(r"^[\s\u00a0\u202f\u2009]*([^\W\d_]+)")
# Two letters tell "месяцев" from "часов" and still join "дней", "дня" and "день".
UNIT_LETTERS = 2
# Words before a number that make it a reference (clause, order, article), not a figure.
_REFERENCE_BEFORE = re.compile(
    r"(?:№|n°|\bп\.|\bпп\.|\bпункт\w*|\bподпункт\w*|\bст\.|\bстать\w*|\bраздел\w*|\bглав\w*|\bприложени\w*"
    r"|\bчаст\w*|\bредакци\w*)\s*$",
    re.IGNORECASE,
)


@lru_cache(maxsize=50_000)
def _cached_numbers(text: str) -> tuple[NumberMention, ...]:
    return tuple(_extract_numbers(text))


def extract_numbers(text: str) -> list[NumberMention]:
    """evals.text.normalize.extract_numbers, cached: registry chunks are read many times over."""
    return list(_cached_numbers(text))


def may_state(fact: Fact, text: str) -> bool:
    """A cheap first look (the value occurs at all) before `states` checks the unit."""
    return any(m.value == fact.value for m in _cached_numbers(text))


@dataclass(frozen=True)
class Fact:
    """A figure a text may state: canonical value, kind and unit letters (None: no unit word)."""

    text: str
    value: str
    kind: str
    unit: str | None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def unit_word(text: str, end: int) -> str:
    """The word right after position end ("" when a non-word follows)."""
    match = _UNIT_WORD.match(text[end : end + 40])
    return match.group(1) if match else ""


def _unit_after(text: str, end: int) -> str | None:
    match = _UNIT_WORD.match(text[end : end + 40])
    return match.group(1).lower().replace("ё", "е")[:UNIT_LETTERS] if match else None


def fact_of(text: str) -> Fact | None:
    """The first figure of a key fact ("12 месяцев", "70 %", "до 01.07.2025"), or None."""
    mentions = [m for m in extract_numbers(text) if not is_reference(text, m)]
    if not mentions:
        return None
    first = mentions[0]
    unit = None if first.kind in ("percent", "date", "time") else _unit_after(text, first.end)
    return Fact(text=text, value=first.value, kind=first.kind, unit=unit)


def mentions_of(fact: Fact, text: str) -> list[NumberMention]:
    """The places where text states the fact's value (with the same unit, when the fact has one)."""
    out = []
    for mention in extract_numbers(text):
        if mention.value != fact.value or mention.kind != fact.kind:
            continue
        if fact.unit is not None and _unit_after(text, mention.end) != fact.unit:
            continue
        out.append(mention)
    return out


def states(fact: Fact, text: str) -> bool:
    return bool(mentions_of(fact, strip_markers(text)))


_MARKER_RUN = re.compile(r"\s*" + MARKER_PATTERN)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\n])\s*$")


def is_reference(text: str, mention: NumberMention) -> bool:
    """A number that names a clause, order or article ("№ 3-п", "п. 3.1", "3.1. Текст"), not a figure."""
    before = text[: mention.start]
    if _REFERENCE_BEFORE.search(before):
        return True
    after = text[mention.end : mention.end + 1]
    return mention.kind == "number" and after in (".", ")") and bool(_SENTENCE_START.search(before))


def stated_figures(text: str) -> list[NumberMention]:
    """Numbers text states as figures: not clause numbering ("3.1."), not a reference (№, п., статья).
    A citation marker ends a sentence here, so "… [E1] 6.3. Текст" is numbering too."""
    text = _MARKER_RUN.sub("\n", text)
    return [m for m in extract_numbers(text) if not is_reference(text, m)]


# --- a plausible other value ---------------------------------------------------------


def _format_like(raw_number: str, value: Decimal) -> str:
    """value written the way raw_number is: decimal comma or point, grouped thousands."""
    separator = "," if "," in raw_number else "."
    decimals = len(re.split(r"[.,]", raw_number)[1]) if re.search(r"\d[.,]\d", raw_number) else 0
    quantum = Decimal(1).scaleb(-decimals)
    value = value.quantize(quantum, rounding=ROUND_HALF_UP)
    whole, _, fraction = f"{value:f}".partition(".")
    group = next((c for c in raw_number if c in " \u00a0\u202f\u2009"), None)
    if group and len(whole) > 3:
        whole = f"{int(whole):,}".replace(",", group)
    return whole + (separator + fraction if fraction else "")


def _other_numbers(raw_number: str, value: Decimal, percent: bool) -> list[str]:
    out = []
    step = Decimal(1).scaleb(-(len(re.split(r"[.,]", raw_number)[1]) if re.search(r"\d[.,]\d", raw_number) else 0))
    for candidate in (value * Decimal("1.5"), value * 2, value / 2, value + step, value + 2 * step, value + 3 * step):
        if candidate <= 0 or (percent and candidate > 100):
            continue
        text = _format_like(raw_number, candidate)
        if Decimal(text.replace(",", ".").translate({ord(c): None for c in " \u00a0\u202f\u2009"})) != value:
            out.append(text)
    return out


def _shift_day(day: int) -> int:
    return day + 7 if day <= 21 else day - 7


def alternatives(mention: NumberMention) -> list[str]:
    """Other plausible ways to write the mention's figure, most plausible first (same format)."""
    raw = mention.text
    if mention.kind == "date":
        match = re.match(r"\d{1,2}", raw) if not re.match(r"\d{4}-", raw) else None
        if match is not None:  # "05.01.2023", "1 июля 2025": change the day
            day = int(match.group(0))
            new_day = str(_shift_day(day)).zfill(len(match.group(0)))
            return [new_day + raw[match.end() :]]
        try:
            iso = date.fromisoformat(raw)
        except ValueError:
            return []
        return [(iso.replace(day=_shift_day(iso.day))).isoformat(), (iso + timedelta(days=30)).isoformat()]
    if mention.kind == "time":
        hours, _, minutes = raw.partition(":")
        return [f"{(int(hours) + 2) % 24:0{len(hours)}d}:{minutes}"]
    number = re.match(r"\d[\d\u00a0\u202f\u2009 ]*(?:[.,]\d+)?", raw)
    if number is None:
        return []
    digits = number.group(0).rstrip(" \u00a0\u202f\u2009")
    try:
        value = Decimal(digits.replace(",", ".").translate({ord(c): None for c in " \u00a0\u202f\u2009"}))
    except InvalidOperation:
        return []
    tail = raw[len(digits) :]
    return [text + tail for text in _other_numbers(digits, value, mention.kind == "percent")]
