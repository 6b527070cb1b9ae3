"""`block`: aligns the citation's streamed block_text into the final answer text (DESIGN 9)."""

from __future__ import annotations

from collections.abc import Sequence

from evals.contract.quotes import NOTHING, Placement, QuoteCitation
from evals.quotes.locate import fold_same_length
from evals.text.normalize import normalize, normalize_with_map

BLOCK_THRESHOLD = 0.647887  # tuned like the other matchers' (evals.quotes.matchers.DEFAULT_THRESHOLDS)


class BlockMatcher:
    """Aligns the citation's block_text (the text as the model streamed it) into the final
    answer_text with rapidfuzz's partial_ratio_alignment, then widens the span to whole
    words. Without block_text it offers nothing; with heavy post-processing its score drops
    and the threshold keeps the quote out."""

    name = "block"

    def __init__(self) -> None:
        self.default_threshold = BLOCK_THRESHOLD

    def place(self, answer_text: str, citations: Sequence[QuoteCitation]) -> list[Placement]:
        from rapidfuzz import fuzz

        # a same-length fold keeps positions, so no index map is needed (and none is built)
        folded = fold_same_length(answer_text)
        if folded is not None:
            norm_answer, origin = folded, None
        else:
            norm_answer, mapping = normalize_with_map(answer_text)
            origin = mapping
        out = []
        for citation in citations:
            block = (fold_same_length(citation.block_text or "") or normalize(citation.block_text or "")).strip()
            if not block or not norm_answer:
                out.append(NOTHING)
                continue
            found = fuzz.partial_ratio_alignment(block, norm_answer)
            if found is None or found.dest_end <= found.dest_start:
                out.append(NOTHING)
                continue
            if origin is None:
                start, end = found.dest_start, found.dest_end
            else:
                start, end = origin[found.dest_start], origin[found.dest_end - 1] + 1
            start, end = _whole_words(answer_text, start, end)
            out.append(Placement((start, end), round(found.score / 100, 6)))
        return out


def _whole_words(text: str, start: int, end: int) -> tuple[int, int]:
    while start > 0 and text[start - 1].isalnum():
        start -= 1
    while end < len(text) and text[end].isalnum():
        end += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in ".,;:!?…"):
        end -= 1
    while start < end and text[start].isspace():
        start += 1
    return start, end
