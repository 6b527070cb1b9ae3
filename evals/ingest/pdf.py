"""A PDF edition's text per page, with every word's box, as an `EditionText` (pdfplumber).

pdfplumber (pdfminer.six underneath) gives each character's box, font and size, so the text we
build and the boxes we keep come from the same characters: a word's offsets into the edition's
full text and its rectangle on the page cannot drift apart. Boxes are PDF points with the origin
at the page's top left (pdfplumber's x0, top, x1, bottom).

How the text is built:
- words of a line are joined by one space, lines by a line break; a paragraph break ("\\n\\n")
  where the gap to the next line is clearly larger than the body's line pitch, where the font
  size changes, and at a page end, unless the paragraph runs on (the page's last line ends no
  sentence and the next page starts in lower case): then the chunk spans both pages;
- the body size is the size most characters of prose lines are set in; a line with a gap over
  `TABLE_GAP` font sizes between two words is a table row (cells side by side), read as text
  left to right but left out of that vote, and so is a line narrower than `PROSE_WIDTH` of the
  text column (a table cell's wrapped line), so a decree whose tables outweigh its 13.5 pt
  body still has a 13.5 pt body;
- a block set larger than the body is a heading, its level by the rank of its size (largest =
  1), only when it also reads like one: the size is a hint, the text decides. A block that
  ends like a list's lead-in or an item («:», «;», «,»), holds an operative formula
  («постановляю:»), starts a numbered item and ends like a sentence («1. Установить … .»), or
  runs over `MAX_HEADING` characters, is body text; a heading line opening a unit («Статья 5.»,
  «Глава 2») starts a heading of its own even right under another one of the same size;
- words are split where the PDF has a space character and, since many PDFs set no space
  characters at all (the gap alone separates words), also where the gap between two characters
  is more than `WORD_GAP` of the font size (measured on real PDFs: inside a word gaps stay
  within ±0.02 em, kerning down to −0.18 em; between words they start at 0.17 em; of 93,341
  character pairs in the first 15 pages of the Amazon 2023 letter, the Constitutional AI paper,
  a Twilio earnings release and a quarterly statement, one gap falls between 0.05 and 0.15 em,
  so any threshold in that band splits the same words);
- text set sideways (not upright: an arXiv identifier down the margin) is read along its own
  direction and kept as one paragraph of its own at the page's end, never a heading;
- a page number alone on the first or last line of a page (in its top or bottom tenth) is
  left out of the text;
- U+0002 (the hyphenation mark some PDF producers write, DESIGN 6) and a soft hyphen at the
  end of a line are removed and the word joined with its rest on the next line, so the text
  holds the whole word; U+0002 anywhere else is removed. A plain hyphen at a line end is kept
  with its line break ("северо-\\nзападный" may be a real compound): quote matching joins it
  (DESIGN 6 normalization).
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.errors import DataError
from evals.ingest.chunking import MAX_HEADING, OPERATIVE, Block, Box, EditionText, is_article
from evals.store.reading import open_binary

_HYPHENATION_MARKS = "\u0002\u00ad"
# a gap wider than this share of the font size starts a new word (see the module docstring)
WORD_GAP = 0.1
# a gap between two words of a line wider than this many font sizes: the line is a table row
TABLE_GAP = 2.0
PROSE_WIDTH = 0.6
# a heading line that opens a unit of its own: «Статья 5.», «Глава 2», «Раздел III» under a chapter heading
_UNIT_HEADING = re.compile(r"(?:Статья|СТАТЬЯ|Глава|ГЛАВА|Раздел|РАЗДЕЛ)\s+[\dIVXLC]")
_NOT_A_HEADING_END = re.compile(r"[:;,]\s*$")
_NUMBERED_ITEM = re.compile(r"^\s*(?:\d+(?:\.\d+)*[.)]|[а-яa-z]\))\s+\S")


@dataclass(frozen=True)
class PdfPage:
    page: int  # 1-based
    width: float
    height: float
    char_start: int  # the page's text in the edition's full text
    char_end: int


@dataclass
class PdfText:
    edition: EditionText
    pages: list[PdfPage]

    @property
    def words(self) -> list[Box]:
        return self.edition.boxes


@dataclass
class _Line:
    words: list[dict[str, Any]]
    top: float
    bottom: float
    size: float
    sideways: bool = False  # text set along the page's height: a paragraph of its own, never a heading

    @property
    def tabular(self) -> bool:
        """Cells side by side: two words of the line are more than TABLE_GAP font sizes apart."""
        return any(b["x0"] - a["x1"] > TABLE_GAP * self.size for a, b in zip(self.words, self.words[1:], strict=False))


def _lines(words: list[dict[str, Any]]) -> list[_Line]:
    """Group pdfplumber's words (already in reading order) into lines by their vertical position."""
    lines: list[_Line] = []
    sideways = [w for w in words if not w.get("upright", True)]
    for word in (w for w in words if w.get("upright", True)):
        size = float(word.get("size") or (word["bottom"] - word["top"]))
        if lines and abs(word["top"] - lines[-1].top) <= max(lines[-1].size, size) * 0.5:
            line = lines[-1]
            line.words.append(word)
            line.bottom = max(line.bottom, word["bottom"])
            line.size = max(line.size, size)
        else:
            lines.append(_Line([word], word["top"], word["bottom"], size))
    for line in lines:
        line.words.sort(key=lambda w: w["x0"])
    if sideways:
        size = max(float(w.get("size") or 0.0) for w in sideways)
        lines.append(_Line(sideways, min(w["top"] for w in sideways), max(w["bottom"] for w in sideways), size,
                           sideways=True))
    return lines


