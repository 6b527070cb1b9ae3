"""Added details: a claim that states everything the fragment states, plus a fact of its own.

"Выписку выдают в электронном виде в течение трёх дней" against a fragment that says only
"в течение трёх дней": the claim is held except for «в электронном виде». Word coverage stays
high, so the coverage floors call it supported; this rule calls it partial.

The rule (added_detail) fires when the claim's words the fragment does not hold — neither its
Snowball stem nor its pymorphy3 lemma occurs in the fragments or the question — are
- nouns, adjectives, participles or adverbs (verbs are where paraphrase lives: «ведут» for
  «осуществляется»), not pronoun-like adjectives («тот», «иной», «который»);
- one phrase: at least two such words in a row in the claim, joined at most by one preposition
  or conjunction between each («давление и пульс», «в электронном виде»);
- everything there is unheld: no other such word is missing anywhere in the claim (a
  paraphrase leaves its unheld words scattered; an added detail is one phrase on a held claim);
- not where the claim begins (the subject restated in other words, «Невакцинированного малыша
  примут …», is paraphrase, not a detail), unless the claim opens with a preposition (a
  circumstance, «В прививочном кабинете …», is added, not restated);
- an inclusion marker before an unheld word («включая флюорографию») is a detail on its own,
  unless the fragment lists instances too; a Latin word names something («портал egov»);
  pointers («своём», «вашей») join a phrase.
One exception to "everything there is unheld": a phrase that ends the claim (its last content
word is the phrase's) may sit beside up to MAX_OTHER_AT_END scattered unheld words, because an
answer appends its own facts at the end («…, обычно в форме факультативных занятий») while
paraphrasing the rest; mid-claim, scattered unheld words are paraphrase.
Measured on the Russian dev pairs per kind (bench/judge_ru.py, 5-fold CV by article).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from evals.score.judges import lexicon as lx
from evals.text import numerals
from evals.text.lemmas import lemma, part_of_speech
from evals.text.normalize import extract_numbers

# OpenCorpora tags of the words a detail is made of (nouns, adjectives, participles, adverbs).
_DETAIL_POS = frozenset({"NOUN", "ADJF", "ADJS", "PRTF", "PRTS", "ADVB", "COMP", "GRND"})
# Adjectives that point rather than describe: never a detail of their own.
POINTING = frozenset({"тот", "иной", "другой", "который", "этот", "такой", "весь", "свой", "каждый", "сам",
                       "самый", "один", "данный", "настоящий", "ваш", "наш", "мой", "твой"})
# The state whose law a fragment is: "в РК", "Республики Казахстан" restate where the law holds
# (the Code names the Republic where it needs to), they add no detail.
JURISDICTION = frozenset({"республика", "казахстан"})
# The Code's "уполномоченный орган" is the one in the field of health care (its definitions): an
# answer that names the field restates the body, it adds nothing.
_HEALTH_BODY_RE = re.compile(r"(?<!\w)уполномоченн\w* орган\w* в (област\w*|сфер\w*) (здравоохранени\w*)")
# What may sit between two words of one phrase (one at a time).
_GLUE = frozenset({"и", "или", "в", "во", "на", "с", "со", "по", "для", "при", "из", "от", "к", "о", "об", "а",
                   "также", "либо"})
_LEADING_PREPOSITIONS = frozenset({"в", "во", "на", "по", "при", "из", "через", "для", "после", "перед"})
MIN_PHRASE = 2  # words in the unheld phrase
MAX_OTHER = 0  # unheld words elsewhere in the claim
MAX_OTHER_AT_END = 3  # the same, when the phrase ends the claim (dev: 3/6 → 4/6, no supported pair lost)


@lru_cache(maxsize=16384)
def _lemma_set(norm_text: str) -> frozenset[str]:
    return frozenset(lemma(w) for w in lx.words(norm_text))


_LATIN_NAME = re.compile(r"[a-z][a-z0-9]+")


def _detail_word(word: str) -> bool:
    if _LATIN_NAME.fullmatch(word):  # a Latin word in a Russian claim names something ("портал egov")
        return True
    key = lemma(word)
    return key not in POINTING and key not in JURISDICTION and part_of_speech(word) in _DETAIL_POS


# personal pronouns inside a phrase ("ведущийся им реестр", "в его карте")
_PERSONAL = frozenset({"его", "ее", "её", "их", "им", "ими", "ему", "ей", "ним", "него", "нее", "неё", "них"})


def _phrases(claim: str, unheld: set[str]) -> tuple[list[list[str]], list[list[str]]]:
    """Runs of unheld words in the claim (one joining word allowed between two), the run that
    starts at the claim's first content word left out; each also as the claim says it."""
    content = set(lx.content_words(claim))
    claim_words = lx.words(claim)
    # a claim that opens with a preposition opens with a circumstance ("В противотуберкулёзном
    # диспансере …", "По справке из …"), not with its subject restated: its first run counts too
    opens_with_circumstance = bool(claim_words) and claim_words[0] in _LEADING_PREPOSITIONS
    phrases: list[list[str]] = []
    shown: list[list[str]] = []  # the phrases as the claim says them, joining words kept
    current: list[str] = []
    said: list[str] = []
    glued = False
    first_content = True
    started_first = False
    for word in [*claim_words, ""]:  # "" closes the last run
        if word and word in unheld:
            if not current:
                started_first = first_content and not opens_with_circumstance
            current.append(word)
            said.append(word)
            glued = False
        elif word in _GLUE and current and not glued:
            said.append(word)
            glued = True
        elif current and (lemma(word) in POINTING or word in _PERSONAL):
            # a pointer joins, as glue does: "на своём интернет-ресурсе", "в ведущийся им реестр"
            said.append(word)
        else:
            if current and not started_first:
                phrases.append(current)
                while said and said[-1] not in current:  # no joining word or pointer at the end
                    said.pop()
                shown.append(said)
            current, said, glued = [], [], False
        if word in content:
            first_content = False
    return phrases, shown


