"""Another kind of the same thing: "предварительный медосмотр" against a fragment about
"периодические медицинские осмотры".

Word coverage stays high (the head noun and its context are held), so the coverage floors call
such a claim supported; the fragment is on the topic but states the rule for another kind. The
rule (modifier_conflict) fires when a claim adjective the fragments do not hold qualifies a head
noun they do hold, and there the fragment qualifies that head with an adjective of its own
that the claim does not hold. Adjectives only (pymorphy3's ADJF), not participles: a paraphrase
swaps participles freely («утверждённому» for «определённому»), kinds are named by adjectives;
and the adjective must agree with its head («прошедший обследование» is a verb's phrase).
Measured on the Russian dev, own and blind pairs (bench/judge_ru.py): it fired on six pairs,
none of them supported. On 720 pairs written later and measured before their misses were read
it flagged 12 supported claims for 6 caught, so since 2026-12-07 the two adjectives must name
kinds that exclude one another (_CONTRAST_GROUPS, or a kind and its negation); on the last 240
of those pairs, set aside while the others decided it, binary macro-F1 0.774 → 0.807.
"""

from __future__ import annotations

from collections.abc import Sequence

from evals.score.judges import lexicon as lx
from evals.score.judges.details import POINTING
from evals.text.lemmas import agrees, can_be, lemma, part_of_speech

# Adjectives that point or quantify rather than name a kind: the added-detail rule's pointers
# (details.POINTING) and the quantifiers and references a kind is never named by ("профильный":
# "of the body's own field", how an answer says "структурное подразделение … в сфере …").
POINTING_ADJECTIVES = POINTING | {"соответствующий", "профильный", "указанный", "следующий", "любой", "какой",
                                  "всякий", "никакой", "определённый", "определенный", "прочий", "остальной"}
# What may stand between two adjectives of one head ("предсменных (предрейсовых), послесменных …").
_BETWEEN = frozenset({"и", "или", "либо"})
HEAD_REACH = 3  # words from a claim adjective to its head noun
MODIFIER_REACH = 6  # words before a fragment's head that may still qualify it
# Kinds that exclude one another: the rule fires only on such a pair. Any other adjective the
# claim puts on the fragment's noun is, more often than not, paraphrase or a narrower kind
# ("психиатрическая помощь" of the fragment's "медицинская помощь", "посторонние лица" for
# "третьи лица"): on 720 pairs written after the rule (2026-12-07, each set measured before its
# misses were read) the open rule flagged 12 supported claims for 6 it caught; the two of the six
# that name such a pair are kept. By lemma; a kind and its negation ("неинтервенционный",
# "внеочередной", "негосударственный") contrast too.
_CONTRAST_GROUPS = (
    frozenset({"предварительный", "периодический", "внеочередной", "профилактический"}),
    frozenset({"локальный", "центральный", "региональный", "республиканский", "местный"}),
    frozenset({"государственный", "частный", "негосударственный"}),
    frozenset({"первичный", "повторный", "вторичный"}), frozenset({"плановый", "экстренный", "внеплановый"}),
    frozenset({"стационарный", "амбулаторный"}), frozenset({"платный", "бесплатный"}),
    frozenset({"обязательный", "добровольный"}), frozenset({"временный", "постоянный"}),
    frozenset({"письменный", "устный"}), frozenset({"полный", "частичный"}), frozenset({"детский", "взрослый"}),
    frozenset({"прижизненный", "посмертный"}), frozenset({"очный", "заочный", "дистанционный"}),
)
_CONTRASTS = {word: group for group in _CONTRAST_GROUPS for word in group}
_NEGATING_PREFIXES = ("не", "вне", "без", "бес")


def _contrast(a: str, b: str) -> bool:
    """Two adjectives (lemmas) that name kinds excluding one another."""
    if a == b:
        return False
    if b in _CONTRASTS.get(a, ()):
        return True
    return any(a == p + b or b == p + a for p in _NEGATING_PREFIXES)


def _kind_adjective(word: str) -> bool:
    # not a word that can be read as a participle too ("прошедший обследование" is a verb's phrase)
    return part_of_speech(word) == "ADJF" and not can_be(word, "PRTF") and lemma(word) not in POINTING_ADJECTIVES


def _head(words: Sequence[str], at: int) -> str | None:
    """The noun the adjective at `at` qualifies: the first noun after it, past other adjectives,
    when the two agree in case, number and gender."""
    for word in words[at + 1 : at + 1 + HEAD_REACH]:
        pos = part_of_speech(word)
        if pos == "NOUN":
            return word if agrees(words[at], word) else None
        if pos not in ("ADJF", "PRTF"):
            return None
    return None


def _modifiers(words: Sequence[str], at: int) -> list[str]:
    """The kind adjectives right before the noun at `at` (joined by "и", "или", "либо")."""
    found: list[str] = []
    for word in reversed(words[max(0, at - MODIFIER_REACH) : at]):
        if word in _BETWEEN:
            continue
        if part_of_speech(word) not in ("ADJF", "PRTF"):
            break
        if _kind_adjective(word):
            found.append(word)
    return found


def modifier_conflict(claim: str, evidence: str, missing_words: Sequence[str]) -> str | None:
    """The reason when the claim names another kind of a thing the fragment qualifies, else None.
    missing_words: the claim's content words no fragment holds by stem (the cheap pre-check)."""
    candidates = {w for w in missing_words if _kind_adjective(w)}
    if not candidates:
        return None
    claim_words = lx.words(claim)
    claim_keys = {k for w in claim_words for k in (lx.stem(w), lemma(w))}
    evidence_words = lx.words(evidence)
    for i, word in enumerate(claim_words):
        if word not in candidates:
            continue
        head = _head(claim_words, i)
        if head is None:
            continue
        head_stem, head_lemma = lx.stem(head), lemma(head)
        for j, other in enumerate(evidence_words):
            if lx.stem(other) != head_stem and lemma(other) != head_lemma:
                continue
            theirs = [m for m in _modifiers(evidence_words, j) if lx.stem(m) not in claim_keys
                      and lemma(m) not in claim_keys and _contrast(lemma(word), lemma(m))]
            if theirs:
                return f"claim speaks of {word} {head}, the fragment of {theirs[-1]} {other}"
    return None
