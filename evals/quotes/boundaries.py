"""Where a quote may go (DESIGN 9): a span ends at a clause boundary, and the spans of one
answer never overlap unless identical.

A quote is read as closing the words before it, so «сорок [источник: …] пять минут» tells the
reader the source says «сорок»: a misreading, however close the span is to the right one. What
follows a span must be punctuation, a bracket, a line end, the end of the text, or a
conjunction that opens the next clause; never the rest of a word, a number («0[…],4 %») or a
phrase. `settle` applies this to any matcher's offers: each span is widened to whole words and
to the next clause boundary (or refused when none is near), and of two offers that overlap
the higher-scoring keeps its place. Refusing the lower of two overlapping offers holds at
every threshold: when it would be placed, so would the higher one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from evals.contract.quotes import NOTHING, Placement, Span

# what may follow a span: closing or separating punctuation and brackets
_PUNCTUATION = set(".,;:!?…)]}»\"'”’›—–")
_DASHES = "-–—"
# conjunctions and connectives that open a new clause («…, а в отделении — …»)
CONJUNCTIONS = frozenset(
    "и а но или либо однако зато причем причём если чтобы когда пока потому поэтому так то тогда "
    "также тоже хотя кроме как где куда откуда который которая которое которые".split()
)
_TRIM_END = ".,;:!?…"
IOU_CORRECT = 0.5  # a placed span overlapping its gold span this much is the right place
_MAX_WIDEN = 160  # characters a span may grow to reach a boundary; further, the place is refused
_WORD = re.compile(r"\w+")


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch in "_\u0301"


def boundary_problem(text: str, end: int) -> str | None:
    """Why a quote after text[:end] would land inside a phrase, or None when end is a clause
    boundary. The words in the message quote what follows the span."""
    if end >= len(text):
        return None
    if end <= 0:
        return "the span is empty"
    before, after = text[end - 1], text[end]
    if _is_word_char(before) and _is_word_char(after):
        return f"inside the word «{_word_around(text, end)}»"
    if before.isdigit() and after in ".,:" and end + 1 < len(text) and text[end + 1].isdigit():
        return f"inside the number «{_word_around(text, end)}»"
    pos = end
    while pos < len(text) and text[pos] in " \t\u00a0":
        pos += 1
    if pos >= len(text) or text[pos] in "\n\r":
        return None
    if pos == end and text[pos] in _DASHES and pos + 1 < len(text) and _is_word_char(text[pos + 1]):
        return f"inside «{_word_around(text, end)}»"  # 0–1–6, анти-HBs: a dash without spaces joins
    if text[pos] in _PUNCTUATION or (text[pos] == "-" and (pos + 1 >= len(text) or text[pos + 1].isspace())):
        if text[pos] in ".," and pos + 1 < len(text) and text[pos + 1].isdigit() and before.isdigit():
            return f"inside the number «{_word_around(text, end)}»"
        return None
    if text[pos] in "([{«\"":  # an opening bracket: an aside follows the clause
        return None
    match = _WORD.match(text, pos)
    if match and match.group(0).lower() in CONJUNCTIONS:
        return None
    following = match.group(0) if match else text[pos]
    return f"before «{following}», inside a phrase"


def _word_around(text: str, pos: int) -> str:
    start, end = pos, pos
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return text[start:end]


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Whole words at the start; no spaces or closing punctuation at the end (the quote goes
    before the period)."""
    while start > 0 and start < len(text) and _is_word_char(text[start - 1]) and _is_word_char(text[start]):
        start -= 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in _TRIM_END):
        end -= 1
    return start, end


_SENTENCE_BREAK = re.compile(r"[.!?…]+(?=\s+\S)|\n+")


def _within_one_sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """A span that barely spills over a sentence end (the spilled part under a third of the
    rest) keeps to its sentence: an alignment that runs a few characters into the next
    sentence, or starts in the previous one, means this sentence."""
    if _SENTENCE_BREAK.search(text, start, end) is None:  # the common case: one sentence
        return start, end
    breaks = [(m.start(), m.end()) for m in _SENTENCE_BREAK.finditer(text, start, end)]
    head_end, head_next = breaks[0]
    if (head_end - start) * 3 < end - head_next:
        start = head_next
    tail_end, tail_next = breaks[-1]
    if tail_next > start and (end - tail_next) * 3 < tail_end - start:
        end = tail_end
    return start, end