# Words by which a claim itself adds an instance: "включая флюорографию", "в том числе ночью".
# (a comma may follow the marker: "в частности, Национальный центр …")
_INCLUSION_RE = re.compile(r"(?<!\w)(включая|в том числе|например|в частности),?\s+(?:[^\W\d_]+\s+)?([^\W\d_]+)")


# a fragment that is a list's item ("3) развитие производства …") is one instance of a list
_LIST_ITEM_RE = re.compile(r"\s*\d{1,3}\)\s")


def _included(claim: str, candidates: set[str]) -> list[tuple[str, str]]:
    """(marker, word) for each inclusion marker whose first or second next word is a candidate."""
    if not any(m in claim for m in ("включая", "в том числе", "например", "в частности")):
        return []
    found = []
    for match in _INCLUSION_RE.finditer(claim):
        following = claim[match.end(1):match.end(1) + 60].split()[:2]
        word = next((lx.words(w)[0] for w in following if lx.words(w) and lx.words(w)[0] in candidates), None)
        if word is not None:
            found.append((match.group(1), word))
    return found


# A frequency or a time limit the claim states ("ежегодно", "в течение месяца") where the
# fragments state no time at all: a deadline or a rhythm of the claim's own.
_FREQUENCY_RE = re.compile(r"(?<!\w)(?:(?:ежегодн|ежемесячн|еженедельн|ежедневн|ежеквартальн|круглосуточн)\w*|"
                           r"раза? в (?:год|полгода|полугодие|квартал|месяц|неделю|день|сутки|смену)(?!\w))")
# ("раз" as a word: "размещению" states no time)
_ANY_TIME_RE = re.compile(r"(?<!\w)(?:раза?(?!\w)|(?:ежегодн|ежемесячн|еженедельн|ежедневн|ежеквартальн|круглосуточн|"
                          r"срок|период|немедленн|незамедлительн|безотлагательн|своевременн)\w*)")


# A term the fragment names only as set elsewhere ("в установленный срок", "в сроки, определенные
# …") states no time: a duration the claim gives it is the claim's own.
_TERM_SET_ELSEWHERE_RE = re.compile(r"(?<!\w)(?:(?:установленн|определенн|предусмотренн)\w* срок\w*|"
                                    r"срок\w*,? (?:установленн|определенн|предусмотренн)\w*)")


