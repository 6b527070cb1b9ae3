"""`default`, the recommended matcher (DESIGN 9): a cascade.

1. `block` where the streamed block survives: its alignment of block_text into the answer, when
   the alignment score reaches `block_min`, is the place (an anchor).
2. Otherwise a fallback built for paraphrase and for citations without block_text. Each
   candidate place (the answer's sentences and clauses, and the pieces between its commas)
   scores by
   - the dictionary lemmas it shares with the citation (pymorphy3, evals.text.lemmas: «выдаёт»
     and «выдается» are one word, stems are not enough for «лист»/«листа»), weighted by how
     rare each lemma is among the answer's sentences, as an F-measure against the best-matching
     clause of the cited text and of the streamed block;
   - its numbers read as values (evals.text.normalize.extract_numbers: «трёх месяцев» = «3
     месяцев», «раз в полгода» = «6 месяцев»): a number of the place that the source lacks
     counts against it, a shared one for it;
   - the citation order: the API emits citations in the order of their blocks, so a place
     before the previous anchor or after the next one costs `order_penalty`.
   Then one assignment over the answer's citations (Hungarian, scipy's linear_sum_assignment):
   each clause gets at most one citation, so a passage cited twice goes to two places and two
   citations of one sentence to its two clauses. A place scoring below `fallback_min` is left
   out.

Scores are put on one scale: an anchor scores 0.5 + (alignment − block_min), a fallback place
0.5 + (score − fallback_min), clipped to [0, 1]; the threshold is 0.5. So the one tuned set
(block_min, fallback_min) is what `quotes eval --tune` moves, and the wrong-place cap holds for
the cascade as a whole. The shipped values come from tune_cascade on the tuning part of the
demo's realistic set (README: which matcher).

Cost (bench/quotes.py part 4): a cited text's clause lemmas and numbers are computed once per
text and cached (the same chunk backs many citations and answers); an answer's words are looked
up and its numbers read once for all its candidate places, and each clause's weighted size once
per citation.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import repeat
from typing import cast

from evals.contract.quotes import NOTHING, Placement, QuoteAnswer, QuoteCitation, Span
from evals.quotes.block import BlockMatcher
from evals.quotes.boundaries import IOU_CORRECT, iou, overlaps, settle, snap_span
from evals.quotes.fragments import split_fragments
from evals.text.lemmas import lemma
from evals.text.normalize import extract_numbers
from evals.text.tokens import is_stopword, words

NAME = "default"
# lemmas of a routing line: what a bot writes where post-processing removed a claim and sent the
# reader elsewhere («Подробнее — в канцелярии», «Уточните у старшей медсестры»)
ROUTING = frozenset("уточнить обратиться подробный позвонить звонить написать спросить узнать рассказать".split())
THRESHOLD = 0.5
_WORD_RE = re.compile(r"[^\W_]+", re.UNICODE)  # evals.text.tokens.words' tokens
_NONE = frozenset([None])
_FORBIDDEN = -10.0  # a place the assignment must not give (it overlaps a better one)


@dataclass(frozen=True)
class CascadeParams:
    block_min: float = 0.98  # block alignment score at which the streamed block is taken as surviving
    fallback_min: float = 0.268824  # fallback score below which nothing is placed
    number_bonus: float = 0.12  # per shared number (share of the place's numbers)
    number_penalty: float = 0.35  # the place states numbers the source does not have
    order_penalty: float = 0.2  # the place breaks the citation order against an anchor
    block_weight: float = 0.6  # weight of the streamed block's evidence when the citation has one
    piece_penalty: float = 0.08  # a piece between commas, not a sentence or clause of its own
    routing_penalty: float = 0.25  # a routing line («уточните в канцелярии») the source does not state


PARAMS = CascadeParams()


# --- text features ------------------------------------------------------------------------


@lru_cache(maxsize=65536)
def _lemma_set(text: str) -> frozenset[str]:
    return frozenset(lemma(w) for w in words(text) if not w.isdigit() and not is_stopword(w))


@lru_cache(maxsize=65536)
def _numbers(text: str) -> frozenset[str]:
    return frozenset(m.value for m in extract_numbers(text))


@lru_cache(maxsize=4096)
def _clauses(text: str) -> tuple[str, ...]:
    """The cited text's own sentences and clauses (and the whole), to measure recall against."""
    pieces = [text[f.start : f.end] for f in split_fragments(text)]
    return tuple(dict.fromkeys([text, *pieces]))


