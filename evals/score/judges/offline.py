"""The offline support judge: deterministic, no model, nothing downloaded.

How it decides (each step says why in its reason):
1. cannot_judge when the claim has no words or the evidence no text.
2. Overlap: the claim's tokens (snowball stems, number words as digits) that sit inside a
   token bigram the evidence also has. score = share + beta·ln(1 + count): the share asks
   "how much of the claim is backed", the count "how much backing there is" (short claims
   get little from a share alone). Supported when score ≥ threshold and at least
   min_coverage of the claim's content words occur in the evidence (else partial). beta,
   threshold and min_coverage are the learned numbers (bench/judge_expertqa.py fits them by
   grid search; see DEFAULT_PARAMS).
3. Hard checks, because a wrong number, bound or negation flips a regulation's meaning
   while leaving word overlap high:
   - every number or date of the claim must occur in the evidence (digits or number words);
   - a bound on a number must not be reversed ("не реже 6" vs "не более 6");
   - a negation must not be flipped against the evidence sentence that matches the claim
     best ("проводится" vs "не проводится", "разрешается" vs "запрещается");
   - an obligation in the claim backed only by a permission is partial ("должен" vs "может").
4. Below the threshold: partial when at least half the claim's content words occur in the
   evidence, else unsupported.

Russian claims (more Cyrillic than Latin letters) are read by the regulation rules instead of
steps 2–4, each with its reason, all against the union of the cited fragments (a claim
backed by two citations together is backed):
- numbers by value, in digits or words, with their time unit and exact equivalences
  (data.text.missing_numbers, strict on units: "12 недель" is not "12 месяцев");
- bounds: "не реже"/"не чаще", "не более"/"не менее", "до"/"после"/"не раньше", "от … до",
  "16 лет и старше";
- negation in context (the answer's leading "Да,"/"Нет," is not one; words compared by the
  stem of their pymorphy3 lemma, "признаются" = "признаваться"), a negated word the fragment
  affirms, "бесплатно" against "на платной основе";
- modality: an obligation, a permission and a prohibition are three different rules;
- the actor: the claim names someone the fragment does not, while the fragment names another,
  or another decider ("решение … принимается X" against "решает Y");
- a cause ("потому что", "поскольку", "в связи с") the fragment does not state;
- another kind of the same thing (modifiers.py: "предварительный" against "периодические
  осмотры"); all of these make the claim unsupported;
- partial: an exception ("за исключением", "кроме"), restriction ("только"), condition
  ("при наличии …", "по решению …", a circumstance "при …" of the sentence the claim quotes, the
  last of requirements joined by "и"), restricting participle phrase or bounded number the claim
  drops in the part of the rule it is about (split at "; ", ". ", ", а также ", ", а "), a
  quantifier ("любой", "всегда") or a detail phrase or time (details.py: «в электронном виде»,
  «ежегодно», no fragment or the question holds it) it adds, or content words the fragment
  does not hold (Snowball stems; pymorphy3 lemmas measured no better, bench/judge_ru.py --lemmas).
Rules are read in that order and stop at the first that fires (extract_features every_rule
reads them all). A flag then gets a second look (second_look.py): where a model of how the rules
did on pairs they were not written from gives the flagged claim at least its threshold of
P(supported), the verdict is supported (the rules' reason kept in the new one). A batch of
PARALLEL_MIN_ITEMS or more is judged by forked workers.
Content coverage below RU_PARAMS.partial_coverage is unsupported (on the topic, not stating
the claim). The two coverage floors are the learned numbers (fit_ru_params on 970 Russian
pairs pooled, see RU_PARAMS; bench/judge_ru.py cross-validates them by source article).
"""

from __future__ import annotations

import gc
import math
import multiprocessing
import os
import sys
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import lru_cache

from evals.score.judges import calibration, second_look
from evals.score.judges import lexicon as lx
from evals.score.judges.base import JudgeInput, JudgeResult, SupportJudge
from evals.score.judges.details import JURISDICTION, added_detail
from evals.score.judges.modifiers import POINTING_ADJECTIVES, modifier_conflict
from evals.text.lemmas import lemma, part_of_speech
from evals.text.normalize import missing_numbers, split_sentences


