"""Word tokens for retrieval and overlap: folded, stop words dropped, Snowball-stemmed (ru, en)."""

from __future__ import annotations

import re
from functools import lru_cache

import Stemmer  # PyStemmer: compiled Snowball stemmers, nothing downloaded

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CYRILLIC = re.compile(r"[а-я]")

STOPWORDS_RU = frozenset(
    """и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее мне было вот от
    меня еще нет о из ему теперь когда даже ну вдруг ли если уже или ни быть был него до вас нибудь опять уж вам
    ведь там потом себя ничего ей может они тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего
    раз тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь этом один почти мой тем
    чтобы нее сейчас были куда зачем всех никогда можно при наконец два об другой хоть после над больше тот через
    эти нас про всего них какая много разве три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя
    такой им более всегда конечно всю между это также которые который которая которых каждый какие какое какой
    ли нужно должен должна должны ли""".split()
)
STOPWORDS_EN = frozenset(
    """a an the and or but if of at by for with about against between into through during before after above below
    to from up down in out on off over under again further then once here there when where why how all any both
    each few more most other some such no nor not only own same so than too very s t can will just don should now
    is are was were be been being have has had having do does did doing i me my we our you your he him his she her
    it its they them their what which who whom this that these those am would could""".split()
)
# Negations and limits carry meaning for support checks; keep them out of the stop lists' effect.
KEEP = frozenset({"не", "нет", "ни", "без", "более", "менее", "not", "no", "nor", "more", "most", "only"})


@lru_cache(maxsize=2)
def _stemmer(language: str) -> Stemmer.Stemmer:
    return Stemmer.Stemmer(language)


def words(text: str) -> list[str]:
    """Lower-cased words with ё folded to е."""
    return [w.replace("ё", "е") for w in _WORD.findall(text.lower())]


def content_tokens(text: str, keep_negations: bool = False) -> list[str]:
    """Stems of the content words of text (Russian and English stemmed by their own Snowball)."""
    out = []
    ru, en = _stemmer("russian"), _stemmer("english")
    for word in words(text):
        stop = word in STOPWORDS_RU or word in STOPWORDS_EN
        if stop and not (keep_negations and word in KEEP):
            continue
        if len(word) < 2 and not word.isdigit():
            continue
        out.append(ru.stemWord(word) if _CYRILLIC.search(word) else en.stemWord(word))
    return out