@lru_cache(maxsize=1024)
def candidate_spans(text: str) -> tuple[tuple[Span, bool], ...]:
    """Sentences and clauses (evals.quotes.fragments) plus the pieces between a sentence's
    commas that hold three words or more (flagged True); each ends at a clause boundary."""
    spans: list[tuple[Span, bool]] = []
    seen: set[Span] = set()
    raw: set[Span] = set()  # a span met again snaps to the same place, already seen
    for fragment in split_fragments(text):
        for k, span in enumerate(_with_comma_pieces(text, fragment.span)):
            if span in raw:
                continue
            raw.add(span)
            snapped = snap_span(text, span)
            if snapped is not None and snapped not in seen:
                seen.add(snapped)
                spans.append((snapped, k > 0))
    return tuple(spans)


def _with_comma_pieces(text: str, span: Span) -> list[Span]:
    out = [span]
    start = span[0]
    cuts = []
    i = text.find(", ", span[0], span[1])
    while i >= 0:  # a comma followed by a space, both inside the span
        cuts.append(i)
        i = text.find(", ", i + 1, span[1])
    if not cuts:
        return out
    bounds = [start, *[c + 1 for c in cuts], span[1]]
    for a, b in zip(bounds, bounds[1:], strict=False):
        piece_end = b - 1 if b != span[1] else b
        if sum(1 for w in _WORD_RE.findall(text[a:piece_end].lower()) if len(w) > 2 or w.isdigit()) >= 3:
            out.append((a, piece_end))
    return out


def _weighted(lemmas: frozenset[str], weights: dict[str, float]) -> float:
    return sum(map(weights.get, lemmas, repeat(1.0)))  # weights.get(x, 1.0) of each, in C


@dataclass(frozen=True)
class _Source:
    """A cited text's (or streamed block's) features, computed once per text: they repeat
    across citations and answers (the same chunk backs many)."""

    clauses: tuple[frozenset[str], ...]  # lemma sets of its clauses and of the whole
    whole: frozenset[str]
    numbers: frozenset[str]


@lru_cache(maxsize=16384)
def _source(text: str) -> _Source:
    return _Source(tuple(_lemma_set(c) for c in _clauses(text)), _lemma_set(text), _numbers(text))


class _Evidence:
    """A source under one answer's weights: the weighted size of each clause is summed once,
    not once per candidate place."""

    def __init__(self, source: _Source, weights: dict[str, float]) -> None:
        self.source = source
        self.weights = weights
        self.sizes = [(c, _weighted(c, weights)) for c in source.clauses]

    def lexical(self, place: frozenset[str], place_size: float) -> float:
        """F-measure of the place's lemmas against the best-matching clause of the source,
        blended with the share of the place's lemmas the whole source has (a place
        paraphrasing two of its clauses)."""
        if not place:
            return 0.0
        weights = self.weights
        best = 0.0
        for clause, size in self.sizes:
            shared = place & clause
            if not shared:  # f = 0: best stays (every weight is above 0)
                continue
            common = _weighted(shared, weights)
            precision = common / place_size
            recall = common / size
            f = 2 * precision * recall / (precision + recall)
            best = f if f > best else best
        precision = _weighted(place & self.source.whole, weights) / place_size
        return 0.5 * best + 0.5 * precision * min(1.0, len(place) / 4)