@dataclass(frozen=True)
class OfflineParams:
    """beta, threshold and min_coverage are learned (bench/judge_expertqa.py); the rest are fixed by design."""

    beta: float
    threshold: float
    min_coverage: float = 0.0  # content-word share a supported claim needs (less: partial); learned too
    partial_coverage: float = 0.5  # content-word share that makes a below-threshold claim partial
    slope: float = 8.0  # spread of the reported score around the threshold (score 0.5 = threshold)


# Learned on ExpertQA domain_val (677 claim/passage pairs with expert labels; Complete =
# supported): `python bench/judge_expertqa.py PATH --fit` (grid search for macro-F1) picks
# these; the same script reports the cross-validated figures. The optimum is a flat ridge,
# so small changes here do not matter; the hard checks (numbers, bounds, negation) are not learned.
DEFAULT_PARAMS = OfflineParams(beta=0.22, threshold=0.4493, min_coverage=0.34)

# Stricter: a claim needs half its content words in the evidence to be supported, so a claim
# that adds a made-up detail to a backed phrase comes out partial. Costs about 0.04 macro-F1 on
# ExpertQA (whose experts accept loose paraphrase), buys fewer false "supported" on close-copy
# regulatory text. Not the default: the default follows the human labels.
STRICT_PARAMS = OfflineParams(beta=0.22, threshold=0.4493, min_coverage=0.5)

# Learned (offline.fit_ru_params) on 970 Russian claim/fragment pairs pooled: the dev pairs
# (../shared/data/ru-pairs/dev.jsonl, 160), bench/judge_ru_real.jsonl (392 over other articles of
# the real Health Code), judge_ru_own and the four blind sets (418). The dev pairs alone pick a
# floor of 0.10, which called claims holding a third of their words supported on the real-code
# sets; `python bench/judge_ru.py PATH` refits them in cross-validation grouped by source article.
# min_coverage: the share of the claim's content words the fragments must hold for "supported";
# partial_coverage: below it, "unsupported".
RU_PARAMS = OfflineParams(beta=0.0, threshold=0.0, min_coverage=0.35, partial_coverage=0.35)
RU_COVERAGE_GRID = tuple(round(0.05 * i, 2) for i in range(21))  # 0.00 … 1.00

# Negation and modality are compared only against an evidence sentence that holds at least
# this share of the claim's content words: elsewhere a "не" says nothing about the claim.
ALIGN_COVERAGE = 0.5
# A modality is held by a sentence nearer the topic too ("2. Отказ … не допускается" beside the
# duty the claim restates): one holding at least this share of the claim's content stems.
NEAR_COVERAGE = 0.25


@dataclass(frozen=True)
class OfflineFeatures:
    """What the offline judge measured on one unit."""

    tokens: int  # claim tokens
    matched: int  # claim tokens inside a bigram shared with the evidence
    content: int  # distinct content-word stems of the claim
    coverage: float  # share of those stems found anywhere in the evidence
    missing_numbers: tuple[str, ...]
    bound_conflicts: tuple[str, ...]
    negation_flips: tuple[str, ...]
    modality_gap: bool
    aligned: str | None  # the evidence sentence the cues were compared with
    lang: str = "en"  # "ru": the Russian regulation rules below were measured
    missing_words: tuple[str, ...] = ()  # claim content words no fragment holds (ru)
    modality_conflict: str | None = None  # reasons, set when the rule fired (ru)
    actor_conflict: str | None = None
    cause_added: str | None = None
    exception_dropped: str | None = None
    restriction_dropped: str | None = None
    universal_added: str | None = None
    condition_dropped: str | None = None
    qualifier_dropped: str | None = None  # a participle phrase restricting what the claim names (ru)
    bound_dropped: str | None = None  # a bounded number of the fragment the claim leaves out (ru)
    negation_unheld: str | None = None  # a negation of one side the other does not hold (ru)
    delegated: str | None = None  # the fragment leaves the content to a regulator (ru)
    roles_swapped: str | None = None  # the fragment's object made the doer (ru)
    modifier_conflict: str | None = None  # another kind of the thing the fragment qualifies (ru)
    detail_added: str | None = None  # a phrase no fragment states on an otherwise held claim (ru)

    @property
    def share(self) -> float:
        return self.matched / self.tokens if self.tokens else 0.0

    def overlap(self, beta: float) -> float:
        return self.share + beta * math.log1p(self.matched)