_NEXT_WORD_RE = re.compile(r"\s+([^\W\d_]+)")


def _names_a_day(text: str, start: int, end: int) -> bool:
    """ "в день донации", "на день выписки": the day of an event, not a duration of one day."""
    if text[start:end] not in ("день", "дни") or not text[:start].endswith(("в ", "на ")):
        return False
    after = _NEXT_WORD_RE.match(text, end)
    return after is not None and part_of_speech(after.group(1)) == "NOUN"


def _added_time(claim: str, evidence: Sequence[str]) -> str | None:
    found = _FREQUENCY_RE.search(claim)
    said = found.group(0) if found else None
    if said is None:
        bare = [b for b in numerals.bare_durations(claim) if not _names_a_day(claim, b[0], b[1])]
        said = claim[bare[0][0] : bare[0][1]] if bare else None
    if said is None:
        return None
    for text in evidence:
        if "срок" in text:
            text = _TERM_SET_ELSEWHERE_RE.sub(" ", text)
        if (_ANY_TIME_RE.search(text) or numerals.bare_durations(text)
                or any(m.unit is not None for m in extract_numbers(text))):
            return None
    return f"claim adds a detail the fragment does not state: {said}"


def added_detail(claim: str, evidence: Sequence[str], missing_words: Sequence[str],
                 question: str | None = None) -> str | None:
    """The reason when the claim adds a detail phrase the fragments (prepared sentences) do
    not state, else None. missing_words: the claim's content words whose stem no fragment
    holds (the cheap pre-check: most claims have fewer than two, and the fragments are
    lemmatised only when a phrase of them is there)."""
    timed = _added_time(claim, evidence) if missing_words else None
    if timed is not None:
        return timed
    if missing_words:  # a body's name is content words of its own: none missing, none added
        asked = [lx.expand_abbreviations(lx.prepare(question))] if question else []
        body = lx.added_body(claim, [*evidence, *asked])
        if body is not None:
            return body
    candidates = {w for w in missing_words if _detail_word(w)}
    if candidates and "уполномоченн" in claim:
        candidates -= {w for m in _HEALTH_BODY_RE.finditer(claim) for w in m.groups()}
    included = _included(claim, candidates)
    if len(candidates) < MIN_PHRASE and not included:
        return None
    phrases, _ = _phrases(claim, candidates)
    if not any(len(p) >= MIN_PHRASE for p in phrases) and not included:
        return None
    texts = [*evidence, lx.prepare(question)] if question else list(evidence)
    stems = frozenset(k for text in texts for k in lx.key_set(text))
    lemmas = frozenset(k for text in texts for k in _lemma_set(text))
    unheld = {w for w in candidates if lx.stem(w) not in stems and lemma(w) not in lemmas}
    # the fragment lists its own instances ("в том числе медикаментозное"): the claim may reword them
    mirrored = any(_INCLUSION_RE.search(text) or _LIST_ITEM_RE.match(text) for text in evidence) if included else False
    for marker, word in included:
        if word in unheld and not mirrored:  # "включая флюорографию": the claim says itself that it adds
            return f"claim adds a detail the fragment does not state: {marker} {word}"
    if len(unheld) < MIN_PHRASE:
        return None
    phrases, shown = _phrases(claim, unheld)
    if not phrases:
        return None
    longest = max(range(len(phrases)), key=lambda i: len(phrases[i]))
    if len(phrases[longest]) >= MIN_PHRASE and len(unheld - set(phrases[longest])) <= MAX_OTHER:
        return "claim adds a detail the fragment does not state: " + " ".join(shown[longest])
    content = lx.content_words(claim)
    last = phrases[-1]
    if (len(last) >= MIN_PHRASE and content and content[-1] == last[-1]
            and len(unheld - set(last)) <= MAX_OTHER_AT_END):
        return "claim adds a detail the fragment does not state: " + " ".join(shown[-1])
    return None