def _number_score(place_numbers: frozenset[str], source_numbers: frozenset[str], params: CascadeParams) -> float:
    if not place_numbers:
        return 0.0
    shared = len(place_numbers & source_numbers) / len(place_numbers)
    alien = len(place_numbers - source_numbers) / len(place_numbers)
    return params.number_bonus * shared - params.number_penalty * alien


@dataclass(frozen=True)
class _Place:
    lemmas: frozenset[str]
    size: float  # weighted by the answer's idf
    numbers: frozenset[str]


@lru_cache(maxsize=200_000)
def _word_key(word: str) -> str | None:
    """A word's lemma as _lemma_set counts it; None for a number or a stop word."""
    return None if word.isdigit() or is_stopword(word) else lemma(word)


def _span_lemmas(text: str, spans: Sequence[Span]) -> list[frozenset[str]]:
    """_lemma_set of each span, its words looked up once for the whole answer (the candidate
    places overlap: a sentence, its clauses, the pieces between its commas). A span whose edge
    falls inside a word is read on its own."""
    low = text.lower()
    if len(low) != len(text):  # a character whose lower case is longer: positions shift
        return [_lemma_set(text[a:b]) for a, b in spans]
    found = list(_WORD_RE.finditer(low.replace("ё", "е")))  # same length: positions hold
    starts = [m.start() for m in found]
    ends = [m.end() for m in found]
    keys = [_word_key(m.group(0)) for m in found]
    out = []
    for a, b in spans:
        i = bisect_left(starts, a)
        j = bisect_left(starts, b)
        if (i > 0 and ends[i - 1] > a) or (j > 0 and ends[j - 1] > b):
            out.append(_lemma_set(text[a:b]))  # an edge inside a word
            continue
        out.append(cast(frozenset[str], frozenset(keys[i:j]) - _NONE))
    return out


def _places(
    text: str, spans: Sequence[Span], lemma_sets: Sequence[frozenset[str]], weights: dict[str, float]
) -> list[_Place]:
    """Each span's lemmas, weighted size and numbers. The numbers are read once over the whole
    answer and each span takes those inside it (spans end at clause boundaries, never inside a
    number phrase, so a span cuts none)."""
    mentions = [(m.start, m.end, m.value) for m in extract_numbers(text)]
    out = []
    none: frozenset[str] = frozenset()
    for (start, end), lemmas in zip(spans, lemma_sets, strict=True):
        numbers = frozenset(v for a, b, v in mentions if a >= start and b <= end) if mentions else none
        out.append(_Place(lemmas, _weighted(lemmas, weights), numbers))
    return out


def fallback_scores(
    text: str, spans: Sequence[Span], citation: QuoteCitation, weights: dict[str, float], params: CascadeParams,
    places: Sequence[_Place] | None = None,
) -> list[float]:
    """The paraphrase score of each candidate place for one citation (places: the spans'
    features, when the caller has them for all its citations)."""
    if places is None:
        places = _places(text, spans, _span_lemmas(text, spans), weights)
    cited = _source(citation.cited_text)
    block_text = (citation.block_text or "").strip()
    block = _source(block_text) if block_text else None
    source_numbers = cited.numbers | (block.numbers if block else frozenset())
    on_cited = _Evidence(cited, weights)
    on_block = _Evidence(block, weights) if block else None
    out = []
    for place in places:
        lexical = on_cited.lexical(place.lemmas, place.size)
        if on_block is not None:
            lexical = (1 - params.block_weight) * lexical + params.block_weight * on_block.lexical(
                place.lemmas, place.size
            )
        routing = params.routing_penalty if (place.lemmas & ROUTING) - cited.whole else 0.0
        out.append(lexical + _number_score(place.numbers, source_numbers, params) - routing)
    return out


def _idf(lemma_sets: Sequence[frozenset[str]]) -> dict[str, float]:
    """A lemma in many of the answer's places tells them apart less: log(1 + n / df)."""
    df: Counter[str] = Counter()
    for lemmas in lemma_sets:
        df.update(lemmas)
    n = max(1, len(lemma_sets))
    return {x: math.log(1 + n / d) / math.log(1 + n) for x, d in df.items()}