def _bigram_matched(claim: list[str], evidence: list[str]) -> int:
    shared = set(zip(evidence, evidence[1:], strict=False))
    covered = [False] * len(claim)
    for i in range(len(claim) - 1):
        if (claim[i], claim[i + 1]) in shared:
            covered[i] = covered[i + 1] = True
    return sum(covered)


def _align(claim_stems: set[str], evidence_texts: Sequence[str]) -> tuple[str | None, float]:
    """The evidence sentence holding the largest share of the claim's content stems."""
    best: tuple[str | None, float] = (None, 0.0)
    if not claim_stems:
        return best
    for text in evidence_texts:
        for sentence in split_sentences(text):
            norm = lx.english_forms(lx.prepare(sentence.text))
            share = len(claim_stems & set(lx.content_stems(norm))) / len(claim_stems)
            if share > best[1]:
                best = (norm, share)
    return best


def _polarity_flips(claim: str, evidence: str) -> list[str]:
    """Negation flipped in context, or prohibition against permission."""
    flips = lx.polarity_flips(claim, evidence)
    claim_rule = lx.deontic(claim)
    if {claim_rule, lx.deontic(evidence)} == {"prohibit", "permit"}:
        flips.append(f"claim {'prohibits' if claim_rule == 'prohibit' else 'permits'}, the evidence the opposite")
    return flips


def _bound_conflicts(claim: str, evidence: str) -> list[str]:
    bounded = [cue for cue in lx.number_cues(claim) if cue.bound != "none"]
    if not bounded:  # most claims: no bound, nothing to compare (the evidence is not read)
        return []
    evidence_bounds = lx.number_bounds(evidence, {cue.value for cue in bounded},
                                       {cue.value: cue.unit for cue in bounded if cue.unit is not None})
    conflicts = []
    opposite = {"lower": "upper", "upper": "lower"}
    for cue in bounded:
        if cue.value not in evidence_bounds:
            continue
        if evidence_bounds[cue.value] == {opposite[cue.bound]}:
            word = {"lower": "at least", "upper": "at most"}
            conflicts.append(f"claim says {word[cue.bound]} {cue.value}, evidence {word[opposite[cue.bound]]}")
    return conflicts


def extract_features(item: JudgeInput, every_rule: bool = False) -> OfflineFeatures | None:
    """Features of one unit, or None when there is nothing to compare. A Russian claim's rules
    are read until the first that decides the verdict; every_rule reads them all (slower: to see
    every rule that fires)."""
    claim = lx.prepare(item.claim)
    texts = [t for t in item.evidence if t and t.strip()]
    if not texts:
        return None
    if lx.is_russian(claim):
        return _russian_features(claim, texts, item.question, every_rule)
    claim = lx.english_forms(claim)
    evidence = lx.english_forms(lx.prepare("\n".join(texts)))
    claim_tokens = lx.token_stream(claim)
    stems = set(lx.content_stems(claim))
    if not claim_tokens or not evidence:
        return None
    evidence_tokens = lx.token_stream(evidence)
    evidence_stems = set(lx.content_stems(evidence))
    numbers = lx.number_values(evidence) | lx.word_numbers(evidence)
    missing = tuple(sorted(lx.number_values(claim, codes=False, spoken=False) - numbers, key=lambda v: (len(v), v)))
    aligned, aligned_share = _align(stems, texts)
    flips: list[str] = []
    modality_gap = False
    if aligned is not None and aligned_share >= ALIGN_COVERAGE:
        flips = _polarity_flips(claim, aligned)
        modality_gap = lx.has_must(claim) and lx.has_may(aligned) and not lx.has_must(aligned)
    return OfflineFeatures(
        tokens=len(claim_tokens),
        matched=_bigram_matched(claim_tokens, evidence_tokens),
        content=len(stems),
        coverage=len(stems & evidence_stems) / len(stems) if stems else 0.0,
        missing_numbers=missing,
        bound_conflicts=tuple(_bound_conflicts(claim, evidence)),
        negation_flips=tuple(flips),
        modality_gap=modality_gap,
        aligned=aligned,
    )


