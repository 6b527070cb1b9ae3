"""From an edition's full text and its blocks to registry chunks (DESIGN 2).

Every source format (Markdown, PDF, DoclingDocument) is read into an `EditionText`: the full
text that chunk spans index, its blocks (headings and paragraphs, as spans of that text), where
each page starts (or None when the source has no pages) and, where the source has them, boxes
on the page for spans of the text (PDF words, DoclingDocument provenance). `chunk_edition`
turns that into chunks the same way for every format:

- a heading sets the heading path; a paragraph is a chunk under it;
- inside a law's article (a heading or paragraph starting «Статья N») the text is also cut at
  every line that starts a пункт («2. …») or подпункт («3) …»), and the heading path gains the
  structural place («пункт 2», «подпункт 3)»), so two sub-items that repeat a text under one
  article get different default ids, as DESIGN 2's formula intends;
- a decree's or order's operative part («…постановляю:», «приказываю:», «постановляет:») is cut
  the same way at its numbered items, which gain «пункт N» / «подпункт N)» in the path;
- an article heading that carries the article's content (it ends like a sentence, or the
  article has no body), and any heading with nothing under it (the next block is a heading of
  the same or a higher level, or the edition ends), is also a chunk, so no text is left out;
- a "heading" over `MAX_HEADING` characters is no heading (a long amendment list set in a
  larger size is body text): it is chunked as a paragraph; `text_outside` reports any text
  that still ends up in no chunk and in no heading a chunk lies under;
- a chunk that would still repeat another's path and text gets «#2», «#3» … appended to its
  path, so default ids are unique in an edition whatever the source.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from evals.contract.models import BBox, Chunk
from evals.data.registry import default_chunk_id
from evals.text.normalize import collapse_whitespace

_ARTICLE = re.compile(r"\s*(?:Статья|СТАТЬЯ)\s+(\d+(?:-\d+)*)\b")
_PUNKT = re.compile(r"[ \t]*(\d+(?:-\d+)*)\.[ \t]+\S")
_PODPUNKT = re.compile(r"[ \t]*(\d+(?:-\d+)*)\)[ \t]+\S")
_LETTER = re.compile(r"[ \t]*([а-яё])\)[ \t]+\S")  # «а) …»: a lettered sub-item (подпункт «а»)
# a line inside an article or operative part that starts a new structural unit
_LEGAL_LINE = re.compile(r"^[ \t]*(?:(?:Статья|СТАТЬЯ)\s+\d|\d+(?:-\d+)*[.)][ \t]+\S|[а-яё]\)[ \t]+\S)",
                         re.MULTILINE)
_SENTENCE_END = re.compile(r"[.:;!?…]\s*$")
# the words that open a decree's, resolution's or order's operative part
OPERATIVE = re.compile(r"\b(?:постановля[юе]т?|приказываю|решил[аио]?|ПОСТАНОВЛЯ[ЮЕ]Т?|ПРИКАЗЫВАЮ)\s*:", re.IGNORECASE)
MAX_HEADING = 300  # characters; no real heading is longer


@dataclass(frozen=True)
class Box:
    """A rectangle on a page (PDF points, origin at the page's top left) for text[char_start:char_end]."""

    char_start: int
    char_end: int
    page: int
    x0: float
    y0: float
    x1: float
    y1: float
    prov: dict[str, Any] | None = None  # the source's own provenance record, kept verbatim


@dataclass(frozen=True)
class Block:
    """A heading or a paragraph: text[start:end]; `title` is a heading's text without markup."""

    start: int
    end: int
    heading_level: int | None = None
    title: str | None = None


@dataclass
class EditionText:
    text: str
    blocks: list[Block]
    pages: list[tuple[int, int]] | None  # (offset, page number) where each page starts; None: no pages
    boxes: list[Box] = field(default_factory=list)

    @property
    def pages_known(self) -> bool:
        return self.pages is not None


def _page_at(pages: list[tuple[int, int]], offset: int) -> int:
    i = bisect.bisect_right([start for start, _ in pages], offset) - 1
    return pages[max(i, 0)][1]


def is_article(title: str) -> bool:
    return bool(_ARTICLE.match(title))


def _heading_carries_content(title: str, level: int, next_block: Block | None) -> bool:
    """A heading that is also text of its own: an article heading ending like a sentence, or a
    heading nothing is under (the next block is a heading of the same or a higher level, or none)."""
    if next_block is None or (next_block.heading_level is not None and next_block.heading_level <= level):
        return True
    if not is_article(title):
        return False
    return bool(_SENTENCE_END.search(title)) or next_block.heading_level is not None


def _is_heading(block: Block, text: str) -> bool:
    return block.heading_level is not None and len(collapse_whitespace(text[block.start : block.end])) <= MAX_HEADING


def text_outside(edition: EditionText, chunks: list[Chunk]) -> list[tuple[int, int]]:
    """Spans of the edition's text holding non-space characters that lie in no chunk and in no
    heading some chunk is under: text the registry would silently lose."""
    covered = sorted((c.char_start, c.char_end) for c in chunks if c.char_start is not None and c.char_end is not None)
    paths = {entry for c in chunks for entry in c.heading_path}
    for block in edition.blocks:
        if block.heading_level is not None:
            entry = block.title.strip() if block.title is not None else collapse_whitespace(
                edition.text[block.start : block.end])
            if entry in paths:
                covered.append((block.start, block.end))
    covered.sort()
    out: list[tuple[int, int]] = []
    position = 0
    for start, end in [*covered, (len(edition.text), len(edition.text))]:
        if start > position and edition.text[position:start].strip():
            gap = edition.text[position:start]
            lead = len(gap) - len(gap.lstrip())
            out.append((position + lead, position + len(gap.rstrip())))
        position = max(position, end)
    return out


class _Structure:
    """Where a paragraph stands inside a law's article: article (when not a heading), пункт, подпункт."""

    def __init__(self) -> None:
        self.in_article = False
        self.article: str | None = None  # an article that began in a paragraph, not a heading
        self.punkt: str | None = None
        self.podpunkt: str | None = None
        self.letter: str | None = None

    def reset(self, in_article: bool) -> None:
        self.in_article, self.article, self.punkt, self.podpunkt, self.letter = in_article, None, None, None, None

    def enter(self, piece: str) -> None:
        numbered = _PUNKT.match(piece) or _PODPUNKT.match(piece) or _LETTER.match(piece)
        if OPERATIVE.search(piece) and not numbered:
            # the operative part: its numbered items are пункты, as an article's
            self.in_article, self.punkt, self.podpunkt, self.letter = True, None, None, None
            return
        if m := _ARTICLE.match(piece):
            self.in_article, self.article = True, f"Статья {m.group(1)}"
            self.punkt, self.podpunkt, self.letter = None, None, None
        elif not self.in_article:
            return
        elif m := _PUNKT.match(piece):
            self.punkt, self.podpunkt, self.letter = f"пункт {m.group(1)}", None, None
        elif m := _PODPUNKT.match(piece):
            self.podpunkt, self.letter = f"подпункт {m.group(1)})", None
        elif m := _LETTER.match(piece):
            self.letter = f"подпункт «{m.group(1)}»"

    def path(self) -> list[str]:
        return [p for p in (self.article, self.punkt, self.podpunkt, self.letter) if p]


def _pieces(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Cut text[start:end] before every line that starts an article, пункт or подпункт."""
    cuts = [start] + [start + m.start() for m in _LEGAL_LINE.finditer(text[start:end]) if m.start() > 0] + [end]
    out = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        segment = text[a:b]
        lead = len(segment) - len(segment.lstrip())
        trail = len(segment.rstrip())
        if trail > lead:
            out.append((a + lead, a + trail))
    return out


def _boxes_for(boxes: list[Box], starts: list[int], char_start: int, char_end: int) -> list[Box]:
    """Boxes overlapping [char_start, char_end); `starts` is the sorted list of box starts."""
    found = []
    i = max(bisect.bisect_right(starts, char_start) - 1, 0)
    # boxes may be long (a DoclingDocument item): step back while an earlier box still overlaps
    while i > 0 and boxes[i - 1].char_end > char_start:
        i -= 1
    for box in boxes[i:]:
        if box.char_start >= char_end:
            break
        if box.char_end > char_start:
            found.append(box)
    return found


def _union_per_page(boxes: list[Box]) -> list[BBox]:
    pages: dict[int, list[float]] = {}
    for b in boxes:
        if b.page not in pages:
            pages[b.page] = [b.x0, b.y0, b.x1, b.y1]
        else:
            u = pages[b.page]
            u[0], u[1], u[2], u[3] = min(u[0], b.x0), min(u[1], b.y0), max(u[2], b.x1), max(u[3], b.y1)
    return [
        BBox(page=p, x0=round(u[0], 2), y0=round(u[1], 2), x1=round(u[2], 2), y1=round(u[3], 2))
        for p, u in sorted(pages.items())
    ]


def chunk_edition(version_id: str, document_id: str, edition: EditionText) -> list[Chunk]:
    """Chunks of one edition: every paragraph (cut at legal units inside articles) under its heading path."""
    text, blocks = edition.text, edition.blocks
    boxes = sorted(edition.boxes, key=lambda b: (b.char_start, b.char_end))
    box_starts = [b.char_start for b in boxes]
    path: list[tuple[int, str]] = []
    structure = _Structure()
    chunks: list[Chunk] = []
    seen: dict[tuple[str, ...], int] = {}

    def emit(start: int, end: int, heading_path: list[str]) -> None:
        body = text[start:end]
        key = (*heading_path, collapse_whitespace(body))
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            heading_path = [*heading_path, f"#{seen[key]}"]
        covering = _boxes_for(boxes, box_starts, start, end) if boxes else []
        page_start = page_end = None
        if covering:
            page_start, page_end = min(b.page for b in covering), max(b.page for b in covering)
        elif edition.pages is not None:
            page_start, page_end = _page_at(edition.pages, start), _page_at(edition.pages, max(start, end - 1))
        extra: dict[str, Any] = {}
        provs = [b.prov for b in covering if b.prov is not None]
        if provs:
            extra["prov"] = provs
        chunks.append(
            Chunk(
                chunk_id=default_chunk_id(version_id, heading_path, body),
                version_id=version_id,
                document_id=document_id,
                text=body,
                heading_path=heading_path,
                page_start=page_start,
                page_end=page_end,
                char_start=start,
                char_end=end,
                bbox=_union_per_page(covering) if covering else None,
                **extra,
            )
        )

    blocks = [b if b.heading_level is None or _is_heading(b, text) else Block(b.start, b.end) for b in blocks]
    for index, block in enumerate(blocks):
        if block.heading_level is not None:
            raw = text[block.start : block.end]
            title = block.title.strip() if block.title is not None else raw.strip()
            level = block.heading_level
            entry = block.title.strip() if block.title is not None else collapse_whitespace(raw)
            path = [(lvl, t) for lvl, t in path if lvl < level] + [(level, entry)]
            structure.reset(in_article=any(is_article(t) for _, t in path))
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            if _heading_carries_content(title, level, following):
                offset = text.find(title, block.start, block.end)
                start = offset if offset >= 0 else block.start
                emit(start, start + len(title) if offset >= 0 else block.end, [t for _, t in path])
            continue
        titles = [t for _, t in path]
        body = text[block.start : block.end]
        in_legal = structure.in_article or bool(_ARTICLE.match(body)) or bool(OPERATIVE.search(body))
        pieces = _pieces(text, block.start, block.end) if in_legal else [(block.start, block.end)]
        for start, end in pieces:
            structure.enter(text[start:end])
            emit(start, end, titles + structure.path())
    return chunks
