"""Word tokens for retrieval and overlap: folded, stop words dropped, Snowball-stemmed (ru, en)."""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer  # PyStemmer: compiled Snowball stemmers, nothing downloaded

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-я]")

# Short function-word lists (NLTK-like, trimmed); negation and bound words are not stop words.
STOPWORDS_RU = frozenset(
    """и в во что он на я с со как а то все всё она так его но да ты к у же вы за бы по только ее её мне было вот
    от меня еще ещё о из ему теперь когда даже ну вдруг ли если уже или быть был него до вас нибудь опять уж
    вам ведь там потом себя ей они тут где есть ней для мы тебя их чем была сам чтоб будто чего раз тоже себе
    под будет ж тогда кто этот того потому этого какой совсем ним здесь этом почти мой тем чтобы нее сейчас
    были куда зачем всех при наконец об другой хоть после над через эти нас про всего них какая много разве
    эту моя впрочем свою этой перед иногда чуть том такой им всегда конечно всю между это также которые
    который которая которое которого которой которым которых котором является являются являться либо
    а именно т е д др пр г гг ст п пп см бывает будут свой своего своей своих свои ее их каждый каждая
    каждое каждого весь вся всего всей данный данная данное данного данной данных указанный указанного
    соответствии согласно случае случаях также кроме того однако поэтому"""
    .split()
)
STOPWORDS_EN = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers
    herself it its itself they them their theirs themselves what which who whom this that these those am is
    are was were be been being have has had having do does did doing a an the and but if or because as until
    while of at by for with about against between into through during before after above below to from up
    down in out on off over under again further then once here there when where why how all any both each
    few more most other some such only own same so than too very s t can will just don should now also
    may might would could shall must one ones e.g i.e etc however therefore thus whether which within
    include includes including like well many much often use used using various several""".split()
)

# Negations and limits carry meaning for support checks; keep them out of the stop lists' effect.
KEEP = frozenset({"не", "нет", "ни", "без", "более", "менее", "not", "no", "nor", "more", "most", "only"})


_RU = Stemmer.Stemmer("russian")
_EN = Stemmer.Stemmer("english")
_LATIN = re.compile(r"[a-z]")


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Snowball stem of a lower-cased word, by its script (Russian, English; others unchanged)."""
    if _CYRILLIC.search(word):
        return str(_RU.stemWord(word))
    if _LATIN.search(word):
        return str(_EN.stemWord(word))
    return word


def is_stopword(word: str) -> bool:
    return word in STOPWORDS_RU or word in STOPWORDS_EN or len(word) < 2


def words(text: str) -> list[str]:
    """Lower-cased words with ё folded to е."""
    return [w.replace("ё", "е") for w in _WORD.findall(text.lower())]


def content_tokens(text: str, keep_negations: bool = False) -> list[str]:
    """Stems of the content words of text (Russian and English stemmed by their own Snowball)."""
    out = []
    for word in words(text):
        if word.isdigit():
            out.append(word)
        elif not is_stopword(word) or (keep_negations and word in KEEP):
            out.append(stem(word))
    return out