def _sentences(texts: Sequence[str]) -> list[str]:
    """The fragments' sentences in order, prepared (each text once: a chunk backs many claims)."""
    return [sentence for text in texts for sentence in _text_sentences(text)]


@lru_cache(maxsize=16384)
def _text_sentences(text: str) -> tuple[str, ...]:
    prepared = (lx.expand_abbreviations(lx.prepare(s.text)) for s in split_sentences(text))
    return tuple(norm for norm in prepared if norm)


@lru_cache(maxsize=65536)
def _stem_set(norm_text: str) -> frozenset[str]:
    return frozenset(lx.content_stems(norm_text))


def _context(sentences: list[str], shares: list[float], floor: float) -> list[str]:
    """The sentences a claim is about (those holding at least `floor` of the claim's content
    stems), each read after the list lead-in before it ("Беременные женщины обязаны: 1) …")."""
    picked: list[str] = []
    for i, sentence in enumerate(sentences):
        if shares[i] >= floor and shares[i] > 0:
            lead = next((s for s in reversed(sentences[:i]) if s.endswith(":")), None)
            unit = sentence if lead is None or lead == sentence else lead + " " + sentence
            if unit not in picked:
                picked.append(unit)
    return picked


def _closest(claim_tokens: list[str], sentences: list[str], shares: list[float]) -> str:
    """The sentence holding the claim best (its lead-in before it): most of the claim's content
    stems, then most of its words in shared bigrams (the sentence a verbatim quote quotes, not a
    neighbour on the same topic)."""
    top = max(shares)
    tied = [i for i, share in enumerate(shares) if share == top]
    if len(tied) > 1:
        matched = {i: _bigram_matched(claim_tokens, lx.token_stream(sentences[i])) for i in tied}
        tied = [i for i in tied if matched[i] == max(matched.values())]
    return " ".join(_context(sentences, [1.0 if i in tied else 0.0 for i in range(len(sentences))], 1.0))