def snap_span(text: str, span: Span) -> Span | None:
    """span widened to whole words, kept to one sentence when it barely spills over one, and
    widened to the nearest clause boundary at or after its end (never past its line); None
    when no boundary is within reach."""
    start, end = trim_span(text, max(0, span[0]), min(len(text), span[1]))
    kept = _within_one_sentence(text, start, end)
    if kept != (start, end):  # trim_span of a span it trimmed changes nothing
        start, end = trim_span(text, *kept)
    if end <= start:
        return None
    line_end = text.find("\n", end)
    limit = min(len(text), end + _MAX_WIDEN, line_end if line_end >= 0 else len(text))
    if end == len(text) or boundary_problem(text, end) is None:
        return (start, end)  # already at a boundary: trim_span of a trimmed span changes nothing
    pos = end
    while pos <= limit:
        if 0 < pos < len(text) and _is_word_char(text[pos - 1]) and _is_word_char(text[pos]):
            pos += 1  # inside a word: boundary_problem's first refusal, without building its message
            continue
        if boundary_problem(text, pos) is None:
            new_start, new_end = trim_span(text, start, pos)
            if new_end > new_start and (new_end == pos or boundary_problem(text, new_end) is None):
                return (new_start, new_end)
        pos += 1
    return None


def overlaps(a: Span, b: Span) -> bool:
    """Two spans share a character and are not the same span."""
    return a != b and a[0] < b[1] and b[0] < a[1]


def settle(text: str, placements: Sequence[Placement], snapped_already: bool = False) -> list[Placement]:
    """Every offer snapped to a clause boundary (or refused); then, where two offers overlap,
    the lower-scoring one (the later one on a tie) refused. snapped_already: the matcher's
    spans come from snap_span (the cascade's), so they already end at a clause boundary and
    only overlaps are settled (snap_span is not idempotent: a span widened to its boundary may
    barely spill over a sentence, which a second snap would drop; both meet the rule)."""
    snapped: list[Placement] = []
    for placement in placements:
        if placement.span is None or snapped_already:
            snapped.append(placement)
            continue
        span = snap_span(text, placement.span)
        snapped.append(NOTHING if span is None else Placement(span, placement.score))
    def rank(i: int) -> tuple[float, int]:
        score = snapped[i].score
        return (-score if score is not None else float("inf"), i)

    order = sorted((i for i, p in enumerate(snapped) if p.span is not None), key=rank)
    kept: list[Span] = []
    out = list(snapped)
    for i in order:
        span = snapped[i].span
        assert span is not None
        if any(overlaps(span, other) for other in kept):
            out[i] = NOTHING
        else:
            kept.append(span)
    return out


def span_problems(text: str, spans: Sequence[tuple[str, Span]]) -> list[str]:
    """For `quotes inject`: each span that does not end at a clause boundary, and each pair of
    overlapping non-identical spans, as a sentence naming the citations."""
    problems = []
    for cid, span in spans:
        why = boundary_problem(text, span[1])
        if why is not None:
            problems.append(f"quote of {cid} at {span[1]} ends {why}")
    for k, (cid_a, a) in enumerate(spans):
        for cid_b, b in spans[k + 1 :]:
            if overlaps(a, b):
                problems.append(f"spans of {cid_a} {list(a)} and {cid_b} {list(b)} overlap")
    return problems


def iou(a: Span | None, b: Span | None) -> float:
    """Intersection over union of two [start, end) spans; 0 when either is missing."""
    if a is None or b is None:
        return 0.0
    inter = max(0, min(a[1], b[1]) - max(a[0], b[0]))
    union = max(a[1], b[1]) - min(a[0], b[0])
    return inter / union if union > 0 else 0.0