# --- the cascade --------------------------------------------------------------------------


def _scaled(score: float, floor: float) -> float:
    return round(min(1.0, max(0.0, THRESHOLD + score - floor)), 6)


class DefaultMatcher:
    """block where the streamed block survives, else lemma/number/order paraphrase placement
    with one-citation-per-clause assignment (see the module's docstring)."""

    name = NAME
    spans_snapped = True  # every span it offers comes from snap_span: settle need not snap again

    def __init__(self, params: CascadeParams = PARAMS) -> None:
        self.params = params
        self.default_threshold = THRESHOLD

    def with_params(self, **changes: float) -> DefaultMatcher:
        return DefaultMatcher(replace(self.params, **changes))

    def place(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[Placement]:
        offers = self.offers(answer_text, citations)
        return [self.scale(o) for o in offers]

    def scale(self, offer: tuple[str, Span, float] | None) -> Placement:
        if offer is None:
            return NOTHING
        stage, span, score = offer
        floor = self.params.block_min if stage == "block" else self.params.fallback_min
        return Placement(span, _scaled(score, floor))

    def offers(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[tuple[str, Span, float] | None]:
        """Each citation's (stage, span, raw score) before thresholds, or None."""
        out: list[tuple[str, Span, float] | None] = [None] * len(citations)
        for i, placement in enumerate(BlockMatcher().place(answer_text, citations)):
            if placement.span is None or placement.score is None or placement.score < self.params.block_min:
                continue
            span = snap_span(answer_text, placement.span)
            if span is not None and not any(o is not None and overlaps(span, o[1]) for o in out):
                out[i] = ("block", span, placement.score)
        rest = [i for i, o in enumerate(out) if o is None]
        if rest:
            self._fallback(answer_text, citations, out, rest)
        return out

    def _fallback(
        self,
        text: str,
        citations: Sequence[QuoteCitation],
        out: list[tuple[str, Span, float] | None],
        rest: list[int],
    ) -> None:
        from scipy.optimize import linear_sum_assignment

        anchors = [o[1] if o is not None else None for o in out]
        taken = {a for a in anchors if a is not None}
        free = [
            (s, piece)
            for s, piece in candidate_spans(text)
            if s not in taken and not any(overlaps(s, a) for a in taken)
        ]
        if not free:
            return
        spans = [s for s, _ in free]
        cost = [self.params.piece_penalty if piece else 0.0 for _, piece in free]
        lemma_sets = _span_lemmas(text, spans)
        weights = _idf(lemma_sets)
        places = _places(text, spans, lemma_sets, weights)
        matrix = []
        for i in rest:
            scores = fallback_scores(text, spans, citations[i], weights, self.params, places)
            before = next((anchors[k] for k in range(i - 1, -1, -1) if anchors[k] is not None), None)
            after = next((anchors[k] for k in range(i + 1, len(anchors)) if anchors[k] is not None), None)
            penalty = self.params.order_penalty
            matrix.append(
                [
                    score - extra - (penalty if (before and s[0] < before[0]) or (after and s[0] > after[0]) else 0.0)
                    for s, score, extra in zip(spans, scores, cost, strict=True)
                ]
            )
        for _ in range(len(rest) + 1):  # one assignment, again without each overlap it made
            rows, cols = linear_sum_assignment(matrix, maximize=True)
            chosen = sorted(zip(rows, cols, strict=True), key=lambda rc: -matrix[rc[0]][rc[1]])
            clash = next(
                (
                    (r, c)
                    for k, (r, c) in enumerate(chosen)
                    if any(overlaps(spans[c], spans[c2]) for _, c2 in chosen[:k])
                ),
                None,
            )
            if clash is None:
                break
            matrix[clash[0]][clash[1]] = _FORBIDDEN  # the lower-scoring of the two takes another place
        for r, c in zip(rows, cols, strict=True):
            if matrix[r][c] > _FORBIDDEN:
                out[rest[r]] = ("fallback", spans[c], float(matrix[r][c]))


# --- tuning -------------------------------------------------------------------------------

WRONG_COST = 2.0  # in tuning, a wrong place costs two right ones: a wrong place is worse than none (DESIGN 9)
BLOCK_GRID = tuple(round(0.6 + 0.02 * k, 2) for k in range(20))  # 0.60 … 0.98


def _outcomes(
    offers: Sequence[tuple[str, Span, float] | None], gold: Sequence[Span | None | bool]
) -> list[tuple[str, float, bool, bool]]:
    """(stage, raw score, right place?, has gold span?) of each offered citation with gold."""
    out = []
    for offer, g in zip(offers, gold, strict=True):
        if g is False or offer is None:  # no gold entry, or nothing offered
            continue
        span = g if isinstance(g, tuple) else None
        out.append((offer[0], offer[2], span is not None and iou(offer[1], span) >= IOU_CORRECT, span is not None))
    return out


def tune_cascade(answers: Sequence[QuoteAnswer], max_wrong: float, base: CascadeParams = PARAMS) -> dict[str, float]:
    """block_min and fallback_min with the most right places less WRONG_COST per wrong one
    over answers, among those whose wrong_place_rate, counted over the cascade's placements as
    a whole, stays ≤ max_wrong (ties: the higher thresholds). Every block_min of BLOCK_GRID is
    tried; fallback_min runs over the fallback scores offered, so the choice is exact for each."""
    gold_spans = sum(1 for a in answers for g in a.gold or [] if g.span is not None)
    best: tuple[float, float, float, float, float] | None = None  # (gain, block_min, fallback_min, accuracy, wrong)
    for block_min in BLOCK_GRID:
        matcher = DefaultMatcher(replace(base, block_min=block_min))
        rows: list[tuple[str, float, bool, bool]] = []
        for answer in answers:
            gold = answer.gold_by_citation()
            marks = [gold[c.citation_id].span if c.citation_id in gold else False for c in answer.citations]
            offers = matcher.offers(answer.answer_text, answer.citations)
            rows.extend(_outcomes(_settled(matcher, answer.answer_text, offers), marks))
        blocks = [r for r in rows if r[0] == "block"]
        # a place sharing no word or number with its source (score ≤ 0) is a leftover of the
        # assignment, right only by luck: fallback_min stays above 0
        falls = sorted(r[1] for r in rows if r[0] == "fallback" and r[1] > 0)
        for fallback_min in [*falls, (falls[-1] + 1e-6) if falls else 1.0]:
            placed = blocks + [r for r in rows if r[0] == "fallback" and r[1] >= fallback_min]
            right = sum(1 for r in placed if r[2])
            wrong = (len(placed) - right) / len(placed) if placed else 0.0
            accuracy = right / gold_spans if gold_spans else 0.0
            if wrong <= max_wrong:
                key = (right - WRONG_COST * (len(placed) - right), block_min, fallback_min, accuracy, wrong)
                if best is None or key[:3] > best[:3]:
                    best = key
    if best is None:
        return {"block_min": base.block_min, "fallback_min": base.fallback_min, "placement_accuracy": 0.0}
    return {
        "block_min": best[1],
        "fallback_min": round(best[2], 6),
        "placement_accuracy": round(best[3], 6),
        "wrong_place_rate": round(best[4], 6),
    }


def _settled(
    matcher: DefaultMatcher, text: str, offers: list[tuple[str, Span, float] | None]
) -> list[tuple[str, Span, float] | None]:
    """The offers as settle leaves them (snapped; the lower of two overlapping refused)."""
    placements = settle(text, [matcher.scale(o) for o in offers])
    return [
        None if o is None or p.span is None else (o[0], p.span, o[2])
        for o, p in zip(offers, placements, strict=True)
    ]