def _russian_features(
    claim_raw: str, texts: list[str], question: str | None = None, every_rule: bool = False
) -> OfflineFeatures | None:
    claim = lx.expand_abbreviations(lx.strip_answer_particle(claim_raw))
    claim_tokens = lx.token_stream(claim)
    if not claim_tokens:
        return None
    sentences = _sentences(texts)
    evidence = " ".join(sentences)
    if not evidence:
        return None
    content = list(dict.fromkeys(lx.content_words(claim)))
    evidence_keys = lx.key_set(evidence)
    missing_words = tuple(w for w in content if not any(k in evidence_keys for k in lx.match_keys(w)))
    jurisdiction = {w for w in missing_words if lemma(w) in JURISDICTION}
    if jurisdiction:
        # "граждане РК", "в Республике Казахстан" where the fragment names no state: the state whose
        # law it is restates where the law holds, no word a fragment needs to state
        content = [w for w in content if w not in jurisdiction]
        missing_words = tuple(w for w in missing_words if w not in jurisdiction)
    claim_stems = {lx.stem(w) for w in lx.content_words(claim)}
    # the sentences the cues are compared with: those about the claim, else the best one
    stems_of = [_stem_set(s) for s in sentences]
    shares = [len(claim_stems & st) / len(claim_stems) if claim_stems else 0.0 for st in stems_of]
    best = max(range(len(sentences)), key=lambda i: shares[i])
    context_sentences = _context(sentences, shares, ALIGN_COVERAGE) or _context(sentences, shares, shares[best])
    context = " ".join(context_sentences)
    closest = _closest(claim_tokens, sentences, shares)
    measured = {
        "tokens": len(claim_tokens),
        "matched": _bigram_matched(claim_tokens, lx.token_stream(evidence)),
        "content": len(content),
        "coverage": (len(content) - len(missing_words)) / len(content) if content else 1.0,  # nothing left unbacked
        "aligned": sentences[best],
        "missing_words": missing_words,
    }
    # Each rule is a check run in the verdict's own order, and the reading stops at the first
    # that fires: once a claim is unsupported no later rule can change its verdict (under any
    # coverage floors), so it is not read (0.93–0.98 of the time on bench/judge_speed.py's pairs).
    hard_checks: dict[str, Callable[[], object]] = {
        "missing_numbers": lambda: tuple(missing_numbers(claim, texts, strict_units=True)),
        "bound_conflicts": lambda: tuple(_bound_conflicts(claim, evidence) + lx.event_order_conflicts(claim, evidence)
                                         + lx.frequency_conflicts(claim, evidence)
                                         + lx.opposite_bounds(claim, context)),
        "negation_flips": lambda: tuple(_russian_flips(claim, context_sentences, context)),
        # "не … без X", "нельзя, пока не X": a negation that restates a restriction (lexicon.only_with);
        # either side may hold the negation the other lacks
        "negation_unheld": lambda: None if lx.only_with(claim, context) else (
            lx.negation_unheld(claim, context) or lx.negation_dropped(claim, context)),
        "modality_conflict": lambda: None if lx.only_with(claim, context) else lx.modality_conflict(
            claim, context, " ".join(_context(sentences, shares, NEAR_COVERAGE)), evidence),
        "actor_conflict": lambda: lx.actor_conflict(claim, evidence),
        "cause_added": lambda: _cause_added(claim, evidence),
        "delegated": lambda: lx.delegated(claim, context, sum(map(_states_content, missing_words))),
        "roles_swapped": lambda: lx.roles_swapped(claim, context),
        "modifier_conflict": lambda: modifier_conflict(claim, evidence, missing_words),
    }
    partial_checks: dict[str, Callable[[], object]] = {
        "exception_dropped": lambda: lx.dropped_exception(claim, context),
        "restriction_dropped": lambda: lx.dropped_restriction(claim, context),
        "condition_dropped": lambda: (lx.dropped_condition(claim, context) or lx.dropped_circumstance(claim, closest)
                                      or lx.dropped_requirement(claim, context)),
        "universal_added": lambda: lx.added_universal(claim, evidence),
        "qualifier_dropped": lambda: lx.dropped_qualifier(claim, context),
        "bound_dropped": lambda: lx.dropped_bound(claim, context),
        "detail_added": lambda: added_detail(claim, sentences, missing_words, question),
    }
    assert tuple(hard_checks) == RU_HARD_RULES and tuple(partial_checks)[:-1] == RU_PARTIAL_RULES
    fired = _run_until_fired(hard_checks, every_rule)
    if every_rule or not any(fired.values()):
        fired |= _run_until_fired(partial_checks, every_rule)
    unread = {"missing_numbers": (), "bound_conflicts": (), "negation_flips": ()}  # the required fields, when not read
    return OfflineFeatures(modality_gap=False, lang="ru", **measured, **(unread | fired))  # type: ignore[arg-type]


def _states_content(word: str) -> bool:
    """A missing claim word that states content of its own: not a verb (paraphrase swaps verbs
    freely, "ведут" for "осуществляющими"), not a pointer ("профильного", "этого")."""
    return part_of_speech(word) not in _VERB_POS and lemma(word) not in POINTING_ADJECTIVES


_VERB_POS = frozenset({"VERB", "INFN", "PRTS", "GRND"})


def _run_until_fired(checks: dict[str, Callable[[], object]], every: bool = False) -> dict[str, object]:
    """The checks' results in order, up to and including the first that fires (non-empty)."""
    results: dict[str, object] = {}
    for name, check in checks.items():
        results[name] = check()
        if results[name] and not every:
            break
    return results


def _russian_flips(claim: str, context_sentences: list[str], context: str) -> list[str]:
    flips: list[str] = []
    for sentence in context_sentences:
        if lx.only_with(claim, sentence):  # "не … без X" is "только после X": no flip
            continue
        for flip in lx.polarity_flips_ru(claim, sentence):
            if flip not in flips:
                flips.append(flip)
    antonym = lx.prefix_antonyms(claim, context)
    if antonym is not None:
        flips.append(antonym)
    # what one side requires, bars or restricts, the other waives or widens
    for clash in (lx.barred_without(claim, context), lx.only_with_waived(claim, context),
                  lx.not_only_against_only(claim, context)):
        if clash is not None:
            flips.append(clash)
    return flips


