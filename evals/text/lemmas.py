"""Dictionary lemmas for Russian words (pymorphy3 with its bundled OpenCorpora dictionary).

Snowball stems (evals.text.tokens.stem) cut suffixes by rule, so forms whose stem alternates
(«лечь»/«лягу», «ребёнок»/«детей») stay apart; a lemma joins every
inflected form of one word. Where a word is not Russian, or pymorphy3 does not know it, the
Snowball stem stands in, so callers get one comparable key per word either way.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evals.text.tokens import stem

_CYRILLIC = re.compile(r"[а-яё]")


@lru_cache(maxsize=1)
def _analyzer():  # type: ignore[no-untyped-def]
    # Built on first use (≈ 0.3 s, dictionary files from the pymorphy3-dicts-ru wheel, no download).
    import pymorphy3

    return pymorphy3.MorphAnalyzer(lang="ru")


@lru_cache(maxsize=200_000)
def lemma(word: str) -> str:
    """The most probable dictionary form of a lower-cased word; its Snowball stem when not Russian."""
    word = word.lower().replace("ё", "е")
    if not _CYRILLIC.search(word):
        return stem(word)
    parses = _analyzer().parse(word)
    if not parses:
        return stem(word)
    return str(parses[0].normal_form).replace("ё", "е")


@lru_cache(maxsize=200_000)
def part_of_speech(word: str) -> str | None:
    """OpenCorpora part-of-speech tag of the most probable parse (NOUN, VERB, INFN, ADJF, …), or None."""
    word = word.lower().replace("ё", "е")
    if not _CYRILLIC.search(word):
        return None
    parses = _analyzer().parse(word)
    pos = parses[0].tag.POS if parses else None
    return str(pos) if pos else None


@lru_cache(maxsize=200_000)
def cases(word: str) -> frozenset[str]:
    """The grammatical cases (OpenCorpora: nomn, gent, datv, accs, ablt, loct) the word can be in,
    over all its parses; empty when not Russian or unknown."""
    word = word.lower().replace("ё", "е")
    if not _CYRILLIC.search(word):
        return frozenset()
    return frozenset(str(p.tag.case) for p in _analyzer().parse(word) if p.tag.case)


def lemmas(words: list[str]) -> list[str]:
    """lemma() of each word, in order."""
    return [lemma(w) for w in words]


@lru_cache(maxsize=200_000)
def _parts(word: str) -> frozenset[str]:
    word = word.lower().replace("ё", "е")
    if not _CYRILLIC.search(word):
        return frozenset()
    return frozenset(str(p.tag.POS) for p in _analyzer().parse(word) if p.tag.POS)


def can_be(word: str, pos: str) -> bool:
    """Some parse of the word has this part of speech ("прошедший" can be a participle, PRTF)."""
    return pos in _parts(word)


@lru_cache(maxsize=200_000)
def agrees(adjective: str, noun: str) -> bool:
    """Some parse of adjective (ADJF) and of noun (NOUN) share case and number, and gender in the
    singular: "предварительный осмотр" agrees, "прошедший обследование" does not."""
    parse = _analyzer().parse
    adjectives = [p.tag for p in parse(adjective.lower().replace("ё", "е")) if p.tag.POS == "ADJF"]
    nouns = [p.tag for p in parse(noun.lower().replace("ё", "е")) if p.tag.POS == "NOUN"]
    return any(a.case == n.case and a.number == n.number and (a.number == "plur" or a.gender == n.gender)
               for a in adjectives for n in nouns)
