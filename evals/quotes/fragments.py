"""Candidate places for a quote: the answer's sentences and their clauses.

Every matcher chooses among the same fragments, so a comparison of matchers compares how
they score places, not how they cut the text. Lines are split first (list items, Telegram
bullets, blank-line paragraphs), then sentences (citeval's own splitter, which knows Russian
abbreviations; razdel can be chosen — bench/quotes.py measures both), then clauses at `;`,
a spaced dash and a comma before и/а/но/а также/при этом — the places where a friendly bot
joins two claims in one sentence (in Russian a comma before и joins clauses; a list has
none). A clause shorter than MIN_CLAUSE_WORDS words is not a place of its own
("Продолжительность — 4 часа" stays whole), two dashes bracket an aside rather than split, and
a lead-in ending in a colon before a list is no place at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from evals.text.normalize import split_sentences

SentenceSplitter = Literal["citeval", "razdel"]
SENTENCE_SPLITTERS: tuple[str, ...] = ("citeval", "razdel")
DEFAULT_SPLITTER: SentenceSplitter = "citeval"
MIN_CLAUSE_WORDS = 3

# A list item or Telegram bullet at the start of a line: "- ", "• ", "1) ", "2. ", "✅ ", "🔹 ".
_BULLET = re.compile(r"^\s*(?:[-*•·▪▫◦‣⁃–—➖➤►▶✓✔✅☑🔹🔸🔷🔶📌👉⚠️❗️]+\ufe0f?|\d{1,3}[.)]|[a-zа-я]\))\s+", re.IGNORECASE)
# Clause breaks, coarse to fine: a semicolon or a comma before a conjunction first, then a
# spaced dash inside each such clause; both levels are candidates.
_CLAUSE_BREAKS = (
    re.compile(r"\s*;\s+|,\s+(?=(?:и|а|но|однако|а также|при этом|причем|причём|зато)\s)", re.IGNORECASE),
    re.compile(r"\s+[—–-]\s+"),
)
_TRIM_END = ".,;:!?…"
_WORD = re.compile(r"\w+")
# words that can carry a claim: three letters or more, or a number ("22:00", "0,4" count once)
_CLAIM_WORD = re.compile(r"[^\W\d_]{3,}|\d+(?:[.,:]\d+)*")


@dataclass(frozen=True)
class Fragment:
    start: int
    end: int
    level: Literal["sentence", "clause"]

    @property
    def span(self) -> tuple[int, int]:
        return (self.start, self.end)


def _lines(text: str) -> list[tuple[int, int]]:
    """Non-blank lines, each without its bullet or list number."""
    out = []
    pos = 0
    for line in text.split("\n"):
        start, end = pos, pos + len(line)
        pos = end + 1
        bullet = _BULLET.match(line)
        if bullet:
            start += bullet.end()
        if text[start:end].strip():
            out.append((start, end))
    return out


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in _TRIM_END):
        end -= 1
    return start, end


def _razdel_sentences(text: str, start: int, end: int) -> list[tuple[int, int]]:
    from razdel import sentenize  # optional splitter; razdel is small and pure Python

    return [(start + s.start, start + s.stop) for s in sentenize(text[start:end])]


def _sentences(text: str, start: int, end: int, splitter: SentenceSplitter) -> list[tuple[int, int]]:
    if splitter == "razdel":
        return _razdel_sentences(text, start, end)
    return [(start + s.start, start + s.end) for s in split_sentences(text[start:end])]


def _clauses(text: str, start: int, end: int, breaks: re.Pattern[str]) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    cursor = start
    for m in breaks.finditer(text, start, end):
        pieces.append((cursor, m.start()))
        cursor = m.end()
    pieces.append((cursor, end))
    # a piece too short to be a claim joins the piece before it (or, first, the one after)
    merged: list[tuple[int, int]] = []
    for piece in pieces:
        if merged and (_words(text, *piece) < MIN_CLAUSE_WORDS or _words(text, *merged[-1]) < MIN_CLAUSE_WORDS):
            merged[-1] = (merged[-1][0], piece[1])
        else:
            merged.append(piece)
    return merged


def _words(text: str, start: int, end: int) -> int:
    """Claim-bearing words: "с 22:00 до 06:00" has two, too few for a claim of its own;
    "Длительность — 6 часов" has three."""
    return len(_CLAIM_WORD.findall(text, start, end))


def _is_lead_in(text: str, end: int) -> bool:
    """A sentence ending in a colon at the end of its line introduces a list: no claim to cite."""
    line_end = text.find("\n", end)  # the rest of the line, without copying the rest of the text
    return text[end : line_end if line_end >= 0 else len(text)].strip() == ":"


@lru_cache(maxsize=4096)
def split_fragments(text: str, splitter: SentenceSplitter = DEFAULT_SPLITTER) -> tuple[Fragment, ...]:
    """Sentences and, where a sentence holds several claims, its clauses; spans trimmed of
    spaces and closing punctuation (the quote goes right after the span, before the period)."""
    out: list[Fragment] = []
    seen: set[tuple[int, int]] = set()

    def add(start: int, end: int, level: Literal["sentence", "clause"]) -> None:
        start, end = _trim(text, start, end)
        if end > start and (start, end) not in seen and _WORD.search(text, start, end):
            seen.add((start, end))
            out.append(Fragment(start, end, level))

    for line_start, line_end in _lines(text):
        for s_start, s_end in _sentences(text, line_start, line_end, splitter):
            if _is_lead_in(text, _trim(text, s_start, s_end)[1]):
                continue
            add(s_start, s_end, "sentence")
            coarse = _clauses(text, *_trim(text, s_start, s_end), _CLAUSE_BREAKS[0])
            for c_start, c_end in coarse:
                if len(coarse) > 1:
                    add(c_start, c_end, "clause")
                if len(_CLAUSE_BREAKS[1].findall(text, c_start, c_end)) != 1:
                    continue  # two dashes bracket an aside ("режим — 0,4 %, 45 минут — задает"): no split
                fine = _clauses(text, *_trim(text, c_start, c_end), _CLAUSE_BREAKS[1])
                if len(fine) > 1:
                    for f_start, f_end in fine:
                        add(f_start, f_end, "clause")
    return tuple(out)
