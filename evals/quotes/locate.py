"""Finding a quote inside a longer text, exactly or nearly: `locate_quote`.

Used to place a quote in a chunk or a whole edition (a 200-character quote in a
680,000-character code in well under a second) and to explain a QUOTE_NOT_FOUND finding:
the closest fragment and how many characters it differs in.
"""

from __future__ import annotations

from typing import NamedTuple

from evals.text.normalize import _FOLD, normalize, normalize_with_map

_FOLD_1TO1 = [(chr(k), v) for k, v in _FOLD.items() if isinstance(v, str) and len(v) == 1]

# Anchors: needle substrings of this length searched exactly; a near-verbatim quote keeps some.
_ANCHOR = 12
_ANCHORS = 8
_LONG = 20_000  # characters: beyond this, normalizing the whole text costs more than the search


def fold_same_length(text: str) -> str | None:
    """Lower case, ё→е, typographic quotes and dashes folded, one character for one (so
    positions carry over unchanged); None in the rare case lower-casing changes the length."""
    folded = text.lower()
    for source, target in _FOLD_1TO1:  # str.replace runs in C; translate() with a dict is 10× slower
        if source in folded:
            folded = folded.replace(source, target)
    return folded if len(folded) == len(text) else None


class QuoteLocation(NamedTuple):
    start: int  # span in the original haystack (code points, end exclusive)
    end: int
    similarity: float  # 1.0 = the same text after normalization (DESIGN 6); 0..1 otherwise


def _refine(needle: str, window: str) -> tuple[int, int]:
    """Span of window from the first to the last character an Indel alignment (insertions and
    deletions only) keeps in common with the needle: extra characters at the window's ends
    are insertions and fall outside."""
    from rapidfuzz.distance import Indel

    equal = [op for op in Indel.opcodes(needle, window) if op.tag == "equal"]
    # a stray letter or two matched in the padding ("о" of "работникам. Отходы") is not the quote
    solid = [op for op in equal if op.dest_end - op.dest_start >= 3] or equal
    if not solid:
        return 0, len(window)
    start, end = solid[0].dest_start, solid[-1].dest_end
    # where the quote's first or last words are intact, they fix the edge exactly
    for k in (16, 8, 4):
        if len(needle) >= 2 * k and (found := window.find(needle[:k])) >= 0:
            start = found
            break
    for k in (16, 8, 4):
        if len(needle) >= 2 * k and (found := window.rfind(needle[-k:])) >= 0 and found + k > start:
            end = found + k
            break
    return start, end


def locate_quote(needle: str, haystack: str, min_similarity: float = 0.0) -> QuoteLocation | None:
    """Span of haystack that best matches needle, with its similarity (normalized Indel
    similarity of the two normalized texts); None when needle is empty or nothing reaches
    min_similarity. Exact matches (after quote normalization) are found first."""
    if not normalize(needle) or not haystack:
        return None
    folded = fold_same_length(haystack)
    if folded is not None and len(haystack) > _LONG:
        # a long text: find candidate regions cheaply, then match precisely inside them only
        best: QuoteLocation | None = None
        folded_needle = fold_same_length(needle) or needle.lower()
        exact = folded.find(folded_needle)  # the common case, verbatim up to case and typography
        windows = [(max(0, exact - 2), exact + len(needle) + 2)] if exact >= 0 else []
        for w_start, w_end in windows or _anchor_windows(folded_needle, folded):
            found = _locate(needle, haystack[w_start:w_end], 0.0)
            if found is not None and (best is None or found.similarity > best.similarity):
                best = QuoteLocation(w_start + found.start, w_start + found.end, found.similarity)
                if found.similarity == 1.0:
                    break
        if best is not None:
            return best if best.similarity >= min_similarity else None
    return _locate(needle, haystack, min_similarity)


def _locate(needle: str, haystack: str, min_similarity: float) -> QuoteLocation | None:
    from rapidfuzz import fuzz

    norm_needle = normalize(needle)
    norm_hay, origin = normalize_with_map(haystack)
    if not norm_hay:
        return None

    def original(start: int, end: int) -> tuple[int, int]:
        return origin[start], origin[end - 1] + 1

    pos = norm_hay.find(norm_needle)
    if pos >= 0:
        return QuoteLocation(*original(pos, pos + len(norm_needle)), 1.0)
    windows = _anchor_windows(norm_needle, norm_hay)
    best: tuple[float, int, int] | None = None
    for w_start, w_end in windows or [(0, len(norm_hay))]:
        found = fuzz.partial_ratio_alignment(norm_needle, norm_hay[w_start:w_end])
        if found is not None and (best is None or found.score > best[0]):
            best = (found.score, w_start + found.dest_start, w_start + found.dest_end)
    if best is None:
        return None
    # partial_ratio aligns a window of the needle's length; tighten it to where the needle lies
    pad = max(8, len(norm_needle) // 10)
    w_start, w_end = max(0, best[1] - pad), min(len(norm_hay), best[2] + pad)
    r_start, r_end = _refine(norm_needle, norm_hay[w_start:w_end])
    start, end = w_start + r_start, w_start + r_end
    if end <= start:
        start, end = best[1], best[2]
    similarity = fuzz.ratio(norm_needle, norm_hay[start:end]) / 100
    if similarity < min_similarity:
        return None
    return QuoteLocation(*original(start, end), round(similarity, 6))


def _anchor_windows(needle: str, hay: str) -> list[tuple[int, int]]:
    """Regions of hay around exact occurrences of a few of needle's substrings; without
    them a fuzzy search of the whole text is the fallback."""
    if len(needle) < _ANCHOR * 2 or len(hay) < len(needle) * 4:
        return []
    step = max(1, (len(needle) - _ANCHOR) // (_ANCHORS - 1))
    regions: list[tuple[int, int]] = []
    for offset in range(0, len(needle) - _ANCHOR + 1, step):
        anchor = needle[offset : offset + _ANCHOR]
        pos = hay.find(anchor)
        hits = 0
        while pos >= 0 and hits < 4:  # a common anchor ("обучение ") says little; a few hits suffice
            regions.append(
                (max(0, pos - offset - len(needle) // 2), min(len(hay), pos - offset + len(needle) * 3 // 2))
            )
            pos = hay.find(anchor, pos + 1)
            hits += 1
    regions.sort()
    merged: list[tuple[int, int]] = []
    for start, end in regions:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def quote_difference(needle: str, text: str) -> int:
    """Characters to insert, delete or replace (Levenshtein, after normalization) to turn
    needle into text: 'differs in 3 characters'."""
    from rapidfuzz.distance import Levenshtein

    return int(Levenshtein.distance(normalize(needle), normalize(text)))


def describe_near_miss(needle: str, haystack: str) -> str | None:
    """One line for a QUOTE_NOT_FOUND finding: the closest fragment and how far it is."""
    found = locate_quote(needle, haystack)
    if found is None:
        return None
    fragment = haystack[found.start : found.end]
    edits = quote_difference(needle, fragment)
    shown = fragment if len(fragment) <= 120 else fragment[:117] + "…"
    return f"closest fragment (similarity {found.similarity:.2f}, differs in {edits} character(s)): «{shown}»"
