"""Demo editions as PDF and as DoclingDocument JSON, made from their Markdown (used by build.py).

Each `<!-- page N -->` section of the Markdown is set on PDF page N (A4, DejaVu Sans from
matplotlib's own font files, so the Cyrillic glyphs need no system font), headings larger than
the body text, paragraphs wrapped to the text width. A section that does not fit its page is an
error rather than a silent shift of every later page number, since the questions' gold names
pages. The DoclingDocument is what docling would hand over for such a PDF: one text item per
heading and paragraph, each with its page, its box (bottom-left origin, as docling writes PDF
boxes) and charspan. Both files are byte-for-byte reproducible (fixed creation date).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import matplotlib
from fpdf import FPDF

FONTS = Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf"
PAGE_W, PAGE_H, MARGIN = 595.28, 841.89, 64.0
BODY = 10.5
HEADING_SIZES = {1: 15.0, 2: 12.5, 3: 11.5}
CREATED = datetime(2025, 1, 1, tzinfo=timezone.utc)
_MARKER = re.compile(r"^<!--\s*page\s+(\d+)\s*-->\s*$", re.MULTILINE)


@dataclass
class Placed:
    page: int
    level: int | None  # heading level, None for a paragraph
    size: float
    text: str  # the paragraph as one line of text (docling's item text)
    lines: list[tuple[float, str]]  # (baseline, line)
    width: float  # the widest line

    def box(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) in points from the page's top left, as the glyphs cover it."""
        descent = 0.236 * self.size  # DejaVu Sans: hhea descent 483 / 2048 units
        return MARGIN, self.lines[0][0] + descent - self.size, MARGIN + self.width, self.lines[-1][0] + descent


def _pdf() -> FPDF:
    pdf = FPDF(unit="pt", format=(PAGE_W, PAGE_H))
    pdf.set_auto_page_break(False)
    pdf.set_creation_date(CREATED)
    pdf.add_font("dejavu", "", str(FONTS / "DejaVuSans.ttf"))
    pdf.add_font("dejavu", "B", str(FONTS / "DejaVuSans-Bold.ttf"))
    return pdf


def _wrap(pdf: FPDF, text: str, width: float) -> list[str]:
    lines, current = [], ""
    for word in text.split():
        candidate = f"{current} {word}" if current else word
        if current and pdf.get_string_width(candidate) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    return [*lines, current] if current else lines


def layout(markdown: str, source: Path) -> list[Placed]:
    """Place every heading and paragraph of the Markdown on its page."""
    pdf = _pdf()
    placed: list[Placed] = []
    sections = _MARKER.split(markdown)
    for page_text, number in zip(sections[2::2], sections[1::2], strict=True):
        page = int(number)
        y = MARGIN
        for block in re.split(r"\n\s*\n", page_text.strip()):
            heading = re.match(r"^(#{1,6})\s+(.+)$", block)
            level = len(heading.group(1)) if heading else None
            text = " ".join((heading.group(2) if heading else block).split())
            size = HEADING_SIZES.get(level or 0, BODY)
            pdf.set_font("dejavu", "B" if level else "", size)
            y += size * (0.9 if level else 0.5)  # space before
            lines = []
            for line in _wrap(pdf, text, PAGE_W - 2 * MARGIN):
                y += size * 1.3
                lines.append((y, line))
            if y > PAGE_H - MARGIN:
                raise ValueError(f"{source}: page {page} does not fit on one PDF page")
            placed.append(Placed(page, level, size, text, lines, max(pdf.get_string_width(t) for _, t in lines)))
    return placed


def write_pdf(placed: list[Placed], out: Path) -> None:
    pdf = _pdf()
    pages = max(p.page for p in placed)
    for page in range(1, pages + 1):
        pdf.add_page()
        for item in (p for p in placed if p.page == page):
            pdf.set_font("dejavu", "B" if item.level else "", item.size)
            for baseline, line in item.lines:
                pdf.text(MARGIN, baseline, line)
    out.write_bytes(bytes(pdf.output()))


def write_docling(placed: list[Placed], name: str, out: Path) -> None:
    from docling_core.types.doc import BoundingBox, CoordOrigin, DocItemLabel, DoclingDocument, ProvenanceItem, Size

    doc = DoclingDocument(name=name)
    for page in sorted({p.page for p in placed}):
        doc.add_page(page_no=page, size=Size(width=PAGE_W, height=PAGE_H))
    for item in placed:
        left, top, right, bottom = item.box()
        prov = ProvenanceItem(
            page_no=item.page,
            bbox=BoundingBox(
                l=round(left, 2), t=round(PAGE_H - top, 2), r=round(right, 2), b=round(PAGE_H - bottom, 2),
                coord_origin=CoordOrigin.BOTTOMLEFT,
            ),
            charspan=(0, len(item.text)),
        )
        if item.level == 1:
            doc.add_title(text=item.text, prov=prov)
        elif item.level:
            doc.add_heading(text=item.text, level=item.level - 1, prov=prov)
        else:
            doc.add_text(label=DocItemLabel.TEXT, text=item.text, prov=prov)
    out.write_text(doc.model_dump_json(indent=1) + "\n", encoding="utf-8")


def make(markdown_path: Path, pdf_out: Path | None = None, docling_out: Path | None = None) -> None:
    placed = layout(markdown_path.read_text(encoding="utf-8"), markdown_path)
    if pdf_out is not None:
        write_pdf(placed, pdf_out)
    if docling_out is not None:
        write_docling(placed, markdown_path.parent.name, docling_out)