def _cause_added(claim: str, evidence: str) -> str | None:
    said = lx.causes(claim)
    if said and not lx.causes(evidence):
        return f"claim gives a cause ('{said[0]}') the fragment does not state"
    return None


# The Russian rules in the order the verdict reads them: a hard rule makes the claim unsupported,
# a partial rule partial (then the detail check, details.py).
RU_HARD_RULES = ("missing_numbers", "bound_conflicts", "negation_flips", "negation_unheld", "modality_conflict",
                 "actor_conflict", "cause_added", "delegated", "roles_swapped", "modifier_conflict")
RU_PARTIAL_RULES = ("exception_dropped", "restriction_dropped", "condition_dropped", "universal_added",
                    "qualifier_dropped", "bound_dropped")


def _hard_reason(features: OfflineFeatures) -> str | None:
    """The first rule that makes a claim unsupported whatever its overlap, or None."""
    if features.missing_numbers:
        return "number not in evidence: " + ", ".join(features.missing_numbers[:3])
    if features.bound_conflicts:
        return features.bound_conflicts[0]
    if features.negation_flips:
        return "negation differs: " + features.negation_flips[0]
    for name in RU_HARD_RULES[3:]:  # the rules whose value is their reason
        reason = getattr(features, name)
        if reason is not None:
            return str(reason)
    return None


def _partial_reason(features: OfflineFeatures) -> str | None:
    for name in RU_PARTIAL_RULES:
        reason = getattr(features, name)
        if reason is not None:
            return str(reason)
    return None


def decide_russian(features: OfflineFeatures, params: OfflineParams = RU_PARAMS) -> JudgeResult:
    """The verdict on a Russian claim's features: hard rules, then coverage floors, then the
    partial rules; a flag the second look overturns (second_look.py) is supported."""
    result = rules_verdict(features, params)
    if result.value == "supported":
        return result
    table = second_look.shipped()
    kind = second_look.rule_kind(features, RU_HARD_RULES, RU_PARTIAL_RULES, params.partial_coverage)
    p = second_look.overturning(kind, second_look.overlap(features), table)
    if p is None:
        return result
    return JudgeResult("supported", result.score,
                       f"second look: {p:.0%} of claims so flagged were supported on pairs the rules were not "
                       f"written from (the rules: {result.reason})")


def rules_verdict(features: OfflineFeatures, params: OfflineParams = RU_PARAMS) -> JudgeResult:
    """The Russian rules' own verdict, before the second look."""
    score = round(features.coverage, 4)
    hard = _hard_reason(features)
    if hard is not None:
        return JudgeResult("unsupported", round(min(score, 0.1), 4), hard)
    shown = ", ".join(features.missing_words[:4])
    if features.coverage < params.partial_coverage:
        return JudgeResult(
            "unsupported", round(min(score, 0.2), 4),
            f"the fragment does not state the claim: {features.coverage:.0%} of its content words held"
            + (f" (missing: {shown})" if shown else ""),
        )
    partial = _partial_reason(features)
    if partial is not None:
        return JudgeResult("partial", round(min(score, 0.4), 4), partial)
    if features.coverage < params.min_coverage:
        return JudgeResult("partial", round(min(score, 0.4), 4), f"claim adds what the fragment does not hold: {shown}")
    if features.detail_added is not None:
        return JudgeResult("partial", round(min(score, 0.4), 4), features.detail_added)
    held = f"{features.coverage:.0%} of claim content words held"
    why = f"no number, bound, negation, modality, actor or cause disagrees; {held}"
    return JudgeResult("supported", score, why)


def is_supported_russian(features: OfflineFeatures, params: OfflineParams) -> bool:
    return (
        _hard_reason(features) is None
        and _partial_reason(features) is None
        and features.coverage >= params.min_coverage
        and features.detail_added is None
    )