def _sideways_words(chars: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Words of text set sideways, in reading order: columns left to right, each read bottom to
    top (text turned counter-clockwise, as arXiv's margin stamp) or top to bottom (turned
    clockwise); a word ends where the gap along the column is more than `WORD_GAP` of the size."""
    columns: list[list[dict[str, Any]]] = []
    for char in sorted(chars, key=lambda c: c["x0"]):
        if columns and abs(char["x0"] - columns[-1][0]["x0"]) <= max(float(char["size"]), 1.0) * 0.5:
            columns[-1].append(char)
        else:
            columns.append([char])
    words: list[dict[str, Any]] = []
    for column in columns:
        upward = (column[0].get("matrix") or (0, 1))[1] > 0  # the text's direction (sin of the turn)
        column.sort(key=lambda c: -c["bottom"] if upward else c["top"])
        current: list[dict[str, Any]] = []
        for char in column:
            if current:
                prev = current[-1]
                gap = (prev["top"] - char["bottom"]) if upward else (char["top"] - prev["bottom"])
                if char["text"].isspace() or gap > WORD_GAP * float(prev["size"]):
                    words.append(_word_of(current))
                    current = []
            if not char["text"].isspace():
                current.append(char)
        if current:
            words.append(_word_of(current))
    return words


def _word_of(chars: list[dict[str, Any]]) -> dict[str, Any]:
    return {"text": "".join(c["text"] for c in chars), "x0": min(c["x0"] for c in chars),
            "x1": max(c["x1"] for c in chars), "top": min(c["top"] for c in chars),
            "bottom": max(c["bottom"] for c in chars), "size": max(float(c["size"]) for c in chars),
            "upright": False}


_SENTENCE_END = re.compile(r"[.:;!?…]$")
_PAGE_NUMBER = re.compile(r"^[\s\-–—]*\d{1,4}[\s\-–—]*$")


def _without_page_numbers(lines: list[_Line], height: float) -> list[_Line]:
    """Drop a first or last line that is only a page number ("3", "– 3 –") in the page's top or bottom tenth."""

    def is_number(line: _Line) -> bool:
        return bool(_PAGE_NUMBER.match(" ".join(str(w["text"]) for w in line.words)))

    sideways = [line for line in lines if line.sideways]
    lines = [line for line in lines if not line.sideways]
    if lines and lines[-1].top > height * 0.9 and is_number(lines[-1]):
        lines = lines[:-1]
    if lines and lines[0].bottom < height * 0.1 and is_number(lines[0]):
        lines = lines[1:]
    return lines + sideways


def _continues(last: _Line, first: _Line, level: int | None, block_level: int | None) -> bool:
    """A paragraph running over a page break: body text on both sides, the page's last line not
    ending a sentence and the next page's first line starting in lower case."""
    if last.sideways or first.sideways:
        return False
    if level is not None or block_level is not None or abs(last.size - first.size) >= 0.5:
        return False
    ending = str(last.words[-1]["text"]).rstrip()
    opening = str(first.words[0]["text"])
    return not _SENTENCE_END.search(ending) and opening[:1].islower()


def read_pdf(path: Path | str) -> PdfText:
    """The text of every page with char offsets into the full text, word boxes, headings and paragraphs."""
    import pdfplumber
    from pdfminer.pdfparser import PDFSyntaxError
    from pdfplumber.utils.exceptions import PdfminerException

    path = Path(path)
    try:
        with open_binary(path) as handle, pdfplumber.PDF(handle, stream_is_external=True, path=path) as pdf:
            raw_pages = [(float(page.width), float(page.height), _page_words(page)) for page in pdf.pages]
    except (PdfminerException, PDFSyntaxError, ValueError, KeyError, TypeError) as exc:
        raise DataError(path, None, f"not a readable PDF: {exc}") from None
    if not any(words for _, _, words in raw_pages):
        raise DataError(path, None, "the PDF has no text layer (scanned pages need OCR first, e.g. docling)")
    return text_from_words(raw_pages)


def _page_words(page: Any) -> list[dict[str, Any]]:
    """The page's upright words in pdfplumber's reading order, then its sideways words."""
    upright = page.filter(lambda o: o.get("object_type") != "char" or o.get("upright", True))
    words: list[dict[str, Any]] = upright.extract_words(
        extra_attrs=["size"], keep_blank_chars=False, use_text_flow=False, x_tolerance_ratio=WORD_GAP
    )
    turned = [c for c in page.chars if not c.get("upright", True)]
    return words + (_sideways_words(turned) if turned else [])


def text_from_words(page_words: list[tuple[float, float, list[dict[str, Any]]]]) -> PdfText:
    """Build the edition from each page's (width, height, words); a word is pdfplumber's dict
    (`text`, `x0`, `x1`, `top`, `bottom`, `size`, and `upright`: False for text set sideways) in
    reading order."""
    raw_pages = [(width, height, _without_page_numbers(_lines(words), height)) for width, height, words in page_words]
    all_lines = [line for _, _, lines in raw_pages for line in lines]
    if not all_lines:
        return PdfText(EditionText("", [], [(0, 1)]), [])
    edition = _EditionBuilder(_Typography.of(raw_pages, all_lines))
    for page_no, (width, height, lines) in enumerate(raw_pages, start=1):
        edition.add_page(page_no, width, height, lines)
    return edition.finish()


@dataclass(frozen=True)
class _Typography:
    """The edition's body font size, its heading sizes (largest first: level 1, 2, …) and the
    line pitch inside a paragraph."""

    body_size: float
    heading_sizes: list[float]
    body_pitch: float

    @classmethod
    def of(cls, raw_pages: list[tuple[float, float, list[_Line]]], all_lines: list[_Line]) -> _Typography:
        chars_by_size: Counter[float] = Counter()
        # prose: no table row, and at least PROSE_WIDTH of the text column wide (a cell's wrapped
        # line is narrow; most lines of a paragraph run the column's width)
        upright = [line for line in all_lines if not line.sideways]
        extents = sorted(line.words[-1]["x1"] - line.words[0]["x0"] for line in upright) or [0.0]
        column = extents[int(len(extents) * 0.9)] if len(extents) > 1 else extents[0]
        prose = [line for line in upright
                 if not line.tabular and line.words[-1]["x1"] - line.words[0]["x0"] >= PROSE_WIDTH * column]
        for line in prose or upright:
            chars_by_size[round(line.size, 1)] += sum(len(w["text"]) for w in line.words)
        body_size = chars_by_size.most_common(1)[0][0] if chars_by_size else all_lines[0].size
        heading_sizes = sorted({round(line.size, 1) for line in upright if line.size > body_size + 0.5}, reverse=True)
        pitches = [
            b.top - a.top
            for _, _, lines in raw_pages
            for a, b in zip(lines, lines[1:], strict=False)
            if abs(a.size - body_size) < 0.5 and abs(b.size - body_size) < 0.5 and b.top > a.top
        ]
        # the line pitch inside paragraphs: most gaps between body lines are that, the rest are paragraph breaks;
        # capped, so a page of a few far-apart lines is not taken for one paragraph
        if len(pitches) > 1:
            lower_quartile = statistics.quantiles(pitches, n=4, method="inclusive")[0]
        else:
            lower_quartile = pitches[0] if pitches else body_size * 1.2
        return cls(body_size, heading_sizes, min(lower_quartile, body_size * 3))

    def heading_level(self, line: _Line) -> int | None:
        if line.sideways or line.tabular:
            return None
        return next((k + 1 for k, s in enumerate(self.heading_sizes) if abs(round(line.size, 1) - s) < 0.05), None)


def _reads_as_heading(text: str) -> bool:
    """Whether a block set larger than the body reads as a heading (see the module docstring)."""
    if len(" ".join(text.split())) > MAX_HEADING or _NOT_A_HEADING_END.search(text) or OPERATIVE.search(text):
        return False
    return not (_NUMBERED_ITEM.match(text) and _SENTENCE_END.search(text.rstrip()) and not is_article(text))


class _EditionBuilder:
    """The edition's text built line by line, page by page: paragraphs (blocks) and headings
    split where the font or the spacing changes, hyphenated words joined, a word box per word."""

    def __init__(self, typography: _Typography) -> None:
        self.typography = typography
        self.parts: list[str] = []
        self.length = 0
        self.boxes: list[Box] = []
        self.blocks: list[Block] = []
        self.pages: list[PdfPage] = []
        self.block_start: int | None = None
        self.block_level: int | None = None
        self.joined_hyphen = False
        self.previous: _Line | None = None
        self.previous_page = 0

    def _put(self, piece: str) -> None:
        self.parts.append(piece)
        self.length += len(piece)

    def add_page(self, page_no: int, width: float, height: float, lines: list[_Line]) -> None:
        page_start: int | None = None
        for line in lines:
            level = self.typography.heading_level(line)
            new_block = self._starts_block(line, level, page_no)
            if self.previous is not None:
                if new_block and self.block_start is not None:
                    self.blocks.append(Block(self.block_start, self.length, self.block_level))
                self._put("\n\n" if new_block else ("" if self.joined_hyphen else "\n"))
            if page_start is None:
                page_start = self.length
            if new_block:
                self.block_start, self.block_level = self.length, level
            self._add_words(line, page_no)
            self.previous, self.previous_page = line, page_no
        self.pages.append(PdfPage(page_no, width, height, self.length if page_start is None else page_start,
                                  self.length))

    def _starts_block(self, line: _Line, level: int | None, page_no: int) -> bool:
        """Whether the line opens a paragraph or heading: on a new page unless the last one's
        paragraph runs over; on the same page when the level, the size or the spacing changes."""
        previous = self.previous
        if previous is None:
            return True
        if page_no != self.previous_page:
            return not (self.joined_hyphen or _continues(previous, line, level, self.block_level))
        return (
            line.sideways
            or previous.sideways
            or (level is not None and bool(_UNIT_HEADING.match(" ".join(str(w["text"]) for w in line.words[:2]))))
            or level != self.block_level
            or abs(line.size - previous.size) >= 0.5
            or line.top - previous.top > max(self.typography.body_pitch, line.size) * 1.35
        )

    def _add_words(self, line: _Line, page_no: int) -> None:
        """The line's words, space-separated, each with its box; a last word ending in a
        hyphenation mark loses it and joins the next line's first word."""
        self.joined_hyphen = False
        for w_index, word in enumerate(line.words):
            token = str(word["text"])
            if w_index == len(line.words) - 1 and token and token[-1] in _HYPHENATION_MARKS:
                token, self.joined_hyphen = token[:-1], True
            token = token.replace("\u0002", "")
            if w_index:
                self._put(" ")
            start = self.length
            self._put(token)
            if token:
                self.boxes.append(
                    Box(start, self.length, page_no, float(word["x0"]), float(word["top"]), float(word["x1"]),
                        float(word["bottom"]))
                )

    def finish(self) -> PdfText:
        if self.block_start is not None:
            self.blocks.append(Block(self.block_start, self.length, self.block_level))
        text = "".join(self.parts)
        self.blocks = [b if b.heading_level is None or _reads_as_heading(text[b.start : b.end]) else
                       Block(b.start, b.end) for b in self.blocks]
        edition = EditionText(text, self.blocks, [(p.char_start, p.page) for p in self.pages], self.boxes)
        return PdfText(edition, self.pages)