def fit_ru_params(
    features: Sequence[OfflineFeatures | None], labels: Sequence[str], base: OfflineParams = RU_PARAMS
) -> OfflineParams:
    """Grid search of (min_coverage, partial_coverage) for binary macro-F1 (supported vs not),
    ties broken by three-way macro-F1; on the plateau that remains, the median floor (then the
    median partial floor under it): the optimum is flat, its middle generalises best."""
    from evals.score.judges.metrics import macro_f1

    truth = [label == "supported" for label in labels]
    scored: list[tuple[float, float, float, float]] = []  # (binary, three-way, floor, partial)
    for floor in RU_COVERAGE_GRID:
        for partial in RU_COVERAGE_GRID:
            if partial > floor:
                continue
            params = replace(base, min_coverage=floor, partial_coverage=partial)
            pred = [decide(f, params).value for f in features]
            binary = macro_f1(truth, [p == "supported" for p in pred], labels=(True, False)).value or 0.0
            three = macro_f1(list(labels), pred, labels=("supported", "partial", "unsupported")).value or 0.0
            scored.append((round(binary, 9), round(three, 9), floor, partial))
    top = max((b, t) for b, t, _, _ in scored)
    plateau = [(f, p) for b, t, f, p in scored if (b, t) == top]
    floors = sorted({f for f, _ in plateau})
    floor = floors[(len(floors) - 1) // 2]
    partials = sorted(p for f, p in plateau if f == floor)
    return replace(base, min_coverage=floor, partial_coverage=partials[(len(partials) - 1) // 2])


def decide(features: OfflineFeatures | None, params: OfflineParams = DEFAULT_PARAMS) -> JudgeResult:
    """The verdict for measured features (kept apart from extract_features so calibration can
    re-decide cached features under other parameters)."""
    if features is None:
        return JudgeResult("cannot_judge", None, "no claim words or no evidence text to compare")
    if features.lang == "ru":
        return decide_russian(features, params)
    overlap = features.overlap(params.beta)
    score = 1.0 / (1.0 + math.exp(-params.slope * (overlap - params.threshold)))
    basis = f"{features.matched}/{features.tokens} claim tokens in phrases shared with the evidence"
    if features.missing_numbers:
        shown = ", ".join(features.missing_numbers[:3])
        return JudgeResult("unsupported", round(min(score, 0.1), 4), f"number not in evidence: {shown}")
    if features.bound_conflicts:
        return JudgeResult("unsupported", round(min(score, 0.1), 4), features.bound_conflicts[0])
    if features.negation_flips:
        return JudgeResult("unsupported", round(min(score, 0.1), 4), "negation differs: " + features.negation_flips[0])
    if overlap >= params.threshold:
        if features.coverage < params.min_coverage:
            return JudgeResult(
                "partial", round(min(score, 0.4), 4),
                f"{basis}, but only {features.coverage:.0%} of claim words are in the evidence",
            )
        if features.modality_gap:
            why = "claim states an obligation, the evidence a permission"
            return JudgeResult("partial", round(min(score, 0.4), 4), why)
        return JudgeResult("supported", round(score, 4), f"{basis} (overlap {overlap:.2f} ≥ {params.threshold:.2f})")
    if features.content and features.coverage >= params.partial_coverage:
        return JudgeResult(
            "partial", round(score, 4),
            f"{features.coverage:.0%} of claim words in evidence, but {basis} (overlap {overlap:.2f})",
        )
    return JudgeResult("unsupported", round(score, 4), f"{basis}; {features.coverage:.0%} of claim words in evidence")


def is_supported(features: OfflineFeatures | None, params: OfflineParams) -> bool:
    """decide(features, params).value == "supported", without building the result (calibration
    calls this millions of times)."""
    if features is not None and features.lang == "ru":
        return is_supported_russian(features, params)
    return (
        features is not None
        and not (features.missing_numbers or features.bound_conflicts or features.negation_flips)
        and not features.modality_gap
        and features.coverage >= params.min_coverage
        and features.overlap(params.beta) >= params.threshold
    )


def hard_rule(features: OfflineFeatures) -> bool:
    """A rule that makes the claim unsupported whatever its overlap fired (a number, bound,
    negation, modality, actor or cause)."""
    if features.lang == "ru":
        return _hard_reason(features) is not None
    return bool(features.missing_numbers or features.bound_conflicts or features.negation_flips)


def calibration_vector(features: OfflineFeatures, value: str) -> list[float]:
    return calibration.feature_vector(features, value, hard_rule(features))


@lru_cache(maxsize=4)
def _shipped_weights(lang: str) -> tuple[float, ...]:
    """The shipped coefficients, read and checked once a language."""
    return tuple(calibration.shipped_weights(lang))


def calibrated(features: OfflineFeatures | None, result: JudgeResult) -> JudgeResult:
    """The verdict with its score replaced by the shipped calibration's P(supported)."""
    if features is None or result.score is None:
        return result
    weights = _shipped_weights(features.lang)
    p = calibration.probability(calibration_vector(features, result.value), weights)
    return replace(result, score=round(p, 4))


# A batch this large is judged by worker processes (one per core): the rules are pure Python, so
# threads would not help, and below this size starting the workers costs more than they save
# (bench/judge_speed.py --workers measures both).
PARALLEL_MIN_ITEMS = 5000

# The batch forked workers judge. Forked, not spawned: a spawned worker re-runs the caller's
# main script (an unguarded script would start again, a script read from stdin breaks it),
# while a forked one starts as a copy of this process, its caches warm, and reads the batch
# from here instead of having it pickled over. One batch at a time (the lock): it is shared.
_batch: tuple[OfflineJudge, Sequence[JudgeInput]] | None = None
_batch_lock = threading.Lock()


def _judge_slice(bounds: tuple[int, int]) -> list[JudgeResult]:
    assert _batch is not None  # set before the workers were forked
    judge, items = _batch
    with _no_cycle_collection():
        return [judge.judge_one(item) for item in items[bounds[0]:bounds[1]]]


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused for a batch: the judge makes no reference cycles (its
    values are freed by reference counting alone), while its caches hold a few hundred thousand
    objects that every full collection would walk again (7-15 % of a 50,000-pair run,
    bench/judge_speed.py)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def available_cores() -> int:
    """The cores this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class OfflineJudge(SupportJudge):
    """The default judge: deterministic lexical support with number, bound and negation checks,
    and the Russian regulation rules for Russian claims (their own learned numbers, ru_params).

    workers: processes for a batch of at least PARALLEL_MIN_ITEMS (None: one per available core,
    1: always in this process); the verdicts are the same either way."""

    def __init__(
        self, params: OfflineParams = DEFAULT_PARAMS, name: str = "offline", ru_params: OfflineParams = RU_PARAMS,
        workers: int | None = None,
    ) -> None:
        self.params = params
        self.ru_params = ru_params
        self.name = name
        self.workers = workers

    def judge_one(self, item: JudgeInput) -> JudgeResult:
        features = extract_features(item)
        result = decide(features, self.ru_params if features is not None and features.lang == "ru" else self.params)
        return calibrated(features, result)

    def judge(self, items: Sequence[JudgeInput]) -> list[JudgeResult]:
        workers = self.workers if self.workers is not None else available_cores()
        # fork only where it is the platform's own way (Linux); elsewhere one process
        if workers > 1 and len(items) >= PARALLEL_MIN_ITEMS and sys.platform == "linux":
            if _batch_lock.acquire(blocking=False):  # another thread's batch is running: judge here
                try:
                    return self._judge_in_workers(items, workers)
                except (OSError, BrokenProcessPool):  # no process pool here (a sandbox without semaphores)
                    pass
                finally:
                    _batch_lock.release()
        with _no_cycle_collection():
            return [self.judge_one(item) for item in items]

    def _judge_in_workers(self, items: Sequence[JudgeInput], workers: int) -> list[JudgeResult]:
        global _batch
        size = max(1, math.ceil(len(items) / (workers * 8)))  # small enough to even out the workers' loads
        slices = [(start, min(start + size, len(items))) for start in range(0, len(items), size)]
        _batch = (self, items)
        try:
            with warnings.catch_warnings():
                # Python 3.12+ warns on forking a process that has threads; the workers only run
                # the judge's pure-Python rules and take no lock another thread could hold
                warnings.simplefilter("ignore", DeprecationWarning)
                with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
                    return [result for part in pool.map(_judge_slice, slices) for result in part]
        finally:
            _batch = None

    async def ajudge(self, items: Sequence[JudgeInput]) -> list[JudgeResult]:
        return self.judge(items)

    def with_params(self, **changes: float) -> OfflineJudge:
        return OfflineJudge(replace(self.params, **changes), self.name, self.ru_params, self.workers)  # type: ignore[arg-type]
